// SPDX-License-Identifier: GPL-2.0
/*
 * libustack.c - the libustack C API (ustack.h) over /dev/sframe.
 *
 * The device is opened per batch of registrations (sframe_dev_open) so that a
 * program never finds an extra descriptor of ours; ustack_backtrace() keeps
 * one cached descriptor, re-validated by its device number before each use
 * (a program that closes all its descriptors may have closed or reused it).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include "ustack.h"
#include "shim_int.h"
#include "sframe_ioctl.h"

#define MAX_FRAMES 1024
/* Frames the kernel may report above the caller's: our own (and slack). */
#define SKIP_SEARCH 4
/*
 * Frames walked into our own stack frame (512 bytes): a signal handler on
 * an alternate stack of SIGSTKSZ has room for little more.  Larger
 * requests walk into a private mapping (mmap is a plain system call, safe
 * in a signal handler; malloc is not).
 */
#define LOCAL_FRAMES 64

EXPORT int ustack_register(const void *sframe, size_t sframe_len,
			   const void *text_start, const void *text_end)
{
	int fd = sframe_dev_open(), ret;

	if (fd < 0)
		return fd == -ENOENT || fd == -ENXIO || fd == -ENODEV ?
		       -ENOSYS : fd;
	ret = sframe_dev_register(fd, sframe, sframe_len, text_start, text_end);
	close(fd);
	return ret == -ENOTTY ? -ENOSYS : ret;
}

EXPORT int ustack_unregister(const void *sframe)
{
	int fd = sframe_dev_open(), ret;

	if (fd < 0)
		return fd == -ENOENT || fd == -ENXIO || fd == -ENODEV ?
		       -ENOSYS : fd;
	ret = sframe_dev_unregister(fd, sframe);
	close(fd);
	return ret == -ENOTTY ? -ENOSYS : ret;
}

static int bt_fd = -1;
static dev_t bt_rdev;

/* The cached descriptor, if it still is /dev/sframe; else a new one. */
static int bt_dev(void)
{
	int fd = __atomic_load_n(&bt_fd, __ATOMIC_ACQUIRE);
	struct stat st;

	if (fd >= 0 && !fstat(fd, &st) && S_ISCHR(st.st_mode) &&
	    st.st_rdev == bt_rdev)
		return fd;
	fd = sframe_dev_open();
	if (fd < 0)
		return fd;
	if (fstat(fd, &st) || !S_ISCHR(st.st_mode)) {
		close(fd);
		return -ENOSYS;
	}
	bt_rdev = st.st_rdev;
	/* A racing thread may leak one descriptor; never close a shared one. */
	__atomic_store_n(&bt_fd, fd, __ATOMIC_RELEASE);
	return fd;
}

/*
 * The ioctl as an inline system call, so that the walk's first frame is
 * this function (covered by our own .sframe and frame pointer) rather than
 * libc's ioctl wrapper.
 */
static inline long raw_ioctl(long fd, unsigned long req, void *arg)
{
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"((long)SYS_ioctl), "D"(fd), "S"(req), "d"(arg)
		     : "rcx", "r11", "memory");
	return ret;
}

/*
 * Async-signal-safe (see ustack.h): system calls and our own memory only.
 * It does not catch up with objects loaded since the last dlopen/dlclose:
 * that would allocate, and might start the helper.
 */
EXPORT __attribute__((noinline)) int ustack_backtrace(void **buffer, int size)
{
	void *caller = __builtin_return_address(0);
	uint64_t local[LOCAL_FRAMES + SKIP_SEARCH], *ips = local;
	size_t maplen = 0;
	struct ustack_self s;
	unsigned int want, first, n;
	long rc;
	int fd;

	if (size <= 0)
		return 0;
	if (!buffer) {
		errno = EINVAL;
		return -1;
	}
	fd = bt_dev();
	if (fd < 0) {
		errno = fd == -ENOENT || fd == -ENXIO || fd == -ENODEV ?
			ENOSYS : -fd;
		return -1;
	}
	want = (unsigned int)size < MAX_FRAMES ? (unsigned int)size :
	       MAX_FRAMES;
	if (want > LOCAL_FRAMES) {
		void *m;

		maplen = (want + SKIP_SEARCH) * sizeof(*ips);
		m = mmap(NULL, maplen, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) {
			maplen = 0;
			want = LOCAL_FRAMES;
		} else {
			ips = m;
		}
	}
	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.ips = (uintptr_t)ips;
	s.max_frames = want + SKIP_SEARCH;
	rc = raw_ioctl(fd, SFRAME_IOC_SELF_STACK, &s);
	if (rc < 0) {
		if (maplen)
			munmap(ips, maplen);
		errno = rc == -ENOTTY ? ENOSYS : (int)-rc;
		return -1;
	}
	n = s.nr_frames < s.max_frames ? s.nr_frames : s.max_frames;
	/*
	 * ips[0] is the IP in this function; then the return address into our
	 * caller, which is what backtrace(3) puts first.  Find it, so the
	 * result is right whatever the kernel reports above it.
	 */
	for (first = 0; first < n && first < SKIP_SEARCH; first++)
		if (ips[first] == (uintptr_t)caller)
			break;
	if (first == n || first == SKIP_SEARCH)
		first = n > 1 ? 1 : n;
	n -= first;
	if (n > want)
		n = want;
	for (unsigned int i = 0; i < n; i++)
		buffer[i] = (void *)(uintptr_t)ips[first + i];
	if (maplen)
		munmap(ips, maplen);
	return (int)n;
}
