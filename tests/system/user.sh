# Installed as a user installs it (issue #24, steps 1-5 and 8), on a
# Debian system whose services (nginx, a python3 web application,
# postgresql, cron, sshd) run under systemd, AppArmor on, before ustack
# exists: `apt install ./ustack-dkms_*.deb ./ustack-tools_*.deb` offline
# (the dependencies the packages declare are in apt's archive, not
# installed), DKMS builds the module for the running kernel;
# `systemctl enable --now ustackd` returns once ustackd is ready
# (Type=notify), the unit loaded the module, its hardening leaves it the
# store alone to write; `ustack-report --duration 10 --summary`: every
# process with 50 samples or more has >= 99% complete user stacks, the
# services running before and programs started afterwards (psql, a cron
# job, a program under an AppArmor profile); an unprivileged user has
# /dev/sframe, its shim and ustack_backtrace(), not /dev/ustack; the
# web application's Python functions, read by the kernel; apt
# remove then purge leave nothing of ustack (file lists before and after).
# timeout: 3000
. ./lib.sh
DEFER=1	# every step's coverage is seen; the failures at the end
rm -f "$S/deferred.$NAME"

step "1. the system, before ustack"
wait_system
[ ! -d /sys/module/ustack ] || fail "ustack is loaded already"
! dpkg -s ustack-dkms ustack-tools >/dev/null 2>&1 || fail "ustack is installed already"
file_list >"$S/files.before"
echo "$(wc -l <"$S/files.before") files"

step "2. apt install ./ustack-dkms_*.deb ./ustack-tools_*.deb (offline)"
mkdir -p /tmp/debs && cp "$T"/debs/*.deb /tmp/debs/
t0=$(now)
( cd /tmp/debs && apt install -y ./ustack-dkms_*.deb ./ustack-tools_*.deb ) \
	>"$S/apt-install.log" 2>&1
rc=$?
grep -E -i -e 'dkms|error|warning|unmet|depends|newly installed|Setting up (ustack|dwarves)' \
	"$S/apt-install.log" | grep -v '^Get:' | head -n 40 | sed 's/^/  | /'
if [ $rc != 0 ]; then
	for f in /var/lib/dkms/ustack/*/build/make.log; do
		[ -f "$f" ] && { echo "  $f:"; tail -n 25 "$f" | sed 's/^/  | /'; }
	done
	fail "apt install: exit $rc: $(grep -E '^E: |rror' "$S/apt-install.log" | head -n 2 | paste -sd' ')"
fi
echo "installed in $(since "$t0") s: $(grep -c '^Setting up' "$S/apt-install.log") packages set up"
st=$(dkms status ustack 2>&1)
echo "$st" | sed 's/^/  dkms: /'
echo "$st" | grep -q ", $KREL, x86_64: installed" || fail "DKMS did not install the module for $KREL"
[ "$(modinfo -F vermagic ustack | cut -d' ' -f1)" = "$KREL" ] || fail "modinfo ustack: $(modinfo -n ustack 2>&1)"
echo "module: $(modinfo -n ustack)"

step "3. systemctl enable --now ustackd"
# The services busy (as a machine in use is) before ustackd starts: not
# during the install, whose DKMS build under TCG they would slow down.
start_load
[ ! -d /sys/module/ustack ] || fail "the module was loaded before the unit"
t_enable=$(now)
systemctl enable --now ustackd 2>&1 | sed 's/^/  | /'
t_ready=$(now)
# Step 4's recording starts now, its window opening at once (the checks
# below take a minute of their own on a busy host).
t_rec=$(since "$t_ready")
ustack-report --duration 10 --summary --save "$S/rec1.bin" >"$S/summary1" 2>"$S/report1.err" &
rec_pid=$!
echo "enable --now returned after $(since "$t_enable") s: $(systemctl is-active ustackd)"
# Type=notify: once systemctl returns, ustackd has said it is ready.
journalctl -q -o cat -u ustackd --no-pager | grep -qx 'ustackd: ready' ||
	{ unit_log ustackd; fail "systemctl returned before ustackd was ready"; }
[ "$(systemctl is-active ustackd)" = active ] || { unit_log ustackd; fail "ustackd is not active"; }
[ -d /sys/module/ustack ] || fail "the unit did not load the module"
[ "$(systemctl show -p Type --value ustackd)" = notify ] || fail "Type=$(systemctl show -p Type --value ustackd)"
unit_log ustackd 8
# Hardening: the daemon sees a read-only system, its store writable.
pid=$(systemctl show -p MainPID --value ustackd)
ro=$(findmnt --task "$pid" -no OPTIONS / | cut -d, -f1)
rw=$(findmnt --task "$pid" -no OPTIONS -T /var/cache/ustack/sframe | cut -d, -f1)
echo "ustackd (pid $pid) sees / $ro, its store $rw; $(systemctl show -p ProtectSystem,ProtectHome,PrivateNetwork,NoNewPrivileges ustackd | paste -sd' ')"
[ "$ro" = ro ] && [ "$rw" = rw ] || fail "the unit's mounts: / $ro, the store $rw"
# Exactly its store: nothing of the system's, the users' or the cache's
# beside it is writable in its mounts (root's own writes, in its mount
# namespace).
for d in /var/cache/ustack /var/cache /var/lib /var/log /etc /usr /usr/lib /boot /root /home /opt /srv; do
	nsenter -t "$pid" -m touch "$d/.ustackd-w" 2>/dev/null &&
		{ rm -f "$d/.ustackd-w"; fail "ustackd may write $d"; }
done
nsenter -t "$pid" -m touch /var/cache/ustack/sframe/.ustackd-w ||
	fail "ustackd may not write its store"
rm -f /var/cache/ustack/sframe/.ustackd-w

step "4. ustack-report --duration 10 --summary, as root"
# The issue's goal: >= 99% for every process within 60 s of `systemctl
# enable --now` (once it returned: its first start generates SFrame for
# every process, minutes under TCG); this window opened when it returned.
wait "$rec_pid" || fail "ustack-report: $(tail -n 2 "$S/report1.err")"
echo "recorded from $t_rec s to $(awk -v t="$t_rec" 'BEGIN { printf "%.1f", t + 10 }') s after enable returned (its output $(since "$t_ready") s after)"
awk -v t="$t_rec" 'BEGIN { exit !(t + 10 <= 60) }' || fail "the recording ended later than 60 s after enable"
sed -n -e '/^samples:/p' -e '/^complete user stacks:/p' -e '/^lost:/p' "$S/summary1"
coverage "$S/summary1" 50 "$S/rec1.bin"
ustack-report --svg "$S/rec1.bin" >"$S/flame1.svg" && grep -q '<svg' "$S/flame1.svg" ||
	fail "ustack-report --svg"
echo "--svg: $(wc -c <"$S/flame1.svg") bytes"

step "4b. programs started later: psql, a cron job, man (AppArmor)"
# Started from enable + 10 s on, whether or not ustackd's pass over the
# programs and libraries on disk has ended: what they map and ustackd has
# not met yet is covered at their first sample (the first-sample wait),
# so they too are held to 99%.
echo "started $(since "$t_enable") s after enable; ustackd's pass over the system: $(journalctl -q -o cat -b -u ustackd --no-pager | grep -c '^ustackd: system objects:') lines of its end so far"
# A cron job at the next minute, and the recording around it.
cat >/etc/cron.d/ustack-test <<'EOF'
* * * * * root /usr/bin/perl -e 'my $x = 0; for my $i (1 .. 4e6) { $x += sqrt($i) } print "$x\n"' >/dev/null
EOF
# (cron reads the new file at the minute, and runs it then)
sec=$(date +%-S); [ "$sec" -lt 55 ] || sleep $((61 - sec))
sleep $(( 57 - $(date +%-S) ))
ustack-report --duration 14 --summary --save "$S/rec2.bin" >"$S/summary2" 2>"$S/report2.err" &
rp=$!
sleep 2
for i in 1 2 3; do	# (psql formats the rows: its own work too)
	runuser -u postgres -- psql -qAt -c 'SELECT g, md5(g::text) FROM generate_series(1, 100000) g' >/dev/null
done &
pp=$!
# man runs under its AppArmor profile (Debian's man-db ships it)
( for i in 1 2 3 4; do man -P cat ls >/dev/null 2>&1; done ) &
mp=$!
sleep 1
aa=$(ps -eo label,comm | awk '$NF == "man" && $1 != "unconfined" { print $1; exit }')
wait $pp $mp $rp || fail "ustack-report: $(tail -n 2 "$S/report2.err")"
rm -f /etc/cron.d/ustack-test
echo "man ran confined by AppArmor: ${aa:-(not seen)}"
grep -qE '^ +[0-9]+ +[0-9.]+%  perl \[' "$S/summary2" || fail "the cron job (perl) was not sampled"
grep -qE '^ +[0-9]+ +[0-9.]+%  psql \[' "$S/summary2" || fail "psql was not sampled"
coverage "$S/summary2" 50 "$S/rec2.bin"
# Short processes are not held to 99% (too few samples to tell), but what
# ends theirs is shown: cron's child for the job was at 5% on trixie.
explain "$S/summary2" 15 "$S/rec2.bin"
# Issue 51: the web application, python3 under systemd and never opted
# in, is named by the kernel's walk: interpreter frames in its summary,
# its own functions in the flame graph.
wp=$(systemctl show -p MainPID --value webapp)
ustack-report --summary --pid "$wp" "$S/rec2.bin" >"$S/summary.webapp" 2>&1
iline=$(grep '^interpreter frames:' "$S/summary.webapp")
echo "the web application (pid $wp): ${iline:-no interpreter frames}"
ustack-report --svg --pid "$wp" "$S/rec2.bin" >"$S/flame.webapp.svg" 2>&1
if [ -z "$iline" ] || [ "$(echo "$iline" | awk '{ print $3 }')" = 0 ]; then
	fail "no interpreter frames of the web application in --summary"
elif ! grep -q 'primes' "$S/flame.webapp.svg" || ! grep -q 'do_GET' "$S/flame.webapp.svg"; then
	fail "the web application's primes and do_GET not in --svg"
fi
echo "$(wait_sysprep) (done $(since "$t_enable") s after enable)"
st() { sed -n "s/^$1 //p" /sys/kernel/debug/ustack/stats; }
echo "the kernel's store: $(st store_entries) entries, $(st store_bytes) bytes ($(awk -v b="$(st store_bytes)" -v n="$(st store_entries)" 'BEGIN { printf "%d", n ? b / n : 0 }') an entry); on disk: $(du -sh /var/cache/ustack/sframe | cut -f1)"
stop_load

step "5. an unprivileged user: /dev/sframe yes, /dev/ustack no"
echo "/dev/sframe $(stat -c '%a %U' /dev/sframe), /dev/ustack $(stat -c '%a %U' /dev/ustack)"
[ "$(stat -c '%a %U' /dev/sframe)" = "666 root" ] || fail "/dev/sframe: $(stat -c '%a %U' /dev/sframe)"
[ "$(stat -c '%a %U' /dev/ustack)" = "600 root" ] || fail "/dev/ustack: $(stat -c '%a %U' /dev/ustack)"
runuser -u tester -- cat /dev/ustack >/dev/null 2>&1 && fail "tester can read /dev/ustack"
# (sections_registered counts the walks that found a section a process
# registered: only a recording walks, so one runs meanwhile)
before=$(sed -n 's/^sections_registered //p' /sys/kernel/debug/ustack/stats)
ustack-report --duration 8 --summary --comm python3 >"$S/summary.shim" 2>&1 & rp=$!
sleep 1
out=$(runuser -u tester -- sframe-register run python3 -c 'print(sum(range(10 ** 7)))' 2>&1) ||
	fail "sframe-register run as tester: $out"
wait $rp || fail "ustack-report: $(tail -n 2 "$S/summary.shim")"
after=$(sed -n 's/^sections_registered //p' /sys/kernel/debug/ustack/stats)
echo "sframe-register run python3 as tester: $out; sections registered $before -> $after"
[ "${after:-0}" -gt "${before:-0}" ] || fail "the shim registered nothing for tester"
cp "$T"/src/bt.c "$T"/src/spin.c /tmp/ && chmod 0644 /tmp/bt.c /tmp/spin.c
runuser -u tester -- gcc -O2 -o /home/tester/bt /tmp/bt.c -lsframe-register ||
	fail "cc bt.c -lsframe-register"
out=$(runuser -u tester -- /home/tester/bt 2>&1) || fail "ustack_backtrace() as tester: $out"
echo "$out"
# A user's own program, in their home (which ustackd's unit does not see:
# ProtectHome=), without frame pointers: covered once ustackd had its miss.
runuser -u tester -- gcc -O2 -fomit-frame-pointer -o /home/tester/spin /tmp/spin.c || fail "cc spin.c"
# (runuser waits for it: the program is its child, found by name)
# The recording starts once ustackd says it covered the program (found
# by its scan of new processes), which a loaded host may take seconds to
# come to.
runuser -u tester -- /home/tester/spin 60 & rp=$!
t0=$(now)
until journalctl -q -o cat -u ustackd --no-pager | grep -q '/home/tester/spin: \(generated\|reused\)'; do
	[ "$(since "$t0" | cut -d. -f1)" -lt 30 ] || fail "ustackd did not cover /home/tester/spin in 30 s"
	sleep 0.2
done
echo "ustackd covered the user's program $(since "$t0") s after its start"
sp=$(pgrep -n -u tester -x spin) || fail "the user's program did not start"
ustack-report --duration 3 --summary --pid "$sp" --save "$S/rec3.bin" >"$S/summary3" 2>&1 ||
	fail "ustack-report --pid"
kill "$sp"
wait $rp
coverage "$S/summary3" 50 "$S/rec3.bin"

step "8. apt remove, then apt purge"
t0=$(now)
apt-get remove -y ustack-dkms ustack-tools >"$S/apt-remove.log" 2>&1 ||
	fail "apt remove: $(grep -E '^E: ' "$S/apt-remove.log" | head -n 1)"
grep -i -e ustack -e dkms "$S/apt-remove.log" | grep -v '^Removing' | head -n 8 | sed 's/^/  | /'
if [ -d /sys/module/ustack ]; then
	echo "the module stays loaded: refcnt $(cat /sys/module/ustack/refcnt)"
	grep -q '^active 0' /sys/kernel/debug/ustack/stats || fail "the module left loaded is not inert"
fi
left=$(ls /lib/modules/*/updates/dkms/ustack.ko* /usr/src/ustack-* /var/lib/dkms/ustack \
	/lib/systemd/system/ustackd.service /usr/sbin/ustackd 2>/dev/null | paste -sd' ')
[ -z "$left" ] || fail "apt remove left $left"
systemctl is-active -q ustackd && fail "ustackd still runs"
apt-get purge -y ustack-dkms ustack-tools >>"$S/apt-remove.log" 2>&1 ||
	fail "apt purge: $(grep -E '^E: ' "$S/apt-remove.log" | head -n 1)"
[ -e /var/cache/ustack ] && fail "apt purge left /var/cache/ustack: $(ls -A /var/cache/ustack | head -n 5 | paste -sd' ')"
apt-get autoremove --purge -y >>"$S/apt-remove.log" 2>&1
echo "removed and purged in $(since "$t0") s; autoremove: $(grep '^Removing' "$S/apt-remove.log" | grep -v ustack | cut -d' ' -f2 | paste -sd' ')"
file_list >"$S/files.after"
if ! diff "$S/files.before" "$S/files.after" >"$S/files.diff"; then
	sed 's/^/  | /' "$S/files.diff" | head -n 30
	fail "files differ after purge: $(grep -c '^[<>]' "$S/files.diff") (> left behind, < gone)"
fi
echo "the file list is as before the install: $(wc -l <"$S/files.after") files"
deferred_fail
