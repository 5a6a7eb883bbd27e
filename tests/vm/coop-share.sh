# Cooperative unwinding's process table is shared by every user, so each
# user gets a share of it (issue 25, item 5): uid 65534 opts in 256
# sleeping processes (as many as the table holds), and a process of
# another user (root) can still opt in; the attacker got only its share.
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
ustack_unload
