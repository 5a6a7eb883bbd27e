# Issue 49's long hostile user: for ustack_long_secs= seconds (kernel
# command line; scripts/vm-test.sh sets it from USTACK_LONG_SECS; 1800 on
# the debug kernel, 300 elsewhere) uid 65534 keeps at it while the module
# comes and goes.  Throughout, as uid 65534:
#  - store churn: a copy of libc under a new name, mapped 1 or 2 s by a
#    program, deleted, again (ustackd's user entries made and collected);
#  - a user-mounted image: root-owned programs on a nosuid tmpfs (what a
#    user's loop image or removable medium is; the debug kernel has no
#    FUSE, no userfaultfd and no block layer, so no FUSE file and no
#    loop image), run by the user, every other run under the user's own
#    perf record -g.
# The time goes in cycles of two parts:
#  - a slice of hostile_random (tests/vm/hostile-random.sh's user) with
#    ustackd running (a store budget) and root sampling every task with
#    the off-CPU and system-call sources; then ustackd is sound (lib.sh),
#    its store within budget, the module's tables small once
#    hostile_random's processes are gone;
#  - unload rounds (lib.sh's unload_round: sleepers of uid 65534 owing
#    walks, tracefs consumers, an unload begun as they wake).
# hostile_random and ustackd hold /dev/sframe open, and with it the
# module, for as long as they run: the unloads come between slices.  An
# unload refused while a walk is owed is counted, not failed; the module
# must go in the end.  Afterwards kmemleak finds nothing of a module's,
# and every kind of operation ran at least once a cycle (two cycles at
# least, however short the run).
# kernels: full (none: make check-full alone: half an hour)
# trace-cmd: yes
# perf: yes
# timeout: 2400
. ./lib.sh
arg() { sed -n "s/.*\<$1=\([^ ]*\).*/\1/p" /proc/cmdline; }
secs=$(arg ustack_long_secs)
[ -n "$secs" ] || { secs=300; [ $DEBUG_KERNEL = 0 ] || secs=1800; }
seed=$(arg ustack_random_seed); seed=${seed:-$(date +%s)}
# a slice of hostile_random: an eighth of the run, 30 to 120 s
slice=$((secs / 8)); [ $slice -ge 30 ] || slice=30; [ $slice -le 120 ] || slice=120
hz=999
[ $DEBUG_KERNEL = 0 ] || hz=$DEBUG_HZ
BUDGET=$((16 * 1048576)) UBUDGET=$((4 * 1048576))
[ -x /usr/sbin/ustackd ] || fail "ustackd not built"
command -v trace-cmd >/dev/null || fail "no trace-cmd in the guest"
command -v perf >/dev/null || fail "no perf in the guest"
uptime_s() { cut -d. -f1 /proc/uptime; }
t0=$(uptime_s)
echo "seed $seed, $secs s in slices of $slice s"

UD= NP= TC= U= HR= CH= UM=
trap 'touch /tmp/hl/stop; kill $UD $NP $TC $U $HR 2>/dev/null; wait $CH $UM 2>/dev/null; umount /media/u 2>/dev/null' EXIT
ustack_unload
ustack_install
rm -rf /var/cache/ustack /tmp/hl
# /tmp/hl: the counts; /tmp/u: uid 65534's own
mkdir -p /tmp/hl /tmp/u /media/u
chown 65534:65534 /tmp/u
echo 2 >/proc/sys/kernel/perf_event_paranoid
[ -w /sys/kernel/debug/kmemleak ] && echo clear >/sys/kernel/debug/kmemleak
slab0=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)

# Store churn (uid 65534): each round's copy of libc is a new object.
libc=$(realpath /lib/x86_64-linux-gnu/libc.so.6)
cat >/tmp/u/churn.sh <<EOF
i=0
until [ -e /tmp/hl/stop ]; do
	i=\$((i + 1)); d=/tmp/u/churn/c\$i
	mkdir -p \$d && cp $libc \$d/libc.so.6 || exit 1
	LD_LIBRARY_PATH=\$d /tests/vm/bin/workload cpu \$((1 + i % 2)) >/dev/null || exit 1
	rm -rf \$d
	echo \$i >/tmp/u/churn.n
done
EOF
bin/as_nobody sh /tmp/u/churn.sh >/tmp/hl/churn.out 2>&1 & CH=$!

# The user-mounted image: root's programs (an image's contents) on the
# user's nosuid mount, run by uid 65534, under its perf every other run.
mount -t tmpfs -o nosuid,nodev tmpfs /media/u || fail "mount the user's file system"
(
	n=0
	until [ -e /tmp/hl/stop ]; do
		n=$((n + 1))
		cp bin/workload_nofp /media/u/p$n && chmod 755 /media/u/p$n || exit 1
		if [ $((n % 2)) = 0 ]; then
			bin/as_nobody perf record -q -e cpu-clock -F 99 -g -o /tmp/u/perf.data \
				/media/u/p$n cpu 2 >/tmp/hl/perf.out 2>&1 || exit 1
			[ -s /tmp/u/perf.data ] || exit 1
			echo perf >>/tmp/hl/mount.runs
		else
			bin/as_nobody /media/u/p$n cpu 2 >/dev/null || exit 1
			echo run >>/tmp/hl/mount.runs
		fi
		rm -f /media/u/p$((n - 2)) /tmp/u/perf.data
	done
) & UM=$!

# cycle_slice K: hostile_random for $slice s beside ustackd, root sampling
cycle_slice() {
	local k=$1 i=0
	ustack_load sample_hz=$hz offcpu=1 syscalls=mmap,munmap,mprotect,ioctl
	ustackd --no-system --rescan 1 --interval 50 --store-budget $BUDGET \
		--user-budget $UBUDGET 2>/tmp/hl/ud.log & UD=$!
	wait_ready /tmp/hl/ud.log
	record_start /dev/null
	./bin/hostile_random $slice $((seed + k)) 4 >/tmp/hl/rnd.out 2>&1 & HR=$!
	while kill -0 $HR 2>/dev/null; do
		i=$((i + 1))
		[ $i -lt $(((slice + 60) * 10)) ] ||
			fail "seed $((seed + k)): not back $((slice + 60)) s after a $slice s run: $(cat /tmp/hl/rnd.out)"
		sleep 0.1
	done
	wait $HR || fail "seed $((seed + k)): $(cat /tmp/hl/rnd.out)"
	HR=
	cat /tmp/hl/rnd.out >>/tmp/hl/rnd.all
	# ustackd sound, its store within budget (its count and the disk's)
	ustackd_sound /tmp/hl/ud.log
	[ "$UD_HWM" -le "${hwm_max:-0}" ] || hwm_max=$UD_HWM
	sb=$(sed -n 's/^store_bytes \([0-9]*\) .*/\1/p' /tmp/ud-status)
	[ -n "$sb" ] && [ "$sb" -le $BUDGET ] || fail "slice $k: store_bytes '$sb' (budget $BUDGET)"
	[ "$sb" -le "${sb_max:-0}" ] || sb_max=$sb
	du=$(du -sk /var/cache/ustack | cut -f1)
	[ "$du" -le $((BUDGET / 1024 + 8192)) ] || fail "slice $k: the store takes $du KiB (budget $((BUDGET / 1024)) KiB)"
	[ "$du" -le "${du_max:-0}" ] || du_max=$du
	ue=$(stat_of store_user_entries)
	[ "$ue" -le "${ue_max:-0}" ] || ue_max=$ue
	kill -TERM $UD; wait $UD || fail "ustackd exit $? after SIGTERM"
	UD=
	record_stop 0
	# hostile_random gone: only the per-mm state of the processes still
	# running (a few KiB); its cooperative processes' entries stay until
	# their slots are needed or the module goes (coop_procs.c)
	rb=$(stat_of registry_bytes) cp=$(stat_of coop_procs)
	[ "$rb" -le 65536 ] || fail "slice $k: registry_bytes $rb once hostile_random had ended"
	[ "$rb" -le "${rb_max:-0}" ] || rb_max=$rb
	walks=$(($(stat_of walks) + ${walks:-0}))
	# its own sleepers may owe walks for a second or two: 30 s
	ustack_unload 300
	refused=$((${refused:-0} + UNLOAD_REFUSED))
	echo "slice $k: registry_bytes $rb, coop_procs $cp; store_bytes $sb, $du KiB on disk, $ue user entries; ustackd peak RSS $UD_HWM kB; unload refused $UNLOAD_REFUSED times"
}

k=0 busy=0 rounds=0
while [ $(($(uptime_s) - t0)) -lt "$secs" ] || [ $k -lt 2 ]; do
	cycle_slice $k
	for r in 0 1; do
		unload_round $rounds $hz
		rounds=$((rounds + 1))
	done
	kill -0 $CH 2>/dev/null || fail "the store churn ended: $(cat /tmp/hl/churn.out)"
	kill -0 $UM 2>/dev/null || fail "the user-mount runs ended: $(cat /tmp/hl/perf.out)"
	k=$((k + 1))
done
touch /tmp/hl/stop
wait $CH || fail "the store churn: $(cat /tmp/hl/churn.out)"
wait $UM || fail "the user-mount runs: $(cat /tmp/hl/perf.out)"
CH= UM=
umount /media/u
[ ! -d /sys/module/ustack ] || fail "the module is still loaded"

churn=$(cat /tmp/u/churn.n 2>/dev/null || echo 0)
runs=$(grep -c run /tmp/hl/mount.runs)
perfs=$(grep -c perf /tmp/hl/mount.runs)
echo "$(($(uptime_s) - t0)) s: $k slices of hostile_random ($walks walks), $rounds unload rounds" \
	"($busy first tries in use), $refused unloads refused after a slice;" \
	"$churn store churn rounds, $runs user-mount runs and $perfs under perf"
echo "ustackd: peak RSS at most ${hwm_max} kB, store_bytes at most $sb_max (budget $BUDGET)," \
	"at most $du_max KiB on disk, $ue_max user entries; registry_bytes at most $rb_max"
awk -F'[= ]' '$1 ~ /^[a-z]+$/ && $2 ~ /^[0-9]+$/ { n[$1] += $2 }
	END { for (o in n) printf "%s=%d ", o, n[o]; print "" }' /tmp/hl/rnd.all
random_ops_ran /tmp/hl/rnd.all "seed $seed"
[ $k -ge 2 ] || fail "only $k slices"
for c in churn runs perfs; do
	eval "v=\$$c"
	[ "$v" -ge $k ] || fail "$c: $v, fewer than the $k slices"
done
echo "Slab: $slab0 kB before, $(awk '/^Slab:/ { print $2 }' /proc/meminfo) kB after (KASAN's quarantine holds freed objects)"
# Leaks: kmemleak's, those with a module's frame (the harness's filter)
if [ -w /sys/kernel/debug/kmemleak ]; then
	echo scan >/sys/kernel/debug/kmemleak; sleep 5
	echo scan >/sys/kernel/debug/kmemleak
	leaks=$(awk -f /opt/ustack/kmemleak-filter.awk /sys/kernel/debug/kmemleak | grep -c '^unreferenced object')
	echo "kmemleak: $leaks unreferenced objects with a module frame"
	[ "$leaks" = 0 ] || fail "kmemleak: $leaks leaks"
fi
echo ok
