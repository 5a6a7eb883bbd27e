# reuse.py N: code objects made, run and freed one after the other, so
# that the next one (and its strings) often takes the memory of the last:
# function f_<i> of file gen_<i>.py, its loop on lines 3 + i % 5 and on.  An
# unwinder that kept a freed code object's names would name a frame of
# f_<i> after an earlier one.  Prints the total, and the addresses reused.
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 400
addrs = {}
total = 0
for i in range(n):
    src = ("def f_%d():\n" % i + "    x = 0\n" + "    pass\n" * (i % 5) +
           "    for j in range(6000):\n        x += j\n    return x\n")
    ns = {}
    exec(compile(src, "gen_%d.py" % i, "exec"), ns)
    f = ns["f_%d" % i]
    addrs[id(f.__code__)] = addrs.get(id(f.__code__), 0) + 1
    total += f()
    del f, ns
print(total)
print("reused addresses:", sum(1 for c in addrs.values() if c > 1))
