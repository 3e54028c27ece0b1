#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Unit tests of tests/host/docs_check.py, the checks of docs.bats that
compare what bpftool's token code prints with what the documentation says:
each on a small made-up bpftool source tree, guide and man page, with an
input that passes and one that the check must catch (a message the guide
lacks, a quoted message no code prints, an example key the code does not
print or a key it prints that no example shows), and the command line
(output, exit status, usage). Run by tests/host/docs.bats.

  python3 tests/host/docs_check_test.py [-v] [TestClass[.test]]
"""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
SCRIPT = os.path.join(HERE, 'docs_check.py')
sys.dont_write_bytecode = True		# no __pycache__ in the tree
sys.path.insert(0, HERE)
import docs_check  # noqa: E402

HINT = " (see 'bpftool token help')"

# A bpftool overlay in small: messages in a .c file, one spread over two
# literals, one with the hint macro, one of token_names.c's kind; text that
# is not a message (printf); and a registration patch whose added line has a
# message and whose removed and context lines have none that counts.
TOKEN_C = r'''#define TOKEN_HELP_HINT " (see 'bpftool token help')"

static const char *const use_names[] = {
	[TOKEN_USE_MAP_CREATE]	= "map_create",
	[TOKEN_USE_PROG_LOAD]	= "prog_load",
};

static int do_open(const char *path)
{
	p_err("can't open token %s: %s", path, strerror(errno));
	p_err("missing OBJ: 'token needs' takes object files" TOKEN_HELP_HINT);
	p_err("object %s is not a BPF object file (ELF machine %u, "
	      "not BPF)", path, machine);
	p_err("a \"quoted\" word");
	printf("not a message: %s\n", path);
	return -1;
}

static void print_cgroup_json(int fd)
{
	jsonw_string_field(json_wtr, "cgroup", path);
}

static void print_token_json(struct bpf_token_info *info)
{
	jsonw_uint_field(json_wtr, "id", info->id);
	jsonw_bool_field(json_wtr, "revoked", revoked);
	jsonw_name(json_wtr, "uses");
	print_cgroup_json(fd);
}

static void add_desc_plain(struct token_str *text, struct bpf_token_info *info)
{
	add_u64_line(text, "id", info->id);
	token_str_add(text, "\trevoked\n");
	token_str_add(text, "\troot-equivalent\n");
}

static void print_other(void)
{
	printf("\tnot-a-show-key: %u\n", 1);
	jsonw_uint_field(json_wtr, "not_a_show_key", 1);
}
'''
TOKEN_NAMES_C = r'''static const struct set sets[] = {
	{ "cmds",	"allowed_cmds",	cmd_names },
	{ "maps",	"allowed_maps",	map_names },
};

int token_set_err(char *err, size_t err_sz, const char *name)
{
	snprintf(err, err ? err_sz : 0, "unknown name '%s'", name);
	return -1;
}
'''
MAIN_H = '''#define BAD_ARG()	({ p_err("what is '%s'?", *argv); -1; })
'''
PATCH = '''--- a/main.c
+++ b/main.c
@@ -1,3 +1,4 @@
 	p_err("a context line");
-	p_err("a removed line");
+	p_err("an added line: %d", n);
'''
FORMATS = [
    "can't open token %s: %s",
    "missing OBJ: 'token needs' takes object files" + HINT,
    'object %s is not a BPF object file (ELF machine %u, not BPF)',
    'a "quoted" word',
    "unknown name '%s'",
    "what is '%s'?",
    'an added line: %d',
]

GUIDE = '''Operator's guide
================

Setting up
==========

``can't open token PATH: a message outside the troubleshooting``
    Not quoted where it counts.

Troubleshooting
===============

``can't open token PATH: not a BPF FS``
    The path is not in a BPF FS.

``libbpf: failed to get token``
    libbpf's own, left out.

``missing OBJ: 'token needs' takes object files``
    Give it objects.

``object OBJ is not a BPF object file (ELF machine N, not BPF)``
    Not an object that clang made for BPF.

``a literal`` at the start of a paragraph line is no entry of its own, and
``neither is this one`` at its end. Their text is the guide's all the same,
as is this: a "quoted" word, or an added line: 3.

Usage errors of bpftool token (``token create``, ``prog load``, the hint
``(see 'bpftool token help')``, ``word``) say so in one line, e.g. ``unknown
name 'foo'`` or ``what is 'x'?``.

The unknown names are those of ``bpftool token help``.

Next
====

``can't open token PATH: in the next section``
    Not quoted where it counts.
'''
MAN = '''bpftool-token
=============

EXAMPLES
========
**# bpftool token show /sys/fs/bpf/app**

::

  /sys/fs/bpf/app
\tid: 3
\tallowed_cmds: map_create prog_load
\tallowed_maps: array
\trevoked
\troot-equivalent

**# bpftool -p token list**

::

  [{
          "id": 3,
          "allowed_cmds": ["map_create"
          ],
          "allowed_maps": ["array"
          ],
          "uses": {
              "map_create": 0,
              "prog_load": 0
          },
          "revoked": false,
          "cgroup": null
      }
  ]

**$ bpftool token needs xdp_prog.o**

::

  xdp_prog.o
\tallowed_maps: array
\tkernel memory: program 'p' calls bpf_get_current_task()

**$ bpftool token show /sys/fs/bpf/nowhere**

::

  Error: can't open token /sys/fs/bpf/nowhere: not a BPF FS
'''
# what the code above prints, as show-keys says it
CODE_KEYS = [('plain', 'allowed_cmds'), ('plain', 'allowed_maps'), ('plain', 'id'),
             ('plain', 'revoked'), ('plain', 'root-equivalent'),
             ('json', 'allowed_cmds'), ('json', 'allowed_maps'), ('json', 'cgroup'),
             ('json', 'id'), ('json', 'map_create'), ('json', 'prog_load'),
             ('json', 'revoked'), ('json', 'uses')]


class Tree(unittest.TestCase):
    """a temporary directory with the made-up bpftool tree, guide and man
    page in it"""

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix='docs-check-test.')
        self.bpftool = os.path.join(self.tmp, 'bpftool')
        os.makedirs(os.path.join(self.bpftool, 'patches'))
        self.write('bpftool/token.c', TOKEN_C)
        self.write('bpftool/token_names.c', TOKEN_NAMES_C)
        self.write('bpftool/patches/0001-register.patch', PATCH)
        self.main_h = self.write('main.h', MAIN_H)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def write(self, name, text):
        path = os.path.join(self.tmp, name)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)
        return path

    def cli(self, *args):
        """docs_check.py ARGS: (status, stdout, stderr)"""
        p = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True)
        return p.returncode, p.stdout, p.stderr


class Messages(Tree):
    def test_formats(self):
        # the .c files in order, the headers given, the patches' added lines
        self.assertEqual(docs_check.messages(self.bpftool, [self.main_h]), FORMATS)

    def test_without_the_header(self):
        got = docs_check.messages(self.bpftool)
        self.assertNotIn("what is '%s'?", got)
        self.assertEqual(len(got), len(FORMATS) - 1)

    def test_not_messages(self):
        got = docs_check.messages(self.bpftool, [self.main_h])
        for text in ('a removed line', 'a context line', 'not a message: %s\\n'):
            self.assertNotIn(text, got)

    def test_hint_defined_in_a_patch(self):
        # a #define that only a patch adds is expanded too
        self.write('bpftool/token.c', 'p_err("no objects" MORE_HINT);\n')
        self.write('bpftool/patches/0002-hint.patch',
                   '+#define MORE_HINT " (more)"\n+int x;\n')
        self.assertIn('no objects (more)', docs_check.messages(self.bpftool))

    def test_cli(self):
        status, out, err = self.cli('messages', self.bpftool, self.main_h)
        self.assertEqual((status, err), (0, ''))
        self.assertEqual(out, ''.join(f + '\n' for f in FORMATS))


class Troubleshooting(Tree):
    def test_every_message_named(self):
        # the words between the conversions, across line breaks and
        # indentation; the hint left out; parts shorter than 6 characters
        # ("bad %s" -> "bad") and the invalid sets not looked for
        self.assertNotIn('bad', GUIDE)
        self.assertEqual(docs_check.troubleshooting(
            GUIDE, FORMATS + ['invalid token set %s', 'bad %s', '']), [])

    def test_a_message_missing(self):
        guide = GUIDE.replace("``missing OBJ: 'token needs' takes object files``", '``x``')
        self.assertEqual(docs_check.troubleshooting(guide, FORMATS),
                         ["missing OBJ: 'token needs' takes object files"])

    def test_a_part_missing(self):
        # one fixed part of a format, the others present
        self.assertEqual(docs_check.troubleshooting(GUIDE, ["can't open token %s: not granted"]),
                         [': not granted'])

    def test_the_hint_is_not_a_message(self):
        guide = GUIDE.replace("(see 'bpftool token help')", '')
        self.assertEqual(docs_check.troubleshooting(guide, FORMATS), [])

    def test_cli(self):
        guide = self.write('guide.rst', GUIDE)
        fmts = self.write('fmts', '\n'.join(FORMATS) + '\n')
        self.assertEqual(self.cli('troubleshooting', guide, fmts), (0, '', ''))
        self.write('fmts', 'no such message anywhere\n')
        self.assertEqual(self.cli('troubleshooting', guide, fmts),
                         (1, "not in the guide: 'no such message anywhere'\n", ''))


class DocMessages(Tree):
    QUOTED = [
        "can't open token PATH: not a BPF FS",
        "missing OBJ: 'token needs' takes object files",
        'object OBJ is not a BPF object file (ELF machine N, not BPF)',
        "unknown name 'foo'",
        "what is 'x'?",
        "can't open token /sys/fs/bpf/nowhere: not a BPF FS",
    ]

    def test_quoted(self):
        # the troubleshooting's entries and usage errors (not the
        # paragraphs' literals, not libbpf's, not commands, words or the
        # hint), not the other sections; the man page's Error: lines
        self.assertEqual(docs_check.doc_messages(GUIDE, MAN), self.QUOTED)

    def test_no_troubleshooting(self):
        with self.assertRaises(ValueError):
            docs_check.doc_messages(GUIDE.replace('Troubleshooting', 'Trouble'), MAN)

    def test_no_usage_errors(self):
        with self.assertRaises(ValueError):
            docs_check.doc_messages(GUIDE.replace('Usage errors of', 'Errors of'), MAN)

    def test_cli(self):
        guide, man = self.write('guide.rst', GUIDE), self.write('man.rst', MAN)
        self.assertEqual(self.cli('doc-messages', guide, man),
                         (0, ''.join(q + '\n' for q in self.QUOTED), ''))


class UnknownMessages(Tree):
    def test_known(self):
        # placeholders for conversions, the hint or not
        quoted = DocMessages.QUOTED + [
            "missing OBJ: 'token needs' takes object files" + HINT,
            'a "quoted" word',
            '',
        ]
        self.assertEqual(docs_check.unknown_messages(FORMATS + [''], quoted), [])

    def test_unknown(self):
        quoted = [
            # the format has a number there: one word
            'object OBJ is not a BPF object file (ELF machine two words, not BPF)',
            # no such format
            "can't read object OBJ: ...",
            # a format that is all conversions matches nothing
            'anything at all',
            # a part of a message is not the message
            "can't open token PATH",
            "can't open token PATH: not a BPF FS",
        ]
        self.assertEqual(docs_check.unknown_messages(FORMATS + ['%s', '%s: %d'], quoted),
                         quoted[:-1])

    def test_cli(self):
        fmts = self.write('fmts', '\n'.join(FORMATS) + '\n')
        quoted = self.write('quoted', "can't open token PATH: denied\nno such message\n")
        self.assertEqual(self.cli('unknown-messages', fmts, quoted), (0, 'no such message\n', ''))


class Keys(Tree):
    def test_show_keys(self):
        self.assertEqual(docs_check.show_keys(self.bpftool), CODE_KEYS)

    def test_example_keys(self):
        # the show and list examples, not the needs example
        self.assertEqual(sorted(docs_check.example_keys(MAN)), sorted(CODE_KEYS))

    def test_an_example_key_the_code_does_not_print(self):
        man = MAN.replace('"cgroup": null', '"cgroup": null,\n          "owner": 0')
        self.assertEqual(set(docs_check.example_keys(man)) - set(CODE_KEYS), {('json', 'owner')})

    def test_a_key_no_example_shows(self):
        man = MAN.replace('\troot-equivalent\n', '')
        self.assertEqual(set(CODE_KEYS) - set(docs_check.example_keys(man)),
                         {('plain', 'root-equivalent')})

    def test_a_key_the_code_adds(self):
        self.write('bpftool/token.c', TOKEN_C.replace(
            '"revoked", revoked);',
            '"revoked", revoked);\n\tjsonw_bool_field(json_wtr, "relaxed", r);'))
        code = set(docs_check.show_keys(self.bpftool))
        self.assertEqual(code - set(docs_check.example_keys(MAN)), {('json', 'relaxed')})

    def test_create_json_counts(self):
        man = MAN + '''
**# bpftool -j token create /sys/fs/bpf/t cmds map_create**

::

  {"pinned":"/sys/fs/bpf/t","id":5}
'''
        self.assertEqual(set(docs_check.example_keys(man)) - set(CODE_KEYS),
                         {('json', 'pinned')})

    def test_cli(self):
        man = self.write('man.rst', MAN)
        status, out, err = self.cli('show-keys', self.bpftool)
        self.assertEqual((status, err), (0, ''))
        self.assertEqual(out, ''.join(f'{k} {v}\n' for k, v in CODE_KEYS))
        status, out, err = self.cli('example-keys', man)
        self.assertEqual((status, err), (0, ''))
        self.assertEqual(sorted(out.splitlines()), sorted(f'{k} {v}' for k, v in CODE_KEYS))


class Usage(unittest.TestCase):
    def test_bad_usage(self):
        for args in ([], ['nope'], ['messages'], ['troubleshooting', 'a'],
                     ['show-keys', 'a', 'b'], ['example-keys']):
            with self.subTest(args=args):
                p = subprocess.run([sys.executable, SCRIPT, *args], capture_output=True,
                                   text=True)
                self.assertEqual((p.returncode, p.stdout), (2, ''))
                self.assertRegex(p.stderr, r'\Ausage: docs_check\.py messages\|[^\n]*\n\Z')


if __name__ == '__main__':
    unittest.main()
