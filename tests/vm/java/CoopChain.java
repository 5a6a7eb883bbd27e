// coop-java's program: a known call chain, main -> a -> b -> c, where c
// spends the time; prints only its result, so that runs with and without
// ustack compare byte for byte.  Argument: the rounds.
public class CoopChain {
    static long c(long n) {
        long s = 0;
        for (long i = 0; i < n; i++)
            s += i * i % 7;
        return s;
    }

    static long b(long n) {
        return c(n) + 1;
    }

    static long a(long n) {
        return b(n) + 1;
    }

    public static void main(String[] args) {
        int rounds = args.length > 0 ? Integer.parseInt(args[0]) : 10;
        long t = 0;
        for (int r = 0; r < rounds; r++)
            t += a(2_000_000);
        System.out.println("result " + t);
    }
}
