# crash.py: faulthandler on (a SIGSEGV handler installed after the shim's
# guard), some work (answers: the guard goes in front of faulthandler's
# handler again), then a real crash.  faulthandler must print its
# traceback once and the process die of SIGSEGV, as without the shim.
import ctypes
import faulthandler
import sys

faulthandler.enable()


def work(n):
    return sum(i * i for i in range(n))


print(work(int(sys.argv[1]) if len(sys.argv) > 1 else 3000000))
sys.stdout.flush()
ctypes.string_at(0)
