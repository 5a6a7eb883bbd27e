# Helpers of the whole-system tests (sourced by tests/system/*.sh, bash, in
# the Debian guest, as root, from the test disk /run/ustack-test).
T=/run/ustack-test
S=/var/lib/ustack-test
mkdir -p "$S"
NAME=${0##*/}
NAME=${NAME%.sh}
KREL=$(uname -r)

# fail WHY: the test's result says WHY (guest-run.sh).
fail() {
	echo "FAIL: $*"
	echo "$*" 2>/dev/null >"$S/why.$NAME" || echo "$*" >"/run/why.$NAME"
	exit 1
}
now() { cut -d' ' -f1 /proc/uptime; }
since() { awk -v t0="$1" '{ printf "%.1f", $1 - t0 }' /proc/uptime; }
step() { echo; echo "== $* (at $(now) s)"; }

# phase: where this test was before a reboot (0 at first).
phase() { cat "$S/phase.$NAME" 2>/dev/null || echo 0; }
reboot_into() {	# reboot_into PHASE [kexec]: the runner reboots (into
	# the kernel loaded with kexec) and runs us again
	echo "$1" >"$S/phase.$NAME"
	sync
	[ "${2:-}" = kexec ] && exit 101
	exit 100
}

# The system is up: systemd says so, and the services answer.
wait_system() {
	local st u
	st=$(timeout 600 systemctl is-system-running --wait)
	echo "systemd: $st"
	[ "$st" = running ] || {
		systemctl --failed --no-legend | sed 's/^/  failed: /'
		[ "$st" = degraded ] || fail "the system is $st"
	}
	for u in nginx postgresql webapp cron ssh systemd-journald systemd-udevd apparmor; do
		systemctl is-active -q "$u" || fail "$u is $(systemctl is-active "$u")"
	done
	i=0
	until curl -sf http://127.0.0.1/app/?n=100 >/dev/null &&
	      runuser -u postgres -- psql -qAtc 'SELECT 1' >/dev/null 2>&1; do
		i=$((i + 1)); [ $i -lt 120 ] || fail "nginx, the web application or postgresql do not answer"
		sleep 1
	done
	[ "$(cat /sys/module/apparmor/parameters/enabled 2>/dev/null)" = Y ] ||
		fail "AppArmor is not enabled"
	echo "up: nginx, webapp (python3 http.server), postgresql, cron, ssh; AppArmor: $(aa-status --profiled 2>/dev/null) profiles"
}

# Work for the services, as a machine in use has: a python3 client keeps
# nginx and the web application behind it busy, a database session runs a
# long query.  Their pids: LOAD_PIDS.
start_load() {
	python3 "$T/load_web.py" >/dev/null 2>&1 &
	LOAD_PIDS=$!
	# (PL/pgSQL: a planned query that costly would be JIT-compiled, and
	# code made at run time has no unwind information ustack can read)
	PGAPPNAME=ustack-load runuser -u postgres -- psql -qAt -c "SET statement_timeout = '30min'" \
		-c 'DO $$ DECLARE s bigint := 0; BEGIN FOR i IN 1 .. 2000000000 LOOP s := s + i % 7; END LOOP; END $$' \
		>/dev/null 2>&1 &
	LOAD_PIDS="$LOAD_PIDS $!"
	sleep 2
}
stop_load() {
	kill $LOAD_PIDS 2>/dev/null
	runuser -u postgres -- psql -qAt -c "SELECT pg_cancel_backend(pid) FROM pg_stat_activity
		WHERE application_name = 'ustack-load'" >/dev/null 2>&1
	wait $LOAD_PIDS 2>/dev/null
}

# The names of every file of the root file system but those a running
# system changes by itself (logs, databases, apt's and dpkg's state, the
# tests' own files, users' homes), DKMS's module signing key, which dkms
# makes at its first module build and keeps for all later ones (it may be
# enrolled in the firmware: no module's purge removes it), and ldconfig's
# aux-cache, which the first install of any library makes.
file_list() {
	find / -xdev \( -path /proc -o -path /sys -o -path /dev -o -path /run -o -path /tmp \
		-o -path /var/tmp -o -path /var/log -o -path /var/lib/postgresql -o -path "$S" \
		-o -path /var/cache/apt -o -path /var/lib/apt -o -path /var/cache/man -o -path /root \
		-o -path /home -o -path /var/lib/systemd/timers -o -path /var/lib/systemd/coredump \
		-o -path /var/cache/debconf -o -path /var/lib/dpkg/updates \) -prune -o -print |
		grep -v -e '^/var/lib/dpkg/[^/]*-old$' -e '^/var/lib/systemd/random-seed$' \
			-e '^/var/lib/dpkg/triggers/' -e '^/var/lib/dpkg/lock' \
			-e '^/var/lib/dkms/mok\.\(key\|pub\)$' -e '^/var/cache/ldconfig/aux-cache$' | sort
}

# coverage SUMMARY MIN [RECORDING]: the processes of ustack-report
# --summary's table; fails unless each with at least MIN samples has >= 99%
# complete stacks.  With the recording, a process under 99% passes if it
# does once the walks that ended in ld.so's lazy binding (lazy_samples)
# are left out, and those are at most 3% of its samples.
coverage() {
	local bad lazy l n pid
	awk '/^processes \(samples, complete user stacks\):/ { on = 1; next }
	     on && /^  / && n++ < 40 { printf "  %8d samples %7s complete  %s %s\n", $1, $2, $3, $4; next }
	     on && !/^  / { on = 0 }' "$1"
	grep "^exec'd before the walk" "$1" || true
	bad=$(awk -v min="$2" '/^processes \(samples, complete user stacks\):/ { on = 1; next }
	     on && /^  / { p = $2; sub(/%/, "", p); if ($1 >= min && p + 0 < 99) printf "%s %s (%d samples, %s); ", $3, $4, $1, $2; next }
	     on { on = 0 }' "$1")
	[ -n "$(awk -v min="$2" '/^processes/ { on = 1; next } on && /^  / && $1 >= min { n++ } END { print n + 0 }' "$1" | grep -v '^0$')" ] ||
		fail "no process has $2 samples"
	[ -z "$bad" ] && return
	if [ -n "${3:-}" ]; then
		lazy=
		# (pid:samples:share of each process under 99%, from the table)
		for l in $(awk -v min="$2" '/^processes \(samples, complete user stacks\):/ { on = 1; next }
			on && /^  / { p = $2; sub(/%/, "", p); gsub(/[][]/, "", $4)
				if ($1 >= min && p + 0 < 99) print $4 ":" $1 ":" p; next }
			on { on = 0 }' "$1"); do
			pid=${l%%:*}
			n=$(lazy_samples "$3" "$pid")
			echo "  pid $pid: $n walks ended in ld.so's lazy binding (README, limits)"
			# (the complete count, from the table's total and share)
			awk -v s="${l#*:}" -v n="$n" 'BEGIN { split(s, a, ":"); t = a[1]
				c = int(t * a[2] / 100 + 0.5)
				exit !(n * 100 <= 3 * t && c * 100 >= 99 * (t - n)) }' ||
				lazy="$lazy$(echo "$bad" | grep -o "[^;]*\[$pid\] ([^)]*)" | sed 's/^ //'); "
		done
		explain "$1" "$2" "$3"
		bad=$lazy
		[ -n "$bad" ] || return 0
	fi
	# (with DEFER=1, the test goes on and deferred_fail ends it: the
	# later steps' figures are seen too)
	[ -n "${DEFER:-}" ] || fail "under 99% complete: $bad"
	echo "under 99% complete: $bad" | tee -a "$S/deferred.$NAME"
}

# lazy_samples RECORDING PID: how many of PID's walks ended on a bad frame
# whose last frame returns into ld.so's code that keeps its CFA in rbx
# (the lazy-binding trampolines _dl_runtime_resolve_*, after they realign
# the stack: SFrame cannot recover rbx for a caller's frame, README's
# limits).  The code is found in ld.so's own .eh_frame, not by address.
lazy_samples() {
	local ld lo hi off n=0 ranges
	ld=$(readlink -f /lib64/ld-linux-x86-64.so.2)
	ranges=$(readelf -wF "$ld" | awk '/ FDE / { split($NF, r, /[=.]+/); pc = r[2] " " r[3] }
		/rbx\+/ && !seen[pc]++ { print pc }')
	for off in $(ustack-report --perf -v --pid "$2" "$1" 2>/dev/null | awk -v ld="$ld" '
		BEGIN { RS = "" } / end=bad-frame / {
			n = split($0, l, "\n"); f = ""
			for (i = n; i > 1 && f == ""; i--) if (l[i] ~ / method=/) f = l[i]
			if (index(f, "(" ld ")") && match(f, /offset=0x[0-9a-f]+/))
				print substr(f, RSTART + 9, RLENGTH - 9) }'); do
		while read -r lo hi; do
			[ $((16#$off - 1)) -ge $((16#$lo)) ] && [ $((16#$off - 1)) -lt $((16#$hi)) ] &&
				{ n=$((n + 1)); break; }
		done <<<"$ranges"
	done
	echo $n
}

# The coverage failures DEFER=1 put off, if any: fail with them now.
deferred_fail() {
	[ ! -s "$S/deferred.$NAME" ] || fail "$(paste -sd' ' "$S/deferred.$NAME")"
}

# An awk function: the object and method of a sample's last user frame
# ("(/usr/bin/ps) method=sframe"), or "".  A sample's lines from its
# second on are frames; an incomplete one ends in an [incomplete: ...]
# line, so the last line with a method= is the last frame.
LAST_FRAME='function last_frame(s,   l, n, i) {
	n = split(s, l, "\n")
	for (i = n; i > 1; i--)
		if (match(l[i], /\([^()]*\) method=[^ ]+/)) return substr(l[i], RSTART, RLENGTH)
	return ""
}
'

# explain SUMMARY MIN RECORDING: why the processes under 99% (with MIN
# samples or more) have incomplete stacks: their end reasons, the object
# of the last frame each incomplete walk reached with the first and last
# such sample's time (CLOCK_MONOTONIC, as the journal's), and what
# ustackd logged for those objects, when.
explain() {
	local pid obj
	echo "ustackd ready at $(journalctl -q -o short-monotonic -b -u ustackd --no-pager |
		grep -m1 'ustackd: ready' | sed 's/^\[ *\([0-9.]*\)\].*/\1/') s"
	# which SFrame code ended the bad-frame walks, system-wide
	echo "bad frames by code: $(grep '^bad_frame_' /sys/kernel/debug/ustack/stats 2>/dev/null | paste -sd' ')"
	for pid in $(awk -v min="$2" '/^processes \(samples, complete user stacks\):/ { on = 1; next }
	     on && /^  / { p = $2; sub(/%/, "", p); if ($1 >= min && p + 0 < 99) { gsub(/[][]/, "", $4); print $4 }; next }
	     on { on = 0 }' "$1"); do
		echo "  pid $pid: end reasons: $(ustack-report --summary --pid "$pid" "$3" 2>/dev/null |
			sed -n '/^end reasons:/,/^[^ ]/{/^  /p}' | awk '{ n = $1; $1 = $2 = ""; sub(/^ +/, ""); printf "%s %s; ", $0, n }')"
		ustack-report --perf -v --pid "$pid" "$3" 2>/dev/null | awk "$LAST_FRAME"'
			BEGIN { RS = "" }
			{	match($0, /[0-9]+\.[0-9]+: 1 /); t = substr($0, RSTART, RLENGTH - 4)
				match($0, / end=[^ ]+/); e = substr($0, RSTART + 5, RLENGTH - 5)
				o = last_frame($0); o = o == "" ? "(no user frame)" : o
				k = e == "outermost" ? "complete" : "end=" e " last " o
				c[k]++; if (!(k in t0)) t0[k] = t; t1[k] = t }
			END { for (k in c) printf "    %6d %s, at %s .. %s s\n", c[k], k, t0[k], t1[k] }' |
			sort -k1,1nr | head -n 12
		# the first of each end reason whole, kernel frames too
		ustack-report --perf -v --pid "$pid" "$3" 2>/dev/null |
			awk 'BEGIN { RS = ""; ORS = "\n\n" } !/ end=outermost / {
				match($0, / end=[^ ]+/); if (!seen[substr($0, RSTART, RLENGTH)]++) print }' |
			sed 's/^/      | /'
	done
	ustack-report --perf -v "$3" 2>/dev/null | awk "$LAST_FRAME"'BEGIN { RS = "" } !/ end=outermost / {
		o = last_frame($0); if (match(o, /^\(\/[^()]*\)/)) print substr(o, 2, RLENGTH - 2) }' |
		sort | uniq -c | sort -nr | head -n 8 | while read -r _ obj; do
		echo "  ustackd on $obj: $(journalctl -q -o short-monotonic -b -u ustackd --no-pager |
			grep -F -- "$obj:" | head -n 2 | paste -sd' ')"
	done
}

# The journal of the unit since it started, for the log.
unit_log() { journalctl -q -o cat -b -u "$1" --no-pager | tail -n "${2:-20}" | sed 's/^/  | /'; }

# ustack installed from the test disk's packages and ustackd enabled, as
# user.sh does step by step (for the tests of what comes after).
ensure_installed() {
	if ! dpkg -s ustack-tools >/dev/null 2>&1; then
		mkdir -p /tmp/debs && cp "$T"/debs/*.deb /tmp/debs/
		( cd /tmp/debs && apt install -y ./ustack-dkms_*.deb ./ustack-tools_*.deb ) \
			>"$S/apt-install.log" 2>&1 ||
			fail "apt install: $(grep -E '^E: ' "$S/apt-install.log" | head -n 2 | paste -sd' ')"
	fi
	systemctl enable --now ustackd 2>/dev/null || { unit_log ustackd; fail "systemctl enable --now ustackd"; }
}

# Until ustackd's pass over the system's programs and libraries is done
# (its log's "system objects:" line of this boot, after START, a journal
# cursor, if given), at most 30 minutes; prints that line.
wait_sysprep() {
	local i=0 line
	until line=$(journalctl -q -o cat -b -u ustackd --no-pager ${1:+--after-cursor="$1"} |
		     grep -E '^ustackd: system objects:|^ustackd: system objects: the preparer' | tail -n1) &&
	      [ -n "$line" ]; do
		i=$((i + 1)); [ $i -lt 1800 ] || fail "ustackd's pass over the system did not end in 30 min"
		systemctl is-active -q ustackd || { unit_log ustackd; fail "ustackd stopped"; }
		sleep 1
	done
	echo "$line"
}
# A journal cursor: what is logged after it is new.
cursor() { journalctl -q -n 0 --show-cursor --no-pager | sed -n 's/^-- cursor: //p'; }
