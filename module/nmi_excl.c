// SPDX-License-Identifier: GPL-2.0
/* The per-CPU depth of sections NMIs back off from (nmi_excl.h). */
#include "nmi_excl.h"

DEFINE_PER_CPU(int, ustack_nmi_excl_depth);
