#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The regression inputs of tests/fuzz/corpus/token_needs/: each of the
defects that made bpftool's parse of BPF objects crash, hang or blow its
memory up (before bpftool/token_object.c checked objects), alone in an
otherwise valid object of the corpus.

    token_needs_regress.py CORPUS_DIR

reads CORPUS_DIR/obj-xdp_token, obj-seed-kmem and obj-seed-ops and writes
CORPUS_DIR/regress-*. Each regress-* must be refused with one error (the
fuzzer's and bpftool's tests), or for regress-rel-empty, parsed.
obj-seed-* are tests/fuzz/token_needs_seeds/*.bpf.c compiled with clang
-target bpf -O2 -g and stripped of DWARF (llvm-strip -g).
"""
import os
import struct
import sys

# BTF kinds, and the size of what follows struct btf_type for each
INT, ARRAY, STRUCT, UNION, ENUM, TYPEDEF = 1, 3, 4, 5, 6, 8
FUNC_PROTO, VAR, DATASEC, DECL_TAG, ENUM64 = 13, 14, 15, 17, 19


def extra(kind, vlen):
    return {INT: 4, ARRAY: 12, STRUCT: 12 * vlen, UNION: 12 * vlen,
            ENUM: 8 * vlen, FUNC_PROTO: 8 * vlen, VAR: 4, DATASEC: 12 * vlen,
            DECL_TAG: 4, ENUM64: 12 * vlen}.get(kind, 0)


class Obj:
    """An ELF64 little-endian relocatable object, patched in place."""
    SHDR = '<IIQQQQIIQQ'
    FIELDS = ('name', 'type', 'flags', 'addr', 'off', 'size', 'link', 'info',
              'align', 'entsize')

    def __init__(self, path):
        self.b = bytearray(open(path, 'rb').read())
        self.shoff, = struct.unpack_from('<Q', self.b, 0x28)
        shnum, shstrndx = struct.unpack_from('<HH', self.b, 0x3c)
        self.secs = []
        for i in range(shnum):
            vals = struct.unpack_from(self.SHDR, self.b, self.shoff + 64 * i)
            self.secs.append(dict(zip(self.FIELDS, vals), idx=i))
        names = self.secs[shstrndx]['off']
        for s in self.secs:
            s['sname'] = self.cstr(names + s['name'])

    def cstr(self, off):
        return self.b[off:self.b.index(b'\0', off)].decode()

    def sec(self, name):
        return next(s for s in self.secs if s['sname'] == name)

    def set_shdr(self, sec, field, val):
        vals = [sec[f] for f in self.FIELDS]
        vals[self.FIELDS.index(field)] = val
        struct.pack_into(self.SHDR, self.b, self.shoff + 64 * sec['idx'], *vals)

    def u32(self, off, val):
        struct.pack_into('<I', self.b, off, val)

    def btf(self):
        """[None, type...]: each type's offset in the file, kind, name"""
        base = self.sec('.BTF')['off']
        _, _, _, hdr_len, toff, tlen, soff, slen = \
            struct.unpack_from('<HBBIIIII', self.b, base)
        start, strs = base + hdr_len + toff, base + hdr_len + soff
        self.btf_str_len = slen
        types, p = [None], start
        while p < start + tlen:
            name_off, info, _ = struct.unpack_from('<III', self.b, p)
            kind, vlen = (info >> 24) & 0x1f, info & 0xffff
            types.append(dict(off=p, kind=kind, name=self.cstr(strs + name_off)))
            p += 12 + extra(kind, vlen)
        return types

    def btf_find(self, kind, name):
        types = self.btf()
        return next(i for i, t in enumerate(types)
                    if t and t['kind'] == kind and t['name'] == name), types

    def symbols(self):
        """{name: file offset of the symbol}"""
        sym = self.sec('.symtab')
        strs = self.secs[sym['link']]['off']
        out = {}
        for i in range(sym['size'] // 24):
            p = sym['off'] + 24 * i
            out[self.cstr(strs + struct.unpack_from('<I', self.b, p)[0])] = p
        return out

    def write(self, path):
        with open(path, 'wb') as f:
            f.write(self.b)


def main(corpus):
    def base(name):
        return Obj(os.path.join(corpus, name))

    def out(o, name):
        o.write(os.path.join(corpus, 'regress-' + name))

    # A map definition's member refers to a type id beyond the last type:
    # libbpf's skip_mods_and_typedefs() dereferenced NULL (SIGSEGV).
    o = base('obj-xdp_token')
    i, types = o.btf_find(VAR, 'token_stats')
    struct_id = struct.unpack_from('<I', o.b, types[i]['off'] + 8)[0]
    o.u32(types[struct_id]['off'] + 12 + 4, 0x7ffffff0)
    out(o, 'btf-type-id')

    # A typedef of itself, the type of a map: libbpf's
    # skip_mods_and_typedefs() loops forever (hang).
    o = base('obj-xdp_token')
    td, types = o.btf_find(TYPEDEF, '__u32')
    o.u32(types[td]['off'] + 8, td)
    i, _ = o.btf_find(VAR, 'token_stats')
    o.u32(types[i]['off'] + 8, td)
    out(o, 'btf-loop')

    # .BTF and .BTF.ext without data: libbpf memcpy()s from NULL.
    for sec in ('.BTF', '.BTF.ext'):
        o = base('obj-xdp_token')
        o.set_shdr(o.sec(sec), 'size', 0)
        out(o, sec[1:].lower().replace('.', '-') + '-empty')

    # A .BTF.ext header of 34 bytes: libbpf reads its records misaligned.
    o = base('obj-xdp_token')
    p = o.sec('.BTF.ext')['off'] + 4
    o.u32(p, struct.unpack_from('<I', o.b, p)[0] + 2)
    out(o, 'btf-ext-unaligned')

    # The section header table at an offset that is not a multiple of 8:
    # libbpf reads the headers in place, misaligned.
    o = base('obj-xdp_token')
    o.b[o.shoff:o.shoff] = b'\0' * 4
    struct.pack_into('<Q', o.b, 0x28, o.shoff + 4)
    out(o, 'shdr-unaligned')

    # A relocation section of code without data: token_kmem.c's code_read()
    # gave qsort() NULL. libbpf parses the object.
    o = base('obj-xdp_token')
    o.set_shdr(o.sec('.relxdp'), 'size', 0)
    out(o, 'rel-empty')

    # Two functions over the same code: libbpf copies the code of each
    # (an object of 1 MB with 20000 made libbpf take 12 GB).
    o = base('obj-xdp_token')
    syms = o.symbols()
    prog = struct.unpack_from('<IBBHQQ', o.b, syms['xdp_token_prog'])
    struct.pack_into('<BBHQQ', o.b, syms['LICENSE'] + 4, 0x12, 0, prog[3],
                     0, prog[5])
    out(o, 'overlap')

    # A program's name with a newline: bpftool's messages and output are one
    # line each (the fuzzer's property).
    o = base('obj-xdp_token')
    strs = o.secs[o.sec('.symtab')['link']]['off']
    name = struct.unpack_from('<I', o.b, o.symbols()['xdp_token_prog'])[0]
    o.b[strs + name + 3] = ord('\n')
    out(o, 'name-newline')

    # An extern's BTF name beyond the BTF strings: libbpf's
    # find_extern_btf_id() gave strcmp() NULL.
    o = base('obj-seed-kmem')
    i, types = o.btf_find(VAR, 'LINUX_KERNEL_VERSION')
    o.u32(types[i]['off'], o.btf_str_len + 1000)
    out(o, 'btf-name')

    # A kconfig extern of 2 GiB: libbpf returned -2^31 from
    # bpf_object__open(), outside of its error range: bpftool dereferenced
    # the "object" (exit 139).
    o = base('obj-seed-kmem')
    i, types = o.btf_find(VAR, 'CONFIG_HZ')
    t = struct.unpack_from('<I', o.b, types[i]['off'] + 8)[0]
    while types[t]['kind'] != INT:
        t = struct.unpack_from('<I', o.b, types[t]['off'] + 8)[0]
    o.u32(types[t]['off'] + 8, 0x80000000)
    out(o, 'kcfg-size')

    # A struct_ops variable at offset 8 whose struct is 4 GiB - 4 bytes:
    # libbpf's bound check wraps in 32 bits and memcpy()s beyond the section.
    o = base('obj-seed-ops')
    i, types = o.btf_find(STRUCT, 'tcp_congestion_ops')
    o.u32(types[i]['off'] + 8, 0xfffffffc)
    struct.pack_into('<QQ', o.b, o.symbols()['seed_ops'] + 8, 8, 16)
    out(o, 'struct-ops-size')

    # The symbol of a struct_ops variable in no section (SHN_ABS), at
    # 4 GiB - 24 bytes: libbpf takes 32 bits of it for the variable's
    # offset, and its bound check wraps.
    o = base('obj-seed-ops')
    struct.pack_into('<HQ', o.b, o.symbols()['seed_ops'] + 6, 0xfff1,
                     0xffffffe8)
    out(o, 'struct-ops-offset')


if __name__ == '__main__':
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
