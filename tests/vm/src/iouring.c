// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring worker threads for engine-iouring.sh: make io-wq workers
 * (comm iou-wrk-<tid>, PF_IO_WORKER) and an SQPOLL thread (iou-sqp-<pid>,
 * PF_IO_WORKER too) really run and block, while the main thread spins in
 * known functions and waits for completions.  Raw system calls, no liburing.
 *
 *   iouring SECONDS
 *
 * Starts when a byte arrives on stdin (after the test set pid=).  Then, in
 * rounds for SECONDS: a new thread with a plain ring of its own submits 4
 * IOSQE_ASYNC reads of /dev/zero (4 MiB each: its io-wq workers burn CPU in
 * the kernel), waits for them and exits (its workers exit with it); the
 * main thread submits 2 reads on an SQPOLL ring (one inline in the SQPOLL
 * thread, one IOSQE_ASYNC), spins meanwhile (main > run_rounds > cpu_outer
 * > cpu_inner), then waits in io_uring_enter.  Last, an IOSQE_ASYNC openat
 * of a FIFO blocks a worker until the main thread opens the write end 300 ms
 * later, and the workers idle-sleep for a second.  Every io thread seen in /proc/self/task
 * is printed at the end:
 *   iothread TID COMM utime+stime=TICKS vcsw=N
 *   main TID
 *   done rounds=N bytes=N
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <linux/io_uring.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#include "cpu_loop.h"
#define BUF_SIZE (4u << 20)
#define NR_ASYNC 4
#define FIFO "/tmp/iouring.fifo"

static void die(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	fflush(stdout);
	exit(1);
}

#include "uring.h"

/*
 * Queue one SQE: the kernel (an SQPOLL thread) sees it only when
 * ring_submit() publishes the new tail, after the caller filled it in.
 */
static struct io_uring_sqe *ring_sqe(struct ring *r)
{
	unsigned i = r->tail++ & *r->sq_mask;
	struct io_uring_sqe *sqe = &r->sqes[i];

	memset(sqe, 0, sizeof(*sqe));
	r->sq_array[i] = i;
	r->inflight++;
	return sqe;
}

static int enter(struct ring *r, unsigned submit, unsigned wait, unsigned flags)
{
	return syscall(__NR_io_uring_enter, r->fd, submit, wait, flags, NULL, 0);
}

static void ring_submit(struct ring *r, unsigned n, int sqpoll)
{
	__atomic_store_n(r->sq_tail, r->tail, __ATOMIC_RELEASE);
	if (!sqpoll) {
		if (enter(r, n, 0, 0) != (int)n)
			die("io_uring_enter submit");
		return;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(r->sq_flags, __ATOMIC_RELAXED) & IORING_SQ_NEED_WAKEUP)
		if (enter(r, 0, 0, IORING_ENTER_SQ_WAKEUP) < 0)
			die("io_uring_enter wakeup");
}

/* Wait for every request in flight; returns the sum of their results. */
static long ring_wait_all(struct ring *r)
{
	long sum = 0;

	while (r->inflight) {
		unsigned head = *r->cq_head;

		while (head == __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE))
			if (enter(r, 0, 1, IORING_ENTER_GETEVENTS) < 0 && errno != EINTR)
				die("io_uring_enter wait");
		while (head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
			struct io_uring_cqe *c = &r->cqes[head & *r->cq_mask];

			if (c->res < 0) {
				errno = -c->res;
				die("request");
			}
			sum += c->res;
			head++;
			r->inflight--;
		}
		__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
	}
	return sum;
}

static void prep_read(struct io_uring_sqe *sqe, int fd, void *buf, unsigned len,
		      unsigned flags)
{
	sqe->opcode = IORING_OP_READ;
	sqe->flags = flags;
	sqe->fd = fd;
	sqe->addr = (unsigned long)buf;
	sqe->len = len;
	sqe->off = 0;
}

/* ---- the io threads, as /proc/self/task shows them ---------------------- */

#define MAX_IOT 64
static struct { int tid; char comm[32]; long ticks, vcsw; } iot[MAX_IOT];
static int niot;

static void scan_tasks(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	if (!d)
		die("/proc/self/task");
	while ((e = readdir(d))) {
		char path[96], comm[32] = "", line[256], *p;
		long ut = 0, st = 0, vcsw = -1;
		int tid = atoi(e->d_name), i;
		FILE *f;

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
		f = fopen(path, "r");
		if (!f)
			continue;	/* gone meanwhile */
		if (!fgets(comm, sizeof(comm), f))
			comm[0] = 0;
		fclose(f);
		comm[strcspn(comm, "\n")] = 0;
		if (strncmp(comm, "iou-", 4))
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
		f = fopen(path, "r");
		if (f && fgets(line, sizeof(line), f) && (p = strrchr(line, ')')))
			sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %ld %ld",
			       &ut, &st);
		if (f)
			fclose(f);
		snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			sscanf(line, "voluntary_ctxt_switches: %ld", &vcsw);
		if (f)
			fclose(f);
		for (i = 0; i < niot && iot[i].tid != tid; i++)
			;
		if (i == niot) {
			if (niot == MAX_IOT)
				continue;
			niot++;
			iot[i].tid = tid;
		}
		snprintf(iot[i].comm, sizeof(iot[i].comm), "%s", comm);
		if (ut + st > iot[i].ticks)
			iot[i].ticks = ut + st;
		if (vcsw > iot[i].vcsw)
			iot[i].vcsw = vcsw;
	}
	closedir(d);
}

/* ---- the main thread's own work (and cpu_loop.h) ------------------------- */

/*
 * One round's submitter: a thread of its own, so that its io-wq (one per
 * task) and its workers exit with it, every round.
 */
struct submitter {
	pthread_t thread;
	int zero;
	char **bufs;
	long bytes;
};

NOINLINE void *submit_thread(void *arg)
{
	struct submitter *s = arg;
	struct ring a;
	int i;

	ring_init(&a, 16, 0);
	for (i = 0; i < NR_ASYNC; i++)
		prep_read(ring_sqe(&a), s->zero, s->bufs[i], BUF_SIZE, IOSQE_ASYNC);
	ring_submit(&a, NR_ASYNC, 0);
	s->bytes = ring_wait_all(&a);
	close(a.fd);
	return NULL;
}

NOINLINE long run_rounds(double secs, struct ring *b, int zero, char **bufs,
			 long *rounds)
{
	struct submitter sub = { .zero = zero, .bufs = bufs };
	long bytes = 0;

	cpu_alarm(secs);
	while (!cpu_done) {
		if (pthread_create(&sub.thread, NULL, submit_thread, &sub))
			die("pthread_create");
		prep_read(ring_sqe(b), zero, bufs[NR_ASYNC], BUF_SIZE, 0);
		prep_read(ring_sqe(b), zero, bufs[NR_ASYNC + 1], BUF_SIZE, IOSQE_ASYNC);
		ring_submit(b, 2, 1);
		scan_tasks();
		cpu_outer(2000000);
		scan_tasks();
		bytes += ring_wait_all(b);
		pthread_join(sub.thread, NULL);
		bytes += sub.bytes;
		(*rounds)++;
	}
	return bytes;
}

/* A worker blocked in fifo_open until the write end opens. */
NOINLINE void run_block(struct ring *a)
{
	struct io_uring_sqe *sqe;
	int wfd;
	long fd;

	unlink(FIFO);
	if (mkfifo(FIFO, 0600))
		die("mkfifo");
	sqe = ring_sqe(a);
	sqe->opcode = IORING_OP_OPENAT;
	sqe->flags = IOSQE_ASYNC;
	sqe->fd = AT_FDCWD;
	sqe->addr = (unsigned long)FIFO;
	sqe->open_flags = O_RDONLY;
	ring_submit(a, 1, 0);
	usleep(150000);
	scan_tasks();
	usleep(150000);
	wfd = open(FIFO, O_WRONLY);
	if (wfd < 0)
		die("open fifo");
	fd = ring_wait_all(a);
	close(fd);
	close(wfd);
	unlink(FIFO);
}

int main(int argc, char **argv)
{
	struct ring a, b;
	char *bufs[NR_ASYNC + 2], go;
	long rounds = 0, bytes;
	int i, zero;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc != 2) {
		fprintf(stderr, "usage: iouring SECONDS\n");
		return 2;
	}
	if (read(0, &go, 1) != 1)
		die("waiting for the start byte");
	zero = open("/dev/zero", O_RDONLY);
	if (zero < 0)
		die("/dev/zero");
	for (i = 0; i < NR_ASYNC + 2; i++) {
		bufs[i] = mmap(NULL, BUF_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (bufs[i] == MAP_FAILED)
			die("mmap buffer");
	}
	ring_init(&b, 16, IORING_SETUP_SQPOLL);
	printf("phase rounds\n");
	bytes = run_rounds(atof(argv[1]), &b, zero, bufs, &rounds);
	printf("phase block\n");
	ring_init(&a, 16, 0);
	run_block(&a);
	printf("phase idle\n");
	sleep(1);	/* the workers idle-sleep */
	scan_tasks();
	for (i = 0; i < niot; i++)
		printf("iothread %d %s utime+stime=%ld vcsw=%ld\n", iot[i].tid,
		       iot[i].comm, iot[i].ticks, iot[i].vcsw);
	printf("main %d\n", (int)getpid());
	printf("done rounds=%ld bytes=%ld\n", rounds, bytes);
	return 0;
}
