// SPDX-License-Identifier: GPL-2.0
/*
 * coop_iouring SECONDS: a program opted in to cooperative unwinding (its
 * own handler, no SA_RESTART: an interrupted system call would show as
 * EINTR) doing io_uring reads, for coop-iouring.sh.
 *
 * Each round submits, in one io_uring_enter() that also waits for all of
 * them, NR_ASYNC IOSQE_ASYNC reads of a pattern file (io-wq workers do
 * them and post their completions to this thread as task_work, which
 * io_uring_enter() runs while it waits: the engine's walk runs there too,
 * in the middle of the system call) and one inline read of the whole
 * file (a long copy in the kernel, where the sampling tick lands; not
 * /dev/zero, whose read stops short at io_uring's own TIF_NOTIFY_SIGNAL).
 * Then a plain pread() of the file, and a little user-space work.  Every result must
 * be whole and right: a short count, an error (EINTR above all) or wrong
 * bytes is counted as bad.  Prints one line of "key=value" words:
 *   rounds= bad= eintr= early= signals= answered= refused=
 * (early: a wait for every completion that returned before them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/io_uring.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <uapi/ustack.h>

#define NR_ASYNC	8
#define CHUNK		(256u << 10)
#define FILE_LEN	(NR_ASYNC * CHUNK)
#define PATTERN		"/tmp/coop_iouring.dat"

static long n_sig, n_answered, n_refused;

static void die(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	exit(1);
}

#include "uring.h"

static void queue_read(struct ring *r, int fd, void *buf, unsigned len,
		       uint64_t off, unsigned flags, uint64_t tag)
{
	unsigned i = r->tail++ & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[i];

	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_READ;
	sqe->flags = flags;
	sqe->fd = fd;
	sqe->addr = (uintptr_t)buf;
	sqe->len = len;
	sqe->off = off;
	sqe->user_data = tag;
	r->sq_array[i] = i;
}

static unsigned char byte_at(uint64_t off)
{
	return (unsigned char)(off * 7 + (off >> 12));
}

static int chunk_ok(const unsigned char *b, uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (b[i] != byte_at(off + i))
			return 0;
	return 1;
}

static void on_signal(int s, siginfo_t *si, void *uc)
{
	struct ustack_coop_frame f = {
		.function = 0, .file = 5, .line = 1,
		.flags = USTACK_INTERP_ENTRY,
		.native = USTACK_INTERP_NATIVE_NONE,
	};
	static const char strtab[] = "read\0coop_iouring.c";
	struct ustack_coop_answer a = {
		.size = sizeof(a), .frames = (uintptr_t)&f,
		.strtab = (uintptr_t)strtab, .nr_frames = 1,
		.strtab_len = sizeof(strtab), .lang = "test",
	};
	int saved = errno, fd;

	(void)s;
	(void)uc;
	if (si->si_code != SI_KERNEL)
		return;
	n_sig++;
	a.cookie = (uintptr_t)si->si_value.sival_ptr;
	fd = open("/dev/sframe", O_RDWR | O_CLOEXEC);
	if (fd >= 0) {
		if (ioctl(fd, SFRAME_IOC_COOP_ANSWER, &a))
			n_refused++;
		else
			n_answered++;
		close(fd);
	}
	errno = saved;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	struct ustack_coop c = { .size = sizeof(c) };
	static unsigned char buf[NR_ASYNC][CHUNK], whole[FILE_LEN], plain[CHUNK];
	long rounds = 0, bad = 0, eintr = 0, early = 0;
	unsigned char *pat;
	struct sigaction sa;
	struct ring r;
	int fd, i, n;
	double end;
	volatile uint64_t x = 1;

	if (argc < 2)
		return 2;
	end = now() + atof(argv[1]);
	pat = malloc(FILE_LEN);
	if (!pat)
		die("malloc");
	for (i = 0; i < (int)FILE_LEN; i++)
		pat[i] = byte_at(i);
	fd = open(PATTERN, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, pat, FILE_LEN) != (ssize_t)FILE_LEN)
		die(PATTERN);

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: EINTR would show */
	sigemptyset(&sa.sa_mask);
	c.signo = SIGRTMIN + 3;
	if (sigaction(c.signo, &sa, NULL))
		die("sigaction");
	i = open("/dev/sframe", O_RDWR | O_CLOEXEC);
	if (i < 0 || ioctl(i, SFRAME_IOC_COOP_ON, &c))
		die("COOP_ON");
	close(i);
	ring_init(&r, 2 * NR_ASYNC, 0);

	while (now() < end) {
		unsigned head;

		memset(buf, 0, sizeof(buf));
		memset(whole, 0, sizeof(whole));
		for (i = 0; i < NR_ASYNC; i++)
			queue_read(&r, fd, buf[i], CHUNK, (uint64_t)i * CHUNK,
				   IOSQE_ASYNC, i);
		queue_read(&r, fd, whole, FILE_LEN, 0, 0, NR_ASYNC);
		__atomic_store_n(r.sq_tail, r.tail, __ATOMIC_RELEASE);
		n = syscall(__NR_io_uring_enter, r.fd, NR_ASYNC + 1,
			    NR_ASYNC + 1, IORING_ENTER_GETEVENTS, NULL, 0);
		if (n != NR_ASYNC + 1) {
			if (n < 0 && errno == EINTR)
				eintr++;
			else
				printf("io_uring_enter: %d (%s)\n", n,
				       n < 0 ? strerror(errno) : "short");
			bad++;
			break;	/* the ring's state is unknown now */
		}
		/*
		 * Completions still missing: the wait ended early, which only
		 * a pending signal does (the submitted count hides its EINTR).
		 */
		if ((unsigned)(__atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE) -
			       *r.cq_head) < NR_ASYNC + 1) {
			early++;
			bad++;
		}
		while ((unsigned)(__atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE) -
				  *r.cq_head) < NR_ASYNC + 1) {
			n = syscall(__NR_io_uring_enter, r.fd, 0, NR_ASYNC + 1,
				    IORING_ENTER_GETEVENTS, NULL, 0);
			if (n < 0) {
				eintr += errno == EINTR;
				bad++;
				break;
			}
		}
		head = *r.cq_head;
		while (head != __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE)) {
			struct io_uring_cqe *e = &r.cqes[head & *r.cq_mask];
			uint64_t t = e->user_data;

			if (t == NR_ASYNC) {
				if (e->res != (int)FILE_LEN ||
				    !chunk_ok(whole, 0, FILE_LEN)) {
					printf("inline read: %d\n", e->res);
					eintr += e->res == -EINTR;
					bad++;
				}
			} else if (e->res != (int)CHUNK ||
				   !chunk_ok(buf[t], t * CHUNK, CHUNK)) {
				printf("read %llu: %d\n", (unsigned long long)t,
				       e->res);
				eintr += e->res == -EINTR;
				bad++;
			}
			head++;
		}
		__atomic_store_n(r.cq_head, head, __ATOMIC_RELEASE);
		n = pread(fd, plain, CHUNK, CHUNK);
		if (n != (int)CHUNK || !chunk_ok(plain, CHUNK, CHUNK)) {
			printf("pread: %d\n", n);
			eintr += n < 0 && errno == EINTR;
			bad++;
		}
		for (i = 0; i < 200000; i++)
			x = x * 6364136223846793005ull + 1;
		rounds++;
	}
	printf("rounds=%ld bad=%ld eintr=%ld early=%ld signals=%ld answered=%ld refused=%ld\n",
	       rounds, bad, eintr, early, n_sig, n_answered, n_refused);
	unlink(PATTERN);
	return 0;
}
