// SPDX-License-Identifier: GPL-2.0
/*
 * userns_uids N CMD [ARG...]: a rootless container, as ustack sees one:
 * uid 65534 makes a user namespace, root maps N of its subordinate uids
 * (100000 on) into it as newuidmap does from /etc/subuid, and CMD runs
 * once as each of the namespace's uids 0..N-1, all at once: N real uids,
 * one user.  Waits for every CMD; each dies with this program (SIGKILL
 * as parent-death signal).  Exits 0 when every CMD did.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define SUBUID	100000

static int write_map(pid_t pid, const char *file, int n)
{
	char path[64], map[64];
	int fd, len, ok;

	snprintf(path, sizeof(path), "/proc/%d/%s", pid, file);
	len = snprintf(map, sizeof(map), "0 %d %d\n", SUBUID, n);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -1;
	ok = write(fd, map, len) == len;
	close(fd);
	return ok ? 0 : -1;
}

/* In the namespace: CMD as each uid, all at once. */
static int run_all(int n, char **cmd)
{
	int i, status, bad = 0;

	for (i = 0; i < n; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 1;
		if (pid)
			continue;
		if (setgroups(0, NULL) || setresgid(i, i, i) || setresuid(i, i, i)) {
			perror("userns_uids: setresuid");
			_exit(126);
		}
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		execvp(cmd[0], cmd);
		perror(cmd[0]);
		_exit(127);
	}
	while (wait(&status) > 0)
		bad |= !WIFEXITED(status) || WEXITSTATUS(status);
	return bad;
}

int main(int argc, char **argv)
{
	int up[2], down[2], n, status;
	char c = 0;
	pid_t pid;

	if (argc < 3 || (n = atoi(argv[1])) < 1 || n > 65536) {
		fprintf(stderr, "usage: userns_uids N CMD [ARG...]\n");
		return 2;
	}
	if (pipe(up) || pipe(down))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(1);
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		prctl(PR_SET_DUMPABLE, 1);
		if (unshare(CLONE_NEWUSER)) {
			perror("userns_uids: unshare");
			_exit(1);
		}
		if (write(up[1], &c, 1) != 1 || read(down[0], &c, 1) != 1 || c != 'm')
			_exit(1);
		_exit(run_all(n, argv + 2));
	}
	if (read(up[0], &c, 1) != 1)
		return 1;
	c = write_map(pid, "uid_map", n) || write_map(pid, "gid_map", n) ? 'x' : 'm';
	if (c != 'm')
		perror("userns_uids: uid_map");
	if (write(down[1], &c, 1) != 1 || waitpid(pid, &status, 0) != pid)
		return 1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}
