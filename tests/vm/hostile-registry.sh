# The registry under an unprivileged user (issue 14):
# - a register/unregister loop on every CPU (64 registrations held, a 65th
#   churned) must not pile up memory waiting for grace periods: the slab
#   grows by less than 16 MiB while it runs (31 MiB on 6.1 before the
#   bound, 6 MiB with it);
# - another process's churn must not empty a victim's rule cache: the
#   victim's own registrations did not change, so its rules stay cached:
#   the caches are not emptied (rule_cache_flushes) and its walks put
#   rules into them (rule_cache_fills) a few times at most, not at every
#   walk;
# - after fork, the child's munmap of the registered section must not hide
#   the parent's registration (each mm has its own set).
# timeout: 600
. ./lib.sh
ustack_load
as_nobody() { su -s /bin/sh nobody -c "$*"; }

# KASAN's quarantine (the debug kernel) holds freed slab objects, up to
# 1/32 of memory: there the churn runs for the log's sake, unbounded.
max=16384
case $KREL in *ustack-debug*) max=1000000 ;; esac
out=$(as_nobody bin/hostile_registry churn 10 $max 2>&1) || fail "churn: $out"
echo "$out"

as_nobody bin/hostile_registry churn 12 1000000 >/tmp/churn.out 2>&1 &
cp=$!
sleep 1
f0=$(stat_of rule_cache_flushes)
p0=$(stat_of rule_cache_fills)
out=$(as_nobody bin/hostile_registry victim 8 2>&1) || fail "victim: $out"
f1=$(stat_of rule_cache_flushes)
p1=$(stat_of rule_cache_fills)
wait $cp || fail "churn: $(cat /tmp/churn.out)"
echo "$out"
walks=$(echo "$out" | sed -n 's/^victim: \([0-9]*\) walks.*/\1/p')
echo "victim: $walks walks, rule cache flushes $((f1 - f0)), fills $((p1 - p0)) while others churned"
[ "$walks" -gt 100 ] || fail "too few walks: $walks"
[ $((f1 - f0)) -le 5 ] || fail "others' registrations flushed the victim's rule cache $((f1 - f0)) times in $walks walks"
[ $((p1 - p0)) -le 50 ] || fail "the victim's rules were put into the cache $((p1 - p0)) times in $walks walks"

out=$(as_nobody bin/hostile_registry fork 2>&1) || fail "fork: $out"
echo "$out"
echo ok
