# What the registry's mmu_notifier costs a large address space (issue 14):
# an unprivileged process with 60000 extra VMAs times a fork before any
# registration, its first SFRAME_IOC_REGISTER (mmu_notifier_get_locked(),
# i.e. mm_take_all_locks()) and a fork once registered (the child's copy
# takes the same).  Prints `bench` lines; fails only if one takes over 30 s.
# kernels: 6.1
# debug: skip (a measurement; timings under KASAN mean nothing)
# timeout: 600
. ./lib.sh
ustack_load
out=$(su -s /bin/sh nobody -c "bin/hostile_registry fork-time 60000" 2>&1) || fail "$out"
echo "$out"
echo "$out" | awk '/^fork-time:/ {
	name = $0; sub(/^fork-time: [0-9]+ VMAs: /, "", name); sub(/ [0-9.]+ ms$/, "", name)
	gsub(/ /, "_", name)
	printf "bench registry_60k_vmas_%s %s ms\n", name, $(NF - 1)
	if ($(NF - 1) > 30000) bad = 1
} END { exit bad }' || fail "over 30 s"
echo ok
