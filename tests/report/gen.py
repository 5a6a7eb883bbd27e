#!/usr/bin/env python3
"""Turn a test scenario into a /dev/ustack stream (text or binary).

A scenario is the text record format, except that user frame lines say
    user @NAME:FUNC+0xDELTA METHOD      (NAME from --obj)
    user @NAME:FUNC+end METHOD          (the byte after FUNC, from nm -S)
    user [vdso]+0x123 METHOD            (kept as is)
and are expanded to `user 0x<ip> <method> <path>+0x<file offset>`, the file
offset computed from nm and the PT_LOAD program headers (readelf -lW).

comm= values and object paths are written as the kernel writes them: every
byte below 0x21, 0x7f and backslash as a backslash and three octal digits
("\\012", "\\040", "\\134"); a scenario's comm= may use that escape for any
byte.  Binary records carry the raw bytes.  --raw-names writes text as
kernels before the escape did (raw bytes, spaces and all).  RECORDED may
hold any bytes (it is written escaped too).

  gen.py --obj prog=RECORDED[=REAL] ... [--base prog=0xADDR] [--binary | --packed]
         [--kallsyms OUT] [--raw-names] < scenario

--base sets where an object is loaded (its ELF addresses' bias), as in a
live process; the default is made up.  A tp:* or kprobe:* event's binary
record carries its name after its frames.
"""
import argparse
import os
import re
import struct
import subprocess
import sys

# Text is handled as latin-1 str: one character per byte, any byte.
RAW_NAMES = False


def unescape(v):
    return re.sub(r"\\([0-3][0-7][0-7])", lambda m: chr(int(m.group(1), 8)), v)


def kescape(v):
    if RAW_NAMES:
        return v
    return "".join("\\%03o" % ord(c) if ord(c) < 0x21 or ord(c) == 0x7f or c == "\\"
                   else c for c in v)


def fix_comm(line):
    """A sample line with its comm= value as the kernel writes it."""
    m = re.search(r"comm=(.*?)(?= [a-z_]+=|$)", line)
    if not m or not line.startswith("sample"):
        return line
    return line[:m.start(1)] + kescape(unescape(m.group(1))) + line[m.end(1):]


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts"))
import ustack_names  # noqa: E402  (the one parser of include/ustack_names.h)

VOCAB = ustack_names.vocabulary()
METHODS, ENDS, EVENTS = VOCAB["method"], VOCAB["end"], VOCAB["event"]
SYSCALLS = ustack_names.syscalls()


class Obj:
    def __init__(self, recorded, real, base):
        self.recorded = recorded
        self.base = base
        self.syms = {}
        out = subprocess.run(["nm", "-S", "--defined-only", real],
                             capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if len(f) == 4 and f[2] in "tTwW":
                self.syms[f[3]] = (int(f[0], 16), int(f[1], 16))
        self.loads = []
        out = subprocess.run(["readelf", "-lW", real], capture_output=True,
                             text=True, check=True).stdout
        for line in out.splitlines():
            f = line.split()
            if f and f[0] == "LOAD":
                self.loads.append((int(f[1], 16), int(f[2], 16), int(f[4], 16)))

    def offset(self, vaddr):
        for off, va, filesz in self.loads:
            if va <= vaddr < va + filesz:
                return vaddr - va + off
        raise SystemExit("vaddr %#x not in a PT_LOAD" % vaddr)


def expand(line, objs):
    m = re.match(r"\s+user\s+@(\w+):([\w.]+)\+(0x[0-9a-f]+|end)\s+(\S+)\s*$", line)
    if not m:
        return line
    o = objs[m.group(1)]
    start, size = o.syms[m.group(2)]
    vaddr = start + (size if m.group(3) == "end" else int(m.group(3), 16))
    return "    user 0x%x %s %s+0x%x" % (o.base + vaddr, m.group(4),
                                       kescape(o.recorded), o.offset(vaddr))


def kv(words):
    d = {}
    for w in words:
        if "=" in w:
            k, v = w.split("=", 1)
            d[k] = v
    return d


def user_packed(d, frames):
    """A user record as USTACK_FORMAT_PACKED gives it: an object per
    (name, ip less offset), the frames' ips, indexes and methods."""
    strtab, names, objs = bytearray(), {}, []
    ips, index, methods = [], [], []
    for f in frames:
        if f[0] != "user":
            continue
        obj, off = " ".join(f[3:]).rsplit("+", 1)
        obj = unescape(obj)
        if obj not in names:
            names[obj] = len(strtab)
            strtab += obj.encode("latin-1") + b"\0"
        ip = int(f[1], 16)
        o = (names[obj], (ip - int(off, 16)) % (1 << 64))
        if o not in objs:
            objs.append(o)
        ips.append(ip)
        index.append(objs.index(o))
        methods.append(METHODS[f[2]])
    rec = struct.pack("<QIIHHHH", int(d["cookie"], 16), int(d["pid"]),
                      int(d["tid"]), len(ips), ENDS[d["end"]], len(objs),
                      len(strtab))
    rec += b"".join(struct.pack("<Q", a) for a in ips)
    rec += b"".join(struct.pack("<QI4x", b, n) for n, b in objs)
    rec += b"".join(struct.pack("<H", i) for i in index)
    rec += bytes(methods) + strtab
    pad = (-(8 + len(rec))) % 8
    return struct.pack("<HHI", 6, 0, 8 + len(rec) + pad) + rec + b"\0" * pad


def binary(lines, kallsyms, packed=False):
    out = bytearray()
    recs = []
    cur = None
    for line in lines:
        if not line.strip():
            continue
        if not line[0].isspace():
            w = line.split()
            cur = [w[0], line, []]
            recs.append(cur)
        elif cur is not None:
            cur[2].append(line.split())
    for kind, line, frames in recs:
        if kind == "sample":
            d = kv(line.split())
            comm = re.search(r"comm=(.*?)(?= [a-z_]+=|$)", line).group(1)
            comm = unescape(comm).encode("latin-1")[:15]
            ev = d["event"]
            nr = -1
            arg = b""
            if ev.startswith("syscall:"):
                code, nr = EVENTS["syscall"], SYSCALLS[ev.split(":", 1)[1]]
            elif ev.startswith("tp:") or ev.startswith("kprobe:"):
                kind_, name = ev.split(":", 1)
                code, arg = EVENTS[kind_], name.encode("latin-1") + b"\0"
            else:
                code = EVENTS[ev]
            ks = []
            for f in frames:
                if f[0] != "kernel":
                    continue
                addr = int(f[1], 16)
                ks.append(addr)
                if len(f) > 2:
                    name, off = f[2].rsplit("+", 1)
                    kallsyms[addr - int(off, 16)] = name
            arg += b"\0" * ((-len(arg)) % 8)
            size = 64 + 8 * len(ks) + len(arg)
            out += struct.pack("<HHIQQIIIHHiI16s", 1, 0, size,
                               int(d["cookie"], 16), int(d["time"]),
                               int(d["pid"]), int(d["tid"]), int(d["cpu"]),
                               code, len(ks), nr, 0, comm)
            for a in ks:
                out += struct.pack("<Q", a)
            out += arg
        elif kind == "user":
            d = kv(line.split())
            strtab = bytearray()
            offs = {}
            fr = bytearray()
            n = 0
            for f in frames:
                if f[0] != "user":
                    continue
                obj, off = " ".join(f[3:]).rsplit("+", 1)
                obj = unescape(obj)
                if obj not in offs:
                    offs[obj] = len(strtab)
                    strtab += obj.encode("latin-1") + b"\0"
                fr += struct.pack("<QQIB3x", int(f[1], 16), int(off, 16),
                                  offs[obj], METHODS[f[2]])
                n += 1
            if packed:
                out += user_packed(d, frames)
                continue
            body = struct.pack("<QIIHHI", int(d["cookie"], 16), int(d["pid"]),
                               int(d["tid"]), n, ENDS[d["end"]], len(strtab))
            rec = body + fr + strtab
            pad = (-(8 + len(rec))) % 8
            out += struct.pack("<HHI", 2, 0, 8 + len(rec) + pad) + rec + b"\0" * pad
        elif kind == "interp":
            d = kv(line.split())
            strtab = bytearray()
            fr = bytearray()
            n = 0
            for f in frames:
                if f[0] != "interp" or len(f) < 3:
                    continue
                func, place = f[1], f[2]
                file, _, ln = place.rpartition(":")
                fl = 1 if len(f) > 3 and f[3] == "entry" else 0
                offs = []
                for v in (func, file):
                    offs.append(len(strtab))
                    strtab += unescape(v).encode("latin-1") + b"\0"
                fr += struct.pack("<IIIHHI", offs[0], offs[1], int(ln or 0),
                                  fl, 0, 0xffffffff)
                n += 1
            body = struct.pack("<QIIHHI16s", int(d["cookie"], 16),
                               int(d["pid"]), int(d["tid"]), n, 0,
                               len(strtab), d["lang"].encode())
            rec = body + fr + strtab
            pad = (-(8 + len(rec))) % 8
            out += struct.pack("<HHI", 4, 0, 8 + len(rec) + pad) + rec + b"\0" * pad
        elif kind == "lost":
            d = kv(line.split())
            out += struct.pack("<HHIQQQ", 3, 0, 32, int(d.get("samples", 0)),
                               int(d.get("users", 0)), int(d.get("time", 0)))
        else:
            out += struct.pack("<HHIQ", 9, 0, 16, 0)    # unknown type
    return bytes(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--obj", action="append", default=[])
    ap.add_argument("--binary", action="store_true")
    ap.add_argument("--packed", action="store_true",
                    help="binary, user stacks packed (USTACK_FORMAT_PACKED)")
    ap.add_argument("--kallsyms")
    ap.add_argument("--raw-names", action="store_true")
    ap.add_argument("--base", action="append", default=[])
    a = ap.parse_args()
    global RAW_NAMES
    RAW_NAMES = a.raw_names
    objs = {}
    for i, spec in enumerate(a.obj):
        name, rest = os.fsencode(spec).decode("latin-1").split("=", 1)
        recorded, _, real = rest.partition("=")
        real = real or recorded
        objs[name] = Obj(recorded, os.fsdecode(real.encode("latin-1")),
                         0x555555554000 + i * 0x10000000)
    for spec in a.base:
        name, addr = spec.split("=", 1)
        objs[name].base = int(addr, 16)
    lines = [expand(fix_comm(l.rstrip("\n")), objs)
             for l in sys.stdin.buffer.read().decode("latin-1").splitlines()]
    if a.binary or a.packed:
        ksyms = {}
        sys.stdout.buffer.write(binary(lines, ksyms, a.packed))
        if a.kallsyms:
            with open(a.kallsyms, "w") as f:
                for addr in sorted(ksyms):
                    f.write("%016x T %s\n" % (addr, ksyms[addr]))
    else:
        sys.stdout.buffer.write(("\n".join(lines) + "\n").encode("latin-1"))


if __name__ == "__main__":
    main()
