# Benchmarks (also a smoke test): kernel self-walk per frame next to the
# user-space walker, and kernel memory per registration.  Prints `bench`
# lines; tests/bench/kwalk.sh collects them.
# debug: skip (a benchmark; timings under KASAN mean nothing)
. ./lib.sh
ustack_load
out=$(bin/sframe_bench walk 2>&1) || fail "walk: $out"
echo "$out"
out=$(bin/sframe_bench mem 40 2>&1) || fail "mem: $out"
echo "$out"
