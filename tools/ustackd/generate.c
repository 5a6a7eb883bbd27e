// SPDX-License-Identifier: GPL-2.0
/*
 * generate.c - the daemon's limited children (bounded memory and time),
 * where every file a user may write is read, so that a hostile object
 * costs that child, never the daemon; and the generation child: SFrame
 * from an object's .eh_frame into its store entry.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <gelf.h>
#include "gen_sframe.h"
#include "ustackd.h"

#define GEN_OVER_BUDGET	3	/* gen_child()'s exit status */

/* The generator's child: SFrame v3 at vaddr 0 into the entry @oi->name.
 * An object without usable .eh_frame gets an empty entry: a restart knows. */
static int gen_child(const struct gen_src *src, const struct objinfo *oi,
		     const char *path)
{
	struct cache_hdr h;
	char err[256] = "not ELF";
	void *sf = NULL;
	size_t len = 0;
	void *img;
	Elf *elf;
	int ret = -1;

	img = (void *)src->mem;
	if (!img)
		img = mmap(NULL, src->size, PROT_READ, MAP_PRIVATE, src->fd, 0);
	if (img == MAP_FAILED)
		return 1;
	elf = elf_memory(img, src->size);
	if (elf)
		ret = gen_sframe_entry(elf, &oi->src, &sf, &len, &h, err,
				       sizeof(err));
	else
		entry_hdr_init(&h, 0, 0, 0, &oi->src);
	if (!elf || ret)
		logmsg("%s: no SFrame from .eh_frame: %s", path, err);
	/* over the budget's room (budget.c): nothing written */
	if (entry_cost(sizeof(h) + len) > oi->room)
		return GEN_OVER_BUDGET;
	ret = store_put(store_fd, oi->name, &h, sf, len);
	if (ret)
		logmsg("%s: cannot write %s/%s: %s", path, opt.store, oi->name,
		       strerror(-ret));
	return ret ? 1 : 0;
}

int limited_fork(unsigned long long as, unsigned int secs, char *why,
		 size_t whylen)
{
	pid_t pid;

	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		struct rlimit rl = { as, as };

		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		setrlimit(RLIMIT_AS, &rl);
		/* real time: a file that never answers (FUSE) ends here too */
		alarm(secs);
	}
	return pid;
}

int limited_wait(int pid, char *why, size_t whylen)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(why, whylen, "waitpid: %s", strerror(errno));
			return -1;
		}
	}
	if (WIFSIGNALED(status)) {
		snprintf(why, whylen, "killed by signal %d%s", WTERMSIG(status),
			 WTERMSIG(status) == SIGALRM ? " (out of time)" : "");
		return -1;
	}
	if (WEXITSTATUS(status)) {
		snprintf(why, whylen, "exit %d", WEXITSTATUS(status));
		return -1;
	}
	return 0;
}

int generate(const struct gen_src *src, const struct objinfo *oi,
	     const char *path, char *why, size_t whylen)
{
	char w[96], over[16];
	int pid;

	snprintf(over, sizeof(over), "exit %d", GEN_OVER_BUDGET);
	pid = limited_fork(GEN_AS_LIMIT, GEN_SECONDS, why, whylen);
	if (pid < 0)
		return -1;
	if (!pid)
		_exit(gen_child(src, oi, path));
	if (limited_wait(pid, w, sizeof(w))) {
		if (!strcmp(w, over))
			return -2;
		snprintf(why, whylen, "generator %s", !strncmp(w, "exit", 4) ?
			 "cannot write the store entry" : w);
		return -1;
	}
	return 0;
}
