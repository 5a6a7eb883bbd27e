// SPDX-License-Identifier: GPL-2.0
/*
 * examine.c - the examining child: what an object is (an ELF executable or
 * shared object of this machine, its own PT_GNU_SFRAME, its build-id, the
 * name of its store entry), found in a limited child that the daemon
 * talks to over a socket pair, in two steps:
 *   1. the child opens the file (/proc/PID/map_files/...: root's right, so
 *      before the sandbox) or takes the daemon's descriptor, fstat()s it
 *      and sends the stat, and the descriptor it opened (SCM_RIGHTS), before
 *      reading a byte of it: a file that never answers (FUSE) stalls that
 *      child until its alarm(), never the daemon's open; and what it sends
 *      then is trusted (no user's byte has been parsed yet);
 *   2. sandboxed (sandbox.c: the owner's uid or nobody, no capabilities,
 *      seccomp, only its descriptors), it examines the file if the daemon
 *      says so (an object the daemon already knows is not examined again)
 *      and sends the result, which the daemon checks.
 * libelf maps the file there, so that a crafted file (a million sections,
 * millions of notes), one truncated while it is read (SIGBUS) or one that
 * never answers costs that child, never the daemon, which never maps a
 * file a user may write.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <gelf.h>
#include "ustack_sframe.h"	/* arch.h: the machine */
#include "elf_object.h"
#include "py_layout.h"
#include "ustackd.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

/*
 * What @fd is: an ELF executable or shared object of this machine (else 1
 * with *@why, or -1 for a file that is not ELF at all), its own PT_GNU_SFRAME,
 * its build-id and the name of its store entry.
 */
static int examine(int fd, const struct stat *st, struct objinfo *oi,
		   const char **why)
{
	size_t phnum, shnum;
	GElf_Ehdr eh;
	Elf *elf;
	int ret = 1;

	memset(oi, 0, sizeof(*oi));
	if (!S_ISREG(st->st_mode)) {
		*why = "not a regular file";
		return 1;
	}
	if ((uint64_t)st->st_size > MAX_OBJ_SIZE) {
		*why = "larger than 1 GiB";
		return 1;
	}
	if (elf_object_shnum(fd) > MAX_SECTIONS) {
		*why = "more than 65536 sections";
		return 1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		if (elf)
			elf_end(elf);
		*why = "not an ELF file";
		return -1;
	}
	if (!elf_object_supported(elf, &eh)) {
		*why = "not " USTACK_ARCH_NAME " ELF64";
		goto out;
	}
	if (eh.e_type != ET_DYN && eh.e_type != ET_EXEC) {
		*why = "not an executable or shared object";
		ret = -1;
		goto out;
	}
	if (elf_getphdrnum(elf, &phnum) || phnum > MAX_PHDRS) {
		*why = "bad program headers";
		goto out;
	}
	if (elf_getshdrnum(elf, &shnum) || shnum > MAX_SECTIONS) {
		*why = "more than 65536 sections";
		goto out;
	}
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_SFRAME)
			oi->own_sframe = true;
	}
	elf_object_build_id(elf, oi->bid, sizeof(oi->bid));
	oi->has_py = !py_layout_of_elf(elf, &oi->py, oi->py_why, sizeof(oi->py_why));
	cache_src_of(&oi->src, st);
	if (store_entry_name(fd, st, oi->bid, oi->name, sizeof(oi->name),
			     &oi->need_src)) {
		*why = "cannot read";
		goto out;
	}
	ret = 0;
out:
	elf_end(elf);
	return ret;
}

/* Step 1's message: the file as it was opened (or why it was not). */
struct opened {
	int err;
	struct stat st;
};

/* Step 2's message. */
struct examined {
	int ret;
	char why[64];
	struct objinfo oi;
};
_Static_assert(sizeof(struct examined) <= PIPE_BUF, "one message");

static int send_opened(int sock, const struct opened *op, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 };
	struct iovec iov = { (void *)op, sizeof(*op) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;

	if (fd >= 0) {
		m.msg_control = cbuf;
		m.msg_controllen = sizeof(cbuf);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	return sendmsg(sock, &m, MSG_NOSIGNAL) == sizeof(*op) ? 0 : -1;
}

/* Step 1's message; *@fd the descriptor it carries, if @fd. */
static int recv_opened(int sock, struct opened *op, int *fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { op, sizeof(*op) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
			    .msg_control = cbuf, .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c;
	int got = -1;
	ssize_t n;

	do
		n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	c = n > 0 ? CMSG_FIRSTHDR(&m) : NULL;
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&got, CMSG_DATA(c), sizeof(int));
	if (got >= 0 && (!fd || op->err)) {
		close(got);
		got = -1;
	}
	if (n != sizeof(*op) || (m.msg_flags & MSG_CTRUNC) ||
	    (fd && !op->err && got < 0)) {
		if (got >= 0)
			close(got);
		return -1;
	}
	if (fd)
		*fd = got;
	return 0;
}

/*
 * A mapping's file (@fd, open as the map_files link @link) as PID 1 sees
 * it, if a sandboxed service's nosuid view is all the mapping gave.
 */
static int system_view(int fd, const char *link)
{
	char target[4096];
	ssize_t n = readlink(link, target, sizeof(target) - 1);

	if (n <= 0)
		return fd;
	target[n] = '\0';
	return store_system_view(fd, target);
}

/* The child: open (@path) or take @fd, say so, then examine if told. */
static int examiner_child(int sock, const char *path, int fd)
{
	struct opened op = { 0 };
	struct examined x;
	const char *cw = "";
	char go;

	if (path && (fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)) < 0)
		op.err = errno;
	else if (path)
		fd = system_view(fd, path);
	if (!op.err && fstat(fd, &op.st))
		op.err = errno;
	if (send_opened(sock, &op, path && !op.err ? fd : -1))
		return 1;
	if (op.err)
		return 0;
	memset(&x, 0, sizeof(x));
	if (sandbox_enter(sandbox_uid(&op.st), (int[]){ fd, sock, 2 }, 3,
			  x.why, sizeof(x.why))) {
		x.ret = 1;
	} else {
		if (read(sock, &go, 1) != 1)
			return 0;	/* not wanted */
		x.ret = examine(fd, &op.st, &x.oi, &cw);
		snprintf(x.why, sizeof(x.why), "%s", cw);
	}
	return write(sock, &x, sizeof(x)) == sizeof(x) ? 0 : 1;
}

int examiner_start(struct examiner *e, const char *path, int *fd,
		   struct stat *st, char *why, size_t whylen)
{
	struct opened op;
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) {
		snprintf(why, whylen, "socketpair: %s", strerror(errno));
		return -EIO;
	}
	e->pid = limited_fork(EXAMINE_AS_LIMIT, EXAMINE_SECONDS, why, whylen);
	if (!e->pid) {
		close(sv[0]);
		_exit(examiner_child(sv[1], path, *fd));
	}
	close(sv[1]);
	e->sock = sv[0];
	if (e->pid < 0) {
		close(e->sock);
		return -EIO;
	}
	if (recv_opened(e->sock, &op, path ? fd : NULL)) {
		char w[96] = "gave no answer";

		examiner_finish(e, false, NULL, NULL, w, sizeof(w));
		snprintf(why, whylen, "examination %s", w);
		return -EIO;
	}
	if (op.err) {
		examiner_finish(e, false, NULL, NULL, why, whylen);
		snprintf(why, whylen, "%s", strerror(op.err));
		return -op.err;
	}
	*st = op.st;
	return 0;
}

/*
 * The child's result, checked: an entry name of one component, and for
 * a user's object (whose child ran as that user) the name the daemon
 * makes itself (a child cannot name a user's file after root's libc).
 */
static int examined_check(struct examined *x, const struct stat *st,
			  char *why, size_t whylen)
{
	char name[STORE_NAME_MAX];
	bool need_src;

	x->why[sizeof(x->why) - 1] = '\0';
	x->oi.bid[sizeof(x->oi.bid) - 1] = '\0';
	x->oi.name[sizeof(x->oi.name) - 1] = '\0';
	snprintf(why, whylen, "%s", x->why);
	if (x->ret)
		return x->ret;
	if (!x->oi.name[0] || strchr(x->oi.name, '/') ||
	    (!store_trusted_object(st) &&
	     (store_entry_name(-1, st, "", name, sizeof(name), &need_src) ||
	      strcmp(name, x->oi.name)))) {
		snprintf(why, whylen, "examination gave a bad entry name");
		return 1;
	}
	cache_src_of(&x->oi.src, st);
	return 0;
}

int examiner_finish(struct examiner *e, bool go, const struct stat *st,
		    struct objinfo *oi, char *why, size_t whylen)
{
	struct examined x;
	char w[96];
	int ret;
	ssize_t n;

	if (!go) {
		close(e->sock);
		return limited_wait(e->pid, why, whylen) ? -1 : 0;
	}
	memset(oi, 0, sizeof(*oi));
	/* (a child that died already: its death says why) */
	(void)!send(e->sock, "x", 1, MSG_NOSIGNAL);
	ret = limited_wait(e->pid, w, sizeof(w));
	/* the result is one message: the child has sent it when it exits */
	n = ret ? -1 : recv(e->sock, &x, sizeof(x), MSG_DONTWAIT);
	close(e->sock);
	if (ret) {
		snprintf(why, whylen, "examination %s", w);
		return 1;
	}
	if (n != sizeof(x)) {
		snprintf(why, whylen, "examination gave no result");
		return 1;
	}
	ret = examined_check(&x, st, why, whylen);
	*oi = x.oi;
	return ret;
}
