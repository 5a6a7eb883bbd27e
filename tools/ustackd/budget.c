// SPDX-License-Identifier: GPL-2.0
/*
 * budget.c - the store's byte budgets.  A user makes new objects at will
 * (a copy of a library, a touch), each a new entry of its own, so the
 * store holds users' entries only within two budgets:
 *
 *   the store's (--store-budget): by default the smaller of 512 MiB and
 *   2% of the store's file system.  2% keeps a small /var (an 8 GiB one:
 *   164 MiB) from filling however many users write; 512 MiB leaves room
 *   above the system's own entries (this Debian host's /usr/bin, /usr/sbin
 *   and /usr/lib/x86_64-linux-gnu: 49 MiB; a desktop's several times that)
 *   for its users;
 *   a user's (--user-budget): by default an eighth of the store's, so that
 *   eight users at their limit fill it, not one.
 *
 * What counts is what the file system allocates (entry_cost(): whole
 * 4 KiB blocks).  The system's entries (objects only root may write) count
 * against the store's budget but are never refused: refusing them would
 * leave the machine's own programs uncovered for room that users took,
 * and their number is bounded by what root installed.  A user's entry
 * that would take its owner past the user's budget, or the store past the
 * store's, is refused, not written: the object is refused (not registered,
 * counted in over_budget), as the generator is told the room left
 * (objinfo.room) and writes nothing larger.  Refusing, not evicting the
 * owner's oldest entries: an entry kept is one an object still holds (gc.c
 * unlinks the rest), and evicting those would only have them generated
 * again at the next miss, a loop a user could keep the daemon in.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/statvfs.h>
#include "ustackd.h"

#define STORE_BUDGET_MAX	(512ull << 20)
#define STORE_BUDGET_PERCENT	2
#define USER_BUDGET_SHARE	8
#define COUNT_MAX_FILES		1000000	/* what budget_init() reads of the store */

uint64_t store_bytes;
uint64_t budget_store, budget_user;

bool budget_arg(const char *arg, long long *v)
{
	unsigned long long n, mul = 1;
	char *end;

	errno = 0;
	if (*arg < '0' || *arg > '9')
		return false;
	n = strtoull(arg, &end, 10);
	if (errno)
		return false;
	if (*end == 'K' || *end == 'k')
		mul = 1ull << 10;
	else if (*end == 'M' || *end == 'm')
		mul = 1ull << 20;
	else if (*end == 'G' || *end == 'g')
		mul = 1ull << 30;
	if (mul > 1)
		end++;
	if (*end || n > (1ull << 50) / mul)
		return false;
	*v = (long long)(n * mul);
	return true;
}

uint64_t budget_entry(const char *name)
{
	struct stat st;

	if (fstatat(store_fd, name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISREG(st.st_mode))
		return 0;
	return entry_cost(st.st_size);
}

uint64_t budget_count(unsigned long max)
{
	int fd = openat(store_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d = fd < 0 ? NULL : fdopendir(fd);
	struct dirent *de;
	uint64_t bytes = 0;

	if (!d) {
		if (fd >= 0)
			close(fd);
		return 0;
	}
	while (max-- && (de = readdir(d))) {
		size_t len = strlen(de->d_name);

		if (de->d_name[0] != '.' && len > strlen(CACHE_SUFFIX) &&
		    !strcmp(de->d_name + len - strlen(CACHE_SUFFIX), CACHE_SUFFIX))
			bytes += budget_entry(de->d_name);
	}
	closedir(d);
	return bytes;
}

void budget_init(void)
{
	struct statvfs v;
	uint64_t fs = 0;

	if (!fstatvfs(store_fd, &v))
		fs = (uint64_t)v.f_blocks * v.f_frsize;
	budget_store = fs / 100 * STORE_BUDGET_PERCENT;
	if (!budget_store || budget_store > STORE_BUDGET_MAX)
		budget_store = STORE_BUDGET_MAX;
	if (opt.store_budget >= 0)
		budget_store = opt.store_budget;
	budget_user = opt.user_budget >= 0 ? (uint64_t)opt.user_budget :
		      budget_store / USER_BUDGET_SHARE;
	store_bytes = budget_count(COUNT_MAX_FILES);
	logmsg("store: %.1f MiB; budget %.1f MiB, %.1f MiB a user",
	       store_bytes / 1048576.0, budget_store / 1048576.0,
	       budget_user / 1048576.0);
}

uint64_t budget_owner(uint64_t user)
{
	uint64_t bytes = 0;

	for (size_t i = 0; i < tab_cap; i++) {
		const struct obj *o = &tab[i];

		if ((o->dev || o->ino) && !o->alias && o->whose == user &&
		    o->what && !strncmp(o->what, "u-", 2))
			bytes += o->bytes;
	}
	return bytes;
}

uint64_t budget_room(const struct obj *o, const struct objinfo *oi)
{
	uint64_t mine;

	if (!oi->need_src)
		return UINT64_MAX;	/* the system's: never refused */
	mine = budget_owner(o->whose);
	if (mine >= budget_user || store_bytes >= budget_store)
		return 0;
	mine = budget_user - mine;
	return mine < budget_store - store_bytes ? mine : budget_store - store_bytes;
}
