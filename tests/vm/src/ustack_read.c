// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/ustack from a program's side, for the VM tests:
 *   ustack_read perm          an unprivileged opener is refused
 *   ustack_read nonblock      O_NONBLOCK read on an empty stream: EAGAIN;
 *                             poll times out, then reports data
 *   ustack_read binary SECS   binary mode: every record well-formed, none
 *                             lost by a read that faults; prints the
 *                             count of each type
 *   ustack_read packed SECS   the same in packed mode
 *   ustack_read batched SECS  blocking reads return batches of records
 *   ustack_read text SECS     text reads of 4 KiB end between records
 *   ustack_read dump FILE [COMM]  packed records (FORMAT=binary: unpacked)
 *                             to FILE until SIGTERM; counts (COMM: that
 *                             command's user records, and those walked
 *                             through a signal frame)
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <uapi/ustack.h>

#define DIE(...) do { printf("FAIL: " __VA_ARGS__); printf("\n"); exit(1); } while (0)

/* In a child running as nobody: open must fail with @want. */
static void open_as_nobody(int want)
{
	int status, fd;
	pid_t pid = fork();

	if (pid == 0) {
		if (setgid(65534) || setuid(65534))
			DIE("setuid: %s", strerror(errno));
		fd = open("/dev/ustack", O_RDONLY);
		if (fd >= 0)
			DIE("an unprivileged user opened /dev/ustack");
		if (errno != want)
			DIE("open: %s, want %s", strerror(errno), strerror(want));
		printf("refused: %s\n", strerror(errno));
		exit(0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		exit(1);
}

static int perm(void)
{
	open_as_nobody(EACCES);		/* mode 0600 */
	if (chmod("/dev/ustack", 0666))
		DIE("chmod: %s", strerror(errno));
	open_as_nobody(EPERM);		/* the module's own capability check */
	chmod("/dev/ustack", 0600);
	return 0;
}

static int nonblock(void)
{
	char buf[4096];
	struct pollfd p;
	int fd = open("/dev/ustack", O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		DIE("open: %s", strerror(errno));
	if (read(fd, buf, sizeof(buf)) >= 0 || errno != EAGAIN)
		DIE("empty read: want EAGAIN, got %s", strerror(errno));
	p = (struct pollfd){ .fd = fd, .events = POLLIN };
	if (poll(&p, 1, 100) != 0)
		DIE("poll on an empty stream did not time out");
	/* A write(2) with syscalls=write makes a record. */
	if (write(1, "tick\n", 5) != 5)
		DIE("write");
	if (poll(&p, 1, 5000) != 1 || !(p.revents & POLLIN))
		DIE("poll did not report the record");
	if (read(fd, buf, sizeof(buf)) <= 0)
		DIE("read after poll: %s", strerror(errno));
	printf("nonblock ok\n");
	return 0;
}

/* A packed user stack well-formed: its arrays inside it, indexes in range. */
static bool packed_ok(const struct ustack_rec_user_packed *u)
{
	const __u64 *ips = (const void *)(u + 1);
	const struct ustack_object *o = (const void *)(ips + u->nr_frames);
	const __u16 *index = (const void *)(o + u->nr_objects);
	size_t need = sizeof(*u) + u->nr_frames * 11 + u->nr_objects * sizeof(*o) +
		      u->strtab_len;
	unsigned int i;

	if (need > u->hdr.size || u->end_reason >= USTACK_END_MAX ||
	    u->nr_objects > u->nr_frames)
		return false;
	for (i = 0; i < u->nr_frames; i++)
		if (index[i] >= u->nr_objects)
			return false;
	for (i = 0; i < u->nr_objects; i++)
		if (o[i].name >= u->strtab_len)
			return false;
	return true;
}

#define FAULT_SEEN	24	/* bytes of a record before the fault */

/*
 * A read into memory that faults after FAULT_SEEN bytes: -EFAULT, and
 * the record it began to copy stays for the next read.  Return: its
 * first bytes (@seen) were copied and are to be read again.
 */
static bool read_faulting(int fd, char *seen)
{
	static char *page;
	ssize_t n;

	if (!page) {
		page = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (page == MAP_FAILED || mprotect(page + 4096, 4096, PROT_NONE))
			DIE("mmap: %s", strerror(errno));
	}
	memset(page, 0xff, 4096);
	n = read(fd, page + 4096 - FAULT_SEEN, 4096);
	if (n >= 0 || (errno != EFAULT && errno != EAGAIN))
		DIE("a read that faults: %zd (%s)", n, strerror(errno));
	memcpy(seen, page + 4096 - FAULT_SEEN, FAULT_SEEN);
	return errno == EFAULT && seen[0] != (char)0xff;
}

static int binary(double secs, unsigned int fmt)
{
	static char buf[1 << 20];
	unsigned long counts[4] = { 0 }, bad = 0, orphans = 0, small = 0;
	unsigned long refaulted = 0;
	char seen[FAULT_SEEN];
	bool faulted;
	unsigned int user = fmt == USTACK_FORMAT_PACKED ? USTACK_REC_USER_PACKED :
							     USTACK_REC_USER;
	__u64 cookies[256] = { 0 };	/* the last samples' */
	struct timespec t0, t;
	int fd = open("/dev/ustack", O_RDONLY | O_NONBLOCK);

	if (fd < 0)
		DIE("open: %s", strerror(errno));
	if (ioctl(fd, USTACK_IOC_SET_FORMAT, &fmt))
		DIE("USTACK_IOC_SET_FORMAT: %s", strerror(errno));
	fmt = 7;
	if (ioctl(fd, USTACK_IOC_SET_FORMAT, &fmt) == 0 || errno != EINVAL)
		DIE("format 7 accepted");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		/*
		 * A read too small for any record: refused, and the record
		 * waits for the next read (unpacked: popped already).
		 */
		ssize_t n = read(fd, buf, 16), off = 0;

		if (n >= 0 || (errno != EINVAL && errno != EAGAIN))
			DIE("a 16-byte read: %zd (%s)", n, strerror(errno));
		small += errno == EINVAL;
		faulted = read_faulting(fd, seen);
		n = read(fd, buf, sizeof(buf));
		if (faulted && n >= FAULT_SEEN) {
			if (memcmp(buf, seen, FAULT_SEEN))
				DIE("a read that faulted lost its record");
			refaulted++;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
		if (n < 0 && errno == EAGAIN) {
			if (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 > secs)
				break;
			usleep(10000);
			continue;
		}
		if (n < 0)
			DIE("read: %s", strerror(errno));
		while (off < n) {
			struct ustack_rec_hdr *h = (void *)(buf + off);

			if (n - off < (ssize_t)sizeof(*h) || h->size < sizeof(*h) ||
			    h->size % 8 || h->size > n - off ||
			    (h->type != user && h->type != USTACK_REC_SAMPLE &&
			     h->type != USTACK_REC_LOST)) {
				bad++;
				break;
			}
			/* A user record's cookie: a sample's before it (none lost). */
			if (h->type == user) {
				__u64 c = ((struct ustack_rec_user *)h)->cookie;
				unsigned int i;

				for (i = 0; i < 256 && cookies[i] != c; i++)
					;
				orphans += i == 256;
			}
			if (h->type == USTACK_REC_USER_PACKED && !packed_ok((void *)h))
				bad++;
			if (h->type == USTACK_REC_USER) {
				struct ustack_rec_user *u = (void *)h;
				size_t need = sizeof(*u) + u->nr_frames * sizeof(struct ustack_frame) + u->strtab_len;

				if (need > h->size || u->end_reason >= USTACK_END_MAX)
					bad++;
			}
			if (h->type == USTACK_REC_SAMPLE) {
				struct ustack_rec_sample *s = (void *)h;

				if (sizeof(*s) + s->nr_kernel * 8 != h->size)
					bad++;
				cookies[counts[1] % 256] = s->cookie;
			}
			counts[h->type == user ? 2 : h->type]++;
			off += h->size;
		}
	}
	printf("samples=%lu users=%lu lost=%lu bad=%lu orphans=%lu small_refused=%lu refaulted=%lu\n",
	       counts[1], counts[2], counts[3], bad, orphans, small, refaulted);
	/*
	 * A walk asked for in an earlier reader's session is delivered into
	 * this one when its task comes back to user space: an orphan or two.
	 * A record lost by a read would make dozens.
	 */
	if (bad || !counts[1] || !counts[2] || !small || !refaulted ||
	    (orphans > 2 && !counts[3]))
		DIE("binary stream");
	return 0;
}

/*
 * Blocking reads for SECS seconds of a stream of about 1000 records a
 * second: wake-ups come in batches, so a read returns several records.
 */
static int batched(double secs)
{
	static char buf[1 << 20];
	unsigned long reads = 0, records = 0;
	struct timespec t0, t;
	int fd = open("/dev/ustack", O_RDONLY);
	unsigned int fmt = USTACK_FORMAT_BINARY;

	if (fd < 0 || ioctl(fd, USTACK_IOC_SET_FORMAT, &fmt))
		DIE("batched: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		ssize_t n = read(fd, buf, sizeof(buf)), off = 0;

		if (n <= 0)
			DIE("batched read: %s", n ? strerror(errno) : "EOF");
		reads++;
		while (off < n) {
			records++;
			off += ((struct ustack_rec_hdr *)(buf + off))->size;
		}
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("batched reads=%lu records=%lu\n", reads, records);
	if (records < 100 || records < 4 * reads)
		DIE("blocking reads got %lu records in %lu reads: not batched", records, reads);
	return 0;
}

/*
 * Text reads into a 4 KiB buffer for SECS seconds: each ends between two
 * records (at a line end, the next read starting a record's first line,
 * which is not indented), unless it holds one record too long to fit.
 */
static int text(double secs)
{
	static char buf[4096];
	unsigned long reads = 0, records = 0, split = 0;
	struct timespec t0, t;
	int fd = open("/dev/ustack", O_RDONLY), prev_starts = 0;
	bool prev_nl = true;

	if (fd < 0)
		DIE("text: %s", strerror(errno));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		ssize_t n = read(fd, buf, sizeof(buf));
		int starts = 0;

		if (n <= 0)
			DIE("text read: %s", n ? strerror(errno) : "EOF");
		/* the previous read ended inside a record */
		if (!prev_nl || buf[0] == ' ') {
			if (prev_starts != 1)
				DIE("text: read %lu ends inside a record after %d others",
				    reads, prev_starts - 1);
			split++;
		}
		for (ssize_t i = 0; i < n; i++)
			starts += (i == 0 || buf[i - 1] == '\n') && buf[i] != ' ';
		records += starts;
		prev_starts = starts;
		prev_nl = buf[n - 1] == '\n';
		reads++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (t.tv_sec - t0.tv_sec + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("text reads=%lu records=%lu split=%lu\n", reads, records, split);
	if (records < 100 || records <= reads)
		DIE("text: %lu records in %lu reads: too few to tell", records, reads);
	return 0;
}

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	stop = sig;
}

/*
 * The processes whose samples name a command starting with @comm: their
 * user records are counted, and those walked through a signal frame (the
 * sample came while a signal handler ran: for an interpreter under the
 * shim, its answering handler).
 */
#define DUMP_PIDS 256
static __u32 dump_pids[DUMP_PIDS];
static unsigned int nr_dump_pids;

static void dump_note_sample(const struct ustack_rec_sample *s, const char *comm)
{
	unsigned int i;

	if (!comm || strncmp(s->comm, comm, strlen(comm)))
		return;
	for (i = 0; i < nr_dump_pids; i++)
		if (dump_pids[i] == s->pid)
			return;
	if (nr_dump_pids < DUMP_PIDS)
		dump_pids[nr_dump_pids++] = s->pid;
}

/*
 * 0: not a watched process; else 1 (watched), | 2 (under a signal frame),
 * | 4 (complete: the walk reached the outermost frame).
 */
static int dump_user(const struct ustack_rec_user_packed *u)
{
	const struct ustack_frame *f = (const void *)(u + 1);
	const __u64 *ips = (const void *)(u + 1);
	const __u8 *methods = (const __u8 *)(ips + u->nr_frames) +
			      u->nr_objects * sizeof(struct ustack_object) +
			      u->nr_frames * sizeof(__u16);
	bool packed = u->hdr.type == USTACK_REC_USER_PACKED;
	unsigned int i;
	int k = 1;

	/* Their first fields are the same. */
	for (i = 0; i < nr_dump_pids && dump_pids[i] != u->pid; i++)
		;
	if (i == nr_dump_pids)
		return 0;
	for (i = 0; i < u->nr_frames; i++)
		if ((packed ? methods[i] : f[i].method) == USTACK_METHOD_SIGNAL)
			k |= 2;
	if (u->end_reason == USTACK_END_OUTERMOST)
		k |= 4;
	return k;
}

/*
 * Binary records to FILE until SIGTERM; prints samples and bytes, and
 * with COMM the user records of that command, those under a signal and
 * those complete.
 */
static int dump(const char *path, const char *comm)
{
	static char buf[1 << 20];
	const char *f = getenv("FORMAT");
	unsigned int fmt = f && !strcmp(f, "binary") ? USTACK_FORMAT_BINARY :
						     USTACK_FORMAT_PACKED;
	unsigned long samples = 0, bytes = 0, interps = 0, ibytes = 0, iframes = 0;
	unsigned long cusers = 0, csignal = 0, ccomplete = 0;
	int fd = open("/dev/ustack", O_RDONLY);
	FILE *out = fopen(path, "w");

	/* A module of an earlier revision (bench BENCH_B): unpacked only. */
	if (fd >= 0 && ioctl(fd, USTACK_IOC_SET_FORMAT, &fmt) && errno == EINVAL)
		fmt = USTACK_FORMAT_BINARY;
	if (fd < 0 || !out || ioctl(fd, USTACK_IOC_SET_FORMAT, &fmt))
		DIE("dump: %s", strerror(errno));
	/* No SA_RESTART: SIGTERM must end a read blocked on an idle stream. */
	struct sigaction sa = { .sa_handler = on_term };

	sigaction(SIGTERM, &sa, NULL);
	while (!stop) {
		ssize_t n = read(fd, buf, sizeof(buf)), off = 0;

		if (n <= 0)
			continue;
		fwrite(buf, 1, n, out);
		bytes += n;
		while (off < n) {
			struct ustack_rec_hdr *h = (void *)(buf + off);

			samples += h->type == USTACK_REC_SAMPLE;
			if (h->type == USTACK_REC_SAMPLE)
				dump_note_sample((void *)h, comm);
			if (h->type == USTACK_REC_USER ||
			    h->type == USTACK_REC_USER_PACKED) {
				int k = dump_user((void *)h);

				cusers += k > 0;
				csignal += !!(k & 2);
				ccomplete += !!(k & 4);
			}
			if (h->type == USTACK_REC_INTERP) {
				interps++;
				ibytes += h->size;
				iframes += ((struct ustack_rec_interp *)h)->nr_frames;
			}
			off += h->size;
		}
	}
	fclose(out);
	/* bytes= last: readers take it with a greedy match */
	printf("dump interps=%lu interp_bytes=%lu interp_frames=%lu comm_users=%lu comm_in_signal=%lu comm_complete=%lu samples=%lu bytes=%lu\n",
	       interps, ibytes, iframes, cusers, csignal, ccomplete, samples, bytes);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "perm"))
		return perm();
	if (argc == 2 && !strcmp(argv[1], "nonblock"))
		return nonblock();
	if ((argc == 3 || argc == 4) && !strcmp(argv[1], "dump"))
		return dump(argv[2], argc == 4 ? argv[3] : NULL);
	if (argc == 3 && !strcmp(argv[1], "batched"))
		return batched(atof(argv[2]));
	if (argc == 3 && !strcmp(argv[1], "binary"))
		return binary(atof(argv[2]), USTACK_FORMAT_BINARY);
	if (argc == 3 && !strcmp(argv[1], "packed"))
		return binary(atof(argv[2]), USTACK_FORMAT_PACKED);
	if (argc == 3 && !strcmp(argv[1], "text"))
		return text(atof(argv[2]));
	fprintf(stderr, "usage: ustack_read perm | nonblock | binary SECS | packed SECS | batched SECS | text SECS | dump FILE [COMM]\n");
	return 2;
}
