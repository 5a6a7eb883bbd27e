# Helpers for the VM tests (sourced; busybox sh).
KREL=$(uname -r)

fail() { echo "FAIL: $*"; exit 1; }

# Install ustack.ko the way `make install` does, then load it with modprobe.
ustack_install() {
	mkdir -p "/lib/modules/$KREL/updates"
	cp /opt/ustack/ustack.ko "/lib/modules/$KREL/updates/ustack.ko"
	depmod -a "$KREL" || fail "depmod"
}

# Load with exactly these parameters (reloading if a test left it loaded).
ustack_load() {
	[ -d /sys/module/ustack ] && { modprobe -r ustack || fail "modprobe -r ustack"; }
	[ -f "/lib/modules/$KREL/updates/ustack.ko" ] || ustack_install
	modprobe ustack "$@" || fail "modprobe ustack"
}

ustack_unload() {
	[ -d /sys/module/ustack ] || return 0
	modprobe -r ustack || fail "modprobe -r ustack"
}

# mode_of PATH: octal permission bits, owner uid.
mode_of() { stat -c '%a %u' "$1"; }

# Record /dev/ustack into FILE in the background: record_start FILE; ...; record_stop
record_start() {
	cat /dev/ustack >"$1" &
	RECORDER=$!
	i=0
	until grep -q '^active 1' /sys/kernel/debug/ustack/stats; do
		kill -0 "$RECORDER" 2>/dev/null || fail "cannot read /dev/ustack"
		i=$((i + 1)); [ $i -lt 200 ] || fail "the stream did not start"
		sleep 0.05
	done
}

record_stop() {
	sleep ${1:-0.5}
	kill "$RECORDER" 2>/dev/null
	wait "$RECORDER" 2>/dev/null
}

param_set() { echo "$2" >"/sys/module/ustack/parameters/$1" || fail "set $1=$2"; }
