# Files that look root's but are a user's: a file system a user mounts
# (udisks' loop images and removable media, fstab's "user": nosuid, as
# such mounts always are; here a tmpfs mounted so, which the user's
# image stands for) holds root's files that the user wrote, any content.
# Their store entries are the user's kind, not the system's: at most
# store_user_max of them, the oldest evicted, and a full store still
# takes the system's libc.  (Counted as system entries, 24 such files
# filled a store of 24 that then refused libc: never evicted.)  The same
# files on a root-mounted file system stay the system's.
# kernels: 6.1 debug
. ./lib.sh
ustack_load
obj=/tests/vm/bin/workload_nofp
libc=$(realpath /lib/x86_64-linux-gnu/libc.so.6)
mkdir -p /tmp/store /media/u
sframe-register gen $obj -o /tmp/store/w.elf --version 3 || fail "gen $obj"
sframe-register gen $libc -o /tmp/store/libc.elf --version 3 || fail "gen $libc"
mount -t tmpfs -o nosuid,nodev tmpfs /media/u || fail "mount the user's file system"
trap 'umount /media/u 2>/dev/null' EXIT
n=$(long 40 24)
param_set store_user_max 16
i=0
while [ $i -lt $n ]; do
	i=$((i + 1))
	cp $obj /media/u/p$i && chmod 755 /media/u/p$i
	[ "$(stat -c '%u %a' /media/u/p$i)" = "0 755" ] || fail "not root's file"
	bin/sframe_store add /media/u/p$i /tmp/store/w.elf 2>/dev/null
done
e=$(stat_of store_entries) u=$(stat_of store_user_entries)
echo "$n root-owned files on a nosuid mount: store_entries $e, store_user_entries $u"
[ "$u" -ge 1 ] && [ "$u" -le 16 ] && [ "$e" -le 16 ] ||
	fail "the user's mount's files counted as the system's: store_entries $e, store_user_entries $u (store_user_max 16)"
# a full store still takes the system's libc
param_set store_max "$e"
bin/sframe_store add $libc /tmp/store/libc.elf ||
	fail "root's libc refused by a store full of the user's mount's files"
# the same file on the root file system is the system's
u0=$(stat_of store_user_entries)
param_set store_max 16384
cp $obj /root/sys-prog && chmod 755 /root/sys-prog
bin/sframe_store add /root/sys-prog /tmp/store/w.elf || fail "add root's own file"
[ "$(stat_of store_user_entries)" = "$u0" ] ||
	fail "a root file on the root file system counted as a user's"
grep '^store_' /sys/kernel/debug/ustack/stats
umount /media/u
ustack_unload
echo ok
