/* SPDX-License-Identifier: GPL-2.0 */
/* report.h - ustack-report: what its files (one job each) share. */
#ifndef USTACK_REPORT_H
#define USTACK_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* ---- util.c: arena, interned strings, errors ---------------------------- */
void *xalloc(size_t n);			/* zeroed, from the arena, never freed */
void *xrealloc(void *p, size_t n);	/* heap */
const char *intern(const char *s, size_t n);	/* stable, unique per content */
const char *internz(const char *s);
const char *basename_of(const char *path);
/* sorted by a u64 field: the first element above key (offsetof field) */
size_t first_above(const void *v, size_t n, size_t size, size_t field,
		   uint64_t key);
/* Records are words: skip blanks; the next word, NUL-terminated, or NULL. */
char *skip_ws(char *p);
char *next_word(char **pp);
char *next_kv(char **pp, char **val);	/* key=value; others skipped */
char *text_unescape(char *v);	/* the kernel's "\ooo", in place */
/* Names from users made safe for text output: controls, backslash and
 * non-UTF-8 bytes as "\ooo" (util.c). */
size_t esc_bytes(const char *s, size_t n, char *out);
const char *esc_text(const char *s);	/* s interned; result interned */
/* A valid UTF-8 sequence's length at s (n bytes there), or 0 (util.c). */
size_t utf8_len(const unsigned char *s, size_t n);
struct memo {
	const void **keys, **vals;
	size_t cap, count;
};
const void *memo_get(struct memo *m, const void *key);
void memo_put(struct memo *m, const void *key, const void *val);
void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void warnx_(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* ---- records (parse.c fills, join.c links) ------------------------------ */
struct kframe {
	uint64_t addr;
	const char *sym;	/* "name+0xoff" or NULL when unresolved */
};

struct symres {
	const char *name;	/* NULL: not symbolized */
	uint64_t symoff;	/* ip - symbol start */
	const char *file;	/* source file, with -l and debug info */
	int line;
	const char *build_id;	/* of the object, hex, or NULL */
};

struct uframe {
	uint64_t ip;
	uint64_t off;		/* file offset in obj */
	const char *obj;	/* interned: path, "[vdso]", "[anon]", ... */
	const char *method;	/* interned: "regs", "sframe", "fp", ... */
	const struct symres *res;	/* symbolize.c */
};

struct interp;

struct user {
	uint64_t cookie;
	uint64_t seq;		/* position in the stream */
	uint32_t pid, tid;
	uint32_t nr;
	const char *end;	/* interned end reason */
	struct uframe *f;	/* innermost first */
	int used;		/* joined to at least one sample */
	const struct interp *interp;	/* interp.c: the process's own frames */
};

/* An interpreter's answer to a walk (interp.c) */
struct iframe {
	const char *func, *file;	/* interned */
	int line;
	int entry;	/* began a new native evaluation (text: "entry") */
};

struct interp {
	uint64_t cookie;
	uint64_t seq;
	uint32_t pid, tid;
	const char *lang;	/* interned */
	uint32_t nr, cap;
	struct iframe *f;	/* innermost first */
};

struct sample {
	uint64_t cookie;
	uint64_t time;		/* ns */
	uint64_t seq;
	uint32_t pid, tid, cpu;
	const char *event;	/* interned */
	const char *comm;	/* interned */
	uint32_t nk;
	struct kframe *k;	/* innermost first */
	struct user *u;		/* join.c; NULL = no user stack */
};

struct recs {
	struct sample *s;
	size_t ns, cap_s;
	struct user *u;
	size_t nu, cap_u;
	struct interp *in;
	size_t nin, cap_in;
	uint64_t lost_samples, lost_users, lost_records;
	uint64_t skipped;	/* unknown or malformed records */
	uint64_t seq;
	int binary;
	int trace;		/* the trace events' text (perf script, ...) */
	int perf;		/* perf script's own samples (callchains) */
};

/* parse.c: text or binary (detected from the first bytes) */
void parse_buffer(struct recs *r, char *buf, size_t len);
/* recs.c: the next sample or user record, zeroed, numbered in order */
struct sample *recs_new_sample(struct recs *r);
struct user *recs_new_user(struct recs *r);
/* util.c */
uint64_t parse_secs(const char *t);	/* "secs.frac" to ns, or 0 */

/* parse_perf.c: perf script's text of perf's own samples (callchains) */
int perf_script_is(const char *buf, size_t len);
void perf_script_parse(struct recs *r, char *buf, size_t len);

/* interp.c: `interp` records (parse.c hands them over), joined to users */
void interp_record(struct recs *r, char *line);	/* after the kind */
void interp_frame(struct recs *r, char *line);	/* an indented line */
void interp_join(struct recs *r);		/* after join_records() */
int interp_binary(struct recs *r, const char *p, size_t size);	/* 0, -1 */

/* perfmap.c: JIT code named from /tmp/perf-<pid>.map (perf's maps) */
void perfmap_read(uint32_t pid);	/* while it runs; again: what is new */
void perfmap_refresh(void);		/* every map read so far, again */
size_t perfmap_scan(const char *buf, size_t from, size_t len);	/* live */
void perfmap_save(FILE *f, int binary);	/* appended to --save */
int perfmap_record(const char *p, size_t size);	/* binary record */
void perfmap_text_record(char *line);	/* "perfmap pid=..." */
void perfmap_text_line(char *line);	/* "    jit START SIZE name" */
void perfmap_resolve(struct recs *r);	/* after symbolize_all() */

/* join.c: link samples to user records by (tid, cookie); sort by time */
struct join_stats {
	uint64_t joined, missing, orphan_users;
};
void join_records(struct recs *r, struct join_stats *st);

/* symbolize.c */
struct sym_opts {
	const char *root;	/* prefix for object paths, or NULL */
	int lines;		/* -l: source file:line */
};
void symbolize_init(const struct sym_opts *o);
void symbolize_open(struct recs *r);	/* as root: descriptors only */
void symbolize_all(struct recs *r);	/* parses ELF/DWARF */
int open_regular(int dirfd, const char *path, int nofollow);
struct objstat {
	const char *name;
	const char *build_id;	/* hex, or NULL */
	int opened;
	uint64_t frames, resolved;
};
size_t symbolize_nobj(void);
const struct objstat *symbolize_obj(size_t i);

/* symtab.c: a module's symbols, sorted (libdwfl's lookup scans them) */
typedef struct Dwfl_Module Dwfl_Module;
struct symtab *symtab_build(Dwfl_Module *mod);	/* NULL: no symbols */
const char *symtab_lookup(const struct symtab *t, uint64_t addr,
			  uint64_t *off);

/* ehsplit.c: the FDE after the one covering @func in .eh_frame */
typedef struct Elf Elf;
int eh_next_fde(Elf *elf, uint64_t func, uint64_t *lo, uint64_t *hi);

/* ksyms.c: kernel symbols for binary records (from a kallsyms file) */
int ksyms_load(const char *path);	/* 0, or -1 when unusable */
void ksyms_resolve(struct recs *r);

/*
 * live.c: read /dev/ustack for a while; returns a malloc'ed buffer, and
 * in *until_ns when the recording ended (CLOCK_MONOTONIC, as samples' time)
 */
char *live_read(const char *dev, double seconds, size_t *len,
		const char *save, uint64_t *until_ns);

/* stacks.c: one frame list per sample, outermost first, for folded/svg */
enum fkind { FK_ROOT, FK_USER, FK_KERNEL, FK_MARK, FK_GUESS };
struct fstack {
	uint32_t n;
	const char **name;	/* interned */
	uint8_t *kind;
	uint64_t count;
};
/* Returns sorted, merged stacks (count = samples). */
struct fstack *stacks_build(const struct recs *r, size_t *n);

/* collapse.c: frame names as stackcollapse-perf.pl writes them, interned */
const char *collapse_name(const char *s, size_t n, int args);
const char *comm_frame_name(const char *comm);
const char *user_frame_name(const struct uframe *f);
const char *incomplete_mark(const struct user *u);	/* NULL if complete */
const char *kernel_frame_name(const struct kframe *k);

/* filter.c: --event, --pid, --tid, --comm (before join.c) */
enum filter_kind { FILTER_PID, FILTER_TID, FILTER_COMM };
int filter_add(enum filter_kind kind, const char *list);	/* -1: bad */
void filter_event(struct recs *r, const char *ev);
void filter_apply(struct recs *r);
void filter_until(struct recs *r, uint64_t ns);	/* samples up to @ns */

/* frames.c: byte-keyed tables and one sample's frames for pprof/speedscope */
struct ktab {
	const void **keys;
	size_t *lens;
	uint32_t *ids;
	size_t cap, count;
};
/* The id of key (0, 1, ... in order of first sight); *added when new. */
uint32_t ktab_id(struct ktab *t, const void *key, size_t len, int *added);

enum pkind { PK_KERNEL, PK_USER, PK_INTERP, PK_MARK };
struct pframe {
	uint8_t kind;
	uint8_t guess;		/* method "guess": marked with a "? " prefix */
	const char *name;	/* interned; C++ argument lists kept */
	const char *file;	/* interned, or NULL: -l, interpreter frames */
	int line;
	const struct uframe *u;	/* PK_USER */
	const struct kframe *k;	/* PK_KERNEL */
};
/* s's frames, innermost first, in *v (grown as needed); returns how many. */
size_t sample_frames(const struct sample *s, struct pframe **v, size_t *cap);
/* Does interpreter @lang run its own frames in native frame @f? */
int is_evaluator(const char *lang, const struct uframe *f);
/* "? <name>", interned: a frame found by stack scanning (method guess) */
int frame_guessed(const struct uframe *f);
const char *guess_mark(const char *name);
/* "[kernel.kallsyms]" or the "[module]" a kernel symbol names */
const char *kernel_object(const struct kframe *k);

/* outputs */
struct out_opts {
	int verbose;
	int lines;
	const char *title;
	int width;
};
void output_perf(FILE *f, const struct recs *r, const struct out_opts *o);
void output_folded(FILE *f, const struct recs *r, const struct out_opts *o);
void output_svg(FILE *f, const struct recs *r, const struct out_opts *o);
void output_summary(FILE *f, const struct recs *r,
		    const struct join_stats *js, const struct out_opts *o);
void output_pprof(FILE *f, const struct recs *r, const struct out_opts *o);
void output_speedscope(FILE *f, const struct recs *r,
		       const struct out_opts *o);

/* names.c: the names of binary codes, from include/ustack_names.h */
const char *method_name(unsigned int m);	/* interned */
const char *end_name(unsigned int e);		/* interned */
const char *event_name(unsigned int ev, int syscall_nr, const char *arg);	/* interned */
enum name_kind { NAME_METHOD, NAME_END, NAME_EVENT };
int name_known(enum name_kind k, const char *name);	/* in the header? */

#endif
