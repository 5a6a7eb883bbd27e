// SPDX-License-Identifier: GPL-2.0
/*
 * generate.c - the daemon's limited children (bounded memory and time),
 * where every file a user may write is read, so that a hostile object
 * costs that child, never the daemon; and the generation child: SFrame
 * from an object's .eh_frame into its store entry.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <gelf.h>
#include "fileio.h"
#include "gen_sframe.h"
#include "ustackd.h"

/*
 * The generator's child: SFrame v3 at vaddr 0, its entry (header, then
 * SFrame) written to @out, a memfd the daemon reads.  The child runs in
 * the sandbox with three descriptors (the object, @out, the log): no
 * store directory (as the owner or nobody, it could not write root's
 * store anyway, and a compromised child must not touch other entries).
 * An object without usable .eh_frame gets an empty entry: a restart knows.
 */
static int gen_child(const struct gen_src *src, const struct objinfo *oi,
		     const char *path, int out)
{
	struct cache_hdr h;
	char err[256] = "not ELF";
	void *sf = NULL;
	size_t len = 0;
	void *img;
	Elf *elf;
	int ret = -1;

	if (sandbox_enter(src->owner, (int[]){ src->fd, out, 2 }, 3, err,
			  sizeof(err))) {
		logmsg("%s: %s", path, err);
		return 2;
	}
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
	if (write_all(out, &h, sizeof(h)) || (len && write_all(out, sf, len)))
		return 1;
	return 0;
}

/*
 * The entry the child wrote to @mfd, into the store as @oi->name: its
 * header made again here (the identity is the daemon's, the length the
 * memfd's), only the counts taken from the child.  The kernel validates
 * the SFrame itself at STORE_ADD.  0 or -errno (-EDQUOT: over @oi->room).
 */
static int put_entry(int mfd, const struct objinfo *oi)
{
	struct cache_hdr h, ch;
	struct stat st;
	uint8_t *p;
	size_t len;
	int ret;

	if (fstat(mfd, &st))
		return -errno;
	if ((uint64_t)st.st_size < sizeof(h) ||
	    (uint64_t)st.st_size > MAX_OBJ_SIZE)
		return -EBADMSG;
	/* over the budget's room (budget.c): nothing written */
	if (entry_cost(st.st_size) > oi->room)
		return -EDQUOT;
	p = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, mfd, 0);
	if (p == MAP_FAILED)
		return -errno;
	len = st.st_size - sizeof(h);
	memcpy(&ch, p, sizeof(ch));
	if (memcmp(ch.magic, CACHE_MAGIC, sizeof(ch.magic)) ||
	    ch.hdr_size != sizeof(ch) || ch.sframe_len != len) {
		ret = -EBADMSG;
	} else {
		entry_hdr_init(&h, len, ch.funcs, ch.left_out, &oi->src);
		ret = store_put(store_fd, oi->name, &h, p + sizeof(h), len);
	}
	munmap(p, st.st_size);
	return ret;
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
	char w[96];
	int pid, mfd, ret;

	mfd = memfd_create("ustackd-entry", MFD_CLOEXEC);
	if (mfd < 0) {
		snprintf(why, whylen, "memfd_create: %s", strerror(errno));
		return -1;
	}
	pid = limited_fork(GEN_AS_LIMIT, GEN_SECONDS, why, whylen);
	if (pid < 0) {
		close(mfd);
		return -1;
	}
	if (!pid)
		_exit(gen_child(src, oi, path, mfd));
	if (limited_wait(pid, w, sizeof(w))) {
		snprintf(why, whylen, "generator %s", w);
		close(mfd);
		return -1;
	}
	ret = put_entry(mfd, oi);
	close(mfd);
	if (ret == -EDQUOT)
		return -2;
	if (ret) {
		logmsg("%s: cannot write %s/%s: %s", path, opt.store, oi->name,
		       strerror(-ret));
		snprintf(why, whylen, "generator cannot write the store entry");
		return -1;
	}
	return 0;
}
