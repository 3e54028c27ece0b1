#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Cut prog_tests/token.c into the versions the series' selftest patches add.

    split-token.py [TOKEN_C] OUTDIR

writes OUTDIR/token.c.1 .. token.c.5, each a complete token.c:
  1  selftests/bpf: add BPF_TOKEN_CREATE test       (token_* subtests)
  2  ... BPF token-enabled test for BPF_MAP_CREATE  (+ map_*)
  3  ... BPF token-enabled BPF_BTF_LOAD selftest    (+ btf_*)
  4  ... BPF token-enabled BPF_PROG_LOAD tests      (+ prog_*)
  5  ... BPF token introspection test               (+ token_info)
Version N is version N-1 plus one block of helpers and subtests, and
test_token() grows by the new subtests, so `diff -u token.c.(N-1) token.c.N`
is the patch's content. Each version builds on its own with -Wall -Werror
(every static helper comes with its first user): `make check-split`.
"""
import os
import re
import sys

# first line of each block after the first one
BLOCKS = [
    'static void subtest_map_token(void)',
    'static void subtest_btf_token(void)',
    '/* An XDP program that needs',
    '/* Check the four fdinfo lines',
    'void test_token(void)',
]
GROUPS = [
    lambda n: n.startswith('token_') and n != 'token_info',
    lambda n: n.startswith('map_'),
    lambda n: n.startswith('btf_'),
    lambda n: n.startswith('prog_'),
    lambda n: n == 'token_info',
]


def main():
    if len(sys.argv) == 3:
        src_path, out = sys.argv[1:]
    elif len(sys.argv) == 2:
        src_path = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                '..', '..', 'build', 'linux', 'tools', 'testing',
                                'selftests', 'bpf', 'prog_tests', 'token.c')
        out = sys.argv[1]
    else:
        sys.exit(__doc__)
    src = open(src_path).read()
    idx = [src.index(b) for b in BLOCKS]
    parts = [src[:idx[0]]] + [src[idx[i]:idx[i + 1]] for i in range(4)]
    body = src[idx[4]:]
    subtests = re.findall(
        r'\tif \(test__start_subtest\("(\w+)"\)\)\n\t\t(\w+)\(\);\n', body)
    for name, _ in subtests:
        if sum(1 for g in GROUPS if g(name)) != 1:
            sys.exit('subtest %s fits no patch' % name)

    os.makedirs(out, exist_ok=True)
    for k in range(1, 6):
        sel = [(n, f) for n, f in subtests
               if any(g(n) for g in GROUPS[:k])]
        text = ''.join(parts[:k]) + 'void test_token(void)\n{\n'
        text += ''.join('\tif (test__start_subtest("%s"))\n\t\t%s();\n'
                        % (n, f) for n, f in sel)
        text += '}\n'
        with open(os.path.join(out, 'token.c.%d' % k), 'w') as f:
            f.write(text)
    # the last version is the file itself
    if text != src:
        sys.exit('token.c.5 differs from %s: fix BLOCKS' % src_path)


if __name__ == '__main__':
    main()
