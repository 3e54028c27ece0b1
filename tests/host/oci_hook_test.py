#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of the bpf-token OCI hook (oci/oci-hook), loaded as a module:
its parsers (the container's state, the annotations, the sets' words, the
policy file, bpftool's needs, in its own form and in the mount format), the
policy's decisions (the sets, the mode, delegated or pinned, and the cgroup
scope's opt-out, which only the policy grants), the bounded and
unprivileged parse of the objects (with stand-ins for bpftool that hang,
crash, eat memory or CPU, flood their output), the paths in the container
(openat2() from its root: links to /proc/1/root, absolute links, ".."
escapes, magic links, all refused in the words of a missing file), the
pinned process (pidfd), the cgroup scope's check, the helper that works in
the container's mount namespace, the records (two runtimes of one id,
stale records cleaned at every run), the teardown that follows no symbolic
link, the one-line errors (unexpected exceptions, signals), and
createRuntime and poststop of fake containers (their own namespaces and
cgroup) with a stand-in for bpftool, in both modes: a mount over
/sys/fs/bpf hides nothing from poststop, a failure revokes the token made
or unmounts the delegated BPF FS, a kernel without a cgroup scope refuses
in one line unless the policy opts out. Run by
tests/host/oci-hook.bats; as root, for the parts that change credentials,
make namespaces and cgroups, or mount (in a mount namespace of the tests'
own).

  python3 tests/host/oci_hook_test.py [-v] [TestClass[.test]]
"""
import contextlib
import ctypes
import errno
import glob
import hashlib
import importlib.machinery
import importlib.util
import io
import json
import os
import shutil
import signal
import stat
import subprocess
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
libc = hook.libc
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNS = 0x10000000, 0x20000000, 0x00020000
MS_REC = 0x4000
CGROUP2 = None
if ROOT:
    with contextlib.suppress(HookError):
        CGROUP2 = hook.cgroup2_mount()


def setUpModule():
    """as root: a mount namespace of the tests' own, private, so that what
    they mount (BPF FS instances, the hook's /run, the containers' mounts)
    never reaches the host's and goes when they end"""
    if ROOT:
        hook.check(libc.unshare(CLONE_NEWNS), 'unshare')
        hook.check(libc.mount(None, b'/', None, MS_REC | hook.MS_PRIVATE, None), 'mount')


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

    def test_mode_and_cgroup_scope(self):
        self.assertEqual(hook.parse_choices({}), (None, None))
        self.assertEqual(hook.parse_choices({'mode': 'pinned', 'cgroup-scope': 'optional'}),
                         ('pinned', 'optional'))
        self.assertEqual(hook.parse_choices({'mode': 'delegated', 'cgroup-scope': 'required'}),
                         ('delegated', 'required'))
        for ann, msg in (({'mode': 'Pinned'}, r'^org\.bpf-token\.mode: "Pinned": "delegated" or '
                          '"pinned" expected$'),
                         ({'mode': 'any'}, 'mode: "any"'),
                         ({'cgroup-scope': 'none'}, r'^org\.bpf-token\.cgroup-scope: "none": '
                          '"required" or "optional" expected$'),
                         ({'cgroup-scope': 'a\nb'}, 'cgroup-scope: "a b"')):
            with self.subTest(ann=ann), self.assertRaisesRegex(HookError, msg):
                hook.parse_choices(ann)
        # known keys, which alone allow nothing
        with self.assertRaisesRegex(HookError, 'the token would allow nothing'):
            hook.parse_annotations({'mode': 'pinned', 'cgroup-scope': 'optional'})

    def test_host_names(self):
        """under "objects host": file names of the policy's object-dir"""
        objects, _, _, _ = hook.parse_annotations({'objects': 'a.bpf.o, b-1+x_y.o:C'}, host=True)
        self.assertEqual(objects, ['a.bpf.o', 'b-1+x_y.o', 'C'])
        self.assertEqual(hook.parse_annotations({'objects': 'a' * 255}, host=True)[0], ['a' * 255])
        for bad in ('/app/a.bpf.o', 'app/a.bpf.o', '.', '..', '.hidden', '', 'a b', 'a\nb',
                    'a\\b', 'é.o', 'a' * 256, '-', '*'):
            with self.subTest(bad=bad), self.assertRaises(HookError) as cm:
                hook.parse_annotations({'objects': bad}, host=True)
            self.assertEqual(str(cm.exception), f'org.bpf-token.objects: {json.dumps(bad.strip())} '
                             'is not a file name of the policy\'s object-dir (objects host: '
                             'letters, digits, "_", ".", "+", "-", no "/")')
        # and a path in the container is no file name of it, nor the reverse
        with self.assertRaisesRegex(HookError, 'is not an absolute path'):
            hook.parse_annotations({'objects': 'a.bpf.o'})

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
            self.assertEqual((pol.objects, pol.object_digests, pol.object_dir),
                             ('image', set(), None))
            self.assertEqual((pol.mode, pol.cgroup_scope), (None, 'required'))

    def test_directives(self):
        pol = hook.parse_policy('cmds prog_load,BPF_MAP_CREATE  # comment\n'
                                'maps any\nprogs xdp:sched_cls\nattach none\n'
                                'root-equivalent no\nverifier relaxed\n'
                                'trust-annotations yes\nobjects none\n', 'P')
        self.assertEqual(pol.sets, {'cmds': {'prog_load', 'map_create'}, 'maps': None,
                                    'progs': {'xdp', 'sched_cls'}, 'attach': set()})
        self.assertTrue(pol.relaxed_verifier and pol.trust_annotations)
        self.assertFalse(pol.objects or pol.root_equivalent)
        self.assertEqual(hook.parse_policy('objects image\n', 'P').objects, 'image')
        # objects digest: object-digest, the one directive given more than once
        d1, d2 = 'sha256:' + '0123456789abcdef' * 4, 'sha256:' + 'f' * 64
        pol = hook.parse_policy(f'object-digest {d1}\nobjects digest  # pinned\n'
                                f'object-digest {d2}  # another\nobject-digest {d1}\n', 'P')
        self.assertEqual((pol.objects, pol.object_digests, pol.object_dir),
                         ('digest', {d1, d2}, None))
        pol = hook.parse_policy('objects host\nobject-dir /etc/bpf-token/objects\n', 'P')
        self.assertEqual((pol.objects, pol.object_digests, pol.object_dir),
                         ('host', set(), '/etc/bpf-token/objects'))
        pol = hook.parse_policy('progs xdp,kprobe\nroot-equivalent yes\n', 'P')
        self.assertEqual(pol.sets['progs'], {'xdp', 'kprobe'})
        for text, mode, scope in (('mode any\n', None, 'required'),
                                  ('mode pinned\ncgroup-scope optional\n', 'pinned', 'optional'),
                                  ('mode delegated\ncgroup-scope annotation\n', 'delegated',
                                   'annotation'),
                                  ('cgroup-scope required\n', None, 'required')):
            with self.subTest(text=text):
                pol = hook.parse_policy(text, 'P')
                self.assertEqual((pol.mode, pol.cgroup_scope), (mode, scope))

    def test_errors(self):
        for text, msg in (
                ('bogus yes\n', r'^P:1: unknown directive "bogus"'),
                ('maps array\nmaps hash\n', '^P:2: maps given twice$'),
                ('maps\n', '^P:1: maps takes one value$'),
                ('maps array hash\n', '^P:1: maps takes one value$'),
                ('trust-annotations maybe\n', '^P:1: trust-annotations maybe: no or yes expected$'),
                ('verifier off\n', 'strict or relaxed expected'),
                ('objects hosts\n', '^P:1: objects hosts: image or digest or host or none '
                 'expected$'),
                ('objects digest\n', r'^P: objects digest needs object-digest lines, the SHA-256 '
                 r'\(sha256:HEX\) of each object allowed$'),
                ('objects host\n', "^P: objects host needs object-dir, the host's directory of "
                 'the objects$'),
                (f'object-digest {"sha256:" + "a" * 64}\n',
                 r'^P:1: object-digest is for "objects digest" \(objects image\)$'),
                (f'objects host\nobject-dir /d\n\nobject-digest {"sha256:" + "a" * 64}\n',
                 r'^P:4: object-digest is for "objects digest" \(objects host\)$'),
                ('objects none\nobject-dir /d\n',
                 r'^P:2: object-dir is for "objects host" \(objects none\)$'),
                ('objects digest\nobject-dir /d\n',
                 r'^P:2: object-dir is for "objects host" \(objects digest\)$'),
                ('objects host\nobject-dir /a\nobject-dir /b\n', '^P:3: object-dir given twice$'),
                ('objects host\nobject-dir\n', '^P:2: object-dir takes one value$'),
                ('objects digest\nobject-digest\n', '^P:2: object-digest takes one value$'),
                ('objects digest\nobject-digest sha256:a sha256:b\n',
                 '^P:2: object-digest takes one value$'),
                ('objects digest\nobjects digest\n', '^P:2: objects given twice$')):
            with self.subTest(text=text), self.assertRaisesRegex(HookError, msg):
                hook.parse_policy(text, 'P')
        for bad in ('sha256:' + 'A' * 64, 'sha256:' + 'a' * 63, 'sha256:' + 'a' * 65,
                    'SHA256:' + 'a' * 64, 'a' * 64, 'sha512:' + 'a' * 64, 'sha256:' + 'g' * 64,
                    'sha256:' + 'a' * 63 + '\x01'):
            with self.subTest(bad=bad), self.assertRaises(HookError) as cm:
                hook.parse_policy(f'objects digest\nobject-digest {bad}\n', 'P')
            self.assertEqual(str(cm.exception), f'P:2: object-digest {hook.oneline(bad)}: '
                             '"sha256:" and 64 lowercase hexadecimal digits expected')
        for bad in ('relative/dir', '/a/../b', '/a/./b', '/a//b', '/a/', '/', '.', '~/x'):
            with self.subTest(bad=bad), self.assertRaises(HookError) as cm:
                hook.parse_policy(f'objects host\nobject-dir {bad}\n', 'P')
            self.assertEqual(str(cm.exception), f'P:2: object-dir {bad}: an absolute path '
                             'expected (no empty, "." or ".." component)')
        for text, msg in (
                ('mode Pinned\n', '^P:1: mode Pinned: any or delegated or pinned expected$'),
                ('mode pinned\nmode delegated\n', '^P:2: mode given twice$'),
                ('cgroup-scope no\n', '^P:1: cgroup-scope no: required or annotation or optional '
                 'expected$'),
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


class Modes(unittest.TestCase):
    """the mode (delegated or pinned) and the cgroup scope's opt-out"""

    def test_mode(self):
        for text, asked, want in (
                ('', None, 'delegated'), ('', 'delegated', 'delegated'), ('', 'pinned', 'pinned'),
                ('mode any\n', 'pinned', 'pinned'), ('mode pinned\n', None, 'pinned'),
                ('mode pinned\n', 'pinned', 'pinned'), ('mode delegated\n', None, 'delegated'),
                ('mode delegated\n', 'delegated', 'delegated')):
            with self.subTest(text=text, asked=asked):
                self.assertEqual(hook.choose_mode(hook.parse_policy(text, 'P'), asked, {}), want)
        for text, asked in (('mode pinned\n', 'delegated'), ('mode delegated\n', 'pinned')):
            with self.subTest(text=text, asked=asked), self.assertRaises(HookError) as cm:
                hook.choose_mode(hook.parse_policy(text, 'P'), asked, {})
            self.assertEqual(str(cm.exception), f'policy refuses org.bpf-token.mode {asked} '
                             f'({text.strip()})')

    def test_path_is_the_pinned_mode_s(self):
        ann = {'objects': '/a.bpf.o', 'path': '/sys/fs/bpf/token'}
        self.assertEqual(hook.choose_mode(hook.Policy(), 'pinned', ann), 'pinned')
        for text, asked in (('', None), ('', 'delegated'), ('mode delegated\n', None)):
            with self.subTest(text=text, asked=asked), \
                    self.assertRaisesRegex(HookError, r'^org\.bpf-token\.path is for a pinned '
                                           r'token \(org\.bpf-token\.mode=pinned\)'):
                hook.choose_mode(hook.parse_policy(text, 'P'), asked, ann)

    def test_cgroup_scope_opt_out(self):
        """only the policy opts out: itself ("optional"), or through the
        annotation it lets count ("annotation"); an image's annotation
        alone, or trusted annotations, do not"""
        for text, asked, want in (
                ('', None, False), ('', 'optional', False), ('', 'required', False),
                ('trust-annotations yes\n', 'optional', False),
                ('cgroup-scope required\n', 'optional', False),
                ('cgroup-scope annotation\n', None, False),
                ('cgroup-scope annotation\n', 'optional', True),
                ('cgroup-scope annotation\n', 'required', False),
                ('cgroup-scope optional\n', None, True),
                ('cgroup-scope optional\n', 'optional', True),
                ('cgroup-scope optional\n', 'required', False)):
            with self.subTest(text=text, asked=asked):
                self.assertIs(hook.scope_optional(hook.parse_policy(text, 'P'), asked), want)

    def test_loader_probe_under_the_policy(self):
        """a delegated BPF FS also allows libbpf's load probe: a policy that
        does not allow it says so, naming it"""
        pol = hook.parse_policy('progs xdp\nattach xdp\n', 'P')
        with self.assertRaises(HookError) as cm:
            hook.check_request(pol, hook.loader_request())
        self.assertEqual(str(cm.exception), "policy refuses progs socket_filter (not in the "
                         "policy's progs; libbpf's load probe), attach cgroup_inet_ingress (not "
                         "in the policy's attach; libbpf's load probe)")
        with open(EXAMPLE_POLICY) as f:
            hook.check_request(hook.parse_policy(f.read(), EXAMPLE_POLICY), hook.loader_request())


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

    def test_parse_mount_format(self):
        """bpftool token needs ... format mount: the delegate_* options of
        one line, ":" between the words (names, "any", a mask)"""
        out = {'format': 'mount', 'lines': [
            'delegate_cmds=map_create:prog_load:btf_load,delegate_maps=array,'
            'delegate_progs=xdp:sched_cls,delegate_attachs=xdp:cgroup_inet_ingress:0x100000000']}
        needs = hook.parse_mount_needs(out)
        self.assertEqual(needs, {'allowed_cmds': ['map_create', 'prog_load', 'btf_load'],
                                 'allowed_maps': ['array'], 'allowed_progs': ['xdp', 'sched_cls'],
                                 'allowed_attachs': ['xdp', 'cgroup_inet_ingress', '0x100000000']})
        self.assertEqual(hook.needs_request(needs)['progs'],
                         [('xdp', 'org.bpf-token.objects'), ('sched_cls', 'org.bpf-token.objects')])
        self.assertFalse(hook.needs_relaxed(needs))
        self.assertEqual(hook.parse_mount_needs({'format': 'mount', 'lines': []}), {})
        for bad, msg in (([], 'output is not the mount format'),
                         ({'lines': []}, 'output is not the mount format'),
                         ({'format': 'incus', 'lines': []}, 'output is not the mount format'),
                         ({'format': 'mount', 'lines': 'x'}, 'bad lines'),
                         ({'format': 'mount', 'lines': [1]}, 'bad lines'),
                         ({'format': 'mount', 'lines': ['delegate_progs']}, 'bad option'),
                         ({'format': 'mount', 'lines': ['uid=0']}, r'bad option "uid=0"'),
                         ({'format': 'mount', 'lines': ['delegate_progs=xdp,kprobe']},
                          'bad option "kprobe"'),
                         ({'format': 'mount', 'lines': ['delegate_progs=xdp:']}, 'bad option'),
                         ({'format': 'mount', 'lines': ['delegate_progs=-j']}, 'bad option'),
                         ({'format': 'mount', 'lines': ['delegate_maps=array',
                                                        'delegate_maps=hash']},
                          'delegate_maps twice')):
            with self.subTest(bad=bad), self.assertRaisesRegex(HookError, '^bpftool token needs: '
                                                               + msg):
                hook.parse_mount_needs(bad)

    def test_delegated_runs_the_mount_format(self):
        got = self.needs('print(json.dumps({"format": "mount", "lines": '
                         '["delegate_progs=xdp,delegate_attachs=" + ":".join(a.strip("-") for a in sys.argv[1:])]}))',
                         delegated=True)
        self.assertEqual(got, {'allowed_progs': ['xdp'],
                               'allowed_attachs': ['j', 'token', 'needs', 'format', 'mount']})

    def tool(self, body):
        """a stand-in for bpftool, in a directory only root may search: the
        hook runs it through an fd it opened"""
        os.makedirs(os.path.join(self.tmp, 'root-only'), mode=0o700, exist_ok=True)
        return self.write('root-only/tool', '#!/usr/bin/python3\nimport json, os, sys, time\n' + body,
                          0o755)

    def needs(self, body, objects=(), fds=(), uid=NOBODY, delegated=False, **consts):
        tool = self.tool(body)
        with contextlib.ExitStack() as stack:
            stack.enter_context(unittest.mock.patch.dict(os.environ, {'BPF_TOKEN_BPFTOOL': tool}))
            for k, v in consts.items():
                stack.enter_context(unittest.mock.patch.object(hook, k, v))
            return hook.run_needs(list(objects), list(fds), uid, uid, delegated)

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
                # a delegated BPF FS: the expected attach type of every
                # program (XDP's), in the mount format
                needs = hook.run_needs(['/app/ctr_xdp.bpf.o'], fds[:1], NOBODY, NOBODY, True)
                self.assertIn('xdp', needs['allowed_progs'])
                self.assertIn('xdp', needs['allowed_attachs'])
                self.assertIn('prog_load', needs['allowed_cmds'])
                with self.assertRaisesRegex(HookError, r'^bpftool token needs: .*/etc/hostname'):
                    hook.run_needs(['/etc/hostname'], fds[1:2], NOBODY, NOBODY)
                # the object is opened as the given user, not as root
                with self.assertRaisesRegex(HookError, r'^bpftool token needs: .*/app/secret\.bpf\.o'):
                    hook.run_needs(['/app/secret.bpf.o'], fds[2:], NOBODY, NOBODY)
        finally:
            for fd in fds:
                os.close(fd)


def sha256_of(path):
    with open(path, 'rb') as f:
        return 'sha256:' + hashlib.sha256(f.read()).hexdigest()


def memfd_bytes(fd):
    """the bytes of fd (a memfd), from its start"""
    chunks = []
    while True:
        data = os.pread(fd, 1 << 16, sum(map(len, chunks)))
        if not data:
            return b''.join(chunks)
        chunks.append(data)


class Objects(TmpDir):
    """the objects the hook reads itself: "objects digest" (the container's,
    read as its root user by a child, hashed) and "objects host" (the
    policy's object-dir), copied into sealed memfds that bpftool parses"""

    def setUp(self):
        super().setUp()
        self.obj = self.write('x.bpf.o', 'an object\n' * 1000)
        self.fds = []

    def tearDown(self):
        for fd in self.fds:
            os.close(fd)
        super().tearDown()

    def keep(self, fds):
        self.fds += fds
        return fds

    def o_path(self, path):
        return self.keep([os.open(path, os.O_PATH)])[0]

    def test_copy_and_digest(self):
        """the copy holds the file's bytes, sealed: no write, no resize; its
        digest is the file's"""
        src = os.open(self.obj, os.O_RDONLY)
        copy = self.keep([hook.new_copy()])[0]
        try:
            os.lseek(src, 5, os.SEEK_SET)
            self.assertEqual(hook.copy_object(src, copy, '/app/x.bpf.o'), 10000)
        finally:
            os.close(src)
        hook.sealed(copy)
        with open(self.obj, 'rb') as f:
            self.assertEqual(memfd_bytes(copy), f.read())
        self.assertEqual(hook.object_digest(copy), sha256_of(self.obj))
        with self.assertRaises(PermissionError):
            os.pwrite(copy, b'x', 0)
        with self.assertRaises(PermissionError):
            os.ftruncate(copy, 1)
        # through /proc/self/fd, as bpftool opens it: the same bytes, read-only
        with open(f'/proc/self/fd/{copy}', 'rb') as f:
            self.assertEqual(hashlib.sha256(f.read()).hexdigest(), sha256_of(self.obj)[7:])
        fd = os.open(f'/proc/self/fd/{copy}', os.O_RDWR)
        try:
            with self.assertRaises(PermissionError):
                os.write(fd, b'x')
        finally:
            os.close(fd)

    def test_size_bound(self):
        src = os.open(self.obj, os.O_RDONLY)
        try:
            with unittest.mock.patch.object(hook, 'OBJECT_MAX_SIZE', 9999), \
                    self.assertRaises(HookError) as cm:
                hook.copy_object(src, self.keep([hook.new_copy()])[0], '/app/x.bpf.o')
            self.assertEqual(str(cm.exception), 'org.bpf-token.objects: /app/x.bpf.o: larger '
                             'than 0 MiB (the most bpftool parses)')
            with unittest.mock.patch.object(hook, 'OBJECT_MAX_SIZE', 10000):
                hook.copy_object(src, self.keep([hook.new_copy()])[0], '/app/x.bpf.o')
        finally:
            os.close(src)
        self.assertEqual(hook.OBJECT_MAX_SIZE, 64 << 20)

    def digest_policy(self, *digests):
        return hook.parse_policy('objects digest\n' + ''.join(f'object-digest {d}\n'
                                                              for d in digests), 'P')

    def test_digests(self):
        """an object is accepted if its copy's digest is listed: a file of
        one byte more is not, in one line that gives its digest"""
        other = self.write('y.bpf.o', 'an object\n' * 1000 + 'x')
        copies = []
        for path in (self.obj, other):
            src = os.open(path, os.O_RDONLY)
            copies.append(self.keep([hook.new_copy()])[0])
            hook.copy_object(src, copies[-1], path)
            os.close(src)
            hook.sealed(copies[-1])
        pol = self.digest_policy(sha256_of(self.obj), 'sha256:' + '0' * 64)
        hook.check_digests(pol, ['/app/x.bpf.o'], copies[:1])
        for objects, fds, refused in ((['/app/y.bpf.o'], copies[1:], ['/app/y.bpf.o']),
                                      (['/app/x.bpf.o', '/app/y.bpf.o', '/app/z.bpf.o'],
                                       [copies[0], copies[1], copies[1]],
                                       ['/app/y.bpf.o', '/app/z.bpf.o'])):
            with self.subTest(objects=objects), self.assertRaises(HookError) as cm:
                hook.check_digests(pol, objects, fds)
            self.assertEqual(str(cm.exception), 'policy refuses org.bpf-token.objects ' + ', '.join(
                f'{o} ({sha256_of(other)}: not an object-digest of the policy)' for o in refused))

    @unittest.skipUnless(ROOT, 'needs root (drops to another user)')
    def test_container_objects_read_as_its_root(self):
        """the container's objects are read by a child as the container's
        root: with its permissions, within the time bound; the copy, not the
        file, is what is hashed and parsed"""
        secret = self.write('secret.bpf.o', 'root\'s\n', 0o600)
        fds = [self.o_path(self.obj)]
        copies = self.keep(hook.copy_container_objects(['/app/x.bpf.o'], fds, NOBODY, NOBODY))
        self.assertEqual(hook.object_digest(copies[0]), sha256_of(self.obj))
        # the file changes: the copy does not
        before = sha256_of(self.obj)
        with open(self.obj, 'a') as f:
            f.write('more\n')
        self.assertEqual(hook.object_digest(copies[0]), before)
        with self.assertRaises(PermissionError):
            os.pwrite(copies[0], b'x', 0)
        with self.assertRaises(HookError) as cm:
            hook.copy_container_objects(['/app/x.bpf.o', '/app/secret.bpf.o'],
                                        fds + [self.o_path(secret)], NOBODY, NOBODY)
        self.assertEqual(str(cm.exception), 'org.bpf-token.objects: /app/secret.bpf.o: '
                         'Permission denied (read as the container\'s root)')
        with unittest.mock.patch.object(hook, 'OBJECT_MAX_SIZE', 100), \
                self.assertRaisesRegex(HookError, '^org.bpf-token.objects: /app/x.bpf.o: larger '
                                       'than 0 MiB'):
            hook.copy_container_objects(['/app/x.bpf.o'], fds, NOBODY, NOBODY)
        # a read that hangs (a FIFO in the place of the file: here, a
        # stand-in for the copy) is stopped
        with unittest.mock.patch.object(hook, 'copy_object', lambda *a: time.sleep(100)), \
                unittest.mock.patch.object(hook, 'NEEDS_TIMEOUT', 1):
            t0 = time.monotonic()
            with self.assertRaises(HookError) as cm:
                hook.copy_container_objects(['/app/x.bpf.o'], fds, NOBODY, NOBODY)
            self.assertLess(time.monotonic() - t0, 5)
        self.assertEqual(str(cm.exception), 'org.bpf-token.objects: the reader of the objects '
                         'stopped after more than 1 s')
        # what the reader runs as

        def who(*args):
            raise HookError(f'as {os.getresuid()} {os.getresgid()} {os.getgroups()}')
        with unittest.mock.patch.object(hook, 'copy_object', who), \
                self.assertRaises(HookError) as cm:
            hook.copy_container_objects(['/app/x.bpf.o'], fds, NOBODY, NOBODY)
        self.assertEqual(str(cm.exception), f'as {(NOBODY,) * 3} {(NOBODY,) * 3} []')

    def object_dir(self, mode=0o755, owner=0):
        d = os.path.join(self.tmp, 'objects')
        os.makedirs(d, exist_ok=True)
        os.chown(d, owner, 0)
        os.chmod(d, mode)
        return hook.parse_policy(f'objects host\nobject-dir {d}\n', '/etc/oci-policy'), d

    @unittest.skipUnless(ROOT, 'needs root (file owners)')
    def test_object_dir(self):
        """a directory of root's that only root may write"""
        pol, d = self.object_dir()
        os.close(hook.open_object_dir(pol))
        for mode, owner, why in ((0o775, 0, 'writable by others than root (owner 0, mode 0775)'),
                                 (0o757, 0, 'writable by others than root (owner 0, mode 0757)'),
                                 (0o1777, 0, 'writable by others than root (owner 0, mode 1777)'),
                                 (0o755, NOBODY, f'writable by others than root (owner {NOBODY}, '
                                  'mode 0755)')):
            pol, d = self.object_dir(mode, owner)
            with self.subTest(mode=mode, owner=owner), self.assertRaises(HookError) as cm:
                hook.open_object_dir(pol)
            self.assertEqual(str(cm.exception), f'policy /etc/oci-policy: object-dir {d}: {why}')
        for path, why in ((self.obj, 'Not a directory'),
                          (os.path.join(self.tmp, 'none'), 'No such file or directory')):
            pol = hook.parse_policy(f'objects host\nobject-dir {path}\n', 'P')
            with self.subTest(path=path), self.assertRaises(HookError) as cm:
                hook.open_object_dir(pol)
            self.assertEqual(str(cm.exception), f'policy P: object-dir {path}: {why}')

    @unittest.skipUnless(ROOT, 'needs root (file owners)')
    def test_host_objects(self):
        """files of the object-dir, by name: regular files of root's that
        only root may write, no symbolic link, nothing beneath or beside"""
        pol, d = self.object_dir()
        shutil.copy(self.obj, os.path.join(d, 'x.bpf.o'))
        os.chmod(os.path.join(d, 'x.bpf.o'), 0o600)
        copies = self.keep(hook.copy_host_objects(pol, ['x.bpf.o', 'x.bpf.o']))
        self.assertEqual([hook.object_digest(c) for c in copies], [sha256_of(self.obj)] * 2)
        with self.assertRaises(PermissionError):
            os.pwrite(copies[0], b'x', 0)
        os.symlink('x.bpf.o', os.path.join(d, 'link.bpf.o'))
        os.symlink(self.obj, os.path.join(d, 'abs.bpf.o'))
        os.mkdir(os.path.join(d, 'sub'))
        os.mkfifo(os.path.join(d, 'fifo.bpf.o'))
        for name, mode, owner in (('group.bpf.o', 0o664, 0), ('others.bpf.o', 0o646, 0),
                                  ('nobody.bpf.o', 0o644, NOBODY)):
            shutil.copy(self.obj, os.path.join(d, name))
            os.chown(os.path.join(d, name), owner, 0)
            os.chmod(os.path.join(d, name), mode)
        where = f"in the policy's object-dir {d}"
        for name, msg in (
                ('none.bpf.o', f'none.bpf.o: No such file or directory {where}'),
                ('link.bpf.o', f'link.bpf.o is not a regular file {where} (a symbolic link)'),
                ('abs.bpf.o', f'abs.bpf.o is not a regular file {where} (a symbolic link)'),
                ('sub', f'sub is not a regular file {where}'),
                ('fifo.bpf.o', f'fifo.bpf.o is not a regular file {where}'),
                ('group.bpf.o', f'group.bpf.o {where}: writable by others than root (owner 0, '
                 'mode 0664)'),
                ('others.bpf.o', f'others.bpf.o {where}: writable by others than root (owner 0, '
                 'mode 0646)'),
                ('nobody.bpf.o', f'nobody.bpf.o {where}: writable by others than root (owner '
                 f'{NOBODY}, mode 0644)'),
                # (the annotation's names are checked first: RESOLVE_BENEATH
                # stops what would get past them)
                ('..', f'..: Invalid cross-device link {where}'),
                ('../x.bpf.o', f'../x.bpf.o: Invalid cross-device link {where}')):
            with self.subTest(name=name), self.assertRaises(HookError) as cm:
                hook.copy_host_objects(pol, ['x.bpf.o', name])
            self.assertEqual(str(cm.exception), f'org.bpf-token.objects: {msg}')
        with unittest.mock.patch.object(hook, 'OBJECT_MAX_SIZE', 100), \
                self.assertRaisesRegex(HookError, '^org.bpf-token.objects: x.bpf.o: larger than'):
            hook.copy_host_objects(pol, ['x.bpf.o'])
        # the object-dir's own check comes first
        os.chmod(d, 0o777)
        with self.assertRaisesRegex(HookError, f'^policy /etc/oci-policy: object-dir {d}: '
                                    'writable by others than root'):
            hook.copy_host_objects(pol, ['x.bpf.o'])


class FakeContainer:
    """a process that stands for a container's first process, as a runtime
    leaves it at createRuntime: in a mount namespace of its own where
    `mounts` ([(fstype, directory)]) are mounted, chrooted into rootfs if
    `pivoted` (a process after pivot_root), in a user namespace of its own
    (root: host uid and gid ROOT_ID) and a pid namespace of its own if
    asked, in the cgroup v2 directory `cgroup` if given. The process never
    returns into the tests: it sleeps until stop()."""

    ROOT_ID = 100000

    def __init__(self, rootfs, mounts=(), pivoted=False, userns=False, pidns=False, cgroup=None):
        self.rootfs = rootfs
        r, w = os.pipe()
        go_r, go_w = os.pipe()
        self.child = os.fork()
        if self.child == 0:
            try:
                os.close(r)
                os.close(go_w)
                hook.check(libc.unshare(CLONE_NEWNS), 'unshare')
                hook.check(libc.mount(None, b'/', None, MS_REC | hook.MS_PRIVATE, None), 'mount')
                for fstype, d in mounts:
                    hook.check(libc.mount(fstype.encode(), os.path.join(rootfs, d.lstrip('/')).encode(),
                                          fstype.encode(), 0, None), f'mount {d}')
                if pivoted:
                    os.chroot(rootfs)
                    os.chdir('/')
                flags = (CLONE_NEWUSER if userns else 0) | (CLONE_NEWPID if pidns else 0)
                if flags:
                    hook.check(libc.unshare(flags), 'unshare')
                pid = os.fork() if pidns else 0
                if pid:
                    # the container's process: the one in the pid namespace
                    os.write(w, f'{pid}\n'.encode())
                    os.waitpid(pid, 0)
                else:
                    if not pidns:
                        os.write(w, f'{os.getpid()}\n'.encode())
                    os.read(go_r, 1)
                    time.sleep(1000)
            finally:
                os._exit(0)
        os.close(w)
        os.close(go_r)
        self.go = go_w
        with os.fdopen(r) as f:
            self.pid = int(f.readline())
        if userns:
            for which in ('uid', 'gid'):
                with open(f'/proc/{self.pid}/{which}_map', 'w') as f:
                    f.write(f'0 {self.ROOT_ID} 65536\n')
        if cgroup:
            with open(os.path.join(cgroup, 'cgroup.procs'), 'w') as f:
                f.write(f'{self.pid}\n')

    def stop(self):
        """kill the container's process (its pid namespace with it), and
        wait until it is gone (the child that made its pid namespace reaps
        it, then exits)"""
        if self.child is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.pid, signal.SIGKILL)
        os.waitpid(self.child, 0)
        os.close(self.go)
        self.child = None


class ContainerDir(TmpDir):
    """a root file system for the fake containers: its /etc/obj, links in
    its /app, a FIFO; and a secret of the host's beside it"""

    def setUp(self):
        super().setUp()
        self.rootfs = os.path.join(self.tmp, 'rootfs')
        for d in ('sys/fs/bpf', 'app', 'etc', 'proc', 'run', self.tmp.lstrip('/')):
            os.makedirs(os.path.join(self.rootfs, d), exist_ok=True)
        with open(os.path.join(self.rootfs, 'etc', 'obj'), 'w') as f:
            f.write('the container\'s own\n')
        os.mkfifo(os.path.join(self.rootfs, 'app', 'fifo.bpf.o'))
        # the host's: what a link of the container must never reach
        self.secret = self.write('secret.bpf.o', 'the host\'s\n')
        self.host_dir = os.path.join(self.tmp, 'host-dir')
        os.mkdir(self.host_dir)
        self.cts = []

    def tearDown(self):
        for ct in self.cts:
            ct.stop()
        super().tearDown()

    def link(self, name, target):
        os.symlink(target, os.path.join(self.rootfs, name.lstrip('/')))

    def container(self, **kw):
        ct = FakeContainer(self.rootfs, **kw)
        self.cts.append(ct)
        return ct

    def opened(self, ct, objects=(), mnt='/sys/fs/bpf'):
        """the container's root, the token's directory and the objects,
        opened by the hook: (root fd, dir fd, [object fds]); closed at the
        end of the test"""
        proc = hook.Process(ct.pid)
        self.addCleanup(proc.close)
        rootfd = hook.container_root(proc, self.tmp, {'root': {'path': 'rootfs'}})
        dirfd, fds = hook.open_objects(rootfd, list(objects), mnt)
        for fd in [dirfd] + fds:
            self.addCleanup(os.close, fd)
        return rootfd, dirfd, fds


def fd_path(fd):
    return os.readlink(f'/proc/self/fd/{fd}')


@unittest.skipUnless(ROOT, 'needs root (mount namespaces)')
class Paths(ContainerDir):
    """paths in the container resolve inside its root file system, in its
    mount namespace, and never outside: openat2(RESOLVE_IN_ROOT |
    RESOLVE_NO_MAGICLINKS) from its root"""

    def missing(self, obj):
        return f'org.bpf-token.objects: {obj}: No such file or directory in the container'

    def refused(self, ct, objects, msg, mnt='/sys/fs/bpf'):
        with self.assertRaises(HookError) as cm:
            self.opened(ct, objects, mnt)
        self.assertEqual(str(cm.exception), msg)

    def test_links_inside_resolve_inside(self):
        self.link('/app/abs.bpf.o', '/etc/obj')
        self.link('/app/rel.bpf.o', '../etc/obj')
        for pivoted in (False, True):
            with self.subTest(pivoted=pivoted):
                ct = self.container(pivoted=pivoted)
                _, dirfd, fds = self.opened(ct, ['/app/abs.bpf.o', '/app/rel.bpf.o', '/etc/obj'])
                # (seen from the tests' root: the container's file)
                for fd in fds:
                    self.assertEqual(fd_path(fd), os.path.join(self.rootfs, 'etc', 'obj'))
                self.assertEqual(fd_path(dirfd), os.path.join(self.rootfs, 'sys/fs/bpf'))

    def test_escapes_stay_inside(self):
        """an absolute link, a ".." escape, a link through /proc/1/root or
        /proc/self/fd, to a host file that exists: each fails as a missing
        file does, with the same words"""
        self.link('/app/abs.bpf.o', self.secret)
        self.link('/app/dotdot.bpf.o', '../../../../../../../../..' + self.secret)
        self.link('/app/proc1.bpf.o', '/proc/1/root' + self.secret)
        self.link('/app/procgone.bpf.o', '/proc/1/root' + self.secret + '.none')
        self.link('/app/procself.bpf.o', '/proc/self/root' + self.secret)
        self.link('/app/fd.bpf.o', '/proc/self/fd/0')
        self.link('/app/cwd', '/proc/1/cwd')
        self.link('/app/loop.bpf.o', '/app/loop.bpf.o')
        for pivoted in (False, True):
            ct = self.container(mounts=[('proc', '/proc')], pivoted=pivoted)
            for obj in ('/app/abs.bpf.o', '/app/dotdot.bpf.o', '/app/proc1.bpf.o',
                        '/app/procgone.bpf.o', '/app/procself.bpf.o', '/app/fd.bpf.o',
                        '/app/cwd/etc/passwd',
                        '/proc/1/root/etc/passwd', '/app/loop.bpf.o', '/app/none.bpf.o',
                        '/../../..' + self.secret):
                with self.subTest(pivoted=pivoted, obj=obj):
                    self.refused(ct, [obj], self.missing(obj))
            # the token's directory too
            self.link('/escape', '/proc/1/root' + self.tmp)
            self.refused(ct, [], 'org.bpf-token.path: /escape/host-dir: No such file or '
                         'directory in the container', '/escape/host-dir')
            os.unlink(os.path.join(self.rootfs, 'escape'))
        # (the control: the container's own proc, a file of its own)
        self.assertEqual(self.opened(ct, ['/proc/1/stat'])[2].__len__(), 1)

    def test_the_container_s_mounts(self):
        """the mounts met are the container's, not the host's: its /run is
        the tmpfs mounted in its mount namespace"""
        self.link('/app/run', '/run')
        self.write('rootfs/run/host-only', '')
        ct = self.container(mounts=[('tmpfs', '/run')])
        _, dirfd, _ = self.opened(ct, [], '/app/run')
        self.assertNotEqual(os.fstat(dirfd).st_dev, os.stat(os.path.join(self.rootfs, 'run')).st_dev)
        self.assertEqual(os.listdir(f'/proc/self/fd/{dirfd}'), [])

    def test_refusals(self):
        ct = self.container()
        for objects, mnt, msg in (
                (['/app/fifo.bpf.o'], '/sys/fs/bpf',
                 'org.bpf-token.objects: /app/fifo.bpf.o is not a regular file in the container'),
                (['/app'], '/sys/fs/bpf', 'org.bpf-token.objects: /app is not a regular file in the container'),
                (['/no.bpf.o'], '/sys/fs/bpf', self.missing('/no.bpf.o')),
                ([], '/no/dir', 'org.bpf-token.path: /no/dir: No such file or directory in the container'),
                ([], '/etc/obj', 'org.bpf-token.path: /etc/obj is not a directory in the container'),
                (['/etc/obj/x'], '/sys/fs/bpf',
                 'org.bpf-token.objects: /etc/obj/x: Not a directory in the container')):
            with self.subTest(objects=objects, mnt=mnt):
                self.refused(ct, objects, msg, mnt)

    def test_64_objects_all_opened(self):
        ct = self.container()
        objects = ['/etc/obj'] * 64
        self.assertEqual(len(self.opened(ct, objects)[2]), 64)

    def test_no_openat2(self):
        """a kernel without openat2(): one line, fail closed"""
        def enosys(*args):
            ctypes.set_errno(errno.ENOSYS)
            return -1
        with unittest.mock.patch.object(hook, 'libc', unittest.mock.Mock(wraps=libc)) as fake:
            fake.syscall.side_effect = enosys
            with self.assertRaisesRegex(HookError, r'^the kernel has no openat2\(\) \(Linux 5\.6 or '
                                        'later\): paths in the container cannot be resolved safely$'):
                hook.openat2(hook.AT_FDCWD, '/', os.O_PATH, hook.RESOLVE_CONTAINER)


@unittest.skipUnless(ROOT, 'needs root (mount namespaces)')
class MountNs(ContainerDir):
    """in_mount_ns(): what only a process of the container's mount
    namespace may do, by a child that never returns"""

    def run_in(self, ct, func):
        nsfd = os.open(f'/proc/{ct.pid}/ns/mnt', os.O_RDONLY)
        try:
            return hook.in_mount_ns(nsfd, func)
        finally:
            os.close(nsfd)

    def test_attach_moves_onto_the_fd_and_makes_private(self):
        ct = self.container(mounts=[('tmpfs', '/sys')])
        os.makedirs(f'/proc/{ct.pid}/root{self.rootfs}/sys/fs/bpf')
        _, dirfd, _ = self.opened(ct)
        # a detached tmpfs, from the tests' mount namespace, moved onto the
        # container's /sys/fs/bpf by its fd
        src = os.path.join(self.tmp, 'src')
        os.mkdir(src)
        hook.check(libc.mount(b'tmpfs', src.encode(), b'tmpfs', 0, b'mode=0711'), 'mount')
        hook.check(libc.mount(None, src.encode(), None, MS_REC | hook.MS_PRIVATE, None), 'mount')
        tree = hook.check(libc.syscall(hook.SYS_OPEN_TREE, hook.AT_FDCWD, src.encode(),
                                       hook.OPEN_TREE_CLONE | hook.OPEN_TREE_CLOEXEC), 'open_tree')
        try:
            # the container's /sys shared: the moved mount would be, too
            self.run_in(ct, lambda: hook.check(libc.mount(None, f'{self.rootfs}/sys'.encode(), None,
                                                          1 << 20, None), 'make-shared'))
            self.run_in(ct, hook.attach_tree(tree, dirfd, '/sys/fs/bpf'))
        finally:
            os.close(tree)
            libc.umount2(src.encode(), hook.MNT_DETACH)
        with open(f'/proc/{ct.pid}/mountinfo') as f:
            lines = [l for l in f if l.split()[4] == f'{self.rootfs}/sys/fs/bpf']
        self.assertEqual(len(lines), 1, lines)
        self.assertIn(' - tmpfs ', lines[0])
        self.assertNotIn('shared:', lines[0])
        # not in the tests' namespace
        self.assertFalse(hook.is_mount_point(f'{self.rootfs}/sys/fs/bpf'))

    def test_errors_come_back_as_one_line(self):
        ct = self.container()

        def fails():
            raise HookError('no\nway')
        with self.assertRaisesRegex(HookError, '^no way$'):
            self.run_in(ct, fails)
        with self.assertRaisesRegex(HookError, '^cannot mount the BPF FS on /x in the container: '):
            self.run_in(ct, hook.attach_tree(-1, -1, '/x'))

    def test_unexpected_exception_stays_in_the_child(self):
        ct = self.container()
        marker = os.path.join(self.tmp, 'marker')
        me = os.getpid()

        def func():
            raise ValueError('boom')
        try:
            with self.assertRaisesRegex(HookError, "^internal error in the container's mount "
                                        'namespace: ValueError: boom$'):
                self.run_in(ct, func)
        finally:
            # whoever gets here: only this process may
            with open(marker, 'a') as f:
                f.write(f'{os.getpid()}\n')
            if os.getpid() != me:
                os._exit(3)
        with open(marker) as f:
            self.assertEqual(f.read(), f'{me}\n')

    def test_exit_and_signals_in_the_child(self):
        ct = self.container()
        for exc in (SystemExit(0), KeyboardInterrupt()):
            def func():
                raise exc
            with self.subTest(exc=exc), self.assertRaisesRegex(
                    HookError, "^internal error in the container's mount namespace: "):
                self.run_in(ct, func)

        def killed():
            os.kill(os.getpid(), signal.SIGKILL)
        with self.assertRaisesRegex(HookError, r"^the helper in the container's mount namespace "
                                    r'failed \(status 9\)$'):
            self.run_in(ct, killed)


@unittest.skipUnless(ROOT, 'needs root (namespaces)')
class Pinned(ContainerDir):
    """the container's process, pinned by a pidfd"""

    def test_gone(self):
        ct = self.container()
        proc = hook.Process(ct.pid)
        self.addCleanup(proc.close)
        fd = proc.open('ns/user')
        self.assertTrue(hook.same_file(os.fstat(fd), os.stat(f'/proc/{ct.pid}/ns/user')))
        proc.verify()
        ct.stop()
        with self.assertRaisesRegex(HookError, rf"^the container's process {ct.pid} is gone$"):
            proc.verify()
        # below its /proc directory: nothing more, whatever has the pid since
        with self.assertRaisesRegex(HookError, 'is gone'):
            proc.open('ns/mnt')
        with self.assertRaisesRegex(HookError, rf"^the container's process {ct.pid} is gone$"):
            hook.Process(ct.pid)

    def test_zombie_and_start_time(self):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        try:
            for _ in range(100):
                if hook.proc_stat(pid)[0] == 'Z':
                    break
                time.sleep(0.01)
            with self.assertRaisesRegex(HookError, 'is gone'):
                hook.Process(pid)
        finally:
            os.waitpid(pid, 0)
        ct = self.container()
        proc = hook.Process(ct.pid)
        self.addCleanup(proc.close)
        # another process of the same pid: another start time
        proc.start = str(int(proc.start) + 1)
        with self.assertRaisesRegex(HookError, 'is gone'):
            proc.verify()

    def test_namespaces_of_its_own(self):
        ct = self.container()
        proc = hook.Process(ct.pid)
        self.addCleanup(proc.close)
        with self.assertRaisesRegex(HookError, '^the container has no user namespace of its own'):
            hook.check_userns(proc.open('ns/user'))
        with self.assertRaisesRegex(HookError, '^the container has no pid namespace of its own'):
            hook.check_pidns(proc.open('ns/pid'))
        ct = self.container(userns=True, pidns=True)
        proc = hook.Process(ct.pid)
        self.addCleanup(proc.close)
        hook.check_userns(proc.open('ns/user'))
        hook.check_pidns(proc.open('ns/pid'))
        self.assertEqual((hook.root_of(proc, 'uid'), hook.root_of(proc, 'gid')),
                         (FakeContainer.ROOT_ID, FakeContainer.ROOT_ID))


@unittest.skipUnless(ROOT and CGROUP2, 'needs root and a cgroup v2 hierarchy')
class CgroupScope(ContainerDir):
    """the token's cgroup scope is the container's own cgroup"""

    def setUp(self):
        super().setUp()
        self.cg = cgroup_dir()
        os.makedirs(os.path.join(self.cg, 'ct', 'sub'))
        self.sleepers = []

    def tearDown(self):
        for p in self.sleepers:
            p.kill()
            p.wait()
        super().tearDown()
        rmdir_cgroup(self.cg)

    def sleeper(self, cgroup):
        """a process of the host in cgroup"""
        p = subprocess.Popen(['sleep', '100'])
        self.sleepers.append(p)
        with open(os.path.join(cgroup, 'cgroup.procs'), 'w') as f:
            f.write(f'{p.pid}\n')
        return p.pid

    def scope(self, ct, own=()):
        proc = hook.Process(ct.pid)
        self.addCleanup(proc.close)
        rel, d, fd = hook.container_cgroup(proc)
        hook.check_cgroup_scope(rel, fd, proc.open('ns/pid'), list(own))
        return rel, d

    def test_own_cgroup(self):
        ct = self.container(userns=True, pidns=True, cgroup=os.path.join(self.cg, 'ct'))
        rel, d = self.scope(ct, [('the hook', os.getpid())])
        self.assertEqual(d, os.path.join(self.cg, 'ct'))
        self.assertEqual(rel, d[len(CGROUP2):])

    def test_root_cgroup(self):
        # (the tests run in some cgroup: the root one, if the host's is)
        ct = self.container(userns=True, pidns=True, cgroup=CGROUP2)
        with self.assertRaisesRegex(HookError, r'^the container is in the root cgroup: a token '
                                    'scoped to it would attach programs to every cgroup'):
            self.scope(ct)

    def test_the_runtime_s_cgroup(self):
        ct = self.container(userns=True, pidns=True, cgroup=os.path.join(self.cg, 'ct'))
        runtime = self.sleeper(os.path.join(self.cg, 'ct', 'sub'))
        with self.assertRaisesRegex(HookError, rf"^the container's cgroup {self.cg[len(CGROUP2):]}/ct "
                                    rf'holds the runtime \(process {runtime}, cgroup .*/ct/sub\)'):
            self.scope(ct, [('the hook', os.getpid()), ('the runtime', runtime)])

    def test_a_host_process_in_the_cgroup(self):
        """podman --cgroups=disabled, a shared cgroupsPath: a process of
        the host (or another container's) in the cgroup or below"""
        for where in ('ct', 'ct/sub'):
            with self.subTest(where=where):
                ct = self.container(userns=True, pidns=True, cgroup=os.path.join(self.cg, 'ct'))
                other = self.sleeper(os.path.join(self.cg, where))
                with self.assertRaisesRegex(HookError, rf"^the container's cgroup .*/ct holds process "
                                            rf"{other} \(cgroup .*/{where}\), outside the container's "
                                            'pid namespace'):
                    self.scope(ct)
                p = self.sleepers.pop()
                p.kill()
                p.wait()
                ct.stop()
        # another container (a pid namespace of its own) in the same cgroup
        ct = self.container(userns=True, pidns=True, cgroup=os.path.join(self.cg, 'ct'))
        other = self.container(userns=True, pidns=True, cgroup=os.path.join(self.cg, 'ct'))
        with self.assertRaisesRegex(HookError, f'holds process {other.pid} '):
            self.scope(ct)

    def test_the_container_s_own_processes(self):
        """processes of the container, in its pid namespace or one below
        it, anywhere in its cgroup's tree, are its own"""
        ct = self.container(userns=True, pidns=True, cgroup=os.path.join(self.cg, 'ct'))
        # nsenter forks into the container's pid namespace, unshare into one
        # below it: both, and the sleep, below the container's cgroup
        nested = subprocess.Popen(['nsenter', '-t', str(ct.pid), '-U', '-p', 'unshare', '-p', '-f',
                                   'sleep', '100'])
        self.sleepers.append(nested)
        kids = []
        for _ in range(200):
            kids = descendants(nested.pid)
            if len(kids) == 2:
                break
            time.sleep(0.01)
        self.assertEqual(len(kids), 2)
        for pid in kids:
            with open(os.path.join(self.cg, 'ct', 'sub', 'cgroup.procs'), 'w') as f:
                f.write(f'{pid}\n')
        self.scope(ct)
        # (the control: nsenter itself, of the host's pid namespace)
        with open(os.path.join(self.cg, 'ct', 'sub', 'cgroup.procs'), 'w') as f:
            f.write(f'{nested.pid}\n')
        with self.assertRaisesRegex(HookError, f'holds process {nested.pid} '):
            self.scope(ct)


def cgroup_dir():
    """a new cgroup v2 directory for a test; rmdir_cgroup() removes it"""
    return tempfile.mkdtemp(prefix='oci-hook-test.', dir=CGROUP2)


def rmdir_cgroup(d):
    """remove the cgroup directory d and those below it, once the
    processes killed there are gone"""
    for sub in sorted((p for p, _, _ in os.walk(d)), reverse=True):
        for _ in range(100):
            try:
                os.rmdir(sub)
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.01)


def descendants(pid):
    """the processes below pid"""
    parents = {}
    for p in os.listdir('/proc'):
        if p.isdigit():
            with contextlib.suppress(OSError, IndexError):
                with open(f'/proc/{p}/stat') as f:
                    parents[int(p)] = int(f.read().rpartition(')')[2].split()[1])
    found = [p for p, pp in parents.items() if pp == pid]
    for p in found:
        found += [q for q, qq in parents.items() if qq == p and q not in found]
    return found


def tmp_run(test):
    """the hook's RUN_DIR and what is below it, in test.tmp, for the test"""
    run = os.path.join(test.tmp, 'run')
    for k, v in (('RUN_DIR', run), ('HOST_DIR', run + '/oci'),
                 ('RECORD_DIR', run + '/oci-records'), ('LOCK_FILE', run + '/oci.lock')):
        p = unittest.mock.patch.object(hook, k, v)
        p.start()
        test.addCleanup(p.stop)


class Records(TmpDir):
    """records and teardown, in a temporary RUN_DIR (no mount)"""

    def setUp(self):
        super().setUp()
        tmp_run(self)
        self.zombies = []

    def tearDown(self):
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

    def record(self, cid, pid, bundle=None, start=None):
        os.makedirs(hook.host_dir(cid), exist_ok=True)
        with hook.records_locked():
            hook.write_record(cid, pid, 'token', start, bundle)

    def test_one_container_of_an_id_at_a_time(self):
        self.record('ct1', os.getpid(), '/b1')
        rec = hook.read_record('ct1')
        self.assertEqual(rec, {'pid': os.getpid(), 'start': hook.proc_start(os.getpid()),
                               'token': 'token', 'bundle': '/b1'})
        self.assertTrue(hook.alive(rec))
        with hook.records_locked(), \
                self.assertRaisesRegex(HookError, f'^a container with id ct1 has a token already '
                                       rf'\(process {os.getpid()}, bundle /b1; another runtime'):
            hook.write_record('ct1', 1, 'token', None, '/b2')
        self.assertEqual(hook.read_record('ct1'), rec)
        self.assertEqual([n for n in os.listdir(hook.RECORD_DIR)], ['ct1'])

    def test_a_gone_container_makes_room(self):
        self.record('ct1', self.zombie())
        self.assertFalse(hook.alive(hook.read_record('ct1')))
        with hook.records_locked():
            hook.write_record('ct1', os.getpid(), 'token')
        self.assertEqual(hook.read_record('ct1')['pid'], os.getpid())
        self.assertFalse(os.path.exists(hook.host_dir('ct1')))

    def poststop(self, cid, bundle=None):
        hook.poststop({'id': cid, 'status': 'stopped', 'bundle': bundle})

    def test_poststop_of_another_runtime_leaves_a_live_container(self):
        """two runtimes, one container id: the poststop of the one whose
        container is gone does not touch the live one's"""
        self.record('ct1', os.getpid(), '/b1')
        for bundle in ('/b2', '/b1', None):
            self.poststop('ct1', bundle)
            self.assertTrue(os.path.isdir(hook.host_dir('ct1')))
            self.assertIsNotNone(hook.read_record('ct1'))
        # its own poststop, once its process is gone
        with open(hook.record_path('ct1'), 'w') as f:
            json.dump({'pid': self.zombie(), 'start': None, 'token': 'token', 'bundle': '/b1'}, f)
        self.poststop('ct1', '/b1')
        self.assertFalse(os.path.exists(hook.host_dir('ct1')))
        self.assertIsNone(hook.read_record('ct1'))
        # no record: nothing to do, and nothing touched
        os.makedirs(hook.host_dir('ct2'))
        self.poststop('ct2')
        self.assertTrue(os.path.isdir(hook.host_dir('ct2')))

    def test_same_id_same_pid_another_start(self):
        """a record whose pid names another process (its start time is
        another) is a gone container's"""
        self.record('ct1', os.getpid(), '/b1', start='1')
        self.assertFalse(hook.alive(hook.read_record('ct1')))
        self.poststop('ct1', '/b2')
        self.assertIsNone(hook.read_record('ct1'))

    def test_collect(self):
        for cid, pid, start in (('gone', self.zombie(), None), ('live', os.getpid(), None),
                                ('reused', os.getpid(), '1')):
            self.record(cid, pid, start=start)
        with open(os.path.join(hook.RECORD_DIR, '.junk'), 'w'):
            pass
        with hook.records_locked():
            hook.collect()
        self.assertEqual(sorted(os.listdir(hook.HOST_DIR)), ['live'])
        self.assertEqual(sorted(os.listdir(hook.RECORD_DIR)), ['.junk', 'live'])

    def test_every_run_collects(self):
        """stale records go at every run of the hook, whatever the
        container and the stage, even one that fails"""
        self.record('live', os.getpid())
        for argv, state in ((['createRuntime'], {'id': 'x', 'bundle': self.tmp}),
                            (['poststop'], {'id': 'x'}),
                            (['createRuntime'], {'id': 'x', 'bundle': '/nonexistent'})):
            self.record('gone', self.zombie())
            self.record('reused', os.getpid(), start='1')
            with open(os.path.join(self.tmp, 'config.json'), 'w') as f:
                json.dump({'annotations': {'other': 'x'}}, f)
            with self.subTest(argv=argv, state=state):
                main_of(argv, json.dumps(state))
                self.assertEqual(sorted(os.listdir(hook.RECORD_DIR)), ['live'])
                self.assertEqual(sorted(os.listdir(hook.HOST_DIR)), ['live'])
        # no record directory: none made
        shutil.rmtree(hook.RUN_DIR)
        self.assertEqual(main_of(['createRuntime'], json.dumps({'id': 'x', 'bundle': self.tmp})),
                         (0, '', ''))
        self.assertFalse(os.path.exists(hook.RUN_DIR))

    def test_teardown_follows_no_link(self):
        """a symbolic link where the host's directory of the container's
        BPF FS was: not followed, the record kept (a later run tries
        again)"""
        os.makedirs(hook.HOST_DIR)
        victim = os.path.join(self.tmp, 'victim')
        os.mkdir(victim)
        self.write('victim/token', 'another container\'s token')
        os.symlink(victim, hook.host_dir('ct1'))
        os.makedirs(hook.RECORD_DIR)
        with open(hook.record_path('ct1'), 'w') as f:
            json.dump({'pid': self.zombie(), 'start': None, 'token': 'token'}, f)
        with hook.records_locked():
            errors = hook.teardown('ct1', 'token')
        self.assertRegex(' '.join(errors), '^cannot open .*/oci/ct1: Too many levels of symbolic links$')
        self.assertTrue(os.path.exists(os.path.join(victim, 'token')))
        self.assertIsNotNone(hook.read_record('ct1'))
        with self.assertRaisesRegex(HookError, '^cannot open .*/oci/ct1: Too many levels'):
            self.poststop('ct1')
        os.unlink(hook.host_dir('ct1'))
        self.poststop('ct1')
        self.assertIsNone(hook.read_record('ct1'))
        self.assertTrue(os.path.exists(os.path.join(victim, 'token')))


class Revoke(TmpDir):
    """revoke_at() follows no symbolic link the container put in its BPF FS"""

    def test_symlinks_are_not_followed(self):
        d = os.path.join(self.tmp, 'fs')
        os.mkdir(d)
        dfd = os.open(d, os.O_PATH | os.O_DIRECTORY)
        self.addCleanup(os.close, dfd)
        victim = self.write('victim', 'another container\'s token')
        os.symlink(victim, os.path.join(d, 'token'))
        self.assertEqual(hook.revoke_at(dfd, d, 'token'), [])
        self.assertTrue(os.path.exists(victim))
        self.assertFalse(os.path.lexists(os.path.join(d, 'token')))
        # a token: unlinked
        self.write('fs/token', '')
        self.assertEqual(hook.revoke_at(dfd, d, 'token'), [])
        self.assertEqual(os.listdir(d), [])
        # a directory: left to the unmount
        os.mkdir(os.path.join(d, 'token'))
        self.assertEqual(hook.revoke_at(dfd, d, 'token'), [])
        self.assertTrue(os.path.isdir(os.path.join(d, 'token')))
        # names that are not one entry of the directory
        for name in ('', '.', '..', '../victim', None):
            self.assertEqual(hook.revoke_at(dfd, d, name), [])
        self.assertTrue(os.path.exists(victim))


# The stand-in for bpftool of EndToEnd: `token needs` prints what the
# objects need (in the mount format after "format mount"); `token create
# PATH ...` pins a map at PATH (a file of the BPF FS the hook mounted, as a
# token is), `token delegate PATH ...` mounts a BPF FS on PATH, or refuses
# "cgroup" as a mainline kernel does when FAKE_NO_SCOPE is set; each logs
# its arguments and what its fds are, and fails after pinning or mounting
# when FAKE_FAIL is set, leaving a process that holds the BPF FS (so that
# the test sees what the hook did to it)
FAKE_BPFTOOL = r'''
import ctypes, json, os, struct, sys, time
args = sys.argv[1:]
if args[:3] == ['-j', 'token', 'needs'] and os.environ.get('FAKE_NEEDS_FAIL'):
    print('Error: object %s is malformed' % args[3], file=sys.stderr)
    sys.exit(255)
if args[:3] == ['-j', 'token', 'needs'] and args[-2:] == ['format', 'mount']:
    print(json.dumps({'format': 'mount', 'lines': [
        'delegate_cmds=prog_load:map_create,delegate_maps=array,delegate_progs=xdp,'
        'delegate_attachs=xdp']}))
    sys.exit(0)
if args[:3] == ['-j', 'token', 'needs']:
    # (and what it was given to parse: each object's file and bytes)
    print(json.dumps({'allowed_cmds': ['prog_load', 'map_create'], 'allowed_maps': ['array'],
                      'allowed_progs': ['xdp'], 'allowed_attachs': ['xdp'],
                      'given': [[os.readlink(a), open(a, 'rb').read().decode()]
                                for a in args[3:]]}))
    sys.exit(0)
assert args[:3] in (['-j', 'token', 'create'], ['-j', 'token', 'delegate']), args
path = args[3]
fds = {k: os.readlink(args[args.index(k) + 1]) for k in ('userns', 'cgroup') if k in args}
libc = ctypes.CDLL(None, use_errno=True)
if args[2] == 'delegate':
    with open(os.environ['FAKE_LOG'], 'a') as f:
        f.write(json.dumps({'args': args, 'fds': fds}) + '\n')
    if 'cgroup' in args and os.environ.get('FAKE_NO_SCOPE'):
        print("Error: can't delegate with cgroup %s: the kernel has no cgroup scope for "
              "delegated tokens" % args[args.index('cgroup') + 1], file=sys.stderr)
        sys.exit(1)
    assert libc.mount(b'bpf', path.encode(), b'bpf', 0, None) == 0
    if os.environ.get('FAKE_FAIL'):
        print('Error: it failed', file=sys.stderr)
        sys.exit(1)
    sets = {k: args[args.index(k) + 1].split(',') for k in ('cmds', 'maps', 'progs', 'attach')}
    sets['progs'] += os.environ.get('FAKE_EXTRA_PROGS', '').split()
    print(json.dumps({'delegated': path, 'allowed_cmds': sets['cmds'],
                      'allowed_maps': sets['maps'], 'allowed_progs': sets['progs'],
                      'allowed_attachs': sets['attach'], 'relaxed_verifier': False}))
    sys.exit(0)
attr = ctypes.create_string_buffer(struct.pack('IIIII', 2, 4, 4, 1, 0), 128)
fd = libc.syscall(321, 0, attr, 128)
name = ctypes.create_string_buffer(path.encode())
attr = ctypes.create_string_buffer(struct.pack('QII', ctypes.addressof(name), fd, 0), 128)
assert libc.syscall(321, 6, attr, 128) == 0, ctypes.get_errno()
holder = dfd = None
if os.environ.get('FAKE_FAIL'):
    dfd = os.open(os.path.dirname(path), os.O_PATH)
    holder = os.fork()
    if holder == 0:
        os.setsid()
        nul = os.open('/dev/null', os.O_RDWR)
        os.dup2(nul, 1)
        os.dup2(nul, 2)
        time.sleep(100)
        os._exit(0)
with open(os.environ['FAKE_LOG'], 'a') as f:
    f.write(json.dumps({'args': args, 'fds': fds, 'holder': holder, 'fd': dfd}) + '\n')
if holder:
    print('Error: it failed', file=sys.stderr)
    sys.exit(1)
print(json.dumps([{'allowed_progs': ['xdp'], 'allowed_maps': ['array'],
                   'allowed_cmds': ['prog_load', 'map_create'], 'allowed_attachs': ['xdp']}]))
'''


@unittest.skipUnless(ROOT and CGROUP2, 'needs root and a cgroup v2 hierarchy')
class EndToEnd(ContainerDir):
    """createRuntime and poststop of a fake container (namespaces of its
    own, a cgroup of its own, a mount namespace where /sys/fs/bpf is) with
    a stand-in for bpftool, in a temporary RUN_DIR"""

    def setUp(self):
        super().setUp()
        tmp_run(self)
        os.makedirs(os.path.join(self.tmp, 'root-only'), mode=0o700)
        tool = self.write('root-only/bpftool', '#!/usr/bin/python3\n' + FAKE_BPFTOOL, 0o755)
        self.log = os.path.join(self.tmp, 'log')
        p = unittest.mock.patch.dict(os.environ, {
            'BPF_TOKEN_BPFTOOL': tool, 'FAKE_LOG': self.log,
            hook.POLICY_ENV: os.path.join(self.tmp, 'no-policy')})
        p.start()
        self.addCleanup(p.stop)
        self.write('rootfs/app/x.bpf.o', 'an object\n')
        with open(os.path.join(self.tmp, 'config.json'), 'w') as f:
            json.dump({'root': {'path': 'rootfs'}}, f)
        self.cg = cgroup_dir()
        self.holders = []

    def tearDown(self):
        for pid in self.holders:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for ct in self.cts:
            ct.stop()
        # whatever a failed test left mounted
        for d in sorted(glob.glob(os.path.join(hook.HOST_DIR, '*')) + [hook.HOST_DIR], reverse=True):
            libc.umount2(d.encode(), hook.MNT_DETACH)
        super().tearDown()
        rmdir_cgroup(self.cg)

    def state(self, ct, cid='ct1', status='creating', mode='pinned'):
        ann = {'org.bpf-token.objects': '/app/x.bpf.o'}
        if mode:
            ann['org.bpf-token.mode'] = mode
        return {'ociVersion': '1.0.2', 'id': cid, 'status': status, 'pid': ct.pid,
                'bundle': self.tmp, 'annotations': ann}

    def started(self):
        ct = self.container(mounts=[('tmpfs', '/sys')], userns=True, pidns=True, cgroup=self.cg)
        # the BPF FS mounts it has from the host's (not the hook's)
        ct.bpf_before = self.bpf_mounts(ct.pid)
        return ct

    def mkdir_in(self, ct, path):
        os.makedirs(f'/proc/{ct.pid}/root{self.rootfs}{path}')

    def bpf_mounts(self, pid='self'):
        with open(f'/proc/{pid}/mountinfo') as f:
            return [l.split()[4] for l in f if ' - bpf ' in l]

    def test_create_and_poststop(self):
        ct = self.started()
        self.mkdir_in(ct, '/sys/fs/bpf')
        hook.create(self.state(ct))
        d = hook.host_dir('ct1')
        token = os.path.join(d, 'token')
        # the record: the pinned process's pid and start time, the bundle
        rec = hook.read_record('ct1')
        self.assertEqual(rec, {'pid': ct.pid, 'start': hook.proc_start(ct.pid), 'token': 'token',
                               'bundle': self.tmp})
        st = os.lstat(token)
        self.assertEqual((st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)),
                         (FakeContainer.ROOT_ID, FakeContainer.ROOT_ID, 0o600))
        # bpftool got the user namespace and the cgroup as open fds
        with open(self.log) as f:
            log = json.loads(f.read())
        args = log['args']
        self.assertRegex(args[args.index('userns') + 1], r'^/proc/self/fd/\d+$')
        self.assertRegex(args[args.index('cgroup') + 1], r'^/proc/self/fd/\d+$')
        self.assertEqual(log['fds']['userns'], os.readlink(f'/proc/{ct.pid}/ns/user'))
        self.assertEqual(log['fds']['cgroup'], self.cg)
        self.assertEqual(args[args.index('progs') + 1], 'xdp')
        # in the container: the same BPF FS, private
        point = f'{self.rootfs}/sys/fs/bpf'
        self.assertIn(point, self.bpf_mounts(ct.pid))
        with open(f'/proc/{ct.pid}/mountinfo') as f:
            line, = [l for l in f if l.split()[4] == point]
        self.assertNotIn('shared:', line)
        self.assertEqual(os.listdir(f'/proc/{ct.pid}/root{point}'), os.listdir(d))

        # the container mounts over its /sys/fs/bpf, and over its parent:
        # the host's mount is not hidden
        fsfd = os.open(d, os.O_PATH | os.O_DIRECTORY)
        self.addCleanup(os.close, fsfd)
        nsfd = os.open(f'/proc/{ct.pid}/ns/mnt', os.O_RDONLY)
        self.addCleanup(os.close, nsfd)
        for p in (point, f'{self.rootfs}/sys/fs'):
            hook.in_mount_ns(nsfd, lambda p=p: hook.check(
                libc.mount(b'tmpfs', p.encode(), b'tmpfs', 0, None), 'mount'))
            self.assertEqual(os.listdir(f'/proc/{ct.pid}/root{p}'), [])
            self.assertIn('token', os.listdir(d))
            self.assertEqual(self.bpf_mounts().count(d), 1)
        # poststop, once the container's process is gone: the token
        # unlinked (revoked) in the instance, the instance unmounted, the
        # record gone
        ct.stop()
        hook.poststop(self.state(ct, status='stopped'))
        self.assertNotIn('token', os.listdir(f'/proc/self/fd/{fsfd}'))
        self.assertFalse(os.path.exists(d))
        self.assertIsNone(hook.read_record('ct1'))
        self.assertNotIn(d, self.bpf_mounts())

    def test_two_runtimes_one_id(self):
        """another runtime's container of the same id is refused while the
        first runs; its poststop leaves the first's token"""
        ct = self.started()
        self.mkdir_in(ct, '/sys/fs/bpf')
        hook.create(self.state(ct))
        other = dict(self.state(ct), bundle=os.path.join(self.tmp, 'other'))
        os.mkdir(other['bundle'])
        with open(os.path.join(other['bundle'], 'config.json'), 'w') as f:
            json.dump({'root': {'path': '../rootfs'}}, f)
        with self.assertRaisesRegex(HookError, rf'^a container with id ct1 has a token already '
                                    rf'\(process {ct.pid}, bundle {self.tmp}; another runtime'):
            hook.create(other)
        hook.poststop(dict(other, status='stopped'))
        self.assertIn('token', os.listdir(hook.host_dir('ct1')))
        self.assertEqual(hook.read_record('ct1')['bundle'], self.tmp)

    def test_a_failure_revokes_the_token(self):
        """bpftool fails after it pinned the token: the hook unlinks it
        (revoked), unmounts, removes the record"""
        ct = self.started()
        self.mkdir_in(ct, '/sys/fs/bpf')
        with unittest.mock.patch.dict(os.environ, {'FAKE_FAIL': '1'}), \
                self.assertRaisesRegex(HookError, '^bpftool token create: it failed$'):
            hook.create(self.state(ct))
        with open(self.log) as f:
            log = json.loads(f.read())
        self.holders.append(log['holder'])
        # the instance, still held by bpftool's child: no token in it
        self.assertNotIn('token', os.listdir(f'/proc/{log["holder"]}/fd/{log["fd"]}'))
        self.assertFalse(os.path.exists(hook.host_dir('ct1')))
        self.assertIsNone(hook.read_record('ct1'))
        self.assertEqual(self.bpf_mounts(ct.pid), ct.bpf_before)

    def test_a_failure_in_the_container_s_namespace_revokes_too(self):
        # no /sys/fs/bpf in the container once it is resolved: move_mount
        # fails (its directory removed meanwhile)
        ct = self.started()
        self.mkdir_in(ct, '/sys/fs/bpf')
        real = hook.attach_tree

        def attach(tree, dirfd, mnt):
            os.rmdir(f'/proc/{ct.pid}/root{self.rootfs}/sys/fs/bpf')
            return real(tree, dirfd, mnt)
        with unittest.mock.patch.object(hook, 'attach_tree', attach), \
                self.assertRaisesRegex(HookError, '^cannot mount the BPF FS on /sys/fs/bpf in the '
                                       'container: No such file or directory$'):
            hook.create(self.state(ct))
        self.assertFalse(os.path.exists(hook.host_dir('ct1')))
        self.assertIsNone(hook.read_record('ct1'))
        self.assertNotIn(hook.host_dir('ct1'), self.bpf_mounts())

    def log_lines(self):
        with open(self.log) as f:
            return [json.loads(l) for l in f]

    def policy(self, text):
        path = self.write('policy', text)
        p = unittest.mock.patch.dict(os.environ, {hook.POLICY_ENV: path})
        p.start()
        self.addCleanup(p.stop)

    def test_delegated_create_and_poststop(self):
        """the default mode: bpftool token delegate mounts the BPF FS on the
        host's directory, from the sets of the objects' parse in the mount
        format and libbpf's load probe, for the container's user namespace
        and cgroup (open fds); the hook moves a clone of it onto the
        container's /sys/fs/bpf, private; poststop unmounts it"""
        ct = self.started()
        self.mkdir_in(ct, '/sys/fs/bpf')
        hook.create(self.state(ct, mode=None))
        d = hook.host_dir('ct1')
        self.assertEqual(hook.read_record('ct1'), {'pid': ct.pid, 'start': hook.proc_start(ct.pid),
                                                   'token': None, 'bundle': self.tmp})
        log, = self.log_lines()
        args = log['args']
        self.assertEqual(args[:4], ['-j', 'token', 'delegate', d])
        self.assertRegex(args[args.index('userns') + 1], r'^/proc/self/fd/\d+$')
        self.assertRegex(args[args.index('cgroup') + 1], r'^/proc/self/fd/\d+$')
        self.assertEqual(log['fds'], {'userns': os.readlink(f'/proc/{ct.pid}/ns/user'),
                                      'cgroup': self.cg})
        self.assertEqual({k: args[args.index(k) + 1] for k in hook.SETS},
                         {'cmds': 'prog_load,map_create', 'maps': 'array',
                          'progs': 'xdp,socket_filter', 'attach': 'xdp,cgroup_inet_ingress'})
        self.assertNotIn('verifier', args)
        st = os.stat(d)
        self.assertEqual((st.st_uid, st.st_gid, stat.S_IMODE(st.st_mode)),
                         (FakeContainer.ROOT_ID, FakeContainer.ROOT_ID, 0o755))
        # the host's mount and the container's: one BPF FS, private both
        point = f'{self.rootfs}/sys/fs/bpf'
        for pid, path in (('self', d), (ct.pid, point)):
            with open(f'/proc/{pid}/mountinfo') as f:
                line, = [l for l in f if l.split()[4] == path]
            self.assertIn(' - bpf ', line)
            self.assertNotIn('shared:', line)
            self.assertIn('nosuid,nodev,noexec', line)
        self.assertEqual(os.stat(f'/proc/{ct.pid}/root{point}').st_dev, st.st_dev)
        ct.stop()
        hook.poststop(self.state(ct, status='stopped', mode=None))
        self.assertFalse(os.path.exists(d))
        self.assertIsNone(hook.read_record('ct1'))
        self.assertNotIn(d, self.bpf_mounts())

    def test_delegated_failure_unmounts(self):
        ct = self.started()
        self.mkdir_in(ct, '/sys/fs/bpf')
        with unittest.mock.patch.dict(os.environ, {'FAKE_FAIL': '1'}), \
                self.assertRaisesRegex(HookError, '^bpftool token delegate: it failed$'):
            hook.create(self.state(ct, mode=None))
        self.assertFalse(os.path.exists(hook.host_dir('ct1')))
        self.assertIsNone(hook.read_record('ct1'))
        self.assertNotIn(hook.host_dir('ct1'), self.bpf_mounts())
        self.assertEqual(self.bpf_mounts(ct.pid), ct.bpf_before)

    def test_delegated_beyond_the_policy_is_undone(self):
        """what the kernel shows of the delegated BPF FS is checked against
        the policy once more: beyond it, unmounted"""
        ct = self.started()
        self.mkdir_in(ct, '/sys/fs/bpf')
        with unittest.mock.patch.dict(os.environ, {'FAKE_EXTRA_PROGS': 'kprobe'}), \
                self.assertRaises(HookError) as cm:
            hook.create(self.state(ct, mode=None))
        self.assertEqual(str(cm.exception), 'policy refuses progs kprobe (root-equivalent; the '
                         'delegated BPF FS)')
        self.assertFalse(os.path.exists(hook.host_dir('ct1')))
        self.assertIsNone(hook.read_record('ct1'))
        self.assertNotIn(hook.host_dir('ct1'), self.bpf_mounts())
        self.assertEqual(self.bpf_mounts(ct.pid), ct.bpf_before)

    def test_no_cgroup_scope(self):
        """a kernel without a cgroup scope for a delegated BPF FS (bpftool
        refuses "cgroup" before it makes anything): one line and nothing
        left, unless the policy lets the container go without it"""
        ct = self.started()
        self.mkdir_in(ct, '/sys/fs/bpf')
        p = unittest.mock.patch.dict(os.environ, {'FAKE_NO_SCOPE': '1'})
        p.start()
        self.addCleanup(p.stop)
        optional = {'org.bpf-token.cgroup-scope': 'optional'}
        for policy, ann in (('', {}), ('', optional), ('trust-annotations yes\n', optional),
                            ('cgroup-scope annotation\n', {}),
                            ('cgroup-scope optional\n', {'org.bpf-token.cgroup-scope': 'required'})):
            self.policy(policy)
            state = self.state(ct, mode=None)
            state['annotations'].update(ann)
            with self.subTest(policy=policy, ann=ann), self.assertRaises(HookError) as cm:
                hook.create(state)
            self.assertEqual(str(cm.exception), 'the kernel has no cgroup scope for a delegated '
                             'BPF FS: the container\'s programs would not be bound to its cgroup; '
                             'the policy\'s "cgroup-scope optional", or "cgroup-scope annotation" '
                             'with org.bpf-token.cgroup-scope=optional, lets it start without')
            self.assertFalse(os.path.exists(hook.host_dir('ct1')))
            self.assertIsNone(hook.read_record('ct1'))
            self.assertNotIn(hook.host_dir('ct1'), self.bpf_mounts())
        # the opt-out: the policy's, or the annotation the policy lets count
        for policy, ann in (('cgroup-scope optional\n', {}),
                            ('cgroup-scope annotation\n', optional)):
            os.unlink(self.log)
            self.policy(policy)
            state = self.state(ct, mode=None)
            state['annotations'].update(ann)
            with self.subTest(policy=policy, ann=ann):
                hook.create(state)
                first, second = self.log_lines()
                self.assertIn('cgroup', first['args'])
                self.assertNotIn('cgroup', second['args'])
                self.assertIn(f'{self.rootfs}/sys/fs/bpf', self.bpf_mounts(ct.pid))
                with hook.records_locked():
                    self.assertEqual(hook.teardown('ct1', None), [])
                self.assertFalse(os.path.exists(hook.host_dir('ct1')))

    def test_mode_refused_before_anything_is_made(self):
        ct = self.started()
        self.mkdir_in(ct, '/sys/fs/bpf')
        for policy, mode, extra, msg in (
                ('mode delegated\n', 'pinned', {},
                 'policy refuses org.bpf-token.mode pinned (mode delegated)'),
                ('mode pinned\n', 'delegated', {},
                 'policy refuses org.bpf-token.mode delegated (mode pinned)'),
                ('', 'delegated', {'org.bpf-token.path': '/run/token'},
                 'org.bpf-token.path is for a pinned token (org.bpf-token.mode=pinned): the '
                 'delegated BPF FS is mounted on /sys/fs/bpf, libbpf\'s own path'),
                ('', 'Pinned', {}, 'org.bpf-token.mode: "Pinned": "delegated" or "pinned" '
                 'expected')):
            self.policy(policy)
            state = self.state(ct, mode=mode)
            state['annotations'].update(extra)
            with self.subTest(policy=policy, mode=mode), self.assertRaises(HookError) as cm:
                hook.create(state)
            self.assertEqual(str(cm.exception), msg)
        self.assertFalse(os.path.exists(self.log))
        self.assertFalse(os.path.exists(hook.RECORD_DIR) and os.listdir(hook.RECORD_DIR))
        # the policy's mode, without an annotation: pinned
        self.policy('mode pinned\n')
        hook.create(self.state(ct, mode=None))
        self.assertEqual(self.log_lines()[0]['args'][2], 'create')
        self.assertEqual(hook.read_record('ct1')['token'], 'token')

    def needs_given(self):
        """what the stand-in's parse says it was given to parse, a list
        that each run of the parse appends to: [[the file, its bytes]]"""
        given = []
        real = hook.run_needs

        def run_needs(*args):
            needs = real(*args)
            given.append(needs['given'])
            return needs
        p = unittest.mock.patch.object(hook, 'run_needs', run_needs)
        p.start()
        self.addCleanup(p.stop)
        return given

    def nothing_made(self):
        self.assertFalse(os.path.exists(self.log))
        self.assertFalse(os.path.exists(hook.RECORD_DIR) and os.listdir(hook.RECORD_DIR))
        self.assertFalse(os.path.exists(hook.host_dir('ct1')))

    def test_objects_digest(self):
        """objects digest: the container's object, copied by its root user,
        gets its token when the policy lists its digest, and bpftool parses
        that copy; with one byte changed, refused before anything is made"""
        ct = self.started()
        self.mkdir_in(ct, '/sys/fs/bpf')
        given = self.needs_given()
        obj = os.path.join(self.rootfs, 'app', 'x.bpf.o')
        self.policy(f'objects digest\nobject-digest {sha256_of(obj)}\n')
        hook.create(self.state(ct))
        (target, content), = given.pop()
        self.assertRegex(target, '^/memfd:bpf-token-object ')
        self.assertEqual(content, 'an object\n')
        self.assertIn('token', os.listdir(hook.host_dir('ct1')))
        with hook.records_locked():
            self.assertEqual(hook.teardown('ct1', 'token'), [])
        os.unlink(self.log)
        with open(obj, 'r+') as f:
            f.write('A')
        with self.assertRaises(HookError) as cm:
            hook.create(self.state(ct))
        self.assertEqual(str(cm.exception), 'policy refuses org.bpf-token.objects /app/x.bpf.o '
                         f'({sha256_of(obj)}: not an object-digest of the policy)')
        self.assertEqual(given, [])
        self.nothing_made()

    def test_objects_host(self):
        """objects host: the annotation names files of the policy's
        object-dir, which bpftool parses (a copy); the container's files of
        those names are never read; a path is refused"""
        ct = self.started()
        self.mkdir_in(ct, '/sys/fs/bpf')
        given = self.needs_given()
        d = os.path.join(self.tmp, 'objects')
        os.mkdir(d, 0o755)
        self.write('objects/x.bpf.o', 'the host\'s object\n')
        self.write('rootfs/x.bpf.o', 'the container\'s\n')
        self.policy(f'objects host\nobject-dir {d}\n')
        state = self.state(ct)
        state['annotations']['org.bpf-token.objects'] = 'x.bpf.o'
        hook.create(state)
        (target, content), = given.pop()
        self.assertRegex(target, '^/memfd:bpf-token-object ')
        self.assertEqual(content, 'the host\'s object\n')
        self.assertIn('token', os.listdir(hook.host_dir('ct1')))
        with hook.records_locked():
            self.assertEqual(hook.teardown('ct1', 'token'), [])
        os.unlink(self.log)
        # bpftool's errors name the host's file
        with unittest.mock.patch.dict(os.environ, {'FAKE_NEEDS_FAIL': '1'}), \
                self.assertRaises(HookError) as cm:
            hook.create(state)
        self.assertEqual(str(cm.exception), f'bpftool token needs: object {d}/x.bpf.o is malformed')
        self.nothing_made()
        for objects, msg in (
                ('/app/x.bpf.o', 'org.bpf-token.objects: "/app/x.bpf.o" is not a file name of the '
                 'policy\'s object-dir'),
                ('x.bpf.o,../x.bpf.o', 'org.bpf-token.objects: "../x.bpf.o" is not a file name'),
                ('none.bpf.o', f'org.bpf-token.objects: none.bpf.o: No such file or directory in '
                 f'the policy\'s object-dir {d}')):
            state['annotations']['org.bpf-token.objects'] = objects
            with self.subTest(objects=objects), self.assertRaises(HookError) as cm:
                hook.create(state)
            self.assertTrue(str(cm.exception).startswith(msg), str(cm.exception))
            self.assertEqual(given, [])
            self.nothing_made()

    def test_refused_before_anything_is_made(self):
        ct = self.started()
        self.mkdir_in(ct, '/sys/fs/bpf')
        self.link('/app/escape.bpf.o', '/proc/1/root' + self.secret)
        for ann, msg in (
                ('/app/escape.bpf.o', 'org.bpf-token.objects: /app/escape.bpf.o: No such file or '
                 'directory in the container'),
                (self.secret, f'org.bpf-token.objects: {self.secret}: No such file or directory '
                 'in the container')):
            state = self.state(ct)
            state['annotations']['org.bpf-token.objects'] = ann
            with self.subTest(ann=ann), self.assertRaises(HookError) as cm:
                hook.create(state)
            self.assertEqual(str(cm.exception), msg)
        self.assertFalse(os.path.exists(self.log))
        self.assertFalse(os.path.exists(hook.RECORD_DIR) and os.listdir(hook.RECORD_DIR))
        # a container in the hook's own cgroup
        ct2 = self.container(mounts=[('tmpfs', '/sys')], userns=True, pidns=True,
                             cgroup=os.path.join(CGROUP2, hook.cgroup_of_pid(os.getpid()).lstrip('/')))
        with self.assertRaisesRegex(HookError, '^the container (is in the root cgroup|.s cgroup .* '
                                    'holds the hook )'):
            hook.create(self.state(ct2, cid='ct2'))


def main_of(argv, stdin):
    """hook.main() with argv and stdin: (exit status, stdout, stderr)"""
    out, err = io.StringIO(), io.StringIO()
    with unittest.mock.patch.object(sys, 'argv', ['oci-hook'] + argv), \
            unittest.mock.patch.object(sys, 'stdin', io.StringIO(stdin)), \
            contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = hook.main()
    return code, out.getvalue(), err.getvalue()


def caught(pid):
    """the mask of the signals process pid catches"""
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('SigCgt:'):
                return int(line.split()[1], 16)
    return 0


class Main(TmpDir):
    def setUp(self):
        super().setUp()
        tmp_run(self)

    def test_unexpected_exception_is_one_line(self):
        for exc in (ValueError('no\nsuch'), KeyboardInterrupt('no\nsuch')):
            def boom(state):
                raise exc
            with self.subTest(exc=exc), unittest.mock.patch.object(hook, 'create', boom):
                code, out, err = main_of(['createRuntime'], '{"id": "ct1"}')
                self.assertEqual((code, out), (1, ''))
                self.assertEqual(err, 'Error: bpf-token hook: internal error: '
                                 f'{type(exc).__name__}: no such\n')

    def test_stages(self):
        seen = []
        with unittest.mock.patch.object(hook, 'create', lambda s: seen.append('create')), \
                unittest.mock.patch.object(hook, 'poststop', lambda s: seen.append('poststop')):
            for argv, status in ((['prestart'], None), (['createRuntime'], None),
                                 (['poststop'], None), ([], 'creating'), ([], 'created'),
                                 ([], 'stopped')):
                state = {'id': 'ct1'} if status is None else {'id': 'ct1', 'status': status}
                self.assertEqual(main_of(argv, json.dumps(state)), (0, '', ''))
        self.assertEqual(seen, ['create', 'create', 'poststop', 'create', 'create', 'poststop'])
        code, _, err = main_of(['startContainer'], '{"id": "ct1"}')
        self.assertEqual((code, err), (1, 'Error: bpf-token hook: unknown stage startContainer '
                                       '(createRuntime, prestart or poststop)\n'))

    def test_signals_are_one_line(self):
        """the hook, stopped by a signal (a runtime's timeout): one line,
        no traceback"""
        for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
            with self.subTest(sig=sig):
                p = subprocess.Popen([sys.executable, HOOK_PATH, 'createRuntime'],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE, text=True)
                # once it catches the three (python3 itself catches SIGINT
                # from its start), it waits for the state on its stdin
                mask = sum(1 << (s - 1) for s in hook.STOP_SIGNALS)
                for _ in range(500):
                    if caught(p.pid) & mask == mask:
                        break
                    time.sleep(0.01)
                p.send_signal(sig)
                out, err = p.communicate(timeout=10)
                self.assertEqual((p.returncode, out), (1, ''))
                self.assertEqual(err, f'Error: bpf-token hook: stopped by {sig.name}\n')


if __name__ == '__main__':
    unittest.main()
