// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-register run [--] PROG [ARGS...]
 *
 * Exec PROG with libsframe-register.so appended to LD_PRELOAD, and with
 * USTACK_SFRAME_REGISTER naming this binary (the shim's cache generator).
 * The shim is looked for next to this binary, then in ../shim (the build
 * tree's tools/shim), ../lib, ../lib/<multiarch>, /usr/local/lib,
 * /usr/lib/<multiarch> and /usr/lib; USTACK_SHIM overrides.  Exit
 * status: PROG's, or 127 if it cannot be run.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "cmds.h"

#define SHIM_NAME "libsframe-register.so"

static int find_shim(const char *self_dir, char *out, size_t len)
{
	static const char *const rel[] = {
		"/", "/../shim/", "/../lib/", "/../lib/" USTACK_MULTIARCH "/",
	};
	static const char *const abs[] = {
		"/usr/local/lib/", "/usr/lib/" USTACK_MULTIARCH "/", "/usr/lib/",
	};
	const char *e = getenv("USTACK_SHIM");

	if (e && *e) {
		snprintf(out, len, "%s", e);
		return 0;
	}
	for (size_t i = 0; self_dir && i < sizeof(rel) / sizeof(rel[0]); i++)
		if (snprintf(out, len, "%s%s%s", self_dir, rel[i], SHIM_NAME) <
		    (int)len && !access(out, R_OK))
			return 0;
	for (size_t i = 0; i < sizeof(abs) / sizeof(abs[0]); i++)
		if (snprintf(out, len, "%s%s", abs[i], SHIM_NAME) < (int)len &&
		    !access(out, R_OK))
			return 0;
	return -1;
}

int cmd_run(int argc, char **argv)
{
	char self[PATH_MAX], dir[PATH_MAX], shim[PATH_MAX + 64];
	const char *old = getenv("LD_PRELOAD");
	char *pre = NULL;
	ssize_t n;
	int i = 1;

	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc) {
		fprintf(stderr, "usage: sframe-register run [--] PROG [ARGS...]\n");
		return 2;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;

		self[n] = 0;
		memcpy(dir, self, n + 1);
		slash = strrchr(dir, '/');
		if (slash)
			*slash = 0;
		setenv("USTACK_SFRAME_REGISTER", self, 1);
	}
	if (find_shim(n > 0 ? dir : NULL, shim, sizeof(shim))) {
		fprintf(stderr, "sframe-register run: %s not found\n",
			SHIM_NAME);
		return 127;
	}
	if (old && *old && !strstr(old, SHIM_NAME)) {
		/* after the user's: some (sanitizer runtimes) must come first */
		if (asprintf(&pre, "%s %s", old, shim) < 0)
			return 127;
	} else if (!old || !*old) {
		pre = shim;
	}
	if (pre)
		setenv("LD_PRELOAD", pre, 1);
	execvp(argv[i], argv + i);
	fprintf(stderr, "sframe-register run: %s: %s\n", argv[i],
		strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
