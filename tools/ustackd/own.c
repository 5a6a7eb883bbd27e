// SPDX-License-Identifier: GPL-2.0
/*
 * own.c - ustack's own objects, covered first: ustackd's (its children,
 * which examine and generate, map the same files) and those of the
 * package's tools (ustack-report, sframe-register, the shim) with the
 * libraries they load.  A user's first `ustack-report` after
 * `systemctl enable --now ustackd` records itself too: before this, its
 * program and the libraries no running process had mapped yet were
 * covered only by its own misses (its first second incomplete) or by the
 * background pass over the system, minutes later on a slow machine.
 *
 * A tool's libraries are those the dynamic loader resolves for it:
 * ustackd runs the program with LD_TRACE_LOADED_OBJECTS=1 (as ldd does),
 * which maps and lists its libraries and exits before any of its code
 * runs.  Only a root-owned program that no one else may write is run so,
 * and its output is read to at most OUT_MAX bytes, OUT_SECONDS seconds.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "ustackd.h"

#ifndef USTACK_PREFIX
#define USTACK_PREFIX	"/usr"
#endif
#define OUT_MAX		65536
#define OUT_SECONDS	10

/*
 * The package's programs, and the shim, which programs load: never run,
 * even where it is executable (a shared object run so would crash).
 */
static const struct {
	const char *path;
	bool program;
} tools[] = {
	{ USTACK_PREFIX "/bin/ustack-report", true },
	{ USTACK_PREFIX "/bin/sframe-register", true },
	{ USTACK_PREFIX "/lib/libsframe-register.so", false },
};

/* Read @fd into @buf (at most @len - 1 bytes, NUL-terminated) within
 * OUT_SECONDS: the number of bytes. */
static size_t read_bounded(int fd, char *buf, size_t len)
{
	uint64_t end = now_ms() + OUT_SECONDS * 1000;
	size_t n = 0;

	while (n < len - 1) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ms();
		ssize_t r;

		if (now >= end || poll(&pfd, 1, (int)(end - now)) <= 0)
			break;
		r = read(fd, buf + n, len - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	buf[n] = '\0';
	return n;
}

/*
 * The loader's list for @prog into @buf: "\tname => /path (0x...)" or
 * "\t/path (0x...)" lines.  False if it could not be run.
 */
static bool loader_list(const char *prog, char *buf, size_t len)
{
	char *const argv[] = { (char *)prog, NULL };
	char *const envp[] = { "LD_TRACE_LOADED_OBJECTS=1", NULL };
	posix_spawn_file_actions_t fa;
	int p[2], status;
	pid_t pid;
	bool ok;

	if (pipe2(p, O_CLOEXEC))
		return false;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, p[1], STDOUT_FILENO);
	posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, "/dev/null", O_WRONLY, 0);
	ok = !posix_spawn(&pid, prog, &fa, NULL, argv, envp);
	posix_spawn_file_actions_destroy(&fa);
	close(p[1]);
	if (ok) {
		read_bounded(p[0], buf, len);
		kill(pid, SIGKILL);	/* it has exited, or took too long */
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
	}
	close(p[0]);
	return ok;
}

/* @prog covered, and if it is a @program, every library the loader lists
 * for it. */
static void cover_with_libraries(const char *prog, bool program)
{
	static char out[OUT_MAX];
	struct stat st;
	char *line, *save;

	if (stat(prog, &st) || !S_ISREG(st.st_mode))
		return;		/* not installed (a build tree) */
	prepare_path(prog);
	/* a program, root's own */
	if (!program || !(st.st_mode & 0111) || !store_trusted_object(&st) ||
	    !loader_list(prog, out, sizeof(out)))
		return;
	for (line = strtok_r(out, "\n", &save); line && !stopping;
	     line = strtok_r(NULL, "\n", &save)) {
		char *path = strstr(line, "=> ");
		char *end;

		path = path ? path + 3 : line + strspn(line, " \t");
		end = strstr(path, " (0x");
		if (path[0] != '/' || !end)
			continue;	/* the vDSO, a library not found */
		*end = '\0';
		prepare_path(path);
	}
}

void cover_own(void)
{
	scan_pid(getpid());
	for (size_t i = 0; i < sizeof(tools) / sizeof(tools[0]) && !stopping; i++)
		cover_with_libraries(tools[i].path, tools[i].program);
}
