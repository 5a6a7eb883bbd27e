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
 * The tables of processes and of requests are in coop_procs.c and
 * coop_threads.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
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
#include "coop_table.h"
#include "deferred.h"
#include "py_frames.h"
#include "ring.h"
#include "stage_times.h"

unsigned int ustack_coop_timeout_ms = 100;

static void kick_fn(struct irq_work *work)
{
}

static DEFINE_PER_CPU(struct irq_work, kick);

/*
 * Raise the request's signal on current, or leave it owed when current
 * is inside a system call whose result is not final yet.
 */
static void send_request(struct coop_thread *e, const struct coop_key *key)
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
	raw_spin_lock_irqsave(&ustack_coop_threads_lock, flags);
	if (e->state != COOP_OWED || e->key.task != key->task ||
	    e->key.start != key->start || e->key.gen != key->gen) {
		raw_spin_unlock_irqrestore(&ustack_coop_threads_lock, flags);
		return;
	}
	sig = e->sig;
	cookie = e->cookie;
	raw_spin_unlock_irqrestore(&ustack_coop_threads_lock, flags);

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

	raw_spin_lock_irqsave(&ustack_coop_threads_lock, flags);
	if (blocked || pending || !handled) {
		atomic_long_inc(blocked ? &ustack_coop_stats.blocked :
				pending ? &ustack_coop_stats.pending :
				&ustack_coop_stats.no_handler);
		ustack_coop_thread_free_locked(e);
		raw_spin_unlock_irqrestore(&ustack_coop_threads_lock, flags);
		return;
	}
	e->state = COOP_ASKED;
	e->deadline = jiffies + msecs_to_jiffies(READ_ONCE(ustack_coop_timeout_ms));
	raw_spin_unlock_irqrestore(&ustack_coop_threads_lock, flags);

	clear_siginfo(&info);
	info.si_signo = sig;
	info.si_code = SI_KERNEL;
	info.si_errno = guarded ? USTACK_COOP_SIG_GUARDED : 0;
	info.si_ptr = (void __user *)(unsigned long)cookie;
	if (send_sig_info(sig, &info, current)) {
		atomic_long_inc(&ustack_coop_stats.send_failed);
		raw_spin_lock_irqsave(&ustack_coop_threads_lock, flags);
		if (e->key.task == key->task && e->state == COOP_ASKED &&
		    e->cookie == cookie)
			ustack_coop_thread_free_locked(e);
		raw_spin_unlock_irqrestore(&ustack_coop_threads_lock, flags);
		return;
	}
	atomic_long_inc(&ustack_coop_stats.signalled);
}

/* send_request(), timed as the stage coop_request (stage_times=1). */
static void try_send(struct coop_thread *e, const struct coop_key *key)
{
	u64 t0 = ustack_stage_begin();

	send_request(e, key);
	ustack_stage_end(USTACK_STAGE_COOP_REQUEST, t0);
}

/* After each walk of a thread of an opted-in process. */
static void deliver(const struct ustack_task *st)
{
	struct coop_key key;
	struct coop_thread *e;
	unsigned long flags;
	int sig;
	bool last;

	/* the kernel reads the interpreter's frames itself: no signal then */
	if (st->end != USTACK_END_EXIT && st->end != USTACK_END_EXEC &&
	    !(current->flags & PF_EXITING) &&
	    ustack_py_frames(st->cookie, st->ips, st->nr))
		return;
	sig = ustack_coop_current_key(&key);
	if (!sig)
		return;
	/* An exiting or exec'ing thread's last walk: its entry comes back. */
	last = st->end == USTACK_END_EXIT || st->end == USTACK_END_EXEC ||
	       (current->flags & PF_EXITING);
	raw_spin_lock_irqsave(&ustack_coop_threads_lock, flags);
	e = ustack_coop_thread_lookup(&key);
	if (last || !ustack_arch_user_native(task_pt_regs(current))) {
		if (e && last)
			ustack_coop_thread_free_locked(e);
		raw_spin_unlock_irqrestore(&ustack_coop_threads_lock, flags);
		return;
	}
	if (e && e->state == COOP_ASKED && !ustack_coop_expired(e)) {
		atomic_long_inc(&ustack_coop_stats.busy);
		raw_spin_unlock_irqrestore(&ustack_coop_threads_lock, flags);
		return;
	}
	/* Unanswered: its slot is not renewed by this walk. */
	if (e && e->state == COOP_ASKED) {
		atomic_long_inc(&ustack_coop_stats.expired);
		ustack_coop_thread_free_locked(e);
		raw_spin_unlock_irqrestore(&ustack_coop_threads_lock, flags);
		return;
	}
	if (!e)
		e = ustack_coop_thread_new_locked(&key);
	if (!e) {
		atomic_long_inc(&ustack_coop_stats.full);
		raw_spin_unlock_irqrestore(&ustack_coop_threads_lock, flags);
		return;
	}
	/* An owed request that was never raised gives way to this stay's. */
	e->state = COOP_OWED;
	e->sig = sig;
	e->cookie = st->cookie;
	e->deadline = jiffies + msecs_to_jiffies(READ_ONCE(ustack_coop_timeout_ms));
	raw_spin_unlock_irqrestore(&ustack_coop_threads_lock, flags);
	try_send(e, &key);
}

static void owed_work(struct callback_head *head)
{
	struct coop_thread *e = container_of(head, struct coop_thread, work);
	struct coop_key key;
	unsigned long flags;
	bool owed;

	raw_spin_lock_irqsave(&ustack_coop_threads_lock, flags);
	key = e->key;
	owed = ustack_coop_thread_work_done_locked(e, current->flags & PF_EXITING);
	raw_spin_unlock_irqrestore(&ustack_coop_threads_lock, flags);
	if (owed)
		try_send(e, &key);
	module_put(THIS_MODULE);
}

/* IRQs off, at the real return to user space of current. */
static void stay_end(const struct ustack_task *st)
{
	struct coop_thread *e;
	struct coop_key key;

	if (!ustack_coop_current_key(&key))
		return;
	raw_spin_lock(&ustack_coop_threads_lock);
	e = ustack_coop_thread_lookup(&key);
	/* No reference once unloading has begun: nothing is queued then. */
	if (e && e->state == COOP_OWED && !e->work_queued &&
	    try_module_get(THIS_MODULE)) {
		init_task_work(&e->work, owed_work);
		if (!task_work_add(current, &e->work, TWA_RESUME)) {
			e->work_queued = true;
			irq_work_queue(this_cpu_ptr(&kick));
		} else {
			module_put(THIS_MODULE);
		}
	}
	raw_spin_unlock(&ustack_coop_threads_lock);
}

static const struct ustack_client coop_client = {
	.deliver = deliver,
	.stay_end = stay_end,
	.every_walk = true,
};

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

	if (!ustack_coop_current_key(&key))
		return -ESTALE;
	raw_spin_lock_irqsave(&ustack_coop_threads_lock, flags);
	e = ustack_coop_thread_lookup(&key);
	if (e && e->state == COOP_ASKED && ustack_coop_expired(e)) {
		atomic_long_inc(&ustack_coop_stats.expired);
		ustack_coop_thread_free_locked(e);
		e = NULL;
	}
	if (!e || e->state != COOP_ASKED)
		ret = -ESTALE;
	else if (e->cookie != cookie)
		ret = -EPERM;
	else if (consume)
		ustack_coop_thread_free_locked(e);
	raw_spin_unlock_irqrestore(&ustack_coop_threads_lock, flags);
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

static int coop_answer(const void __user *uarg)
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
	/*
	 * Not zeroed: the frames and strings are copied over it whole, the
	 * header (no implicit padding) is written whole by write_interp().
	 */
	rec = kmalloc(alen + a.strtab_len, GFP_KERNEL);
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

/* An answer's ioctl, timed as the stage coop_answer (stage_times=1). */
int ustack_coop_answer(const void __user *uarg)
{
	u64 t0 = ustack_stage_begin();
	int ret = coop_answer(uarg);

	ustack_stage_end(USTACK_STAGE_COOP_ANSWER, t0);
	return ret;
}

void ustack_coop_init(void)
{
	int i;

	ustack_coop_threads_init();
	ustack_coop_procs_init();
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
	ustack_coop_procs_exit();
}
