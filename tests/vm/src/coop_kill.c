// SPDX-License-Identifier: GPL-2.0
/*
 * coop_kill THREADS [KB]: a program opted in to cooperative unwinding
 * whose threads owe requests when they are killed, for coop-kill.sh.
 *
 * Each thread loops on one io_uring_enter() that reads KB KiB (default
 * 4096) of a file inline (a long copy in the kernel, where the sampling
 * tick lands) and
 * then waits for a one-second timeout: io_uring's wait runs the engine's
 * task_work, whose walk is inside the system call, so its request is owed
 * until the system call returns.  Killed meanwhile (SIGKILL, or SIGTERM
 * without a handler), the thread never returns to user space.  Prints
 * "ready" once every thread runs, then loops until killed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <uapi/ustack.h>

#define FILE_LEN	(4u << 20)
#define DATA		"/tmp/coop_kill.dat"

static void die(const char *what)
{
	printf("FAIL: %s: %s\n", what, strerror(errno));
	exit(1);
}

#include "uring.h"

static unsigned char *buf;
static unsigned int read_len = FILE_LEN;
static int data_fd;

/* Requests are never answered: the handler only has to exist. */
static void on_signal(int s, siginfo_t *si, void *uc)
{
	(void)s;
	(void)si;
	(void)uc;
}

static void *thread(void *arg)
{
	struct __kernel_timespec ts = { .tv_sec = 1 };
	struct ring r;

	(void)arg;
	ring_init(&r, 4, 0);
	for (;;) {
		struct io_uring_sqe *sqe;
		unsigned i;

		i = r.tail++ & *r.sq_mask;
		sqe = &r.sqes[i];
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_READ;
		sqe->fd = data_fd;
		sqe->addr = (uintptr_t)buf;
		sqe->len = read_len;
		r.sq_array[i] = i;
		i = r.tail++ & *r.sq_mask;
		sqe = &r.sqes[i];
		memset(sqe, 0, sizeof(*sqe));
		sqe->opcode = IORING_OP_TIMEOUT;
		sqe->addr = (uintptr_t)&ts;
		sqe->len = 1;
		r.sq_array[i] = i;
		__atomic_store_n(r.sq_tail, r.tail, __ATOMIC_RELEASE);
		syscall(__NR_io_uring_enter, r.fd, 2, 2, IORING_ENTER_GETEVENTS,
			NULL, 0);
		/* Consume every completion. */
		__atomic_store_n(r.cq_head,
				 __atomic_load_n(r.cq_tail, __ATOMIC_ACQUIRE),
				 __ATOMIC_RELEASE);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct ustack_coop c = { .size = sizeof(c), .signo = SIGRTMIN + 2 };
	int n = argc > 1 ? atoi(argv[1]) : 64, i, fd, kb;
	struct sigaction sa = { .sa_sigaction = on_signal,
				.sa_flags = SA_SIGINFO | SA_RESTART };
	pthread_t t;

	kb = argc > 2 ? atoi(argv[2]) : 0;
	if (kb > 0 && kb <= (int)(FILE_LEN >> 10))
		read_len = kb << 10;
	data_fd = open(DATA, O_RDONLY);
	if (data_fd < 0)
		die(DATA);
	buf = malloc(FILE_LEN);
	if (!buf)
		die("malloc");
	sigaction(c.signo, &sa, NULL);
	fd = open("/dev/sframe", O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, SFRAME_IOC_COOP_ON, &c))
		die("COOP_ON");
	close(fd);
	for (i = 0; i < n; i++)
		if (pthread_create(&t, NULL, thread, NULL))
			die("pthread_create");
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
