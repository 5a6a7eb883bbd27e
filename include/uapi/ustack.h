/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * ustack user-space API: the /dev/sframe ioctls, the /dev/ustack stream's
 * binary record layout, the cookie layout, and the method, end-reason and
 * event codes (their text names: include/ustack_names.h).
 *
 * Every ioctl argument starts with a u32 size (the caller's sizeof) and a u32
 * flags word; unknown flags are refused with EINVAL, a size smaller than the
 * first published layout with EINVAL.  All binary records are little-endian,
 * 8-byte aligned, and start with struct ustack_rec_hdr.
 *
 * Cookie: identifies one kernel stay of one task (from entry to the real
 * return to user space).  Layout, as upstream's unwind_deferred:
 *     bits 63..32: a per-CPU counter, always odd (so the cookie is never 0)
 *     bits 31..0 : the number of the CPU that assigned it, plus one
 * Unique system-wide until one CPU's counter wraps (2^31 stays).
 */
#ifndef _UAPI_USTACK_H
#define _UAPI_USTACK_H

#include <linux/types.h>
#include <linux/ioctl.h>

#define USTACK_IOC_MAGIC	0xb7

#define USTACK_COOKIE_CPU(c)	((__u32)((c) & 0xffffffffu) - 1)
#define USTACK_COOKIE_COUNT(c)	((__u32)((c) >> 32))

/* How a user frame was recovered. */
enum ustack_method {
	USTACK_METHOD_REGS	= 0,	/* the interrupted user IP */
	USTACK_METHOD_SFRAME	= 1,	/* SFrame rule */
	USTACK_METHOD_FP	= 2,	/* frame pointer */
	USTACK_METHOD_SIGNAL	= 3,	/* registers from a signal frame */
	USTACK_METHOD_ENTRY	= 4,	/* return address at SP: clone's return */
	USTACK_METHOD_GUESS	= 5,	/* found by scanning the stack */
	USTACK_METHOD_MAX
};

/* Why a walk ended. */
enum ustack_end {
	USTACK_END_OUTERMOST	= 0,	/* the program's or thread's first frame */
	USTACK_END_FAULT	= 1,	/* a read of user memory faulted */
	USTACK_END_DEPTH	= 2,	/* max_frames reached */
	USTACK_END_NO_INFO	= 3,	/* no SFrame and no usable frame pointer */
	USTACK_END_BAD_FRAME	= 4,	/* CFA not above SP, misaligned, loop */
	USTACK_END_EXIT		= 5,	/* the task exited before the walk */
	USTACK_END_EXEC		= 6,	/* the task exec'd before the walk */
	USTACK_END_NOMEM	= 7,	/* no memory for the walk */
	USTACK_END_KTHREAD	= 8,	/* not a user task (kernel thread, io worker) */
	USTACK_END_BUDGET	= 9,	/* the walk's work budget is spent */
	USTACK_END_SCAN_END	= 10,	/* stack scan: no return address in its window */
	USTACK_END_SCAN_FAULT	= 11,	/* stack scan: ran off the readable stack */
	USTACK_END_MAX
};

/*
 * Work budgets.  /dev/sframe is open to every user and every process is
 * walked when root profiles the system, so what one walk, one lookup or
 * one validation of a section may cost is bounded whatever the section
 * and the stack hold, to a few milliseconds per walk:
 *
 * - A registered or discovered section is at most USTACK_SFRAME_MAX_BYTES;
 *   its FDEs must be sorted (SFRAME_F_FDE_SORTED, checked on every path:
 *   a lookup is a binary search), and no FDE may have more than
 *   USTACK_SFRAME_MAX_FDE_FRES FREs (no toolchain writes more: v3 cannot
 *   express more), else the section is refused (EBADMSG).  Validating it,
 *   at registration or on first use, reads each byte once; it reschedules
 *   and stops for a fatal signal (EINTR) every
 *   USTACK_SFRAME_VALIDATE_STRIDE FDEs or FREs.
 * - One lookup visits at most USTACK_LOOKUP_MAX_FDES FDEs and
 *   USTACK_LOOKUP_MAX_FRES FREs.
 * - One walk visits at most USTACK_WALK_MAX_FDES FDEs, USTACK_WALK_MAX_FRES
 *   FREs and USTACK_WALK_MAX_BYTES bytes of SFrame data in all its
 *   lookups; a walk that spends its budget ends with USTACK_END_BUDGET.
 *   Between frames it reschedules, and a task with a fatal signal pending
 *   ends its walk with USTACK_END_EXIT.
 */
#define USTACK_SFRAME_MAX_BYTES		(64U << 20)
#define USTACK_SFRAME_MAX_FDE_FRES	65535U
#define USTACK_SFRAME_VALIDATE_STRIDE	4096U
#define USTACK_LOOKUP_MAX_FDES		65536U
#define USTACK_LOOKUP_MAX_FRES		(USTACK_SFRAME_MAX_FDE_FRES + 1)
#define USTACK_WALK_MAX_FDES		65536U
#define USTACK_WALK_MAX_FRES		262144U
#define USTACK_WALK_MAX_BYTES		(4U << 20)

/*
 * The stack scan (module parameter guess=1): a walk that would end with
 * no-info or bad-frame looks for the next return address at most
 * USTACK_GUESS_MAX_WORDS 8-byte words above the last frame's slot, and
 * reads at most USTACK_GUESS_WALK_WORDS words in all; each word read costs
 * 8 bytes and each code read its length of USTACK_WALK_MAX_BYTES.  An E8
 * call whose target lies at most USTACK_GUESS_MAX_FUNC bytes below the
 * previous frame's PC is preferred over any other call found at most
 * USTACK_GUESS_LOOKAHEAD words below it (README: "Stack scanning").
 */
#define USTACK_GUESS_MAX_WORDS		512U
#define USTACK_GUESS_WALK_WORDS		16384U
#define USTACK_GUESS_MAX_FUNC		(256U << 10)
#define USTACK_GUESS_LOOKAHEAD		16U

/* ---- /dev/sframe -------------------------------------------------------- */

/*
 * Register the SFrame section [sframe_start, sframe_start + sframe_len) of
 * the caller's own address space as the unwind data for the text range
 * [text_start, text_end).  The section is read at walk time, never pinned.
 *
 * A registration belongs to the caller's address space (mm): all its
 * threads share it; it goes away when its text or SFrame range is unmapped
 * (munmap, dlclose, mremap away, mmap MAP_FIXED over it; not mprotect or
 * madvise); fork() copies all of them into the child; exec starts empty.
 * Per process at most 256 registrations and 64 MiB of SFrame bytes.
 * Executable file mappings without a registration use the file's
 * PT_GNU_SFRAME segment, if any (ELF discovery).
 *
 * REGISTER errors: EINVAL bad size/flags, empty or wrapping range; EFAULT
 * argument unreadable, range outside user space, or section unreadable;
 * ENXIO a range not fully mapped; EACCES text not executable or SFrame
 * not readable; EBADMSG malformed section (header, bounds, FDEs, FREs);
 * EOPNOTSUPP SFrame version or ABI not supported; EEXIST text or SFrame
 * range overlaps an existing registration; ENOSPC too many registrations;
 * EDQUOT byte cap exceeded; ENOMEM; EINTR.  Each refusal logs one
 * rate-limited kernel line naming the reason.
 * UNREGISTER: by sframe_start (text_start/text_end, if not 0, must match
 * too); ENOENT if there is no such registration.
 */
struct sframe_reg {
	__u32 size;		/* sizeof(struct sframe_reg) */
	__u32 flags;		/* none defined: must be 0 */
	__u64 sframe_start;
	__u64 sframe_len;
	__u64 text_start;
	__u64 text_end;
};

/*
 * The caller's own user stack, walked synchronously in the ioctl: ips[0]
 * is the user IP at the ioctl's system call, then return addresses
 * (SFrame, else frame pointers; signal frames are crossed).  max_frames
 * above 1024 is taken as 1024.  EINVAL bad size/flags/reserved or ips 0;
 * EFAULT ips or methods not writable.  32-bit callers get one frame and
 * end_reason NO_INFO.
 */
struct ustack_self {
	__u32 size;		/* sizeof(struct ustack_self) */
	__u32 flags;		/* none defined: must be 0 */
	__u64 ips;		/* user pointer: __u64[max_frames], filled */
	__u64 methods;		/* user pointer: __u8[max_frames], or 0 */
	__u32 max_frames;	/* in: capacity of ips (and methods) */
	__u32 nr_frames;	/* out: frames stored */
	__u32 end_reason;	/* out: enum ustack_end */
	__u32 reserved;		/* must be 0 */
	__u64 cookie;		/* out: the cookie of this kernel stay */
};

/*
 * Cooperative unwinding: a process (an interpreter, a JIT) that knows its
 * own frames opts in with SFRAME_IOC_COOP_ON, naming a real-time signal
 * (SIGRTMIN..SIGRTMAX) it handles.  When the kernel has walked one of its
 * threads' native stack, it raises that signal on the thread at the real
 * return to user space (after the system call's result is final; never
 * while the thread blocks it or has no handler for it), with
 * si_code == SI_KERNEL and the stay's cookie in si_value.sival_ptr.  The
 * handler answers with SFRAME_IOC_COOP_ANSWER, once; the answer becomes an
 * `interp` record of that cookie.  A thread has at most one request
 * outstanding: later walks are not signalled until it is answered or has
 * expired (module parameter coop_timeout_ms).
 *
 * The opt-in belongs to the address space: every thread of the process;
 * fork() does not inherit it (the child has a new address space: the shim
 * opts its child in again), exec clears it.  Native 64-bit callers only.
 *
 * A request's si_errno is USTACK_COOP_SIG_GUARDED when the process's
 * SIGSEGV and SIGBUS handlers are the request signal's own handler (a
 * handler that turns a fault of its own reads into a failed read, and
 * passes every other fault on), else 0: the handler may then read its
 * process's memory with plain loads, as no fault of theirs can reach a
 * handler of the program instead.
 *
 * COOP_ON errors: EINVAL bad size/flags/reserved or a signal outside
 * SIGRTMIN..SIGRTMAX; ENOSPC too many processes opted in, or the
 * caller's user holds its share already (as many as remain free);
 * EOPNOTSUPP a 32-bit caller.  COOP_ON again changes the signal.  COOP_OFF: ENOENT
 * when not opted in.
 */
struct ustack_coop {
	__u32 size;		/* sizeof(struct ustack_coop) */
	__u32 flags;		/* none defined: must be 0 */
	__u32 signo;		/* COOP_ON: the signal; COOP_OFF: ignored */
	__u32 reserved;		/* must be 0 */
};

/* An answer's frame.  Strings are offsets into the answer's strtab. */
struct ustack_coop_frame {
	__u32 function;		/* NUL-terminated name */
	__u32 file;		/* NUL-terminated file name */
	__u32 line;		/* 0: unknown */
	__u16 flags;		/* USTACK_INTERP_* */
	__u16 reserved;		/* must be 0 */
	__u32 native;		/* the native frame it ran in, or NATIVE_NONE */
};

/*
 * native: the shim sends NATIVE_NONE, as a handler cannot tell which
 * frame of the kernel's walk is which without walking again; the text
 * form writes USTACK_INTERP_ENTRY as a trailing word "entry", and
 * ustack-report matches the entry frames, in order, to the interpreter's
 * evaluator frames of the user record of the same cookie.
 */

#define USTACK_INTERP_ENTRY	0x1	/* began a new native evaluation */
#define USTACK_COOP_SIG_GUARDED	1	/* a request's si_errno: see above */
#define USTACK_INTERP_NATIVE_NONE	0xffffffffu

#define USTACK_COOP_MAX_FRAMES	128
#define USTACK_COOP_MAX_STRTAB	8192
#define USTACK_COOP_MAX_STRING	2048	/* one name, with its NUL */

/*
 * COOP_ANSWER errors: EINVAL bad size/flags/reserved, a string offset
 * outside strtab, a string not NUL-terminated, an empty or non-[a-z0-9._-]
 * lang; E2BIG more than USTACK_COOP_MAX_FRAMES frames, strtab above
 * USTACK_COOP_MAX_STRTAB or one string above USTACK_COOP_MAX_STRING;
 * ESTALE the calling thread has no request outstanding (answered already,
 * expired, never asked, or exec'd since); EPERM the cookie is not the
 * calling thread's outstanding one (forged, another thread's); EFAULT.
 * A refused answer changes nothing: the request stays outstanding.  An
 * answer of 0 frames (no interpreter frame at the moment) ends the
 * request without a record: the thread's next walk is signalled again
 * instead of waiting for the request to expire.
 */
struct ustack_coop_answer {
	__u32 size;		/* sizeof(struct ustack_coop_answer) */
	__u32 flags;		/* none defined: must be 0 */
	__u64 cookie;		/* from the signal's si_value */
	__u64 frames;		/* user pointer: ustack_coop_frame[nr_frames] */
	__u64 strtab;		/* user pointer: strtab_len bytes */
	__u32 nr_frames;	/* innermost first */
	__u32 strtab_len;
	char lang[16];		/* NUL-terminated: "python3.11" */
};

/*
 * The system-wide SFrame store: unwind data for one ELF object, keyed by
 * the object's file (its device and inode, as ELF discovery keys it), so
 * that every process mapping the object, in any mount namespace, is
 * covered with no help from the process.  Requires CAP_SYS_ADMIN or
 * CAP_PERFMON (else EPERM); ustackd is its user.
 *
 * The module keeps a reference to the store file, never its bytes: the
 * section [sframe_off, sframe_off + sframe_len) of that file is read
 * through the page cache at walk time (task_work, where faults are
 * allowed), so it is shared by every process, reclaimable, and costs
 * nothing while unused.  The section's addresses are the object's ELF
 * virtual addresses, as if the section were loaded at sframe_vaddr (an
 * address of the object's ELF image that no segment needs to cover:
 * ustackd's generator uses 0).  A walk uses a store entry for a PC when
 * the process has no registration of its own for it and the file has no
 * PT_GNU_SFRAME; frames found so have method "sframe" (the stats count
 * store lookups apart).
 *
 * STORE_ADD replaces an earlier entry for the same object (unless
 * SFRAME_STORE_KEEP, below).  Errors:
 * EPERM not privileged; EBADF a descriptor not open for reading; EINVAL
 * bad size/flags/reserved, object not a regular ELF file of the CPU with an
 * executable PT_LOAD, store file not a regular file or on a filesystem
 * whose pages cannot be read through the page cache, empty or wrapping
 * range, range past the store file's end; EBADMSG the section is not
 * valid SFrame or longer than USTACK_SFRAME_MAX_BYTES (validated once, at
 * STORE_ADD, with the budgets above); EOPNOTSUPP version or ABI not
 * supported; EFAULT the store file could not be read; ENOSPC the store is
 * full (module parameter store_max); E2BIG a size past the kernel's
 * struct with bytes there not zero; ENOMEM; EINTR.
 * The key is the object's device, inode number, generation, ctime and
 * size at STORE_ADD: an object replaced or written to since has another
 * key and is not covered (it is queued as a miss when walked).  A store
 * file truncated after STORE_ADD is read as far as it goes: walks that
 * need what is gone stop there as at a fault.
 * STORE_DEL: by object_fd (other fields ignored); ENOENT if the object
 * has no entry.  STORE_FLUSH drops every entry (argument ignored).
 *
 * SFRAME_STORE_VDSO in flags: the entry of the vDSO, which has no file.
 * object_fd is ignored; the section must be SFrame generated from the
 * caller's own vDSO image (getauxval(AT_SYSINFO_EHDR): the 64-bit vDSO of
 * the running kernel, the same in every 64-bit process), its addresses
 * relative to the image's ELF addresses as for a file.  There is one such
 * entry: STORE_ADD replaces it, STORE_DEL (flag set) drops it (ENOENT if
 * none), STORE_FLUSH and rmmod drop it with the others.  It serves every
 * process whose vDSO is that image; 32-bit and x32 processes map another
 * image and are not covered.  Errors as above, and EOPNOTSUPP when the
 * caller's own vDSO is not an ELF64 image of the CPU (a 32-bit or x32 caller,
 * or none), EBADMSG also for functions outside the image's text.
 *
 * SFRAME_STORE_KEEP in flags (STORE_ADD only; EINVAL with STORE_DEL): add
 * only if the object has no entry.  If its key (or, with
 * SFRAME_STORE_VDSO, the caller's vDSO image) has one, whatever store
 * file and offset that entry names, STORE_ADD fails with EEXIST before
 * reading anything (only object_fd is looked at: EBADF, EINVAL as above),
 * and the entry, its rules cached by walks and the store's generation are
 * left as they were (counted in the stats' store_kept).  Any entry is
 * kept, not only one from the same store file: entries are made from the
 * object's own bytes, so two for one key say the same, and ustackd's,
 * which replaces without the flag, are the authority; an object replaced
 * or written since has another key and is added.  Root's shim passes it
 * for each object of every process it starts.
 *
 * SFRAME_STORE_USER in flags: @user is the user of a process mapping the
 * object, charged for its entry if it is a user's object (one someone
 * other than root may write, or on a file system a user mounted or
 * serves), each user holding at most the module parameter store_user_max
 * such entries (a new one evicts the user's oldest).  A user is who a
 * process counts as for every share of the module: its real uid in the
 * initial user namespace; for a process in another user namespace, the
 * owner's uid of the outermost one below the initial, or, where that
 * owner is root, USTACK_USER_NS | that namespace's inode number (the
 * st_ino of /proc/PID/ns/user).  So a rootless container's subordinate
 * uids are one user, the one who made it.  Without the flag the entry is
 * charged to the file's owner (@user must be 0).  Bits 32 to 62 of @user
 * are EINVAL.  @python: see struct ustack_python.  Sizes from
 * offsetofend(sframe_vaddr) on are accepted (@user then 0); fields past
 * the kernel's struct must be zero (E2BIG).
 */
#define SFRAME_STORE_VDSO	(1U << 0)
#define SFRAME_STORE_KEEP	(1U << 1)
#define SFRAME_STORE_USER	(1U << 2)

#define USTACK_USER_NS		(1ULL << 63)

struct sframe_store_reg {
	__u32 size;		/* sizeof(struct sframe_store_reg) */
	__u32 flags;		/* SFRAME_STORE_VDSO, _KEEP, _USER */
	__s32 object_fd;	/* the ELF object (its inode is the key) */
	__s32 sframe_fd;	/* the store file holding the section */
	__u64 sframe_off;	/* offset of the section in the store file */
	__u64 sframe_len;
	__u64 sframe_vaddr;	/* ELF address the section is relative to */
	__u64 user;		/* with SFRAME_STORE_USER: whose entry */
	__u64 python;		/* user pointer: struct ustack_python, or 0 */
};
#define SFRAME_STORE_REG_SIZE0	40	/* without user */

/*
 * A CPython in the object (its executable or libpython): where its
 * runtime state is, and the layout of what the kernel reads there, so
 * that every process mapping the object gets its Python frames from the
 * kernel's walk, with no help from the process (an `interp` record of
 * the walk's cookie, lang "python3.X", as a cooperative answer gives).
 * ustackd fills it from the object's file: the symbols _PyRuntime,
 * PyCode_Type and Py_Version, the layout 3.11's known one, 3.13 on the
 * _Py_DebugOffsets at the start of _PyRuntime's initial bytes (checked
 * again in the process at each walk: cookie and version).  Offsets are
 * in bytes, USTACK_PY_NONE where a version has no such field.  A layout
 * that does not fit USTACK_PY_STRUCT_MAX, or names no thread list, is
 * EINVAL; an object with a PT_GNU_SFRAME of its own, which ustackd does
 * not add, has no Python frames read.
 */
#define USTACK_PY_NONE		0xffff
#define USTACK_PY_STRUCT_MAX	4096	/* every offset is below it */
#define USTACK_PY_FRAME_MAX	128	/* fr_read, str_compact_data: at most */
#define USTACK_PY_INSTR_IS_PREV	(1U << 0)	/* fr_instr: the last unit run */
#define USTACK_PY_DEBUG_OFFSETS	(1U << 1)	/* _PyRuntime starts "xdebugpy" */

struct ustack_python {
	__u32 size;		/* sizeof(struct ustack_python) */
	__u32 flags;		/* USTACK_PY_* */
	__u64 version;		/* PY_VERSION_HEX */
	__u64 runtime;		/* ELF address of _PyRuntime */
	__u64 code_type;	/* ELF address of PyCode_Type */
	/* runtime -> interpreters -> threads (matched by native thread id) */
	__u16 rt_interp_head, is_next, is_threads_head, ts_next, ts_native_tid;
	/* thread -> innermost frame: (3.11, 3.12: through ts_cframe) */
	__u16 ts_cframe, current_frame;
	/* _PyInterpreterFrame: fr_read bytes of it are read */
	__u16 fr_code, fr_previous, fr_instr, fr_is_entry, fr_owner, fr_read;
	/* PyObject, PyCodeObject */
	__u16 ob_type, co_filename, co_qualname, co_linetable;
	__u16 co_firstlineno, co_code;
	/* str (PyASCIIObject, PyCompactUnicodeObject), bytes */
	__u16 str_length, str_hash, str_state, str_ascii_data;
	__u16 str_utf8_length, str_utf8, str_compact_data;
	__u16 bytes_size, bytes_data;
	__u8 owner_not_code;	/* fr_owner at or above it: an entry frame */
	__u8 code_tag;		/* fr_code's tag bits (3.14 on) */
	__u8 reserved[4];	/* must be 0 */
};

/*
 * Objects walked without unwind info: when a walk meets an executable file
 * mapping with no registration, no PT_GNU_SFRAME and no store entry, the
 * module queues it once per object (a bounded, lossy queue; drops are
 * counted; a STORE_ADD for the object lets it be queued again) so that
 * ustackd can generate and register its SFrame.  The
 * mapping is named by process and address range, which is enough to open
 * the exact file through /proc/<pid>/map_files/<start>-<end> from any
 * mount namespace.  STORE_MISSES (CAP_SYS_ADMIN or CAP_PERFMON) moves up
 * to max_misses queued entries to the caller's array; EFAULT, EINVAL as
 * for the other ioctls.
 */
struct sframe_store_miss {
	__u32 pid;		/* tgid of a process mapping the object */
	__u32 reserved;
	__u64 start;		/* the executable mapping, [start, end) */
	__u64 end;
	__u64 ino;		/* the object's inode and device as in */
	__u64 dev;		/* /proc/PID/maps (on btrfs not stat's st_dev); */
				/* both 0: the vDSO, whose entry is missing */
};

struct sframe_store_misses {
	__u32 size;		/* sizeof(struct sframe_store_misses) */
	__u32 flags;		/* none defined: must be 0 */
	__u64 misses;		/* user pointer: sframe_store_miss[max_misses] */
	__u32 max_misses;	/* in */
	__u32 nr_misses;	/* out: entries stored */
	__u64 dropped;		/* out: entries dropped (queue full) since load */
};

#define SFRAME_IOC_REGISTER	_IOW(USTACK_IOC_MAGIC, 1, struct sframe_reg)
#define SFRAME_IOC_UNREGISTER	_IOW(USTACK_IOC_MAGIC, 2, struct sframe_reg)
#define SFRAME_IOC_SELF_STACK	_IOWR(USTACK_IOC_MAGIC, 3, struct ustack_self)
#define SFRAME_IOC_COOP_ON	_IOW(USTACK_IOC_MAGIC, 4, struct ustack_coop)
#define SFRAME_IOC_COOP_OFF	_IOW(USTACK_IOC_MAGIC, 5, struct ustack_coop)
#define SFRAME_IOC_COOP_ANSWER	_IOW(USTACK_IOC_MAGIC, 6, struct ustack_coop_answer)
#define SFRAME_IOC_STORE_ADD	_IOW(USTACK_IOC_MAGIC, 7, struct sframe_store_reg)
#define SFRAME_IOC_STORE_DEL	_IOW(USTACK_IOC_MAGIC, 8, struct sframe_store_reg)
#define SFRAME_IOC_STORE_FLUSH	_IO(USTACK_IOC_MAGIC, 9)
#define SFRAME_IOC_STORE_MISSES	_IOWR(USTACK_IOC_MAGIC, 10, struct sframe_store_misses)

/* ---- /dev/ustack -------------------------------------------------------- */

enum ustack_format {
	USTACK_FORMAT_TEXT	= 0,	/* default: the text records, for cat */
	USTACK_FORMAT_BINARY	= 1,	/* the records below */
	USTACK_FORMAT_PACKED	= 2,	/* the same, user stacks packed */
};

/* Select the format of this open file; takes a pointer to a __u32. */
#define USTACK_IOC_SET_FORMAT	_IOW(USTACK_IOC_MAGIC, 16, __u32)

enum ustack_rec_type {
	USTACK_REC_SAMPLE	= 1,
	USTACK_REC_USER		= 2,
	USTACK_REC_LOST		= 3,
	USTACK_REC_INTERP	= 4,
	USTACK_REC_PERFMAP	= 5,	/* tools only: see below */
	USTACK_REC_USER_PACKED	= 6,	/* USTACK_FORMAT_PACKED's user stacks */
};

enum ustack_event {
	USTACK_EVENT_CPU_CLOCK	= 1,	/* text: cpu-clock */
	USTACK_EVENT_SYSCALL	= 2,	/* text: syscall:<name> */
	USTACK_EVENT_OFFCPU	= 3,	/* text: offcpu */
	USTACK_EVENT_SELF	= 4,	/* text: self */
	USTACK_EVENT_CYCLES	= 5,	/* text: cycles */
	USTACK_EVENT_NMI_TEST	= 6,	/* text: nmi-test (debugfs nmi_test) */
	USTACK_EVENT_TP		= 7,	/* text: tp:<system>:<name> */
	USTACK_EVENT_KPROBE	= 8,	/* text: kprobe:<function> */
	USTACK_EVENT_MAX
};

struct ustack_rec_hdr {
	__u16 type;		/* enum ustack_rec_type */
	__u16 reserved;
	__u32 size;		/* bytes of the whole record, a multiple of 8 */
};

/*
 * Followed by nr_kernel __u64 kernel return addresses, innermost first.
 * For USTACK_EVENT_TP and USTACK_EVENT_KPROBE these are followed by the
 * event's own name ("<system>:<name>", "<function>"), NUL-terminated, then
 * zero padding to hdr.size.
 */
struct ustack_rec_sample {
	struct ustack_rec_hdr hdr;
	__u64 cookie;
	__u64 time_ns;		/* CLOCK_MONOTONIC */
	__u32 pid;		/* tgid */
	__u32 tid;
	__u32 cpu;
	__u16 event;		/* enum ustack_event */
	__u16 nr_kernel;
	__s32 syscall_nr;	/* USTACK_EVENT_SYSCALL, else -1 */
	__u32 reserved;
	char comm[16];
};

struct ustack_frame {
	__u64 ip;
	__u64 offset;		/* file offset in the mapped object, or ip */
	__u32 object;		/* byte offset of the name in the string table */
	__u8 method;		/* enum ustack_method */
	__u8 reserved[3];
};

/*
 * Followed by nr_frames struct ustack_frame, innermost first, then
 * strtab_len bytes of NUL-terminated object names ("[vdso]", "[anon]",
 * "[unknown]" or a path), then zero padding to a multiple of 8.
 */
struct ustack_rec_user {
	struct ustack_rec_hdr hdr;
	__u64 cookie;
	__u32 pid;
	__u32 tid;
	__u16 nr_frames;
	__u16 end_reason;	/* enum ustack_end */
	__u32 strtab_len;
};

/*
 * A user stack as USTACK_FORMAT_PACKED gives it, in 11 bytes a frame and
 * 16 an object against struct ustack_frame's 24: a stack goes back and
 * forth between a few objects.  Its first fields are ustack_rec_user's.
 * Followed by:
 *     __u64 ips[nr_frames]			innermost first
 *     struct ustack_object objects[nr_objects]
 *     __u16 object[nr_frames]			each frame's, in objects
 *     __u8 method[nr_frames]			enum ustack_method
 *     char strtab[strtab_len]			as ustack_rec_user's
 * then zero padding to a multiple of 8.  A frame's file offset (struct
 * ustack_frame's offset) is its ip less its object's bias.
 */
struct ustack_rec_user_packed {
	struct ustack_rec_hdr hdr;
	__u64 cookie;
	__u32 pid;
	__u32 tid;
	__u16 nr_frames;
	__u16 end_reason;	/* enum ustack_end */
	__u16 nr_objects;
	__u16 strtab_len;
};

/* One mapping's object, as the frames in it share it. */
struct ustack_object {
	__u64 bias;		/* ip less file offset; 0: offset is the ip */
	__u32 name;		/* byte offset of the name in the string table */
	__u32 reserved;
};

/* Records dropped because the buffer was full, since the previous one. */
struct ustack_rec_lost {
	struct ustack_rec_hdr hdr;
	__u64 samples;
	__u64 users;
	__u64 time_ns;
};

/*
 * A process's own frames for a walk of the same cookie (cooperative
 * unwinding, SFRAME_IOC_COOP_ANSWER).  Followed by nr_frames struct
 * ustack_coop_frame (innermost first; string offsets into the string
 * table), then strtab_len bytes of NUL-terminated names, then zero
 * padding to a multiple of 8.
 */
struct ustack_rec_interp {
	struct ustack_rec_hdr hdr;
	__u64 cookie;
	__u32 pid;
	__u32 tid;
	__u16 nr_frames;
	__u16 reserved;
	__u32 strtab_len;
	char lang[16];
};

/*
 * Never written by the kernel: ustack-report --save appends, after the
 * device's records, the perf map (/tmp/perf-<pid>.map: "START SIZE name"
 * lines) of each process it read one of while recording, so that JIT code
 * is still named once the process is gone.  Followed by len bytes of the
 * map's lines, then zero padding to a multiple of 8.
 */
struct ustack_rec_perfmap {
	struct ustack_rec_hdr hdr;
	__u32 pid;
	__u32 len;
};

#endif /* _UAPI_USTACK_H */
