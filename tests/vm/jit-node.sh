# JIT frames by the perf map convention: Debian 12's nodejs (unpacked from
# bookworm, scripts/runtimes.conf: the same node whatever the host has)
# runs jit_prog.js under --perf-basic-prof (and
# --interpreted-frames-native-stack: interpreted functions get code of
# their own too), under the shim, sampled at 999 Hz, recorded by
# ustack-report --duration --save, which reads node's
# /tmp/perf-PID.map while node runs.  After node is gone and its map
# removed, the saved recording still names the JIT frames: at least 90%
# of node's samples in JIT code show jit_prog.js's functions in call
# order, held by node's native frames.  Its output is unchanged.
# runtime: nodejs
# kernels: full (none: make check-full alone: a JVM, node or a third
# Python under TCG takes minutes)
# timeout: 1800
. ./lib.sh
N=/opt/runtimes/nodejs
[ -x $N/ld.sh ] || fail "no nodejs in the guest"
# Debian's node loads some of its built-in modules from /usr/share/nodejs.
mkdir -p /usr/share
ln -sfn $N/usr/share/nodejs /usr/share/nodejs
NODE="$N/ld.sh usr/bin/node --perf-basic-prof --interpreted-frames-native-stack"
rounds=30
# shellcheck disable=SC2086
$NODE jit_prog.js $rounds >/tmp/plain.out 2>/tmp/plain.err || fail "node: $(head -3 /tmp/plain.err)"
# The shim's SFrame for libnode (46 MB), generated once, before timing.
t0=$(cut -d" " -f1 /proc/uptime)
# shellcheck disable=SC2086
sframe-register run $NODE -e 0 || fail "node under the shim"
echo "shim cache for node: $(cut -d" " -f1 /proc/uptime) - $t0 s"
rm -f /tmp/perf-*.map
ustack_load sample_hz=999 buffer_kb=32768
ustack-report --duration 1000 --save /tmp/node.rec --summary >/tmp/node.live 2>/tmp/node.live.err &
R=$!
i=0
until grep -q '^active 1' /sys/kernel/debug/ustack/stats; do
	i=$((i + 1)); [ $i -lt 200 ] || fail "ustack-report did not start"
	sleep 0.05
done
# shellcheck disable=SC2086
sframe-register run $NODE jit_prog.js $rounds >/tmp/node.out 2>/tmp/node.err &
P=$!
wait $P || fail "node under the shim: exit $?: $(head -3 /tmp/node.err)"
echo "node ran: $(cut -d" " -f1 /proc/uptime) s"
sleep 1
kill -INT $R
wait $R || fail "ustack-report --duration: exit $?: $(head -3 /tmp/node.live.err)"
cmp /tmp/plain.out /tmp/node.out || fail "output differs with ustack"
[ -s /tmp/perf-$P.map ] || fail "node wrote no /tmp/perf-$P.map"
echo "node's map: $(wc -l </tmp/perf-$P.map) entries, $(grep -c 'jit_prog\.js' /tmp/perf-$P.map) of jit_prog.js"
echo "recorded: $(cut -d" " -f1 /proc/uptime) s, $(wc -c </tmp/node.rec) bytes"
rm -f /tmp/perf-$P.map
ustack-report --perf --pid $P /tmp/node.rec >/tmp/node.perf || fail "ustack-report of the saved recording"
echo "reported: $(cut -d" " -f1 /proc/uptime) s"
awk -v PID=$P -f jit-node.awk /tmp/node.perf >/tmp/node.res
cat /tmp/node.res
set -- $(sed -n 's/^jit_samples //p' /tmp/node.res)
jit=$1 good=$3
[ "$jit" -ge 100 ] || fail "only $jit samples in JIT code"
[ $((good * 100)) -ge $((jit * 90)) ] || fail "$good of $jit samples in JIT code in call order (< 90%)"
echo "jit-node: $good of $jit samples in JIT code name jit_prog.js's functions in call order"
