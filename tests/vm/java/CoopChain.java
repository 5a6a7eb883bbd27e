// coop-java's program: a known call chain, main -> a -> b -> c, where c
// spends the time; prints only its result, so that runs with and without
// ustack compare byte for byte.  Arguments: the rounds, c's loop count.
//
// c's loop is a counted loop (an int index), in which HotSpot's JIT puts
// no safepoint; b calls e after it, which the test keeps from being
// inlined.  Once c is inlined into b, the nearest place the JIT records
// by default after a tick in the loop is that call, in b's scope: only
// an agent that makes it record every instruction's scope
// (DebugNonSafepoints) gets c in the stack.
public class CoopChain {
    static long c(int n) {
        long s = 0;
        for (int i = 0; i < n; i++)
            s += (long) i * i % 7;
        return s;
    }

    static long e(long x) {
        return x * 31 + 7;
    }

    static long b(int n) {
        long x = c(n);
        return e(x) + 1;
    }

    static long a(int n) {
        return b(n) + 1;
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        int n = args.length > 1 ? Integer.parseInt(args[1]) : 2_000_000;
        long t = 0;
        for (int r = 0; r < rounds; r++)
            t += a(n);
        // Not "result " + t: a string concatenation is an invokedynamic
        // whose first run links a method-handle tree, seconds of class
        // loading in the VM under TCG, which would outweigh the chain.
        System.out.print("result ");
        System.out.println(t);
    }
}
