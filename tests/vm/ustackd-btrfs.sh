# ustackd covers programs and libraries that live on btrfs subvolumes.
# There stat()'s st_dev is the subvolume's own anonymous device, while the
# kernel's keys (the store's and the miss queue's) and /proc/PID/maps name
# the superblock's; and inode numbers are per subvolume: the first files
# of two subvolumes have the same inode number, hence the same device and
# inode in every process's maps, though they are different files.  Two
# programs, each with its own libc, in two subvolumes (the same inode
# numbers), started before ustackd, and a third in a third subvolume
# started after it is ready, reach the outermost frame in >= 99% of their
# stacks; each program walked before ustackd was queued as a miss, each is
# registered once, and the covered ones are not reported as misses again
# (a rescan and the queue's retry later).
# kernels: 6.1 debug
# debug: skip (the debug kernel is tinyconfig: no block layer, loop or btrfs)
# modules: loop btrfs crc32c_generic xxhash_generic blake2b_generic
# btrfs: yes
# timeout: 600
. ./lib.sh
[ -x /usr/sbin/ustackd ] || fail "ustackd not built"
command -v mkfs.btrfs >/dev/null && command -v btrfs >/dev/null || fail "no btrfs-progs in the guest"
ustack_unload
rm -rf /var/cache/ustack
ustack_install	# depmod: the btrfs modules too
# the hashes btrfs asks the crypto API for first: their aliases are soft
# dependencies, which the guest's modprobe does not follow
for m in loop crc32c_generic xxhash_generic blake2b_generic btrfs; do
	modprobe $m || fail "modprobe $m"
done

dd if=/dev/zero of=/tmp/btrfs.img bs=1M count=0 seek=256 2>/dev/null
mkfs.btrfs -q /tmp/btrfs.img >/tmp/mkfs.log 2>&1 || fail "mkfs.btrfs: $(cat /tmp/mkfs.log)"
mkdir -p /mnt/b
mount -t btrfs -o loop /tmp/btrfs.img /mnt/b || fail "mount btrfs"
libc=/usr/lib/x86_64-linux-gnu/libc.so.6
for s in 1 2 3; do
	btrfs subvolume create /mnt/b/sv$s >/dev/null || fail "btrfs subvolume create"
done
# Each subvolume's first file gets the same inode number: sv1's and sv3's
# programs are copies of one, sv2's another program.
cp bin/workload_nofp /mnt/b/sv1/prog && cp $libc /mnt/b/sv1/libc.so.6 &&
	cp bin/workload /mnt/b/sv2/prog && cp $libc /mnt/b/sv2/libc.so.6 &&
	cp bin/workload_nofp /mnt/b/sv3/late && cp $libc /mnt/b/sv3/libc.so.6 &&
	sync || fail "copy into the subvolumes"

LD_LIBRARY_PATH=/mnt/b/sv1 /mnt/b/sv1/prog cpu 600 >/dev/null & PA=$!
LD_LIBRARY_PATH=/mnt/b/sv2 /mnt/b/sv2/prog cpu 600 >/dev/null & PB=$!
PL=
trap 'kill $PA $PB $PL $UD 2>/dev/null' EXIT
sleep 1

# The devices seen: stat's, the maps' and the superblock's (mountinfo).
hexdev() {	# hexdev PATH: stat's st_dev as the maps write it
	_d=$((0x$(stat -c %D "$1")))
	printf '%02x:%02x' $(((_d >> 8) & 0xfff)) $(((_d & 0xff) | ((_d >> 12) & 0xfff00)))
}
sb=$(awk '$5 == "/mnt/b" { print $3; exit }' /proc/self/mountinfo)
for p in $PA:/mnt/b/sv1/prog $PA:/mnt/b/sv1/libc.so.6 $PB:/mnt/b/sv2/prog $PB:/mnt/b/sv2/libc.so.6; do
	f=${p#*:}
	m=$(awk -v f="$f" '$6 == f && $2 ~ /x/ { print $4, $5; exit }' /proc/${p%%:*}/maps)
	[ -n "$m" ] || fail "pid ${p%%:*} does not map $f: $(grep -v ' 0 *$' /proc/${p%%:*}/maps)"
	echo "$f: stat dev $(hexdev "$f") ino $(stat -c %i "$f"); maps dev:ino ${m% *}:${m#* }; superblock $sb"
done
[ "$(hexdev /mnt/b/sv1/prog)" != "$(awk '$6 == "/mnt/b/sv1/prog" { print $4; exit }' /proc/$PA/maps)" ] ||
	fail "stat and the maps agree on the device: not what this test is about"
[ "$(stat -c %i /mnt/b/sv1/prog)" = "$(stat -c %i /mnt/b/sv2/prog)" ] &&
	[ "$(stat -c %i /mnt/b/sv1/prog)" = "$(stat -c %i /mnt/b/sv3/late)" ] ||
	fail "the subvolumes' programs have different inode numbers: not what this test is about"

ustack_load sample_hz=199 buffer_kb=16384

# Without ustackd: no unwind info the module can use.
record_start /tmp/rec0
sleep 2
record_stop
check_incomplete /tmp/rec0 "$PA $PB"

: >/tmp/ud.log
ustackd -v --no-system 2>/tmp/ud.log & UD=$!
wait_ready /tmp/ud.log
grep -E 'objects:|refused' /tmp/ud.log
# Each program walked without unwind info (its loop the first frame,
# where the walk stops) was queued as a miss, read by ustackd at its
# start: neither held back by the other, whose device and inode in the
# maps are the same.
for p in $PA:/mnt/b/sv1/prog $PB:/mnt/b/sv2/prog; do
	r=$(awk -v f="${p#*:}" '$6 == f && $2 ~ /x/ { print $1; exit }' /proc/${p%%:*}/maps)
	grep -q "^ustackd: miss: pid ${p%%:*} $r " /tmp/ud.log ||
		fail "${p#*:}: walked before ustackd, never queued as a miss (misses: $(grep '^ustackd: miss:' /tmp/ud.log | tr '\n' ';'))"
done
ustackd --status >/tmp/status || fail "ustackd --status"
grep ' /mnt/b/' /tmp/status
# At ready, each object by its own device and inode (stat's): none taken
# for another by the device and inode the maps give.
for o in /mnt/b/sv1/prog /mnt/b/sv1/libc.so.6 /mnt/b/sv2/prog /mnt/b/sv2/libc.so.6; do
	d=$((0x$(stat -c %D $o)))
	k=$(((d >> 8) & 0xfff)):$(((d & 0xff) | ((d >> 12) & 0xfff00))):$(stat -c %i $o)
	grep -q "^covered $k $o " /tmp/status || fail "$o ($k) not covered at ready"
done

record_start /tmp/rec1
sleep 4
record_stop
check_complete "after ready" /tmp/rec1 "$PA $PB"

# Started now: an object nobody covered, with the inode number of the
# others' programs.
LD_LIBRARY_PATH=/mnt/b/sv3 /mnt/b/sv3/late cpu 600 >/dev/null & PL=$!
record_start /tmp/rec2
sleep 1.5
record_stop
record_start /tmp/rec3
sleep 3
record_stop
check_complete "started after ready, from its second second" /tmp/rec3 "$PL"

# Registered once each; then, over a rescan and the queue's retry, no miss
# for them, nothing registered again, the kernel's entries the same.
registered() {	# registered PATH: ustackd's lines saying it registered PATH
	grep -c "^ustackd: $1: \(generated\|reused\) " /tmp/ud.log
}
for o in /mnt/b/sv1/prog /mnt/b/sv1/libc.so.6 /mnt/b/sv2/prog /mnt/b/sv2/libc.so.6 \
	/mnt/b/sv3/late /mnt/b/sv3/libc.so.6; do
	n=$(registered $o)
	echo "$o: registered $n time(s)"
	[ "$n" = 1 ] || fail "$o registered $n times: $(grep " $o" /tmp/ud.log)"
done
entries=$(stat_of store_entries)
lines=$(wc -l </tmp/ud.log)
record_start /tmp/rec4
sleep 12
record_stop
check_complete "12 s later" /tmp/rec4 "$PA $PB $PL"
tail -n +$((lines + 1)) /tmp/ud.log >/tmp/ud.tail
echo "ustackd's log meanwhile: $(wc -l </tmp/ud.tail) lines, $(grep -c '^ustackd: miss:' /tmp/ud.tail) misses"
grep -E "^ustackd: miss: pid ($PA|$PB|$PL) " /tmp/ud.tail &&
	fail "misses again for covered objects"
grep -E ' /mnt/b/.*(generated|reused|missed again)' /tmp/ud.tail &&
	fail "registered again"
[ "$(stat_of store_entries)" = "$entries" ] ||
	fail "the kernel's store entries: $entries, then $(stat_of store_entries)"
grep -E '^store_(entries|lookups|hits|miss_dropped) ' /sys/kernel/debug/ustack/stats

kill -TERM $UD
wait $UD
UD=
kill $PA $PB $PL 2>/dev/null
wait 2>/dev/null
umount /mnt/b || fail "umount"
ustack_unload
echo "ustackd-btrfs: ok"
