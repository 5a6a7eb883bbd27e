# ustack-report reads /dev/ustack live for a given duration (binary mode)
# and joins what it recorded: the workload's samples with full stacks.
# kernels: 6.1 6.12 sid debug
. ./lib.sh
ustack_load sample_hz=999
./bin/workload_sf cpu 4 &
w=$!
ustack-report --duration 2 --summary >/tmp/summary.txt 2>&1 || { cat /tmp/summary.txt; fail "ustack-report --duration"; }
wait $w
cat /tmp/summary.txt | head -20
samples=$(sed -n 's/^samples: \([0-9]*\).*/\1/p' /tmp/summary.txt)
[ "${samples:-0}" -gt "$(per_hz 100)" ] || fail "only ${samples:-0} samples recorded live"
grep -q 'format: binary' /tmp/summary.txt || fail "live mode did not use the binary format"
grep -q 'workload_sf' /tmp/summary.txt || fail "the workload is not in the live profile"
ustack_unload
