# A process in a container (make check-system): its own mount namespace
# and root (unshare --root, and systemd-nspawn), running its own copies of
# a program and its libraries, which no process outside maps: ustackd
# reaches them through /proc/PID/map_files/ and covers them (>= 99%
# complete once covered), each copy an object of its own.
# timeout: 1800
. ./lib.sh
step "a container root: perl and its libraries, copied"
ensure_installed
box=/srv/box
rm -rf "$box" && mkdir -p "$box"/{proc,dev,tmp,etc}
for f in /usr/bin/perl $(ldd /usr/bin/perl | awk '/=> \// { print $3 } /^\t\/.*ld-linux/ { print $1 }'); do
	cp --parents -L "$f" "$box/"
done
cp /etc/os-release "$box/etc/"
# perl -e reads its script's file from /dev/null (nspawn makes its own /dev)
mknod -m 666 "$box/dev/null" c 1 3
[ -e "$box/lib64" ] || ln -s usr/lib64 "$box/lib64" 2>/dev/null
echo "$(find "$box" -type f | wc -l) files; perl: inode $(stat -c %i "$box/usr/bin/perl") (the system's: $(stat -c %i /usr/bin/perl))"
# (It spins until killed once recorded, as long as ustackd takes.)
spin='my $e = time + 300; my $x = 0; while (time < $e) { $x += sqrt($_) for 1 .. 1000 }'

for how in unshare nspawn; do
	step "perl in its own root ($how)"
	if [ $how = unshare ]; then
		unshare --mount --pid --fork --root="$box" /usr/bin/perl -e "$spin" & cp=$!
	else
		systemd-nspawn -q --register=no --private-network -D "$box" /usr/bin/perl -e "$spin" & cp=$!
	fi
	i=0
	until pid=$(pgrep -n -x perl) && [ "$(stat -L -c %i /proc/$pid/exe 2>/dev/null)" = "$(stat -c %i "$box/usr/bin/perl")" ]; do
		i=$((i + 1)); [ $i -lt 100 ] || fail "the container's perl did not start"
		sleep 0.1
	done
	echo "pid $pid (in its namespace: $(awk '/^NSpid/ { print $NF }' /proc/$pid/status)), root $(readlink /proc/$pid/root)"
	# Its first misses served: the copies of perl and of the C library
	# (every walk ends in it) covered, however long ustackd took.
	waited=0
	for f in "$box/usr/bin/perl" "$box$(ldd /usr/bin/perl | awk '/libc\.so/ { print $3 }')"; do
		ino=$(stat -L -c %i "$f")
		until ustackd --status | grep -Eq "^covered [0-9]+:[0-9]+:$ino "; do
			waited=$((waited + 1))
			[ $waited -lt 1200 ] || fail "ustackd did not cover $f in 120 s"
			sleep 0.1
		done
	done
	echo "covered after $waited waits of 0.1 s"
	ustack-report --duration 6 --summary --pid "$pid" --save "$S/rec.$how" >"$S/summary.$how" 2>&1 ||
		fail "ustack-report"
	kill -KILL "$pid"	# its namespace's init: only KILL is forced
	wait $cp || true
	coverage "$S/summary.$how" 50 "$S/rec.$how"
	ustackd --status | grep -E "^covered [0-9]+:[0-9]+:$(stat -c %i "$box/usr/bin/perl") " >/dev/null ||
		fail "ustackd --status has no entry for the container's perl"
done
