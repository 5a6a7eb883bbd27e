// SPDX-License-Identifier: GPL-2.0
/*
 * uid_spread BASE N: as root, for each uid BASE..BASE+N-1 in turn, a
 * child that drops to that uid asks once for its own stack
 * (SFRAME_IOC_SELF_STACK) and exits: N distinct users have been seen by
 * the engine's pool (the share table's fill, issue 25 item 8).  Paced
 * below the self events' rate limit (100 a second), past which a self
 * request asks for a cookie alone and costs no pool entry.  Prints how
 * many asked.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uapi/ustack.h>

static int ask_as(uid_t uid)
{
	__u64 ips[16];
	struct ustack_self s = {
		.size = sizeof(s), .ips = (__u64)(unsigned long)ips,
		.max_frames = 16,
	};
	int sf;

	if (setgid(uid) || setuid(uid))
		return 1;
	/*
	 * A pool entry taken while the child still ran as root (a sample
	 * since the fork) stays charged to root while it runs: a sleep
	 * gives it back, so that the request below is charged to @uid.
	 */
	usleep(2000);
	sf = open("/dev/sframe", O_RDWR);
	if (sf < 0 || ioctl(sf, SFRAME_IOC_SELF_STACK, &s) || !s.cookie)
		return 1;
	return 0;
}

int main(int argc, char **argv)
{
	int base, n, asked = 0, st;
	pid_t pid;

	if (argc != 3) {
		fprintf(stderr, "usage: uid_spread BASE N\n");
		return 2;
	}
	base = atoi(argv[1]);
	n = atoi(argv[2]);
	for (int i = 0; i < n; i++) {
		pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (!pid)
			_exit(ask_as(base + i));
		if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) &&
		    !WEXITSTATUS(st))
			asked++;
		usleep(15000);
	}
	printf("uids asked: %d of %d\n", asked, n);
	return asked == n ? 0 : 1;
}
