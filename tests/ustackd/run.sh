#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# tests/ustackd: ustackd's store, on the host (no module: `--prepare` writes
# the entries the daemon would register).  The daemon itself, against the
# module, is tests/vm/ustackd-*.sh.
# Run from anywhere: bash tests/ustackd/run.sh [NAME...] (tests/select.sh).
# Needs root (the store is root's: ownership is what is tested).
set -u
cd "$(dirname "$0")/../.." || exit 1
ROOT=$PWD
. tests/select.sh ustackd "$@"
D=$ROOT/tools/ustackd/ustackd
SR=$ROOT/tools/sframe-register/sframe-register
W=$(mktemp -d /tmp/ustack-ustackd.XXXXXX)
on_exit 'rm -rf "$W"'

if [ "$(id -u)" != 0 ]; then
	fail build "needs root: the store must be root's"
	exit 0
fi
if ! make -s -C tools/ustackd -j2 >"$W/build.log" 2>&1 ||
   ! make -s -C tools/sframe-register sframe-register >>"$W/build.log" 2>&1; then
	fail build "make failed: $(tail -3 "$W/build.log" | tr '\n' ' ')"
	exit 0
fi
pass build

LIBC=/lib/x86_64-linux-gnu/libc.so.6
LIBZ=/lib/x86_64-linux-gnu/libz.so.1
LIBCRYPT=/lib/x86_64-linux-gnu/libcrypt.so.1
bid() { readelf -n "$1" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p' | head -n1; }
# prep STORE ARGS...: ustackd --prepare, its log in $W/log
prep() { local s=$1; shift; "$D" --prepare --store "$s" "$@" >"$W/log" 2>&1; }
summary() { grep -E '^ustackd: [0-9]+ objects' "$W/log"; }

# --help and the manual page name every option of the option table.
if want help; then
	opts=$(sed -n 's/^\t\t{ "\([a-z-]*\)", .*/\1/p' tools/ustackd/ustackd.c)
	"$D" --help >"$W/help"
	bad=
	for o in $opts; do
		grep -q -- "--$o\b" "$W/help" || bad="$bad help:--$o"
		grep -q -- "\\\\-\\\\-$o\b" man/ustackd.8 || bad="$bad man:--$o"
	done
	if [ "$(echo "$opts" | wc -w)" -lt 8 ]; then
		fail help "option table not found: $opts"
	elif [ -n "$bad" ] || ! grep -q '^usage: ustackd' "$W/help" || "$D" --bogus 2>/dev/null; then
		fail help "--help or a bad option:$bad"
	else
		pass help
	fi
fi

# The entry of a root-owned object is named by its build-id, root's, 0644,
# and is the shim's cache entry byte for byte: one generator.
S=$W/store
if want 'prepare-*' 'restart-*' atomic-rename; then
	mkdir -p "$S.parent" && chmod 755 "$S.parent"
	if ! prep "$S" "$LIBC" "$LIBZ"; then
		fail prepare-libc "exit $?: $(tail -n2 "$W/log")"
	else
		e=$S/$(bid "$LIBC").v3.sframe
		"$SR" gen --cache "$W/shim.entry" --build-id "$(bid "$LIBC")" "$LIBC"
		if [ ! -f "$e" ] || [ "$(stat -c '%u %a' "$e" "$S" | paste -sd' ')" != "0 644 0 755" ]; then
			fail prepare-libc "no entry $e, or not root's 0644 in a 0755 store"
		elif ! cmp -s "$e" "$W/shim.entry"; then
			fail prepare-libc "the entry differs from sframe-register gen --cache's"
		else
			pass prepare-libc
		fi
	fi
fi

# ustackd finds the CPython in an object it covers and says, once, whether
# the kernel reads its frames: Debian 12's 3.11, trixie's 3.13 and sid's
# 3.14 yes (a layout each), sid's 3.15 no (its thread state moved,
# unchecked), libc no line at all.  The other suites' Pythons unpacked
# as the VM tests' runtimes are (scripts/runtimes.conf).
if want python-layout; then
	py=(/usr/bin/python3.11)
	for rt in python3.13 python3.14 python3.15; do
		read -r -a rc < <(awk -v n="$rt" '$1 == n' scripts/runtimes.conf)
		r=$(bash scripts/unpack-suite.sh "${rc[1]}" "$rt" "${rc[@]:2}" 2>"$W/unpack.log") &&
			py+=("$r/usr/bin/$rt")
	done
	if [ ${#py[@]} != 4 ]; then
		fail python-layout "the other suites' Pythons not unpacked: $(tail -n1 "$W/unpack.log")"
	elif ! prep "$W/pystore" "${py[@]}" "$LIBC"; then
		fail python-layout "exit $?: $(tail -n2 "$W/log")"
	else
		bad=
		for p in "${py[@]:0:3}"; do
			grep -q "^ustackd: $p: python 3\.1[134]\.[0-9]*: its frames read by the kernel$" "$W/log" ||
				bad="$bad ${p##*/}"
		done
		grep -q "^ustackd: ${py[3]}: python 3\.15\.[0-9]*: its thread lists are not known for this version$" "$W/log" ||
			bad="$bad python3.15"
		grep -q "^ustackd: $LIBC: python" "$W/log" && bad="$bad libc"
		if [ -n "$bad" ]; then
			fail python-layout "wrong or no CPython line for$bad: $(grep -i python "$W/log" | head -5 | tr '\n' ' ')"
		else
			pass python-layout
		fi
	fi
fi

# A restart reuses every entry: nothing generated, no file rewritten.
if want restart-reuses; then
	before=$(stat -c '%n %i %Y' "$S"/*.sframe)
	sleep 1
	if ! prep "$S" "$LIBC" "$LIBZ"; then
		fail restart-reuses "exit $?"
	elif ! summary | grep -q '(0 generated, 2 reused)'; then
		fail restart-reuses "$(summary)"
	elif [ "$(stat -c '%n %i %Y' "$S"/*.sframe)" != "$before" ]; then
		fail restart-reuses "entries rewritten"
	else
		pass restart-reuses
	fi
fi

# The vDSO: its image is ustackd's own; the entry is named by kernel release
# and build-id, and its SFrame is what sframe-register makes of that image.
if want vdso; then
	rm -f "$S"/vdso-*
	prep "$S" "$LIBZ"
	python3 - "$W/vdso.img" <<'PYEOF'
import sys
for l in open('/proc/self/maps'):
    if l.split()[-1] == '[vdso]':
        a, b = (int(x, 16) for x in l.split()[0].split('-'))
        m = open('/proc/self/mem', 'rb')
        m.seek(a)
        open(sys.argv[1], 'wb').write(m.read(b - a))
PYEOF
	e=$S/vdso-$(uname -r)-$(bid "$W/vdso.img").v3.sframe
	# the section, after each entry's header (hdr_size at offset 8)
	sec() { tail -c +$(($(od -An -tu4 -j8 -N4 "$1") + 1)) "$1"; }
	if [ ! -f "$e" ] || ! grep -q '^ustackd: \[vdso\]: generated vdso-' "$W/log"; then
		fail vdso "no entry $e: $(ls "$S" | paste -sd' '); $(grep vdso "$W/log")"
	elif ! "$SR" gen --cache "$W/vdso.entry" --build-id "$(bid "$W/vdso.img")" "$W/vdso.img" ||
	     ! cmp -s <(sec "$e") <(sec "$W/vdso.entry"); then
		fail vdso "its SFrame differs from sframe-register gen --cache's"
	elif ! prep "$S" "$LIBZ" || ! grep -q '^ustackd: \[vdso\]: reused vdso-' "$W/log"; then
		fail vdso "not reused: $(grep vdso "$W/log")"
	else
		pass vdso
	fi
fi

# Written to a temporary file, synced, renamed over the entry.
if want atomic-rename; then
	rm -f "$S"/*.sframe
	strace -f -qq -e trace=openat,fsync,rename,renameat,renameat2 -o "$W/strace" \
		"$D" --prepare --store "$S" "$LIBZ" 2>/dev/null
	name=$(bid "$LIBZ").v3.sframe
	# the order: create .NAME.*.tmp, fsync, rename it to NAME
	order=$(grep -E "\\.$name\\.[0-9]+\\.tmp|fsync|rename" "$W/strace" |
		sed -E 's/^[0-9]+ +//; s/\(.*//' | uniq | paste -sd' ')
	if ! grep -qE "rename(at2?)?\\(.*\\.$name\\.[0-9]+\\.tmp\".*\"$name\"" "$W/strace"; then
		fail atomic-rename "no rename of a temporary file to $name"
	elif [[ $order != *"fsync rename"* ]]; then
		fail atomic-rename "not created, synced, renamed: $order"
	elif ls -A "$S" | grep -q '\.tmp$'; then
		fail atomic-rename "a temporary file left"
	else
		pass atomic-rename
	fi
fi

# A store that is a symbolic link, someone else's, or writable by others, or
# under a directory others may write, is refused whole: nothing written.
store_refused() { # name store-path
	if prep "$2" "$LIBZ"; then
		fail "$1" "accepted"
	elif ! grep -q 'store refused' "$W/log"; then
		fail "$1" "no reason: $(head -n1 "$W/log")"
	elif [ -n "$(find "$W/target" -name '*.sframe' 2>/dev/null)" ]; then
		fail "$1" "wrote through it"
	else
		pass "$1"
	fi
}
if want 'store-*'; then
	mkdir -p "$W/target" "$W/gw"
	ln -s "$W/target" "$W/link"
	store_refused store-symlink "$W/link"
	ln -s "$W/target" "$W/gw/link2"
	store_refused store-symlink-parent "$W/gw/link2/sub"
	chown nobody "$W/target"
	store_refused store-not-root "$W/target"
	chown root "$W/target"
	chmod 777 "$W/target"
	store_refused store-world-writable "$W/target"
	chmod 755 "$W/target"
	chmod 775 "$W/gw"
	chgrp nogroup "$W/gw"
	store_refused store-parent-writable "$W/gw/store"
	store_refused store-relative "relative/store"
fi

# An entry it did not write (a symbolic link, someone else's file, one
# others may write, a corrupt header) is never used: it is made again.
entry_replaced() { # name
	if ! prep "$S" "$LIBZ"; then
		fail "$1" "exit $?"
	elif ! summary | grep -q '(1 generated, 0 reused)'; then
		fail "$1" "$(summary)"
	elif [ -L "$e" ] || [ "$(stat -c '%u %a %h' "$e")" != "0 644 1" ]; then
		fail "$1" "the entry was not replaced by a real one"
	else
		pass "$1"
	fi
}
if want 'entry-*'; then
	prep "$S" "$LIBZ"
	e=$S/$(bid "$LIBZ").v3.sframe
	cp "$e" "$W/good"
	rm "$e" && ln -s "$W/good" "$e"
	entry_replaced entry-symlink
	chown nobody "$e"
	entry_replaced entry-not-root
	chmod 666 "$e"
	entry_replaced entry-writable
	ln "$e" "$W/hardlink"
	entry_replaced entry-hardlink
	rm -f "$W/hardlink"
	printf 'XXXXXXXX' | dd of="$e" conv=notrunc status=none
	entry_replaced entry-bad-magic
	truncate -s 100 "$e"
	entry_replaced entry-truncated
fi

# A user's object may carry any build-id: its entry is keyed by its
# identity, never by the build-id root's objects share.
if want user-object; then
	mkdir -p "$W/u" && cp "$LIBZ" "$W/u/libz.so" && chown nobody "$W/u/libz.so"
	rm -f "$S"/*.sframe
	prep "$S" "$W/u/libz.so"
	n=$(ls "$S" | grep -c '^u-[0-9a-f]\{16\}\.v3\.sframe$')
	if [ -e "$S/$(bid "$LIBZ").v3.sframe" ] || [ "$n" != 1 ]; then
		fail user-object "entries: $(ls "$S" | paste -sd' ')"
	else
		# and a copy with a new identity does not reuse it
		touch "$W/u/libz.so"
		prep "$S" "$W/u/libz.so"
		if summary | grep -q '(1 generated, 0 reused)'; then
			pass user-object
		else
			fail user-object "a changed file reused: $(summary)"
		fi
	fi
fi

# Without a build-id: a hash of the contents names the entry.
if want no-build-id; then
	printf 'int main(void) { return 0; }\n' >"$W/nb.c"
	gcc -O1 -Wl,--build-id=none -o "$W/nb" "$W/nb.c"
	prep "$S" "$W/nb"
	c=$(ls "$S" | grep '^c-[0-9a-f]\{16\}\.v3\.sframe$')
	cp "$W/nb" "$W/nb2"
	prep "$S" "$W/nb2"
	if [ -z "$c" ] || ! summary | grep -q '(0 generated, 1 reused)'; then
		fail no-build-id "entry '$c'; a copy: $(summary)"
	else
		pass no-build-id
	fi
fi

# Bad objects are refused with a reason, the others still covered; scripts
# and other files that are no ELF objects are passed over in silence.
if want bad-objects; then
	mkdir -p "$W/bad"
	head -c 3000 "$LIBC" >"$W/bad/trunc.so"
	head -c 200000 "$LIBC" >"$W/bad/trunc2.so"
	head -c 65536 /dev/urandom >"$W/bad/random.so"
	printf '\177ELF\002\001\001' >"$W/bad/tiny.so"
	python3 - "$LIBZ" "$W/bad/ehframe.so" <<'PYEOF'
import sys, random
b = bytearray(open(sys.argv[1], 'rb').read())
random.seed(7)
# scribble over the middle of the file: .eh_frame and text alike
for _ in range(2000):
    b[random.randrange(len(b) // 4, len(b))] = random.randrange(256)
open(sys.argv[2], 'wb').write(b)
PYEOF
	printf '#!/bin/sh\necho hi\n' >"$W/bad/script"
	cp "$LIBZ" "$W/bad/good.so"
	cp /usr/bin/true "$W/bad/"
	objcopy --remove-section=.eh_frame --remove-section=.eh_frame_hdr \
		"$W/bad/true" "$W/bad/noeh" 2>/dev/null
	prep "$S" "$W/bad"
	rc=$?
	if [ $rc -ne 0 ] || grep -qiE 'segfault|abort|core' "$W/log"; then
		fail bad-objects "exit $rc: $(tail -n2 "$W/log" | paste -sd' ')"
	elif ! grep -q 'bad/trunc.so: refused' "$W/log" || ! grep -q 'bad/noeh: refused' "$W/log" ||
	     grep -q 'bad/script' "$W/log" || ! grep -q 'good.so: generated\|good.so: reused' "$W/log" ||
	     ! grep -q 'bad/true: ' "$W/log"; then
		fail bad-objects "$(paste -sd'|' "$W/log")"
	else
		pass bad-objects
	fi
fi

# A file name is a user's: a newline in it cannot forge a line of the log
# (the journal's "covered ..." below is the name, escaped, not a line).
forged=$'x\ncovered 8:1:131 /usr/lib/x86_64-linux-gnu/libc.so.6'
if want escape-prepare; then
	mkdir -p "$W/esc/${forged%/*}" && cp "$LIBZ" "$W/esc/$forged"
	prep "$W/escstore" "$W/esc/$forged"
	if grep -v '^ustackd: ' "$W/log" | grep -q .; then
		fail escape-prepare "a forged line: $(grep -v '^ustackd: ' "$W/log" | head -n1)"
	elif ! grep -q '/esc/x\\012covered\\0408:1:131\\040/usr/lib/.*: generated\|/esc/x\\012covered\\0408:1:131\\040/usr/lib/.*: reused' "$W/log"; then
		fail escape-prepare "the name not escaped: $(paste -sd'|' "$W/log")"
	else
		pass escape-prepare
	fi
fi

# craft FILE NSECT NOTESECT NOTESIZE: the issue's attacker's file (craft.py)
craft() { python3 tests/ustackd/craft.py "$@"; }

# A user's file is read in a limited child, never by the daemon: a
# million sections and millions of notes cost the daemon nothing (its own
# peak RSS) and are refused with a reason; one truncated while it is read
# (SIGBUS) kills no more than that child (before, the daemon read its
# sections for seconds and died of the truncation; now the child refuses
# it at once).  The objects after it are covered.
if want examine-huge; then
	mkdir -p "$W/hx" && craft "$W/hx/huge.so" 1000000 1 $((256 << 20))
	timeout 600 "$D" --prepare --store "$W/hxstore" "$W/hx/huge.so" "$LIBZ" >"$W/log" 2>&1
	rc=$?
	rss=$(sed -n 's/^ustackd: max RSS \([0-9]*\) KiB.*/\1/p' "$W/log")
	crss=$(sed -n 's/^ustackd: max RSS .* generator \([0-9]*\) KiB$/\1/p' "$W/log")
	echo "examine-huge: exit $rc, daemon's max RSS ${rss:-?} KiB, its children's ${crss:-?} KiB" >&2
	# (and the child counts before libelf: its section descriptors for a
	# million sections were 200 MiB)
	if [ $rc != 0 ] || ! grep -q 'huge.so: refused: more than 65536 sections' "$W/log" ||
	   ! grep -q 'libz.so.1: generated' "$W/log" || [ "${rss:-999999}" -gt 32768 ] ||
	   [ "${crss:-999999}" -gt 65536 ]; then
		fail examine-huge "exit $rc, RSS ${rss:-?} KiB, children ${crss:-?} KiB: $(grep -v vdso "$W/log" | paste -sd'|')"
	else
		pass examine-huge
	fi
fi
if want examine-truncated; then
	# (under the section cap, refused at once now: 65536 note sections
	# over 900 MiB, which the child reads for seconds)
	mkdir -p "$W/tx" && craft "$W/tx/trunc.so" 65536 65535 $((900 << 20))
	"$D" --prepare --store "$W/txstore" "$W/tx/trunc.so" "$LIBZ" >"$W/log" 2>&1 &
	p=$!
	sleep 0.5
	truncate -s 4096 "$W/tx/trunc.so"
	timeout 600 tail --pid=$p -f /dev/null
	wait $p
	rc=$?
	echo "examine-truncated: exit $rc" >&2
	if [ $rc != 0 ] || ! grep -q 'trunc.so: refused: ' "$W/log" ||
	   ! grep -q 'libz.so.1: generated' "$W/log"; then
		fail examine-truncated "exit $rc: $(grep -v vdso "$W/log" | paste -sd'|')"
	else
		pass examine-truncated
	fi
fi

# A user's object whose FDE ends near 2^64 inside a segment said to reach
# that far (craft_fde.py memsz): the generator's crtbegin scan wrapped its
# address to 0 and read 4 MiB before .text (before: "refused: generator
# killed by signal 11"); now the segment is bounded by the file and the
# scan by the section, and the entry is generated.
if want generate-wrap; then
	mkdir -p "$W/gw" && python3 tests/ustackd/craft_fde.py "$W/gw/wrap.so" memsz &&
		chown nobody "$W/gw/wrap.so"
	prep "$W/gwstore" "$W/gw/wrap.so"
	rc=$?
	if [ $rc != 0 ] || ! grep -q 'wrap.so: generated ' "$W/log"; then
		fail generate-wrap "exit $rc: $(grep -v vdso "$W/log" | paste -sd'|')"
	else
		pass generate-wrap
	fi
fi

# child_look PID: PID's child, once it has lived 0.3 s (at most 5 s for
# one to appear): its credentials, capabilities, seccomp mode and
# descriptors, one per line ("fd N TARGET")
child_look() {
	local c=
	for _ in $(seq 50); do
		c=$(awk '{print $1}' "/proc/$1/task/$1/children" 2>/dev/null)
		[ -n "$c" ] && break
		sleep 0.1
	done
	sleep 0.3
	c=$(awk '{print $1}' "/proc/$1/task/$1/children" 2>/dev/null)
	[ -n "$c" ] || return 1
	grep -E '^(Uid|Gid|Groups|CapInh|CapPrm|CapEff|CapAmb|NoNewPrivs|Seccomp):' "/proc/$c/status" |
		tr -s '\t ' ' '
	for f in /proc/$c/fd/*; do echo "fd ${f##*/} $(readlink "$f")"; done
}
# sandboxed LOOK UID WANT_FD: the child_look output LOOK is a sandboxed
# child's: uid UID, gid nogroup, no groups, no capabilities, no new
# privileges, seccomp filter (mode 2), three descriptors: the log (2), the
# object and WANT_FD (a pattern: its result channel); else why not
sandboxed() {
	local bad= fds
	grep -qx "Uid: $2 $2 $2 $2" <<<"$1" || bad="$bad uid;"
	grep -qx 'Gid: 65534 65534 65534 65534' <<<"$1" || bad="$bad gid;"
	grep -qx 'Groups:' <<<"$1" || grep -qx 'Groups: ' <<<"$1" || bad="$bad groups;"
	for c in CapInh CapPrm CapEff CapAmb; do
		grep -qx "$c: 0000000000000000" <<<"$1" || bad="$bad $c;"
	done
	grep -qx 'NoNewPrivs: 1' <<<"$1" || bad="$bad no_new_privs;"
	grep -qx 'Seccomp: 2' <<<"$1" || bad="$bad seccomp;"
	fds=$(grep '^fd ' <<<"$1")
	if [ "$(wc -l <<<"$fds")" != 3 ] || ! grep -q '^fd 2 ' <<<"$fds" ||
	   ! grep -qE "^fd [0-9]+ $3" <<<"$fds"; then
		bad="$bad fds: $(paste -sd' ' <<<"$fds");"
	fi
	echo "${bad:-ok}"
}

# The limited children run without privilege (issue 49, item 6): before,
# they were root with every capability, no seccomp, and held every
# descriptor of the daemon (the store's directory; /dev/sframe).  An
# examining child is looked at on a slow file (65535 note sections over
# 900 MiB: seconds of reading) owned by root: uid nobody.  A generating
# child on 600000 FDEs (seconds of libdw) of a file owned by uid 12345:
# that uid, its channel the entry's memfd.
# sandbox_case NAME FILE UID CHANNEL: --prepare of FILE, its child looked
# at: running as UID, its descriptors the log, the object and CHANNEL
sandbox_case() {
	local p look r
	"$D" --prepare --store "$W/$1.store" "$2" >"$W/log" 2>&1 &
	p=$!
	look=$(child_look $p)
	wait $p
	echo "$1: $(grep -E '^(Uid|Seccomp|CapEff)' <<<"$look" | paste -sd' ')" >&2
	r=$(sandboxed "$look" "$3" "$4")
	[ "$r" = ok ] || { fail "$1" "$r $(paste -sd'|' <<<"$look")"; return 1; }
}
if want sandbox-examine; then
	mkdir -p "$W/sbx" && craft "$W/sbx/slow.so" 65536 65535 $((900 << 20))
	sandbox_case sandbox-examine "$W/sbx/slow.so" 65534 'socket:' &&
		pass sandbox-examine
fi
if want sandbox-generate; then
	mkdir -p "$W/sbg" && python3 tests/ustackd/craft_fde.py "$W/sbg/many.so" many 600000 &&
		chown 12345:12345 "$W/sbg/many.so"
	if sandbox_case sandbox-generate "$W/sbg/many.so" 12345 '/memfd:ustackd-entry'; then
		if ! grep -q 'many.so: generated u-' "$W/log"; then
			fail sandbox-generate "not generated: $(grep -v vdso "$W/log" | paste -sd'|')"
		else
			pass sandbox-generate
		fi
	fi
fi

# A user's new objects cannot fill the table of objects seen, after which
# every new object, root's too, was left out: a ustackd built with a table
# of 8 (4 for users' objects) meets 12 of a user's objects, then root's
# libz, which is still prepared; the users' objects are forgotten, and
# counted.
if want table-users; then
	if ! gcc -O2 -std=gnu11 -D_GNU_SOURCE -DMAX_OBJECTS=8 -DMAX_USER_OBJECTS=4 \
		-Itools/ustackd -Itools/lib -Iinclude -Imodule -o "$W/ustackd-small" \
		tools/ustackd/*.c tools/lib/libustack-tools.a -lelf -ldw 2>"$W/small.log"; then
		fail table-users "build: $(head -n3 "$W/small.log" | paste -sd' ')"
	else
		mkdir -p "$W/tu" && chmod 755 "$W/tu"
		for i in $(seq 12); do
			printf '#!/bin/sh\n# %s\n' "$i" >"$W/tu/s$i" && chown nobody "$W/tu/s$i"
		done
		"$W/ustackd-small" --prepare --store "$W/tustore" "$W/tu" "$LIBZ" >"$W/log" 2>&1
		rc=$?
		if [ $rc != 0 ] || ! grep -q 'libz.so.1: generated' "$W/log" ||
		   ! grep -q "users' objects: forgotten" "$W/log"; then
			fail table-users "exit $rc: $(grep -v vdso "$W/log" | paste -sd'|')"
		else
			pass table-users
		fi
	fi
fi

# The daemon without the module says what is missing and stops.
if want no-module; then
	if [ -e /dev/sframe ]; then
		pass no-module	# a host with the module: nothing to prove here
	elif "$D" --store "$S" 2>"$W/log"; then
		fail no-module "ran without /dev/sframe"
	elif ! grep -q 'modprobe ustack' "$W/log"; then
		fail no-module "$(cat "$W/log")"
	else
		pass no-module
	fi
fi

# fakestore: build the stand-in for the store ioctls once (errors: fs.log)
fakestore() {
	[ -e "$W/fakestore.so" ] ||
		gcc -O2 -g -shared -fPIC -Iinclude -Imodule -o "$W/fakestore.so" \
			tests/ustackd/fakestore.c tools/lib/libustack-tools.a -ldl 2>"$W/fs.log"
}

# in_pidns NAME SCRIPT RESULTS: run SCRIPT in a PID namespace of its own,
# print the result lines it wrote to RESULTS (none: NAME fails)
in_pidns() {
	: >"$3"
	unshare --pid --fork --mount-proc sh "$2" >"$2.log" 2>&1
	if [ -s "$3" ]; then
		cat "$3"
	else
		fail "$1" "no result: $(tail -n3 "$2.log" | paste -sd' ')"
	fi
}

# The daemon against a stand-in for the module's store ioctls (fakestore.c:
# the kernel's decoder validates each section), in a PID namespace of its
# own so that it sees only the processes started here (--no-system: not
# the objects on this machine's disk, which the VM and system tests do): every object of a
# running program registered before `ustackd: ready`, --status, an object
# named by the miss queue covered within a second, SIGTERM, a restart that
# generates nothing, an entry the kernel refuses made again.
if want 'daemon-*'; then
	if ! fakestore; then
		fail daemon-build "$(head -n3 "$W/fs.log")"
	else
		cp /usr/bin/sleep "$W/sleepy"
		cp /usr/bin/sleep "$W/late"
		cat >"$W/ns.sh" <<NSEOF
set -u
W=$W D=$D
. $ROOT/tests/ustackd/nslib.sh
export LD_PRELOAD=\$W/fakestore.so FAKESTORE_LOG=\$W/adds FAKESTORE_MISSES=\$W/misses
NSEOF
		cat >>"$W/ns.sh" <<'NSEOF'
res() { printf '%s\n' "$1" >>"$W/results"; }
"$W/sleepy" 100 & S=$!
"$D" --store "$W/dstore" --interval 50 --no-system 2>"$W/d1.log" & UD=$!
if ! ready "$W/d1.log"; then
	res "FAIL: ustackd/daemon-ready: $(tail -n3 "$W/d1.log" | paste -sd' ')"
	kill $UD $S; exit
fi
libc=$(sed -n 's|.* \(/.*libc.so.6\)$|\1|p' /proc/$S/maps | head -n1)
if grep -q "^add $(key "$W/sleepy") " "$W/adds" && grep -q "^add $(key "$libc") " "$W/adds"; then
	res "PASS: ustackd/daemon-ready"
else
	res "FAIL: ustackd/daemon-ready: sleepy or libc not registered: $(paste -sd' ' "$W/adds")"
fi
"$D" --status --store "$W/dstore" >"$W/status" 2>&1
if grep -q "^ustackd pid $UD: running" "$W/status" &&
   grep -q "^covered [0-9]*:[0-9]*:[0-9]* $W/sleepy [0-9a-f]*\.v3\.sframe$" "$W/status" &&
   grep -q "^covered 0:0:0 \[vdso\] vdso-.*\.v3\.sframe$" "$W/status" &&
   grep -q "^add vdso [1-9]" "$W/adds"; then
	res "PASS: ustackd/daemon-status"
else
	res "FAIL: ustackd/daemon-status: $(head -n5 "$W/status" | paste -sd'|')"
fi
# A new object, named by the miss queue (the scan would find it in 10 s).
"$W/late" 100 & L=$!
sleep 0.2
set -- $(awk '$2 ~ /x/ && $6 ~ /late$/ { split($1, r, "-"); print r[1], r[2]; exit }' /proc/$L/maps)
t0=$(date +%s%N)
echo "$L $1 $2 $(key "$W/late")" >"$W/misses.tmp" && mv "$W/misses.tmp" "$W/misses"
ok=
for _ in $(seq 100); do
	grep -q "^add $(key "$W/late") " "$W/adds" && { ok=1; break; }
	sleep 0.01
done
ms=$((($(date +%s%N) - t0) / 1000000))
if [ -n "$ok" ] && [ $ms -le 1000 ]; then
	res "PASS: ustackd/daemon-miss"
else
	res "FAIL: ustackd/daemon-miss: late not registered ($ms ms): $(tail -n3 "$W/d1.log" | paste -sd' ')"
fi
# A miss for a registered object: written to since (the kernel's key has
# its ctime), it is registered again at once; unchanged, it is not (the
# kernel lost it: again at most every 10 s).
misses_for() { # PID FILE: a miss line for FILE's executable mapping in PID
	set -- $1 "$2" $(awk -v f="$2" '$2 ~ /x/ && $6 == f { split($1, r, "-"); print r[1], r[2]; exit }' /proc/$1/maps)
	echo "$1 $3 $4 $(key "$2")"
}
adds_of() { grep -c "^add $(key "$1") " "$W/adds"; }
n0=$(adds_of "$W/late")
misses_for $L "$W/late" >"$W/misses.tmp" && mv "$W/misses.tmp" "$W/misses"
sleep 0.5
n1=$(adds_of "$W/late")
touch "$W/late"
misses_for $L "$W/late" >"$W/misses.tmp" && mv "$W/misses.tmp" "$W/misses"
for _ in $(seq 100); do
	[ "$(adds_of "$W/late")" -gt "$n1" ] && break
	sleep 0.01
done
n2=$(adds_of "$W/late")
if [ "$n1" = "$n0" ] && [ "$n2" -gt "$n1" ]; then
	res "PASS: ustackd/daemon-changed"
else
	res "FAIL: ustackd/daemon-changed: registrations $n0, after a miss $n1, after a change $n2"
fi
# A user's program touched in a loop: each round a new identity, a new
# entry; the one it replaced is removed from the store, not kept.
U=$W/userprog
cp /usr/bin/sleep "$U" && chown nobody "$U"
"$U" 100 & P=$!
sleep 0.2
for i in 1 2 3 4 5; do
	n=$(adds_of "$U")
	touch -d "@$((1000000 + i))" "$U"	# a new ctime, whatever the clock
	misses_for $P "$U" >"$W/misses.tmp" && mv "$W/misses.tmp" "$W/misses"
	for _ in $(seq 200); do
		[ "$(adds_of "$U")" -gt "$n" ] && break
		sleep 0.01
	done
done
nu=$(ls "$W/dstore" | grep -c '^u-')
echo "daemon-superseded: $nu user entries after 5 changes" >&2
if [ "$(adds_of "$U")" -lt 5 ]; then
	res "FAIL: ustackd/daemon-superseded: only $(adds_of "$U") registrations of 5 versions"
elif [ "$nu" != 1 ]; then
	res "FAIL: ustackd/daemon-superseded: $nu user entries in the store after 5 changes (want 1)"
else
	res "PASS: ustackd/daemon-superseded"
fi
kill $P
# A name with a newline, reached by a miss (readlink: the raw name), forges
# no line of --status or of the log.
evil=$W/$(printf 'evil\ncovered 8:1:131 /usr/lib/x86_64-linux-gnu/libc.so.6')
mkdir -p "${evil%/*}" && cp /usr/bin/sleep "$evil"
"$evil" 100 & E=$!
sleep 0.2
set -- $(awk '$2 ~ /x/ && /evil/ { split($1, r, "-"); print r[1], r[2]; exit }' /proc/$E/maps) 0 0
echo "$E $1 $2 $(key "$evil")" >"$W/misses.tmp" && mv "$W/misses.tmp" "$W/misses"
for _ in $(seq 100); do
	grep -q "^add $(key "$evil") " "$W/adds" && break
	sleep 0.01
done
sleep 1.2	# the status file is written at most once a second
"$D" --status --store "$W/dstore" >"$W/status" 2>&1
if ! grep -q "^add $(key "$evil") " "$W/adds"; then
	res "FAIL: ustackd/daemon-escape: not registered: $(tail -n3 "$W/d1.log" | paste -sd' ')"
elif grep -q '^covered 8:1:131 ' "$W/status" || grep -v '^ustackd: ' "$W/d1.log" | grep -q .; then
	res "FAIL: ustackd/daemon-escape: a forged line: $(grep -h '^covered 8:1:131' "$W/status"; grep -v '^ustackd: ' "$W/d1.log" | head -n1)"
elif ! grep -q '^covered [0-9:]* .*/evil\\012covered\\0408:1:131\\040/usr/lib/x86_64-linux-gnu/libc.so.6 ' "$W/status"; then
	res "FAIL: ustackd/daemon-escape: not in --status, escaped: $(grep evil "$W/status" | head -n2 | paste -sd'|')"
else
	res "PASS: ustackd/daemon-escape"
fi
kill $E
kill -TERM $UD
wait $UD; rc=$?
if [ $rc = 0 ] && grep -q '^ustackd: stopped; [0-9]* objects stay registered' "$W/d1.log" &&
   grep -q '^ustackd [0-9]* stopped' "$W/dstore/status"; then
	res "PASS: ustackd/daemon-sigterm"
else
	res "FAIL: ustackd/daemon-sigterm: exit $rc: $(tail -n2 "$W/d1.log" | paste -sd' ')"
fi
# Restart: every stored entry reused.  And an entry the kernel would not
# take (a valid header, garbage SFrame) is made again.  Objects the first
# run never met (a grep that ran only now) are generated: not counted.
e=$W/dstore/$(readelf -n "$W/sleepy" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p').v3.sframe
size=$(stat -c %s "$e")
dd if=/dev/urandom of="$e" bs=1 seek=200 count=$((size - 200)) conv=notrunc status=none
ls "$W/dstore" | grep -vx "${e##*/}" >"$W/stored"
: >"$W/adds"
"$D" --store "$W/dstore" --interval 50 --no-system 2>"$W/d2.log" & UD=$!
if ! ready "$W/d2.log"; then
	res "FAIL: ustackd/daemon-restart: $(tail -n3 "$W/d2.log" | paste -sd' ')"
elif sed -n 's/^ustackd: .*: generated \([^ ]*\) .*/\1/p' "$W/d2.log" |
     grep -qxFf "$W/stored" ||
     ! grep -q ' ([1-9][0-9]* generated, [1-9][0-9]* reused)' "$W/d2.log" ||
     ! grep -q 'refused by the kernel; generating it again' "$W/d2.log" ||
     ! grep -q "^add $(key "$W/sleepy") " "$W/adds"; then
	res "FAIL: ustackd/daemon-restart: $(grep -E 'objects:|again' "$W/d2.log" | paste -sd' ')"
else
	res "PASS: ustackd/daemon-restart"
fi
kill -TERM $UD; wait $UD
kill $S $L
NSEOF
		in_pidns daemon-ready "$W/ns.sh" "$W/results"
	fi
fi

# The store's garbage and budgets (issue 49): a user copying a library to a
# new file, mapping it and deleting it, in a loop, left an entry a round
# in the store for good.  store-gc: a stale user's entry that nothing holds
# (an earlier daemon's) is unlinked at startup, the system's entry of
# libz (on disk, mapped by none) kept; then six rounds of a copy of libc
# owned by nobody, mapped (LD_LIBRARY_PATH), registered, its process
# killed and the file deleted: each round's entry is unlinked within
# seconds (--rescan 1), none left, and --status counts them.
# store-budget: with --user-budget 512K, four copies mapped at once (an
# entry takes 180 KiB): two covered, two refused for the budget, counted
# in --status, the user's entries under the budget; deleted, all go.
# store-subuids: the same with the copies of four subordinate uids of one
# user namespace: one user's budget, not four.
if want 'store-gc' 'store-budget' 'store-subuids'; then
	if ! fakestore || ! gcc -O2 -o "$W/userns_uids" tests/vm/src/userns_uids.c 2>>"$W/fs.log"; then
		fail store-gc "$(head -n3 "$W/fs.log")"
	else
		rm -rf "$W/gstore" "$W/bstore"
		prep "$W/gstore" "$LIBZ"
		zent=$(bid "$LIBZ").v3.sframe
		cp "$W/gstore/$zent" "$W/gstore/u-0123456789abcdef.v3.sframe"
		touch -d '-2 hours' "$W/gstore/u-0123456789abcdef.v3.sframe"
		mkdir -p "$W/gc" && chmod 755 "$W/gc"
		cat >"$W/gc.sh" <<NSEOF
set -u
W=$W D=$D LIBC=$LIBC zent=$zent
. $ROOT/tests/ustackd/nslib.sh
NSEOF
		cat >>"$W/gc.sh" <<'NSEOF'
export LD_PRELOAD=$W/fakestore.so FAKESTORE_LOG=$W/gc.adds FAKESTORE_MISSES=$W/gc.misses
res() { printf '%s\n' "$1" >>"$W/gc.results"; }
users() { ls "$1" | grep -c '^u-'; }
no_users() { [ "$(users "$1")" = 0 ]; }
ubytes() { # STORE: its users' entries, KiB on disk
	find "$1" -maxdepth 1 -name 'u-*' -printf '%k\n' | awk '{ s += $1 } END { print s + 0 }'
}
added() { grep -q "^add $1 " "$W/gc.adds"; }
copy() { # DIR: a copy of libc owned by nobody in DIR
	mkdir -p "$1" && cp "$LIBC" "$1/libc.so.6" && chown -R nobody "$1"
}
status_of() { # STORE KEY: KEY's figure in --status
	"$D" --status --store "$1" | sed -n "s/.* $2 \([0-9]*\).*/\1/p; s/^$2 \([0-9]*\).*/\1/p" | head -n1
}
: >"$W/gc.adds"
"$D" --store "$W/gstore" --interval 50 --rescan 1 --no-system 2>"$W/gc1.log" & UD=$!
if ! ready "$W/gc1.log"; then
	res "FAIL: ustackd/store-gc: not ready: $(tail -n3 "$W/gc1.log" | paste -sd' ')"
	kill $UD; exit
fi
stale=no; [ -e "$W/gstore/u-0123456789abcdef.v3.sframe" ] && stale=yes
kept=no; [ -e "$W/gstore/$zent" ] && kept=yes
peak=0 bad=
for i in 1 2 3 4 5 6; do
	copy "$W/gc/r$i"
	LD_LIBRARY_PATH=$W/gc/r$i /usr/bin/sleep 60 & P=$!
	k=$(key "$W/gc/r$i/libc.so.6")
	waitfor 100 added "$k" || { bad="round $i: not registered"; kill $P; break; }
	n=$(users "$W/gstore"); [ "$n" -gt "$peak" ] && peak=$n
	kill $P; wait $P 2>/dev/null
	rm -rf "$W/gc/r$i"
	# collected at the next rescan (one a second)
	waitfor 50 no_users "$W/gstore" || bad=${bad:-"round $i: its entry stayed"}
done
sleep 1.2	# the status file: at most once a second
collected=$(status_of "$W/gstore" collected)
echo "store-gc: stale entry at startup left: $stale, libz's kept: $kept;" \
     "after the rounds: $(users "$W/gstore") users' entries ($(ubytes "$W/gstore") KiB)," \
     "at most $peak at once, collected ${collected:-none}${bad:+; $bad}" >>"$W/gc.figures"
if [ $stale = yes ] || [ $kept = no ]; then
	res "FAIL: ustackd/store-gc: at startup, the stale user's entry left: $stale, libz's kept: $kept"
elif [ -n "$bad" ]; then
	res "FAIL: ustackd/store-gc: $bad: $(users "$W/gstore") users' entries, $(ubytes "$W/gstore") KiB"
elif [ "${collected:-0}" -lt 7 ]; then
	res "FAIL: ustackd/store-gc: --status says collected '${collected:-}' (want 7 or more)"
else
	res "PASS: ustackd/store-gc"
fi
kill -TERM $UD; wait $UD
# The budget: 512K a user, an entry of libc 180 KiB.
"$D" --store "$W/bstore" --interval 50 --rescan 1 --no-system --user-budget 512K 2>"$W/gc2.log" & UD=$!
if ! ready "$W/gc2.log"; then
	res "FAIL: ustackd/store-budget: not ready: $(tail -n3 "$W/gc2.log" | paste -sd' ')"
	kill $UD; exit
fi
PS=
for i in 1 2 3 4; do
	copy "$W/gc/b$i"
	LD_LIBRARY_PATH=$W/gc/b$i /usr/bin/sleep 60 & PS="$PS $!"
done
met() { [ "$(grep -c 'b[0-9]/libc.so.6: \(generated\|refused\)' "$W/gc2.log")" -ge 4 ]; }
waitfor 100 met
sleep 1.2
kb=$(ubytes "$W/bstore") n=$(users "$W/bstore") over=$(status_of "$W/bstore" over_budget)
refused=$(grep -c 'refused: over the store.s budget' "$W/gc2.log")
kill $PS; wait $PS 2>/dev/null
rm -rf "$W"/gc/b?
waitfor 50 no_users "$W/bstore"
echo "store-budget: 4 copies mapped, --user-budget 512K: $n users' entries, $kb KiB;" \
     "refused for the budget ${over:-none} (log: $refused); deleted: $(users "$W/bstore") left" >>"$W/gc.figures"
if [ "$kb" -gt 512 ] || [ "$n" != 2 ]; then
	res "FAIL: ustackd/store-budget: $n users' entries, $kb KiB (budget 512 KiB, want 2)"
elif [ "${over:-0}" != 2 ] || [ "$refused" != 2 ]; then
	res "FAIL: ustackd/store-budget: --status over_budget '${over:-}', log $refused (want 2)"
elif [ "$(users "$W/bstore")" != 0 ]; then
	res "FAIL: ustackd/store-budget: $(users "$W/bstore") users' entries left after deletion"
else
	res "PASS: ustackd/store-budget"
fi
kill -TERM $UD; wait $UD
# A container's uids are one user: four copies, each owned by another of
# the subordinate uids a user namespace maps (100000 on), each mapped by a
# process of that uid there.  With the same budget, two are covered, two
# refused, and every entry is charged to one user (the one who made the
# namespace, uid 65534) in the kernel's STORE_ADD as in the budget.
"$D" --store "$W/sstore" --interval 50 --rescan 1 --no-system --user-budget 512K 2>"$W/gc3.log" & UD=$!
if ! ready "$W/gc3.log"; then
	res "FAIL: ustackd/store-subuids: not ready: $(tail -n3 "$W/gc3.log" | paste -sd' ')"
	kill $UD; exit
fi
: >"$W/gc.adds"
chmod o+x "$W"	# for the namespace's uids
for i in 0 1 2 3; do
	mkdir -p "$W/gc/s$i" && cp "$LIBC" "$W/gc/s$i/libc.so.6" && chown -R $((100000 + i)) "$W/gc/s$i"
done
$W/userns_uids 4 sh -c 'exec env LD_LIBRARY_PATH=$0/gc/s$(id -u) /usr/bin/sleep 60' "$W" & PU=$!
smet() { [ "$(grep -c 's[0-9]/libc.so.6: \(generated\|refused\)' "$W/gc3.log")" -ge 4 ]; }
waitfor 100 smet
n=$(users "$W/sstore") kb=$(ubytes "$W/sstore")
keys=$(for i in 0 1 2 3; do
	sed -n "s/^add $(key "$W/gc/s$i/libc.so.6") .* user \([0-9]*\)$/\1/p" "$W/gc.adds"
done | sort -u | paste -sd' ')
kill $PU; wait $PU 2>/dev/null
echo "store-subuids: 4 copies of 4 subordinate uids, --user-budget 512K: $n users' entries," \
     "$kb KiB; charged to: ${keys:-nobody}" >>"$W/gc.figures"
if [ "$n" != 2 ] || [ "$kb" -gt 512 ]; then
	res "FAIL: ustackd/store-subuids: $n users' entries, $kb KiB (budget 512 KiB for the one user, want 2): $(tail -n 3 "$W/gc3.log" | paste -sd' ')"
elif [ "$keys" != 65534 ]; then
	res "FAIL: ustackd/store-subuids: entries charged to '$keys' (want 65534, who made the namespace)"
else
	res "PASS: ustackd/store-subuids"
fi
kill -TERM $UD; wait $UD
NSEOF
		: >"$W/gc.figures"
		in_pidns store-gc "$W/gc.sh" "$W/gc.results" |
			{ if want store-gc; then cat; else grep -v store-gc; fi; } |
			{ if want store-budget; then cat; else grep -v store-budget; fi; } |
			{ if want store-subuids; then cat; else grep -v store-subuids; fi; }
		cat "$W/gc.figures" >&2
	fi
fi

# The daemon's time, shared among users: uid 65534's four processes each
# map a copy of libz that never answers in time (the stand-in's
# FAKESTORE_SLOW_OPEN: its open takes 30 s, the examining child's alarm
# is 10 s, as a FUSE file that never answers), then uid 4242's program
# maps one that answers.  Before, the daemon spent 4 x 10 s on the first
# user's before it covered the second's; now the first user waits once
# it has used 20 s of a minute, and the second's is covered after at
# most two slow ones (log order, not times), said and counted.
if want user-time; then
	if ! fakestore; then
		fail user-time "$(head -n3 "$W/fs.log")"
	else
		mkdir -p "$W/ut/fast"
		chmod 711 "$W" && chmod 755 "$W/ut"
		for i in 1 2 3 4; do
			mkdir -p "$W/ut/slow$i" && cp "$LIBZ" "$W/ut/slow$i/libz.so.1"
		done
		cp "$LIBZ" "$W/ut/fast/libz.so.1"
		chmod -R a+rX "$W/ut"
		cat >"$W/ut.sh" <<NSEOF
set -u
W=$W D=$D
NSEOF
		cat >>"$W/ut.sh" <<'NSEOF'
res() { printf '%s\n' "$1" >>"$W/ut.results"; }
PS=
for i in 1 2 3 4; do
	LD_PRELOAD=$W/ut/slow$i/libz.so.1 setpriv --reuid 65534 --regid 65534 --clear-groups sleep 200 & PS="$PS $!"
done
LD_PRELOAD=$W/ut/fast/libz.so.1 setpriv --reuid 4242 --regid 4242 --clear-groups sleep 200 & PS="$PS $!"
sleep 0.5
FAKESTORE_SLOW_OPEN=/ut/slow LD_PRELOAD=$W/fakestore.so FAKESTORE_LOG=$W/ut.adds \
	FAKESTORE_MISSES=$W/ut.misses "$D" -v --store "$W/utstore" --interval 50 --no-system 2>"$W/ut.log" & UD=$!
for _ in $(seq 900); do
	grep -Eq '/ut/fast/libz.so.1: (generated|reused)' "$W/ut.log" && break
	kill -0 $UD 2>/dev/null || break
	sleep 0.1
done
slow=$(sed -En '/\/ut\/fast\/libz.so.1: (generated|reused)/q; /map_files\/.*: examination/p' "$W/ut.log" | wc -l)
over=$(FAKESTORE_LOG=$W/ut.adds LD_PRELOAD=$W/fakestore.so "$D" --status --store "$W/utstore" 2>/dev/null |
	sed -n 's/^over_time //p')
said=$(grep -c '^ustackd: uid 65534: .* its mappings wait' "$W/ut.log")
echo "user-time: uid 4242's program covered after $slow of uid 65534's slow objects; over_time ${over:-none}, said $said" >>"$W/ut.figures"
if ! grep -Eq '/ut/fast/libz.so.1: (generated|reused)' "$W/ut.log"; then
	res "FAIL: ustackd/user-time: uid 4242's object never covered: $(tail -n 3 "$W/ut.log" | paste -sd'|')"
elif [ "$slow" -gt 2 ]; then
	res "FAIL: ustackd/user-time: uid 4242's object waited for $slow of uid 65534's slow ones (want <= 2)"
elif [ "${over:-0}" -lt 1 ] || [ "$said" -lt 1 ]; then
	res "FAIL: ustackd/user-time: over_time '${over:-}', said $said (want >= 1)"
else
	res "PASS: ustackd/user-time"
fi
kill $PS 2>/dev/null
kill -TERM $UD; wait $UD
NSEOF
		: >"$W/ut.figures"
		in_pidns user-time "$W/ut.sh" "$W/ut.results"
		cat "$W/ut.figures" >&2
	fi
fi

# A sandboxed service's view: systemd's ProtectSystem=strict with
# RestrictSUIDSGID= (ustackd's own unit, logind's) binds the system's file
# systems ro,nosuid, which is no user's mount.  In a PID namespace whose
# init has the host's view, a mount namespace binds /usr so: there
# --prepare of libz, and a process there mapping libcrypt (which ustackd
# does not map itself) while the daemon runs outside, must both name its entry by build-id (the system's), not
# as a user's (u-...: before, both did; under systemd root's libc was a
# user's entry, evicted past store_user_max while in use).
if want sandboxed-view; then
	if ! fakestore; then
		fail sandboxed-view "$(head -n3 "$W/fs.log")"
	else
		cat >"$W/sv-inner.sh" <<NSEOF
mount --make-rprivate /
mount --bind /usr /usr && mount -o remount,bind,ro,nosuid /usr
findmnt -no OPTIONS -T $LIBZ | cut -d, -f1,2 >"$W/sv.opts"
"$D" --prepare --store "$W/svstore1" "$LIBZ" >"$W/sv1.log" 2>&1
LD_PRELOAD=$LIBCRYPT exec sleep 60
NSEOF
		cat >"$W/sv.sh" <<NSEOF
set -u
W=$W D=$D LIBZ=$LIBZ
. $ROOT/tests/ustackd/nslib.sh
NSEOF
		cat >>"$W/sv.sh" <<'NSEOF'
res() { printf '%s\n' "$1" >>"$W/sv.results"; }
unshare -m sh "$W/sv-inner.sh" & S=$!
waitfor 100 grep -q libz "$W/sv1.log"
sleep 0.5
LD_PRELOAD=$W/fakestore.so FAKESTORE_LOG=$W/sv.adds FAKESTORE_MISSES=$W/sv.misses \
	"$D" --store "$W/svstore2" --interval 50 --no-system 2>"$W/sv2.log" & UD=$!
ready "$W/sv2.log"
kill $S; kill -TERM $UD; wait $UD
p=$(grep -o 'libz[^:]*: [a-z]* [^ ]*' "$W/sv1.log" | head -n1)
d=$(grep -o 'libcrypt[^:]*: [a-z]* [^ ]*' "$W/sv2.log" | head -n1)
echo "sandboxed-view: /usr $(cat "$W/sv.opts") there; --prepare: $p; a mapping there: $d" >>"$W/sv.figures"
case "$(cat "$W/sv.opts")" in *nosuid*) ;; *) res "FAIL: ustackd/sandboxed-view: no nosuid view: $(cat "$W/sv.opts")"; exit ;; esac
if ! grep -Eq 'libz[^:]*: generated [0-9a-f]{40}\.v3\.sframe' "$W/sv1.log"; then
	res "FAIL: ustackd/sandboxed-view: --prepare there: $p"
elif ! grep -Eq 'libcrypt[^:]*: (generated|reused) [0-9a-f]{40}\.v3\.sframe' "$W/sv2.log"; then
	res "FAIL: ustackd/sandboxed-view: the mapping there: ${d:-not covered}"
else
	res "PASS: ustackd/sandboxed-view"
fi
NSEOF
		: >"$W/sv.figures"
		in_pidns sandboxed-view "$W/sv.sh" "$W/sv.results"
		cat "$W/sv.figures" >&2
	fi
fi

# A scan of every process serves the miss queue as it goes.  The stand-in
# slows each process's step (FAKESTORE_SCAN_DELAY_MS); the late program,
# the highest PID, is the scan's last process, and its miss is queued once
# the scan has begun: it must be registered from the miss while at least
# half the scan is still to come, not found by the scan at its end.  The
# scan is the one a queue overflow asks for (--rescan 0: no other); the
# order of the stand-in's "maps PID" and "add" lines is compared, not times.
if want scan-miss; then
	if ! fakestore; then
		fail scan-miss "$(head -n3 "$W/fs.log")"
	else
		cp /usr/bin/sleep "$W/scanlate"
		cat >"$W/scan.sh" <<NSEOF
set -u
W=$W D=$D N=30
NSEOF
		cat >>"$W/scan.sh" <<'NSEOF'
L=$W/scan.adds
res() { echo "$1" >>"$W/scan.results"; }
misses() { echo "$1" >"$W/scan.tmp" && mv "$W/scan.tmp" "$W/scan.misses"; }
waitfor() { # CMD...: until it succeeds, at most 30 s
	for _ in $(seq 1500); do "$@" && return 0; sleep 0.02; done
	return 1
}
after() { tail -n +$((n + 1)) "$L"; }	# the stand-in's lines since the overflow
seen() { after | grep -q "^$1"; }
key() { stat -L -c '%d %i' "$1"; }
LD_PRELOAD=$W/fakestore.so FAKESTORE_LOG=$L FAKESTORE_MISSES=$W/scan.misses \
FAKESTORE_SCAN_DELAY_MS=50 "$D" --store "$W/sstore" --rescan 0 --no-system 2>"$W/scan.log" & UD=$!
if ! waitfor grep -q '^ustackd: ready$' "$W/scan.log"; then
	res "FAIL: ustackd/scan-miss: not ready: $(tail -n3 "$W/scan.log" | paste -sd' ')"
	kill $UD; exit
fi
S=
for _ in $(seq $N); do sleep 100 & S="$S $!"; done
first=${S# } first=${first%% *} last=$!
"$W/scanlate" 100 & LATE=$!
waitfor grep -q 'scanlate$' /proc/$LATE/maps
set -- $(awk '$2 ~ /x/ && $6 ~ /scanlate$/ { split($1, r, "-"); print r[1], r[2]; exit }' /proc/$LATE/maps)
miss="$LATE $1 $2 $(key "$W/scanlate")"
add="add $(key "$W/scanlate") "
n=$(wc -l <"$L")
misses "dropped 1"
if waitfor seen "maps $first\$"; then
	misses "$miss"
	waitfor seen "$add"
	waitfor seen "maps $last\$"
fi
# how many of the sleepers' steps came after the late program's registration
left=$(after | awk -v s="$S" -v k="$add" '
	BEGIN { split(s, a, " "); for (i in a) sl["maps " a[i]] = 1 }
	index($0, k) == 1 && !seen { seen = 1; next }
	seen && ($0 in sl) { left++ }
	END { print seen ? left + 0 : "none" }')
if [ "$left" = none ] || [ "$left" -lt $((N / 2)) ]; then
	res "FAIL: ustackd/scan-miss: the late program registered with $left of the scan's $N slow steps still to come (want $((N / 2)) or more)"
else
	res "PASS: ustackd/scan-miss"
fi
kill -TERM $UD; wait $UD
kill $S $LATE
NSEOF
		in_pidns scan-miss "$W/scan.sh" "$W/scan.results"
	fi
fi
