# An unprivileged user cannot switch on the system-wide sources through
# perf (issue #25, item 7).  With perf_event_paranoid 2 (upstream's
# default) uid 65534 may open a per-task counting event on a ustack
# tracepoint; that must not start the sources, which would walk and
# signal every process.  A CPU-wide event and root's per-task event are
# entitled and do start them; closing them stops them.
. ./lib.sh
S=/sys/kernel/debug/ustack/stats
T=/sys/kernel/tracing
[ -d $T/events ] || T=/sys/kernel/debug/tracing
ustack_load sample_hz=0
echo 2 >/proc/sys/kernel/perf_event_paranoid
id=$(cat $T/events/ustack/user_stack/id) || fail "no ustack:user_stack id"

# sources_until STATE SECONDS: wait for sources_on STATE
sources_until() {
	i=0
	until grep -q "^sources_on $1" $S; do
		i=$((i + 1)); [ $i -lt $(($2 * 20)) ] || return 1
		sleep 0.05
	done
}

grep -q '^sources_on 0' $S || fail "sources on before any consumer"
bin/as_nobody bin/perf_tp $id 3 >/tmp/nobody.out 2>&1 &
p=$!
sleep 1
grep -q '^opened' /tmp/nobody.out || { cat /tmp/nobody.out; fail "uid 65534 could not open the event (the test proves nothing)"; }
if sources_until 1 2; then
	fail "uid 65534's per-task perf event switched the sources on"
fi
wait $p
echo "uid 65534, per-task: $(cat /tmp/nobody.out | paste -sd' '), sources stayed off"

for how in task cpu; do
	bin/perf_tp $id 2 $how >/tmp/root.out 2>&1 &
	p=$!
	sources_until 1 10 || { cat /tmp/root.out; fail "root's $how-wide perf event did not start the sources"; }
	wait $p
	sources_until 0 10 || fail "closing root's $how-wide event left the sources on"
	echo "root, $how: sources on while open, off after"
done
ustack_unload
echo ok
