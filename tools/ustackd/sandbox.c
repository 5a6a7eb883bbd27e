// SPDX-License-Identifier: GPL-2.0
/*
 * sandbox.c - a limited child's privileges dropped before it reads a byte
 * of a user's file: a memory bug in libelf, libdw or the generator, on a
 * crafted object, must not be root's.  In this order:
 *   - every descriptor closed but the child's own (the object, its result
 *     channel, the log): not /dev/sframe, not the store's directory;
 *   - not dumpable (no user may ptrace it or read its memory: the daemon's,
 *     copied at the fork), no new privileges;
 *   - the file owner's uid when not root (a child for alice's file can
 *     harm only alice, who wrote it), else 65534 (nobody), gid 65534
 *     (nogroup), no supplementary groups (a user's file may name a group
 *     the user is in: the child takes none);
 *   - no capabilities at all (capset: permitted, effective, inheritable);
 *   - a seccomp filter (raw BPF: no library, so nothing new for the
 *     packages or the VM tests' guests) that allows only what the children
 *     do: read and map the object, allocate, write to their descriptors,
 *     end; any other call kills the child (SIGSYS), which limited_wait()
 *     reports.
 */
#include <errno.h>
#include <grp.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include "ustackd.h"

#if defined(__x86_64__)
#define SANDBOX_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH	AUDIT_ARCH_AARCH64
#else
#error "sandbox.c: no seccomp architecture for this machine"
#endif

uid_t sandbox_uid(const struct stat *st)
{
	return st->st_uid ? st->st_uid : SANDBOX_NOBODY;
}

static int cmp_int(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* close(2) [lo, hi]: close_range(), or one by one (before Linux 5.9). */
static int close_span(unsigned int lo, unsigned int hi)
{
	struct rlimit rl;

	if (!syscall(SYS_close_range, lo, hi, 0))
		return 0;
	/* ENOSYS, or EPERM from a seccomp filter that predates it */
	if (getrlimit(RLIMIT_NOFILE, &rl))
		return -1;
	for (rlim_t fd = lo; fd <= hi && fd < rl.rlim_cur; fd++)
		close((int)fd);
	return 0;
}

/* Close every descriptor but @keep's (at most 8; -1 entries ignored). */
static int close_others(const int *keep, size_t nkeep)
{
	unsigned int lo = 0;
	int k[8], n = 0;

	for (size_t i = 0; i < nkeep && n < 8; i++)
		if (keep[i] >= 0)
			k[n++] = keep[i];
	qsort(k, n, sizeof(k[0]), cmp_int);
	for (int i = 0; i < n; i++) {
		if ((unsigned int)k[i] < lo)
			continue;	/* a duplicate */
		if ((unsigned int)k[i] > lo && close_span(lo, k[i] - 1))
			return -1;
		lo = k[i] + 1;
	}
	return close_span(lo, ~0u);
}

/*
 * Without CAP_SETGID/CAP_SETUID (a unit that bounds them away) the child
 * stays uid 0, still without capabilities, descriptors or system calls
 * beyond the filter's: contained, and objects are still covered.
 */
static int drop_ids(uid_t uid)
{
	if (geteuid())
		return 0;	/* not root (a test): nothing to drop */
	if (setgroups(0, NULL) && errno == EPERM)
		return 0;
	if (setgroups(0, NULL) ||
	    setresgid(SANDBOX_NOBODY, SANDBOX_NOBODY, SANDBOX_NOBODY) ||
	    setresuid(uid, uid, uid))
		return -1;
	/* all three, for good: no way back */
	if (!setresuid(0, 0, 0) || getuid() != uid || geteuid() != uid)
		return -1;
	return 0;
}

static int drop_caps(void)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	return syscall(SYS_capset, &h, d) ? -1 : 0;
}

#define ALLOW(nr) \
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

/*
 * What the children call: the object read (pread, mmap) and its file
 * system asked whether it is the system's (fstatfs), memory (malloc, libdw's
 * tables), the result written (the pipe, the entry's memfd, the log),
 * the end.  Not open, socket, kill, fork, exec, ioctl, ptrace, ...
 */
static const struct sock_filter filter[] = {
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
	BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
	BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
	ALLOW(__NR_read), ALLOW(__NR_pread64), ALLOW(__NR_readv),
	ALLOW(__NR_write), ALLOW(__NR_writev), ALLOW(__NR_lseek),
	ALLOW(__NR_close), ALLOW(__NR_fstat), ALLOW(__NR_newfstatat),
	ALLOW(__NR_fstatfs), ALLOW(__NR_fcntl),
	ALLOW(__NR_mmap), ALLOW(__NR_munmap), ALLOW(__NR_mremap),
	ALLOW(__NR_mprotect), ALLOW(__NR_madvise), ALLOW(__NR_brk),
	ALLOW(__NR_futex), ALLOW(__NR_getpid), ALLOW(__NR_gettid),
	ALLOW(__NR_clock_gettime), ALLOW(__NR_gettimeofday),
	ALLOW(__NR_getrandom), ALLOW(__NR_sysinfo), ALLOW(__NR_rt_sigprocmask),
	ALLOW(__NR_rt_sigreturn), ALLOW(__NR_restart_syscall),
	ALLOW(__NR_exit), ALLOW(__NR_exit_group),
	BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
};

static int seccomp_on(void)
{
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = (struct sock_filter *)filter,
	};

	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) ? -1 : 0;
}

/* Whether the kernel filters system calls (CONFIG_SECCOMP_FILTER). */
static bool have_seccomp = true;

void sandbox_init(void)
{
	uint32_t action = SECCOMP_RET_KILL_PROCESS;

	/* ENOSYS without seccomp, EINVAL without its filters */
	if (!syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action))
		return;
	have_seccomp = false;
	logmsg("this kernel has no seccomp filters: the limited children run without one (their other limits stay)");
}

int sandbox_enter(uid_t uid, const int *keep, size_t nkeep, char *why,
		  size_t whylen)
{
	const char *step;

	if (close_others(keep, nkeep))
		step = "closing descriptors";
	else if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) ||
		 prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		step = "prctl";
	else if (drop_ids(uid))
		step = "setresuid";
	else if (drop_caps())
		step = "capset";
	else if (have_seccomp && seccomp_on())
		step = "seccomp";
	else
		return 0;
	snprintf(why, whylen, "sandbox: %s: %s", step, strerror(errno));
	return -1;
}
