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

#include "ur.h"
#include "../../include/uapi/ustack.h"

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

char *live_read(const char *dev, double seconds, size_t *len, const char *save)
{
	size_t cap = 1 << 20, n = 0;
	char *buf = xrealloc(NULL, cap + 1);
	__u32 fmt = USTACK_FORMAT_BINARY;
	double end = now() + seconds;
	struct sigaction sa;
	FILE *sf = NULL;
	struct stat st;
	int fd, eof_ends, eof = 0, binary = 1;
	size_t scanned = 0;
	double next_refresh = now() + 1;

	fd = open(dev, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st))
		die("%s: %s", dev, strerror(errno));
	/* a file or pipe standing in for the device ends at end of file */
	eof_ends = !S_ISCHR(st.st_mode);
	if (ioctl(fd, USTACK_IOC_SET_FORMAT, &fmt)) {
		binary = -1;	/* as its first bytes say (a stand-in file) */
		if (!eof_ends)
			warnx_("%s: binary format refused (%s); reading text",
			       dev, strerror(errno));
	}
	if (save) {
		sf = fopen(save, "w");
		if (!sf)
			die("%s: %s", save, strerror(errno));
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	for (;;) {
		double left = end - now();
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		ssize_t got;
		int ready;

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
		for (;;) {
			if (cap - n < 65536) {
				cap *= 2;
				buf = xrealloc(buf, cap + 1);
			}
			got = read(fd, buf + n, cap - n);
			eof = got == 0 && eof_ends;
			if (got <= 0)
				break;
			if (sf)
				fwrite(buf + n, 1, got, sf);
			n += got;
		}
		if (got < 0 && errno != EAGAIN && errno != EINTR)
			die("read %s: %s", dev, strerror(errno));
		/* New processes' maps at once; all of them again each second. */
		if (binary < 0 && n >= 8)
			binary = (unsigned char)buf[0] < 0x20 && buf[1] == 0;
		if (binary > 0)
			scanned = perfmap_scan(buf, scanned, n);
		if (now() > next_refresh) {
			perfmap_refresh();
			next_refresh = now() + 1;
		}
		if (eof)
			break;
	}
	close(fd);
	perfmap_refresh();
	if (sf)
		perfmap_save(sf, binary > 0);
	if (sf && fclose(sf))
		die("%s: write error", save);
	buf[n] = '\0';
	*len = n;
	return buf;
}
