/* SPDX-License-Identifier: GPL-2.0 */
/* The stack scan (sframe_scan.c), as the walk loop calls it.  Private. */
#ifndef USTACK_SFRAME_SCAN_H
#define USTACK_SFRAME_SCAN_H

#include "ustack_sframe.h"

/*
 * The rest of the walk by scanning the stack from the frame @last whose
 * caller no rule gave, frames stored from *@nr on: the end reason.
 */
u8 ustack_sframe_walk_scan(struct sframe_walk *w,
			   const struct sframe_walk_ops *ops,
			   const struct sframe_state *last, u32 *nr);

#endif /* USTACK_SFRAME_SCAN_H */
