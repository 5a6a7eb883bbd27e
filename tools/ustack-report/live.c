// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: record live from /dev/ustack for a given time, in binary
 * format (USTACK_IOC_SET_FORMAT); ^C stops early.  Then drain what is
 * still coming (up to a second).  Whatever the device gives is kept as is;
 * parse.c tells text from binary.  Meanwhile the perf maps of processes
 * with frames in anonymous memory are read while they run (perfmap.c),
 * and appended to the saved stream.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "report.h"
#include "uapi/ustack.h"

#define DRAIN_MS	100	/* quiet time that ends the drain */
#define DRAIN_MAX_S	1.0	/* longest drain */

static volatile sig_atomic_t stop;

static void on_sig(int sig)
{
	stop = 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * What has been read so far, and where a copy goes (--save); whether it
 * is binary (-1: as its first bytes will say), how much of it was looked
 * at for processes with a perf map, when all maps are read again.
 */
struct rec_buf {
	char *buf;
	size_t n, cap;
	FILE *save;
	int binary;
	size_t scanned;
	double next_refresh;
};

/*
 * Read what the device has now into @rb.  Returns 1 at the end of a file
 * or pipe standing in for the device, else 0.
 */
static int drain_now(int fd, const char *dev, struct rec_buf *rb, int eof_ends)
{
	ssize_t got;

	for (;;) {
		if (rb->cap - rb->n < 65536) {
			rb->cap *= 2;
			rb->buf = xrealloc(rb->buf, rb->cap + 1);
		}
		got = read(fd, rb->buf + rb->n, rb->cap - rb->n);
		if (got <= 0)
			break;
		if (rb->save)
			fwrite(rb->buf + rb->n, 1, got, rb->save);
		rb->n += got;
	}
	if (got < 0 && errno != EAGAIN && errno != EINTR)
		die("read %s: %s", dev, strerror(errno));
	return got == 0 && eof_ends;
}

/*
 * The device (or a stand-in) in packed binary format, and ^C caught.  A
 * module loaded before this one was installed (a package upgrade without
 * a reboot) may know only the unpacked form.
 */
static int open_device(const char *dev, int *eof_ends, int *binary)
{
	__u32 fmt = USTACK_FORMAT_PACKED, unpacked = USTACK_FORMAT_BINARY;
	struct sigaction sa;
	struct stat st;
	int fd;

	fd = open(dev, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", dev, strerror(errno));
	/* a file or pipe standing in for the device ends at end of file */
	*eof_ends = !S_ISCHR(st.st_mode);
	*binary = 1;
	if (ioctl(fd, USTACK_IOC_SET_FORMAT, &fmt) &&
	    ioctl(fd, USTACK_IOC_SET_FORMAT, &unpacked)) {
		*binary = -1;	/* as its first bytes say (a stand-in file) */
		if (!*eof_ends)
			warnx_("%s: binary format refused (%s); reading text",
			       dev, strerror(errno));
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	return fd;
}

/* New processes' maps at once; all of them again each second. */
static void perfmap_step(struct rec_buf *rb)
{
	if (rb->binary < 0 && rb->n >= 8)
		rb->binary = (unsigned char)rb->buf[0] < 0x20 && rb->buf[1] == 0;
	if (rb->binary > 0)
		rb->scanned = perfmap_scan(rb->buf, rb->scanned, rb->n);
	if (now() > rb->next_refresh) {
		perfmap_refresh();
		rb->next_refresh = now() + 1;
	}
}

char *live_read(const char *dev, double seconds, size_t *len, const char *save,
		uint64_t *until_ns)
{
	struct rec_buf rb = { .cap = 1 << 20 };
	double end = now() + seconds;
	int fd, eof_ends;

	rb.buf = xrealloc(NULL, rb.cap + 1);
	rb.next_refresh = now() + 1;
	fd = open_device(dev, &eof_ends, &rb.binary);
	if (save) {
		rb.save = fopen(save, "w");
		if (!rb.save)
			die("%s: %s", save, strerror(errno));
	}
	for (;;) {
		double left = end - now();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		int ready, ended;

		/*
		 * At the end (or on ^C), keep reading while records still come
		 * within DRAIN_MS: the user records of the last samples are
		 * written when those tasks return to user space.
		 */
		if (stop || left <= 0) {
			if (now() > end + DRAIN_MAX_S)
				break;
			ready = poll(&pfd, 1, DRAIN_MS);
			if (ready == 0)
				break;
		} else {
			ready = poll(&pfd, 1, left > 0.2 ? 200 :
				     (int)(left * 1000) + 1);
		}
		if (ready < 0) {
			if (errno == EINTR)
				continue;
			die("poll %s: %s", dev, strerror(errno));
		}
		if (stop && end > now())
			end = now();
		ended = drain_now(fd, dev, &rb, eof_ends);
		perfmap_step(&rb);
		if (ended)
			break;
	}
	close(fd);
	perfmap_refresh();
	if (rb.save)
		perfmap_save(rb.save, rb.binary > 0);
	if (rb.save && fclose(rb.save))
		die("%s: write error", save);
	rb.buf[rb.n] = '\0';
	*len = rb.n;
	*until_ns = (uint64_t)(end * 1e9);
	return rb.buf;
}
