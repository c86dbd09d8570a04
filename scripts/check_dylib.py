#!/usr/bin/env python3
"""check_dylib.py — check a cross-compiled libhotpath.dylib without a Mac: `file` calls it a Mach-O
dylib of the expected architecture, it has an initializer (the constructor that starts the
profiler), its __DATA,__interpose section pairs each expected hook with the libSystem function it
replaces (the replacement found in the symbol table, the original in
dyld's bind opcodes), and it defines and imports the expected symbols.

usage: check_dylib.py --arch x86_64|arm64 --hooks "malloc free ..." --defines "..." \
                      --imports "..." libhotpath.dylib
"""
import argparse
import struct
import subprocess
import sys

MH_MAGIC_64 = 0xFEEDFACF
MH_DYLIB = 6
CPU = {"x86_64": 0x01000007, "arm64": 0x0100000C}
LC_SEGMENT_64, LC_SYMTAB = 0x19, 0x2
LC_DYLD_INFO, LC_DYLD_INFO_ONLY = 0x22, 0x80000022
N_TYPE, N_EXT, N_UNDF, N_SECT, N_STAB = 0x0E, 0x01, 0x0, 0xE, 0xE0


def leb128(data, i, signed=False):
    """The LEB128 number at data[i], and the index after it."""
    value, shift = 0, 0
    while True:
        b = data[i]
        i += 1
        value |= (b & 0x7F) << shift
        shift += 7
        if b < 0x80:
            if signed and b & 0x40:
                value -= 1 << shift
            return value, i


class MachO:
    def __init__(self, data):
        magic, self.cputype, _, self.filetype, ncmds = struct.unpack_from("<IiiII", data, 0)
        if magic != MH_MAGIC_64:
            raise ValueError("not a 64-bit Mach-O file")
        self.data = data
        self.segments = []          # (name, vmaddr, vmsize, [(sectname, addr, size, offset)])
        self.symbols = []           # (name, type, value)
        self.bind = b""
        off = 32
        for _ in range(ncmds):
            cmd, size = struct.unpack_from("<II", data, off)
            if cmd == LC_SEGMENT_64:
                name = data[off + 8:off + 24].rstrip(b"\0").decode()
                vmaddr, vmsize = struct.unpack_from("<QQ", data, off + 24)
                nsects = struct.unpack_from("<I", data, off + 64)[0]
                sections = []
                for k in range(nsects):
                    s = off + 72 + 80 * k
                    sect = data[s:s + 16].rstrip(b"\0").decode()
                    addr, ssize, soff = struct.unpack_from("<QQI", data, s + 32)
                    sections.append((sect, addr, ssize, soff))
                self.segments.append((name, vmaddr, vmsize, sections))
            elif cmd == LC_SYMTAB:
                symoff, nsyms, stroff, _ = struct.unpack_from("<IIII", data, off + 8)
                for k in range(nsyms):
                    strx, ntype, _, _, value = struct.unpack_from("<IBBHQ", data, symoff + 16 * k)
                    end = data.index(b"\0", stroff + strx)
                    self.symbols.append((data[stroff + strx:end].decode(), ntype, value))
            elif cmd in (LC_DYLD_INFO, LC_DYLD_INFO_ONLY):
                bind_off, bind_size = struct.unpack_from("<II", data, off + 16)
                self.bind = data[bind_off:bind_off + bind_size]
            off += size

    def section(self, segname, sectname):
        for name, _, _, sections in self.segments:
            if name != segname:
                continue
            for sect, addr, size, offset in sections:
                if sect == sectname:
                    return addr, size, offset
        return None

    def binds(self):
        """(address, symbol) of every non-lazy bind, from dyld's bind opcodes."""
        out, data, i = [], self.bind, 0
        seg, offset, symbol = 0, 0, ""
        ptr = 8

        def at():
            return self.segments[seg][1] + offset

        while i < len(data):
            op, imm = data[i] & 0xF0, data[i] & 0x0F
            i += 1
            if op == 0x00:                       # DONE
                continue
            if op in (0x10, 0x30, 0x50):         # dylib ordinal imm, special imm, type imm
                continue
            if op == 0x20:                       # dylib ordinal uleb
                _, i = leb128(data, i)
            elif op == 0x40:                     # symbol name, trailing flags
                end = data.index(b"\0", i)
                symbol = data[i:end].decode()
                i = end + 1
            elif op == 0x60:                     # addend sleb
                _, i = leb128(data, i, signed=True)
            elif op == 0x70:                     # segment and offset
                seg = imm
                offset, i = leb128(data, i)
            elif op == 0x80:                     # add address uleb
                delta, i = leb128(data, i)
                offset = (offset + delta) & 0xFFFFFFFFFFFFFFFF
            elif op == 0x90:                     # do bind
                out.append((at(), symbol))
                offset += ptr
            elif op == 0xA0:                     # do bind, add address uleb
                out.append((at(), symbol))
                delta, i = leb128(data, i)
                offset = (offset + ptr + delta) & 0xFFFFFFFFFFFFFFFF
            elif op == 0xB0:                     # do bind, add address imm scaled
                out.append((at(), symbol))
                offset += ptr + imm * ptr
            elif op == 0xC0:                     # do bind uleb times, skipping uleb
                count, i = leb128(data, i)
                skip, i = leb128(data, i)
                for _ in range(count):
                    out.append((at(), symbol))
                    offset += ptr + skip
            else:
                raise ValueError("unknown bind opcode 0x%02x" % op)
        return out


def fail(msg):
    print("check_dylib: " + msg, file=sys.stderr)
    sys.exit(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--arch", required=True, choices=sorted(CPU))
    ap.add_argument("--hooks", default="")
    ap.add_argument("--defines", default="")
    ap.add_argument("--imports", default="")
    ap.add_argument("dylib")
    a = ap.parse_args()

    kind = subprocess.run(["file", "-b", a.dylib], capture_output=True, text=True, check=True).stdout
    if "Mach-O 64-bit" not in kind or a.arch not in kind or "dynamically linked shared library" not in kind:
        fail("%s: `file` says %r, not a Mach-O 64-bit %s dylib" % (a.dylib, kind.strip(), a.arch))

    m = MachO(open(a.dylib, "rb").read())
    if m.filetype != MH_DYLIB or m.cputype != CPU[a.arch]:
        fail("%s: Mach-O header: filetype %d, cputype 0x%x" % (a.dylib, m.filetype, m.cputype))

    if not (m.section("__DATA_CONST", "__mod_init_func") or m.section("__DATA", "__mod_init_func")):
        fail("%s: no initializer (__mod_init_func): the profiler would never start" % a.dylib)
    sect = m.section("__DATA", "__interpose")
    if not sect:
        fail("%s: no __DATA,__interpose section" % a.dylib)
    addr, size, offset = sect
    by_addr = {value: name for name, ntype, value in m.symbols
               if not ntype & N_STAB and ntype & N_TYPE == N_SECT}
    originals = {at: sym for at, sym in m.binds() if addr <= at < addr + size}
    pairs = {}
    for k in range(size // 16):
        replacement = struct.unpack_from("<Q", m.data, offset + 16 * k)[0]
        original = originals.get(addr + 16 * k + 8)
        if original is None or replacement not in by_addr:
            fail("%s: __interpose entry %d is not a (defined function, imported symbol) pair" % (a.dylib, k))
        pairs[original.lstrip("_")] = by_addr[replacement].lstrip("_")
    missing = [h for h in a.hooks.split() if h not in pairs]
    if missing:
        fail("%s: __interpose lacks %s (has %s)" % (a.dylib, ", ".join(missing), ", ".join(sorted(pairs))))

    defined = {n.lstrip("_") for n, t, _ in m.symbols if not t & N_STAB and t & N_TYPE == N_SECT}
    imported = {n.lstrip("_") for n, t, _ in m.symbols if not t & N_STAB and t & N_TYPE == N_UNDF and t & N_EXT}
    for names, have, what in ((a.defines, defined, "defines"), (a.imports, imported, "imports")):
        absent = [n for n in names.split() if n not in have]
        if absent:
            fail("%s: %s no %s" % (a.dylib, what, ", ".join(absent)))
    print("check_dylib: %s: Mach-O %s dylib, %d interposed (%s)" % (
        a.dylib, a.arch, len(pairs), " ".join("%s->%s" % (o, r) for o, r in sorted(pairs.items()))))


if __name__ == "__main__":
    main()
