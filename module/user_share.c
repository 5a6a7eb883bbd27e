// SPDX-License-Identifier: GPL-2.0
/*
 * Fair shares of the module's fixed tables among users: the engine's task
 * pool caps what one user may hold, so that no user can fill it for
 * everyone (and any other fixed table a user can fill may do the same).
 *
 * A user is who a task counts as (ustack_user_of()): its real uid, or in
 * a user namespace the user who made it, so that the uids one user maps
 * (a rootless container's subuids) are one user, not thousands.  A user
 * has a slot in a table's shares while it holds something there and
 * loses it when it holds nothing, so the slots never fill with users seen
 * long ago; users beyond the slots share one overflow slot under the same
 * cap, so that no number of users escapes it.
 *
 * Nothing tells apart two real uids of one person (a second account, a
 * uid a setuid helper hands out): they are two users, each with its
 * share.  So that two (or k) of them cannot take the whole table between
 * them, no user holds more than the table has free besides: the first
 * takes at most half, the second a quarter, and the table is never
 * emptied by a few users.  Any context, NMI included:
 * the caller holds its table's lock, and nothing here allocates.
 */
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/user_namespace.h>
#include <uapi/ustack.h>
#include "user_share.h"

/**
 * ustack_user_of() - the user a task counts as, for every share
 * @t: the task (current, or a task whose credentials are pinned)
 *
 * Its real uid in the initial user namespace.  A task in another user
 * namespace counts as the owner of the outermost one below the initial
 * (the user who made it: all the uids it maps are that user's); where
 * that is root, as the namespace itself (a container root made: its uids
 * are one user, apart from root's own), by its inode number, which
 * ustackd reads as the st_ino of /proc/PID/ns/user
 * (include/uapi/ustack.h, SFRAME_STORE_USER).
 *
 * Return: the user's key: a uid, or USTACK_USER_NS | inode number.
 */
u64 ustack_user_of(struct task_struct *t)
{
	const struct user_namespace *ns;
	const struct cred *cred;
	u64 who;

	rcu_read_lock();
	cred = __task_cred(t);
	ns = cred->user_ns;
	if (ns == &init_user_ns) {
		who = __kuid_val(cred->uid);
	} else {
		/* Bounded: namespaces nest at most 32 deep. */
		while (ns->parent != &init_user_ns)
			ns = ns->parent;
		who = uid_eq(ns->owner, GLOBAL_ROOT_UID) ?
		      USTACK_USER_NS | ns->ns.inum :
		      __kuid_val(ns->owner);
	}
	rcu_read_unlock();
	return who;
}

/**
 * ustack_shares_init() - a table's shares, all slots free
 * @s: the shares
 */
void ustack_shares_init(struct ustack_shares *s)
{
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < USTACK_SHARE_SLOTS; i++)
		hlist_add_head(&s->slot[i].node, &s->free);
	s->overflow.who = U64_MAX;
}

/**
 * ustack_share_find() - what a user holds now
 * @s: the table's shares, under the table's lock
 * @who: the user (ustack_user_of())
 *
 * Return: its share, or NULL when it holds nothing (the overflow slot's
 * users are not told apart: NULL for them too).
 */
struct ustack_share *ustack_share_find(struct ustack_shares *s, u64 who)
{
	struct ustack_share *sh;

	hlist_for_each_entry(sh, &s->hash[hash_64(who, USTACK_SHARE_HASH_BITS)],
			     node)
		if (sh->who == who)
			return sh;
	return NULL;
}

/**
 * ustack_share_charge() - charge one entry of a table to a user
 * @s: the table's shares, under the table's lock
 * @who: the user (ustack_user_of())
 * @cap: the most one user may hold (at least 1)
 * @avail: the table's entries free now, this one included
 * @out: set to the share charged, for ustack_share_uncharge()
 *
 * Return: 0, or -EDQUOT when the user (or, beyond the slots, the
 * overflow slot it shares) holds @cap already, or as many as are free.
 */
int ustack_share_charge(struct ustack_shares *s, u64 who, u32 cap, u32 avail,
			struct ustack_share **out)
{
	struct ustack_share *sh = ustack_share_find(s, who);

	if (!sh && !hlist_empty(&s->free)) {
		sh = hlist_entry(s->free.first, struct ustack_share, node);
		hlist_del(&sh->node);
		sh->who = who;
		sh->held = 0;
		hlist_add_head(&sh->node,
			       &s->hash[hash_64(who, USTACK_SHARE_HASH_BITS)]);
	}
	if (!sh)
		sh = &s->overflow;
	if (sh->held >= cap || sh->held >= avail) {
		if (!sh->held && sh != &s->overflow) {	/* cap 0: give it back */
			hlist_del(&sh->node);
			hlist_add_head(&sh->node, &s->free);
		}
		return -EDQUOT;
	}
	sh->held++;
	*out = sh;
	return 0;
}

/**
 * ustack_share_uncharge() - give back one entry charged to @sh
 * @s: the table's shares, under the table's lock
 * @sh: the share ustack_share_charge() gave
 *
 * A user that holds nothing any more gives its slot back.
 */
void ustack_share_uncharge(struct ustack_shares *s, struct ustack_share *sh)
{
	if (WARN_ON_ONCE(!sh->held))
		return;
	if (--sh->held || sh == &s->overflow)
		return;
	hlist_del(&sh->node);
	hlist_add_head(&sh->node, &s->free);
}
