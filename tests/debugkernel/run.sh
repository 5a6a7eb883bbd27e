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

# 1. The kernel.
t0=$(date +%s)
if ! kinfo=$("$top/scripts/kernel.sh" debug 2>"$log_dir/debugkernel-build.err"); then
	fail kernel-build "scripts/kernel.sh debug failed: $(tail -n1 "$log_dir/debugkernel-build.err")"
	exit 0
fi
eval "$kinfo"
pass kernel-build
echo "debugkernel: kernel $KREL ready in $(( $(date +%s) - t0 )) s" >&2

# 2. Its config holds every check the fragment asks for (the build script
# already refuses a config that lost an option; this keeps it honest).
missing=
for o in KASAN KASAN_GENERIC UBSAN PROVE_LOCKING PROVE_RCU DEBUG_ATOMIC_SLEEP \
	DEBUG_KMEMLEAK DEBUG_LIST SLUB MODULE_UNLOAD KPROBES PERF_EVENTS \
	USER_RETURN_NOTIFIER MMU_NOTIFIER FTRACE_SYSCALLS IA32_EMULATION IO_URING \
	UNWINDER_ORC DEBUG_FS; do
	grep -qx "CONFIG_$o=y" "$KDIR/.config" || missing+=" $o"
done
if [ -z "$missing" ]; then pass config; else fail config "not set:$missing"; fi

# The kmemleak filter proposed for the guest runner (kmemleak-filter.awk):
# on a recorded report (a kernel-own ACPI leak, a leak by a loaded module, one
# by an unloaded module) it keeps the two module leaks and renames the other.
kf=$(busybox awk -f "$here/kmemleak-filter.awk" "$here/kmemleak-sample.txt" 2>&1)
n_kept=$(grep -c '^unreferenced object' <<<"$kf")
n_ign=$(grep -c '^kmemleak: ignored' <<<"$kf")
if [ "$n_kept" = 2 ] && [ "$n_ign" = 1 ] &&
	[ "$(grep -c '' <<<"$kf")" = "$(grep -c '' "$here/kmemleak-sample.txt")" ]; then
	pass kmemleak-filter
else
	fail kmemleak-filter "kept $n_kept, ignored $n_ign (want 2, 1)"
fi

# 3. The modules, built like the harness builds ustack.ko (fresh copies).
rm -rf "$work/build" && mkdir -p "$work/build"
cp -a "$here/badmod" "$work/build/"
if make -s -C "$KDIR" M="$work/build/badmod" modules >"$log_dir/debugkernel-badmod.log" 2>&1 &&
	! grep -q 'warning:' "$log_dir/debugkernel-badmod.log"; then
	pass badmod-build
else
	fail badmod-build "see $log_dir/debugkernel-badmod.log"
	exit 0
fi
have_ustack=0
if [ -f "$top/module/Makefile" ] || [ -f "$top/module/Kbuild" ]; then
	cp -a "$top/module" "$work/build/"
	[ -d "$top/include" ] && cp -a "$top/include" "$work/build/"
	if make -s -C "$KDIR" M="$work/build/module" modules >"$log_dir/debugkernel-ustack.log" 2>&1 &&
		[ -f "$work/build/module/ustack.ko" ]; then
		have_ustack=1
		if grep -q 'warning:' "$log_dir/debugkernel-ustack.log"; then
			fail ustack-build "compiler warnings (see $log_dir/debugkernel-ustack.log)"
		else
			pass ustack-build
		fi
	else
		fail ustack-build "ustack.ko does not build against $KREL (see $log_dir/debugkernel-ustack.log)"
	fi
fi

# 4. One initramfs for every boot: the harness's /init and lib.sh, the modules,
# one guest test per bug (selected on the kernel command line).
stage=$work/stage
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
initrd=$work/initramfs.cpio
if ! "$top/scripts/vm/initramfs.sh" "$initrd" "$KREL" "$MODROOT" "$stage" \
	>"$log_dir/debugkernel-initramfs.log" 2>&1; then
	fail initramfs "see $log_dir/debugkernel-initramfs.log"
	exit 0
fi

# Guest memory: kmemleak's end-of-boot scan reads all of it (and KASAN's
# shadow) under TCG, so keep it small unless told otherwise.
export USTACK_VM_MEM=${USTACK_VM_MEM:-1024}
bad=$(grep -v '^#' "$top/scripts/vm/bad-log-patterns" | grep -v '^$' | paste -sd'|')

boot() {	# boot LABEL TESTS [APPEND] -> harness output in $work/out-LABEL
	local t1
	t1=$(date +%s)
	USTACK_VM_APPEND="${3:-}" "$top/scripts/vm/boot.sh" "$1" "$VMLINUZ" "$initrd" "$2" \
		"$log_dir/vm-$1.log" "$tmo" 2 >"$work/out-$1" 2>&1
	echo "debugkernel: boot $1 ($2) took $(( $(date +%s) - t1 )) s" >&2
}

# 5. Control: ustack.ko and a harmless badmod on the debug kernel are clean.
if [ $control = 1 ]; then
	boot dk-clean dk-clean
	n_fail=$(grep -c '^FAIL' "$work/out-dk-clean")
	n_pass=$(grep -c '^PASS' "$work/out-dk-clean")
	if [ "$n_fail" = 0 ] && [ "$n_pass" -ge 3 ]; then
		pass clean-boot
	else
		fail clean-boot "$(grep -m2 '^FAIL' "$work/out-dk-clean" | paste -sd';' | cut -c1-300)"
	fi
fi

# 6. The bugs, grouped to save boots: lockdep reports once per boot and a
# KASAN report turns lockdep (and PROVE_RCU) off, so each lockdep-class bug
# comes first in its boot; KASAN reports more than once with kasan_multi_shot.
# USTACK_DK_SEPARATE=1 gives every bug its own boot instead.
declare -A where=(
	[oob]='do_oob' [uaf]='do_uaf' [ubsan]='badmod\.c' [sleep]='badmod\.c'
	[lockinv]='lock_a' [waitctx]='wait_mutex' [rcu]='badmod\.c:[0-9]+ suspicious rcu_dereference'
	[list]='do_list' [leak]='do_leak'
)
groups=()
if [ "${USTACK_DK_SEPARATE:-0}" = 1 ]; then
	for b in "${bugs[@]}"; do groups+=("$b"); done
else
	g=
	for b in rcu oob uaf ubsan list sleep leak; do
		[[ " ${bugs[*]} " == *" $b "* ]] && g+="$b "
	done
	[ -n "$g" ] && groups+=("$g")
	for b in "${bugs[@]}"; do
		case $b in rcu|oob|uaf|ubsan|list|sleep|leak) ;; *) groups+=("$b") ;; esac
	done
fi

# For each bug of a boot: the guest test ran through, the harness failed that
# boot's kernel log, and the bug's own report is in the log on a line that
# the harness's patterns flag by themselves, next to evidence that badmod made
# it (its function, file or lock names).
for g in "${groups[@]}"; do
	set -- $g
	label=dk-$1
	tests=$(printf 'dk-%s,' "$@")
	boot "$label" "${tests%,}" kasan_multi_shot
	out=$work/out-$label
	vlog=$log_dir/vm-$label.log
	for b in "$@"; do
		if [ -z "${sig[$b]:-}" ]; then
			fail "catches-$b" "unknown bug"
		elif ! grep -q "^PASS: vm/$label/dk-$b\$" "$out"; then
			fail "catches-$b" "guest test did not run through: $(grep -m1 "$label/dk-$b" "$out")"
		elif ! grep -q "^FAIL: vm/$label/kernel-log" "$out"; then
			fail "catches-$b" "harness passed the kernel log (see $vlog)"
		elif ! tr -d '\r' <"$vlog" | grep -v '^ *USTACK-\|^    ' | grep -E "${sig[$b]}" | grep -E "$bad" >/dev/null; then
			fail "catches-$b" "no '${sig[$b]}' flagged by the harness in $vlog"
		elif ! tr -d '\r' <"$vlog" | grep -E "${where[$b]}" >/dev/null; then
			fail "catches-$b" "report not tied to badmod ('${where[$b]}' missing in $vlog)"
		elif [ "$b" = leak ] && ! grep -q "^PASS: vm/$label/boot-complete" "$out"; then
			fail "catches-$b" "boot did not complete, no kmemleak scan (see $vlog)"
		else
			pass "catches-$b"
		fi
	done
done
