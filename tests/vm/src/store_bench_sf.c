// SPDX-License-Identifier: GPL-2.0
/* store_bench.c built with gas --gsframe: its SFrame found by discovery. */
#include "store_bench.c"
