# Helpers for the VM tests (sourced; busybox sh).
KREL=$(uname -r)

fail() { echo "FAIL: $*"; exit 1; }

# Install ustack.ko the way `make install` does, then load it with modprobe.
ustack_install() {
	mkdir -p "/lib/modules/$KREL/updates"
	cp /opt/ustack/ustack.ko "/lib/modules/$KREL/updates/ustack.ko"
	depmod -a "$KREL" || fail "depmod"
}

ustack_load() {
	[ -d /sys/module/ustack ] && return 0
	[ -f "/lib/modules/$KREL/updates/ustack.ko" ] || ustack_install
	modprobe ustack "$@" || fail "modprobe ustack"
}

ustack_unload() {
	[ -d /sys/module/ustack ] || return 0
	modprobe -r ustack || fail "modprobe -r ustack"
}

# mode_of PATH: octal permission bits, owner uid.
mode_of() { stat -c '%a %u' "$1"; }
