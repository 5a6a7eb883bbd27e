/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SFrame core: the SFrame (v1, v2, v3) decoder, the unwind step and
 * the walk loop (module/core.mk lists its files).
 *
 * One source for ustack.ko and the user-space tools: the section and the
 * stack are read only through sframe_env.h, and what the CPU decides
 * (registers, frames, the signal trampoline) is arch.h's.  No allocation, no locks, no
 * recursion; every loop is bounded by a count from a validated header.
 *
 *   struct sframe_sec sec;
 *   struct sframe_rule r;
 *   err = ustack_sframe_sec_init(&sec, read_addr, len, vaddr, text_lo, text_hi);
 *   err = ustack_sframe_find(&sec, pc, &r);     0, SFRAME_E_NOINFO or an error
 *   err = ustack_sframe_step(&r, &state);       ip/sp/fp of the caller
 *   n   = ustack_sframe_walk(&walk);            a whole stack: signal frames,
 *                                               rule cache, FP fallback
 *
 * All functions return 0 or a negative enum sframe_code; ustack_sframe_strerror()
 * names a code and ustack_sframe_errno() maps it to a negative errno value.
 *
 * Versions: v1 (17-byte FDEs, PCMASK blocks of 16 bytes), v2 (20-byte FDEs,
 * rep_size), v3 (16-byte FDE index, 5-byte attribute before the FREs, flex
 * FDEs, signal bit).  The function start is relative to the section start,
 * or to the FDE's own start field when SFRAME_F_FDE_FUNC_START_PCREL is set
 * (v2, v3).  Outermost: an FRE without data words, or an FDE without FREs.
 * v3 flex words are (control, displacement) pairs for CFA, RA, FP in that
 * order, RA/FP optional or a single 0 pad word; control = regnum << 3 |
 * deref_p << 1 | reg_p, and the location is
 *   base = reg_p ? reg[regnum] : CFA; value = deref_p ? *(base + d) : base + d
 * (the v3 spec draft; CFA needs reg_p).  A rule on a register other than
 * SP/FP is only usable in the topmost frame (sframe_state.gpr).
 */
#ifndef USTACK_USTACK_SFRAME_H
#define USTACK_USTACK_SFRAME_H

#include "sframe_env.h"
#include "arch.h"

#define SFRAME_MAGIC			0xdee2
#define SFRAME_VERSION_1		1
#define SFRAME_VERSION_2		2
#define SFRAME_VERSION_3		3
#define SFRAME_F_FDE_SORTED		0x1
#define SFRAME_F_FRAME_POINTER		0x2	/* v1, v2 only */
#define SFRAME_F_FDE_FUNC_START_PCREL	0x4	/* v2 (errata 1), v3 */
#define SFRAME_ABI_AARCH64_ENDIAN_LITTLE	2
#define SFRAME_ABI_AMD64_ENDIAN_LITTLE	3
#define SFRAME_HDR_SIZE			28

#define SFRAME_FDE_SIZE_V1		17
#define SFRAME_FDE_SIZE_V2		20
#define SFRAME_FDE_SIZE_V3		16	/* the index entry */
#define SFRAME_FDE_ATTR_SIZE_V3		5	/* the attribute before the FREs */

/* FDE info byte */
#define SFRAME_FRE_TYPE_ADDR1		0
#define SFRAME_FRE_TYPE_ADDR2		1
#define SFRAME_FRE_TYPE_ADDR4		2
#define SFRAME_INFO_FRE_TYPE(i)		((i) & 0xf)
#define SFRAME_INFO_PCMASK		0x10
#define SFRAME_INFO_SIGNAL_V3		0x80
/* v3 info2 byte: FDE type */
#define SFRAME_FDE_TYPE_DEFAULT		0
#define SFRAME_FDE_TYPE_FLEX		1
#define SFRAME_INFO2_FDE_TYPE(i)	((i) & 0x1f)
/* FRE info byte */
#define SFRAME_FRE_BASE_SP		0x1	/* bit 0: 1 = SP, 0 = FP */
#define SFRAME_FRE_COUNT(i)		(((i) >> 1) & 0xf)
#define SFRAME_FRE_SIZE(i)		(((i) >> 5) & 0x3)	/* 0:1 1:2 2:4 */
/* v3 flex control word */
#define SFRAME_FLEX_REG_P		0x1
#define SFRAME_FLEX_DEREF_P		0x2
#define SFRAME_FLEX_RESERVED		0x4
#define SFRAME_FLEX_REGNUM(w)		((w) >> 3)

/* v1 has no rep_size: the PLT entries it covers are the CPU's size. */
#define SFRAME_V1_PCMASK_SIZE		USTACK_ARCH_PLT_ENTRY_SIZE
/* Max data words in one FRE; 4 bits of N allow 15. */
#define SFRAME_MAX_WORDS		15

/* DWARF register numbers of the CPU's stack and frame pointers */
#define SFRAME_REG_SP			USTACK_ARCH_REG_SP
#define SFRAME_REG_FP			USTACK_ARCH_REG_FP
/* the return address column; registers 0 .. SFRAME_NR_REGS - 1 */
#define SFRAME_REG_RA			USTACK_ARCH_REG_RA
#define SFRAME_NR_REGS			USTACK_ARCH_NR_REGS

enum sframe_code {
	SFRAME_OK		= 0,
	SFRAME_E_NOINFO		= -1,	/* no FDE/FRE covers the PC (a gap) */
	SFRAME_E_FAULT		= -2,	/* reading the section or stack faulted */
	/* header */
	SFRAME_E_HDR_TRUNC	= -3,	/* shorter than the header */
	SFRAME_E_MAGIC		= -4,
	SFRAME_E_VERSION	= -5,
	SFRAME_E_ABI		= -6,	/* not the CPU's ABI (USTACK_ARCH_SFRAME_ABI) */
	SFRAME_E_FLAGS		= -7,	/* unknown flag for this version */
	SFRAME_E_AUXHDR		= -8,	/* auxiliary header past the end */
	SFRAME_E_FDE_OFF	= -9,	/* FDE array outside the section */
	SFRAME_E_FRE_OFF	= -10,	/* FRE sub-section outside the section */
	SFRAME_E_FIXED_OFF	= -11,	/* fixed RA/FP offsets unusable */
	SFRAME_E_NUM_FRES	= -12,	/* FRE count disagrees with the FDEs */
	/* FDE */
	SFRAME_E_UNSORTED	= -13,	/* FDEs not sorted by start address */
	SFRAME_E_FUNC_RANGE	= -14,	/* start + size wraps around */
	SFRAME_E_FDE_FRES	= -15,	/* FDE's FREs start outside FRE bytes */
	SFRAME_E_FDE_TYPE	= -16,	/* unknown FDE type (v3 info2) */
	SFRAME_E_FRE_TYPE	= -17,	/* FRE type not ADDR1/2/4 */
	SFRAME_E_REP_SIZE	= -18,	/* PCMASK with rep_size 0 */
	/* FRE */
	SFRAME_E_FRE_OVERRUN	= -19,	/* FRE bytes past the FRE sub-section */
	SFRAME_E_FRE_START	= -20,	/* FRE start past the function/block */
	SFRAME_E_FRE_ORDER	= -21,	/* FRE starts not increasing */
	SFRAME_E_FRE_SIZE	= -22,	/* data word size 3 */
	SFRAME_E_FRE_COUNT	= -23,	/* data word count wrong for FDE type */
	SFRAME_E_FLEX		= -24,	/* malformed flex rule */
	/* step */
	SFRAME_E_REG		= -25,	/* rule needs a register we do not have */
	SFRAME_E_CFA		= -26,	/* CFA not above SP */
	SFRAME_E_ALIGN		= -27,	/* CFA not 8-byte aligned */
	SFRAME_E_RA		= -28,	/* return address 0 */
	/* work */
	SFRAME_E_BUDGET		= -29,	/* the lookup's work budget is spent */
	SFRAME_E_INTR		= -30,	/* stopped: fatal signal pending */
	SFRAME_E_MAX		= -31,
};

/* Where a value is: see struct sframe_rule. */
enum sframe_loc_kind {
	SFRAME_LOC_SAME		= 0,	/* unchanged (FP), or RA undefined */
	SFRAME_LOC_CFA_DEREF	= 1,	/* *(CFA + off): "c+off" */
	SFRAME_LOC_CFA_VAL	= 2,	/* CFA + off */
	SFRAME_LOC_REG_DEREF	= 3,	/* *(reg + off) */
	SFRAME_LOC_REG_VAL	= 4,	/* reg + off */
};

struct sframe_loc {
	u8 kind;		/* enum sframe_loc_kind */
	u8 reg;			/* DWARF register for REG_* */
	s32 off;
};

#define SFRAME_R_OUTERMOST	0x01	/* RA undefined: the first frame */
#define SFRAME_R_SIGNAL		0x02	/* v3 signal-frame FDE */
#define SFRAME_R_PCMASK		0x04	/* FRE starts are block offsets */
#define SFRAME_R_FLEX		0x08	/* from a v3 flex FDE */
#define SFRAME_R_PLT_ENTRY	0x10	/* PLT stub entry: CFA set to SP+8 */

/*
 * The rule for one PC.  Default FDEs give cfa = {REG_VAL, SP or FP, off},
 * ra = {CFA_DEREF, -8} and fp = SAME or {CFA_DEREF, off}; flex FDEs may give
 * any kind (cfa: REG_VAL or REG_DEREF).  An outermost rule has no locations.
 */
struct sframe_rule {
	struct sframe_loc cfa, ra, fp;
	u16 flags;		/* SFRAME_R_* */
	u8 fde_info, fde_info2;	/* raw info bytes (info2: v3 only) */
	u64 func_start;		/* function address (same space as pc) */
	u32 func_size;
	u32 fre_start;		/* FRE start, from function or block start */
	u32 fde_idx;
	u32 fre_idx;		/* index of the FRE within its FDE */
};

/*
 * A section whose bytes are not where sf_copy() reads them (sframe_env.h:
 * user memory in the kernel, local memory in the tools) has a reader,
 * owned by the layer above, which embeds it in its own state: a store
 * file read through the page cache (store_read.c), a file's bytes in a
 * kernel buffer (discovery.c).  @copy copies @len bytes at section offset
 * @off into @dst: 0 or -EFAULT.  It is called in the caller's context.
 */
struct sframe_reader {
	int (*copy)(struct sframe_reader *rd, void *dst, u64 off, size_t len);
};

/* A decoded section; fill with ustack_sframe_sec_init(), then read only. */
struct sframe_sec {
	unsigned long base;	/* where its bytes are read (see env) */
	struct sframe_reader *rd;	/* or, if set, who reads them */
	u64 vaddr;		/* where it is mapped: base of PC arithmetic */
	u64 text_lo, text_hi;	/* PCs outside are no-info; 0, 0: no limit */
	u32 len;		/* bytes used: header to end of last part */
	u32 fde_off;		/* FDE array, from the section start */
	u32 fre_off;		/* FRE sub-section, from the section start */
	u32 fre_len;
	u32 num_fdes, num_fres;
	u8 version, flags, fde_size;
	s8 fixed_fp, fixed_ra;
};

/* A raw FDE, as stored (v3: index + attribute merged). */
struct sframe_fde {
	u64 func_start;		/* resolved address */
	u32 func_size;
	u32 fres_off;		/* first FRE, from the section start */
	u32 num_fres;
	u8 info, info2, rep_size;
};

/* A raw FRE, as stored. */
struct sframe_fre {
	u32 start;
	u8 info;
	u8 nwords;
	u8 size;		/* bytes of the whole FRE */
	s32 words[SFRAME_MAX_WORDS];	/* sign-extended */
	u32 uwords[SFRAME_MAX_WORDS];	/* zero-extended (flex ctrl) */
};

/*
 * Registers of one frame.  @gpr, if set, holds DWARF registers 0..16 of the
 * topmost frame (only a flex rule on another register needs it).  Stack
 * reads outside [stack_lo, stack_hi) fail with SFRAME_E_FAULT, unless
 * stack_hi is 0; the kernel leaves them 0 and relies on get_user().
 */
struct sframe_state {
	u64 ip, sp, fp;
	const u64 *gpr;
	u64 stack_lo, stack_hi;
	bool topmost;		/* the interrupted frame: IP is exact */
	bool exact_ip;		/* IP is exact (topmost, or after a signal) */
	bool outermost;		/* a cached run found IP's rule: no caller */
};

/*
 * Work left to a lookup or a walk (include/uapi/ustack.h): FDEs and FREs
 * it may still visit and bytes of SFrame data it may still read.
 */
struct sframe_budget {
	u32 fdes, fres, bytes;
};

int ustack_sframe_sec_init(struct sframe_sec *sec, unsigned long base, u64 len,
		    u64 vaddr, u64 text_lo, u64 text_hi);
/* The same for a section read by @rd, if not NULL (@base unused then). */
int ustack_sframe_sec_init_rd(struct sframe_sec *sec, struct sframe_reader *rd,
			      unsigned long base, u64 len, u64 vaddr,
			      u64 text_lo, u64 text_hi);
/* FDE @idx, checked against the section (not against its neighbours). */
int ustack_sframe_read_fde(const struct sframe_sec *sec, u32 idx,
		    struct sframe_fde *fde);
/* The FRE at section offset *@pos of @fde; advances *@pos past it. */
int ustack_sframe_read_fre(const struct sframe_sec *sec, const struct sframe_fde *fde,
		    u32 *pos, struct sframe_fre *fre);
/* Turn a raw FRE into a rule (flags, fp/ra/cfa locations). */
int ustack_sframe_fre_rule(const struct sframe_sec *sec, const struct sframe_fde *fde,
		    const struct sframe_fre *fre, struct sframe_rule *r);
/*
 * Rule for @pc: 0, SFRAME_E_NOINFO, or an error for a malformed section;
 * SFRAME_E_BUDGET past USTACK_LOOKUP_MAX_FDES/FRES.
 */
int ustack_sframe_find(const struct sframe_sec *sec, u64 pc, struct sframe_rule *r);
/* The same, spending (and bounded by) @b. */
int ustack_sframe_find_budget(const struct sframe_sec *sec, u64 pc,
			      struct sframe_rule *r, struct sframe_budget *b);
/*
 * Check every FDE and FRE (tools, registration): also refuses what would
 * make lookups linear (unsorted FDEs, more than USTACK_SFRAME_MAX_FDE_FRES
 * FREs in an FDE).  Bounded by the counts; sf_env_pause() every
 * USTACK_SFRAME_VALIDATE_STRIDE entries (SFRAME_E_INTR).
 */
int ustack_sframe_validate(const struct sframe_sec *sec);
/* Apply @r to @st: @st becomes the caller's frame. */
int ustack_sframe_step(const struct sframe_rule *r, struct sframe_state *st);
/* The frame-pointer rule: CFA = fp + 16, RA at CFA-8, fp at CFA-16. */
int ustack_sframe_fp_step(struct sframe_state *st);

const char *ustack_sframe_strerror(int code);
/* @malformed: the errno for a malformed section (-EINVAL, -EBADMSG) */
int ustack_sframe_errno(int code, int malformed);

/* ---- a whole walk ------------------------------------------------------ */

/*
 * Optional rule cache for ustack_sframe_walk(), owned by the caller (no allocation
 * here): 4-way set associative by lookup PC, 32 bytes an entry, 64 KiB.
 * Each entry also points to its caller's entry of the last time (checked
 * before use), so a repeated stack chains entry to entry, one load a
 * frame, without waiting for the return address to be hashed.  The cache
 * must not be copied: the pointers are into its own array.  It holds the
 * default-shape rules (CFA = SP/FP + off, RA at CFA-8, FP unchanged or at
 * CFA+off, off within s8) and outermost markers; flex and signal rules are
 * looked up each time.  Entries are keyed by PC and by the cache's tag
 * when they were stored: only entries of the current tag are found, so
 * many owners of sections (processes, user_walk.c) can share the cache, and
 * a new tag makes all of an owner's entries stale at once.  The tag also
 * salts the set index, so that processes with the same layout (forked
 * from one parent) spread over the sets instead of fighting over one.  A
 * cache with one owner keeps tag 0 and is reset whenever a section it may
 * have seen goes away or changes.
 */
#define SFRAME_CACHE_WAYS	4
#define SFRAME_CACHE_SETS	512	/* a power of two */
#define SFRAME_CACHE_SIZE	(SFRAME_CACHE_WAYS * SFRAME_CACHE_SETS)

/* sframe_cache_ent.kind; 0: empty */
#define SFRAME_CK_VALID		0x1
#define SFRAME_CK_SP		0x2	/* CFA = SP + cfa_off (else FP) */
#define SFRAME_CK_FP_SAVED	0x4	/* FP at CFA + fp_off (else same) */
#define SFRAME_CK_OUTERMOST	0x8
#define SFRAME_CK_STEP		0x10	/* valid and not outermost */
#define SFRAME_CK_SP8		0x20	/* SP-based, FP unchanged, cfa_off a
					 * positive multiple of 8
					 */

struct sframe_cache_ent {
	u64 pc;			/* lookup PC */
	struct sframe_cache_ent *next;	/* the caller's entry last time:
					 * a guess, checked before use
					 */
	u64 tag;		/* the cache's tag when stored */
	s32 cfa_off;
	s8 fp_off;
	u8 kind;		/* SFRAME_CK_* */
	u8 no_tramp;		/* the code at pc + 1 was looked at: no
				 * signal trampoline (set by the walk)
				 */
	u8 pad;			/* zero */
};

struct sframe_cache {
	struct sframe_cache_ent e[SFRAME_CACHE_SIZE];
	u64 tag;		/* entries of this tag are live */
	u64 salt;		/* of the set index, from the tag */
};

/* Make entries of @tag the live ones. */
void ustack_sframe_cache_set_tag(struct sframe_cache *c, u64 tag);
/* Entry for lookup PC @pc, or NULL. */
const struct sframe_cache_ent *ustack_sframe_cache_get(const struct sframe_cache *c,
						u64 pc);
/*
 * Remember @r for @pc (newest first in its set, the oldest of a full set
 * goes); false, not stored, for a rule of another shape (flex, signal, FP
 * slot beyond s8 of the CFA).
 */
bool ustack_sframe_cache_put(struct sframe_cache *c, u64 pc,
		      const struct sframe_rule *r);
/* The rule an entry stands for. */
void ustack_sframe_cache_rule(const struct sframe_cache_ent *e,
		       struct sframe_rule *r);
void ustack_sframe_cache_reset(struct sframe_cache *c);

/*
 * The walk: the one loop ustack.ko runs (module/user_walk.c) and the tests, the
 * fuzzer and the benchmarks drive.  Frame by frame: a return address on
 * the architecture's rt_sigreturn trampoline (arch.h) is a signal frame,
 * whose interrupted registers come from the signal frame on the stack;
 * else the rule for the PC, from the rule cache or from the section
 * find_sec() gives; else the frame-pointer rule.  Consecutive frames whose
 * rules are cached are taken in cached runs.
 *
 * The environment is in small hooks, all optional.  A hook gets the walk,
 * so a caller may embed struct sframe_walk in its own context.
 */
struct sframe_walk;

/* sframe_walk_ops.cache_begin's @use */
enum sframe_cache_use {
	SFRAME_CACHE_LOOKUP,	/* one rule looked up */
	SFRAME_CACHE_FILL,	/* one rule just found stored */
	SFRAME_CACHE_RUN,	/* a cached run: stack reads must not sleep */
};

struct sframe_walk_ops {
	/*
	 * The section covering @pc, or NULL.  *@cacheable: its rules may go
	 * into the rule cache.  The walk reuses the answer while PCs stay in
	 * its [text_lo, text_hi) (if that is set) before asking again.
	 */
	const struct sframe_sec *(*find_sec)(struct sframe_walk *w, u64 pc,
					     bool *cacheable);
	/*
	 * Copy @len bytes of code at @addr: 0 or -EFAULT.  NULL: signal
	 * trampolines are not recognised.
	 */
	int (*read_code)(struct sframe_walk *w, void *dst, u64 addr, u32 len);
	/*
	 * The rule cache for one @use, or NULL (none now); cache_end() follows
	 * every non-NULL return.  Without these hooks the walk uses w->cache.
	 */
	struct sframe_cache *(*cache_begin)(struct sframe_walk *w,
					    enum sframe_cache_use use);
	void (*cache_end)(struct sframe_walk *w, enum sframe_cache_use use);
	/*
	 * @addr lies in an executable file-backed mapping.  The stack scan
	 * (SFRAME_WALK_GUESS) needs it and read_code.
	 */
	bool (*is_text)(struct sframe_walk *w, u64 addr);
};

#define SFRAME_WALK_NO_FP	0x1	/* no frame-pointer fallback */
/* Where the walk would end with no-info or bad-frame, scan the stack. */
#define SFRAME_WALK_GUESS	0x2
/*
 * The interrupted frame returns from a system call that made a thread
 * (clone, clone3), in the child or in the parent: the kernel knows it from
 * the call's number.  C libraries end their CFI before that call's
 * instruction, since child and parent unwind differently from there:
 * where no rule covers the interrupted frame, the child's is its first,
 * and the parent's returns to its caller with nothing pushed (the entry
 * rule).  A tick right after the return, in user mode, is told by the
 * code before the IP (ustack_sframe_clone_code()).
 */
#define SFRAME_WALK_CLONE_CHILD		0x4
#define SFRAME_WALK_CLONE_PARENT	0x8
/*
 * The interrupted frame is in rt_sigreturn, the kernel has not undone
 * the signal frame yet: SP is at its ucontext, whatever code made the
 * call (the kernel finds the frame there too).  The first step is the
 * signal frame's.  No rule could take it: the PC is past the trampoline.
 */
#define SFRAME_WALK_IN_SIGRETURN	0x10

/* Nested signal frames in one walk (sigaltstack breaks the SP order). */
#define SFRAME_WALK_MAX_SIGNALS	16

struct sframe_walk {
	/* in */
	struct sframe_state st;	/* the interrupted frame, topmost = true */
	const struct sframe_walk_ops *ops;	/* NULL: no hooks */
	void *ctx;		/* for the hooks */
	struct sframe_cache *cache;	/* optional, without cache hooks */
	u64 *ips;		/* [max_frames] */
	u8 *methods;		/* [max_frames] enum ustack_method, or NULL */
	u32 max_frames;
	u32 flags;		/* SFRAME_WALK_* */
	u32 cache_burst;	/* frames per cached run (hooks); 0: all */
	const struct sframe_budget *limit;	/* NULL: USTACK_WALK_MAX_* */
	/* out */
	u32 nr;			/* frames stored */
	u32 scanned;		/* stack words the scan read */
	u8 end;			/* enum ustack_end */
	s8 err;			/* sframe_code that ended the walk, or 0 */
	/* the walk's own */
	u8 nsig;		/* signal frames stepped */
	struct sframe_budget budget;	/* left */
	bool sec_cacheable;
	const struct sframe_sec *sec;	/* find_sec()'s last answer */
	u64 gpr[SFRAME_NR_REGS];	/* registers after a signal frame;
					 * st.gpr may point here at the start
					 */
};

/*
 * Fill w->ips from w->st; returns w->nr.  Sets end and err; the out and
 * own fields need no initialisation.
 */
u32 ustack_sframe_walk(struct sframe_walk *w);

/*
 * The call instruction that ends where a return address @ret points:
 * @b holds the SFRAME_CALL_MAX_LEN bytes before @ret.  Its length, or 0;
 * *@target set for a direct call, left alone for an indirect one.  The
 * architecture's (arch_<arch>_unwind.c says which instructions).
 */
#define SFRAME_CALL_MAX_LEN	USTACK_ARCH_CALL_MAX_LEN
u32 ustack_sframe_call_before(const u8 *b, u64 ret, u64 *target);

/*
 * Do the SFRAME_CLONE_CODE_LEN bytes @b, right before an IP, make the
 * system call that makes a thread the way C libraries do where their CFI
 * ends (arch_<arch>_unwind.c says which code)?  SFRAME_REG_RET holds its
 * result: 0 in the child.
 */
#define SFRAME_CLONE_CODE_LEN	USTACK_ARCH_CLONE_CODE_LEN
#define SFRAME_REG_RET		USTACK_ARCH_REG_RET
bool ustack_sframe_clone_code(const u8 *b);

#ifndef __KERNEL__
/* read_code of local memory, through the walk's own find_sec. */
int ustack_sframe_read_local_code(struct sframe_walk *w, void *dst, u64 addr,
				  u32 len);
#endif

#endif /* USTACK_USTACK_SFRAME_H */
