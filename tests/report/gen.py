#!/usr/bin/env python3
"""Turn a test scenario into a /dev/ustack stream (text or binary).

A scenario is the text record format, except that user frame lines say
    user @NAME:FUNC+0xDELTA METHOD      (NAME from --obj)
    user @NAME:FUNC+end METHOD          (the byte after FUNC, from nm -S)
    user [vdso]+0x123 METHOD            (kept as is)
and are expanded to `user 0x<ip> <method> <path>+0x<file offset>`, the file
offset computed from nm and the PT_LOAD program headers (readelf -lW).

  gen.py --obj prog=RECORDED[=REAL] ... [--binary] [--kallsyms OUT] < scenario
"""
import argparse
import re
import struct
import subprocess
import sys

METHODS = {"regs": 0, "sframe": 1, "fp": 2, "signal": 3, "entry": 4}
ENDS = {"outermost": 0, "fault": 1, "depth": 2, "no-info": 3,
        "bad-frame": 4, "exit": 5, "exec": 6, "nomem": 7, "kthread": 8,
        "budget": 9}
EVENTS = {"cpu-clock": 1, "offcpu": 3, "self": 4, "cycles": 5}
SYSCALLS = {"read": 0, "write": 1, "openat": 257, "nanosleep": 35}


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
    return "    user 0x%x %s %s+0x%x" % (o.base + vaddr, m.group(4), o.recorded,
                                       o.offset(vaddr))


def kv(words):
    d = {}
    for w in words:
        if "=" in w:
            k, v = w.split("=", 1)
            d[k] = v
    return d


def binary(lines, kallsyms):
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
            comm = comm.encode()[:15]
            ev = d["event"]
            nr = -1
            if ev.startswith("syscall:"):
                code, nr = 2, SYSCALLS[ev.split(":", 1)[1]]
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
            size = 64 + 8 * len(ks)
            out += struct.pack("<HHIQQIIIHHiI16s", 1, 0, size,
                               int(d["cookie"], 16), int(d["time"]),
                               int(d["pid"]), int(d["tid"]), int(d["cpu"]),
                               code, len(ks), nr, 0, comm)
            for a in ks:
                out += struct.pack("<Q", a)
        elif kind == "user":
            d = kv(line.split())
            strtab = bytearray()
            offs = {}
            fr = bytearray()
            n = 0
            for f in frames:
                if f[0] != "user":
                    continue
                obj, off = f[3].rsplit("+", 1)
                if obj not in offs:
                    offs[obj] = len(strtab)
                    strtab += obj.encode() + b"\0"
                fr += struct.pack("<QQIB3x", int(f[1], 16), int(off, 16),
                                  offs[obj], METHODS[f[2]])
                n += 1
            body = struct.pack("<QIIHHI", int(d["cookie"], 16), int(d["pid"]),
                               int(d["tid"]), n, ENDS[d["end"]], len(strtab))
            rec = body + fr + strtab
            pad = (-(8 + len(rec))) % 8
            out += struct.pack("<HHI", 2, 0, 8 + len(rec) + pad) + rec + b"\0" * pad
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
    ap.add_argument("--kallsyms")
    a = ap.parse_args()
    objs = {}
    for i, spec in enumerate(a.obj):
        name, rest = spec.split("=", 1)
        recorded, _, real = rest.partition("=")
        objs[name] = Obj(recorded, real or recorded, 0x555555554000 + i * 0x10000000)
    lines = [expand(l.rstrip("\n"), objs) for l in sys.stdin]
    if a.binary:
        ksyms = {}
        sys.stdout.buffer.write(binary(lines, ksyms))
        if a.kallsyms:
            with open(a.kallsyms, "w") as f:
                for addr in sorted(ksyms):
                    f.write("%016x T %s\n" % (addr, ksyms[addr]))
    else:
        sys.stdout.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
