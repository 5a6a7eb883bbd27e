#!/usr/bin/env python3
"""Render a /dev/ustack text stream (gen.py's output) as the text of the
module's trace events ustack:sample and ustack:user_stack, the way each
tracer prints them, to test ustack-report's third input format:

  trace_text.py perf|trace-cmd|pipe < stream > trace.txt
  trace_text.py strip < stream > stream   (the same stream, user frames
                                           without objects, as trace events
                                           carry them)

The payload is the events' print format (module/ustack_trace.h); the
prefixes are perf script's, trace-cmd report's and trace_pipe's.  Debian
12's perf script prints the arrays as decimal numbers between blanks
(kstack=18446744071589608958 18446744071591428390), the others as
{0xffffffff81a43dfe,0xffffffff81c00126}.
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "..", "scripts"))
import ustack_names  # noqa: E402

METHODS = ustack_names.vocabulary()["method"]


def unescape(v):
    return re.sub(r"\\([0-3][0-7][0-7])", lambda m: chr(int(m.group(1), 8)), v)


def kv(line):
    return dict(w.split("=", 1) for w in line.split() if "=" in w)


def records(lines):
    recs, cur = [], None
    for line in lines:
        if not line.strip():
            continue
        if not line[0].isspace():
            cur = [line.split()[0], line, []]
            recs.append(cur)
        elif cur is not None:
            cur[2].append(line.split())
    return recs


def array(style, nums):
    if style == "perf":
        return " ".join("%d" % int(x, 16) for x in nums)
    return "{" + ",".join("0x%x" % int(x, 16) for x in nums) + "}"


def prefix(style, comm, pid, tid, cpu, ns, ev):
    t = "%d.%06d" % (ns // 10**9, ns % 10**9 // 1000)
    if style == "perf":
        return "%16s %6s/%-6s [%03d] %s: ustack:%s: " % (comm, pid, tid, cpu, t, ev)
    if style == "trace-cmd":
        return "%16s-%-6s [%03d] %s: %-20s " % (comm, tid, cpu, t, ev + ":")
    return "%16s-%-7s [%03d] d..1. %s: %s: " % (comm, tid, cpu, t, ev)


def main():
    style = sys.argv[1]
    lines = sys.stdin.buffer.read().decode("latin-1").splitlines()
    out = []
    if style == "strip":
        for line in lines:
            f = line.split()
            if line[:1].isspace() and f and f[0] == "user":
                line = "    user %s %s [unknown]+%s" % (f[1], f[2], f[1])
            out.append(line)
    else:
        out.append({"perf": "", "trace-cmd": "cpus=2",
                    "pipe": "# tracer: nop"}[style])
        last = {}
        for kind, line, frames in records(lines):
            d = kv(line)
            if kind == "sample":
                m = re.search(r"comm=(.*?)(?= [a-z_]+=|$)", line)
                comm = unescape(m.group(1))
                last[d["tid"]] = (comm, int(d["cpu"]), int(d["time"]))
                ks = array(style, [f[1] for f in frames if f[0] == "kernel"])
                out.append(prefix(style, comm, d["pid"], d["tid"], int(d["cpu"]),
                                  int(d["time"]), "sample") +
                           "cookie=%s pid=%s tid=%s event=%s kstack=%s" %
                           (d["cookie"], d["pid"], d["tid"], d["event"], ks))
            elif kind == "user":
                comm, cpu, ns = last.get(d["tid"], ("prog", 0, 0))
                us = [f for f in frames if f[0] == "user"]
                out.append(prefix(style, comm, d["pid"], d["tid"], cpu, ns, "user_stack") +
                           "cookie=%s pid=%s tid=%s end=%s frames=%d ips=%s methods=%s" %
                           (d["cookie"], d["pid"], d["tid"], d["end"], len(us),
                            array(style, [f[1] for f in us]),
                            array(style, ["%x" % METHODS[f[2]] for f in us])))
    sys.stdout.buffer.write(("\n".join(out) + "\n").encode("latin-1"))


main()
