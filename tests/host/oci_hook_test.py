#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the bpf-token OCI hook (oci/oci-hook), loaded as a module:
its parsers (the container's state, the annotations, the sets' words, the
policy file, bpftool's needs), the policy's decisions, the bounded and
unprivileged parse of the objects (with stand-ins for bpftool that hang,
crash, eat memory or CPU, flood their output), the helper that works in the
container's mount namespace, the records and the teardown that follows no
symbolic link. Run by tests/host/oci-hook.bats; as root, for the parts that
change credentials, enter mount namespaces or chroot.

  python3 tests/host/oci_hook_test.py [-v] [TestClass[.test]]
"""
import contextlib
import importlib.machinery
import importlib.util
import io
import json
import os
import shutil
import signal
import stat
import sys
import tempfile
import time
import unittest
import unittest.mock

TOP = os.environ.get('TOP') or os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
BUILD = os.environ.get('BUILD') or os.path.join(TOP, 'build')
BPFTOOL = os.environ.get('BPFTOOL') or os.path.join(BUILD, 'bpftool', 'bpftool')
HOOK_PATH = os.path.join(TOP, 'oci', 'oci-hook')
EXAMPLE_POLICY = os.path.join(TOP, 'Documentation', 'examples', 'oci-policy')
ROOT = os.geteuid() == 0
NOBODY = 65534


def load_hook():
    """oci/oci-hook as a fresh module (it has no .py suffix)"""
    loader = importlib.machinery.SourceFileLoader('oci_hook', HOOK_PATH)
    spec = importlib.util.spec_from_loader('oci_hook', loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


hook = load_hook()
HookError = hook.HookError


class TmpDir(unittest.TestCase):
    """a temporary directory that the unprivileged children can search"""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='oci-hook-test.', dir='/tmp')
        os.chmod(self.tmp, 0o755)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, name, text, mode=0o644):
        path = os.path.join(self.tmp, name)
        with open(path, 'w') as f:
            f.write(text)
        os.chmod(path, mode)
        return path


class State(unittest.TestCase):
    def test_valid(self):
        s = hook.parse_state('{"id": "ct-1.a_b+c", "pid": 5, "bundle": "/b"}')
        self.assertEqual(s['id'], 'ct-1.a_b+c')

    def test_not_json(self):
        with self.assertRaisesRegex(HookError, '^the container state on stdin is not JSON'):
            hook.parse_state('not json')

    def test_not_object(self):
        with self.assertRaisesRegex(HookError, 'not a JSON object'):
            hook.parse_state('["id"]')

    def test_bad_ids(self):
        for cid in ('../x', '', '.hidden', 'a/b', 'a' * 129, 5, None, 'a\nb'):
            with self.subTest(cid=cid), self.assertRaisesRegex(HookError, '^unusable container id'):
                hook.parse_state(json.dumps({'id': cid}))
        hook.parse_state(json.dumps({'id': 'a' * 128}))

    def test_pid(self):
        for pid in (0, -1, '1', True, None, 1.5):
            with self.subTest(pid=pid), self.assertRaisesRegex(HookError, 'no container process'):
                hook.container_pid({'pid': pid})


class Annotations(unittest.TestCase):
    def test_state_first_then_config(self):
        state = {'annotations': {'org.bpf-token.maps': 'array', 'other': 'x'}}
        config = {'annotations': {'org.bpf-token.progs': 'xdp'}}
        self.assertEqual(hook.our_annotations(state, config), {'maps': 'array'})
        self.assertEqual(hook.our_annotations({}, config), {'progs': 'xdp'})
        self.assertEqual(hook.our_annotations({'annotations': 'x'}, None), {})
        self.assertEqual(hook.our_annotations({}, {'annotations': ['x']}), {})

    def test_objects_split_and_stripped(self):
        objects, sets, mnt, name = hook.parse_annotations(
            {'objects': '/a.bpf.o, /b/c.bpf.o:/d.bpf.o'})
        self.assertEqual(objects, ['/a.bpf.o', '/b/c.bpf.o', '/d.bpf.o'])
        self.assertEqual(sets, {})
        self.assertEqual((mnt, name), ('/sys/fs/bpf', 'token'))

    def test_at_most_64_objects(self):
        ok = ':'.join(f'/o{i}.bpf.o' for i in range(64))
        self.assertEqual(len(hook.parse_annotations({'objects': ok})[0]), 64)
        with self.assertRaisesRegex(HookError, r'^org\.bpf-token\.objects: 65 objects, more than 64$'):
            hook.parse_annotations({'objects': ok + ',/o64.bpf.o'})

    def test_sets(self):
        _, sets, _, _ = hook.parse_annotations({'maps': ' array,HASH ', 'cmds': 'prog_load:0x20'})
        self.assertEqual(sets, {'maps': 'array,HASH', 'cmds': 'prog_load:0x20'})
        for bad in ('array hash', '-j', 'array,', ',array', 'a;b', ''):
            with self.subTest(bad=bad), self.assertRaisesRegex(HookError, 'bad list'):
                hook.parse_annotations({'maps': bad})

    def test_verifier(self):
        for v in ('relaxed', 'strict'):
            _, sets, _, _ = hook.parse_annotations({'objects': '/a.bpf.o', 'verifier': v})
            self.assertEqual(sets, {'verifier': v})
        with self.assertRaisesRegex(HookError, r'^org\.bpf-token\.verifier: "Relaxed": "relaxed" or "strict"'):
            hook.parse_annotations({'objects': '/a.bpf.o', 'verifier': 'Relaxed'})
        # alone, it allows nothing
        with self.assertRaisesRegex(HookError, 'the token would allow nothing'):
            hook.parse_annotations({'verifier': 'relaxed'})

    def test_refusals(self):
        for ann, msg in (
                ({'map': 'array'}, r'^unknown annotation org\.bpf-token\.map \(known: '),
                ({'maps': 1}, 'the value is not a string'),
                ({'objects': 'a.bpf.o'}, '"a.bpf.o" is not an absolute path'),
                ({'objects': '/a/../b.bpf.o'}, 'bad path'),
                ({'objects': '/a\x01b'}, 'bad path'),
                ({'objects': '/a.bpf.o', 'path': '/token'}, "the token's directory"),
                ({'objects': '/a.bpf.o', 'path': '/sys/fs/bpf/-j'}, 'cannot start with "-"'),
                ({'objects': '/a.bpf.o', 'path': '/sys//token'}, 'bad path'),
                ({'path': '/sys/fs/bpf/token'}, 'the token would allow nothing')):
            with self.subTest(ann=ann), self.assertRaisesRegex(HookError, msg):
                hook.parse_annotations(ann)


class Words(unittest.TestCase):
    def test_canonical(self):
        for setname, word, want in (
                ('progs', 'BPF_PROG_TYPE_KPROBE', 'kprobe'), ('progs', 'Kprobe', 'kprobe'),
                ('progs', 'xdp', 'xdp'), ('maps', 'BPF_MAP_TYPE_STACK', 'stack'),
                ('cmds', 'BPF_PROG_LOAD', 'prog_load'), ('cmds', 'prog_run', 'prog_test_run'),
                ('cmds', 'BPF_PROG_RUN', 'prog_test_run'), ('attach', 'BPF_XDP', 'xdp'),
                ('attach', 'bpf_', 'bpf_'), ('maps', 'ANY', 'any'), ('progs', '0x4', 4),
                ('progs', '0X24', 0x24), ('progs', '36', 36)):
            with self.subTest(word=word):
                self.assertEqual(hook.canonical(setname, word), want)

    def test_root_equivalent_numbers(self):
        # enum bpf_prog_type: kprobe 2, tracepoint 5, perf_event 7,
        # raw_tracepoint 17, raw_tracepoint_writable 24, tracing 26,
        # struct_ops 27, ext 28, lsm 29
        self.assertEqual(hook.ROOT_EQUIVALENT_MASK,
                         sum(1 << b for b in (2, 5, 7, 17, 24, 26, 27, 28, 29)))


class PolicyFile(TmpDir):
    def test_defaults(self):
        for text in ('', '# nothing\n\n   \n'):
            pol = hook.parse_policy(text, 'P')
            self.assertEqual(pol.sets, {k: None for k in hook.SETS})
            self.assertFalse(pol.root_equivalent or pol.relaxed_verifier or pol.trust_annotations)
            self.assertTrue(pol.objects)

    def test_directives(self):
        pol = hook.parse_policy('cmds prog_load,BPF_MAP_CREATE  # comment\n'
                                'maps any\nprogs xdp:sched_cls\nattach none\n'
                                'root-equivalent no\nverifier relaxed\n'
                                'trust-annotations yes\nobjects none\n', 'P')
        self.assertEqual(pol.sets, {'cmds': {'prog_load', 'map_create'}, 'maps': None,
                                    'progs': {'xdp', 'sched_cls'}, 'attach': set()})
        self.assertTrue(pol.relaxed_verifier and pol.trust_annotations)
        self.assertFalse(pol.objects or pol.root_equivalent)
        pol = hook.parse_policy('progs xdp,kprobe\nroot-equivalent yes\n', 'P')
        self.assertEqual(pol.sets['progs'], {'xdp', 'kprobe'})

    def test_errors(self):
        for text, msg in (
                ('bogus yes\n', r'^P:1: unknown directive "bogus"'),
                ('maps array\nmaps hash\n', '^P:2: maps given twice$'),
                ('maps\n', '^P:1: maps takes one value$'),
                ('maps array hash\n', '^P:1: maps takes one value$'),
                ('trust-annotations maybe\n', '^P:1: trust-annotations maybe: no or yes expected$'),
                ('verifier off\n', 'strict or relaxed expected'),
                ('objects host\n', 'image or none expected'),
                ('progs 0x40\n', 'name the types, not a number'),
                ('progs xdp,any\n', '"any" is the whole list'),
                ('maps array;hash\n', 'bad list'),
                ('progs xdp,kprobe\n', r'^P: progs names root-equivalent types \(kprobe\)')):
            with self.subTest(text=text), self.assertRaisesRegex(HookError, msg):
                hook.parse_policy(text, 'P')

    def load(self, path):
        with unittest.mock.patch.dict(os.environ, {hook.POLICY_ENV: path}):
            return hook.load_policy()

    @unittest.skipUnless(ROOT, 'needs root (a policy file is root\'s)')
    def test_load(self):
        pol = self.load(os.path.join(self.tmp, 'none'))
        self.assertIsNone(pol.path)
        self.assertEqual(pol.sets['progs'], None)
        path = self.write('policy', 'progs xdp\n')
        self.assertEqual(self.load(path).sets['progs'], {'xdp'})
        with self.assertRaisesRegex(HookError, '/policy:1: unknown directive "nope"'):
            self.load(self.write('policy', 'nope x\n'))

    @unittest.skipUnless(ROOT, 'needs root (file owners)')
    def test_load_refuses_others_writes(self):
        path = self.write('policy', 'progs xdp\n', 0o664)
        with self.assertRaisesRegex(HookError, r'writable by others than root \(owner 0, mode 0664\)'):
            self.load(path)
        os.chmod(path, 0o644)
        os.chown(path, NOBODY, 0)
        with self.assertRaisesRegex(HookError, 'writable by others than root'):
            self.load(path)
        with self.assertRaisesRegex(HookError, 'not a regular file'):
            self.load(self.tmp)
        big = self.write('big', '#' * (hook.POLICY_MAX_SIZE + 1))
        with self.assertRaisesRegex(HookError, 'larger than'):
            self.load(big)

    def test_example(self):
        """the guide's example policy: the networking objects of the tests'
        containers pass, a kprobe, a STACK map and a relaxed verifier do not"""
        with open(EXAMPLE_POLICY) as f:
            pol = hook.parse_policy(f.read(), EXAMPLE_POLICY)
        self.assertFalse(pol.trust_annotations)
        ok = {'cmds': ['map_create', 'prog_load', 'btf_load'],
              'maps': ['hash', 'array', 'array_of_maps', 'hash_of_maps'],
              'progs': ['xdp', 'cgroup_skb'],
              'attach': ['xdp', 'cgroup_inet_ingress', 'cgroup_inet_egress']}
        hook.check_request(pol, {k: [(w, 'o') for w in v] for k, v in ok.items()})
        for req, msg in (({'progs': [('kprobe', 'o')]}, r'progs kprobe \(root-equivalent; o\)'),
                         ({'maps': [('stack', 'o')]}, r"maps stack \(not in the policy's maps; o\)")):
            with self.subTest(req=req), self.assertRaisesRegex(HookError, msg):
                hook.check_request(pol, req)
        with self.assertRaisesRegex(HookError, r'^policy refuses verifier relaxed \(o\)$'):
            hook.check_request(pol, {}, 'o')


class Decisions(unittest.TestCase):
    def refuses(self, pol, request, msg, relaxed=None):
        with self.assertRaises(HookError) as cm:
            hook.check_request(pol, request, relaxed)
        self.assertEqual(str(cm.exception), msg)

    def test_default_policy(self):
        pol = hook.Policy()
        ok = {'cmds': [('any', 'a')], 'maps': [('any', 'a'), ('0x1f', 'a')],
              'progs': [('xdp', 'o'), ('BPF_PROG_TYPE_SCHED_CLS', 'o'), ('0x48', 'a')],
              'attach': [('any', 'a')]}
        hook.check_request(pol, ok)
        self.refuses(pol, {'progs': [('xdp', 'o'), ('kprobe', 'org.bpf-token.objects')]},
                     'policy refuses progs kprobe (root-equivalent; org.bpf-token.objects)')
        for word in ('tracepoint', 'perf_event', 'raw_tracepoint', 'raw_tracepoint_writable',
                     'tracing', 'lsm', 'struct_ops', 'ext', 'BPF_PROG_TYPE_LSM', 'Tracing'):
            with self.subTest(word=word):
                self.refuses(pol, {'progs': [(word, 's')]},
                             f'policy refuses progs {word} (root-equivalent; s)')
        self.refuses(pol, {'progs': [('any', 's')]},
                     'policy refuses progs any (includes root-equivalent types; s)')
        self.refuses(pol, {'progs': [('0x4', 's')]},
                     'policy refuses progs 0x4 (includes root-equivalent types; s)')
        self.refuses(pol, {}, 'policy refuses verifier relaxed (o)', relaxed='o')

    def test_one_line_for_all(self):
        pol = hook.parse_policy('maps array\n', 'P')
        self.refuses(pol, {'maps': [('stack', 'o'), ('array', 'o'), ('queue', 'a')],
                           'progs': [('kprobe', 'o'), ('tracepoint', 'o')]},
                     "policy refuses maps stack (not in the policy's maps; o), "
                     "maps queue (not in the policy's maps; a), "
                     'progs kprobe, tracepoint (root-equivalent; o)')

    def test_listed(self):
        pol = hook.parse_policy('maps array,hash\nverifier relaxed\n', 'P')
        hook.check_request(pol, {'maps': [('BPF_MAP_TYPE_HASH', 'a'), ('Array', 'o')]}, 'o')
        self.refuses(pol, {'maps': [('any', 'a')]},
                     'policy refuses maps any (the policy lists names; a)')
        self.refuses(pol, {'maps': [('0x2', 'a')]},
                     'policy refuses maps 0x2 (a number: the policy lists names; a)')

    def test_root_equivalent_yes(self):
        pol = hook.parse_policy('root-equivalent yes\n', 'P')
        hook.check_request(pol, {'progs': [('kprobe', 'o'), ('any', 'a'), ('0x4', 'a')]})
        pol = hook.parse_policy('root-equivalent yes\nprogs kprobe,xdp\n', 'P')
        hook.check_request(pol, {'progs': [('kprobe', 'o')]})
        self.refuses(pol, {'progs': [('tracing', 'o')]},
                     "policy refuses progs tracing (not in the policy's progs; o)")

    def test_annotations_trusted_or_not(self):
        sets = {'progs': 'kprobe,xdp', 'maps': 'array'}
        self.assertEqual(hook.annotation_request(hook.Policy(), sets), {})
        pol = hook.parse_policy('trust-annotations yes\n', 'P')
        self.assertEqual(hook.annotation_request(pol, sets),
                         {'progs': [('kprobe', 'org.bpf-token.progs'), ('xdp', 'org.bpf-token.progs')],
                          'maps': [('array', 'org.bpf-token.maps')]})
        self.assertIsNone(hook.annotation_relaxed(pol, sets))
        sets['verifier'] = 'relaxed'
        self.assertNotIn('verifier', hook.annotation_request(pol, sets))
        self.assertEqual(hook.annotation_relaxed(pol, sets), 'org.bpf-token.verifier')
        self.assertIsNone(hook.annotation_relaxed(hook.Policy(), sets))
        self.assertIsNone(hook.annotation_relaxed(pol, dict(sets, verifier='strict')))


class Needs(TmpDir):
    def test_parse(self):
        out = {'objects': ['/proc/self/fd/3'], 'allowed_cmds': ['prog_load'],
               'allowed_maps': [], 'allowed_progs': ['xdp', '0x100000000'],
               'allowed_attachs': ['xdp'], 'cgroup_scope_needed': False}
        needs = hook.parse_needs(out)
        self.assertEqual(hook.needs_request(needs)['progs'],
                         [('xdp', 'org.bpf-token.objects'), ('0x100000000', 'org.bpf-token.objects')])
        self.assertFalse(hook.needs_relaxed(needs))
        # bpftool's "relaxed_verifier": needed true, false, or null (its
        # trial could not tell: without CAP_BPF, always)
        for rv, want in (({'needed': True, 'programs': [{'name': 'p'}], 'unknown': None}, True),
                         ({'needed': False, 'programs': [], 'unknown': None}, False),
                         ({'needed': None, 'programs': [], 'unknown': 'no CAP_BPF'}, False),
                         (True, True), (False, False), ({}, False), ('yes', False)):
            with self.subTest(rv=rv):
                self.assertIs(hook.needs_relaxed(dict(out, relaxed_verifier=rv)), want)
        for bad in ([], {'allowed_progs': 'xdp'}, {'allowed_maps': [1]},
                    {'allowed_cmds': ['-j']}, {'allowed_attachs': ['a b']}):
            with self.subTest(bad=bad), self.assertRaisesRegex(HookError, '^bpftool token needs: '):
                hook.parse_needs(bad)

    def tool(self, body):
        """a stand-in for bpftool, in a directory only root may search: the
        hook runs it through an fd it opened"""
        os.makedirs(os.path.join(self.tmp, 'root-only'), mode=0o700, exist_ok=True)
        return self.write('root-only/tool', '#!/usr/bin/python3\nimport json, os, sys, time\n' + body,
                          0o755)

    def needs(self, body, objects=(), fds=(), uid=NOBODY, **consts):
        tool = self.tool(body)
        with contextlib.ExitStack() as stack:
            stack.enter_context(unittest.mock.patch.dict(os.environ, {'BPF_TOKEN_BPFTOOL': tool}))
            for k, v in consts.items():
                stack.enter_context(unittest.mock.patch.object(hook, k, v))
            return hook.run_needs(list(objects), list(fds), uid, uid)

    def refused(self, msg, body, **kw):
        t0 = time.monotonic()
        with self.assertRaises(HookError) as cm:
            self.needs(body, **kw)
        self.assertNotIn('\n', str(cm.exception))
        self.assertRegex(str(cm.exception), msg)
        return time.monotonic() - t0

    @unittest.skipUnless(ROOT, 'needs root (drops to another user)')
    def test_unprivileged_and_limited(self):
        got = self.needs('''
status = dict(l.split(':\\t', 1) for l in open('/proc/self/status').read().splitlines() if ':\\t' in l)
limits = {l[:26].strip(): l[26:].split()[:2] for l in open('/proc/self/limits').read().splitlines()[1:]}
print(json.dumps({'allowed_progs': ['xdp'], 'argv': sys.argv[1:], 'ids': os.getresuid() + os.getresgid(),
                  'groups': os.getgroups(), 'caps': [status[k].strip() for k in ('CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb')],
                  'nnp': status['NoNewPrivs'].strip(), 'limits': limits}))
''', uid=NOBODY)
        self.assertEqual(got['argv'], ['-j', 'token', 'needs'])
        self.assertEqual(got['ids'], [NOBODY] * 6)
        self.assertEqual(got['groups'], [])
        self.assertEqual(got['caps'], ['0000000000000000'] * 5)
        self.assertEqual(got['nnp'], '1')
        lim = got['limits']
        self.assertEqual(lim['Max address space'], [str(512 << 20)] * 2)
        self.assertEqual(lim['Max cpu time'], ['10', '11'])
        self.assertEqual(lim['Max core file size'], ['0', '0'])
        self.assertEqual(lim['Max file size'], ['0', '0'])

    @unittest.skipUnless(ROOT, 'needs root (drops to another user)')
    def test_hang_is_bounded(self):
        took = self.refused(r'^bpftool token needs: stopped after more than 1 s \(limits: ',
                            'time.sleep(100)\n', NEEDS_TIMEOUT=1)
        self.assertLess(took, 5)
        # and when it closes its output first
        took = self.refused('stopped after more than 1 s', 'os.close(1); os.close(2); time.sleep(100)\n',
                            NEEDS_TIMEOUT=1)
        self.assertLess(took, 5)

    @unittest.skipUnless(ROOT, 'needs root (drops to another user)')
    def test_cpu_is_bounded(self):
        took = self.refused(r'^bpftool token needs: killed by SIG(XCPU|KILL) \(limits: ',
                            'while True: pass\n', NEEDS_CPU=1, NEEDS_TIMEOUT=20)
        self.assertLess(took, 10)

    @unittest.skipUnless(ROOT, 'needs root (drops to another user)')
    def test_crash(self):
        self.refused(r'^bpftool token needs: killed by SIGSEGV \(limits: ',
                     'import signal; os.kill(os.getpid(), signal.SIGSEGV)\n')

    @unittest.skipUnless(ROOT, 'needs root (drops to another user)')
    def test_memory_is_bounded(self):
        self.refused('^bpftool token needs: MemoryError$', 'b = bytearray(1 << 30)\n')

    @unittest.skipUnless(ROOT, 'needs root (drops to another user)')
    def test_output_is_bounded(self):
        self.refused(r'^bpftool token needs: stopped after more than 1048576 bytes of output',
                     'while True: sys.stdout.write("x" * 65536)\n')

    @unittest.skipUnless(ROOT, 'needs root (drops to another user)')
    def test_errors_name_the_objects(self):
        obj = self.write('x.o', 'not an object')
        fd = os.open(obj, os.O_PATH)
        try:
            self.refused(r'^bpftool token needs: object /app/x\.bpf\.o is not an ELF file$', '''
print(json.dumps({"error": "object %s is not an ELF file" % sys.argv[-1]}))
sys.exit(255)
''', objects=['/app/x.bpf.o'], fds=[fd])
        finally:
            os.close(fd)
        self.refused('^bpftool token needs: bad things$',
                     'print("Error: bad things", file=sys.stderr); sys.exit(1)\n')
        self.refused('^bpftool token needs: output is not JSON$', 'print("{")\n')
        # a signal the hook's own parent ignores still has its default action
        old = signal.signal(signal.SIGSEGV, signal.SIG_IGN)
        try:
            self.refused(r'^bpftool token needs: killed by SIGSEGV',
                         'import signal; os.kill(os.getpid(), signal.SIGSEGV); time.sleep(5)\n')
        finally:
            signal.signal(signal.SIGSEGV, old)

    @unittest.skipUnless(ROOT and os.access(BPFTOOL, os.X_OK), 'needs root and the built bpftool')
    def test_real_bpftool(self):
        obj = os.path.join(self.tmp, 'ctr_xdp.bpf.o')
        shutil.copy(os.path.join(BUILD, 'progs', 'ctr_xdp.bpf.o'), obj)
        os.chmod(obj, 0o644)
        bad = self.write('hostname', 'not an ELF file\n')
        secret = self.write('secret.bpf.o', '', 0o600)
        fds = [os.open(p, os.O_PATH) for p in (obj, bad, secret)]
        try:
            with unittest.mock.patch.dict(os.environ, {'BPF_TOKEN_BPFTOOL': BPFTOOL}):
                needs = hook.run_needs(['/app/ctr_xdp.bpf.o'], fds[:1], NOBODY, NOBODY)
                self.assertEqual(needs['allowed_progs'], ['xdp'])
                self.assertEqual(needs['allowed_attachs'], ['xdp'])
                # no trial load without privilege: whether it needs the
                # relaxed verifier is unknown, and asks for nothing
                self.assertFalse(hook.needs_relaxed(needs))
                if 'relaxed_verifier' in needs:
                    self.assertIsNone(needs['relaxed_verifier']['needed'])
                with self.assertRaisesRegex(HookError, r'^bpftool token needs: .*/etc/hostname'):
                    hook.run_needs(['/etc/hostname'], fds[1:2], NOBODY, NOBODY)
                # the object is opened as the given user, not as root
                with self.assertRaisesRegex(HookError, r'^bpftool token needs: .*/app/secret\.bpf\.o'):
                    hook.run_needs(['/app/secret.bpf.o'], fds[2:], NOBODY, NOBODY)
        finally:
            for fd in fds:
                os.close(fd)


@unittest.skipUnless(ROOT, 'needs root (setns, chroot)')
class Container(TmpDir):
    """in_container() with this process as the container: its own mount
    namespace, a temporary directory as its root file system"""

    def setUp(self):
        super().setUp()
        self.rootfs = os.path.join(self.tmp, 'rootfs')
        for d in ('sys/fs/bpf', 'app', 'etc'):
            os.makedirs(os.path.join(self.rootfs, d))
        with open(os.path.join(self.rootfs, 'etc', 'obj'), 'w') as f:
            f.write('the container\'s own\n')
        os.symlink('/etc/obj', os.path.join(self.rootfs, 'app', 'link.bpf.o'))
        os.mkfifo(os.path.join(self.rootfs, 'app', 'fifo.bpf.o'))

    def run_in(self, func, send_fds=False):
        return hook.in_container(os.getpid(), self.rootfs, func, send_fds)

    def test_objects_resolve_inside(self):
        _, fds = self.run_in(hook.open_objects(['/app/link.bpf.o'], '/sys/fs/bpf'), True)
        try:
            self.assertEqual(len(fds), 1)
            self.assertEqual(os.readlink(f'/proc/self/fd/{fds[0]}'),
                             os.path.join(self.rootfs, 'etc', 'obj'))
        finally:
            for fd in fds:
                os.close(fd)

    def test_objects_refused(self):
        for objects, mnt, msg in (
                (['/app/fifo.bpf.o'], '/sys/fs/bpf', '/app/fifo.bpf.o is not a regular file in the container'),
                (['/app'], '/sys/fs/bpf', '/app is not a regular file'),
                (['/no.bpf.o'], '/sys/fs/bpf', '/no.bpf.o: No such file or directory in the container'),
                ([], '/no/dir', 'org.bpf-token.path: /no/dir: No such file or directory in the container'),
                ([], '/etc/obj', '/etc/obj is not a directory in the container')):
            with self.subTest(objects=objects, mnt=mnt), self.assertRaisesRegex(HookError, msg):
                self.run_in(hook.open_objects(objects, mnt), True)

    def test_unexpected_exception_stays_in_the_child(self):
        marker = os.path.join(self.tmp, 'marker')
        me = os.getpid()

        def func():
            raise ValueError('boom')
        try:
            with self.assertRaisesRegex(HookError, "^internal error in the container's mount "
                                        'namespace: ValueError: boom$'):
                self.run_in(func)
        finally:
            # whoever gets here: only this process may
            with open(marker, 'a') as f:
                f.write(f'{os.getpid()}\n')
            if os.getpid() != me:
                os._exit(3)
        with open(marker) as f:
            self.assertEqual(f.read(), f'{me}\n')

    def test_exit_in_the_child(self):
        def func():
            raise SystemExit(0)
        with self.assertRaisesRegex(HookError, "helper in the container's mount namespace failed"):
            self.run_in(func)


class Records(TmpDir):
    """records and teardown, in a temporary RUN_DIR (no mount)"""

    def setUp(self):
        super().setUp()
        run = os.path.join(self.tmp, 'run')
        self.patches = [unittest.mock.patch.object(hook, k, v) for k, v in (
            ('RUN_DIR', run), ('HOST_DIR', run + '/oci'), ('RECORD_DIR', run + '/oci-records'),
            ('LOCK_FILE', run + '/oci.lock'))]
        for p in self.patches:
            p.start()
        self.zombies = []

    def tearDown(self):
        for p in self.patches:
            p.stop()
        for pid in self.zombies:
            os.waitpid(pid, 0)
        super().tearDown()

    def zombie(self):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        for _ in range(100):
            if hook.proc_stat(pid)[0] == 'Z':
                break
            time.sleep(0.01)
        self.zombies.append(pid)
        return pid

    def test_one_container_of_an_id_at_a_time(self):
        with hook.records_locked():
            hook.write_record('ct1', os.getpid(), 'token')
        rec = hook.read_record('ct1')
        self.assertEqual(rec, {'pid': os.getpid(), 'start': hook.proc_start(os.getpid()),
                               'token': 'token'})
        self.assertTrue(hook.alive(rec))
        with hook.records_locked(), \
                self.assertRaisesRegex(HookError, f'container with id ct1 has a token already '
                                       rf'\(process {os.getpid()}'):
            hook.write_record('ct1', 1, 'token')
        self.assertEqual(hook.read_record('ct1'), rec)
        self.assertEqual([n for n in os.listdir(hook.RECORD_DIR)], ['ct1'])

    def test_a_gone_container_makes_room(self):
        os.makedirs(hook.host_dir('ct1'))
        pid = self.zombie()
        with hook.records_locked():
            hook.write_record('ct1', pid, 'token')
        self.assertFalse(hook.alive(hook.read_record('ct1')))
        with hook.records_locked():
            hook.write_record('ct1', os.getpid(), 'token')
        self.assertEqual(hook.read_record('ct1')['pid'], os.getpid())
        self.assertFalse(os.path.exists(hook.host_dir('ct1')))

    def poststop(self, cid):
        hook.poststop({'id': cid, 'status': 'stopped'})

    def test_poststop_of_another_runtime_leaves_a_live_container(self):
        """two runtimes, one container id: the poststop of the one whose
        container is gone does not touch the live one's"""
        os.makedirs(hook.host_dir('ct1'))
        with hook.records_locked():
            hook.write_record('ct1', os.getpid(), 'token')
        self.poststop('ct1')
        self.assertTrue(os.path.isdir(hook.host_dir('ct1')))
        self.assertIsNotNone(hook.read_record('ct1'))
        # its own poststop, once its process is gone
        with open(hook.record_path('ct1'), 'w') as f:
            json.dump({'pid': self.zombie(), 'start': None, 'token': 'token'}, f)
        self.poststop('ct1')
        self.assertFalse(os.path.exists(hook.host_dir('ct1')))
        self.assertIsNone(hook.read_record('ct1'))
        # no record: nothing to do, and nothing touched
        os.makedirs(hook.host_dir('ct2'))
        self.poststop('ct2')
        self.assertTrue(os.path.isdir(hook.host_dir('ct2')))

    def test_collect(self):
        for cid, pid in (('gone', self.zombie()), ('live', os.getpid())):
            os.makedirs(hook.host_dir(cid))
            with hook.records_locked():
                hook.write_record(cid, pid, 'token')
        with open(os.path.join(hook.RECORD_DIR, '.junk'), 'w'):
            pass
        with hook.records_locked():
            hook.collect()
        self.assertEqual(sorted(os.listdir(hook.HOST_DIR)), ['live'])
        self.assertEqual(sorted(os.listdir(hook.RECORD_DIR)), ['.junk', 'live'])


class Revoke(TmpDir):
    """revoke_in() follows no symbolic link the container put in its BPF FS"""

    def test_symlinks_are_not_followed(self):
        d = os.path.join(self.tmp, 'fs')
        os.mkdir(d)
        victim = self.write('victim', 'another container\'s token')
        os.symlink(victim, os.path.join(d, 'token'))
        self.assertEqual(hook.revoke_in(d, 'token'), [])
        self.assertTrue(os.path.exists(victim))
        self.assertFalse(os.path.lexists(os.path.join(d, 'token')))
        # a token: unlinked
        self.write('fs/token', '')
        self.assertEqual(hook.revoke_in(d, 'token'), [])
        self.assertEqual(os.listdir(d), [])
        # a directory: left to the unmount
        os.mkdir(os.path.join(d, 'token'))
        self.assertEqual(hook.revoke_in(d, 'token'), [])
        self.assertTrue(os.path.isdir(os.path.join(d, 'token')))
        # the BPF FS's directory itself a symbolic link: not followed
        link = os.path.join(self.tmp, 'link')
        os.symlink(self.tmp, link)
        self.assertRegex(' '.join(hook.revoke_in(link, 'victim')), '^cannot open ')
        self.assertTrue(os.path.exists(victim))
        # names that are not one entry of the directory
        for name in ('', '.', '..', '../victim', None):
            self.assertEqual(hook.revoke_in(d, name), [])
        self.assertTrue(os.path.exists(victim))


class Main(unittest.TestCase):
    def main(self, argv, stdin):
        out, err = io.StringIO(), io.StringIO()
        with unittest.mock.patch.object(sys, 'argv', ['oci-hook'] + argv), \
                unittest.mock.patch.object(sys, 'stdin', io.StringIO(stdin)), \
                contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = hook.main()
        return code, out.getvalue(), err.getvalue()

    def test_unexpected_exception_is_one_line(self):
        def boom(state):
            raise ValueError('no\nsuch')
        with unittest.mock.patch.object(hook, 'create', boom):
            code, out, err = self.main(['createRuntime'], '{"id": "ct1"}')
        self.assertEqual((code, out), (1, ''))
        self.assertEqual(err, "Error: bpf-token hook: internal error: ValueError: no such\n")

    def test_stages(self):
        seen = []
        with unittest.mock.patch.object(hook, 'create', lambda s: seen.append('create')), \
                unittest.mock.patch.object(hook, 'poststop', lambda s: seen.append('poststop')):
            for argv, status in ((['prestart'], None), (['createRuntime'], None),
                                 (['poststop'], None), ([], 'creating'), ([], 'created'),
                                 ([], 'stopped')):
                state = {'id': 'ct1'} if status is None else {'id': 'ct1', 'status': status}
                self.assertEqual(self.main(argv, json.dumps(state)), (0, '', ''))
        self.assertEqual(seen, ['create', 'create', 'poststop', 'create', 'create', 'poststop'])
        code, _, err = self.main(['startContainer'], '{"id": "ct1"}')
        self.assertEqual((code, err), (1, 'Error: bpf-token hook: unknown stage startContainer '
                                       '(createRuntime, prestart or poststop)\n'))


if __name__ == '__main__':
    unittest.main()
