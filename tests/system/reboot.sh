# After a reboot (make check-system): the enabled unit loads the module
# again, ustackd reuses its store (nothing regenerated, no entry
# rewritten: its files as before), and the services are covered again
# (>= 99% complete), with the time it took after the unit started.
# timeout: 2400
. ./lib.sh
store_files() { find /var/cache/ustack/sframe -name '*.sframe' -printf '%f %s %T@\n' | sort; }
case $(phase) in
0)
	step "installed, enabled, the system covered"
	ensure_installed
	wait_sysprep
	store_files >"$S/store.before"
	echo "store: $(wc -l <"$S/store.before") entries; rebooting"
	reboot_into 1 ;;
esac

step "after the reboot"
wait_system
[ "$(systemctl is-active ustackd)" = active ] || { unit_log ustackd; fail "ustackd is not active after the boot"; }
[ -d /sys/module/ustack ] || fail "the module was not loaded"
grep -qs ustack /etc/modules /etc/modules-load.d/*.conf /usr/lib/modules-load.d/*.conf &&
	fail "something else loads the module at boot"
active=$(systemctl show -p ActiveEnterTimestampMonotonic --value ustackd)
echo "ustackd active $(awk -v a="$active" '{ printf "%.1f", a / 1e6 }' /proc/uptime) s after the kernel started"
unit_log ustackd 6
journalctl -q -o cat -b -u ustackd --no-pager | grep -E '^ustackd: [0-9]+ objects: .* \(0 generated' >/dev/null ||
	fail "ustackd generated entries at its start after the reboot"
line=$(wait_sysprep)
echo "$line"
echo "$line" | grep -q '(0 generated' || fail "the pass over the system generated entries again"
store_files >"$S/store.after"
diff "$S/store.before" "$S/store.after" >/dev/null ||
	fail "store entries changed: $(diff "$S/store.before" "$S/store.after" | grep -c '^[<>]') lines"
echo "store: the same $(wc -l <"$S/store.after") entries, none rewritten"
start_load
ustack-report --duration 10 --summary >"$S/summary.reboot" 2>&1 || fail "ustack-report"
echo "covered again $(awk -v a="$active" '{ printf "%.1f", $1 - a / 1e6 }' /proc/uptime) s after ustackd started (the recording's end)"
stop_load
coverage "$S/summary.reboot" 50
