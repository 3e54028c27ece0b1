#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tests/host/kernel_tables.py: on copies of the patched
tree's and bpftool's real files, each table agrees as they are, and each
kind of drift is caught, on either side: an entry one side lacks, a table
that can no longer be found, a verifier message the kernel does not print.
Run by tests/host/kernel-tables.bats.

  KSRC=build/linux python3 tests/host/kernel_tables_test.py [-v]
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
SCRIPT = os.path.join(HERE, 'kernel_tables.py')
sys.dont_write_bytecode = True		# no __pycache__ in the tree
sys.path.insert(0, HERE)
import kernel_tables as kt  # noqa: E402

KSRC = os.environ.get('KSRC', os.path.join(TOP, 'build', 'linux'))
KFILES = ('kernel/bpf/helpers.c', 'kernel/bpf/syscall.c', 'kernel/bpf/token.c',
          'kernel/bpf/verifier.c', 'net/core/filter.c')
TFILES = ('token_kmem.c', 'token_names.h', 'token_needs.c', 'token_trial.c')


class Trees(unittest.TestCase):
    """A copy of the files the check reads, edited by each test."""

    def setUp(self):
        self.dir = tempfile.mkdtemp()
        self.k = os.path.join(self.dir, 'linux')
        self.t = os.path.join(self.dir, 'bpftool')
        for f in KFILES:
            os.makedirs(os.path.dirname(os.path.join(self.k, f)), exist_ok=True)
            shutil.copy(os.path.join(KSRC, f), os.path.join(self.k, f))
        os.makedirs(self.t)
        for f in TFILES:
            shutil.copy(os.path.join(TOP, 'bpftool', f), self.t)

    def tearDown(self):
        shutil.rmtree(self.dir)

    def edit(self, path, old, new):
        with open(path) as f:
            s = f.read()
        self.assertIn(old, s)
        with open(path, 'w') as f:
            f.write(s.replace(old, new, 1))

    def lines(self):
        return dict((line.split()[1].rstrip(':'), (ok, line))
                    for ok, line in kt.compare(self.k, self.t))

    def assertDiff(self, table, *words):
        ok, line = self.lines()[table]
        self.assertFalse(ok, line)
        for w in words:
            self.assertIn(w, line)
        others = [x for n, x in self.lines().items() if n != table and not x[0]]
        self.assertEqual(others, [])


class Agree(Trees):
    def test_all_tables_agree(self):
        res = self.lines()
        self.assertEqual(sorted(res), ['attach', 'cgroup', 'helpers',
                                       'tracing', 'verifier'])
        for ok, line in res.values():
            self.assertTrue(ok, line)

    def test_sizes(self):
        # what the kernel's tables hold today; a new entry is fine, but
        # a parse that finds too few would pass an empty comparison
        sizes = {n: int(line.split()[2]) for n, (_, line) in self.lines().items()}
        self.assertGreaterEqual(sizes['helpers'], 20)
        self.assertEqual(sizes['tracing'], 7)
        self.assertEqual(sizes['attach'], 9)
        self.assertEqual(sizes['cgroup'], 8)
        self.assertGreaterEqual(sizes['verifier'], 12)

    def test_command_line(self):
        p = subprocess.run([sys.executable, SCRIPT, self.k, self.t],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertEqual(len(p.stdout.splitlines()), 5)
        p = subprocess.run([sys.executable, SCRIPT], capture_output=True,
                           text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn('usage:', p.stderr)


class Helpers(Trees):
    def test_bpftool_lacks_one(self):
        self.edit(os.path.join(self.t, 'token_kmem.c'),
                  '\t{ BPF_FUNC_snprintf_btf,\t\t"bpf_snprintf_btf" },\n', '')
        self.assertDiff('helpers', 'bpftool lacks BPF_FUNC_snprintf_btf')

    def test_kernel_gates_one_more_in_base(self):
        self.edit(os.path.join(self.k, 'kernel/bpf/helpers.c'),
                  '\tcase BPF_FUNC_trace_printk:\n',
                  '\tcase BPF_FUNC_get_numa_node_id:\n\tcase BPF_FUNC_trace_printk:\n')
        self.assertDiff('helpers', 'bpftool lacks BPF_FUNC_get_numa_node_id')

    def test_kernel_gates_a_socket_cast_no_more(self):
        # a cast that returns at once skips the check after the switch
        self.edit(os.path.join(self.k, 'net/core/filter.c'),
                  '\t\tfunc = &bpf_skc_to_udp6_sock_proto;\n\t\tbreak;\n',
                  '\t\treturn &bpf_skc_to_udp6_sock_proto;\n')
        self.assertDiff('helpers', 'the kernel lacks BPF_FUNC_skc_to_udp6_sock')

    def test_syscall_program_helper(self):
        self.edit(os.path.join(self.t, 'token_kmem.c'),
                  '"bpf_kallsyms_lookup_name" },\n', '"x" },\n')
        self.edit(os.path.join(self.t, 'token_kmem.c'),
                  'BPF_FUNC_kallsyms_lookup_name', 'BPF_FUNC_btf_find_by_name_kind')
        self.assertDiff('helpers', 'bpftool lacks BPF_FUNC_kallsyms_lookup_name',
                        'the kernel lacks BPF_FUNC_btf_find_by_name_kind')

    def test_function_gone(self):
        self.edit(os.path.join(self.k, 'kernel/bpf/syscall.c'),
                  'syscall_prog_func_proto(enum', 'syscall_func_proto(enum')
        self.assertDiff('helpers', 'can not read the table',
                        'syscall_prog_func_proto')


class ProgTypes(Trees):
    def test_tracing(self):
        self.edit(os.path.join(self.k, 'kernel/bpf/token.c'),
                  '\t BIT_ULL(BPF_PROG_TYPE_LSM))',
                  '\t BIT_ULL(BPF_PROG_TYPE_LSM) | BIT_ULL(BPF_PROG_TYPE_EXT))')
        self.assertDiff('tracing', 'bpftool lacks BPF_PROG_TYPE_EXT')

    def test_tracing_macro_gone(self):
        self.edit(os.path.join(self.t, 'token_names.h'),
                  '#define TOKEN_TRACING_PROGS', '#define TRACING_PROGS')
        self.assertDiff('tracing', 'no macro TOKEN_TRACING_PROGS')

    def test_attach(self):
        self.edit(os.path.join(self.k, 'kernel/bpf/token.c'),
                  '\tcase BPF_PROG_TYPE_SK_REUSEPORT:\n', '')
        self.assertDiff('attach', 'the kernel lacks BPF_PROG_TYPE_SK_REUSEPORT')

    def test_cgroup(self):
        self.edit(os.path.join(self.t, 'token_needs.c'),
                  '\t 1ULL << BPF_PROG_TYPE_CGROUP_SYSCTL |\t\t\t\\\n', '')
        self.assertDiff('cgroup', 'bpftool lacks BPF_PROG_TYPE_CGROUP_SYSCTL')

    def test_cgroup_lsm(self):
        # lsm counts with its one attach type, on both sides
        self.edit(os.path.join(self.t, 'token_needs.c'),
                  'type == BPF_PROG_TYPE_LSM && attach == BPF_LSM_CGROUP',
                  'type == BPF_PROG_TYPE_LSM || attach == BPF_LSM_CGROUP')
        self.assertDiff('cgroup', 'bpftool lacks BPF_PROG_TYPE_LSM')


class Verifier(Trees):
    def test_message_not_printed(self):
        self.edit(os.path.join(self.t, 'token_trial.c'),
                  '" pointer comparison prohibited",',
                  '" pointer comparison forbidden",')
        self.assertDiff('verifier', "' pointer comparison forbidden'")

    def test_kernel_rewords(self):
        self.edit(os.path.join(self.k, 'kernel/bpf/verifier.c'),
                  '"R%d pointer %s pointer prohibited\\n"',
                  '"R%d pointer %s pointer not allowed\\n"')
        self.assertDiff('verifier', "' pointer -= pointer prohibited'")


class Fragments(unittest.TestCase):
    def test_fragment_of(self):
        f = 'R%d pointer %s pointer prohibited\\n'
        self.assertTrue(kt.fragment_of(' pointer -= pointer prohibited', f))
        self.assertTrue(kt.fragment_of('pointer prohibited', f))
        self.assertFalse(kt.fragment_of(' pointer -= pointer forbidden', f))
        self.assertFalse(kt.fragment_of('prohibited R1', f))
        g = 'R%d stack pointer arithmetic goes out of range, prohibited for !root; off=%d\\n'
        self.assertTrue(kt.fragment_of(
            ' stack pointer arithmetic goes out of range, prohibited for !root', g))

    def test_literals_joined(self):
        src = 'verbose(env, "R%d a, "\n\t\t"b\\n", x); y("c");'
        self.assertEqual(kt.literals(src), ['R%d a, b\\n', 'c'])

    def test_case_blocks(self):
        body = '''
	switch (x) {
	case A:
	case B:
		return 1;
	case C:
		y = 2;
		break;
	default:
		return 0;
	}
'''
        blocks = kt.case_blocks(body)
        self.assertEqual([b[0] for b in blocks], [['A', 'B'], ['C'], ['default:']])
        self.assertIn('break;', blocks[1][1])


if __name__ == '__main__':
    if not os.path.isfile(os.path.join(KSRC, 'kernel/bpf/token.c')):
        sys.stderr.write('no patched tree at %s (KSRC)\n' % KSRC)
        sys.exit(1)
    unittest.main()
