#!/usr/bin/env bash
# Benchmark: per-frame cost of walking one 64-deep call stack with the SFrame
# walker (module/core.mk's sources, with and without its rule cache), a frame-
# pointer walk, glibc backtrace() and libunwind's unw_backtrace(), side by side
# in one process (thread CPU time, best of interleaved rounds).
# Prints `bench <name> <value> <unit>` lines.  Run from the repository root.
set -e
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
b=$here/walk/build
mkdir -p "$b"
# The SFrame core's sources (module/core.mk).
core=$(make -s --no-print-directory -f "$root"/module/core.mk \
	--eval 'p:;@echo $(addprefix $(USTACK_CORE_DIR),$(USTACK_CORE_SRCS))' p)
inc="-I$root/include -I$root/module"
# The walked chain: once without frame pointers, once with; all with SFrame.
gcc -O2 -fomit-frame-pointer -Wa,--gsframe -c -o "$b/rec_nofp.o" "$here/walk/rec_chain.c"
gcc -O2 -fno-omit-frame-pointer -Wa,--gsframe -DREC_FP -c -o "$b/rec_fp_chain.o" \
	"$here/walk/rec_chain.c"
gcc -O2 -fno-omit-frame-pointer -Wa,--gsframe -c -o "$b/rec_fp.o" "$here/walk/rec_fp.c"
gcc -O2 -Wall -Wa,--gsframe $inc -o "$b/walk" "$here/walk/walk.c" \
	$core "$b/rec_nofp.o" "$b/rec_fp_chain.o" "$b/rec_fp.o" -ldl -lpthread
"$b/walk" "${WALK_ITERS:-20000}" "${WALK_ROUNDS:-7}"
