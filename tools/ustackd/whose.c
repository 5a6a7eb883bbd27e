// SPDX-License-Identifier: GPL-2.0
/*
 * whose.c - the user a process counts as, as the module counts users for
 * every share (include/uapi/ustack.h, SFRAME_STORE_USER): its real uid,
 * or for a process in a user namespace the owner of the outermost one
 * below the daemon's (the user who made it), or, where that owner is
 * root, the namespace itself (USTACK_USER_NS | its inode number).
 *
 * A rootless container maps thousands of its maker's subordinate uids,
 * each a real uid on the host: counted by uid, each would have its own
 * share of the daemon's time (usertime.c), of the store's bytes
 * (budget.c) and of the kernel's store entries, and one user could fill
 * them all.  Counted so, they are one user.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/nsfs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include "sframe_ioctl.h"	/* USTACK_USER_NS */
#include "ustackd.h"

#define NS_DEPTH_MAX	33	/* the kernel nests user namespaces 32 deep */

/* The real uid of @pid (the first of status's "Uid:"), or -1. */
static int64_t real_uid(int pid)
{
	char path[48], line[256];
	unsigned int uid;
	int64_t r = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Uid: %u", &uid) == 1) {
			r = uid;
			break;
		}
	fclose(f);
	return r;
}

/* The inode of the daemon's own user namespace (the initial one). */
static uint64_t own_ns(void)
{
	static uint64_t ino;
	struct stat st;

	if (!ino && !stat("/proc/self/ns/user", &st))
		ino = st.st_ino;
	return ino;
}

/* @fd (a user namespace, closed here): the user of its tasks, or -ESRCH. */
static int ns_user(int fd, uint64_t *user)
{
	struct stat st;
	uid_t owner;
	int depth;

	for (depth = 0; depth < NS_DEPTH_MAX; depth++) {
		int up = ioctl(fd, NS_GET_PARENT);
		struct stat ust;

		if (up < 0)
			break;		/* the parent is not ours to see */
		if (fstat(up, &ust) || ust.st_ino == own_ns()) {
			close(up);
			break;
		}
		close(fd);
		fd = up;
	}
	if (fstat(fd, &st) || ioctl(fd, NS_GET_OWNER_UID, &owner)) {
		close(fd);
		return -ESRCH;
	}
	close(fd);
	*user = owner ? owner : USTACK_USER_NS | st.st_ino;
	return 0;
}

int process_user(int pid, uint64_t *user)
{
	char path[48];
	struct stat st;
	int64_t who;
	int fd;

	/* a kernel without user namespaces has no ns/user: the uid says */
	snprintf(path, sizeof(path), "/proc/%d/ns/user", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && !fstat(fd, &st) && st.st_ino != own_ns())
		return ns_user(fd, user);
	if (fd >= 0)
		close(fd);
	who = real_uid(pid);
	if (who < 0)
		return -ESRCH;
	*user = who;
	return 0;
}

const char *user_shown(uint64_t user, char *buf, size_t size)
{
	if (user & USTACK_USER_NS)
		snprintf(buf, size, "user namespace %" PRIu64,
			 (uint64_t)(user & ~USTACK_USER_NS));
	else
		snprintf(buf, size, "uid %" PRIu64, user);
	return buf;
}
