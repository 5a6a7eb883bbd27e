/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user walk's life cycle (walk.c): its per-CPU rule cache.  The walk
 * itself, ustack_walk_user(), is declared in internal.h.
 */
#ifndef USTACK_WALK_H
#define USTACK_WALK_H

int ustack_walk_init(void);
void ustack_walk_exit(void);

#endif /* USTACK_WALK_H */
