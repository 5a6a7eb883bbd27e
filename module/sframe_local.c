// SPDX-License-Identifier: GPL-2.0
/*
 * A second build of the SFrame core, reading its section from a kernel
 * buffer (sframe_env.h, USTACK_SFRAME_LOCAL), for sframe_local.h.
 */
#define USTACK_SFRAME_LOCAL
#include "sframe_local.h"
#include "sframe_decode.c"
