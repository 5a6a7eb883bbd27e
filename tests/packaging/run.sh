#!/usr/bin/env bash
# Packaging: `make deb` builds ustack-dkms and ustack-tools, lintian-clean;
# both install on this machine, DKMS builds ustack.ko for every kernel of the
# matrix (none of them running here) against the headers scripts/kernel.sh
# unpacks into its cache, the tools run, and removing and purging the
# packages leaves nothing behind.  `make install DESTDIR=` puts every
# artifact where the README says.  Safe to run again: it starts by purging
# what an earlier run may have left.  The commits follow the project's
# rules, and the module its coding style.
# bash tests/packaging/run.sh [NAME...]: version, deb-*, lintian,
# deb-depends, dkms-build-<kernel>, tools-*, build-check, make-install,
# commit-subjects, commit-rules, checkpatch (tests/select.sh).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/tests/select.sh" packaging "$@"
. "$top/scripts/kernels.conf"
ver=$(sed -n 's/^VERSION := //p' "$top/Makefile")
tmp=$(mktemp -d)
on_exit 'rm -rf "$tmp"'
pkgs=(ustack-dkms ustack-tools)

# ---- the Debian packages --------------------------------------------------------

# What the packages install, and what DKMS makes of them.
leftovers() {
	local f
	for f in /usr/src/ustack-* /var/lib/dkms/ustack /lib/modules/*/updates/dkms/ustack.ko* \
		 /usr/bin/sframe-register /usr/bin/ustack-report /usr/sbin/ustackd \
		 /usr/lib/libsframe-register.so /usr/include/ustack.h /usr/include/linux/ustack.h \
		 /usr/lib/ustack/libustack-jvm.so /lib/systemd/system/ustackd.service /etc/systemd/system/*/ustackd.service \
		 /var/lib/systemd/deb-systemd-helper-enabled/ustackd.service \
		 /usr/share/man/man*/ustack* /usr/share/man/man*/sframe-register* \
		 /usr/share/doc/ustack-dkms /usr/share/doc/ustack-tools; do
		[ -e "$f" ] && echo "$f"
	done
	for p in "${pkgs[@]}"; do
		dpkg-query -W -f='${db:Status-Abbrev}' "$p" 2>/dev/null | grep -q '^.[^n]' && echo "package $p"
	done
}
purge() {	# also what `dkms add .` of a source tree leaves
	dpkg --purge "${pkgs[@]}" >/dev/null 2>&1
	dkms remove ustack/"$ver" --all >/dev/null 2>&1
	rm -rf "/usr/src/ustack-$ver"
}

# `dkms add .` from the tree and the packages must agree on the version.
version() {
	local dver

	dver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$top/dkms.conf")
	[ "$dver" = "$ver" ] || { echo "dkms.conf says $dver, the Makefile's VERSION $ver"; return 1; }
}

# DKMS builds ustack.ko for every kernel of the matrix, against the cache.
dkms_builds() {
	local name ko kinfo

	for name in "${KERNEL_NAMES[@]}"; do
		want "dkms-build-$name" || continue
		if ! kinfo=$("$top/scripts/kernel.sh" "$name" 2>"$tmp/kernel.err"); then
			fail "dkms-build-$name" "$(tail -n1 "$tmp/kernel.err")"
			continue
		fi
		eval "$kinfo"
		# Another suite's kernel needs that suite's compiler, which a
		# Debian 12 machine's DKMS does not have (tests/kbuild and
		# vm-test.sh build it in that suite's build root).
		[ -z "${BUILDROOT:-}" ] || continue
		# The rt flavour's DKMS run is the generic one's, on headers its
		# VM lane builds the module against: make check-full alone.
		[[ $name != *-rt ]] || [ "${USTACK_VM_ALL:-0}" = 1 ] || continue
		# Built by the package's postinst if this machine has that
		# kernel's headers installed: build again, against the cache.
		dkms unbuild ustack/"$ver" -k "$KREL" >/dev/null 2>&1
		dkms build ustack/"$ver" -k "$KREL" --kernelsourcedir "$KDIR" >"$tmp/build.log" 2>&1
		ko=$(ls /var/lib/dkms/ustack/"$ver"/"$KREL"/x86_64/module/ustack.ko* 2>/dev/null | head -n1)
		if [ -n "$ko" ] && [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" = "$KREL" ]; then
			pass "dkms-build-$name"
		else
			fail "dkms-build-$name" "$(tail -n2 "$tmp/build.log" | paste -sd' ')"
		fi
	done
}

# The installed tools run.
tools_report() {
	/usr/bin/ustack-report --help 2>&1 | grep -q '^usage: ustack-report' ||
		{ echo "ustack-report --help"; return 1; }
}
tools_ustackd() {
	/usr/sbin/ustackd --help 2>&1 | grep -q '^usage: ustackd' &&
		[ -f /lib/systemd/system/ustackd.service ] ||
		{ echo "ustackd --help, or no ustackd.service"; return 1; }
}
tools_sframe() {
	printf 'int f(int x) { return x * 2; }\n' >"$tmp/t.c"
	gcc -O1 -Wa,--gsframe -c "$tmp/t.c" -o "$tmp/t.o" &&
		/usr/bin/sframe-register dump "$tmp/t.o" 2>&1 | grep -q 'Num FDEs: 1' ||
		{ echo "sframe-register dump of a one-function object"; return 1; }
}

# Install both packages (after purging an earlier run's), test what they
# installed, then remove and purge them: nothing of ustack is left.
deb_install_remove() {
	local left

	# One run at a time on this machine: they share dpkg's database and DKMS's tree.
	exec 8>/var/lock/ustack-packaging-test
	flock 8
	purge
	if ! apt-get install -y -qq --no-install-recommends -o DPkg::Lock::Timeout=300 \
	     "$1" "$2" >"$tmp/install.log" 2>&1; then
		fail deb-install "$(grep -m1 -E '^E: |rror' "$tmp/install.log")"
	else
		pass deb-install
		dkms_builds
		run_test tools-report tools_report
		run_test tools-ustackd tools_ustackd
		run_test tools-sframe tools_sframe
	fi
	dpkg -r "${pkgs[@]}" >"$tmp/remove.log" 2>&1
	dpkg --purge "${pkgs[@]}" >>"$tmp/remove.log" 2>&1
	left=$(leftovers | paste -sd' ')
	if [ -z "$left" ]; then
		pass deb-remove
	else
		fail deb-remove "left behind: $left"
		purge
	fi
	flock -u 8
}

# make deb, lintian over what it made, then the packages installed.
deb_tests() {
	local dkms_deb tools_deb

	if [ "$(id -u)" != 0 ] || ! command -v dkms >/dev/null || ! command -v dpkg-buildpackage >/dev/null; then
		fail deb "needs root, dkms and dpkg-buildpackage (scripts/deps.sh check)"
		return
	fi
	if ! make -s -C "$top" deb >"$tmp/deb.log" 2>&1 ||
	   ! dkms_deb=$(ls "$top"/build/deb/ustack-dkms_"$ver"_all.deb) ||
	   ! tools_deb=$(ls "$top"/build/deb/ustack-tools_"$ver"_amd64.deb); then
		fail deb-build "make deb failed: $(tail -n2 "$tmp/deb.log" | paste -sd' ')"
		return
	fi
	pass deb-build
	# Errors and warnings fail; overrides (each with its reason) are allowed.
	lintian --pedantic "$top/build/deb/ustack_${ver}_amd64.changes" >"$tmp/lintian.log" 2>&1
	if grep -qE '^[EW]: ' "$tmp/lintian.log"; then
		fail lintian "$(grep -E '^[EW]: ' "$tmp/lintian.log" | head -n3 | paste -sd' ')"
	else
		pass lintian
	fi
	run_test deb-depends deb_depends "$dkms_deb" "$tools_deb"
	deb_install_remove "$dkms_deb" "$tools_deb"
}

# What a stock machine lacks for building the module and running the
# tools: pahole (dwarves) for the BTF of 6.12's modules, make, modprobe.
deb_depends() {
	local dd td d miss=

	dd=$(dpkg-deb -f "$1" Depends) td=$(dpkg-deb -f "$2" Depends)
	for d in dkms dwarves make; do
		echo "$dd" | tr ',' '\n' | grep -qE "^ *$d( |\$)" || miss="$miss ustack-dkms:$d"
	done
	echo "$td" | tr ',' '\n' | grep -qE '^ *kmod( |$)' || miss="$miss ustack-tools:kmod"
	[ -z "$miss" ] || { echo "missing$miss (Depends: $dd / $td)"; return 1; }
}

# A build tree lacking what the module's build needs is named, with its
# Debian package, before anything is compiled (DKMS keeps it in make.log):
# 6.12's headers carry vmlinux (modules with BTF) and pahole is missing.
build_check() {
	local kinfo b rc

	kinfo=$("$top/scripts/kernel.sh" 6.12 2>"$tmp/kernel.err") ||
		{ tail -n1 "$tmp/kernel.err"; return 1; }
	eval "$kinfo"
	mkdir -p "$tmp/nopahole" "$tmp/bc-src"
	for b in /usr/bin/* /bin/*; do
		[ "${b##*/}" = pahole ] || ln -sf "$b" "$tmp/nopahole/" 2>/dev/null
	done
	cp -r "$top/module" "$top/include" "$tmp/bc-src/"
	PATH=$tmp/nopahole make -C "$tmp/bc-src/module" KDIR="$KDIR" KVER="$KREL" \
		>"$tmp/bc.log" 2>&1
	rc=$?
	if [ $rc = 0 ] || ! grep -q "cannot build for $KREL: .*pahole; install dwarves" "$tmp/bc.log" ||
	   ls "$tmp/bc-src/module/"*.o >/dev/null 2>&1; then
		echo "exit $rc, $(head -n3 "$tmp/bc.log" | paste -sd' ')"
		return 1
	fi
}

# ---- make install -----------------------------------------------------------

# make install into a staging root, against the 6.1 headers.
make_install() {
	local f kinfo missing=

	kinfo=$("$top/scripts/kernel.sh" "${KERNEL_NAMES[0]}") ||
		{ echo "cannot prepare kernel ${KERNEL_NAMES[0]}"; return 1; }
	eval "$kinfo"
	if ! git -C "$top" ls-files -z --cached --others --exclude-standard |
		(cd "$top" && cpio --null -pdm --quiet "$tmp/inst-src") 2>/dev/null ||
	   ! make -s -C "$tmp/inst-src" KDIR="$KDIR" install DESTDIR="$tmp/root" \
		>"$tmp/install.log" 2>&1; then
		grep -m1 -i error "$tmp/install.log"
		return 1
	fi
	for f in "lib/modules/$KREL/updates/ustack.ko" usr/bin/sframe-register usr/bin/ustack-report \
		 usr/lib/libsframe-register.so usr/include/ustack.h usr/include/linux/ustack.h \
		 usr/sbin/ustackd lib/systemd/system/ustackd.service usr/lib/ustack/libustack-jvm.so; do
		[ -f "$tmp/root/$f" ] || missing="$missing $f"
	done
	[ -z "$missing" ] || { echo "missing$missing"; return 1; }
}

# ---- commits ------------------------------------------------------------------

# Every commit after this one follows the rules below; older history is
# what it is (main when the rules got this test).
commit_base=ceeddd3

# commit_problems DIR BASE: a line "HASH: RULE" for each commit of the
# repository DIR after BASE (to HEAD) that breaks a rule; merges are
# exempt.  A commit is one change, with a subject of at most 72
# characters that says what, not several changes packed behind "; ", and
# a body that says why: a blank line, then a line of text that is not a
# trailer (Signed-off-by: and the like).
commit_problems() {
	local h msg subject
	local trailer='^(Signed-off-by|Co-authored-by|Reviewed-by|Acked-by|Tested-by|Reported-by|Suggested-by|Fixes|Link|Cc|Change-Id): '

	for h in $(git -C "$1" rev-list --no-merges "$2..HEAD"); do
		msg=$(git -C "$1" cat-file commit "$h" | sed '1,/^$/d')
		subject=$(head -n1 <<<"$msg")
		[ ${#subject} -le 72 ] || echo "${h:0:7}: subject over 72 characters"
		[[ $subject != *"; "* ]] || echo "${h:0:7}: subject packs changes behind \"; \""
		if [ -n "$(sed -n 2p <<<"$msg")" ] ||
		   ! tail -n +3 <<<"$msg" | grep -Ev "$trailer" | grep -q '[^[:space:]]'; then
			echo "${h:0:7}: no body (a blank line, then why)"
		fi
	done
}

commit_subjects() {
	local bad

	git -C "$top" cat-file -e "$commit_base^{commit}" 2>/dev/null ||
		{ echo "no history (a shallow clone?)"; return 1; }
	bad=$(commit_problems "$top" "$commit_base")
	[ -z "$bad" ] || { echo "$bad" | head -n 3 | paste -sd'|'; return 1; }
}

# commit_problems itself, on a scratch repository: a commit that breaks
# each rule is named for that rule, good commits and a merge are not.
commit_rules() {
	local g=$tmp/commits base out
	local -A msgs=(
		[long]="$(printf 'x%.0s' {1..73})"$'\n\nA subject of 73 characters.'
		[packed]=$'a: one change; another change\n\nTwo changes in one.'
		[nobody]=$'a: a subject and nothing else'
		[noblank]=$'a: a subject\nrunning on into the body'
		[trailer]=$'a: a subject\n\nSigned-off-by: A U Thor <a@example.org>'
	)
	local -A rule=(
		[long]='subject over 72' [packed]='subject packs changes' [nobody]='no body'
		[noblank]='no body' [trailer]='no body'
	)
	local k

	git init -q "$g" && cd "$g" && git config user.name t && git config user.email t@t &&
		git commit -q --allow-empty -m base || return 1
	base=$(git rev-parse HEAD)
	git commit -q --allow-empty -m "a: $(printf 'y%.0s' {1..69})" -m 'Why: 72 is allowed.'
	git commit -q --allow-empty -m 'a: for (;;) is no packing' -m 'Why it is.'
	out=$(commit_problems "$g" "$base")
	[ -z "$out" ] || { echo "good commits refused: $out"; return 1; }
	for k in "${!msgs[@]}"; do
		git checkout -q -b "$k" "$base" && git commit -q --allow-empty --cleanup=verbatim -m "${msgs[$k]}" ||
			return 1
		out=$(commit_problems "$g" "$base")
		grep -q "^$(git rev-parse --short=7 HEAD): ${rule[$k]}" <<<"$out" &&
			[ "$(wc -l <<<"$out")" = 1 ] || { echo "$k: '$out'"; return 1; }
	done
	git checkout -q -b merged "$base" && git merge -q --no-ff -m 'Merge long' long >/dev/null &&
		[ "$(commit_problems "$g" "$base" | wc -l)" = 1 ] ||
		{ echo "a merge was checked: $(commit_problems "$g" "$base")"; return 1; }
}

# ---- kernel coding style ----------------------------------------------------

# Debian's linux-source-6.1 checkpatch.pl (a tool, extracted into a cache,
# never committed) over the module and the UAPI header.  Only compat.h may
# compare LINUX_VERSION_CODE: that is its job.
cp_dir=/var/cache/ustack/checkpatch
checkpatch() {
	local f ign out bad=

	if [ ! -f "$cp_dir/scripts/checkpatch.pl" ] && [ -f /usr/src/linux-source-6.1.tar.xz ]; then
		mkdir -p "$cp_dir"
		tar -xJf /usr/src/linux-source-6.1.tar.xz -C "$cp_dir" --strip-components=1 --wildcards \
			'*/scripts/checkpatch.pl' '*/scripts/spelling.txt' '*/scripts/const_structs.checkpatch' 2>/dev/null
	fi
	[ -f "$cp_dir/scripts/checkpatch.pl" ] ||
		{ echo "no checkpatch.pl (linux-source-6.1 missing)"; return 1; }
	for f in $(git -C "$top" ls-files --cached --others --exclude-standard \
		   'module/*.[ch]' include/uapi/ustack.h | sed "s|^|$top/|"); do
		ign=
		[ "${f##*/}" = compat.h ] && ign="--ignore LINUX_VERSION_CODE,CONSTANT_COMPARISON"
		out=$(perl "$cp_dir/scripts/checkpatch.pl" --no-tree --quiet --show-types $ign -f "$f" 2>&1 |
			grep -E '^(ERROR|WARNING|CHECK)')
		[ -n "$out" ] && bad="$bad ${f#$top/}: $(echo "$out" | head -n1);"
	done
	[ -z "$bad" ] || { echo "$bad"; return 1; }
}

# ---- the run ----------------------------------------------------------------

run_test version version
if want deb 'deb-*' lintian 'dkms-build-*' 'tools-*'; then
	deb_tests
fi
run_test build-check build_check
run_test make-install make_install
run_test commit-subjects commit_subjects
run_test commit-rules commit_rules
run_test checkpatch checkpatch
