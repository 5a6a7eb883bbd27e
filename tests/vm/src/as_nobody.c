// SPDX-License-Identifier: GPL-2.0
/*
 * as_nobody CMD [ARG...]: run CMD as uid and gid 65534, no supplementary
 * groups: the unprivileged attacker of the hostile tests (the guest's
 * busybox has no setpriv --reuid).
 */
#define _GNU_SOURCE
#include <grp.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: as_nobody CMD [ARG...]\n");
		return 2;
	}
	if (setgroups(0, NULL) || setgid(65534) || setuid(65534)) {
		perror("as_nobody: setuid");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror(argv[1]);
	return 127;
}
