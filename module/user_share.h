/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Fair shares of a fixed table among users (user_share.c): the engine's
 * task pool caps what one user holds, so that no user fills it for
 * everyone; any other fixed table a user can fill may use them too.
 */
#ifndef USTACK_USER_SHARE_H
#define USTACK_USER_SHARE_H

#include <linux/list.h>
#include <linux/types.h>

struct task_struct;

#define USTACK_SHARE_SLOTS	128
#define USTACK_SHARE_HASH_BITS	6

/* What one user holds of one table. */
struct ustack_share {
	struct hlist_node node;		/* its hash bucket, or the free list */
	u64 who;			/* ustack_user_of() */
	u32 held;
};

/*
 * One table's shares, serialised by the table's own lock.  A user has a
 * slot while it holds something; users beyond USTACK_SHARE_SLOTS at once
 * share the overflow slot, under one cap: no number of users escapes it.
 */
struct ustack_shares {
	struct hlist_head hash[1 << USTACK_SHARE_HASH_BITS];
	struct hlist_head free;
	struct ustack_share overflow;
	struct ustack_share slot[USTACK_SHARE_SLOTS];
};

u64 ustack_user_of(struct task_struct *t);
void ustack_shares_init(struct ustack_shares *s);
struct ustack_share *ustack_share_find(struct ustack_shares *s, u64 who);
int ustack_share_charge(struct ustack_shares *s, u64 who, u32 cap, u32 avail,
			struct ustack_share **out);
void ustack_share_uncharge(struct ustack_shares *s, struct ustack_share *sh);

#endif /* USTACK_USER_SHARE_H */
