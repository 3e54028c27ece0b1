#!/usr/bin/env python3
"""Results of the kernel's BPF selftest suites, for tests/oracle/oracle.sh.

  results.py collect SUITE RUNDIR OUT     raw VM output -> results file
  results.py compare BASEDIR NEWDIR EXPECTED SUITE... [--flaky FLAKY]
                                          test by test; `N passed, N failed`
                                          (`, N skipped`: flaky differences)
  results.py parity RUNDIR                token parity report (test_verifier)

A results file has one line per test, `NAME<TAB>STATUS`, STATUS being ok,
fail or skip, sorted by name; lines starting with `#` are comments.
test_progs: each test and each subtest (`test/subtest`). test_verifier:
`N/p DESCRIPTION` (privileged run) and `N/u DESCRIPTION` (unprivileged
variant). test_maps: each test of test_maps.c (with `/no_prealloc` for the
second pass) and of map_tests/. Every suite also has `(kernel log)`: ok when
no VM of the run reported a kernel warning, oops or panic.
"""
import os
import re
import sys

STATUS = {"OK": "ok", "SKIP": "skip", "FAIL": "fail"}


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def progress(rundir):
    """START/END lines of the guest, in order."""
    return [l.split() for l in read(os.path.join(rundir, "progress")).splitlines() if l.strip()]


def kernel_log(rundir, res, notes):
    bad = [l for l in read(os.path.join(rundir, "vm-status")).splitlines() if l.split()[-1] not in ("0", "1")]
    res["(kernel log)"] = "fail" if bad else "ok"
    if bad:
        notes["(kernel log)"] = "VM boot(s) ended with " + ", ".join(bad) + " (see vm*/console.log)"


# ---------------------------------------------------------------- test_progs
LINE_PROGS = re.compile(r"^#\d+(?:/\d+)?\s+(.+):(OK|SKIP|FAIL)\s*$")


def collect_progs(rundir):
    res, notes = {}, {}
    todo = [l.strip() for l in read(os.path.join(rundir, "todo.all")).splitlines() if l.strip()]
    ended, started = {}, set()
    for p in progress(rundir):
        if p[0] == "START":
            started.add(p[1])
        elif p[0] == "END":
            ended[p[1]] = (int(p[2]), int(p[3]))
    for name in todo:
        if name not in started:
            res[name], notes[name] = "fail", "not run"
            continue
        if name not in ended:
            res[name], notes[name] = "fail", "the kernel crashed or hung during the test"
            continue
        rc, ms = ended[name]
        for line in read(os.path.join(rundir, "logs", name + ".log")).splitlines():
            m = LINE_PROGS.match(line)
            if m and (m.group(1) == name or m.group(1).startswith(name + "/")):
                res[m.group(1)] = STATUS[m.group(2)]
        if rc in (124, 137):
            res[name], notes[name] = "fail", "timeout after %d ms" % ms
        elif name not in res:
            res[name], notes[name] = "fail", "no result line (exit %d)" % rc
    kernel_log(rundir, res, notes)
    return res, notes


# ------------------------------------------------------------- test_verifier
START_VERIFIER = re.compile(r"#(\d+)/([pu]) ")
STATUS_VERIFIER = re.compile(
    r"^(?P<d>.*?) (?:Did not run the program \([^)]*\) )?"
    r"(?P<s>OK(?: \(NOTE[^)]*\))?|SKIP.*|FAIL.*)$")
MARKER = re.compile(r"@@shim ([^@]*)@@")
NOISE_VERIFIER = re.compile(r"\s*(Failed to load BTF spec:.*)?$")


def split_verifier(text):
    """[(number, mode, descr, status, chunk)] from test_verifier's output."""
    out = []
    starts = []
    last = -1
    for m in START_VERIFIER.finditer(text):
        n = int(m.group(1))
        # a test starts at the beginning of a line or right after another
        # test's unterminated status; numbers never go down
        if n < last:
            continue
        if m.start() > 0 and text[m.start() - 1] not in "\n ":
            continue
        last = n
        starts.append(m)
    for i, m in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(text)
        chunk = text[m.end():end]
        clean = MARKER.sub("", chunk)
        first = clean.split("\n", 1)[0].rstrip()
        sm = STATUS_VERIFIER.match(first)
        if sm:
            descr, st = sm.group("d"), sm.group("s")
        else:
            # a message before the status, which then starts a later line
            descr = NOISE_VERIFIER.sub("", first)
            st = next((l for l in clean.split("\n")[1:] if re.match(r"(OK|SKIP|FAIL)\b", l)), "FAIL")
        status = "ok" if st.startswith("OK") else "skip" if st.startswith("SKIP") else "fail"
        out.append((int(m.group(1)), m.group(2), descr, status, chunk))
    return out


def verifier_key(n, mode, descr):
    return "%d/%s %s" % (n, mode, descr)


def collect_verifier(rundir):
    res, notes = {}, {}
    outs = sorted(f for f in os.listdir(rundir) if f.startswith("tv.") and f.endswith(".out"))
    text = "".join(read(os.path.join(rundir, f)) for f in outs)
    for n, mode, descr, status, chunk in split_verifier(text):
        res[verifier_key(n, mode, descr)] = status
    # a chunk that started and never ended: the kernel died in it
    for p in progress(rundir):
        if p[0] == "CRASH":
            n = int(p[1])
            for k in [k for k in res if k.startswith("%d/" % n)]:
                res[k], notes[k] = "fail", "the kernel crashed or hung during the test"
    kernel_log(rundir, res, notes)
    return res, notes


# ----------------------------------------------------------------- test_maps
LINE_MAPS = re.compile(r"^#ORACLE (.+):(OK|SKIP|FAIL)(?: \((.*)\))?\s*$")


def collect_maps(rundir):
    res, notes = {}, {}
    for line in read(os.path.join(rundir, "tm.out")).splitlines():
        m = LINE_MAPS.match(line)
        if m:
            name = m.group(1)
            # map_tests/ run once, after the no_prealloc pass (an older
            # runner named them with its suffix)
            if not name.startswith("test_") and name.endswith("/no_prealloc"):
                name = name[:-len("/no_prealloc")]
            res[name] = STATUS[m.group(2)]
            if m.group(3):
                notes[name] = m.group(3)
    ended = [p for p in progress(rundir) if p[0] == "END"]
    if not ended:
        res["(test_maps exit)"], notes["(test_maps exit)"] = "fail", "the kernel crashed or hung"
    else:
        rc = int(ended[-1][2])
        res["(test_maps exit)"] = "ok" if rc == 0 else "fail"
        if rc:
            notes["(test_maps exit)"] = "exit %d" % rc
    kernel_log(rundir, res, notes)
    return res, notes


COLLECT = {"test_progs": collect_progs, "test_verifier": collect_verifier, "test_maps": collect_maps}


def write_results(path, suite, res, notes, header):
    with open(path, "w") as f:
        f.write("# %s results: NAME<TAB>STATUS (ok, fail, skip)\n" % suite)
        for h in header:
            f.write("# %s\n" % h)
        for k in sorted(res):
            f.write("%s\t%s\n" % (k, res[k]))
    if notes:
        with open(path + ".notes", "w") as f:
            for k in sorted(notes):
                f.write("%s\t%s\n" % (k, notes[k]))


def load_results(path):
    res = {}
    for line in read(path).splitlines():
        if not line or line.startswith("#"):
            continue
        name, _, status = line.rpartition("\t")
        res[name] = status
    return res


def load_expected(path):
    exp = {}
    for line in read(path).splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) < 3:
            sys.exit("Error: %s: a line needs SUITE<TAB>TEST<TAB>REASON: %r" % (path, line))
        exp[(parts[0], parts[1])] = parts[2]
    return exp


def cmd_collect(suite, rundir, out, *header):
    res, notes = COLLECT[suite](rundir)
    write_results(out, suite, res, notes, header)
    counts = {s: sum(1 for v in res.values() if v == s) for s in ("ok", "fail", "skip")}
    print("%s: %d tests: %d ok, %d fail, %d skip" % (suite, len(res), counts["ok"], counts["fail"], counts["skip"]))


def cmd_compare(basedir, newdir, expected, *suites):
    suites = list(suites)
    flaky = {}
    if "--flaky" in suites:
        i = suites.index("--flaky")
        if i + 1 >= len(suites):
            sys.exit("Error: --flaky needs a file")
        flaky = load_expected(suites[i + 1])
        del suites[i:i + 2]
    exp = load_expected(expected)
    used = set()
    passed = failed = skipped = 0
    for suite in suites:
        base = load_results(os.path.join(basedir, suite + ".txt"))
        new = load_results(os.path.join(newdir, suite + ".txt"))
        notes = {}
        for line in read(os.path.join(newdir, suite + ".txt.notes")).splitlines():
            k, _, v = line.partition("\t")
            notes[k] = v
        if not base:
            print("%s: FAIL: no baseline results (make oracle-baseline)" % suite)
            failed += 1
            continue
        if not new:
            print("%s: FAIL: no results from this run" % suite)
            failed += 1
            continue
        same = 0
        for name in sorted(set(base) | set(new)):
            b, n = base.get(name, "absent"), new.get(name, "absent")
            if b == n:
                passed += 1
                same += 1
                continue
            if b == "absent" and n in ("ok", "skip"):
                # a test the series adds, and it passes
                print("%s: new: %s: %s" % (suite, name, n))
                passed += 1
                continue
            why = exp.get((suite, name))
            note = " (%s)" % notes[name] if name in notes else ""
            if why is not None:
                used.add((suite, name))
                print("%s: expected: %s: %s -> %s%s: %s" % (suite, name, b, n, note, why))
                passed += 1
            elif (suite, name) in flaky:
                # known to give either result on one kernel: neither a
                # pass nor a failure of the series
                print("%s: flaky: %s: baseline %s, now %s%s: %s" % (suite, name, b, n, note,
                                                                  flaky[(suite, name)]))
                skipped += 1
            else:
                print("%s: DIFF: %s: baseline %s, now %s%s" % (suite, name, b, n, note))
                failed += 1
        print("%s: %d of %d tests as in the baseline" % (suite, same, len(set(base) | set(new))))
    for k in sorted(set(exp) - used):
        if k[0] in suites:
            print("%s: note: expected difference did not occur: %s" % k)
    print("%d passed, %d failed%s" % (passed, failed, ", %d skipped" % skipped if skipped else ""))
    return 1 if failed else 0


def reason(chunk):
    """The verifier's or the test's last word on a failed test, if any."""
    lines = MARKER.sub("", chunk).split("\n")
    first = lines[0].split("FAIL", 1)[1].strip(" :") if "FAIL" in lines[0] else ""
    if first and not first.startswith("Unexpected"):
        return ": " + first
    msg = [l for l in lines[1:] if l.strip() and not l.startswith(
        ("verification time", "stack depth", "processed", "Failed to load prog", "Summary"))]
    return ": " + msg[-1].strip() if msg else ""


# Program types whose test run may bpf_clone_redirect() the packet to a
# device (sched_cls, sched_act, lwt_xmit): through a token, the test run
# needs CAP_NET_ADMIN over the network namespace (token.rst, "Attach scope")
NETNS_RUN_TYPES = {3, 4, 12}
NETNS_RUN_REFUSED = "Unexpected bpf_prog_test_run error (Operation not permitted)"
# a cgroup_skb program's write of __sk_buff.mark (8) or .priority (32): the
# loader's own CAP_NET_ADMIN
LOADER_WRITE = re.compile(r"invalid bpf_context access off=(8|32) size=4")
CGROUP_SKB = 8
TRACING_TYPES = {2, 5, 7, 17, 24, 26, 29}


def parity_kind(types, chunk):
    """Why a test that passes for root fails through a token: a rule of the
    series that refuses it to a holder, or "other"."""
    if set(types) & TRACING_TYPES:
        return "tracing program type"
    if types and set(types) <= NETNS_RUN_TYPES and NETNS_RUN_REFUSED in chunk:
        return "test run: netns rule"
    if types == [CGROUP_SKB] and LOADER_WRITE.search(chunk):
        return "mark/priority write: loader"
    return "other"


def parity_key(n, mode, descr):
    """A test's key in a parity run: test_verifier adds " N cases" to the
    name of a test it ran N times, and only when every run went through."""
    return verifier_key(n, mode, re.sub(r" \d+ cases$", "", descr))


def cmd_parity(rundir):
    runs = {}
    for who in ("root", "all", "notrace"):
        runs[who] = {}
        for n, mode, descr, status, chunk in split_verifier(read(os.path.join(rundir, "parity-%s.out" % who))):
            types = sorted({int(t) for t in re.findall(r"@@shim prog_type=(\d+)", chunk)})
            runs[who][parity_key(n, mode, descr)] = (status, types, chunk)
    root = runs["root"]
    if not root:
        print("parity: FAIL: no root run")
        return 1
    rc = 0
    for who, title in (("all", "token allowing everything"),
                       ("notrace", "token allowing every program type but the tracing ones")):
        other = runs[who]
        diffs = []
        missing = 0
        # tests the guest left out of this run on purpose (by number)
        skipped = set()
        skip_file = os.path.join(rundir, "parity-%s.skipped" % who)
        if os.path.exists(skip_file):
            skipped = {int(x) for x in read(skip_file).split()}
        for k in sorted(set(root) | set(other), key=lambda k: (int(k.split("/")[0]), k)):
            r = root.get(k, ("absent", [], ""))
            o = other.get(k, ("absent", [], ""))
            if o[0] == "absent":
                if int(k.split("/")[0]) not in skipped:
                    missing += 1
            elif r[0] != o[0]:
                diffs.append((k, r, o))
        privileged = sum(1 for k in root if "/p " in k)
        print("parity: %s: %d of %d privileged tests (and %d unprivileged variants) compared, %d differ from root%s"
              % (title, sum(1 for k in other if "/p " in k), privileged,
                 sum(1 for k in root if "/u " in k), len(diffs),
                 ", %d MISSING from the token's run" % missing if missing else ""))
        if skipped:
            print("parity: %s: %d tests left out of the run (%s)"
                  % (title, len(skipped), ", ".join(str(n) for n in sorted(skipped))))
        if missing:
            rc = 1
        kinds = {}
        for k, r, o in diffs:
            kind = parity_kind(o[1], o[2])
            kinds[kind] = kinds.get(kind, 0) + 1
            print("  %s: root %s, token %s [%s; prog types %s]%s" % (
                k, r[0], o[0], kind, ",".join(map(str, o[1])) or "-", reason(o[2])))
            if os.environ.get("ORACLE_VERBOSE"):
                for line in MARKER.sub("", o[2]).rstrip().splitlines()[:12]:
                    print("      | " + line)
        if diffs:
            print("parity: %s: by reason: %s" % (
                title, ", ".join("%s %d" % (k, kinds[k]) for k in sorted(kinds))))
        # through the token that allows everything, only the rules that
        # refuse a holder what root has may differ
        if who == "all" and kinds.get("other"):
            rc = 1
    return rc


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "collect":
        cmd_collect(*args)
        return 0
    if cmd == "compare":
        return cmd_compare(*args)
    if cmd == "parity":
        return cmd_parity(*args)
    sys.exit("Error: unknown command %s" % cmd)


if __name__ == "__main__":
    sys.exit(main())
