// SPDX-License-Identifier: GPL-2.0
/*
 * Readers that race, for the VM tests (stream-readers.sh):
 *   stream_readers SECS
 * for SECS seconds, at once:
 *   - two threads share one fd in text mode: every byte they get must be
 *     printable ASCII or a newline (a torn reader state copies kernel
 *     memory past the rendered text);
 *   - two threads share one fd in binary mode, each with a buffer just
 *     over one sample record, guarded by canary bytes: every record
 *     whole, never larger than the buffer, the canaries intact;
 *   - two more fds, one text reader each: every line of each stream in
 *     the grammar of the text records, every user record with as many
 *     frame lines as it says;
 *   - every blocking read waits for data: none returns 0 (end of file)
 *     while the stream is open.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <uapi/ustack.h>

#define DIE(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

static atomic_int stop;
static atomic_long bytes_text, records_bin, eofs;

struct job {
	int fd;
	int mode;		/* 0 shared text, 1 shared binary, 2 own text */
	char *log;		/* mode 2: everything read, in order */
	size_t log_len, log_cap;
};

static void check_bytes(const char *p, ssize_t n)
{
	for (ssize_t i = 0; i < n; i++) {
		unsigned char c = p[i];

		if (c != '\n' && (c < 0x20 || c > 0x7e))
			DIE("byte 0x%02x in the text stream", c);
	}
}

#define CANARY 0x5a
#define BIN_CAP (sizeof(struct ustack_rec_sample) + 64 * 8 + 8)

static void read_binary(int fd)
{
	unsigned char buf[BIN_CAP + 64];
	ssize_t n, off;

	memset(buf + BIN_CAP, CANARY, 64);
	n = read(fd, buf, BIN_CAP);
	for (int i = 0; i < 64; i++)
		if (buf[BIN_CAP + i] != CANARY)
			DIE("read wrote past its buffer (%zd bytes asked %zu)", n, BIN_CAP);
	if (n < 0 && errno == EINVAL)
		return;	/* the next record is larger than this buffer */
	if (n < 0)
		DIE("binary read: %s", strerror(errno));
	if (n == 0) {
		atomic_fetch_add(&eofs, 1);
		return;
	}
	for (off = 0; off < n; ) {
		struct ustack_rec_hdr *h = (void *)(buf + off);

		if (h->size < sizeof(*h) || h->size % 8 || off + h->size > n)
			DIE("torn binary record: size %u at %zd of %zd", h->size, off, n);
		off += h->size;
		atomic_fetch_add(&records_bin, 1);
	}
}

static void *reader(void *arg)
{
	struct job *j = arg;
	char buf[4096];
	ssize_t n;

	while (!atomic_load(&stop)) {
		if (j->mode == 1) {
			read_binary(j->fd);
			continue;
		}
		n = read(j->fd, buf, 1 + rand() % sizeof(buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			DIE("text read: %s", strerror(errno));
		if (n == 0) {
			atomic_fetch_add(&eofs, 1);
			continue;
		}
		check_bytes(buf, n);
		atomic_fetch_add(&bytes_text, n);
		if (j->mode == 2) {
			if (j->log_len + n > j->log_cap) {
				j->log_cap = (j->log_len + n) * 2;
				j->log = realloc(j->log, j->log_cap);
				if (!j->log)
					DIE("out of memory");
			}
			memcpy(j->log + j->log_len, buf, n);
			j->log_len += n;
		}
	}
	return NULL;
}

/* One text stream, in order: records whole, lines in the grammar. */
static void check_stream(struct job *j)
{
	char *p = j->log, *end = j->log + j->log_len, *nl;
	long frames_left = 0, records = 0;

	/* The last record may be cut where the readers stopped. */
	while (p < end && (nl = memchr(p, '\n', end - p))) {
		*nl = 0;
		if (!strncmp(p, "    kernel 0x", 13) || !strncmp(p, "    user 0x", 11)) {
			if (p[4] == 'u' && frames_left-- <= 0)
				DIE("a user frame line too many: '%s'", p);
		} else if (!strncmp(p, "sample cookie=0x", 16) ||
			   !strncmp(p, "lost samples=", 13)) {
			if (frames_left)
				DIE("record before %ld frame lines: '%s'", frames_left, p);
			records++;
		} else if (!strncmp(p, "user cookie=0x", 14)) {
			char *f = strstr(p, " frames=");

			if (frames_left || !f)
				DIE("bad user record line: '%s'", p);
			frames_left = atol(f + 8);
			records++;
		} else {
			DIE("a line outside the grammar: '%s'", p);
		}
		p = nl + 1;
	}
	printf("stream of fd %d: %ld records\n", j->fd, records);
	if (!records)
		DIE("fd %d read no record", j->fd);
}

int main(int argc, char **argv)
{
	struct job jobs[6];
	pthread_t th[6];
	int fds[4], binary = USTACK_FORMAT_BINARY;
	double secs = argc > 1 ? atof(argv[1]) : 2;
	struct timespec ts = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

	for (int i = 0; i < 4; i++) {
		fds[i] = open("/dev/ustack", O_RDONLY);
		if (fds[i] < 0)
			DIE("open: %s", strerror(errno));
	}
	if (ioctl(fds[1], USTACK_IOC_SET_FORMAT, &binary))
		DIE("SET_FORMAT: %s", strerror(errno));
	for (int i = 0; i < 6; i++) {
		memset(&jobs[i], 0, sizeof(jobs[i]));
		jobs[i].fd = i < 4 ? fds[i / 2] : fds[i - 2];
		jobs[i].mode = i < 2 ? 0 : i < 4 ? 1 : 2;
		if (pthread_create(&th[i], NULL, reader, &jobs[i]))
			DIE("pthread_create");
	}
	nanosleep(&ts, NULL);
	atomic_store(&stop, 1);
	/* Blocked readers wake with the next records (sampling goes on). */
	for (int i = 0; i < 6; i++)
		pthread_join(th[i], NULL);
	printf("text bytes %ld, binary records %ld, reads that returned 0: %ld\n",
	       atomic_load(&bytes_text), atomic_load(&records_bin),
	       atomic_load(&eofs));
	if (atomic_load(&eofs))
		DIE("a blocking read returned 0 while the stream was open");
	if (!atomic_load(&records_bin))
		DIE("no binary record read");
	check_stream(&jobs[4]);
	check_stream(&jobs[5]);
	return 0;
}
