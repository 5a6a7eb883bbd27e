// SPDX-License-Identifier: GPL-2.0
/*
 * selfwalk: the SFrame core (module/core.mk, arch_arm64_unwind.c) walks
 * the stack of the AArch64 program it is built into, from its own
 * PT_GNU_SFRAME (gas --gsframe: SFrame v2, ABI 2), and each walk is
 * compared with libgcc's .eh_frame unwinder (_Unwind_Backtrace()):
 *   plain    main -> f1 -> f2 -> f3 -> walk_here
 *   signal   the same chain, f3 executing udf: the walk starts in the
 *            SIGILL handler and must go through the vDSO's
 *            __kernel_rt_sigreturn and the signal frame back into f3
 *   clone-entry  from the first instruction of a function without CFI,
 *            as a task returning from clone in the parent: the entry
 *            rule, the RA in x30
 * Built static, without frame pointers, with and without
 * -mbranch-protection=pac-ret (signed return addresses: the walk strips
 * them); and as fp-pac-ret, with frame pointers and signed return
 * addresses, where the walk takes the AAPCS64 frame records alone.  Prints "PASS: arm64/NAME" or "FAIL: arm64/NAME: why"; run by
 * scripts/arm64-vm.sh in an arm64 guest.
 */
#include <elf.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <ucontext.h>
#include <unwind.h>
#include "ustack_sframe.h"
#include "uapi/ustack.h"

/* The signal frame arch_arm64.h reads, as glibc's ABI has it. */
_Static_assert(sizeof(siginfo_t) == USTACK_ARCH_SIGINFO_SIZE, "siginfo");
_Static_assert(offsetof(ucontext_t, uc_mcontext) == USTACK_ARCH_UC_MCONTEXT,
	       "uc_mcontext");
_Static_assert(offsetof(mcontext_t, regs) == USTACK_ARCH_SC_REGS, "regs");
_Static_assert(sizeof(siginfo_t) + sizeof(ucontext_t) ==
	       USTACK_ARCH_SIGFRAME_SIZE, "rt_sigframe");

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554	/* glibc 2.36's elf.h has none */
#endif
#define MAX_FRAMES	32
#define NAME_PAC	"pac-ret"
#define NAME_FP		"fp-pac-ret"

static struct sframe_sec sec;
static u64 text_lo, text_hi, vdso_lo, vdso_hi;
static const char *variant = "plain";
/* fp-pac-ret: no SFrame lookups, the frame-pointer rule for every frame */
static bool fp_only;
static int failures;

/* The program's PT_GNU_SFRAME and executable PT_LOAD. */
static int phdr_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	u64 sf = 0, sf_len = 0;
	int i;

	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];
		u64 a = info->dlpi_addr + p->p_vaddr;

		if (p->p_type == PT_GNU_SFRAME) {
			sf = a;
			sf_len = p->p_memsz;
		} else if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
			text_lo = a;
			text_hi = a + p->p_memsz;
		}
	}
	if (!sf)
		return 0;
	*(int *)data = ustack_sframe_sec_init(&sec, sf, sf_len, sf, text_lo,
					      text_hi);
	return 1;
}

/* The vDSO's code, where the signal trampoline is read. */
static void find_vdso(void)
{
	const ElfW(Ehdr) *eh = (const void *)getauxval(AT_SYSINFO_EHDR);
	const ElfW(Phdr) *ph;
	int i;

	if (!eh)
		return;
	ph = (const void *)((const char *)eh + eh->e_phoff);
	for (i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD) {
			vdso_lo = (u64)eh;
			vdso_hi = (u64)eh + ph[i].p_offset + ph[i].p_memsz;
		}
}

static const struct sframe_sec *find_sec(struct sframe_walk *w, u64 pc,
					 bool *cacheable)
{
	*cacheable = true;
	return pc >= text_lo && pc < text_hi && !fp_only ? &sec : NULL;
}

static int read_code(struct sframe_walk *w, void *dst, u64 addr, u32 len)
{
	if (!((addr >= text_lo && addr + len <= text_hi) ||
	      (addr >= vdso_lo && addr + len <= vdso_hi)))
		return -EFAULT;
	memcpy(dst, (const void *)addr, len);
	return 0;
}

static const struct sframe_walk_ops ops = {
	.find_sec = find_sec,
	.read_code = read_code,
};

struct bt {
	u64 ip[MAX_FRAMES];
	int n;
};

static _Unwind_Reason_Code bt_one(struct _Unwind_Context *ctx, void *arg)
{
	struct bt *bt = arg;

	if (bt->n >= MAX_FRAMES)
		return _URC_END_OF_STACK;
	bt->ip[bt->n++] = _Unwind_GetIP(ctx);
	return _URC_NO_REASON;
}

/* How many of @a's first @n entries are @b's. */
static int same_run(const u64 *a, const u64 *b, int n)
{
	int i;

	for (i = 0; i < n && a[i] == b[i]; i++)
		;
	return i;
}

static void result(const char *test, const char *why)
{
	if (why) {
		printf("FAIL: arm64/%s-%s: %s\n", test, variant, why);
		failures++;
	} else {
		printf("PASS: arm64/%s-%s\n", test, variant);
	}
}

/* A topmost frame's registers. */
struct regs {
	u64 pc, sp, lr, fp;
};

/* The walk from @r (topmost), with @flags: its frames into @ips. */
static u32 walk(const struct regs *r, u32 flags, u64 *ips, u8 *end, s8 *err)
{
	static struct sframe_cache cache;
	u64 gpr[SFRAME_NR_REGS] = { 0 };
	struct sframe_walk w;

	memset(&w, 0, sizeof(w));
	gpr[SFRAME_REG_LR] = r->lr;
	gpr[SFRAME_REG_XSP] = r->sp;
	gpr[USTACK_ARCH_REG_RA] = r->pc;
	w.st.ip = r->pc;
	w.st.sp = r->sp;
	w.st.fp = r->fp;
	w.st.gpr = gpr;
	w.ops = &ops;
	w.cache = &cache;
	w.ips = ips;
	w.max_frames = MAX_FRAMES;
	w.flags = (fp_only ? 0 : SFRAME_WALK_NO_FP) | flags;
	ustack_sframe_walk(&w);
	*end = w.end;
	*err = w.err;
	return w.nr;
}

/*
 * Walk from @r and compare the return addresses with libgcc's (@bt): from
 * the walk's frame @from on, @want of them at least (down to main's
 * caller, in libc, where the SFrame ends) must be the same.
 */
static void check(const char *test, const struct regs *r, u32 flags,
		  int from, int want, const struct bt *bt)
{
	u64 ips[MAX_FRAMES];
	int i, k, n, nr;
	char why[160];
	u8 end;
	s8 err;

	nr = walk(r, flags, ips, &end, &err);
	/* libgcc's first frames are its own and the caller's */
	for (k = 0; nr > from && k < bt->n && bt->ip[k] != ips[from]; k++)
		;
	n = nr > from ? same_run(ips + from, bt->ip + k, nr - from) : 0;
	if (n < want) {
		snprintf(why, sizeof(why), "%d of %d frames as libgcc's (walk %d, end %u, err %d; libgcc %d from %d)",
			 n, want, nr, end, err, bt->n, k);
		result(test, why);
	} else {
		result(test, NULL);
	}
	if (n < want && getenv("SELFWALK_VERBOSE")) {
		for (i = 0; i < nr; i++)
			printf("  walk %2d %#llx\n", i, (unsigned long long)ips[i]);
		for (i = 0; i < bt->n; i++)
			printf("  gcc  %2d %#llx\n", i, (unsigned long long)bt->ip[i]);
	}
}

/* Walk from here, with the registers as they are at label 1. */
static __attribute__((noinline)) void walk_here(const char *test, int want)
{
	struct bt bt = { .n = 0 };
	struct regs r;

	asm volatile("adr %0, 1f\n1:\n\tmov %1, sp\n\tmov %2, x29\n\tmov %3, x30"
		     : "=r"(r.pc), "=r"(r.sp), "=r"(r.fp), "=r"(r.lr));
	_Unwind_Backtrace(bt_one, &bt);
	check(test, &r, 0, 1, want, &bt);
}

/*
 * A function without CFI, so without an SFrame FDE, that stores the
 * registers at its first instruction: as glibc's clone is where its CFI
 * ends.  The walk from there must take the entry rule (CFA = SP, the RA
 * in x30), as it does for a task returning from clone in the parent.
 */
void nocfi_capture(struct regs *r);
asm(".text\n\t.p2align 2\n\t.type nocfi_capture, %function\nnocfi_capture:\n"
    "\tadr x9, nocfi_capture\n\tstr x9, [x0]\n\tmov x9, sp\n\tstr x9, [x0, #8]\n"
    "\tstr x30, [x0, #16]\n\tstr x29, [x0, #24]\n\tret\n"
    "\t.size nocfi_capture, .-nocfi_capture\n");

static __attribute__((noinline)) void clone_entry(void)
{
	struct bt bt = { .n = 0 };
	struct regs r;
	u64 ips[MAX_FRAMES];
	u8 end;
	s8 err;

	nocfi_capture(&r);
	_Unwind_Backtrace(bt_one, &bt);
	/* nocfi_capture, clone_entry: then f3, f2, f1, main, libc */
	check("clone-entry", &r, SFRAME_WALK_CLONE_PARENT, 2, 5, &bt);
	if (walk(&r, SFRAME_WALK_CLONE_PARENT, ips, &end, &err) < 2 ||
	    ips[1] != r.lr)
		result("clone-entry-lr", "the entry rule's RA is not x30");
	else
		result("clone-entry-lr", NULL);
	/* without the flag no rule covers nocfi_capture */
	if (!fp_only)
		result("no-info", walk(&r, 0, ips, &end, &err) == 1 &&
		       end == USTACK_END_NO_INFO ? NULL : "a walk past a PC without a rule");
}

static void on_sigill(int sig, siginfo_t *si, void *uc_)
{
	ucontext_t *uc = uc_;

	/* on_sigill, the trampoline, f3's udf, f2, f1, main, libc */
	walk_here("signal", 7);
	uc->uc_mcontext.pc += 4;	/* past the udf */
}

static volatile int depth;

static __attribute__((noinline)) void f3(int sig)
{
	if (sig == 1)
		asm volatile(".inst 0x00000000");	/* udf #0: SIGILL */
	else if (sig == 2)
		clone_entry();
	else
		walk_here("plain", 5);	/* f3, f2, f1, main, libc */
	depth++;
}

static __attribute__((noinline)) void f2(int sig)
{
	f3(sig);
	depth++;
}

static __attribute__((noinline)) void f1(int sig)
{
	f2(sig);
	depth++;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_sigaction = on_sigill, .sa_flags = SA_SIGINFO };
	int err = SFRAME_E_NOINFO;

	if (strstr(argv[0], NAME_FP)) {
		variant = NAME_FP;
		fp_only = true;
	} else if (strstr(argv[0], NAME_PAC)) {
		variant = NAME_PAC;
	}
	dl_iterate_phdr(phdr_cb, &err);
	if (err) {
		printf("FAIL: arm64/sframe-%s: no usable PT_GNU_SFRAME (%s)\n",
		       variant, ustack_sframe_strerror(err));
		return 1;
	}
	err = ustack_sframe_validate(&sec);
	result("validate", err ? ustack_sframe_strerror(err) : NULL);
	find_vdso();
	sigaction(SIGILL, &sa, NULL);
	f1(0);
	f1(1);
	f1(2);
	return failures != 0;
}
