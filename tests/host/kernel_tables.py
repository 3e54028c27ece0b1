#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""The kernel's token policy that bpftool keeps a copy of, compared with the
kernel it copies.

bpftool's token code works on this project's kernel and on mainline ones,
and neither exports these decisions at run time (they are switch
statements and macros of the kernel's C code, not UAPI or BTF), so bpftool
carries them. This check reads each table from the patched tree's sources
and from bpftool's, and says where they differ:

  helpers     the helpers a program gets only with CAP_PERFMON (a token
              with a tracing type): bpf_base_func_proto()'s last group,
              bpf_sk_base_func_proto()'s casts, syscall programs' gated
              helpers; bpftool/token_kmem.c's kmem_helpers
  tracing     the tracing program types (kernel/bpf/token.c's
              BPF_TOKEN_TRACING_PROGS; bpftool/token_names.h's
              TOKEN_TRACING_PROGS)
  attach      the program types whose expected attach type selects the
              hook at load, which a token checks then
              (bpf_prog_type_selects_hook_at_load(); bpftool/token_needs.c's
              ATTACH_TYPE_CONSULTED)
  cgroup      the program types BPF_PROG_ATTACH hands to the cgroup code
              (bpf_prog_attach(); bpftool/token_needs.c's CGROUP_PROG_TYPES
              and the type it takes with one attach type, lsm)
  verifier    the verifier's messages for what it allows only with
              allow_ptr_leaks or bypass_spec_v1 (bpftool/token_trial.c's
              relaxed_msgs): each must be text of kernel/bpf/verifier.c

  kernel_tables.py KSRC BPFTOOL_DIR

prints a line per table ("ok NAME: N entries" or "DIFF NAME: ...") and
exits 1 if any differs.
"""
import os
import re
import sys


def read(path):
    with open(path, encoding='utf-8', errors='replace') as f:
        return f.read()


def function(src, name):
    """The body of C function @name of @src: from the line where its name
    starts a definition (at the start of a line, or after its return type
    on that line) to the first closing brace at the start of a line."""
    m = re.search(r'^(?:[a-z_][\w ]*\**\s*)?' + re.escape(name) +
                  r'\([^;{]*\)\s*\n\{', src, re.M)
    if not m:
        raise LookupError('no function %s()' % name)
    end = src.find('\n}', m.end())
    if end < 0:
        raise LookupError('function %s() has no end' % name)
    return src[m.end():end]


def macro(src, name):
    """The text of #define @name, its continuation lines joined."""
    m = re.search(r'^#define\s+' + re.escape(name) + r'\b((?:.*\\\n)*.*)$',
                  src, re.M)
    if not m:
        raise LookupError('no macro %s' % name)
    return m.group(1).replace('\\\n', ' ')


def names(text, prefix):
    """The set of identifiers of @text that start with @prefix."""
    return set(re.findall(r'\b(' + re.escape(prefix) + r'\w+)\b', text))


def case_blocks(body):
    """The cases of the switch statements of @body as (labels, code)
    pairs: the labels that share the code up to the next label."""
    parts = re.split(r'^\s*(case\s+\w+\s*:|default\s*:)', body, flags=re.M)
    blocks, labels = [], []
    for i in range(1, len(parts), 2):
        label = parts[i]
        labels.append(re.sub(r'^case\s+(\w+)\s*:$', r'\1', label.strip()))
        code = parts[i + 1]
        if code.strip():
            blocks.append((labels, code))
            labels = []
    if labels:
        blocks.append((labels, ''))
    return blocks


def after(body, marker):
    """@body after the first line that holds @marker."""
    i = body.find(marker)
    if i < 0:
        raise LookupError('no %r' % marker)
    return body[body.index('\n', i):]


PERFMON = 'CAP_PERFMON'


def kernel_perfmon_helpers(ksrc):
    """Helpers that need CAP_PERFMON beyond the program's type."""
    found = set()
    base = function(read(os.path.join(ksrc, 'kernel/bpf/helpers.c')),
                    'bpf_base_func_proto')
    found |= names(after(base, PERFMON), 'BPF_FUNC_')
    # bpf_sk_base_func_proto(): the cases that break out of the switch
    # reach the CAP_PERFMON check after it; the others return
    sk = function(read(os.path.join(ksrc, 'net/core/filter.c')),
                  'bpf_sk_base_func_proto')
    if PERFMON not in sk.split('switch', 1)[1].rsplit('}', 1)[-1]:
        raise LookupError('bpf_sk_base_func_proto() checks no %s after '
                          'its switch' % PERFMON)
    for labels, code in case_blocks(sk):
        if re.search(r'\bbreak;', code):
            found |= {x for x in labels if x.startswith('BPF_FUNC_')}
    # syscall programs: the cases that check it themselves (not the
    # default, which hands the rest to the tracing helpers)
    sc = function(read(os.path.join(ksrc, 'kernel/bpf/syscall.c')),
                  'syscall_prog_func_proto')
    for labels, code in case_blocks(sc):
        if PERFMON in code:
            found |= {x for x in labels if x.startswith('BPF_FUNC_')}
    return found


def bpftool_perfmon_helpers(tool):
    src = read(os.path.join(tool, 'token_kmem.c'))
    m = re.search(r'kmem_helpers\[\]\s*=\s*\{(.*?)\n\};', src, re.S)
    if not m:
        raise LookupError('no kmem_helpers[] in token_kmem.c')
    return names(m.group(1), 'BPF_FUNC_')


def kernel_tracing(ksrc):
    return names(macro(read(os.path.join(ksrc, 'kernel/bpf/token.c')),
                       'BPF_TOKEN_TRACING_PROGS'), 'BPF_PROG_TYPE_')


def bpftool_tracing(tool):
    return names(macro(read(os.path.join(tool, 'token_names.h')),
                       'TOKEN_TRACING_PROGS'), 'BPF_PROG_TYPE_')


def kernel_attach(ksrc):
    body = function(read(os.path.join(ksrc, 'kernel/bpf/token.c')),
                    'bpf_prog_type_selects_hook_at_load')
    return {x for labels, code in case_blocks(body) if 'true' in code
            for x in labels if x.startswith('BPF_PROG_TYPE_')}


def bpftool_attach(tool):
    return names(macro(read(os.path.join(tool, 'token_needs.c')),
                       'ATTACH_TYPE_CONSULTED'), 'BPF_PROG_TYPE_')


def kernel_cgroup(ksrc):
    body = function(read(os.path.join(ksrc, 'kernel/bpf/syscall.c')),
                    'bpf_prog_attach')
    for labels, code in case_blocks(body):
        if 'cgroup_bpf_prog_attach(' in code:
            return {x for x in labels if x.startswith('BPF_PROG_TYPE_')}
    raise LookupError('bpf_prog_attach() calls no cgroup_bpf_prog_attach()')


def bpftool_cgroup(tool):
    """CGROUP_PROG_TYPES, and the types it takes with one attach type
    (lsm of lsm_cgroup), as the kernel does"""
    src = read(os.path.join(tool, 'token_needs.c'))
    return (names(macro(src, 'CGROUP_PROG_TYPES'), 'BPF_PROG_TYPE_') |
            set(re.findall(r'type == (BPF_PROG_TYPE_\w+) && attach == '
                           r'BPF_\w+', src)))


LITERALS = re.compile(r'"(?:[^"\\\n]|\\.)*"(?:\s*"(?:[^"\\\n]|\\.)*")*')
CONVERSION = re.compile(r'%[-+ #0]*[0-9*]*(?:\.[0-9*]+)?[hlLzjt]*[diouxXcsp]')


def literals(src):
    """The string literals of C source @src, adjacent ones joined, as
    written (escapes kept)."""
    return [''.join(re.findall(r'"((?:[^"\\\n]|\\.)*)"', m.group(0)))
            for m in LITERALS.finditer(src)]


def fragment_of(msg, fmt):
    """Whether some output of printf format @fmt contains @msg: @msg is
    the end of one constant piece of @fmt, the pieces after it with a word
    (no space: a number, a register, an operator) for each conversion,
    and the start of a later piece; or it lies within one piece."""
    pieces = CONVERSION.split(fmt)
    if any(msg in p for p in pieces):
        return True
    for a in range(len(pieces)):
        for b in range(a + 1, len(pieces)):
            first = '|'.join(re.escape(pieces[a][i:])
                             for i in range(len(pieces[a]) + 1))
            last = '|'.join(re.escape(pieces[b][:j])
                            for j in range(len(pieces[b]) + 1))
            mid = ''.join(r'\S*' + re.escape(p) for p in pieces[a + 1:b])
            if re.fullmatch(r'(?:%s)%s\S*(?:%s)' % (first, mid, last), msg):
                return True
    return False


def verifier_messages(ksrc, tool):
    """(messages of bpftool, those that no format of the verifier prints)"""
    src = read(os.path.join(tool, 'token_trial.c'))
    m = re.search(r'relaxed_msgs\[\]\s*=\s*\{(.*?)\n\};', src, re.S)
    if not m:
        raise LookupError('no relaxed_msgs[] in token_trial.c')
    msgs = literals(m.group(1))
    fmts = [f for f in literals(read(os.path.join(ksrc, 'kernel/bpf/verifier.c')))
            if f]
    missing = [x for x in msgs if not any(fragment_of(x, f) for f in fmts)]
    return msgs, missing


TABLES = (
    ('helpers', kernel_perfmon_helpers, bpftool_perfmon_helpers),
    ('tracing', kernel_tracing, bpftool_tracing),
    ('attach', kernel_attach, bpftool_attach),
    ('cgroup', kernel_cgroup, bpftool_cgroup),
)


def compare(ksrc, tool):
    """[(ok, line)] for each table"""
    out = []
    for name, kernel, bpftool in TABLES:
        try:
            k, b = kernel(ksrc), bpftool(tool)
        except (LookupError, OSError) as e:
            out.append((False, 'DIFF %s: can not read the table: %s' %
                        (name, e)))
            continue
        if not k:
            out.append((False, 'DIFF %s: the kernel table is empty' % name))
        elif k == b:
            out.append((True, 'ok %s: %d entries' % (name, len(k))))
        else:
            line = 'DIFF %s:' % name
            if k - b:
                line += ' bpftool lacks ' + ', '.join(sorted(k - b)) + ';'
            if b - k:
                line += ' the kernel lacks ' + ', '.join(sorted(b - k)) + ';'
            out.append((False, line.rstrip(';')))
    try:
        msgs, missing = verifier_messages(ksrc, tool)
        if missing:
            out.append((False, 'DIFF verifier: not in kernel/bpf/verifier.c: ' +
                        '; '.join(repr(x) for x in missing)))
        else:
            out.append((True, 'ok verifier: %d entries' % len(msgs)))
    except (LookupError, OSError) as e:
        out.append((False, 'DIFF verifier: can not read the table: %s' % e))
    return out


def main(argv):
    if len(argv) != 3:
        sys.stderr.write('usage: kernel_tables.py KSRC BPFTOOL_DIR\n')
        return 2
    res = compare(argv[1], argv[2])
    for _, line in res:
        print(line)
    return 0 if all(ok for ok, _ in res) else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
