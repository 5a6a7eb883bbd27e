#!/usr/bin/env bash
# tests/debugkernel/run.sh: the debug kernel of the VM matrix catches what it
# claims. Builds (cached) the debug kernel via scripts/kernel.sh debug, builds
# badmod.ko (one deliberate bug per value of its parameter bug=) and ustack.ko
# against it, then boots the guest once per bug with the VM harness's own
# scripts (scripts/vm/initramfs.sh, scripts/vm/boot.sh, tests/vm/guest-init.sh,
# scripts/vm/bad-log-patterns) and asserts that the harness fails that boot's
# kernel log for the right reason; a control boot (ustack.ko loaded and
# unloaded, badmod with bug=none) must pass every check of the harness.
#
# Usage: bash tests/debugkernel/run.sh [NAME...]   (default: all)
# NAME: a test (clean-boot, catches-oob, 'catches-*', config, ...; see
# tests/select.sh), or as before a bug name (oob) or clean.  Only the boots
# the named tests need are made.
# Env: USTACK_CACHE, USTACK_LOG_DIR, USTACK_DK_TIMEOUT (seconds per boot),
# USTACK_DK_WORK (work dir), USTACK_DK_SEPARATE=1 (one boot per bug),
# USTACK_VM_MEM (guest MiB, default 1024 here).
# Five boots of the debug kernel (about 10 min in a loaded run): the
# harness's proof, not ustack's, so make check-full alone runs it.
# check: full
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
here=$top/tests/debugkernel
cache=${USTACK_CACHE:-/var/cache/ustack}
log_dir=${USTACK_LOG_DIR:-$top/build/logs}
work=${USTACK_DK_WORK:-$cache/debugkernel-test}
tmo=${USTACK_DK_TIMEOUT:-1200}
mkdir -p "$log_dir" "$work"

# bug name -> extended regex the report must match (kernel log, unindented).
declare -A sig=(
	[oob]='BUG: KASAN: slab-out-of-bounds in do_oob'
	[uaf]='BUG: KASAN: (slab-)?use-after-free in do_uaf'
	[ubsan]='UBSAN: shift-out-of-bounds in .*badmod\.c'
	[sleep]='BUG: sleeping function called from invalid context at .*badmod\.c'
	[lockinv]='WARNING: possible circular locking dependency detected'
	[waitctx]='BUG: Invalid wait context'
	[rcu]='WARNING: suspicious RCU usage'
	[list]='list_del corruption'
	[leak]='unreferenced object'
)
all_bugs=(oob uaf ubsan sleep lockinv waitctx rcu list leak)
control=1
bugs=("${all_bugs[@]}")
if [ $# -gt 0 ]; then
	names=()
	for a in "$@"; do
		case $a in
		clean) a=clean-boot ;;
		*) [ -n "${sig[$a]:-}" ] && a=catches-$a ;;
		esac
		names+=("$a")
	done
	set -- "${names[@]}"
fi
. "$top/tests/select.sh" debugkernel "$@"
want clean-boot || control=0
sel=()
for b in "${bugs[@]}"; do want "catches-$b" && sel+=("$b"); done
bugs=("${sel[@]}")

# ---- the tests ---------------------------------------------------------------

# The kernel (cached): sets KREL, KDIR, VMLINUZ, MODROOT.
kernel_build() {
	local t0 kinfo

	t0=$(date +%s)
	if ! kinfo=$("$top/scripts/kernel.sh" debug 2>"$log_dir/debugkernel-build.err"); then
		fail kernel-build "scripts/kernel.sh debug failed: $(tail -n1 "$log_dir/debugkernel-build.err")"
		return 1
	fi
	eval "$kinfo"
	pass kernel-build
	echo "debugkernel: kernel $KREL ready in $(( $(date +%s) - t0 )) s" >&2
}

# Its config holds every check the fragment asks for (the build script
# already refuses a config that lost an option; this keeps it honest).
config() {
	local o missing=

	for o in KASAN KASAN_GENERIC UBSAN PROVE_LOCKING PROVE_RCU DEBUG_ATOMIC_SLEEP \
		DEBUG_KMEMLEAK DEBUG_LIST SLUB MODULE_UNLOAD KPROBES PERF_EVENTS \
		USER_RETURN_NOTIFIER MMU_NOTIFIER FTRACE_SYSCALLS IA32_EMULATION IO_URING \
		UNWINDER_ORC DEBUG_FS; do
		grep -qx "CONFIG_$o=y" "$KDIR/.config" || missing+=" $o"
	done
	[ -z "$missing" ] || { echo "not set:$missing"; return 1; }
}

# The kmemleak filter proposed for the guest runner (kmemleak-filter.awk):
# on a recorded report (a kernel-own ACPI leak, a leak by a loaded module, one
# by an unloaded module) it keeps the two module leaks and renames the other.
kmemleak_filter() {
	local kf n_kept n_ign

	kf=$(busybox awk -f "$here/kmemleak-filter.awk" "$here/kmemleak-sample.txt" 2>&1)
	n_kept=$(grep -c '^unreferenced object' <<<"$kf")
	n_ign=$(grep -c '^kmemleak: ignored' <<<"$kf")
	[ "$n_kept" = 2 ] && [ "$n_ign" = 1 ] &&
		[ "$(grep -c '' <<<"$kf")" = "$(grep -c '' "$here/kmemleak-sample.txt")" ] ||
		{ echo "kept $n_kept, ignored $n_ign (want 2, 1)"; return 1; }
}

# The modules, built like the harness builds ustack.ko (fresh copies):
# badmod (or return 1), and ustack.ko if the tree has one (have_ustack=1).
build_modules() {
	rm -rf "$work/build" && mkdir -p "$work/build"
	cp -a "$here/badmod" "$work/build/"
	if make -s -C "$KDIR" M="$work/build/badmod" modules >"$log_dir/debugkernel-badmod.log" 2>&1 &&
		! grep -q 'warning:' "$log_dir/debugkernel-badmod.log"; then
		pass badmod-build
	else
		fail badmod-build "see $log_dir/debugkernel-badmod.log"
		return 1
	fi
	have_ustack=0
	[ -f "$top/module/Makefile" ] || [ -f "$top/module/Kbuild" ] || return 0
	cp -a "$top/module" "$work/build/"
	[ -d "$top/include" ] && cp -a "$top/include" "$work/build/"
	if ! make -s -C "$KDIR" M="$work/build/module" modules >"$log_dir/debugkernel-ustack.log" 2>&1 ||
		[ ! -f "$work/build/module/ustack.ko" ]; then
		fail ustack-build "ustack.ko does not build against $KREL (see $log_dir/debugkernel-ustack.log)"
		return 0
	fi
	have_ustack=1
	if grep -q 'warning:' "$log_dir/debugkernel-ustack.log"; then
		fail ustack-build "compiler warnings (see $log_dir/debugkernel-ustack.log)"
	else
		pass ustack-build
	fi
}

# One initramfs for every boot ($initrd): the harness's /init and lib.sh,
# the modules, one guest test per bug (selected on the kernel command line).
make_initramfs() {
	local stage=$work/stage b

	rm -rf "$stage" && mkdir -p "$stage/opt/ustack" "$stage/tests/vm"
	install -m 0755 "$top/tests/vm/guest-init.sh" "$stage/init"
	cp "$top/tests/vm/lib.sh" "$stage/tests/vm/"
	cp "$work/build/badmod/badmod.ko" "$stage/opt/ustack/"
	cp "$here/kmemleak-filter.awk" "$stage/opt/ustack/"	# the runner's leak filter
	[ $have_ustack = 1 ] && cp "$work/build/module/ustack.ko" "$stage/opt/ustack/"
	# badmod stays loaded after a leak, so that kmemleak's backtrace can name it.
	for b in "${all_bugs[@]}"; do
		{
			echo "insmod /opt/ustack/badmod.ko bug=$b || exit 1"
			[ "$b" = leak ] || echo "rmmod badmod || exit 1"
			echo "echo done $b"
		} >"$stage/tests/vm/dk-$b.sh"
	done
	cat >"$stage/tests/vm/dk-clean.sh" <<'EOF'
. ./lib.sh
if [ -f /opt/ustack/ustack.ko ]; then
	ustack_load
	cat /sys/module/ustack/parameters/sample_hz >/dev/null
	ustack_unload
	ustack_load
	ustack_unload
fi
insmod /opt/ustack/badmod.ko bug=none || fail "insmod badmod"
rmmod badmod || fail "rmmod badmod"
echo clean
EOF
	"$top/scripts/vm/initramfs.sh" "$initrd" "$KREL" "$MODROOT" "$stage" \
		>"$log_dir/debugkernel-initramfs.log" 2>&1 ||
		{ fail initramfs "see $log_dir/debugkernel-initramfs.log"; return 1; }
}

boot() {	# boot LABEL TESTS [APPEND] -> harness output in $work/out-LABEL
	local t1
	t1=$(date +%s)
	USTACK_VM_APPEND="${3:-}" "$top/scripts/vm/boot.sh" "$1" "$VMLINUZ" "$initrd" "$2" \
		"$log_dir/vm-$1.log" "$tmo" 2 >"$work/out-$1" 2>&1
	echo "debugkernel: boot $1 ($2) took $(( $(date +%s) - t1 )) s" >&2
}

# Control: ustack.ko and a harmless badmod on the debug kernel are clean
# (the boot dk-clean).
clean_boot() {
	local n_fail n_pass

	n_fail=$(grep -c '^FAIL' "$work/out-dk-clean")
	n_pass=$(grep -c '^PASS' "$work/out-dk-clean")
	[ "$n_fail" = 0 ] && [ "$n_pass" -ge 3 ] ||
		{ grep -m2 '^FAIL' "$work/out-dk-clean" | paste -sd';' | cut -c1-300; return 1; }
}

# The selected bugs grouped to save boots, a group a line: lockdep reports
# once per boot and a KASAN report turns lockdep (and PROVE_RCU) off, so
# each lockdep-class bug comes first in its boot; KASAN reports more than
# once with kasan_multi_shot.  USTACK_DK_SEPARATE=1 gives every bug its
# own boot instead.
bug_groups() {
	local b g=

	if [ "${USTACK_DK_SEPARATE:-0}" = 1 ]; then
		printf '%s\n' "${bugs[@]}"
		return
	fi
	for b in rcu oob uaf ubsan list sleep leak; do
		[[ " ${bugs[*]} " == *" $b "* ]] && g+="$b "
	done
	[ -n "$g" ] && echo "$g"
	for b in "${bugs[@]}"; do
		case $b in rcu|oob|uaf|ubsan|list|sleep|leak) ;; *) echo "$b" ;; esac
	done
}

# Where each bug's report must point: badmod's function, file or lock.
declare -A where=(
	[oob]='do_oob' [uaf]='do_uaf' [ubsan]='badmod\.c' [sleep]='badmod\.c'
	[lockinv]='lock_a' [waitctx]='wait_mutex' [rcu]='badmod\.c:[0-9]+ suspicious rcu_dereference'
	[list]='do_list' [leak]='do_leak'
)

# catches LABEL BUG: in the boot LABEL, the guest test of BUG ran through,
# the harness failed that boot's kernel log, and the bug's own report is in
# the log on a line that the harness's patterns flag by themselves, next to
# evidence that badmod made it (where[BUG]).
catches() {
	local label=$1 b=$2 out=$work/out-$1 vlog=$log_dir/vm-$1.log

	if [ -z "${sig[$b]:-}" ]; then
		echo "unknown bug"
	elif ! grep -q "^PASS: vm/$label/dk-$b\$" "$out"; then
		echo "guest test did not run through: $(grep -m1 "$label/dk-$b" "$out")"
	elif ! grep -q "^FAIL: vm/$label/kernel-log" "$out"; then
		echo "harness passed the kernel log (see $vlog)"
	elif ! tr -d '\r' <"$vlog" | grep -v '^ *USTACK-\|^    ' | grep -E "${sig[$b]}" |
		grep -E "$bad" >/dev/null; then
		echo "no '${sig[$b]}' flagged by the harness in $vlog"
	elif ! tr -d '\r' <"$vlog" | grep -E "${where[$b]}" >/dev/null; then
		echo "report not tied to badmod ('${where[$b]}' missing in $vlog)"
	elif [ "$b" = leak ] && ! grep -q "^PASS: vm/$label/boot-complete" "$out"; then
		echo "boot did not complete, no kmemleak scan (see $vlog)"
	else
		return 0
	fi
	return 1
}

# ---- the run ----------------------------------------------------------------

kernel_build || exit 0
run_test config config
run_test kmemleak-filter kmemleak_filter
build_modules || exit 0
initrd=$work/initramfs.cpio
make_initramfs || exit 0

# Guest memory: kmemleak's end-of-boot scan reads all of it (and KASAN's
# shadow) under TCG, so keep it small unless told otherwise.
export USTACK_VM_MEM=${USTACK_VM_MEM:-1024}
bad=$(grep -v '^#' "$top/scripts/vm/bad-log-patterns" | grep -v '^$' | paste -sd'|')

if [ $control = 1 ]; then
	boot dk-clean dk-clean
	run_test clean-boot clean_boot
fi
mapfile -t groups < <(bug_groups)
for g in "${groups[@]}"; do
	# shellcheck disable=SC2086
	set -- $g
	boot "dk-$1" "$(printf 'dk-%s,' "$@" | sed 's/,$//')" kasan_multi_shot
	for b in "$@"; do run_test "catches-$b" catches "dk-$1" "$b"; done
done
exit 0
