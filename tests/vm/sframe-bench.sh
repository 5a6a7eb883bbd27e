# Benchmarks (also a smoke test): kernel self-walk per frame next to the
# user-space walker, the same kernel walk by frame pointers over an equally
# deep stack without SFrame (sframe_bench_fp), and kernel memory per
# registration.  Prints `bench` lines; tests/bench/kwalk.sh collects them.
# kernels: 6.12
# debug: skip (a benchmark; timings under KASAN mean nothing)
. ./lib.sh
ustack_load
out=$(bin/sframe_bench walk 2>&1) || fail "walk: $out"
echo "$out"
sf=$(echo "$out" | sed -n 's/^bench kwalk_sframe_per_frame \([0-9.]*\) ns$/\1/p')
out=$(bin/sframe_bench_fp walkfp 2>&1) || fail "walkfp: $out"
echo "$out"
fp=$(echo "$out" | sed -n 's/^bench kwalk_fp_per_frame \([0-9.]*\) ns$/\1/p')
[ -n "$sf" ] && [ -n "$fp" ] || fail "no per-frame times (sframe '$sf', fp '$fp')"
awk -v a="$sf" -v b="$fp" 'BEGIN { if (b > 0) printf "bench kwalk_sframe_vs_fp_per_frame %.2f x\n", a / b }'
out=$(bin/sframe_bench mem 40 2>&1) || fail "mem: $out"
echo "$out"
