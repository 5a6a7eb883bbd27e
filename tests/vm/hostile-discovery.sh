# Discovery verdicts under a user's churn (issue 25, item 9).  A victim
# whose own file carries PT_GNU_SFRAME (workload_sf, copied to a
# root-owned 0755 file: a system object) is sampled; its section is
# validated once.  Then nobody walks its own stack in a loop over a fake
# frame chain through 80 files of its own (more than the 64 slots of
# the old table) while the victim runs again: the victim's verdict must
# stay, with no re-validation of any system object
# (discovery_checks_system unchanged), and its stacks must still come
# from its SFrame.  rule_cache=0: every frame asks discovery.
# kernels: 6.1 debug
. ./lib.sh
ustack_load sample_hz=199 rule_cache=0
mkdir -p /opt/victim /tmp/thrash
cp bin/workload_sf /opt/victim/workload_sf
chmod 0755 /opt/victim/workload_sf
chown 65534:65534 /tmp/thrash
record_start /tmp/disc.rec
/opt/victim/workload_sf cpu 1
c0=$(stat_of discovery_checks_system)
[ -n "$c0" ] || fail "no discovery_checks_system in the stats"
[ "$c0" -ge 1 ] || fail "the victim's section was never validated (discovery_checks_system $c0)"
bin/as_nobody bin/disc_thrash /tmp/thrash 80 6 >/tmp/thrash.out 2>&1 &
tp=$!
sleep 1
/opt/victim/workload_sf cpu 3
c1=$(stat_of discovery_checks_system)
wait $tp || fail "disc_thrash: $(cat /tmp/thrash.out)"
record_stop
all=$(stat_of discovery_checks)
ustack_unload
echo "victim's system verdicts re-validated under the churn: $((c1 - c0)) ($c0 before);" \
	"all checks $all; thrasher: $(cat /tmp/thrash.out)"
grep -q '^walks [1-9]' /tmp/thrash.out || fail "the thrasher made no walk: $(cat /tmp/thrash.out)"
grep -q 'frames 8[0-9]' /tmp/thrash.out || fail "the thrasher's walks missed its chain: $(cat /tmp/thrash.out)"
[ "$c1" = "$c0" ] || fail "system verdicts evicted and re-validated $((c1 - c0)) times under a user's churn"
