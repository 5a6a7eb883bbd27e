# A user cannot fill the SFrame store (issue #25, item 1).  As uid 65534
# the attacker touches its program 60 times and makes 40 copies of it (20
# and 24 in make check: still more than one, and than store_user_max);
# root registers each version as ustackd does when a walk misses it.
# Every touch supersedes the program's entry: one entry stays, not 60.
# The copies are the user's objects: at most store_user_max of them stay
# (the owner's oldest evicted), and as many of the copies of 8 subordinate
# uids charged to 65534, the user mapping them (ustackd's
# SFRAME_STORE_USER).  A store full of users' entries evicts
# their oldest: root's libc is still taken (no ENOSPC), and the
# refusals and evictions are counted in the stats.
# kernels: 6.1 debug
. ./lib.sh
ustack_load
as_user() { bin/as_nobody "$@"; }
obj=/tests/vm/bin/workload_nofp
libc=$(realpath /lib/x86_64-linux-gnu/libc.so.6)
mkdir -p /tmp/store /tmp/u && chmod 1777 /tmp/u
sframe-register gen $obj -o /tmp/store/w.elf --version 3 || fail "gen $obj"
sframe-register gen $libc -o /tmp/store/libc.elf --version 3 || fail "gen $libc"
cp $obj /tmp/prog.src && chmod 755 /tmp/prog.src
as_user cp /tmp/prog.src /tmp/u/prog || fail "cp as 65534"
[ "$(stat -c %u /tmp/u/prog)" = 65534 ] || fail "not the user's file"

# 60 versions of one program
versions=$(long 60 20)
for i in $(seq $versions); do
	as_user touch -d "@$((1000000 + i))" /tmp/u/prog
	bin/sframe_store add /tmp/u/prog /tmp/store/w.elf || fail "add version $i"
done
n=$(stat_of store_entries)
echo "after $versions versions of one program: store_entries $n"
bad=
[ "$n" = 1 ] || bad="$bad; $versions versions of one program left $n entries (want 1)"

# 40 objects of one user, at most store_user_max of them
copies=$(long 40 24)
echo 16 >/sys/module/ustack/parameters/store_user_max ||
	bad="$bad; no store_user_max"
for i in $(seq $copies); do
	as_user cp /tmp/u/prog /tmp/u/c$i
	bin/sframe_store add /tmp/u/c$i /tmp/store/w.elf 2>/dev/null
done
n=$(stat_of store_entries)
echo "after $copies copies with store_user_max 16: store_entries $n"
[ "$n" -le 16 ] || bad="$bad; one user holds $n entries (store_user_max 16)"
[ "$(stat_of store_user_evicted)" -gt 0 ] 2>/dev/null || bad="$bad; store_user_evicted 0"

# A container's files: 8 copies owned by 8 subordinate uids, charged as
# ustackd charges them, to the user of the process that maps them
# (SFRAME_STORE_USER: here 65534, at its 16 already): no more entries.
# Charged to each file's owner (no user named), they are 8 more.
for i in $(seq 8); do
	cp /tmp/prog.src /tmp/u/s$i && chown $((100000 + i)) /tmp/u/s$i
	bin/sframe_store add /tmp/u/s$i /tmp/store/w.elf 4 65534 || bad="$bad; add s$i as 65534's"
done
n3=$(stat_of store_entries)
for i in $(seq 8); do
	cp /tmp/prog.src /tmp/u/t$i && chown $((100000 + i)) /tmp/u/t$i
	bin/sframe_store add /tmp/u/t$i /tmp/store/w.elf || bad="$bad; add t$i"
done
n4=$(stat_of store_entries)
echo "8 subordinate uids' copies: charged to their mapper 65534, store_entries $n3; to each owner, $n4"
[ "$n3" -le 16 ] || bad="$bad; 65534's processes' copies of 8 uids left $n3 entries (store_user_max 16)"
[ "$n4" = $((n3 + 8)) ] || bad="$bad; copies charged to 8 owners left $n4 entries (want $((n3 + 8)))"
n=$n4

# a store full of users' entries still takes root's libc
param_set store_max "$n"
bin/sframe_store add $libc /tmp/store/libc.elf ||
	bad="$bad; root's libc refused by a store full of users' entries"
n2=$(stat_of store_entries)
echo "libc added to a full store: store_entries $n2"
[ "$n2" -le "$n" ] || bad="$bad; store_entries $n2 over store_max $n"
grep '^store_' /sys/kernel/debug/ustack/stats
[ -z "$bad" ] || fail "${bad#; }"
ustack_unload
echo "ok"
