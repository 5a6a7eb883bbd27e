# order.py FILE PROG: the answers in FILE (the shim's USTACK_COOP_TEST_HZ
# or USTACK_COOP_DEBUG output: "coop cookie=..." then "    interp
# FUNCTION FILE:LINE [entry]" lines, innermost first) judged against
# coop_prog.py's call graph: an answer is in call order when, outermost
# first, its frames of PROG (and Thread.run) start with <module> or
# Thread.run and each is called by one that can call it.  Prints
# "answers N judged N in_order N" and the first answers out of order.
# The graph holds for 3.11 (comprehensions in their own frames) and for
# 3.12 on (inlined: Tree.__init__ calls itself).
import sys

CALLERS = {
    "main": {"<module>"},
    "worker": {"Thread.run"},
    "fib": {"fib", "main", "worker"},
    "Tree.__init__": {"Tree.__init__.<locals>.<listcomp>", "Tree.__init__",
                      "main", "worker"},
    "Tree.__init__.<locals>.<listcomp>": {"Tree.__init__"},
    "Tree.count": {"Tree.count.<locals>.<genexpr>", "main", "worker"},
    "Tree.count.<locals>.<genexpr>": {"Tree.count"},
    "squares": {"main"},
    "main.<locals>.<listcomp>": {"main"},
    "digit_sum": {"main"},
}


def answers(path):
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("coop cookie="):
                if cur is not None:
                    yield cur
                cur = []
            elif line.startswith("    interp ") and cur is not None:
                w = line.split()
                cur.append((w[1], w[2].rsplit(":", 1)[0]))
            elif not line.startswith(" ") and cur is not None:
                yield cur
                cur = None
    if cur is not None:
        yield cur


def in_order(frames, prog):
    mine = [f for f, file in frames if file.endswith(prog) or f == "Thread.run"]
    if not mine:
        return None
    mine.reverse()
    if mine[0] not in ("<module>", "Thread.run"):
        return False
    for caller, f in zip(mine, mine[1:]):
        if f == "Thread.run" or caller not in CALLERS.get(f, ()):
            return False
    return True


def main():
    n = judged = good = shown = 0
    seen = set()
    for a in answers(sys.argv[1]):
        n += 1
        r = in_order(a, sys.argv[2])
        if r is None:
            continue
        judged += 1
        seen.update(f for f, _ in a)
        if r:
            good += 1
        elif shown < 3:
            shown += 1
            print("out of order:", " ".join(f for f, _ in reversed(a)))
    print("functions:", " ".join(sorted(f for f in seen if f in CALLERS)))
    print("answers %d judged %d in_order %d" % (n, judged, good))


main()
