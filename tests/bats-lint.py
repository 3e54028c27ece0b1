#!/usr/bin/env python3
"""Reject bats tests that cannot fail.

    bats-lint.py FILE...    (*.bats test files, *.bash helper files)

Two rules, for every @test and every function of the files:

  negation  A command negated with `!` that is not the last command of its
            test or function. bash's errexit ignores the status of a `!`
            pipeline, so under bats such a line never fails the test; only
            the last command's status is the test's (or the function's).
            Write `run ! CMD` (bats >= 1.5), `[[ -z $(CMD) ]]`, or make it
            the last line.
  assertion A @test with no assertion: no `[[ ]]`, `[ ]`, `(( ))`, `test`,
            `diff`, `cmp`, `grep`, `jq -e`, `false`, `return`/`exit` with a
            failing status, `run !`/`run -N`, bats' assert_*/refute_*, nor
            a call (not through `run`) of a function of the file, or of a
            file it loads (or a file that one loads), that has one. Conditions (if/elif/while/until
            lines, `|| skip`) do not count.

One line per finding, FILE:LINE: RULE: text; exit status 1 when there is
any, 2 on bad usage.
"""
import os
import re
import sys

HEREDOC = re.compile(r"<<(-?)\s*(['\"]?)([A-Za-z_][A-Za-z0-9_]*)\2")
BLOCK_START = re.compile(
    r"^(?:@test\s+(?P<test>\"(?:[^\"\\]|\\.)*\"|'[^']*')"
    r"|(?:function\s+)?(?P<func>[A-Za-z_][A-Za-z0-9_-]*)\s*\(\s*\))\s*\{\s*(?P<rest>.*)$")
PRIMITIVE = re.compile(
    r"\[\[|(?:^|[\s;&|({])\[\s|\(\(|(?:^|[\s;&|({])(?:test|diff|cmp|grep|false)(?:\s|$|;)"
    r"|\bjq\s+(?:-\w+\s+)*-e\b|\b(?:assert|refute)_\w+"
    r"|\b(?:return|exit)\s+(?:[1-9]|\$)")
RUN_CHECKED = re.compile(r"^run\s+(?:--\S+\s+)*(?:!|-[0-9])")
CONDITION = re.compile(r"^(?:if|elif|while|until)\s|\|\|\s*skip\b")
LOAD = re.compile(r"^\s*load\s+['\"]?([^\s'\"]+)")


def logical_lines(path):
    """(line number, text) of each logical line: continuations joined,
    here-document bodies and comment lines left out."""
    out = []
    with open(path, encoding="utf-8") as f:
        raw = f.read().split("\n")
    i = 0
    while i < len(raw):
        start = i
        line = raw[i]
        while line.endswith("\\") and i + 1 < len(raw):
            i += 1
            line = line[:-1] + " " + raw[i].lstrip()
        i += 1
        docs = HEREDOC.findall(line)
        for dash, _, word in docs:
            while i < len(raw):
                body = raw[i].lstrip("\t") if dash else raw[i]
                i += 1
                if body == word:
                    break
        if line.strip().startswith("#") or not line.strip():
            continue
        out.append((start + 1, line))
    return out


def blocks(lines):
    """[(kind, name, line number, [(line number, statement), ...])]: the
    @tests and functions, their bodies as logical lines."""
    res = []
    cur = None
    for n, line in lines:
        if cur is None:
            m = BLOCK_START.match(line)
            if not m:
                continue
            kind = "test" if m.group("test") else "function"
            name = m.group("test") or m.group("func")
            rest = m.group("rest").strip()
            if rest.endswith("}"):
                # one-line block: @test "x" { cmd; }
                body = rest[:-1].strip().rstrip(";").strip()
                res.append((kind, name, n, [(n, body)] if body else []))
                continue
            cur = (kind, name, n, [])
            if rest:
                cur[3].append((n, rest))
            continue
        if line == "}":
            res.append(cur)
            cur = None
            continue
        cur[3].append((n, line))
    return res


def statements(body):
    """The statements of a body, a line split at `;` outside quotes (a
    rough split: good enough to find a leading `!`)."""
    for n, line in body:
        for part in re.split(r";\s+(?=(?:[^'\"]*['\"][^'\"]*['\"])*[^'\"]*$)", line):
            yield n, part.strip()


def negated(stmt):
    s = re.sub(r"^(?:then|do|else|\{|\()\s+", "", stmt)
    return re.match(r"^!\s", s) is not None


def calls(stmt, names):
    """Names of functions that stmt calls as commands (not through run)."""
    found = set()
    for m in re.finditer(r"(?:^|[;&|{(]\s*|\b(?:then|do|else)\s+)([A-Za-z_][A-Za-z0-9_-]*)\b", stmt):
        if m.group(1) in names:
            found.add(m.group(1))
    return found


def asserting(stmt, fnames_asserting):
    stmt = stmt.strip()
    if CONDITION.search(stmt):
        return False
    if RUN_CHECKED.match(stmt):
        return True
    if re.match(r"^run\s", stmt):
        # what run runs never fails the test
        return False
    if PRIMITIVE.search(stmt):
        return True
    return bool(calls(stmt, fnames_asserting))


def lint(paths):
    findings = []
    parsed = {}

    def parse(p):
        if p not in parsed:
            lines = logical_lines(p)
            loads = []
            for _, line in lines:
                m = LOAD.match(line)
                if m:
                    name = m.group(1)
                    for cand in (name, name + ".bash"):
                        q = os.path.join(os.path.dirname(p), cand)
                        if os.path.isfile(q):
                            loads.append(q)
                            break
            parsed[p] = (lines, blocks(lines), loads)
        return parsed[p]

    def all_loads(p, seen):
        """the files @p loads, and those they load, in order"""
        for q in parse(p)[2]:
            if q not in seen:
                seen.append(q)
                all_loads(q, seen)
        return seen

    for path in paths:
        lines, blks, loads = parse(path)
        # the functions this file sees: its own and those of the files it
        # loads, directly or through another loaded file
        funcs = {}
        for q in all_loads(path, []) + [path]:
            for kind, name, _, body in parse(q)[1]:
                if kind == "function":
                    funcs[name] = body
        asserting_funcs = set()
        changed = True
        while changed:
            changed = False
            for name, body in funcs.items():
                if name in asserting_funcs:
                    continue
                if any(asserting(s, asserting_funcs) for _, s in statements(body)):
                    asserting_funcs.add(name)
                    changed = True

        for kind, name, n0, body in blks:
            stmts = list(statements(body))
            for i, (n, s) in enumerate(stmts):
                if negated(s) and i != len(stmts) - 1:
                    findings.append(
                        f"{path}:{n}: negation: `{s[:60]}` is not the last command of "
                        f"{kind} {name}: its status is ignored (use `run ! ...` or "
                        "`[[ ]]`)")
            if kind == "test":
                last_neg = bool(stmts) and negated(stmts[-1][1])
                if not last_neg and not any(asserting(s, asserting_funcs) for _, s in stmts):
                    findings.append(f"{path}:{n0}: assertion: test {name} asserts nothing")
    return findings


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip().split("\n\n")[1].strip(), file=sys.stderr)
        return 2
    findings = lint(argv[1:])
    for f in findings:
        print(f)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
