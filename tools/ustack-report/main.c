// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: join samples to user stacks, symbolize, and print them
 * perf-script style, as folded stacks, as an SVG flame graph, as a
 * summary, as a pprof profile or as a speedscope file.  Input: a saved /dev/ustack stream (text or binary), standard
 * input, or /dev/ustack itself for --duration seconds.
 */
#include <errno.h>
#include <getopt.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report.h"

static void usage(FILE *f)
{
	fputs("usage: ustack-report [FORMAT] [options] [FILE | -]\n"
	      "       ustack-report --duration SECONDS [--device PATH] [--save FILE] [FORMAT] [options]\n"
	      "Join /dev/ustack samples to their user stacks by (tid, cookie),\n"
	      "symbolize them and write them in one FORMAT to standard output.\n"
	      "Text and binary streams are detected, and the text of the trace events\n"
	      "ustack:sample and ustack:user_stack (perf script, trace-cmd report,\n"
	      "trace_pipe), and perf script's text of perf's own samples with their\n"
	      "callchains; FILE - or none: standard input.\n"
	      "FORMAT:\n"
	      "  --perf              perf-script-like text (default)\n"
	      "  --folded            folded stacks: comm;outer;...;inner count\n"
	      "  --svg               SVG flame graph (search, zoom)\n"
	      "  --summary           counts: joins, end reasons, methods, objects, top\n"
	      "  --pprof             pprof profile.proto, gzipped (go tool pprof,\n"
	      "                      Pyroscope, Parca); one sample type per event\n"
	      "  --speedscope        speedscope JSON, one profile per event\n"
	      "Options:\n"
	      "  -v, --verbose       perf: cookie, end reason, frame methods, offsets\n"
	      "  -l, --lines         source file:line of user frames (debug info)\n"
	      "  --root DIR          prefix object paths with DIR (VM or chroot)\n"
	      "  --kallsyms FILE     kernel symbols for binary records and trace events\n"
	      "                      (default with --duration: /proc/kallsyms)\n"
	      "  --event NAME        only samples of event NAME (ending in ':': prefix)\n"
	      "  --pid PID[,PID...]  only samples of these processes (repeatable)\n"
	      "  --tid TID[,TID...]  only samples of these threads (repeatable)\n"
	      "  --comm NAME[,NAME...]  only samples whose comm is one of these\n"
	      "                      (repeatable; filters of different kinds combine)\n"
	      "  --duration SECONDS  record live from the device for SECONDS\n"
	      "  --device PATH       with --duration: the device (default /dev/ustack)\n"
	      "  --save FILE         with --duration: keep the raw stream too\n"
	      "  --title TEXT        SVG title, speedscope profile name\n"
	      "  --width PIXELS      SVG width\n"
	      "  -h, --help          this help\n"
	      "Exit status: 0, 1 on errors, 2 on usage errors.\n"
	      "Run as root (sudo), it opens its input, the device, kallsyms and the\n"
	      "recorded objects (regular files only, no symlink at the end), then\n"
	      "drops to SUDO_UID/SUDO_GID (else nobody) before parsing any ELF or\n"
	      "DWARF: the objects are whatever the recorded users mapped.\n", f);
}

/*
 * Root reads object files that any user may have written: crafted ELF or
 * DWARF meets libelf and libdw with the rights of the invoking user
 * (sudo's SUDO_UID/SUDO_GID), else of nobody; never as root.
 */
static void drop_privileges(void)
{
	const char *su = getenv("SUDO_UID"), *sg = getenv("SUDO_GID");
	uid_t uid = 65534;
	gid_t gid = 65534;
	char *e1 = NULL, *e2 = NULL;
	int from_sudo = 0;

	if (geteuid() != 0 && getuid() != 0)
		return;
	if (su && sg && *su && *sg) {
		unsigned long u = strtoul(su, &e1, 10), g = strtoul(sg, &e2, 10);

		if (!*e1 && !*e2 && u && g && u < 0xffffffffu && g < 0xffffffffu) {
			uid = u;
			gid = g;
			from_sudo = 1;
		}
	}
	if (!from_sudo) {
		struct passwd *pw = getpwnam("nobody");

		if (pw) {
			uid = pw->pw_uid;
			gid = pw->pw_gid;
		}
	}
	if (setgroups(1, &gid) || setgid(gid) || setuid(uid))
		die("cannot drop privileges to uid %u gid %u: %s",
		    (unsigned int)uid, (unsigned int)gid, strerror(errno));
	if (!setuid(0))
		die("privileges not dropped");
}

static char *read_all(FILE *in, const char *name, size_t *len)
{
	size_t cap = 1 << 16, n = 0, got;
	char *buf = xrealloc(NULL, cap + 1);

	while ((got = fread(buf + n, 1, cap - n, in)) > 0) {
		n += got;
		if (n == cap) {
			cap *= 2;
			buf = xrealloc(buf, cap + 1);
		}
	}
	if (ferror(in))
		die("%s: %s", name, strerror(errno));
	buf[n] = '\0';
	*len = n;
	return buf;
}

enum { O_ROOT = 256, O_KALLSYMS, O_EVENT, O_DURATION, O_DEVICE, O_SAVE,
	O_TITLE, O_WIDTH, O_PID, O_TID, O_COMM };

/* What the command line asks for. */
struct args {
	int mode;		/* the FORMAT option's letter: 'p', 'f', ... */
	struct out_opts oo;
	struct sym_opts so;
	const char *kallsyms, *event, *dev, *save, *file;
	double duration;	/* > 0: record live */
	uint64_t until_ns;	/* a live recording's end, else 0 */
};

/* A filter option (--pid, --tid, --comm): 0, or 2 on a bad value. */
static int filter_arg(int c, const char *arg)
{
	const char *name = c == O_PID ? "pid" : c == O_TID ? "tid" : "comm";

	if (filter_add(c == O_PID ? FILTER_PID :
		       c == O_TID ? FILTER_TID : FILTER_COMM, arg)) {
		warnx_("--%s: bad value '%s'", name, arg);
		return 2;
	}
	return 0;
}

/* One option @c into @a: 0, or -1 for one not of the table. */
static int option(struct args *a, int c, const char *arg)
{
	switch (c) {
	case 'v':
		a->oo.verbose = 1;
		break;
	case 'l':
		a->oo.lines = a->so.lines = 1;
		break;
	case O_ROOT:
		a->so.root = arg;
		break;
	case O_KALLSYMS:
		a->kallsyms = arg;
		break;
	case O_EVENT:
		a->event = *arg ? arg : NULL;
		break;
	case O_DURATION:
		a->duration = strtod(arg, NULL);
		if (!(a->duration > 0))
			die("--duration: positive seconds expected");
		break;
	case O_DEVICE:
		a->dev = arg;
		break;
	case O_SAVE:
		a->save = arg;
		break;
	case O_TITLE:
		a->oo.title = arg;
		break;
	case O_WIDTH:
		a->oo.width = atoi(arg);
		break;
	default:
		return -1;
	}
	return 0;
}

/* The command line into @a: -1 to go on, else the exit status. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option lo[] = {
		{ "perf", no_argument, NULL, 'p' },
		{ "folded", no_argument, NULL, 'f' },
		{ "svg", no_argument, NULL, 's' },
		{ "summary", no_argument, NULL, 'S' },
		{ "pprof", no_argument, NULL, 'P' },
		{ "speedscope", no_argument, NULL, 'J' },
		{ "pid", required_argument, NULL, O_PID },
		{ "tid", required_argument, NULL, O_TID },
		{ "comm", required_argument, NULL, O_COMM },
		{ "verbose", no_argument, NULL, 'v' },
		{ "lines", no_argument, NULL, 'l' },
		{ "root", required_argument, NULL, O_ROOT },
		{ "kallsyms", required_argument, NULL, O_KALLSYMS },
		{ "event", required_argument, NULL, O_EVENT },
		{ "duration", required_argument, NULL, O_DURATION },
		{ "device", required_argument, NULL, O_DEVICE },
		{ "save", required_argument, NULL, O_SAVE },
		{ "title", required_argument, NULL, O_TITLE },
		{ "width", required_argument, NULL, O_WIDTH },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "vlh", lo, NULL)) != -1) {
		switch (c) {
		case 'p': case 'f': case 's': case 'S': case 'P': case 'J':
			a->mode = c;
			break;
		case O_PID: case O_TID: case O_COMM:
			if (filter_arg(c, optarg))
				return 2;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			if (option(a, c, optarg)) {
				usage(stderr);
				return 2;
			}
		}
	}
	if (optind < argc)
		a->file = argv[optind++];
	if (optind < argc || (a->file && a->duration > 0)) {
		usage(stderr);
		return 2;
	}
	return -1;
}

/* The stream: recorded live, or read from FILE or standard input. */
static char *read_input(struct args *a, size_t *len)
{
	FILE *in;
	char *buf;

	if (a->duration > 0) {
		if (!a->kallsyms)
			a->kallsyms = "/proc/kallsyms";
		return live_read(a->dev, a->duration, len, a->save,
				 &a->until_ns);
	}
	if (!a->file || !strcmp(a->file, "-"))
		return read_all(stdin, "stdin", len);
	in = fopen(a->file, "rb");
	if (!in)
		die("%s: %s", a->file, strerror(errno));
	buf = read_all(in, a->file, len);
	fclose(in);
	return buf;
}

/*
 * Records from the stream, filtered, joined and symbolized: the files are
 * opened as root, ELF and DWARF parsed after drop_privileges().
 */
static void prepare(struct recs *r, struct join_stats *js,
		    const struct args *a, char *buf, size_t len)
{
	parse_buffer(r, buf, len);
	if (a->until_ns)
		filter_until(r, a->until_ns);
	if (a->event)
		filter_event(r, a->event);
	filter_apply(r);
	join_records(r, js);
	interp_join(r);
	if (a->kallsyms && ksyms_load(a->kallsyms))
		warnx_("%s: no usable kernel symbols", a->kallsyms);
	ksyms_resolve(r);
	symbolize_init(&a->so);
	symbolize_open(r);
	drop_privileges();
	symbolize_all(r);
	perfmap_resolve(r);
}

static void output(const struct args *a, const struct recs *r,
		   const struct join_stats *js)
{
	switch (a->mode) {
	case 'f':
		output_folded(stdout, r, &a->oo);
		break;
	case 's':
		output_svg(stdout, r, &a->oo);
		break;
	case 'S':
		output_summary(stdout, r, js, &a->oo);
		break;
	case 'P':
		output_pprof(stdout, r, &a->oo);
		break;
	case 'J':
		output_speedscope(stdout, r, &a->oo);
		break;
	default:
		output_perf(stdout, r, &a->oo);
	}
}

int main(int argc, char **argv)
{
	struct args a = { .mode = 'p', .dev = "/dev/ustack", .duration = -1 };
	struct recs r = { 0 };
	struct join_stats js = { 0 };
	size_t len;
	char *buf;
	int ret;

	ret = parse_args(argc, argv, &a);
	if (ret >= 0)
		return ret;
	/* a terminal is no place for gzip bytes */
	if (a.mode == 'P' && isatty(STDOUT_FILENO))
		die("--pprof writes binary data: redirect standard output");
	if (a.duration <= 0 && !a.file && isatty(STDIN_FILENO)) {
		usage(stderr);
		return 2;
	}
	buf = read_input(&a, &len);
	prepare(&r, &js, &a, buf, len);
	output(&a, &r, &js);
	if (fflush(stdout) || ferror(stdout))
		die("write error");
	return 0;
}
