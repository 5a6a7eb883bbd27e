# A kernel upgrade (make check-system): a second kernel of the release
# (its image and headers in apt's archive) installed offline makes DKMS
# build and install the module for it; booted into it (kexec, as a reboot
# would), the unit loads that build and the services are covered
# (>= 99% complete).  Under TCG, bookworm's install of its backports
# kernel alone took 2312 s (its DKMS build with BTF, the initramfs), and
# the second kernel then boots.
# timeout: 5400
. ./lib.sh
case $(phase) in
0)
	step "installed; a second kernel from apt's archive"
	ensure_installed
	# (the concrete package, not its meta-package: linux-image-6.12.117+deb12-amd64)
	k2=$(for d in /var/cache/apt/archives/linux-image-*.deb; do dpkg-deb -f "$d" Package; done |
		sed -n 's/^linux-image-\([0-9][0-9]*\.[0-9][0-9]*\.[0-9].*\)/\1/p' | head -n1)
	[ -n "$k2" ] && [ "$k2" != "$KREL" ] || fail "no second kernel in the archive"
	echo "$k2" >"$S/k2"
	t0=$(now)
	apt-get install -y "linux-image-$k2" "linux-headers-$k2" >"$S/apt-k2.log" 2>&1 &
	apt=$!
	# Under TCG the DKMS build and the initramfs take many minutes: every
	# 5 minutes, the install's last line, so that a timeout says where.
	n=0
	while kill -0 $apt 2>/dev/null; do
		sleep 5
		n=$((n + 1))
		[ $((n % 60)) != 0 ] || echo "  [$(since "$t0") s] $(tail -n 1 "$S/apt-k2.log" | cut -c1-100)"
	done
	wait $apt || {
		tail -n 20 "$S/apt-k2.log" | sed 's/^/  | /'
		fail "apt-get install linux-image-$k2 linux-headers-$k2"
	}
	grep -i -e dkms -e ustack "$S/apt-k2.log" | head -n 10 | sed 's/^/  | /'
	echo "installed in $(since "$t0") s"
	st=$(dkms status ustack 2>&1)
	echo "$st" | sed 's/^/  dkms: /'
	echo "$st" | grep -q ", $k2, x86_64: installed" || {
		tail -n 20 /var/lib/dkms/ustack/*/build/make.log 2>/dev/null | sed 's/^/  | /'
		fail "DKMS did not build the module for $k2"
	}
	[ "$(modinfo -k "$k2" -F vermagic ustack | cut -d' ' -f1)" = "$k2" ] || fail "modinfo -k $k2 ustack"
	kexec -l "/boot/vmlinuz-$k2" --initrd="/boot/initrd.img-$k2" --reuse-cmdline ||
		fail "kexec -l $k2"
	reboot_into 1 kexec ;;
esac

step "booted into the second kernel"
k2=$(cat "$S/k2")
[ "$KREL" = "$k2" ] || fail "running $KREL, not $k2"
wait_system
[ "$(systemctl is-active ustackd)" = active ] || { unit_log ustackd; fail "ustackd is not active"; }
echo "module: $(modinfo -n ustack), loaded: $([ -d /sys/module/ustack ] && echo yes)"
[ "$(modinfo -F vermagic ustack | cut -d' ' -f1)" = "$k2" ] || fail "the module is not $k2's build"
start_load
ustack-report --duration 10 --summary >"$S/summary.k2" 2>&1 || fail "ustack-report"
stop_load
coverage "$S/summary.k2" 50
