# A full /var (make check-system): with the file system of the store full,
# a new program's entry cannot be written; ustackd says so in its log and
# keeps running, the entries registered before keep serving the services
# (>= 99% complete), the module works; once there is room again, a reload
# covers the new program.
# timeout: 1800
. ./lib.sh
step "installed; a new program, not covered yet"
ensure_installed
wait_sysprep >/dev/null
cp "$T/src/spin.c" /tmp/spin.c
gcc -O2 -fomit-frame-pointer -o /usr/local/bin/spin-late /tmp/spin.c || fail "cc spin.c"

step "the file system of /var full"
# (the test's own files, $S under /var, go to /run meanwhile)
F=/run/ustack-fullvar
mkdir -p $F
# Room again however this ends: a full root broke every later variant.
trap 'rm -f /var/tmp/fill' EXIT
c=$(cursor)
read -r free bsize < <(stat -f -c '%f %S' /var/cache/ustack/sframe)
fallocate -l $((free * bsize)) /var/tmp/fill 2>/dev/null ||
	dd if=/dev/zero of=/var/tmp/fill bs=1M status=none 2>/dev/null
sync
echo "free: $(stat -f -c '%f' /var/cache/ustack/sframe) blocks"
echo x 2>/dev/null >/var/cache/ustack/sframe/.probe && fail "the store is still writable"
/usr/local/bin/spin-late 8 & sp=$!
start_load
ustack-report --duration 10 --summary --save $F/rec.full >$F/summary.full 2>&1 ||
	fail "ustack-report with /var full: $(tail -n 3 $F/summary.full)"
wait $sp
echo "ustackd's log:"
journalctl -q -o cat -u ustackd --no-pager --after-cursor="$c" | head -n 8 | sed 's/^/  | /'
journalctl -q -o cat -u ustackd --no-pager --after-cursor="$c" | grep -q 'No space left on device' ||
	fail "ustackd did not say the store is full"
[ "$(systemctl is-active ustackd)" = active ] || fail "ustackd stopped"
awk '/^processes/ { on = 1; next } on && /spin-late/' $F/summary.full | sed 's/^/  not covered, as expected: /'
# the services' entries were registered before: they keep serving
grep -v 'spin-late' $F/summary.full >$F/summary.full.others
coverage $F/summary.full.others 50 $F/rec.full

step "room again: systemctl reload ustackd covers what it could not"
rm -f /var/tmp/fill
sync
c=$(cursor)
systemctl reload ustackd
wait_sysprep "$c"
/usr/local/bin/spin-late 10 & sp=$!
ustack-report --duration 8 --summary --pid $sp --save "$S/rec.room" >"$S/summary.room" 2>&1 || fail "ustack-report"
wait $sp
stop_load
coverage "$S/summary.room" 50 "$S/rec.room"
