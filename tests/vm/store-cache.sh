# Rules found through the SFrame store enter the per-CPU rule cache, and
# none is served once stale.  bin/store_cache (no SFrame, no frame
# pointers) walks itself through a library that has only a store entry:
# - warm: 200 walks through library A reach the outermost frame by store
#   rules with a few store lookups in all, not one per object per walk;
# - so do two such processes on one CPU taking turns: each turn finds
#   its rules still cached;
# - A is dlclosed and B (the same bytes, another file, without an entry)
#   opened at the same address: B's frame has no SFrame rule;
# - B gets an entry: its rule is served (and cached) again;
# - that entry is deleted: B's frame has no SFrame rule again.
# First, with the clock set back below the store files' ctime: a store
# file not older than the current time may change without its ctime
# moving, so nothing read from it is cached (the walks still use it).
# The stats tell store sections (store_hits) from files' own
# (sections_elf).
# kernels: 6.1 6.12 sid debug
. ./lib.sh
ustack_load
mkdir -p /tmp/store
prog=/tests/vm/bin/store_cache
libc=$(realpath /lib/x86_64-linux-gnu/libc.so.6)
cp bin/store_cache_lib /tmp/store/liba.so
cp bin/store_cache_lib /tmp/store/libb.so
for o in $prog $libc /tmp/store/liba.so /tmp/store/libb.so; do
	sframe-register gen $o -o /tmp/store/$(basename $o).sf --version 3 >/dev/null ||
		fail "gen $o"
done
for o in $prog $libc /tmp/store/liba.so; do
	bin/sframe_store add $o /tmp/store/$(basename $o).sf || fail "add $o"
done
# Pinned, with the second one below, to one CPU: one rule cache.
rm -f /tmp/sc.in; mkfifo /tmp/sc.in
taskset -c 1 $prog /tmp/store/liba.so /tmp/store/libb.so </tmp/sc.in >/tmp/sc.out 2>&1 &
pid=$!
exec 3>/tmp/sc.in
# step CMD [2]: run one phase of the program (or of the second), print its line
step() {
	local n fd=3 out=/tmp/sc.out p=$pid
	[ "${2:-}" = 2 ] && { fd=4; out=/tmp/sc2.out; p=$pid2; }
	n=$(grep -c . $out)
	echo "$1" >&$fd
	for _ in $(seq 100); do
		[ "$(grep -c . $out)" -gt "$n" ] && break
		kill -0 $p 2>/dev/null || fail "store_cache died: $(cat $out)"
		sleep 0.1
	done
	sed -n "$((n + 1))p" $out
}
now=$(date +%s)
date -s "@$((now - 3600))" >/dev/null || fail "set the clock back"
l0=$(stat_of store_lookups)
r=$(step warm)
date -s "@$((now + 1))" >/dev/null || fail "set the clock again"
echo "$r, store files in the future: $(($(stat_of store_lookups) - l0)) store lookups"
case $r in "warm lib=sframe main=sframe frames="*) ;; *) fail "unsettled: $r" ;; esac
[ $(($(stat_of store_lookups) - l0)) -ge 400 ] ||
	fail "rules of store files in the future cached"
l0=$(stat_of store_lookups)
e0=$(stat_of sections_elf)
r=$(step warm); echo "$r"
l1=$(stat_of store_lookups)
[ "$(stat_of sections_elf)" = "$e0" ] || fail "store sections counted as ELF ones"
[ "$(stat_of store_hits)" -gt 0 ] || fail "store_hits 0"
echo "store lookups for 200 walks: $((l1 - l0))"
case $r in "warm lib=sframe main=sframe frames="*) ;; *) fail "warm: $r" ;; esac
# Four objects per walk, each looked up once per walk without the cache.
[ $((l1 - l0)) -lt 50 ] || fail "$((l1 - l0)) store lookups: store rules not cached"
# A second process on the same CPU: the cache keeps both one's rules and
# the other's, as they take turns.
rm -f /tmp/sc2.in; mkfifo /tmp/sc2.in
taskset -c 1 $prog /tmp/store/liba.so /tmp/store/libb.so </tmp/sc2.in >/tmp/sc2.out 2>&1 &
pid2=$!
exec 4>/tmp/sc2.in
r=$(step warm 2)
case $r in "warm lib=sframe main=sframe frames="*) ;; *) fail "second: $r" ;; esac
l0=$(stat_of store_lookups)
for _ in 1 2 3; do
	step warm >/dev/null
	step warm 2 >/dev/null
done
l1=$(stat_of store_lookups)
echo "store lookups for 6 phases of 200 walks, two processes in turn: $((l1 - l0))"
[ $((l1 - l0)) -lt 10 ] || fail "$((l1 - l0)) store lookups: each process's turn refilled the cache"
exec 4>&-
wait $pid2 || fail "second store_cache: $(cat /tmp/sc2.out)"
r=$(step swap); echo "$r"
[ "$r" = "swap same=1" ] || fail "library B is not at A's address: $r"
r=$(step again); echo "$r"
case $r in *" main=sframe") fail "B's frame by A's stale rule: $r" ;; esac
bin/sframe_store add /tmp/store/libb.so /tmp/store/libb.so.sf || fail "add B"
r=$(step warm); echo "$r"
case $r in "warm lib=sframe main=sframe frames="*) ;; *) fail "B with its entry: $r" ;; esac
bin/sframe_store del /tmp/store/libb.so || fail "del B"
r=$(step again); echo "$r"
case $r in *" main=sframe") fail "B's rule served after its entry was deleted: $r" ;; esac
exec 3>&-
wait $pid || fail "store_cache: $(cat /tmp/sc.out)"
# A program with its own PT_GNU_SFRAME: counted apart from the store's.
bin/sframe_store flush || fail "flush"
h0=$(stat_of store_hits)
bin/store_bench_sf user >/dev/null || fail "store_bench_sf"
[ "$(stat_of sections_elf)" -gt "$e0" ] || fail "sections_elf did not count the program's"
[ "$(stat_of store_hits)" = "$h0" ] || fail "ELF sections counted as store hits"
ustack_unload
echo "ok"
