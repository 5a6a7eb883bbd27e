// SPDX-License-Identifier: GPL-2.0
/*
 * coop_c MODE SECONDS: a C program that opts in to cooperative unwinding
 * itself (no shim) and then misbehaves, for coop-c.sh.  Every mode burns
 * CPU in a loop whose result it prints (the same with and without ustack)
 * and prints its counters as "key=value" words on one line.
 *
 *   block    blocks the signal: it must never arrive
 *   silent   never answers: requests expire, nothing else changes
 *   forge    answers with a wrong cookie (EPERM), another thread's cookie
 *            (EPERM), an oversized answer (E2BIG), a bad string (EINVAL),
 *            then the right one (0), then the same again (ESTALE)
 *   fork     never answers; forks children while requests are outstanding:
 *            a child answers its parent's cookie (ESTALE), one execs
 *            /bin/true; both exit 0
 *   threads  64 threads answering their own requests
 *   exec     never answers; with a request outstanding, execs itself as
 *            "after COOKIE": the new image has its handler but is not
 *            opted in (COOP_OFF: ENOENT), no signal comes, and the old
 *            image's cookie is refused (ESTALE)
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
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <uapi/ustack.h>

#define NTHREADS 64

static const char *mode;
static int sig;
static volatile uint64_t cookie_of[NTHREADS + 1];
static __thread int my_index;
static long n_sig, n_ok, n_eperm, n_eperm_other, n_e2big, n_einval,
	n_estale, n_other;

static void count(int ret, long *expect)
{
	if (!ret)
		__atomic_add_fetch(&n_ok, 1, __ATOMIC_RELAXED);
	else if (errno == EPERM || errno == E2BIG || errno == EINVAL ||
		 errno == ESTALE)
		__atomic_add_fetch(expect, 1, __ATOMIC_RELAXED);
	else
		__atomic_add_fetch(&n_other, 1, __ATOMIC_RELAXED);
}

static int send_answer(uint64_t cookie, uint32_t nr, const char *strtab,
		       uint32_t len)
{
	struct ustack_coop_frame f[2] = {
		{ .function = 0, .file = 5, .line = 42,
		  .native = USTACK_INTERP_NATIVE_NONE },
		{ .function = 0, .file = 5, .line = 7,
		  .flags = USTACK_INTERP_ENTRY,
		  .native = USTACK_INTERP_NATIVE_NONE },
	};
	struct ustack_coop_answer a = {
		.size = sizeof(a), .cookie = cookie,
		.frames = (uintptr_t)f, .strtab = (uintptr_t)strtab,
		.nr_frames = nr, .strtab_len = len, .lang = "test",
	};
	int fd = open("/dev/sframe", O_RDWR | O_CLOEXEC), ret;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, SFRAME_IOC_COOP_ANSWER, &a);
	close(fd);
	return ret;
}

static const char good[] = "spin\0coop_c.c";

static void on_signal(int s, siginfo_t *si, void *uc)
{
	uint64_t c = (uintptr_t)si->si_value.sival_ptr, other;
	int saved = errno, i;

	(void)s;
	(void)uc;
	if (si->si_code != SI_KERNEL)
		return;
	__atomic_add_fetch(&n_sig, 1, __ATOMIC_RELAXED);
	cookie_of[my_index] = c;
	if (!strcmp(mode, "forge")) {
		count(send_answer(c ^ 2, 2, good, sizeof(good)), &n_eperm);
		for (i = 0; i <= NTHREADS; i++) {
			other = cookie_of[i];
			if (i != my_index && other && other != c) {
				count(send_answer(other, 2, good, sizeof(good)),
				      &n_eperm_other);
				break;
			}
		}
		count(send_answer(c, USTACK_COOP_MAX_FRAMES + 1, good,
				  sizeof(good)), &n_e2big);
		count(send_answer(c, 2, "spin", 4), &n_einval);
		count(send_answer(c, 2, good, sizeof(good)), &n_ok);
		count(send_answer(c, 2, good, sizeof(good)), &n_estale);
	} else if (!strcmp(mode, "threads")) {
		send_answer(c, 2, good, sizeof(good)) ? n_other++ : n_ok++;
	}
	errno = saved;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static uint64_t spin(double secs)
{
	double end = now() + secs;
	uint64_t x = 1, n = 0;

	while (now() < end)
		for (int i = 0; i < 100000; i++, n++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	return n ? x & 0 : 0;	/* the same result every run */
}

static void *thread_main(void *arg)
{
	my_index = (int)(intptr_t)arg;
	spin(atof(getenv("COOP_SECS")));
	return NULL;
}

static void fork_children(void)
{
	int st, i;
	pid_t p;

	for (i = 0; i < 20; i++) {
		spin(0.05);
		p = fork();
		if (p < 0)
			exit(2);
		if (!p) {
			/* Not opted in, nothing outstanding: refused. */
			if (send_answer(cookie_of[0], 2, good, sizeof(good)) == 0 ||
			    errno != ESTALE)
				_exit(3);
			spin(0.02);
			if (i & 1)
				execl("/bin/true", "true", (char *)NULL);
			_exit(0);
		}
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			printf("child %d failed: status %#x\n", i, st);
			exit(1);
		}
	}
}

/* Spin until a request is outstanding (never answered), then exec. */
static void exec_self(const char *self, double secs)
{
	char arg[32], cookie[32];
	double end = now() + 10;

	while (!cookie_of[0] && now() < end)
		spin(0.01);
	if (!cookie_of[0]) {
		printf("no request in 10 s\n");
		exit(1);
	}
	snprintf(arg, sizeof(arg), "%g", secs);
	snprintf(cookie, sizeof(cookie), "%llu",
		 (unsigned long long)cookie_of[0]);
	fflush(stdout);
	execl(self, self, "after", arg, cookie, (char *)NULL);
	perror("exec");
	exit(1);
}

static int after_exec(const char *cookie, double secs)
{
	struct ustack_coop c = { .size = sizeof(c) };
	int fd = open("/dev/sframe", O_RDWR | O_CLOEXEC), off, ans;

	if (fd < 0 || !cookie)
		return 1;
	off = ioctl(fd, SFRAME_IOC_COOP_OFF, &c) ? errno : 0;
	close(fd);
	ans = send_answer(strtoull(cookie, NULL, 10), 2, good, sizeof(good)) ?
	      errno : 0;
	printf("result %llu\n", (unsigned long long)spin(secs));
	printf("off_enoent=%d answer_estale=%d signals=%ld\n", off == ENOENT,
	       ans == ESTALE, n_sig);
	return 0;
}

int main(int argc, char **argv)
{
	struct ustack_coop c = { .size = sizeof(c) };
	struct sigaction sa;
	pthread_t t[NTHREADS];
	sigset_t set;
	double secs;
	int fd, i, n = 0;

	if (argc < 3)
		return 2;
	mode = argv[1];
	secs = atof(argv[2]);
	setenv("COOP_SECS", argv[2], 1);
	sig = SIGRTMIN + 3;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(sig, &sa, NULL);
	c.signo = sig;
	if (!strcmp(mode, "block")) {	/* before any request can come */
		sigemptyset(&set);
		sigaddset(&set, sig);
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	}
	if (!strcmp(mode, "after"))
		return after_exec(argv[3], secs);
	fd = open("/dev/sframe", O_RDWR | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, SFRAME_IOC_COOP_ON, &c)) {
		perror("COOP_ON");
		return 1;
	}
	close(fd);
	if (!strcmp(mode, "fork"))
		fork_children();
	if (!strcmp(mode, "exec"))
		exec_self(argv[0], secs);
	if (!strcmp(mode, "threads") || !strcmp(mode, "forge"))
		n = !strcmp(mode, "threads") ? NTHREADS : 2;
	for (i = 0; i < n; i++)
		pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)(i + 1));
	printf("result %llu\n", (unsigned long long)spin(secs));
	for (i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	if (!strcmp(mode, "block")) {
		sigpending(&set);
		printf("pending=%d ", sigismember(&set, sig));
	}
	printf("signals=%ld ok=%ld eperm=%ld eperm_other=%ld e2big=%ld einval=%ld estale=%ld other=%ld\n",
	       n_sig, n_ok, n_eperm, n_eperm_other, n_e2big, n_einval,
	       n_estale, n_other);
	return 0;
}
