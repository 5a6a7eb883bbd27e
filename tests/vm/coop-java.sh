# Cooperative unwinding of Debian's openjdk-17 (a java.base runtime made
# by its jlink, /opt/java) with the JVM agent (libustack-jvm.so), under
# the shim at 999 Hz, running CoopChain (main -> a -> b -> c):
# at least 90% of its Java thread's samples in Java code (the innermost
# frame in the code cache; coop-java.awk) while CoopChain runs get an
# interp record of lang java showing the chain in order, and at least
# 90% of them the whole chain; its output is byte-identical with and
# without ustack; the report puts the Java frames in place of the code
# cache's.
# java: yes
# kernels: full (none: make check-full alone: a JVM, node or a third
# Python under TCG takes minutes)
# timeout: 1500
. ./lib.sh
[ -x /opt/java/bin/java ] || fail "no /opt/java in the guest"
[ -f /usr/lib/ustack/libustack-jvm.so ] || fail "no JVM agent in the guest"
# A small heap, one collector thread: the guest's memory.  Both JIT
# compilers: C1 alone leaves inlined methods out of AsyncGetCallTrace's
# stacks more often.  Few long rounds: c runs compiled on its own (its
# loop's OSR code), as the time of a program's hot loop does; c inlined
# into b is tests/coop's java-inlined, on the host.  (Inlined, in this
# guest under TCG, c was left out of more than half the answers, though
# the host's run names it in all: not explained yet.)
JAVA="/opt/java/bin/java -Xmx48m -Xss512k -XX:+UseSerialGC -XX:-UsePerfData
	-XX:+PreserveFramePointer -cp bin"
rounds="40 2000000"
# shellcheck disable=SC2086
$JAVA CoopChain $rounds >/tmp/plain.out 2>/tmp/plain.err || fail "java: $(head -3 /tmp/plain.err)"
ustack_load sample_hz=999 buffer_kb=32768 coop_timeout_ms=200
record_start /tmp/java.rec
# shellcheck disable=SC2086
sframe-register run $JAVA -agentpath:/usr/lib/ustack/libustack-jvm.so CoopChain $rounds \
	>/tmp/java.out 2>/tmp/java.err &
P=$!
wait $P || fail "java under the shim: exit $?: $(head -3 /tmp/java.err)"
record_stop 1
cmp /tmp/plain.out /tmp/java.out || fail "output differs with ustack"
grep -E '^(coop_|dropped )' /sys/kernel/debug/ustack/stats | tr '\n' ' '; echo
awk -v PID=$P -f coop-java.awk /tmp/java.rec >/tmp/java.res
cat /tmp/java.res
set -- $(sed -n 's/^java_samples //p' /tmp/java.res)
js=$1 ok=$3 ordered=$5 full=$7 badlang=${11}
[ "$js" -ge 100 ] || fail "only $js samples in Java code"
[ "$badlang" = 0 ] || fail "$badlang answers not lang=java"
[ $((ordered * 100)) -ge $((js * 90)) ] ||
	fail "$ordered of $js samples in Java code show the chain in order (< 90%); $ok answered"
[ $((full * 100)) -ge $((js * 90)) ] || fail "only $full of $js samples with the whole chain (< 90%)"
ustack-report --folded --pid $P /tmp/java.rec >/tmp/java.folded || fail "ustack-report"
grep -q 'CoopChain.main (CoopChain.java);CoopChain.a (CoopChain.java);CoopChain.b (CoopChain.java);CoopChain.c (CoopChain.java)' \
	/tmp/java.folded || fail "no folded stack with the chain: $(sort -t' ' -k2 -n /tmp/java.folded | tail -2)"
echo "coop-java: $ordered of $js samples in Java code show the chain in order ($full whole), $ok answered"
