# The demo's Python workload: a little interpreter-heavy work with a known
# shape (fib under render_report under main).
def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def render_report(rounds):
    total = 0
    for i in range(rounds):
        total += fib(18)
    return total


def main():
    print("demo.py:", render_report(40))


main()
