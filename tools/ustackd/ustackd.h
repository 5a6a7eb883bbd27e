/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ustackd.h - what ustackd's files share.  One concept per file, each
 * calling only those below it:
 *   ustackd.c   the options, the modes (daemon, --prepare, --flush,
 *               --status) and the daemon's main loop
 *   own.c       ustack's own objects first: ustackd's, its tools'
 *   scan.c      every process's executable mappings (/proc), and
 *               --prepare's paths
 *   misses.c    the module's miss queue (objects walked without unwind info)
 *   gc.c        the store's garbage: the entries of objects gone, evicted
 *               or forgotten, unlinked, a bounded batch a pass
 *   cover.c     one object covered: from a mapping, examined, its store
 *               entry reused or generated, registered (STORE_ADD); the vDSO
 *   examine.c   the examining child: the file opened there (never by the
 *               daemon: /proc/PID/map_files/), what it is (the daemon never
 *               maps a user's file)
 *   generate.c  the limited children (bounded memory and time), and
 *               the generation child (its entry written by the daemon)
 *   budget.c    the store's byte budgets: a user's, the whole store's
 *   usertime.c  the daemon's time shared among users: one with slow
 *               objects waits, the others' are covered meanwhile
 *   sandbox.c   a limited child's privileges dropped before it reads a
 *               user's file: descriptors, uid, capabilities, seccomp
 *   status.c    the status file, --status, the log
 *   state.c     the options, descriptors, objects seen and counts
 * The generator, the store's rules and the /dev/sframe requests are
 * tools/lib's (shared with sframe-register and root's shim).
 */
#ifndef USTACKD_H
#define USTACKD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <linux/types.h>
#include "uapi/ustack.h"
#include "sframe_store.h"

/* Bounds: what one object, the table and the generator may cost. */
#define MAX_OBJ_SIZE	(1ull << 30)
#define MAX_PHDRS	4096
#ifndef MAX_OBJECTS	/* smaller in a test */
#define MAX_OBJECTS	65536
#endif
/*
 * Of those, users' objects (someone other than root may write them: a
 * user makes new ones at will): reaching this many forgets them all, so
 * that no user can fill the table and root's objects keep their room.
 */
#ifndef MAX_USER_OBJECTS
#define MAX_USER_OBJECTS	(MAX_OBJECTS / 2)
#endif
#define MAX_MAPS_LINES	100000
#define MAX_SECTIONS	65536
#define GEN_AS_LIMIT	(4ull << 30)
#define GEN_SECONDS	60
/* The examining child: the file mapped whole, libelf's tables beside it. */
#define EXAMINE_AS_LIMIT	(MAX_OBJ_SIZE + (512ull << 20))
#define EXAMINE_SECONDS	10
#define MISS_BATCH	64
/* A miss for an object registered longer ago than this registers it again. */
#define RECOVER_MS	10000

/* ---- state.c -------------------------------------------------------------- */

extern struct ustackd_opt {
	const char *store;
	long interval_ms, rescan_s;
	int verbose;
	/* --store-budget, --user-budget (budget.c); -1: the default */
	long long store_budget, user_budget;
} opt;
extern int store_fd, dev_fd;	/* the store's directory, /dev/sframe */
extern bool registering;	/* the daemon (not --prepare): STORE_ADD */
extern volatile sig_atomic_t stopping;	/* SIGTERM or SIGINT */
extern bool status_dirty;	/* the status file is behind */
extern uint64_t misses_dropped;	/* by the module's queue, in all */

uint64_t now_ms(void);		/* CLOCK_MONOTONIC, as the records' time= */

enum obj_state { OBJ_COVERED, OBJ_OWN, OBJ_REFUSED, OBJ_PREPARED };
extern const char *const state_names[];

struct obj {
	uint64_t dev, ino;	/* 0/0: free slot */
	uint8_t state;
	/*
	 * Keyed by the device the maps give, which is not stat's (btrfs:
	 * the superblock's, shared by its subvolumes, whose inode numbers
	 * are their own): it may name several files, and is trusted only
	 * for the path it was made for.
	 */
	bool alias;
	bool user;		/* an object someone other than root may write */
	bool mapper;		/* whose: the user of a process mapping it */
	uint64_t whose;		/* its user (whose.c), or its file's owner */
	uint32_t seen;		/* the scan (scan_gen) that last met it */
	uint64_t bytes;		/* its entry's, on disk (budget.c) */
	uint64_t when_ms;	/* of the last outcome */
	struct cache_src src;	/* the file as it was then */
	char *path;		/* as a process mapped it, for the logs */
	char *what;		/* store entry, or why refused */
};

/* The table (open addressing, a power of two), and the vDSO apart. */
extern struct obj *tab;
extern size_t tab_cap, tab_used, tab_users;
extern struct obj vdso_obj;
/* What happened to the objects (the log's and the status file's counts). */
extern struct ustackd_counts {
	unsigned long generated, reused, own, refused, prepared, covered;
	unsigned long superseded;	/* users' entries removed, replaced */
	unsigned long forgotten;	/* users' objects dropped from the table */
	unsigned long over_budget;	/* entries refused for the budget */
	unsigned long collected;	/* entries unlinked by gc.c */
	unsigned long over_time;	/* mappings left: their user's time used */
} cnt;
extern uint32_t scan_gen;	/* scans begun (scan_all()) */

struct obj *tab_find(uint64_t dev, uint64_t ino);
/*
 * A new slot for @dev/@ino (@user: a user's object), or NULL when the
 * table is full.  Moves the table: every struct obj * held is stale.
 */
struct obj *tab_add(uint64_t dev, uint64_t ino, bool user);
/* Forget @o (found by tab_find()).  Moves the table: every struct obj * is stale. */
void tab_del(struct obj *o);
/* Record @o's outcome (@what: its entry, or why it was refused). */
void set_state(struct obj *o, int state, const char *path, const char *what);

/* ---- cover.c, generate.c -------------------------------------------------- */

/* What is known of an object once examined. */
struct objinfo {
	bool own_sframe;
	char bid[129];
	char name[STORE_NAME_MAX];
	bool need_src;		/* entry keyed by identity: compare it */
	struct cache_src src;
	uint64_t room;		/* the most its entry may take (budget_room()) */
	bool has_py;		/* a CPython the kernel reads the frames of */
	struct ustack_python py;
	char py_why[96];	/* a CPython's version, and why it is not read */
};

/* What an entry is generated from: a file, or an image in memory. */
struct gen_src {
	int fd;
	size_t size;
	const void *mem;	/* or NULL: the file */
	uid_t owner;		/* the generation child's uid (sandbox_uid()) */
};

/*
 * Cover the object open as @fd: its entry reused or generated, then
 * registered (unless only preparing the store).  Records the outcome in
 * @o; @quiet_non_elf: a file that is not ELF at all is no refusal.
 */
void cover_fd(int fd, const struct stat *st, const char *path,
	      struct obj *o, bool quiet_non_elf);
/* The vDSO's entry, named by kernel release and build-id. */
void cover_vdso(void);
/*
 * One executable mapping [start, end) of @pid, of the object @dev/@ino
 * (@path as the maps say, or NULL; @miss: the module walked it without
 * unwind info).
 */
void cover_mapping(int pid, uint64_t start, uint64_t end, uint64_t dev,
		   uint64_t ino, const char *path, bool miss);

/*
 * A child with its address space bounded to @as bytes and its life to
 * @secs seconds (SIGALRM): 0 in the child, its pid in the parent, -1
 * with @why if fork failed.
 */
int limited_fork(unsigned long long as, unsigned int secs, char *why,
		 size_t whylen);
/* Wait for the child @pid: 0 if it exited with 0, else -1 with @why. */
int limited_wait(int pid, char *why, size_t whylen);
/*
 * Write the entry @oi->name of @src in a child process with bounded memory
 * and time: 0, or -1 with @why (-2: it would take more than @oi->room).
 */
int generate(const struct gen_src *src, const struct objinfo *oi,
	     const char *path, char *why, size_t whylen);

/* ---- examine.c ------------------------------------------------------------ */

/* An examining child, started: its pid, the daemon's end of its socket. */
struct examiner {
	int pid, sock;
};

/*
 * Start the examining child on the file @path, which it opens (*@fd the
 * descriptor it passes back), or (@path NULL) on *@fd; *@st its fstat,
 * made before the child read a byte of it.  0, or -errno (the open's, or
 * -EIO) with @why, the child ended.
 */
int examiner_start(struct examiner *e, const char *path, int *fd,
		   struct stat *st, char *why, size_t whylen);
/*
 * @go: the child's examination of the file of stat @st into @oi: 0, 1
 * refused with @why, -1 not ELF at all (cover_fd's @quiet_non_elf).  Else
 * the child told to end: 0 or -1 with @why.  The child is waited for.
 */
int examiner_finish(struct examiner *e, bool go, const struct stat *st,
		    struct objinfo *oi, char *why, size_t whylen);

/* ---- sandbox.c ------------------------------------------------------------ */

#define SANDBOX_NOBODY	65534	/* nobody, nogroup */
/* At start: whether this kernel filters system calls (said if not). */
void sandbox_init(void);
/* The uid of a child reading the file of stat @st: its owner, or nobody. */
uid_t sandbox_uid(const struct stat *st);
/*
 * In a limited child, before it reads a user's file: every descriptor but
 * @keep's closed, uid @uid (gid nobody, no groups), no capabilities, no
 * new privileges, not dumpable, the seccomp allowlist.  0, or -1 with @why.
 */
int sandbox_enter(uid_t uid, const int *keep, size_t nkeep, char *why,
		  size_t whylen);

/* ---- scan.c, misses.c ------------------------------------------------------ */

/* Every executable file mapping of @pid covered (scan_all: of every pid). */
void scan_pid(int pid);
void scan_all(void);
/* --prepare PATH: a file, or a directory's files. */
void prepare_path(const char *path);

extern bool rescan_wanted;	/* the miss queue overflowed: scan again */
extern uint64_t last_poll;	/* when the miss queue was last read, ms */
/* Read the miss queue until empty; false if the module has no store. */
bool poll_misses(void);

/* ---- own.c ---------------------------------------------------------------- */

/*
 * Ours first: ustackd's own objects (its children's), then the package's
 * tools' and their libraries'.
 */
void cover_own(void);

/* ---- budget.c, gc.c -------------------------------------------------------- */

/* What an entry of @size bytes takes on disk: whole 4 KiB blocks. */
#define ENTRY_BLOCK	4096
static inline uint64_t entry_cost(uint64_t size)
{
	return (size + ENTRY_BLOCK - 1) / ENTRY_BLOCK * ENTRY_BLOCK;
}
/* The reason of an object refused for the budget. */
#define OVER_BUDGET	"over the store's budget"
extern uint64_t store_bytes;		/* the store's entries, on disk */
extern uint64_t budget_store, budget_user;	/* in force */
/* The budgets from the options and the store's file system; its usage. */
void budget_init(void);
/* The store's usage counted anew: its entries' costs, at most @max files. */
uint64_t budget_count(unsigned long max);
/* What @o's new entry may take (@oi: examined): UINT64_MAX for the system's. */
uint64_t budget_room(const struct obj *o, const struct objinfo *oi);

/* ---- whose.c -------------------------------------------------------------- */

/* The user process @pid counts as, into *@user: 0 or -errno (gone). */
int process_user(int pid, uint64_t *user);
/* @user for the log: "uid N" or "user namespace N", in @buf. */
const char *user_shown(uint64_t user, char *buf, size_t size);

/* ---- usertime.c ----------------------------------------------------------- */

/* Has @user (whose.c: a process's) used its share of the daemon's time? */
bool usertime_over(uint64_t user);
/* The children took @ms for a mapping of @user's processes. */
void usertime_charge(uint64_t user, uint64_t ms);
/* The cost of the entry @name on disk (0: none). */
uint64_t budget_entry(const char *name);
/* Bytes of users' entries held by @user's objects (obj.whose). */
uint64_t budget_owner(uint64_t user);
/* A size with an optional K, M or G (1024s): false if it is not one. */
bool budget_arg(const char *arg, long long *v);

/* Unlink the entry @name, of @bytes on disk: counted as collected. */
void gc_unlink(const char *name, uint64_t bytes);
/*
 * One pass (after a scan): objects no scan met whose file is gone, users'
 * entries past the module's store_user_max and entries nothing holds.
 */
void gc_pass(void);

/* ---- status.c -------------------------------------------------------------- */

void logmsg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Room for any path escaped: four bytes for each of PATH_MAX, and a NUL. */
#define SHOWN_MAX	(4 * 4096 + 1)
/*
 * @path as the daemon prints it (log, status file) into @out: every byte
 * below 0x21, DEL and the backslash as a backslash and three octal digits,
 * as the module's text records and /proc/mounts do; cut short to fit.
 */
const char *path_shown(const char *path, char *out, size_t outlen);
/* The peak resident memory of the daemon and of its largest generator. */
void log_rss(void);
/* Write the status file (@phase: "ready", "stopped") into the store. */
void write_status(const char *phase);
/* --status: print the status file and the module's store counts. */
int show_status(void);

/* ---- notify.c, sysprep.c ------------------------------------------------------ */

/*
 * Send the assignments @fmt ("READY=1\nSTATUS=...") to the service
 * manager, if ustackd runs under one ($NOTIFY_SOCKET).  0 or -errno.
 */
int notify(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

extern bool sysprep_off;	/* --no-system: no pass */
/* A pass over the system's directories (another once this one ends). */
void sysprep_start(void);
/* SIGHUP's handler: sysprep_start() at the next step. */
void sysprep_on_hup(int sig);
/*
 * Register what the preparer has prepared, for at most @budget_ms (waiting
 * for it within that time): true while a pass runs (the caller need not
 * sleep), false when idle.
 */
bool sysprep_step(uint64_t budget_ms);
/* Stop the preparer. */
void sysprep_stop(void);

#endif
