# Cooperative unwinding's process table is shared by every user, so each
# user gets a share of it (issue 25, item 5): uid 65534 opts in 256
# sleeping processes (as many as the table holds), and a process of
# another user (root) can still opt in; the attacker got only its share.
# Then the same user as a rootless container: its namespace's 12 uids
# (12 real uids of its subordinate range) opt in 32 processes each; they
# are one user (as for the engine's pool), held to one share (at most
# half the table), and root still gets in.  (Charged by raw uid, 9 such
# uids filled the table.)
# kernels: 6.1 debug
. ./lib.sh
ustack_load
bin/as_nobody bin/coop_hold 256 >/tmp/hold.out 2>&1 &
hold=$!
i=0
while ! grep -q '^ok=' /tmp/hold.out; do
	i=$((i + 1))
	[ $i -lt 600 ] || { cat /tmp/hold.out; fail "coop_hold never reported"; }
	sleep 0.1
done
cat /tmp/hold.out
bin/coop_hold 1 >/tmp/root.out 2>&1 &
root=$!
i=0
while ! grep -q '^ok=' /tmp/root.out; do
	i=$((i + 1))
	[ $i -lt 300 ] || fail "root's coop_hold never reported"
	sleep 0.1
done
cat /tmp/root.out
kill -9 $hold $root
wait $hold $root 2>/dev/null
val() { tr ' ' '\n' <$1 | sed -n "s/^$2=//p"; }
[ "$(val /tmp/hold.out other)" = 0 ] || fail "uid 65534: unexpected errors"
[ "$(val /tmp/hold.out ok)" -ge 1 ] || fail "uid 65534 could not opt in at all"
[ "$(val /tmp/root.out ok)" = 1 ] || fail "root refused after uid 65534 filled the table: $(cat /tmp/root.out)"
echo "coop-share: uid 65534 got $(val /tmp/hold.out ok) of 256, root opted in"

# hold_until OUT LINES: OUT has LINES lines of results ("ok=...").  A
# background job opens its output after the shell has gone on: until then
# grep finds no file and prints no count, which is none yet, not the end.
hold_until() {
	i=0
	while n=$(grep -c '^ok=' $1 2>/dev/null); [ "${n:-0}" -lt $2 ]; do
		i=$((i + 1))
		[ $i -lt 1200 ] || { cat $1; fail "$1: $n of $2 reported"; }
		sleep 0.1
	done
}
# (the debug kernel has no user namespaces: no container to charge)
if [ ! -e /proc/self/ns/user ]; then
	echo "coop-share: no user namespaces on $KREL"
	ustack_unload
	exit 0
fi
ustack_load
bin/userns_uids 12 bin/coop_hold 32 >/tmp/ns.out 2>&1 &
ns=$!
hold_until /tmp/ns.out 12
bin/coop_hold 1 >/tmp/root.out 2>&1 &
root=$!
hold_until /tmp/root.out 1
kill -9 $ns $root
wait $ns $root 2>/dev/null
got=$(sed -n 's/^ok=\([0-9]*\) .*/\1/p' /tmp/ns.out | awk '{ n += $1 } END { print n + 0 }')
[ "$(sed -n 's/^ok=[0-9]* enospc=[0-9]* other=//p' /tmp/ns.out | sort -u)" = 0 ] ||
	fail "the container: unexpected errors: $(cat /tmp/ns.out)"
[ "$got" -ge 1 ] || fail "the container could not opt in at all"
[ "$got" -le 128 ] || fail "the container's 12 uids got $got of 256: more than one user's share"
[ "$(val /tmp/root.out ok)" = 1 ] || fail "root refused after the container's 12 uids opted in $got: $(cat /tmp/root.out)"
echo "coop-share: a container's 12 uids got $got of 256 between them, root opted in"
ustack_unload
