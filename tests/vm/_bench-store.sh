# The kernel self-walk per frame through the SFrame store (page cache)
# next to ELF discovery (user memory), looked up on every frame
# (rule_cache=0) and from the rule cache; kernel bytes per store entry.
# tests/bench/store.sh collects the lines.
. ./lib.sh
ustack_load
obj=/tests/vm/bin/store_bench
libc=$(realpath /lib/x86_64-linux-gnu/libc.so.6)
mkdir -p /tmp/store
sframe-register gen $obj -o /tmp/store/b.elf --version 3 >/dev/null || fail "gen $obj"
sframe-register gen $libc -o /tmp/store/libc.elf --version 3 >/dev/null || fail "gen $libc"
bin/sframe_store add $obj /tmp/store/b.elf || fail "add $obj"
bin/sframe_store add $libc /tmp/store/libc.elf || fail "add $libc"
param_set rule_cache 0
bin/store_bench store || fail "store walk"
bin/store_bench_sf user || fail "discovery walk"
param_set rule_cache 1
bin/store_bench store_cached >/tmp/one || fail "cached store walk"
cat /tmp/one
bin/store_bench_sf user_cached || fail "cached discovery walk"
# Two processes taking turns on one CPU: each keeps its cached rules.
bin/store_bench store_cached_turns >/tmp/two || fail "cached store walk in turns"
cat /tmp/two
awk '/^bench/ { v[FILENAME] = $3 }
     END { printf "bench kwalk_store_cached_turns_vs_alone %.2f ratio\n", v["/tmp/two"] / v["/tmp/one"] }' /tmp/one /tmp/two
echo "bench kmem_per_store_entry $(($(stat_of store_bytes) / $(stat_of store_entries))) bytes"
ustack_unload
