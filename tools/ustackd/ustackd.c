// SPDX-License-Identifier: GPL-2.0
/*
 * ustackd - give every process SFrame for the ELF objects it maps, through
 * the module's file-keyed store (SFRAME_IOC_STORE_*, include/uapi/ustack.h).
 *
 * At start: every executable file mapping of every process (scan.c); each
 * distinct object is covered once (cover.c): an object with its own
 * PT_GNU_SFRAME is left to the kernel's discovery; for the others, SFrame
 * generated from .eh_frame by tools/lib's generator is written to the
 * store (tools/lib/sframe_store.h, which root's shim shares) and
 * registered.  Generation runs in a child with bounded memory and time
 * (generate.c): a hostile object costs that child, never the daemon.
 * Then the module's miss queue (objects walked without unwind info) is
 * polled (misses.c), and every process scanned again now and then.
 *
 * This file: the options, the modes and the daemon's main loop.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <gelf.h>
#include "sframe_ioctl.h"
#include "ustackd.h"

/* With --rescan 0, how often the store's garbage is collected. */
#define GC_NO_RESCAN_MS	60000

static void on_signal(int sig)
{
	stopping = 1;
}

/*
 * Every process's maps again when due (or asked for: the miss queue
 * overflowed), then a pass of the store's garbage; with --rescan 0, that
 * pass alone every GC_NO_RESCAN_MS.  *@last: the last scan or pass.
 */
static void rescan(uint64_t now, uint64_t *last)
{
	if (rescan_wanted ||
	    (opt.rescan_s && now - *last >= (uint64_t)opt.rescan_s * 1000)) {
		/* cleared first: what overflows during the scan, a next one finds */
		rescan_wanted = false;
		scan_all();
	} else if (opt.rescan_s || now - *last < GC_NO_RESCAN_MS) {
		return;
	} else {
		scan_gen++;	/* no scans: what no miss met since the last pass */
	}
	gc_pass();
	*last = now;
}

static int run_daemon(void)
{
	uint64_t t0 = now_ms(), last_scan, last_status = 0;
	struct sigaction sa = { .sa_handler = on_signal };

	if (geteuid()) {
		logmsg("must run as root");
		return 1;
	}
	dev_fd = sframe_dev_open();
	if (dev_fd < 0) {
		logmsg("%s: %s%s", SFRAME_DEV, strerror(-dev_fd),
		       dev_fd == -ENOENT ? " (load the module: modprobe ustack)" : "");
		return 1;
	}
	registering = true;
	/* no SA_RESTART: a signal ends the sleep and the wait at once */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = sysprep_on_hup;		/* sysprep.c */
	sigaction(SIGHUP, &sa, NULL);
	/* misses queued before the scan are for objects the scan covers */
	if (!poll_misses())
		return 1;
	cover_vdso();
	cover_own();	/* own.c: ours first, then everyone's */
	scan_all();
	/* after the first scan: the entries in use are known */
	gc_pass();
	last_scan = now_ms();
	if (stopping)
		goto out;
	logmsg("%zu objects: %lu covered (%lu generated, %lu reused), %lu own .sframe, "
	       "%lu refused, in %llu ms", tab_used, cnt.covered, cnt.generated,
	       cnt.reused, cnt.own, cnt.refused, (unsigned long long)(now_ms() - t0));
	log_rss();
	write_status("ready");
	logmsg("ready");
	notify("READY=1\nSTATUS=ready: %lu objects covered", cnt.covered);
	sysprep_start();	/* the programs and libraries on disk, in the background */
	while (!stopping) {
		struct timespec ts = {
			opt.interval_ms / 1000, (opt.interval_ms % 1000) * 1000000
		};
		uint64_t now;

		if (!sysprep_step(opt.interval_ms))
			nanosleep(&ts, NULL);
		if (stopping)
			break;
		if (!poll_misses())
			return 1;
		now = now_ms();
		rescan(now, &last_scan);
		if (status_dirty && now - last_status >= 1000) {
			write_status("ready");
			last_status = now;
		}
	}
out:
	notify("STOPPING=1");
	sysprep_stop();
	write_status("stopped");
	/*
	 * Entries stay registered: the kernel keeps serving them without us,
	 * and the next ustackd replaces them (STORE_ADD of the same object).
	 * `ustackd --flush` or rmmod drops them.
	 */
	logmsg("stopped; %lu objects stay registered", cnt.covered);
	return 0;
}

static int run_prepare(int argc, char **argv)
{
	uint64_t t0 = now_ms();
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	cover_vdso();
	if (argc == 0) {
		scan_all();
	} else {
		for (int i = 0; i < argc && !stopping; i++)
			prepare_path(argv[i]);
	}
	logmsg("%zu objects: %lu prepared (%lu generated, %lu reused), %lu own .sframe, "
	       "%lu refused, in %llu ms", tab_used, cnt.prepared, cnt.generated,
	       cnt.reused, cnt.own, cnt.refused, (unsigned long long)(now_ms() - t0));
	log_rss();
	return stopping ? 1 : 0;
}

static int run_flush(void)
{
	int ret;

	dev_fd = sframe_dev_open();
	ret = dev_fd < 0 ? dev_fd : sframe_dev_store_flush(dev_fd);
	if (ret) {
		logmsg("%s: STORE_FLUSH: %s", SFRAME_DEV, strerror(-ret));
		return 1;
	}
	logmsg("every store entry dropped from the kernel");
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ustackd [--store DIR] [--interval MS] [--rescan SEC] [--no-system]\n"
		"               [--store-budget SIZE] [--user-budget SIZE] [-v]\n"
		"       ustackd --status [--store DIR]\n"
		"       ustackd --prepare [--store DIR] [--store-budget SIZE] [--user-budget SIZE]\n"
		"                 [PATH...]\n"
		"       ustackd --flush\n"
		"Give every process SFrame for the ELF objects it maps (as root, with\n"
		"the ustack module loaded): SFrame generated from .eh_frame into the\n"
		"store (default " STORE_DEFAULT "), registered with /dev/sframe\n"
		"for each object file.  Prints 'ustackd: ready' once every process\n"
		"running at its start is covered; SIGTERM or SIGINT stop it (entries\n"
		"stay registered).\n"
		"  --store DIR     the store: a root-owned directory, no symbolic link\n"
		"  --interval MS   how often the module's miss queue is read (100)\n"
		"  --rescan SEC    how often every process's maps are read (10; 0: never)\n"
		"  --no-system     do not cover the programs and libraries on disk\n"
		"                  (in the background, once ready; SIGHUP: again)\n"
		"  --store-budget SIZE  the most the store may hold with users' entries\n"
		"                  (K, M, G: 1024s; default: 2%% of its file system, at\n"
		"                  most 512M); the system's entries are never refused\n"
		"  --user-budget SIZE   the most one user's objects' entries may take\n"
		"                  (default: an eighth of the store's budget)\n"
		"  -v, --verbose   also log reused entries\n"
		"  --status        print what is covered and what was refused\n"
		"  --prepare       write the store's entries for the running processes,\n"
		"                  or for the files PATH (directories: their files),\n"
		"                  without registering them\n"
		"  --flush         drop every store entry from the kernel\n"
		"  -h, --help      this text\n");
}

enum mode { MODE_DAEMON, MODE_STATUS, MODE_PREPARE, MODE_FLUSH };

/* A number option in [@lo, @hi] into *@v; false if it is not one. */
static bool number_arg(const char *arg, long lo, long hi, long *v)
{
	char *end;

	*v = strtol(arg, &end, 10);
	return !*end && *v >= lo && *v <= hi;
}

/* The options into opt and *@mode: -1, or the exit status. */
static int parse_args(int argc, char **argv, enum mode *mode)
{
	static const struct option lo[] = {
		{ "store", required_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ "rescan", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "no-system", no_argument, NULL, 'N' },
		{ "store-budget", required_argument, NULL, 'B' },
		{ "user-budget", required_argument, NULL, 'U' },
		{ "status", no_argument, NULL, 'S' },
		{ "prepare", no_argument, NULL, 'P' },
		{ "flush", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c;

	while ((c = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			opt.store = optarg;
			break;
		case 'i':
			if (!number_arg(optarg, 10, 60000, &opt.interval_ms)) {
				logmsg("--interval: 10 to 60000 ms");
				return 2;
			}
			break;
		case 'r':
			if (!number_arg(optarg, 0, 86400, &opt.rescan_s)) {
				logmsg("--rescan: 0 to 86400 s");
				return 2;
			}
			break;
		case 'v':
			opt.verbose++;
			break;
		case 'N':
			sysprep_off = true;	/* sysprep.c */
			break;
		case 'B': case 'U':
			if (!budget_arg(optarg, c == 'B' ? &opt.store_budget :
					&opt.user_budget)) {
				logmsg("--%s: a size in bytes, K, M or G",
				       c == 'B' ? "store-budget" : "user-budget");
				return 2;
			}
			break;
		case 'S': case 'P': case 'F':
			*mode = c == 'S' ? MODE_STATUS :
				c == 'P' ? MODE_PREPARE : MODE_FLUSH;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc && *mode != MODE_PREPARE) {
		usage(stderr);
		return 2;
	}
	return -1;
}

int main(int argc, char **argv)
{
	enum mode mode = MODE_DAEMON;
	char err[256] = "";
	int ret;

	ret = parse_args(argc, argv, &mode);
	if (ret >= 0)
		return ret;
	setvbuf(stderr, NULL, _IOLBF, 0);
	if (mode == MODE_STATUS)
		return show_status();
	if (mode == MODE_FLUSH)
		return run_flush();
	elf_version(EV_CURRENT);
	store_fd = store_open(opt.store, err, sizeof(err));
	if (store_fd < 0) {
		logmsg("store refused: %s", err);
		return 1;
	}
	budget_init();
	sandbox_init();
	if (mode == MODE_PREPARE)
		return run_prepare(argc - optind, argv + optind);
	return run_daemon();
}
