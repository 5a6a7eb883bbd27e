# coop-python's workload: recursion, classes, a generator and threads,
# each in its own recognisable function; prints only its results, so
# that runs with and without ustack can be compared byte for byte.
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


def worker(out, i):
    out[i] = fib(20) + Tree(10).count()


def main():
    total = 0
    for r in range(3):
        total += fib(21)
        total += Tree(11).count()
        total += sum(squares(200000))
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
