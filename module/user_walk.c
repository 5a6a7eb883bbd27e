// SPDX-License-Identifier: GPL-2.0
/*
 * The user-stack walk of the current task, in faultable task context
 * (task_work at return to user space, or the SELF_STACK ioctl).
 *
 * The loop is the SFrame core's ustack_sframe_walk(), the one the unit
 * tests, the fuzzer and the benchmarks drive; this file gives it the
 * kernel's hooks.  The section for a PC is a registered one, else the ELF
 * file's PT_GNU_SFRAME (discovery); the core falls back to frame pointers
 * and steps signal frames (the C library's trampoline, arch.h), reading code
 * with copy_from_user().  No lock is held across a user memory read; the
 * registry is read under RCU and copied out first.  Last comes the
 * system-wide store (store.c), whose sections are read through the page
 * cache by the walk's reader.
 *
 * Rules are kept in a per-CPU rule cache (the core's struct sframe_cache),
 * shared by every process walked on that CPU: each one's entries carry its
 * mm's registry generation as their tag, a value no other mm ever has.  A
 * registration change of that mm or an unmapping of a range its rules
 * came from gives the mm a new generation, and a removal from the store
 * empties the caches, so a walk never uses a rule of a section
 * unregistered, unmapped or removed before it started; other processes'
 * changes leave its entries alone, and a CPU that goes round many
 * processes keeps the rules of each while the cache has room (the tag
 * salts the set index: forked processes, the same PCs, spread out).
 * Rules found through ELF discovery or the store are cached
 * only for ranges the registry watches (ustack_registry_watch()): the
 * first walk through a range starts the watch, later ones fill the cache.
 * The cache is used with preemption disabled, cached runs also with page
 * faults disabled (a stack read that would fault ends the run; the frame
 * is then taken the slow way), a bounded number of frames at a time.
 */

#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cpuhotplug.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>
#include "arch.h"
#include <uapi/ustack.h>
#include "ustack_limits.h"
#include "registry.h"
#include "store.h"
#include "pc_mapping.h"
#include "user_walk.h"

/* Frames taken from the rule cache per preemption-off stretch. */
#define WALK_CACHED_BURST	64

/*
 * A CPU's rule cache: entries tagged by their mm's registry generation,
 * never another mm's nor reused (registry_mm.c), of the store at @sgen.
 */
struct walk_rcache {
	u64 sgen;
	struct sframe_cache c;
};

/*
 * Each online CPU's, allocated on its node (too large for alloc_percpu()),
 * or NULL; walk_rc_cpus counts them, walk_rc_state is their hotplug state.
 */
static struct walk_rcache * __percpu *walk_rc;
static atomic_t walk_rc_cpus = ATOMIC_INIT(0);
static int walk_rc_state = -1;

/* CPUs' rule caches emptied because the store dropped a section. */
static atomic_long_t walk_flushes = ATOMIC_LONG_INIT(0);

/* Rules put into a rule cache: a walk's misses that the cache may keep. */
static atomic_long_t walk_fills = ATOMIC_LONG_INIT(0);

/* Sections found by walks, by source (the cache hides the ones reused). */
static atomic_long_t walk_found_reg, walk_found_elf;

/* Walks that ended on a bad frame, by the SFrame code that ended them. */
static atomic_long_t walk_bad[-SFRAME_E_MAX];

/**
 * ustack_walk_show() - the walk's lines of the stats file
 * @m: the stats file
 *
 * How many CPUs have a rule cache (the online ones, unless memory ran
 * short), how many times a CPU's rule cache was emptied because the store
 * dropped a section, and how many rules walks put into the caches; and
 * the sections walks found
 * registered and as the files' own PT_GNU_SFRAME (the store's are in its
 * store_hits), which tells the three SFrame sources of method sframe apart;
 * and, for each SFrame code that ended walks on a bad frame, how many
 * (bad_frame_<code>), which tells a wrong rule (cfa-not-above-sp,
 * bad-return-address) from a section that does not hold together.
 */
void ustack_walk_show(struct seq_file *m)
{
	long n;
	int i;

	seq_printf(m, "rule_cache_cpus %d\n", atomic_read(&walk_rc_cpus));
	seq_printf(m, "rule_cache_flushes %ld\n", atomic_long_read(&walk_flushes));
	seq_printf(m, "rule_cache_fills %ld\n", atomic_long_read(&walk_fills));
	seq_printf(m, "sections_registered %ld\n",
		   atomic_long_read(&walk_found_reg));
	seq_printf(m, "sections_elf %ld\n", atomic_long_read(&walk_found_elf));
	for (i = 1; i < ARRAY_SIZE(walk_bad); i++) {
		n = atomic_long_read(&walk_bad[i]);
		if (n)
			seq_printf(m, "bad_frame_%s %ld\n",
				   ustack_sframe_strerror(-i), n);
	}
}

/*
 * A CPU's rule cache is made before the CPU comes online and freed once it
 * is dead: the tables follow the online CPUs, not the possible ones (a
 * hypervisor may declare 128 hot-pluggable CPUs, 8 MiB of tables).  No
 * walk uses a dead CPU's table: a walk holds it with preemption disabled,
 * and a CPU goes down only after what it ran with preemption off ended.
 * A table that cannot be made leaves the CPU walking uncached, not
 * offline: the cache saves time, walks are right without it.
 */
static int walk_cpu_prepare(unsigned int cpu)
{
	struct walk_rcache *rc;

	/* zeroed: no entry is live */
	rc = kvzalloc_node(sizeof(*rc), GFP_KERNEL, cpu_to_node(cpu));
	if (!rc)	/* the allocator said so; rule_cache_cpus shows it */
		return 0;
	rc->sgen = ustack_store_generation();
	*per_cpu_ptr(walk_rc, cpu) = rc;
	atomic_inc(&walk_rc_cpus);
	return 0;
}

static int walk_cpu_dead(unsigned int cpu)
{
	struct walk_rcache **rcp = per_cpu_ptr(walk_rc, cpu);

	if (*rcp)
		atomic_dec(&walk_rc_cpus);
	kvfree(*rcp);
	*rcp = NULL;
	return 0;
}

/**
 * ustack_walk_exit() - free the per-CPU rule caches
 *
 * Called by module exit after the last walk, or by a failed init.
 */
void ustack_walk_exit(void)
{
	if (walk_rc_state >= 0)
		cpuhp_remove_state(walk_rc_state);
	walk_rc_state = -1;
	free_percpu(walk_rc);
	walk_rc = NULL;
}

/**
 * ustack_walk_init() - set up the rule caches of the online CPUs
 *
 * Called by module init before anything can walk.  CPUs that come online
 * later get theirs as they come.
 *
 * Return: 0, or -ENOMEM or the CPU hotplug state's error.
 */
int ustack_walk_init(void)
{
	int ret;

	walk_rc = alloc_percpu(struct walk_rcache *);
	if (!walk_rc)
		return -ENOMEM;
	ret = cpuhp_setup_state(CPUHP_BP_PREPARE_DYN, "ustack:rule_cache",
				walk_cpu_prepare, walk_cpu_dead);
	if (ret < 0) {
		ustack_walk_exit();
		return ret;
	}
	walk_rc_state = ret;
	return 0;
}

/* The section answer for a range of PCs, reused while PCs stay inside. */
struct walk_cache {
	struct sframe_sec sec;
	u64 lo, hi;
	u64 gen;		/* registry generation read before the lookup */
	u64 sgen;		/* store generation read before the lookup */
	bool valid, have;
	bool cacheable;		/* @sec's rules may be cached under @gen */
	struct store_reader rd;	/* reads a store section */
};

static const struct sframe_sec *walk_find(struct walk_cache *c,
					   struct mm_struct *mm, u64 pc)
{
	struct ustack_text_map t;
	u64 glo, ghi, dlo, dhi;

	if (c->valid && pc >= c->lo && pc < c->hi)
		return c->have ? &c->sec : NULL;
	c->valid = true;
	c->gen = ustack_registry_generation(mm);
	c->sgen = ustack_store_generation();
	if (ustack_registry_lookup(mm, pc, &c->sec, &glo, &ghi)) {
		atomic_long_inc(&walk_found_reg);
		c->have = true;
		c->cacheable = true;
		c->lo = c->sec.text_lo;
		c->hi = c->sec.text_hi;
		return &c->sec;
	}
	c->have = false;
	if (!ustack_text_map_get(pc, &t)) {
		if (!ustack_discovery_lookup(&t, &c->sec)) {
			atomic_long_inc(&walk_found_elf);
			c->have = true;
		} else {
			c->have = !ustack_store_lookup(&t, &c->sec, &c->rd);
		}
		ustack_text_map_put(&t);
	}
	dlo = t.start;
	dhi = t.end;
	/* Registrations win: a discovered range stops at the next one. */
	c->lo = max(glo, dlo);
	c->hi = min(ghi, dhi);
	if (c->lo > pc || c->hi <= pc) {
		c->lo = pc;
		c->hi = pc + 1;
	}
	if (!c->have)
		return NULL;
	c->sec.text_lo = c->lo;
	c->sec.text_hi = c->hi;
	/* no watch (nor the registry it needs) while the cache is off */
	c->cacheable = READ_ONCE(ustack_walk_rule_cache) &&
		       (!c->sec.rd || ustack_store_rd_unchanged(&c->rd)) &&
		       ustack_registry_watch(c->lo, c->hi, c->gen);
	return &c->sec;
}

/* The walk with its kernel context. */
struct walk_ctx {
	struct sframe_walk w;
	struct mm_struct *mm;
	struct walk_cache c;
	u64 text_lo, text_hi, data_lo, data_hi;	/* walk_is_text()'s last */
};

static const struct sframe_sec *walk_find_sec(struct sframe_walk *sw, u64 pc,
					      bool *cacheable)
{
	struct walk_ctx *x = container_of(sw, struct walk_ctx, w);
	const struct sframe_sec *sec = walk_find(&x->c, x->mm, pc);

	*cacheable = sec && x->c.cacheable;
	return sec;
}

static int walk_read_code(struct sframe_walk *sw, void *dst, u64 addr,
			  u32 len)
{
	if (addr > TASK_SIZE - len)
		return -EFAULT;
	return copy_from_user(dst, (const void __user *)addr, len) ? -EFAULT : 0;
}

/*
 * The stack scan's is_text: a VMA lookup under mmap_lock (task context,
 * no lock held across the walk's user reads), the last answer's range
 * remembered either way, as most scanned words are stack or data
 * addresses of one mapping and return addresses cluster in a few.
 */
static bool walk_is_text(struct sframe_walk *sw, u64 addr)
{
	struct walk_ctx *x = container_of(sw, struct walk_ctx, w);
	struct vm_area_struct *vma;
	bool text;

	if (addr >= x->text_lo && addr < x->text_hi)
		return true;
	if (addr >= x->data_lo && addr < x->data_hi)
		return false;
	if (addr < PAGE_SIZE || addr >= TASK_SIZE)
		return false;
	if (mmap_read_lock_killable(x->mm))
		return false;
	vma = find_vma(x->mm, addr);
	if (!vma) {
		x->data_lo = addr & PAGE_MASK;
		x->data_hi = TASK_SIZE;
		text = false;
	} else if (vma->vm_start > addr) {
		x->data_lo = addr & PAGE_MASK;
		x->data_hi = vma->vm_start;
		text = false;
	} else {
		text = (vma->vm_flags & VM_EXEC) && vma->vm_file;
		if (text) {
			x->text_lo = vma->vm_start;
			x->text_hi = vma->vm_end;
		} else {
			x->data_lo = vma->vm_start;
			x->data_hi = vma->vm_end;
		}
	}
	mmap_read_unlock(x->mm);
	return text;
}

/*
 * The per-CPU rule cache with this walk's entries live: those of its mm's
 * current generation (LOOKUP, RUN), or of the generation its section was
 * looked up under (FILL: unless a generation moved on since, as the rule
 * may be of a section gone since, or the section's store file changed).
 * A store that dropped a section since the cache was last used empties
 * it: store rules of every process may have gone.  Preemption stays
 * disabled until walk_cache_end(); RUN also disables page faults.
 */
static struct sframe_cache *walk_cache_begin(struct sframe_walk *sw,
					     enum sframe_cache_use use)
{
	struct walk_ctx *x = container_of(sw, struct walk_ctx, w);
	struct walk_rcache *rc;
	u64 gen, sgen;

	if (!walk_rc || !READ_ONCE(ustack_walk_rule_cache))
		return NULL;
	gen = ustack_registry_generation(x->mm);
	sgen = ustack_store_generation();
	if (!gen)
		return NULL;
	if (use == SFRAME_CACHE_FILL &&
	    (gen != x->c.gen || sgen != x->c.sgen ||
	     /* a store file rewritten since the bind: maybe a torn rule */
	     (x->c.sec.rd && !ustack_store_rd_unchanged(&x->c.rd))))
		return NULL;
	rc = *get_cpu_ptr(walk_rc);
	if (unlikely(!rc)) {
		put_cpu_ptr(walk_rc);
		return NULL;
	}
	/* generations only grow: a later read is never older */
	if (rc->sgen != sgen) {
		ustack_sframe_cache_reset(&rc->c);
		rc->sgen = sgen;
		atomic_long_inc(&walk_flushes);
	}
	ustack_sframe_cache_set_tag(&rc->c, gen);
	if (use == SFRAME_CACHE_FILL)
		atomic_long_inc(&walk_fills);
	else if (use == SFRAME_CACHE_RUN)
		pagefault_disable();
	return &rc->c;
}

static void walk_cache_end(struct sframe_walk *sw, enum sframe_cache_use use)
{
	lockdep_assert_preemption_disabled();
	if (use == SFRAME_CACHE_RUN)
		pagefault_enable();
	put_cpu_ptr(walk_rc);
}

static const struct sframe_walk_ops walk_ops = {
	.find_sec = walk_find_sec,
	.read_code = walk_read_code,
	.cache_begin = walk_cache_begin,
	.cache_end = walk_cache_end,
	.is_text = walk_is_text,
};

/* Module parameter guess: scan the stack where no rule is known. */
bool ustack_walk_guess;

/* Module parameter rule_cache: keep rules in the per-CPU rule cache. */
bool ustack_walk_rule_cache = true;

/**
 * ustack_walk_user() - walk the current task's user stack
 * @regs: its user-mode registers
 * @ips: the frames: ips[0] is the interrupted IP, then return addresses
 * @methods: each frame's enum ustack_method, or NULL
 * @max: room in @ips (and @methods)
 * @end: set to the walk's enum ustack_end
 *
 * In faultable task context: user memory is read with page faults taken.
 *
 * Return: the number of frames stored.
 */
u32 ustack_walk_user(struct pt_regs *regs, u64 *ips, u8 *methods, u32 max,
		     u8 *end)
{
	struct walk_ctx x = { .mm = current->mm };
	int clone;

	might_fault();
	if (!max) {
		*end = USTACK_END_DEPTH;
		return 0;
	}
	if (!regs || !x.mm || (current->flags & (PF_KTHREAD | USTACK_PF_WORKERS))) {
		*end = USTACK_END_KTHREAD;
		return 0;
	}
	if (!ustack_arch_user_native(regs)) {
		/* a compat task: no SFrame, no 4-byte FP walk (yet) */
		ips[0] = instruction_pointer(regs);
		if (methods)
			methods[0] = USTACK_METHOD_REGS;
		*end = USTACK_END_NO_INFO;
		return 1;
	}
	ustack_arch_regs_dwarf(regs, x.w.gpr);
	x.w.st.ip = x.w.gpr[SFRAME_REG_RA];
	x.w.st.sp = x.w.gpr[SFRAME_REG_SP];
	x.w.st.fp = x.w.gpr[SFRAME_REG_FP];
	x.w.st.gpr = x.w.gpr;
	x.w.ops = &walk_ops;
	x.w.ips = ips;
	x.w.methods = methods;
	x.w.max_frames = max;
	x.w.cache_burst = WALK_CACHED_BURST;
	if (READ_ONCE(ustack_walk_guess))
		x.w.flags |= SFRAME_WALK_GUESS;
	clone = ustack_arch_clone_return(regs);
	if (clone)
		x.w.flags |= clone > 0 ? SFRAME_WALK_CLONE_CHILD :
					 SFRAME_WALK_CLONE_PARENT;
	if (ustack_arch_in_sigreturn(regs))
		x.w.flags |= SFRAME_WALK_IN_SIGRETURN;
	ustack_sframe_walk(&x.w);
	ustack_store_rd_release(&x.c.rd);
	if (x.w.end == USTACK_END_BAD_FRAME && x.w.err < 0 &&
	    x.w.err > SFRAME_E_MAX)
		atomic_long_inc(&walk_bad[-x.w.err]);
	*end = x.w.end;
	return x.w.nr;
}
