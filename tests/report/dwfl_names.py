#!/usr/bin/env python3
"""Names of many addresses, as libdwfl chooses them and as ustack-report does.

  dwfl_names.py REPORT OBJ...

For each OBJ: addresses spread over its executable PT_LOADs (about
1500 per segment) and the first, last and next byte of its functions
(1000 of them, from nm), as interrupted IPs in a text stream, named by REPORT (--perf)
and by eu-addr2line -S (dwfl_module_addrinfo()).  Prints each mismatch,
"checked N mismatched M" and "seconds report S libdwfl S" (each side's
time for all the addresses, for the bench); exits 1 on any mismatch.
"""
import re
import subprocess
import sys
import time


def loads(obj):
    out = subprocess.run(["readelf", "-lW", obj], capture_output=True,
                         text=True, check=True).stdout
    for line in out.splitlines():
        f = line.split()
        if f and f[0] == "LOAD" and "E" in f[6:-1]:
            yield int(f[1], 16), int(f[2], 16), int(f[4], 16)


def dwfl_name(n):
    """eu-addr2line -S's spelling as perf's: "??" and "(SECTION)+0x..."
    are no symbol; "name" is "name+0x0"."""
    if n == "??" or n.startswith("("):
        return "[unknown]"
    return n if re.search(r"\+0x[0-9a-f]+$", n) else n + "+0x0"


def edges(obj):
    """First, last and next byte of (at most 1000 of) OBJ's functions."""
    out = ""
    for dyn in ([], ["-D"]):
        out = subprocess.run(["nm", "-S", "--defined-only"] + dyn + [obj],
                             capture_output=True, text=True).stdout
        if out.strip():
            break
    syms = [(int(f[0], 16), int(f[1], 16)) for f in
            (line.split() for line in out.splitlines())
            if len(f) == 4 and f[2] in "tTwWi"]
    syms = syms[::len(syms) // 1000 + 1]
    return [a for v, n in syms for a in (v, v + n - 1, v + n)]


def main():
    report, objs = sys.argv[1], sys.argv[2:]
    stream, want = [], []
    t_dwfl = 0.0
    for obj in objs:
        ends = edges(obj)
        for off, vaddr, size in loads(obj):
            step = size // 1500 + 1
            addrs = sorted(set(range(0, size, step)) |
                           {a - vaddr for a in ends if 0 <= a - vaddr < size})
            t0 = time.monotonic()
            names = subprocess.run(
                ["eu-addr2line", "-C", "-S", "-e", obj] +
                ["0x%x" % (vaddr + a) for a in addrs],
                capture_output=True, text=True, check=True).stdout
            t_dwfl += time.monotonic() - t0
            names = names.splitlines()[0::2]
            for a, n in zip(addrs, names):
                k = len(want) + 1
                stream.append("sample cookie=0x%016x pid=1 tid=1 cpu=0 "
                              "time=%d event=self comm=x" % (k, k))
                stream.append("user cookie=0x%016x pid=1 tid=1 frames=1 "
                              "end=outermost" % k)
                stream.append("    user 0x%x regs %s+0x%x" %
                              (vaddr + a, obj, off + a))
                want.append((obj, vaddr + a, dwfl_name(n)))
    t0 = time.monotonic()
    out = subprocess.run([report, "--perf", "/dev/stdin"],
                         input="\n".join(stream) + "\n", capture_output=True,
                         text=True, check=True).stdout
    t_report = time.monotonic() - t0
    got = [m.group(1) for m in
           re.finditer(r"^\t *[0-9a-f]+ (.*) \([^()]*\)$", out, re.M)]
    if len(got) != len(want):
        print("%d frames named, %d asked" % (len(got), len(want)))
        return 1
    bad = 0
    for (obj, addr, w), g in zip(want, got):
        if g != w:
            bad += 1
            if bad <= 5:
                print("%s 0x%x: got %s, libdwfl %s" % (obj, addr, g, w))
    print("checked %d mismatched %d" % (len(want), bad))
    print("seconds report %.3f libdwfl %.3f" % (t_report, t_dwfl))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
