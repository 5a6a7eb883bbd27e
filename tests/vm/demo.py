# The demo's Python workload: interpreter-heavy work with a known shape
# (fib under render_report under main), some 5 s under TCG: long enough
# that the script, not the interpreter's start-up, fills its flame graph.
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def render_report(rounds):
    total = 0
    for i in range(rounds):
        total += fib(18)
    return total


def main():
    print("demo.py:", render_report(300))


main()
