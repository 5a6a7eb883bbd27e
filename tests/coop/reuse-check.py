# reuse-check.py FILE: every answer's frame of a generated function f_<i>
# is named with its own file gen_<i>.py and a line of its body
# (1 .. 5 + i % 5).  Prints "frames N wrong N" and the first wrong ones.
import re
import sys

n = wrong = 0
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"    interp (\S+) (\S+):(\d+)", line)
    if not m:
        continue
    func, file, ln = m.group(1), m.group(2), int(m.group(3))
    fm = re.fullmatch(r"f_(\d+)", func)
    gm = re.fullmatch(r"gen_(\d+)\.py", file)
    if not fm and not gm:
        continue
    if gm and func == "<module>":
        fm = gm		# the generated module's own code: line 1, or 0 at
        ln = max(ln, 1)	# its RESUME (CPython 3.11 puts that on line 0)
    n += 1
    i = int((fm or gm).group(1))
    if not (fm and gm and fm.group(1) == gm.group(1) and 1 <= ln <= 5 + i % 5):
        wrong += 1
        if wrong <= 3:
            print("wrong:", line.strip())
print("frames %d wrong %d" % (n, wrong))
