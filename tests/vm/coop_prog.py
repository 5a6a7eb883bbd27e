# coop-python's workload: recursion, classes, a generator, threads and a
# Python callback of a C builtin (sorted's key), each in its own
# recognisable function; prints only its results, so
# that runs with and without ustack can be compared byte for byte.
# Argument: the rounds (3).
import sys
import threading


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


class Tree:
    def __init__(self, depth):
        self.kids = [Tree(depth - 1) for _ in range(2)] if depth else []

    def count(self):
        return 1 + sum(k.count() for k in self.kids)


def squares(n):
    for i in range(n):
        yield i * i


def digit_sum(x):
    s = 0
    while x:
        s += x % 10
        x //= 10
    return s


def worker(out, i):
    out[i] = fib(20) + Tree(10).count()


def main():
    total = 0
    for r in range(int(sys.argv[1]) if len(sys.argv) > 1 else 3):
        total += fib(21)
        total += Tree(11).count()
        total += sum(squares(200000))
        total += sorted(range(40000), key=digit_sum)[-1]
        out = [0] * 4
        ts = [threading.Thread(target=worker, args=(out, i))
              for i in range(4)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        total += sum(out)
        print("round", r, total)


main()
