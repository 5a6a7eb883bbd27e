#!/usr/bin/env bash
# Benchmark: the stack scan (guess=1) of the SFrame core in user
# space: cost per scanned stack word, and how many frames it gets right on
# a hidden-truth corpus (guess/corpus.c: 256 chains of 12 functions of four
# shapes, the truth from .eh_frame by backtrace(), the walk given neither
# unwind tables nor frame pointers).  Sources in guess/.
# Prints `bench <name> <value> <unit>` lines.  Run from the repository root.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
b=$here/guess/build
mkdir -p "$b"
# The SFrame core's sources (module/core.mk).
core=$(make -s --no-print-directory -f "$root"/module/core.mk \
	--eval 'p:;@echo $(addprefix $(USTACK_CORE_DIR),$(USTACK_CORE_SRCS))' p)
gcc -O2 -fomit-frame-pointer -fno-inline -fno-optimize-sibling-calls \
	-c -o "$b/corpus.o" "$here/guess/corpus.c"
gcc -O2 -Wall -fomit-frame-pointer -I"$root/include" -I"$root/module" -o "$b/guess" \
	"$here/guess/guess.c" $core "$b/corpus.o"
"$b/guess" "${GUESS_ITERS:-200}"
