# A read-only root (make check-system): / mounted read-only, the store's
# file system with it.  ustackd starts, registers the entries its store
# holds (written before), covers the processes running (>= 99% complete)
# and a program started later whose objects the store holds, from its
# first sample; what it cannot write it says.
# timeout: 2400
. ./lib.sh
case $(phase) in
0)
	step "installed; the store written; / read-only from the next boot"
	ensure_installed
	wait_sysprep
	sed -i 's|^/dev/vda\t/\text4\t|/dev/vda\t/\text4\tro,|' /etc/fstab
	cat /etc/fstab
	reboot_into 1 ;;
esac

step "a read-only root"
echo "/: $(findmnt -no OPTIONS /)"
[ "$(findmnt -no OPTIONS / | cut -d, -f1)" = ro ] || fail "/ is not read-only"
timeout 600 systemctl is-system-running --wait >/dev/null
systemctl --failed --no-legend | sed 's/^/  failed (a read-only root): /'
[ "$(systemctl is-active ustackd)" = active ] || { unit_log ustackd 20; fail "ustackd is not active"; }
unit_log ustackd 8
wait_sysprep
ustack-report --duration 14 --summary --save /run/rec.ro >/run/summary.ro 2>&1 & rp=$!
sleep 2
perl -e 'my $e = time + 8; my $x = 0; while (time < $e) { $x += sqrt($_) for 1 .. 1000 }' &
python3 -c 'import time
e = time.time() + 8
while time.time() < e:
    sum(i * i for i in range(1000))' &
wait $rp
wait
coverage /run/summary.ro 50 /run/rec.ro
grep -qE '  (perl|python3) \[' /run/summary.ro || fail "the programs started later were not sampled"
