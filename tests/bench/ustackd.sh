#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# ustackd's cost to cover every ELF object of /usr/lib/x86_64-linux-gnu and
# /usr/bin (`ustackd --prepare`: what its start does for each object, less
# the registration ioctl), into an empty store (cold: every entry
# generated) and again (warm: every entry reused):
#   ustackd_cover_{cold,warm}   wall time, ms
#   ustackd_objects             objects covered (with an entry)
#   ustackd_refused             objects refused (no usable .eh_frame, ...)
#   ustackd_store_bytes         the store's size on disk
#   ustackd_rss, ustackd_generator_rss: peak resident memory, KiB, of the
#     daemon and of its largest generator child.
# Needs root (the store must be root's).  Prints `bench <name> <value> <unit>`.
# BENCH_USTACKD=churn: only the churn's part (below).
set -u
cd "$(dirname "$0")/../.." || exit 1
[ "$(id -u)" = 0 ] || { echo "bench ustackd: needs root" >&2; exit 0; }
make -s -C tools/ustackd >/dev/null 2>&1 || { echo "bench ustackd: build failed" >&2; exit 0; }
W=$(mktemp -d /tmp/ustack-bench-ustackd.XXXXXX)
trap 'rm -rf "$W"' EXIT
dirs=(/usr/lib/x86_64-linux-gnu /usr/bin)

run() { # NAME: one --prepare run; its bench lines
	tools/ustackd/ustackd --prepare --store "$W/store" "${dirs[@]}" 2>"$W/$1.log"
	set -- "$1" $(sed -n 's/^ustackd: \([0-9]*\) objects: \([0-9]*\) prepared .* \([0-9]*\) refused, in \([0-9]*\) ms$/\1 \2 \3 \4/p' "$W/$1.log")
	[ $# = 5 ] || { echo "bench ustackd: no summary: $(tail -n1 "$W/$1.log")" >&2; exit 0; }
	echo "bench ustackd_cover_$1 $5 ms"
	if [ "$1" = cold ]; then
		echo "bench ustackd_objects $3 objects"
		echo "bench ustackd_refused $4 objects"
		echo "bench ustackd_store_bytes $(du -sb "$W/store" | cut -f1) bytes"
		set -- $(sed -n 's/^ustackd: max RSS \([0-9]*\) KiB, generator \([0-9]*\) KiB$/\1 \2/p' "$W/cold.log")
		echo "bench ustackd_rss $1 KiB"
		echo "bench ustackd_generator_rss $2 KiB"
	fi
}
if [ "${BENCH_USTACKD:-all}" = all ]; then
run cold
run warm

# Against a user's hostile files (issue 25, item 2): --prepare of libz
# alone, then of two crafted files and libz (tests/ustackd/craft.py: a
# million section headers and 256 MiB of empty notes; 16 note sections
# over one such run), side by side: wall and CPU time (the daemon and its
# children), the daemon's peak RSS.  The crafted files are read in the
# limited child, so their cost is its limits', and the daemon's RSS stays.
#   ustackd_hostile_{wall,cpu}_{clean,files}   ms
#   ustackd_hostile_rss_{clean,files}          KiB
LIBZ=/lib/x86_64-linux-gnu/libz.so.1
mkdir -p "$W/hx"
python3 tests/ustackd/craft.py "$W/hx/sections.so" 1000000 1 $((256 << 20)) &&
	python3 tests/ustackd/craft.py "$W/hx/notes.so" 16 16 $((256 << 20)) ||
	{ echo "bench ustackd: craft failed" >&2; exit 0; }
hostile() { # NAME FILE...: one --prepare run into a new store; its lines
	local name=$1
	shift
	rm -rf "$W/hstore"
	TIMEFORMAT='%3R %3U %3S'
	{ time tools/ustackd/ustackd --prepare --store "$W/hstore" "$@" 2>"$W/h$name.log"; } 2>"$W/h$name.time"
	grep -q 'libz.so.1: generated' "$W/h$name.log" ||
		{ echo "bench ustackd: libz not covered beside hostile files: $(tail -n2 "$W/h$name.log")" >&2; exit 0; }
	awk -v n=$name '{ printf "bench ustackd_hostile_wall_%s %.0f ms\nbench ustackd_hostile_cpu_%s %.0f ms\n", n, $1 * 1000, n, ($2 + $3) * 1000 }' "$W/h$name.time"
	echo "bench ustackd_hostile_rss_$name $(sed -n 's/^ustackd: max RSS \([0-9]*\) KiB.*/\1/p' "$W/h$name.log") KiB"
}
hostile clean "$LIBZ"
hostile files "$W/hx/sections.so" "$W/hx/notes.so" "$LIBZ"
grep -h 'refused' "$W/hfiles.log" | sed 's/^/  /' >&2
fi

# Coverage latency while a user churns files (tests/bench/lib/ustackd-churn.sh):
# a program just built (by uid 4242: its own build-id, nothing to reuse),
# named to the daemon as a first walk's miss, until its STORE_ADD; quiet,
# then while uid 65534 maps a new copy of libc every second in four loops
# and deletes it; the store's users' entries on disk at their peak, next
# to the user's budget (--user-budget 4M).
#   ustackd_first_cover_{quiet,churn}   median ms, miss to STORE_ADD
#   ustackd_first_cover_churn_vs_quiet  their ratio
#   ustackd_churn_store_peak            KiB of users' entries, at most
#   ustackd_churn_user_budget           KiB
#   ustackd_churn_files                 the copies the user made
if gcc -O2 -g -shared -fPIC -Iinclude -Imodule -o "$W/fakestore.so" \
	tests/ustackd/fakestore.c tools/lib/libustack-tools.a -ldl 2>"$W/fs.log"; then
	NPROG=15
	mkdir -p "$W/prog" "$W/churn"
	chmod 1777 "$W/churn"; chmod o+x "$W"
	for name in quiet churn; do
		for i in $(seq $NPROG); do
			printf '#include <unistd.h>\nint main(void) { volatile long x = %d; for (;;) pause(); return x; }\n' \
				$((RANDOM * 32768 + RANDOM)) | gcc -O2 -x c -o "$W/prog/p$name$i" -
		done
	done
	chown -R 4242 "$W/prog"
	W=$W D=$PWD/tools/ustackd/ustackd FAKESO=$W/fakestore.so ROOT=$PWD NPROG=$NPROG \
		unshare --pid --fork --mount-proc bash tests/bench/lib/ustackd-churn.sh >"$W/churn.out" 2>&1
	med() { awk -v n="$1" '$1 == n { print $2 }' "$W/lat" | sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : -1 }'; }
	q=$(med quiet) c=$(med churn)
	echo "bench ustackd_first_cover_quiet $q ms"
	echo "bench ustackd_first_cover_churn $c ms"
	awk -v q="$q" -v c="$c" 'BEGIN { printf "bench ustackd_first_cover_churn_vs_quiet %.2f ratio\n", (q > 0 ? c / q : 0) }'
	echo "bench ustackd_churn_store_peak $(sed -n 's/^peak //p' "$W/churn.out") KiB"
	echo "bench ustackd_churn_user_budget 4096 KiB"
	echo "bench ustackd_churn_files $(sed -n 's/^rounds //p' "$W/churn.out") files"
	grep -v '^\(peak\|rounds\|refused\) ' "$W/churn.out" | sed 's/^/  /' >&2
else
	echo "bench ustackd: fakestore build failed: $(head -n 2 "$W/fs.log")" >&2
fi
