# make bench's cooperative-unwinding workload (_bench-coop.sh): Python
# recursion and a callback through a C builtin, timed inside; prints
# elapsed_ns= and cpu_ns= (its process's CPU time) on stderr.  "nocoop":
# every real-time signal blocked first, so that the kernel raises no
# request (the shim's SFrame and the native
# walks stay the same: only cooperative unwinding's cost goes).
import signal
import sys
import time

if sys.argv[1:2] == ["nocoop"]:
    signal.pthread_sigmask(signal.SIG_BLOCK,
                           range(signal.SIGRTMIN, signal.SIGRTMAX + 1))


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def digit_sum(x):
    s = 0
    while x:
        s += x % 10
        x //= 10
    return s


t0 = time.perf_counter_ns()
c0 = time.process_time_ns()
total = 0
for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 4):
    total += fib(17)
    total += sorted(range(5000), key=digit_sum)[-1]
print("elapsed_ns=%d cpu_ns=%d" % (time.perf_counter_ns() - t0,
                                   time.process_time_ns() - c0), file=sys.stderr)
print(total)
