// SPDX-License-Identifier: GPL-2.0
/*
 * sframe_bench built with frame pointers and without any SFrame (no
 * --gsframe; `walkfp` fails if an .sframe section slipped in): it
 * times the kernel's frame-pointer fallback walk.
 */
#define SFRAME_BENCH_FP 1
#include "sframe_bench.c"
