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

#include "ur.h"

static void usage(FILE *f)
{
	fputs("usage: ustack-report [FORMAT] [options] [FILE | -]\n"
	      "       ustack-report --duration SECONDS [--device PATH] [--save FILE] [FORMAT] [options]\n"
	      "Join /dev/ustack samples to their user stacks by (tid, cookie),\n"
	      "symbolize them and write them in one FORMAT to standard output.\n"
	      "Text and binary streams are detected, and the text of the trace events\n"
	      "ustack:sample and ustack:user_stack (perf script, trace-cmd report,\n"
	      "trace_pipe); FILE - or none: standard input.\n"
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

int main(int argc, char **argv)
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
	struct out_opts oo = { 0 };
	struct sym_opts so = { 0 };
	struct recs r = { 0 };
	struct join_stats js = { 0 };
	const char *kallsyms = NULL, *event = NULL, *dev = "/dev/ustack";
	const char *save = NULL, *file = NULL;
	double duration = -1;
	int mode = 'p', c;
	size_t len;
	char *buf;

	while ((c = getopt_long(argc, argv, "vlh", lo, NULL)) != -1) {
		switch (c) {
		case 'p': case 'f': case 's': case 'S': case 'P': case 'J':
			mode = c;
			break;
		case O_PID: case O_TID: case O_COMM:
			if (filter_add(c == O_PID ? FILTER_PID :
				       c == O_TID ? FILTER_TID : FILTER_COMM,
				       optarg)) {
				warnx_("--%s: bad value '%s'", c == O_PID ? "pid" :
				       c == O_TID ? "tid" : "comm", optarg);
				return 2;
			}
			break;
		case 'v':
			oo.verbose = 1;
			break;
		case 'l':
			oo.lines = so.lines = 1;
			break;
		case O_ROOT:
			so.root = optarg;
			break;
		case O_KALLSYMS:
			kallsyms = optarg;
			break;
		case O_EVENT:
			event = *optarg ? optarg : NULL;
			break;
		case O_DURATION:
			duration = strtod(optarg, NULL);
			if (!(duration > 0))
				die("--duration: positive seconds expected");
			break;
		case O_DEVICE:
			dev = optarg;
			break;
		case O_SAVE:
			save = optarg;
			break;
		case O_TITLE:
			oo.title = optarg;
			break;
		case O_WIDTH:
			oo.width = atoi(optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc)
		file = argv[optind++];
	if (optind < argc || (file && duration > 0)) {
		usage(stderr);
		return 2;
	}

	/* a terminal is no place for gzip bytes */
	if (mode == 'P' && isatty(STDOUT_FILENO))
		die("--pprof writes binary data: redirect standard output");

	if (duration > 0) {
		buf = live_read(dev, duration, &len, save);
		if (!kallsyms)
			kallsyms = "/proc/kallsyms";
	} else if (!file && isatty(STDIN_FILENO)) {
		usage(stderr);
		return 2;
	} else if (!file || !strcmp(file, "-")) {
		buf = read_all(stdin, "stdin", &len);
	} else {
		FILE *in = fopen(file, "rb");

		if (!in)
			die("%s: %s", file, strerror(errno));
		buf = read_all(in, file, &len);
		fclose(in);
	}

	parse_buffer(&r, buf, len);
	if (event)
		filter_event(&r, event);
	filter_apply(&r);
	join_records(&r, &js);
	interp_join(&r);
	if (kallsyms && ksyms_load(kallsyms))
		warnx_("%s: no usable kernel symbols", kallsyms);
	ksyms_resolve(&r);
	symbolize_init(&so);
	symbolize_open(&r);
	drop_privileges();
	symbolize_all(&r);
	perfmap_resolve(&r);

	switch (mode) {
	case 'f':
		output_folded(stdout, &r, &oo);
		break;
	case 's':
		output_svg(stdout, &r, &oo);
		break;
	case 'S':
		output_summary(stdout, &r, &js, &oo);
		break;
	case 'P':
		output_pprof(stdout, &r, &oo);
		break;
	case 'J':
		output_speedscope(stdout, &r, &oo);
		break;
	default:
		output_perf(stdout, &r, &oo);
	}
	if (fflush(stdout) || ferror(stdout))
		die("write error");
	return 0;
}
