# Rules found through the SFrame store enter the per-CPU rule cache, and
# none is served once stale.  bin/store_cache (no SFrame, no frame
# pointers) walks itself through a library that has only a store entry:
# - warm: 200 walks through library A reach the outermost frame by store
#   rules with a few store lookups in all, not one per object per walk;
# - A is dlclosed and B (the same bytes, another file, without an entry)
#   opened at the same address: B's frame has no SFrame rule;
# - B gets an entry: its rule is served (and cached) again;
# - that entry is deleted: B's frame has no SFrame rule again.
# First, with the clock set back below the store files' ctime: a store
# file not older than the current time may change without its ctime
# moving, so nothing read from it is cached (the walks still use it).
# The stats tell store sections (store_hits) from files' own
# (sections_elf).
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
rm -f /tmp/sc.in; mkfifo /tmp/sc.in
$prog /tmp/store/liba.so /tmp/store/libb.so </tmp/sc.in >/tmp/sc.out 2>&1 &
pid=$!
exec 3>/tmp/sc.in
# step CMD: run one phase, print its line
step() {
	local n
	n=$(grep -c . /tmp/sc.out)
	echo "$1" >&3
	for _ in $(seq 100); do
		[ "$(grep -c . /tmp/sc.out)" -gt "$n" ] && break
		kill -0 $pid 2>/dev/null || fail "store_cache died: $(cat /tmp/sc.out)"
		sleep 0.1
	done
	sed -n "$((n + 1))p" /tmp/sc.out
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
