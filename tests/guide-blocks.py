#!/usr/bin/env python3
"""guide-blocks.py GUIDE OUTDIR: write the marked literal blocks of GUIDE.

A marked block is a reST comment `.. example: NAME` or `.. run: NAME`
followed by a literal block (a paragraph ending in `::` and the indented
block after it). Each block is written, dedented, to OUTDIR/example/NAME or
OUTDIR/run/NAME. Prints one "KIND NAME" line per block. A marker without a
literal block, or a name used twice, is an error.
"""
import os
import re
import sys


def blocks(lines):
    marker = re.compile(r'^\.\. (example|run): (\S+)\s*$')
    i = 0
    while i < len(lines):
        m = marker.match(lines[i])
        i += 1
        if not m:
            continue
        kind, name = m.groups()
        while i < len(lines) and not lines[i].strip():
            i += 1
        if i >= len(lines) or not lines[i].rstrip().endswith('::'):
            raise SystemExit(f'{kind} {name}: no literal block after the marker')
        i += 1
        body = []
        indent = None
        while i < len(lines):
            line = lines[i]
            if line.strip():
                width = len(line) - len(line.lstrip(' '))
                if indent is None:
                    indent = width
                if width < indent or indent == 0:
                    break
            body.append(line)
            i += 1
        while body and not body[-1].strip():
            body.pop()
        while body and not body[0].strip():
            body.pop(0)
        if not body:
            raise SystemExit(f'{kind} {name}: empty literal block')
        text = ''.join(l[indent:] if l.strip() else '\n' for l in body)
        yield kind, name, text


def main():
    guide, out = sys.argv[1], sys.argv[2]
    with open(guide) as f:
        lines = f.readlines()
    seen = set()
    for kind, name, text in blocks(lines):
        if (kind, name) in seen:
            raise SystemExit(f'{kind} {name}: used twice')
        seen.add((kind, name))
        os.makedirs(os.path.join(out, kind), exist_ok=True)
        with open(os.path.join(out, kind, name), 'w') as f:
            f.write(text)
        print(kind, name)


main()
