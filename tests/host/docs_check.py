#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The checks of tests/host/docs.bats that read C and reStructuredText: what
bpftool's token code prints (its error messages, the keys of `token show`)
against what the operator's guide and bpftool-token(8) say it prints.

  docs_check.py messages BPFTOOL_DIR [HEADER...]
      the formats of bpftool's token messages, one a line
  docs_check.py troubleshooting GUIDE FORMATS
      the fixed words of each format that the guide lacks; status 1 if any
  docs_check.py doc-messages GUIDE MANPAGE
      the messages the guide's troubleshooting and the man page quote
  docs_check.py unknown-messages FORMATS QUOTED
      the quoted messages that match none of the formats
  docs_check.py show-keys BPFTOOL_DIR
      the keys `token show` prints, "plain KEY" and "json KEY" lines
  docs_check.py example-keys MANPAGE
      the keys of the man page's examples of show, list and create -j

Each subcommand is a function of this module of the same name (with "_" for
"-") that returns, as a list, what the subcommand prints;
tests/host/docs_check_test.py tests them on small inputs of its own.
"""
import glob
import re
import sys

# What bpftool's usage errors end with (TOKEN_HELP_HINT)
HINT = " (see 'bpftool token help')"
# A printf conversion: %s, %d, %-8s, %lu, %.*s, ...
CONV = r'%[-0-9.*]*l*[a-z]'
# A C string literal
LIT = r'"(?:[^"\\]|\\.)*"'


def read(path):
    with open(path, encoding='utf-8') as f:
        return f.read()


def messages(bpftool_dir, headers=()):
    """The messages bpftool's token code prints: the formats of p_err() (and
    of the messages token_names.c makes for it) in BPFTOOL_DIR/*.[ch], in
    HEADERS (bpftool's own main.h: BAD_ARG()...) and in the lines that the
    registration patches (BPFTOOL_DIR/patches/*.patch) add; the #defined
    strings they use (TOKEN_HELP_HINT) expanded. One format per entry."""
    src, hints = '', {}
    files = (sorted(glob.glob(bpftool_dir + '/*.[ch]')) + list(headers) +
             sorted(glob.glob(bpftool_dir + '/patches/*.patch')))
    for f in files:
        text = read(f)
        if f.endswith('.patch'):
            # the lines the registration patches add
            text = '\n'.join(l[1:] for l in text.split('\n') if l.startswith('+'))
        for name, val in re.findall(r'#define\s+(\w+)\s+("[^"\n]*")\n', text):
            hints[name] = val
        src += text + '\n'
    out = []
    for call in re.findall(r'(?:p_err\(|snprintf\(err, err \? err_sz : 0,)\s*((?:' + LIT +
                           r'|\s|' + '|'.join(hints) + r')+)', src):
        for name, val in hints.items():
            call = call.replace(name, val)
        out.append(''.join(re.findall(r'"((?:[^"\\]|\\.)*)"', call)).replace('\\"', '"'))
    return out


def troubleshooting(guide, formats):
    """The fixed words (6 characters or more, between the conversions) of
    each of FORMATS that the text GUIDE lacks, whitespace aside. The hint
    may be left out (the guide says which messages end with it); "invalid
    token set" is token_names.c's caller's bug, never the user's."""
    guide = ' '.join(guide.split())
    missing = []
    for fmt in formats:
        fmt = fmt.replace(HINT, '')
        if fmt.startswith('invalid token set'):
            continue
        for part in re.split(CONV, fmt):
            part = ' '.join(part.split()).strip(" '")
            if len(part) >= 6 and part not in guide:
                missing.append(part)
    return missing


def doc_messages(guide, man):
    """The error messages that the guide's troubleshooting and the man
    page's examples quote: the ``literals`` of the troubleshooting entries
    (a ``literal`` line followed by an indented one) and of its paragraph
    "Usage errors of" (libbpf's messages, single words, commands and the
    hint aside), and the man page's "Error: " lines."""
    sec = guide[guide.index('\nTroubleshooting\n'):]
    sec = sec[:re.search(r'\n[^\n]+\n=+\n', sec[20:]).start() + 20]
    texts = []
    lines = sec.split('\n')
    for i, l in enumerate(lines[:-1]):
        if l.startswith('``') and lines[i + 1].startswith('    '):
            texts.append(l)
    usage = sec[sec.index('Usage errors of'):]
    texts.append(' '.join(usage[:usage.index('\n\n')].split()))
    out = []
    for t in texts:
        for m in re.findall(r'``(.+?)``', t):
            if (m.startswith('libbpf:') or ' ' not in m or m.startswith('(see ') or
                    re.fullmatch(r'(token|prog|map) [a-z]+', m)):
                continue
            out.append(m)
    for l in man.split('\n'):
        if l.strip().startswith('Error: '):
            out.append(l.strip()[len('Error: '):])
    return out


def _pattern(fmt):
    """A regular expression for the messages FMT prints: a number is one
    word (N), a string anything."""
    return '(?s)' + re.sub(
        r'%[-0-9.*]*l*[diux]|%[-0-9.*]*s|[^%]+',
        lambda m: (r'\S+' if m.group()[-1] in 'diux' and m.group()[0] == '%'
                   else '.+' if m.group()[0] == '%' else re.escape(m.group())), fmt)


def unknown_messages(formats, quoted):
    """The entries of QUOTED (messages as the documentation quotes them)
    that match none of FORMATS: a placeholder (PATH, N, ...) stands for a
    conversion, and the hint may be left out."""
    pats = []
    for fmt in formats:
        if not fmt:
            continue
        for f in (fmt, fmt.replace(HINT, '')):
            # a format that is all conversions ("%s", token_names.c's
            # message) says nothing of its own
            if len(re.sub(CONV, '', f).strip()) < 3:
                continue
            pats.append(_pattern(f))
    return [q for q in quoted if q and not any(re.fullmatch(p, q) for p in pats)]


def _body(src, name):
    """The text of function NAME of SRC (static or not); '' if there is
    none."""
    m = re.search(r'\n(?:static )?void ' + name + r'\(', src)
    if not m:
        return ''
    return src[m.start():src.index('\n}\n', m.start())]


def show_keys(bpftool_dir):
    """The keys `token show` prints, from token.c's builders of the plain
    text, add_token_plain() and add_desc_plain() (a "\\tKEY" in a string,
    or the KEY of an add_u64_line() call), and print_token_json() (and the
    token_desc_json() it calls, and print_cgroup_json()), with the set names
    of token_names.c's table (and, in JSON, the names of the token's uses),
    as sorted ("plain", KEY) pairs, then ("json", KEY) pairs."""
    src = read(bpftool_dir + '/token.c')
    sets = re.findall(r'\{ "\w+",\s+"(allowed_\w+)"', read(bpftool_dir + '/token_names.c'))
    uses = re.findall(r'\[TOKEN_USE_\w+\]\s*= "(\w+)"', src)
    plain_src = _body(src, 'add_token_plain') + _body(src, 'add_desc_plain')
    plain = set(sets) | set(re.findall(r'\\t([\w-]+)', plain_src)) | set(
        re.findall(r'add_u64_line\(\w+, "([\w-]+)"', plain_src))
    json = set(sets) | set(uses) | set(re.findall(
        r'jsonw_\w+\(json_wtr, "(\w+)"',
        _body(src, 'print_token_json') + _body(src, 'token_desc_json') +
        _body(src, 'print_cgroup_json')))
    return [('plain', k) for k in sorted(plain)] + [('json', k) for k in sorted(json)]


def example_keys(man):
    """The keys of the outputs of show, list and create -j (or -p) in the
    EXAMPLES of the man page MAN: the first word of a plain line (a tab,
    then the key), every "key": of JSON; sorted (kind, KEY) pairs."""
    ex = man[man.index('\nEXAMPLES\n'):]
    blocks = re.findall(r'\*\*[#$] (bpftool[^*]*)\*\*\n\n::\n\n((?:(?:  |\t)[^\n]*\n|\n)+)', ex)
    keys = set()
    for cmd, out in blocks:
        if not re.search(r'token (show|list)|-j token create|-p token create', cmd):
            continue
        for l in out.split('\n'):
            m = re.match(r'\t([\w-]+)(:| |$)', l)
            if m:
                keys.add(('plain', m.group(1)))
            for k in re.findall(r'"(\w+)":', l):
                keys.add(('json', k))
    return sorted(keys)


def lines(path):
    """The lines of a file of formats or messages (as `echo` writes them:
    the empty entry after the last newline kept)"""
    return read(path).split('\n')


def main(argv):
    # the subcommands: how many arguments they take, at least and at most
    nargs = {
        'messages': (1, None),
        'troubleshooting': (2, 2),
        'doc-messages': (2, 2),
        'unknown-messages': (2, 2),
        'show-keys': (1, 1),
        'example-keys': (1, 1),
    }
    cmd, args = (argv[1], argv[2:]) if len(argv) > 1 else (None, [])
    if cmd not in nargs or len(args) < nargs[cmd][0] or \
            (nargs[cmd][1] is not None and len(args) > nargs[cmd][1]):
        print('usage: docs_check.py ' + '|'.join(nargs) + ' ARGS... (see its docstring)',
              file=sys.stderr)
        return 2
    if cmd == 'messages':
        for fmt in messages(args[0], args[1:]):
            print(fmt)
    elif cmd == 'troubleshooting':
        missing = troubleshooting(read(args[0]), lines(args[1]))
        for m in missing:
            print('not in the guide:', repr(m))
        return 1 if missing else 0
    elif cmd == 'doc-messages':
        for m in doc_messages(read(args[0]), read(args[1])):
            print(m)
    elif cmd == 'unknown-messages':
        for q in unknown_messages(lines(args[0]), lines(args[1])):
            print(q)
    elif cmd == 'show-keys':
        for k in show_keys(args[0]):
            print(*k)
    else:
        for k in example_keys(read(args[0])):
            print(*k)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
