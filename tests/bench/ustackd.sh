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
run cold
run warm
