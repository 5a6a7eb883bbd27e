#!/usr/bin/env bash
# vm-test.sh KERNEL [TEST...]
# Run VM tests (default: every tests/vm/*.sh) on one kernel of the matrix:
# build ustack.ko against that kernel's headers, build the guest programs and
# the initramfs, boot, and print PASS:/FAIL: lines.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
name=${1:?usage: vm-test.sh KERNEL [TEST...]}
shift
cache=${USTACK_CACHE:-/var/cache/ustack}

if [ $# -gt 0 ]; then
	tests=("$@")
else
	mapfile -t tests < <(cd "$top/tests/vm" && ls *.sh | sed 's/\.sh$//' |
		grep -v -e '^guest-init$' -e '^lib$' -e '^_')
	# A feature test that the other kernels prove nothing more with runs
	# on the kernels its line "# kernels: 6.1 debug" names; engine and
	# hazard tests have none and run everywhere (trixie's 6.12, a later
	# point release of a series the matrix has, runs only those; 6.12-rt
	# adds the features whose code runs otherwise under PREEMPT_RT:
	# coop-c's signals, stream-syscall's requests from tracepoints).
	# USTACK_VM_ALL=1 (make check-full) runs every test on every kernel.
	if [ "${USTACK_VM_ALL:-0}" != 1 ]; then
		mapfile -t tests < <(for t in "${tests[@]}"; do
			k=$(sed -n 's/^# kernels: //p' "$top/tests/vm/$t.sh" | head -n1)
			if [ -z "$k" ] || [[ " $k " == *" $name "* ]]; then echo "$t"; fi
		done)
	fi
	# The debug kernel is several times slower: a test may opt out of it
	# with a line "# debug: skip (reason)".
	if [ "$name" = debug ]; then
		mapfile -t tests < <(for t in "${tests[@]}"; do
			grep -q '^# debug: skip' "$top/tests/vm/$t.sh" || echo "$t"; done)
	fi
fi

# Modules of the kernel a test loads, named by its line "# modules: A B".
kmods=()
for t in "${tests[@]}"; do
	kmods+=($(sed -n 's/^# modules: //p' "$top/tests/vm/$t.sh" | head -n1))
done
if ! kinfo=$("$top/scripts/kernel.sh" "$name" ${kmods[0]:+--modules}); then
	echo "FAIL: vm/$name/kernel: cannot prepare kernel $name"
	exit 0
fi
eval "$kinfo"

# A private work directory: several runs may share this machine.
mkdir -p "$cache/vm"
work=$(mktemp -d "$cache/vm/$name.XXXXXX")
trap 'rm -rf "$work"' EXIT
log_dir=${USTACK_LOG_DIR:-$top/build/logs}
mkdir -p "$log_dir"
# make check names logs after the kernel alone; direct runs add the PID.
log_name=vm-$name${USTACK_LOG_SUFFIX-.$$}

# The module, from a fresh copy of the sources (always correct, ~5 s).
build=$work/build
rm -rf "$build" && mkdir -p "$build"
# Sources only: objects built in the tree for another kernel must not leak in.
(cd "$top" && find module include \( -name '*.[ch]' -o -name Kbuild -o -name Makefile -o -name '*.sh' -o -name '*.mk' \) -print0 |
	cpio --null -pdm --quiet "$build")
# A kernel of another suite is built in that suite's build root, with the
# compiler its headers name (kernel.sh's BUILDROOT; the work directory is
# in the cache, which the root sees at the same path).
kmake() {
	if [ -n "${BUILDROOT:-}" ]; then
		"$top/scripts/buildroot.sh" "$BUILDROOT" make "$@"
	else
		make "$@"
	fi
}
if ! kmake -s -C "$KDIR" M="$build/module" USTACK_TEST_HOOKS=y modules >"$log_dir/build-$log_name.log" 2>&1; then
	echo "FAIL: vm/$name/build: ustack.ko does not build against $KREL (see $log_dir/build-$log_name.log)"
	exit 0
fi
# A second module, of git revision USTACK_VM_B_REV, for a benchmark that
# loads two in turn (tests/bench/stream.sh BENCH_B=REV): ustack-b.ko.
if [ -n "${USTACK_VM_B_REV:-}" ]; then
	mkdir -p "$work/build-b"
	if ! git -C "$top" archive "$USTACK_VM_B_REV" module include | tar -x -C "$work/build-b" ||
	   ! kmake -s -C "$KDIR" M="$work/build-b/module" USTACK_TEST_HOOKS=y modules \
		>"$log_dir/build-b-$log_name.log" 2>&1; then
		echo "FAIL: vm/$name/build-b: $USTACK_VM_B_REV's ustack.ko does not build (see $log_dir/build-b-$log_name.log)"
		exit 0
	fi
fi
if grep -q 'warning:' "$log_dir/build-$log_name.log"; then
	echo "FAIL: vm/$name/build: compiler warnings (see $log_dir/build-$log_name.log)"
else
	echo "PASS: vm/$name/build"
fi

# The guest's files, laid out like its /.
stage=$work/stage
rm -rf "$stage" && mkdir -p "$stage/opt/ustack" "$stage/tests" "$stage/usr/bin" "$stage/usr/lib"
cp "$build/module/ustack.ko" "$stage/opt/ustack/"
[ -z "${USTACK_VM_B_REV:-}" ] || cp "$work/build-b/module/ustack.ko" "$stage/opt/ustack/ustack-b.ko"
cp "$top/tests/debugkernel/kmemleak-filter.awk" "$stage/opt/ustack/"
cp -a "$top/tests/vm" "$stage/tests/"
install -m 0755 "$top/tests/vm/guest-init.sh" "$stage/init"
# Runtimes of other Debian suites (scripts/runtimes.conf), unpacked by
# scripts/unpack-suite.sh, for a test that asks with a line "# runtime:
# NAME...": at /opt/runtimes/NAME, without documentation, locales and
# Python's own test suite (the guest's memory holds them).
for t in "${tests[@]}"; do
	for rt in $(sed -n 's/^# runtime: //p' "$top/tests/vm/$t.sh" | head -n1); do
		[ -d "$stage/opt/runtimes/$rt" ] && continue
		read -r -a rtconf < <(awk -v n="$rt" '$1 == n' "$top/scripts/runtimes.conf")
		if [ ${#rtconf[@]} -lt 3 ] ||
		   ! rtroot=$(bash "$top/scripts/unpack-suite.sh" "${rtconf[1]}" "$rt" "${rtconf[@]:2}" 2>"$work/unpack.log"); then
			echo "FAIL: vm/$name/runtime-$rt: not in scripts/runtimes.conf, or not unpacked: $(tail -n1 "$work/unpack.log" 2>/dev/null)"
			exit 0
		fi
		mkdir -p "$stage/opt/runtimes/$rt"
		(cd "$rtroot" && find . \( -path ./usr/share/doc -o -path ./usr/share/man -o -path ./usr/share/locale \
			-o -path './usr/lib/python3*/test' -o -path './usr/lib/python3*/idlelib' \
			-o -path './usr/lib/python3*/tkinter' -o -path './usr/lib/python3*/turtledemo' \
			-o -path './usr/lib/python3*/ensurepip' -o -path './usr/lib/python3*/config-*' \) -prune \
			-o -print0 | cpio --null -pdm --quiet "$stage/opt/runtimes/$rt")
	done
done
# Debian's openjdk-17 for a test that asks with a line "# java: yes": a
# runtime of java.base alone made from it by its own jlink (some 40 MB,
# with its class data archive), cached per JDK release, at /opt/java;
# and the JVM agent.
java_home=/usr/lib/jvm/java-17-openjdk-amd64
for t in "${tests[@]}"; do
	grep -qs '^# java: yes' "$top/tests/vm/$t.sh" || continue
	jre=$cache/runtimes/java17-base-$(cksum <"$java_home/release" | cut -d" " -f1)
	if [ ! -x "$jre/bin/java" ] && [ -x "$java_home/bin/jlink" ]; then
		rm -rf "$jre.new"
		"$java_home/bin/jlink" --add-modules java.base --strip-debug --no-man-pages \
			--no-header-files --generate-cds-archive --output "$jre.new" >"$work/jlink.log" 2>&1 &&
			rm -f "$jre.new/lib/server/classes_nocoops.jsa" && mv "$jre.new" "$jre"
	fi
	if [ ! -x "$jre/bin/java" ]; then
		echo "FAIL: vm/$name/java: no java runtime from $java_home (scripts/deps.sh check): $(tail -n1 "$work/jlink.log" 2>/dev/null)"
		exit 0
	fi
	mkdir -p "$stage/opt/java"
	cp -a "$jre/." "$stage/opt/java/"
	[ -f "$top/tools/jvm-agent/libustack-jvm.so" ] &&
		install -D -m 0644 "$top/tools/jvm-agent/libustack-jvm.so" "$stage/usr/lib/ustack/libustack-jvm.so"
	break
done
make -s -C "$top/tests/vm" OUT="$stage/tests/vm/bin" RUNTIMES="$stage/opt/runtimes" >/dev/null
for t in tools/sframe-register/sframe-register tools/ustack-report/ustack-report; do
	[ -x "$top/$t" ] && cp "$top/$t" "$stage/usr/bin/"
done
[ -f "$top/tools/shim/libsframe-register.so" ] &&
	cp "$top/tools/shim/libsframe-register.so" "$stage/usr/lib/"
# ustackd, where it is built; bash for a test that profiles it ("# bash: yes").
[ -x "$top/tools/ustackd/ustackd" ] && install -D "$top/tools/ustackd/ustackd" "$stage/usr/sbin/ustackd"
for t in "${tests[@]}"; do
	grep -qs '^# bash: yes' "$top/tests/vm/$t.sh" && cp /bin/bash "$stage/usr/bin/bash"
done

# Those modules and the modules they depend on, from the image's tree (soft
# dependencies, named by alias, the line names too): the guest's depmod
# (ustack_install) indexes them with ustack.ko.
if [ ${#kmods[@]} -gt 0 ]; then
	mtree=$MODROOT/lib/modules/$KREL
	declare -A seen=()
	while [ ${#kmods[@]} -gt 0 ]; do
		m=${kmods[0]//-/_} kmods=("${kmods[@]:1}")
		[ -z "${seen[$m]:-}" ] || continue
		seen[$m]=1
		# its file, or a line of modules.builtin
		# (6.12's are xz-compressed: the guest gets them plain)
		ko=$({ find "$mtree/kernel" -name '*.ko' -o -name '*.ko.xz' 2>/dev/null; cat "$mtree/modules.builtin" 2>/dev/null; } |
			awk -v m="$m" '{ n = $0; sub(/.*\//, "", n); sub(/\.ko(\.xz)?$/, "", n); gsub(/-/, "_", n) } n == m && !f { f = $0 } END { print f }')
		case $ko in
		/*) dst=$stage/lib/modules/$KREL/${ko#"$mtree/"}
		    mkdir -p "${dst%/*}"
		    case $ko in
		    *.xz) xz -dc "$ko" >"${dst%.xz}" ;;
		    *) install -m 0644 "$ko" "$dst" ;;
		    esac
		    kmods+=($(modinfo -F depends "$ko" | tr , ' ')) ;;
		"") echo "vm-test: module $m is not in $mtree" >&2 ;;
		esac
	done
fi

# Debian's btrfs-progs (mkfs.btrfs, btrfs) for a test that asks with a
# line "# btrfs: yes"; initramfs.sh brings their shared libraries.
for t in "${tests[@]}"; do
	if grep -qs '^# btrfs: yes' "$top/tests/vm/$t.sh"; then
		for b in /usr/sbin/mkfs.btrfs /usr/bin/btrfs; do
			[ -x "$b" ] && install -D "$b" "$stage$b"
		done
		break
	fi
done

# Debian's perf, for the benchmarks that compare with it, and for a test
# that asks with a line "# perf: yes".  "# perf: SUITE" asks, on the
# kernel of that suite (sid's), for the suite's own perf, which knows that
# kernel's records (deferred callchains): perf-SUITE in the guest runs it
# with its own loader and libraries, from the suite's perf root
# (buildroot.sh --perf).  On other kernels the test finds no perf-SUITE.
perf_suites=()
for t in "${tests[@]}"; do
	p=$(sed -n 's/^# perf: //p' "$top/tests/vm/$t.sh" | head -n1)
	case $p in
	"") ;;
	yes) USTACK_VM_PERF=1 ;;
	"${BUILDROOT:-}") perf_suites+=("$p") ;;
	esac
done
if [ "${USTACK_VM_PERF:-0}" = 1 ] && [ -x /usr/bin/perf ]; then
	cp /usr/bin/perf "$stage/usr/bin/"
fi
for p in $(printf '%s\n' "${perf_suites[@]}" | sort -u); do
	d=$stage/opt/perf-$p
	# its shared libraries by the names it asks for, the links resolved
	# in its root
	if ! proot=$("$top/scripts/buildroot.sh" --perf "$p") ||
	   ! libs=$("$top/scripts/buildroot.sh" --perf "$p" ldd /usr/bin/perf |
		awk '/=> \//{print $3} /^\t\/.*ld-linux/{print $1}') ||
	   ! files=$("$top/scripts/buildroot.sh" --perf "$p" readlink -f $libs); then
		echo "FAIL: vm/$name/perf-$p: no perf of $p"
		exit 0
	fi
	mkdir -p "$d/lib"
	cp "$proot/usr/bin/perf" "$d/perf"
	paste <(echo "$libs") <(echo "$files") | while read -r l f; do
		cp "$proot$f" "$d/lib/${l##*/}"
	done
	cat >"$stage/usr/bin/perf-$p" <<-EOF
	#!/bin/sh
	# $p's perf, with its own libraries (vm-test.sh)
	exec /opt/perf-$p/lib/ld-linux-x86-64.so.2 --library-path /opt/perf-$p/lib /opt/perf-$p/perf "\$@"
	EOF
	chmod 0755 "$stage/usr/bin/perf-$p"
done

# Debian's trace-cmd and bpftrace, for a test that asks with a line
# "# trace-cmd: yes" or "# bpftrace: yes"; initramfs.sh brings their
# shared libraries (bpftrace's LLVM and clang: some 200 MB) along.
for tool in trace-cmd bpftrace; do
	for t in "${tests[@]}"; do
		if grep -qs "^# $tool: yes" "$top/tests/vm/$t.sh" && [ -x "/usr/bin/$tool" ]; then
			cp "/usr/bin/$tool" "$stage/usr/bin/"
			break
		fi
	done
done

# The demo's python3.11 and its standard library, as Debian ships them;
# also for a test that asks with a line "# python: yes".
for t in "${tests[@]}"; do
	grep -qs '^# python: yes' "$top/tests/vm/$t.sh" && USTACK_VM_PYTHON=1
done
if [ "${USTACK_VM_PYTHON:-0}" = 1 ]; then
	cp /usr/bin/python3.11 "$stage/usr/bin/"
	mkdir -p "$stage/usr/lib/python3.11"
	(cd /usr/lib/python3.11 && find . \( -path ./test -o -path ./idlelib -o -path ./tkinter \
		-o -path ./lib2to3 -o -path ./ensurepip -o -path ./turtledemo -o -path ./config-3.11-x86_64-linux-gnu \) -prune \
		-o -print0 | cpio --null -pdm --quiet "$stage/usr/lib/python3.11")
fi

initrd=$work/initramfs.cpio
# For naming a stalled guest's vCPU places (boot.sh): the kernel's symbols,
# cached per image, and the module's.
export USTACK_VM_KALLSYMS=$cache/vm/kallsyms.$(cksum <"$VMLINUZ" | cut -d" " -f1)
export USTACK_VM_KO=$build/module/ustack.ko
"$top/scripts/vm/initramfs.sh" "$initrd" "$KREL" "$MODROOT" "$stage"

# Boot.  Tests named smp4-* need 4 vCPUs (migration): they get a boot of
# their own.  Debug kernels are slower: USTACK_VM_SLOWDOWN scales timeouts.
slow=${USTACK_VM_SLOWDOWN:-1}
if [ "$name" = debug ]; then
	slow=${USTACK_DEBUG_SLOWDOWN:-4}
	# kmemleak's scan reads all guest RAM and KASAN's shadow: keep it small.
	export USTACK_VM_MEM=${USTACK_VM_MEM:-1024}
	# A test's own time limit, too, is longer under KASAN.
	export USTACK_TEST_TIMEOUT=${USTACK_TEST_TIMEOUT:-900}
fi
boot() {	# boot CPUS LOGSUFFIX INITRD TEST...
	local cpus=$1 suffix=$2 initrd=$3
	shift 3
	[ $# -gt 0 ] || return 0
	local tmo=120 t n
	for t in "$@"; do	# a test's "# timeout: N" line, else 150 s
		n=$(sed -n 's/^# timeout: \([0-9]*\)$/\1/p' "$top/tests/vm/$t.sh" | head -n1)
		tmo=$((tmo + ${n:-150}))
	done
	tmo=$((tmo * slow))
	"$top/scripts/vm/boot.sh" "$name$suffix" "$VMLINUZ" "$initrd" "$(IFS=,; echo "$*")" \
		"$log_dir/$log_name$suffix.log" "$tmo" "$cpus"
}
smp2=() smp4=()
for t in "${tests[@]}"; do
	case $t in smp4-*) smp4+=("$t") ;; *) smp2+=("$t") ;; esac
done
# make check-full's guests run the tests' long variants (lib.sh's long).
[ "${USTACK_VM_ALL:-0}" != 1 ] || export USTACK_VM_APPEND="${USTACK_VM_APPEND:-} ustack_long=1"
# hostile-long's length, in seconds (its default: half an hour on debug).
[ -z "${USTACK_LONG_SECS:-}" ] || export USTACK_VM_APPEND="${USTACK_VM_APPEND:-} ustack_long_secs=$USTACK_LONG_SECS"
# Two more CPUs are possible than are present, as on hypervisors that
# declare CPUs to hot-plug: what the module keeps per CPU follows the online
# ones (stream-hotplug).
boot "${USTACK_VM_CPUS:-2},maxcpus=$((${USTACK_VM_CPUS:-2} + 2))" "" "$initrd" "${smp2[@]}"
# The smp4 boot's tests need the module and the test programs alone: an
# initramfs of its own, without the runtimes and tools staged for the
# others (6.1's is 350 MB: half a minute to unpack under TCG).
if [ ${#smp4[@]} -gt 0 ]; then
	stage4=$work/stage4
	mkdir -p "$stage4"
	(cd "$stage" && find . \( -path ./opt/runtimes -o -path ./opt/java -o -path './opt/perf*' \
		-o -path ./usr/lib/python3.11 -o -path ./usr/lib/ustack -o -path ./lib/modules \) -prune \
		-o -print0 | cpio --null -pdml --quiet "$stage4")
	rm -f "$stage4"/usr/bin/{python3.11,bash,trace-cmd,bpftrace,btrfs} "$stage4"/usr/bin/perf* \
		"$stage4"/usr/sbin/mkfs.btrfs
	"$top/scripts/vm/initramfs.sh" "$work/initramfs4.cpio" "$KREL" "$MODROOT" "$stage4"
	boot 4 -smp4 "$work/initramfs4.cpio" "${smp4[@]}"
fi
