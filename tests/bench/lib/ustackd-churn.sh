# The guest-free half of `bench ustackd`'s churn (tests/bench/ustackd.sh
# runs it in a PID namespace of its own, so that the daemon sees only the
# processes started here): the daemon against the store stand-in
# (tests/ustackd/fakestore.c), --no-system, --user-budget 4M.  Programs
# just built by uid 4242 (each its own build-id: nothing to reuse) are
# started one at a time and named to the daemon as the module's miss
# queue names a first walk's object; the time from the miss to STORE_ADD
# is one latency.  First quiet, then while uid 65534 churns libc copies:
# four loops, each a new copy mapped for a second then deleted.
#   W D FAKESO ROOT NPROG in the environment; latencies to $W/lat.
set -u
. "$ROOT/tests/ustackd/nslib.sh"
export LD_PRELOAD=$FAKESO FAKESTORE_LOG=$W/adds FAKESTORE_MISSES=$W/misses
LIBC=/lib/x86_64-linux-gnu/libc.so.6
now_ms() { date +%s%3N; }
ukib() { find "$W/store" -maxdepth 1 -name 'u-*' -printf '%k\n' | awk '{ s += $1 } END { print s + 0 }'; }
added() { grep -q "^add $1 " "$W/adds"; }

# latencies NAME: NPROG programs, one at a time; "NAME MS" lines to lat
latencies() {
	local i k t0 map
	for i in $(seq "$NPROG"); do
		setpriv --reuid=4242 --regid=4242 --clear-groups "$W/prog/p$1$i" & P=$!
		sleep 0.2
		k=$(key "$W/prog/p$1$i")
		map=$(awk -v f="$W/prog/p$1$i" '$2 ~ /x/ && $6 == f { split($1, r, "-"); print r[1], r[2]; exit }' /proc/$P/maps)
		t0=$(now_ms)
		echo "$P $map $k" >"$W/misses.tmp" && mv "$W/misses.tmp" "$W/misses"
		if waitfor 300 added "$k"; then
			echo "$1 $(($(now_ms) - t0))" >>"$W/lat"
		else
			echo "$1 30000" >>"$W/lat"
		fi
		kill $P; wait $P 2>/dev/null
	done
}

churn() { # N: one user's loop, until $W/stop
	local n=0 d
	while [ ! -e "$W/stop" ]; do
		d=$W/churn/c$1-$n
		mkdir -p "$d" && cp "$LIBC" "$d/libc.so.6" || break
		LD_LIBRARY_PATH=$d /usr/bin/sleep 1
		rm -rf "$d"
		n=$((n + 1))
		echo >>"$W/rounds"
	done
}

"$D" --store "$W/store" --interval 50 --rescan 1 --no-system --user-budget 4M 2>"$W/d.log" & UD=$!
ready "$W/d.log" || { echo "not ready: $(tail -n 2 "$W/d.log")"; exit 1; }
: >"$W/lat"
latencies quiet
: >"$W/rounds"
chmod 666 "$W/rounds"
export W LIBC
CP=
for n in 1 2 3 4; do
	setpriv --reuid=65534 --regid=65534 --clear-groups bash -c "$(declare -f churn); churn $n" &
	CP="$CP $!"
done
peak=0
sleep 2
latencies churn &
LP=$!
while kill -0 $LP 2>/dev/null; do
	k=$(ukib); [ "$k" -gt "$peak" ] && peak=$k
	sleep 0.2
done
touch "$W/stop"
wait $LP $CP
echo "peak $peak"
echo "rounds $(wc -l <"$W/rounds")"
echo "refused $(grep -c 'over the store.s budget' "$W/d.log")"
kill -TERM $UD; wait $UD
