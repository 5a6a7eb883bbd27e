// SPDX-License-Identifier: GPL-2.0
/*
 * Cooperative unwinding: a process that knows its own frames (an
 * interpreter) opts in through /dev/sframe; after the engine walked one
 * of its threads, that thread gets the process's real-time signal with
 * the stay's cookie, and its handler answers with its frames, which go
 * to the ring as an `interp` record of that cookie.
 *
 * The signal is raised only where the thread is about to run user code
 * with its system call's result final, so that it can never see EINTR
 * or a short result because of us.  The engine's task_work normally runs
 * on the exit path, where the signal queued here is handled right after
 * it; but task_work also runs inside system calls (io_uring_enter()'s
 * wait) and inside get_signal() ahead of a restart.  There the request
 * is owed instead: at the stay's real end (the engine's user-return
 * notifier) a task_work is queued and a self-interrupt raised, which
 * catches the thread at its first user instruction; that interrupt's
 * exit path raises the signal.  The thread's interpreter state has not
 * moved since the walk.
 *
 * The request says whether the process's SIGSEGV and SIGBUS handlers are
 * the request's own handler (si_errno): the handler then reads its own
 * memory with plain loads, and a fault of those reads cannot reach a
 * handler the program installed since.
 *
 * A thread has at most one request outstanding; walks while it is are
 * not signalled (busy), unanswered ones expire after coop_timeout_ms.
 * A thread that blocks the signal, has it pending already or has no
 * handler for it is not signalled either (a real-time signal's default
 * action would kill it).
 *
 * Processes are keyed by their mm (held with mmgrab(), so the pointer is
 * never reused while listed): fork() does not inherit the opt-in, exec
 * leaves it behind with the old mm; entries of dead mms are reclaimed
 * when the table is full.  Each opt-in gets a generation that is never
 * reused, and a thread's entry is keyed by its task, the task's start
 * time (a task_struct reused later starts later) and that generation:
 * a stale entry can never match another thread, nor the same thread
 * after an exec.
 *
 * Both tables are shared by every user: a user may take a free slot only
 * while it holds fewer than remain free, so one user gets at most half
 * of what others leave, and every entry comes back: an owed or asked
 * request expires after coop_timeout_ms whether its thread lives or not,
 * an exiting or exec'ing thread's entry is freed at its last walk, and
 * an entry whose task_work is queued belongs to that work until it ran.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/cred.h>
#include <linux/hash.h>
#include <linux/irq_work.h>
#include <linux/module.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/task_work.h>
#include <linux/uaccess.h>
#include "arch.h"
#include "coop.h"
#include "deferred.h"
#include "ring.h"

#define COOP_PROCS		256
#define COOP_THREADS		1024
#define COOP_HASH_BITS		8

unsigned int ustack_coop_timeout_ms = 100;
struct ustack_coop_stats ustack_coop_stats;

enum { COOP_FREE, COOP_OWED, COOP_ASKED };

struct coop_proc {
	struct mm_struct *mm;	/* mmgrab()bed; NULL when free */
	kuid_t uid;		/* of the opener */
	u64 gen;		/* of this opt-in, never reused */
	int sig;
};

/* Who a thread entry is for: nothing in it is ever reused. */
struct coop_key {
	const struct task_struct *task;	/* compared only */
	u64 start;			/* the task's start_time */
	u64 gen;			/* the process's opt-in */
};

struct coop_thread {
	struct hlist_node hnode;	/* hash, free list, or unhashed */
	struct coop_key key;		/* key.task NULL: free */
	kuid_t uid;
	u8 state;
	bool work_queued;		/* the work owns the entry */
	bool released;			/* freed while its work was queued */
	int sig;
	u64 cookie;
	unsigned long deadline;		/* jiffies, COOP_OWED and COOP_ASKED */
	struct callback_head work;
};

/* IRQs off: stay_end() looks the process up in the user-return notifier. */
static DEFINE_RAW_SPINLOCK(procs_lock);
static struct coop_proc procs[COOP_PROCS];
static atomic_t nr_procs = ATOMIC_INIT(0);
static u64 procs_gen;

/* IRQs off: stay_end() runs in the user-return notifier. */
static DEFINE_RAW_SPINLOCK(threads_lock);
static struct coop_thread threads[COOP_THREADS];
static struct hlist_head thread_hash[1 << COOP_HASH_BITS];
static HLIST_HEAD(thread_free);

static void kick_fn(struct irq_work *work)
{
}

static DEFINE_PER_CPU(struct irq_work, kick);

/*
 * The current process's signal (0: not opted in) and the key of the
 * current thread's entry.
 */
static int current_key(struct coop_key *key)
{
	const struct mm_struct *mm = current->mm;
	unsigned long flags;
	int i, sig = 0;

	if (!mm || !atomic_read(&nr_procs))
		return 0;
	raw_spin_lock_irqsave(&procs_lock, flags);
	for (i = 0; i < COOP_PROCS; i++)
		if (procs[i].mm == mm) {
			sig = procs[i].sig;
			key->gen = procs[i].gen;
			break;
		}
	raw_spin_unlock_irqrestore(&procs_lock, flags);
	key->task = current;
	key->start = current->start_time;
	return sig;
}

static struct hlist_head *bucket_of(const struct task_struct *t)
{
	return &thread_hash[hash_ptr(t, COOP_HASH_BITS)];
}

static struct coop_thread *thread_lookup(const struct coop_key *key)
{
	struct coop_thread *e;

	lockdep_assert_held(&threads_lock);
	hlist_for_each_entry(e, bucket_of(key->task), hnode)
		if (e->key.task == key->task && e->key.start == key->start &&
		    e->key.gen == key->gen)
			return e;
	return NULL;
}

/*
 * Free @e, or leave it to its queued work, which owns it until it ran:
 * unhashed, it matches no thread meanwhile.
 */
static void thread_free_locked(struct coop_thread *e)
{
	hlist_del_init(&e->hnode);
	e->key.task = NULL;
	e->state = COOP_FREE;
	if (e->work_queued)
		e->released = true;
	else
		hlist_add_head(&e->hnode, &thread_free);
}

static bool expired(const struct coop_thread *e)
{
	return e->state != COOP_FREE && time_after(jiffies, e->deadline);
}

/*
 * Reclaim every expired request (their threads may be gone, or never
 * return to user space) and count @uid's entries.
 */
static unsigned int reclaim_locked(kuid_t uid, unsigned int *nr_free)
{
	unsigned int held = 0, i;

	*nr_free = 0;
	for (i = 0; i < COOP_THREADS; i++) {
		struct coop_thread *e = &threads[i];

		if (e->key.task && !e->work_queued && expired(e)) {
			atomic_long_inc(&ustack_coop_stats.expired);
			thread_free_locked(e);
		}
		if (!e->key.task && !e->work_queued)
			(*nr_free)++;
		else if (e->key.task && uid_eq(e->uid, uid))
			held++;
	}
	return held;
}

/* A new entry for @key, within its user's share; NULL if none. */
static struct coop_thread *thread_new_locked(const struct coop_key *key)
{
	kuid_t uid = current_uid();
	struct coop_thread *e;
	unsigned int nr_free;

	if (reclaim_locked(uid, &nr_free) >= nr_free) {
		if (nr_free)
			atomic_long_inc(&ustack_coop_stats.share_refused);
		return NULL;
	}
	e = hlist_entry(thread_free.first, struct coop_thread, hnode);
	hlist_del(&e->hnode);
	e->key = *key;
	e->uid = uid;
	e->state = COOP_FREE;
	hlist_add_head(&e->hnode, bucket_of(key->task));
	return e;
}

/*
 * Raise the request's signal on current, or leave it owed when current
 * is inside a system call whose result is not final yet.
 */
static void try_send(struct coop_thread *e, const struct coop_key *key)
{
	struct kernel_siginfo info;
	struct sighand_struct *sh = current->sighand;
	unsigned long flags;
	bool blocked, pending, handled, guarded;
	__sighandler_t handler;
	u64 cookie;
	int sig;

	if (ustack_arch_syscall_unfinished(task_pt_regs(current))) {
		atomic_long_inc(&ustack_coop_stats.deferred);
		return;
	}
	raw_spin_lock_irqsave(&threads_lock, flags);
	if (e->state != COOP_OWED || e->key.task != key->task ||
	    e->key.start != key->start || e->key.gen != key->gen) {
		raw_spin_unlock_irqrestore(&threads_lock, flags);
		return;
	}
	sig = e->sig;
	cookie = e->cookie;
	raw_spin_unlock_irqrestore(&threads_lock, flags);

	spin_lock_irq(&sh->siglock);
	blocked = sigismember(&current->blocked, sig);
	pending = sigismember(&current->pending.signal, sig) ||
		  sigismember(&current->signal->shared_pending.signal, sig);
	handler = sh->action[sig - 1].sa.sa_handler;
	handled = handler != SIG_DFL && handler != SIG_IGN;
	/* Its reads may fault: are the faults its own handler's? */
	guarded = sh->action[SIGSEGV - 1].sa.sa_handler == handler &&
		  sh->action[SIGBUS - 1].sa.sa_handler == handler;
	spin_unlock_irq(&sh->siglock);

	raw_spin_lock_irqsave(&threads_lock, flags);
	if (blocked || pending || !handled) {
		atomic_long_inc(blocked ? &ustack_coop_stats.blocked :
				pending ? &ustack_coop_stats.pending :
				&ustack_coop_stats.no_handler);
		thread_free_locked(e);
		raw_spin_unlock_irqrestore(&threads_lock, flags);
		return;
	}
	e->state = COOP_ASKED;
	e->deadline = jiffies + msecs_to_jiffies(READ_ONCE(ustack_coop_timeout_ms));
	raw_spin_unlock_irqrestore(&threads_lock, flags);

	clear_siginfo(&info);
	info.si_signo = sig;
	info.si_code = SI_KERNEL;
	info.si_errno = guarded ? USTACK_COOP_SIG_GUARDED : 0;
	info.si_ptr = (void __user *)(unsigned long)cookie;
	if (send_sig_info(sig, &info, current)) {
		atomic_long_inc(&ustack_coop_stats.send_failed);
		raw_spin_lock_irqsave(&threads_lock, flags);
		if (e->key.task == key->task && e->state == COOP_ASKED &&
		    e->cookie == cookie)
			thread_free_locked(e);
		raw_spin_unlock_irqrestore(&threads_lock, flags);
		return;
	}
	atomic_long_inc(&ustack_coop_stats.signalled);
}

/* After each walk of a thread of an opted-in process. */
static void deliver(const struct ustack_task *st)
{
	struct coop_key key;
	struct coop_thread *e;
	unsigned long flags;
	int sig = current_key(&key);
	bool last;

	if (!sig)
		return;
	/* An exiting or exec'ing thread's last walk: its entry comes back. */
	last = st->end == USTACK_END_EXIT || st->end == USTACK_END_EXEC ||
	       (current->flags & PF_EXITING);
	raw_spin_lock_irqsave(&threads_lock, flags);
	e = thread_lookup(&key);
	if (last || !ustack_arch_user_native(task_pt_regs(current))) {
		if (e && last)
			thread_free_locked(e);
		raw_spin_unlock_irqrestore(&threads_lock, flags);
		return;
	}
	if (e && e->state == COOP_ASKED && !expired(e)) {
		atomic_long_inc(&ustack_coop_stats.busy);
		raw_spin_unlock_irqrestore(&threads_lock, flags);
		return;
	}
	/* Unanswered: its slot is not renewed by this walk. */
	if (e && e->state == COOP_ASKED) {
		atomic_long_inc(&ustack_coop_stats.expired);
		thread_free_locked(e);
		raw_spin_unlock_irqrestore(&threads_lock, flags);
		return;
	}
	if (!e)
		e = thread_new_locked(&key);
	if (!e) {
		atomic_long_inc(&ustack_coop_stats.full);
		raw_spin_unlock_irqrestore(&threads_lock, flags);
		return;
	}
	/* An owed request that was never raised gives way to this stay's. */
	e->state = COOP_OWED;
	e->sig = sig;
	e->cookie = st->cookie;
	e->deadline = jiffies + msecs_to_jiffies(READ_ONCE(ustack_coop_timeout_ms));
	raw_spin_unlock_irqrestore(&threads_lock, flags);
	try_send(e, &key);
}

static void owed_work(struct callback_head *head)
{
	struct coop_thread *e = container_of(head, struct coop_thread, work);
	struct coop_key key;
	unsigned long flags;
	bool owed;

	raw_spin_lock_irqsave(&threads_lock, flags);
	e->work_queued = false;
	key = e->key;
	owed = e->state == COOP_OWED && !e->released;
	/* Run by the exit path, or released meanwhile: the entry is back. */
	if (e->released || (current->flags & PF_EXITING)) {
		e->released = false;
		if (e->key.task)
			thread_free_locked(e);
		else
			hlist_add_head(&e->hnode, &thread_free);
		owed = false;
	}
	raw_spin_unlock_irqrestore(&threads_lock, flags);
	if (owed)
		try_send(e, &key);
	module_put(THIS_MODULE);
}

/* IRQs off, at the real return to user space of current. */
static void stay_end(const struct ustack_task *st)
{
	struct coop_thread *e;
	struct coop_key key;

	if (!current_key(&key))
		return;
	raw_spin_lock(&threads_lock);
	e = thread_lookup(&key);
	if (e && e->state == COOP_OWED && !e->work_queued) {
		init_task_work(&e->work, owed_work);
		if (!task_work_add(current, &e->work, TWA_RESUME)) {
			e->work_queued = true;
			__module_get(THIS_MODULE);
			irq_work_queue(this_cpu_ptr(&kick));
		}
	}
	raw_spin_unlock(&threads_lock);
}

static const struct ustack_client coop_client = {
	.deliver = deliver,
	.stay_end = stay_end,
	.every_walk = true,
};

/* ---- /dev/sframe: opt in, opt out --------------------------------------- */

/*
 * Under procs_lock: the slot of @mm, else a free one within @uid's share
 * (-ENOSPC: none).  Entries of dead processes (no mm users left) are
 * cleared on the way; their mms go to @dead, dropped by the caller once
 * the lock is released and no lookup can see them.
 */
static int proc_slot_locked(const struct mm_struct *mm, kuid_t uid,
			    struct mm_struct **dead)
{
	unsigned int held = 0, nr_free = 0;
	int i, free = -1;

	lockdep_assert_held(&procs_lock);
	for (i = 0; i < COOP_PROCS; i++) {
		dead[i] = NULL;
		if (procs[i].mm == mm)
			return i;
		if (procs[i].mm && !atomic_read(&procs[i].mm->mm_users)) {
			dead[i] = procs[i].mm;
			procs[i].mm = NULL;
			atomic_dec(&nr_procs);
		}
		if (!procs[i].mm) {
			nr_free++;
			if (free < 0)
				free = i;
		} else if (uid_eq(procs[i].uid, uid)) {
			held++;
		}
	}
	if (free >= 0 && held >= nr_free) {
		atomic_long_inc(&ustack_coop_stats.share_refused);
		return -ENOSPC;
	}
	return free < 0 ? -ENOSPC : free;
}

/**
 * ustack_coop_on() - opt the current process in to cooperative unwinding
 * @sig: the real-time signal its handler answers requests on
 *
 * Return: 0, -EINVAL, -EOPNOTSUPP (not a native process) or -ENOSPC (no
 * slot within the user's share).
 */
int ustack_coop_on(int sig)
{
	struct mm_struct *mm = current->mm;
	struct mm_struct **dead;
	unsigned long flags;
	int i, slot;

	if (sig < SIGRTMIN || sig > SIGRTMAX)
		return -EINVAL;
	if (!ustack_arch_user_native(task_pt_regs(current)))
		return -EOPNOTSUPP;
	dead = kcalloc(COOP_PROCS, sizeof(*dead), GFP_KERNEL);
	if (!dead)
		return -ENOMEM;
	raw_spin_lock_irqsave(&procs_lock, flags);
	slot = proc_slot_locked(mm, current_uid(), dead);
	if (slot >= 0 && procs[slot].mm == mm) {
		procs[slot].sig = sig;
	} else if (slot >= 0) {
		mmgrab(mm);
		procs[slot].mm = mm;
		procs[slot].uid = current_uid();
		procs[slot].gen = ++procs_gen;
		procs[slot].sig = sig;
		atomic_inc(&nr_procs);
	}
	raw_spin_unlock_irqrestore(&procs_lock, flags);
	for (i = 0; i < COOP_PROCS; i++)
		if (dead[i])
			mmdrop(dead[i]);
	kfree(dead);
	return slot < 0 ? slot : 0;
}

/**
 * ustack_coop_off() - opt the current process out
 *
 * Return: 0, or -ENOENT when it was not opted in.
 */
int ustack_coop_off(void)
{
	struct mm_struct *mm = current->mm;
	unsigned long flags;
	int i;

	raw_spin_lock_irqsave(&procs_lock, flags);
	for (i = 0; i < COOP_PROCS; i++)
		if (procs[i].mm == mm)
			break;
	if (i == COOP_PROCS) {
		raw_spin_unlock_irqrestore(&procs_lock, flags);
		return -ENOENT;
	}
	procs[i].mm = NULL;
	atomic_dec(&nr_procs);
	raw_spin_unlock_irqrestore(&procs_lock, flags);
	mmdrop(mm);
	return 0;
}

/* ---- /dev/sframe: the answer --------------------------------------------- */

static int refuse(int err, const char *why)
{
	atomic_long_inc(&ustack_coop_stats.refused);
	pr_info_ratelimited("pid %d tid %d (%s): interp answer refused: %s\n",
			    task_tgid_nr(current), task_pid_nr(current),
			    current->comm, why);
	return err;
}

/* Is the request @cookie the calling thread's outstanding one? */
static int check_cookie(u64 cookie, bool consume)
{
	struct coop_thread *e = NULL;
	struct coop_key key;
	unsigned long flags;
	int ret = 0;

	if (!current_key(&key))
		return -ESTALE;
	raw_spin_lock_irqsave(&threads_lock, flags);
	e = thread_lookup(&key);
	if (e && e->state == COOP_ASKED && expired(e)) {
		atomic_long_inc(&ustack_coop_stats.expired);
		thread_free_locked(e);
		e = NULL;
	}
	if (!e || e->state != COOP_ASKED)
		ret = -ESTALE;
	else if (e->cookie != cookie)
		ret = -EPERM;
	else if (consume)
		thread_free_locked(e);
	raw_spin_unlock_irqrestore(&threads_lock, flags);
	return ret;
}

static int check_string(const char *strtab, u32 len, u32 off)
{
	size_t n;

	if (off >= len)
		return refuse(-EINVAL, "string offset outside strtab");
	n = strnlen(strtab + off, len - off);
	if (n == len - off)
		return refuse(-EINVAL, "string not terminated");
	if (n >= USTACK_COOP_MAX_STRING)
		return refuse(-E2BIG, "string too long");
	return 0;
}

static bool lang_ok(const char *lang)
{
	size_t n = strnlen(lang, 16), i;

	if (!n || n == 16)
		return false;
	for (i = 0; i < n; i++)
		if (!isalnum(lang[i]) && !strchr("._-", lang[i]))
			return false;
	return true;
}

/* The header of an answer: 0, or the refusal's errno. */
static int check_answer(const struct ustack_coop_answer *a)
{
	int ret;

	if (a->size < sizeof(*a) || a->flags)
		return refuse(-EINVAL, "bad size or flags");
	if (a->nr_frames > USTACK_COOP_MAX_FRAMES ||
	    a->strtab_len > USTACK_COOP_MAX_STRTAB)
		return refuse(-E2BIG, "too many frames or string bytes");
	if (!lang_ok(a->lang))
		return refuse(-EINVAL, "bad lang");
	ret = check_cookie(a->cookie, false);
	if (ret)
		return refuse(ret, ret == -ESTALE ? "no request outstanding" :
			      "not this thread's cookie");
	return 0;
}

/* The frames of an answer, copied in: 0, or the refusal's errno. */
static int check_frames(const struct ustack_coop_frame *f, u32 nr,
			const char *strtab, u32 strtab_len)
{
	u32 i;
	int ret;

	for (i = 0; i < nr; i++) {
		if (f[i].reserved || (f[i].flags & ~USTACK_INTERP_ENTRY))
			return refuse(-EINVAL, "reserved bits set");
		ret = check_string(strtab, strtab_len, f[i].function);
		if (!ret)
			ret = check_string(strtab, strtab_len, f[i].file);
		if (ret)
			return ret;
	}
	return 0;
}

/* The "interp" record of a checked answer, into the ring. */
static void write_interp(struct ustack_rec_interp *rec, u32 alen,
			 const struct ustack_coop_answer *a,
			 const char *strtab)
{
	*rec = (struct ustack_rec_interp) {
		.hdr = {
			.type = USTACK_REC_INTERP,
			.size = ALIGN(alen + a->strtab_len, 8),
		},
		.cookie = a->cookie,
		.pid = task_tgid_nr(current),
		.tid = task_pid_nr(current),
		.nr_frames = a->nr_frames,
		.strtab_len = a->strtab_len,
	};
	memcpy(rec->lang, a->lang, sizeof(rec->lang));
	if (ustack_ring_active())
		ustack_ring_write(rec, alen, strtab, a->strtab_len);
}

int ustack_coop_answer(const void __user *uarg)
{
	struct ustack_coop_answer a;
	struct ustack_rec_interp *rec;
	struct ustack_coop_frame *f;
	char *strtab;
	u32 alen;
	int ret;

	if (copy_from_user(&a, uarg, sizeof(a)))
		return -EFAULT;
	ret = check_answer(&a);
	if (ret)
		return ret;
	alen = sizeof(*rec) + a.nr_frames * sizeof(*f);
	rec = kzalloc(alen + a.strtab_len, GFP_KERNEL);
	if (!rec)
		return -ENOMEM;
	f = (struct ustack_coop_frame *)(rec + 1);
	strtab = (char *)(f + a.nr_frames);
	ret = -EFAULT;
	if (copy_from_user(f, u64_to_user_ptr(a.frames),
			   a.nr_frames * sizeof(*f)) ||
	    copy_from_user(strtab, u64_to_user_ptr(a.strtab), a.strtab_len))
		goto out;
	ret = check_frames(f, a.nr_frames, strtab, a.strtab_len);
	if (ret)
		goto out;
	ret = check_cookie(a.cookie, true);
	if (ret) {
		ret = refuse(ret, "request gone meanwhile");
		goto out;
	}
	/* Nothing to say (no interpreter frame now): the request is done. */
	if (!a.nr_frames) {
		atomic_long_inc(&ustack_coop_stats.empty);
		goto out;
	}
	atomic_long_inc(&ustack_coop_stats.answered);
	write_interp(rec, alen, &a, strtab);
out:
	kfree(rec);
	return ret;
}

/* Thread entries in use (asked, owed or owned by a queued work). */
int ustack_coop_threads(void)
{
	unsigned long flags;
	int i, n = 0;

	raw_spin_lock_irqsave(&threads_lock, flags);
	for (i = 0; i < COOP_THREADS; i++)
		if (threads[i].key.task || threads[i].work_queued)
			n++;
	raw_spin_unlock_irqrestore(&threads_lock, flags);
	return n;
}

int ustack_coop_procs(void)
{
	return atomic_read(&nr_procs);
}

void ustack_coop_init(void)
{
	int i;

	for (i = 0; i < COOP_THREADS; i++)
		hlist_add_head(&threads[i].hnode, &thread_free);
	for_each_possible_cpu(i)
		per_cpu(kick, i) = IRQ_WORK_INIT_HARD(kick_fn);
	ustack_deferred_client_register(USTACK_CLIENT_COOP, &coop_client);
}

void ustack_coop_exit(void)
{
	int i;

	ustack_deferred_client_unregister(USTACK_CLIENT_COOP);
	for_each_possible_cpu(i)
		irq_work_sync(per_cpu_ptr(&kick, i));
	for (i = 0; i < COOP_PROCS; i++)
		if (procs[i].mm)
			mmdrop(procs[i].mm);
}
