// SPDX-License-Identifier: GPL-2.0
/*
 * coop_hold N: N processes that opt in to cooperative unwinding and then
 * sleep (the procs[] filler of coop-share.sh).  Prints one line,
 * "ok=A enospc=B other=C", once every child has tried its COOP_ON, then
 * sleeps until it is killed; its children die with it (PR_SET_PDEATHSIG).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <uapi/ustack.h>

static int coop_on(void)
{
	struct ustack_coop c = { .size = sizeof(c), .signo = SIGRTMIN + 2 };
	int fd = open("/dev/sframe", O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return errno;
	ret = ioctl(fd, SFRAME_IOC_COOP_ON, &c) ? errno : 0;
	close(fd);
	return ret;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1, i, ok = 0, enospc = 0, other = 0;
	int p[2];

	if (pipe(p))
		return 1;
	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (!pid) {
			unsigned char r;

			prctl(PR_SET_PDEATHSIG, SIGKILL);
			r = coop_on();
			if (write(p[1], &r, 1) != 1)
				_exit(1);
			for (;;)
				pause();
		}
	}
	for (i = 0; i < n; i++) {
		unsigned char r;

		if (read(p[0], &r, 1) != 1)
			return 1;
		if (!r)
			ok++;
		else if (r == ENOSPC)
			enospc++;
		else
			other++;
	}
	printf("ok=%d enospc=%d other=%d\n", ok, enospc, other);
	fflush(stdout);
	for (;;)
		pause();
}
