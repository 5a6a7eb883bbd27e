// SPDX-License-Identifier: GPL-2.0
/*
 * cover.c - one object covered: found from a process's mapping (opened
 * through /proc/PID/map_files/: the exact file mapped, whatever the
 * process's mount namespace; each distinct object, device + inode, once),
 * examined (an ELF executable or shared object of this machine, arch.h's;
 * its own PT_GNU_SFRAME, its build-id), its store entry reused or generated, then
 * registered for the file with STORE_ADD.  An object with its own
 * PT_GNU_SFRAME is left to the kernel's discovery.
 *
 * The vDSO has no file: its image, mapped in every 64-bit process of this
 * kernel, is ustackd's own (AT_SYSINFO_EHDR); its entry is named by kernel
 * release and build-id and registered once, with SFRAME_STORE_VDSO.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/utsname.h>
#include <gelf.h>
#include "ustack_sframe.h"	/* arch.h: the machine */
#include "elf_object.h"
#include "sframe_ioctl.h"
#include "vdso.h"
#include "ustackd.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

/*
 * @objfd -1: the vDSO's entry.  A user's entry is charged, in the kernel
 * as in budget.c, to the user of the process that mapped it (whose.c).
 */
static int store_add(int objfd, int sffd, const struct cache_hdr *h,
		     const struct obj *o, const struct objinfo *oi)
{
	struct sframe_store_reg r = {
		.size = sizeof(r), .object_fd = objfd, .sframe_fd = sffd,
		.flags = objfd < 0 ? SFRAME_STORE_VDSO : 0,
		.sframe_off = h->hdr_size, .sframe_len = h->sframe_len,
		.sframe_vaddr = h->sframe_vaddr,
	};

	if (objfd >= 0 && o->mapper) {
		r.flags |= SFRAME_STORE_USER;
		r.user = o->whose;
	}
	if (objfd >= 0 && oi->has_py)
		r.python = (uintptr_t)&oi->py;
	return sframe_dev_store_add(dev_fd, &r);
}

/*
 * A user's object written since it was covered has a new identity, so a
 * new entry (u-<hash of the identity>): the old one, which nothing can
 * match again, is removed from the store (the kernel drops its own copy
 * when the new one is added), so that a user who touches a program in a
 * loop leaves one entry, not one per round.
 */
static void drop_superseded(const struct obj *o, const struct objinfo *oi)
{
	if (!oi->need_src || !o->what || strncmp(o->what, "u-", 2) ||
	    !strcmp(o->what, oi->name) ||
	    (o->state != OBJ_COVERED && o->state != OBJ_PREPARED))
		return;
	if (!unlinkat(store_fd, o->what, 0)) {
		cnt.superseded++;
		store_bytes -= o->bytes < store_bytes ? o->bytes : store_bytes;
	}
}

/* @o refused for @why (NULL: over the store's budget, budget.c). */
static void refuse_entry(struct obj *o, const char *path, const char *why,
			 bool vdso)
{
	char over[64];

	if (!why) {
		snprintf(over, sizeof(over), OVER_BUDGET " (%s)",
			 store_bytes >= budget_store ? "the store's" : "its owner's");
		why = over;
		cnt.over_budget++;
	}
	if (!why[0])
		why = "failed";
	logmsg("%s: refused: %s", path, why);
	set_state(o, OBJ_REFUSED, path, why);
	if (!vdso)
		cnt.refused++;
}

/*
 * The entry @oi->name of the object @src, reused or generated, then
 * registered: for a file (@src->fd) or the vDSO (@src->mem).  The vDSO is
 * not counted among the objects.
 */
static void cover_entry(const struct gen_src *src, const struct objinfo *oi,
			const char *path, struct obj *o)
{
	bool fresh = false, vdso = src->mem != NULL, over = false;
	char why[160] = "";
	struct cache_hdr h;
	int r, sffd;

	for (int attempt = 0; attempt < 2; attempt++) {
		sffd = store_get(store_fd, oi->name, oi->need_src ? &oi->src : NULL, &h);
		if (sffd < 0) {
			/* no room at all: no generator forked to find it out */
			r = oi->room < ENTRY_BLOCK ? -2 :
			    generate(src, oi, path, why, sizeof(why));
			if (r) {
				over = r == -2;
				break;
			}
			fresh = true;
			sffd = store_get(store_fd, oi->name, NULL, &h);
			if (sffd < 0) {
				snprintf(why, sizeof(why), "the entry written is unusable: %s",
					 strerror(-sffd));
				break;
			}
		}
		if (!h.sframe_len) {
			snprintf(why, sizeof(why), "no .eh_frame SFrame can express");
			close(sffd);
			break;
		}
		if (!registering) {
			r = 0;
		} else {
			r = store_add(vdso ? -1 : src->fd, sffd, &h, o, oi);
		}
		close(sffd);
		if (r == -EBADMSG && !fresh) {
			/* an entry the kernel will not take: make it again */
			logmsg("%s: %s/%s refused by the kernel; generating it again",
			       path, opt.store, oi->name);
			unlinkat(store_fd, oi->name, 0);
			continue;
		}
		if (r) {
			snprintf(why, sizeof(why), "registration: %s", strerror(-r));
			break;
		}
		if (!vdso) {
			if (fresh)
				cnt.generated++;
			else
				cnt.reused++;
			if (registering)
				cnt.covered++;
			else
				cnt.prepared++;
		}
		if (opt.verbose || fresh || vdso)
			logmsg("%s: %s %s (%u functions, %u left out)", path,
			       fresh ? "generated" : "reused", oi->name, h.funcs,
			       h.left_out);
		/* once per object: a CPython whose frames the kernel reads, or why not */
		if ((opt.verbose || fresh) && oi->py_why[0])
			logmsg("%s: %s%s", path, oi->py_why,
			       oi->has_py ? ": its frames read by the kernel" : "");
		drop_superseded(o, oi);
		set_state(o, registering ? OBJ_COVERED : OBJ_PREPARED, path, oi->name);
		o->bytes = budget_entry(oi->name);
		if (fresh)
			store_bytes += o->bytes;
		return;
	}
	/* a user's entry the kernel refused: no file stays for it */
	if (fresh && oi->need_src)
		unlinkat(store_fd, oi->name, 0);
	refuse_entry(o, path, over ? NULL : why, vdso);
}

/*
 * Cover the object open as @fd: its entry reused or generated, then
 * registered (unless only preparing the store).  Records the outcome in @o.
 */
static void cover_examined(struct examiner *e, int fd, const struct stat *st,
			   const char *path, struct obj *o, bool quiet_non_elf)
{
	struct gen_src src = {
		.fd = fd, .size = st->st_size, .owner = sandbox_uid(st),
	};
	struct objinfo oi;
	char w[160];
	int r;

	r = examiner_finish(e, true, st, &oi, w, sizeof(w));
	if (r < 0 && quiet_non_elf) {
		/* a script among the binaries: not an object, not a refusal */
		set_state(o, OBJ_REFUSED, path, w);
		return;
	}
	if (r) {
		logmsg("%s: refused: %s", path, w);
		set_state(o, OBJ_REFUSED, path, w);
		cnt.refused++;
		return;
	}
	if (oi.own_sframe) {
		set_state(o, OBJ_OWN, path, "own .sframe");
		cnt.own++;
		return;
	}
	oi.room = budget_room(o, &oi);
	cover_entry(&src, &oi, path, o);
}

void cover_fd(int fd, const struct stat *st, const char *path,
	      struct obj *o, bool quiet_non_elf)
{
	struct examiner e;
	struct stat cst;
	char w[160];

	if (examiner_start(&e, NULL, &fd, &cst, w, sizeof(w))) {
		logmsg("%s: refused: %s", path, w);
		set_state(o, OBJ_REFUSED, path, w);
		cnt.refused++;
		return;
	}
	o->whose = st->st_uid;	/* no process: the file's owner */
	o->mapper = false;
	cover_examined(&e, fd, st, path, o, quiet_non_elf);
}

/*
 * The vDSO: its image is ours (the kernel maps the same one into every
 * 64-bit process), the whole ELF file, section headers last.  Its entry is
 * vdso-<kernel release>-<build-id>, registered with SFRAME_STORE_VDSO.
 */
void cover_vdso(void)
{
	const void *image = (const void *)getauxval(AT_SYSINFO_EHDR);
	struct gen_src src = { .fd = -1, .mem = image, .owner = SANDBOX_NOBODY };
	const char *path = "[vdso]";
	struct objinfo oi;
	struct utsname u;
	Elf *elf;

	memset(&oi, 0, sizeof(oi));
	oi.room = UINT64_MAX;	/* the system's */
	src.size = vdso_image_size(image);
	if (!src.size || uname(&u)) {
		logmsg("%s: refused: no 64-bit vDSO image", path);
		set_state(&vdso_obj, OBJ_REFUSED, path, "no 64-bit vDSO image");
		return;
	}
	elf = elf_memory((char *)image, src.size);
	if (elf)
		elf_object_build_id(elf, oi.bid, sizeof(oi.bid));
	elf_end(elf);
	if (!oi.bid[0])
		snprintf(oi.bid, sizeof(oi.bid), "c-%016llx", (unsigned long long)
			 entry_hash(ENTRY_HASH_INIT, image, src.size));
	if (snprintf(oi.name, sizeof(oi.name), "vdso-%s-%s" CACHE_SUFFIX,
		     u.release, oi.bid) >= (int)sizeof(oi.name) ||
	    strchr(u.release, '/')) {
		logmsg("%s: refused: the kernel release makes no entry name", path);
		set_state(&vdso_obj, OBJ_REFUSED, path, "kernel release makes no name");
		return;
	}
	cover_entry(&src, &oi, path, &vdso_obj);
}

/*
 * A miss names an object the kernel has no entry for.  For one registered
 * earlier: written to since (the kernel's key holds its size and ctime),
 * it is registered again at once; else the kernel lost the entry (a
 * flush, an entry dropped), and it is registered again at most once per
 * RECOVER_MS, so that a kernel that keeps refusing costs little.
 */
static bool lost_entry(const struct obj *o, const struct stat *st)
{
	struct cache_src now;

	if (o->state != OBJ_COVERED)
		return false;
	cache_src_of(&now, st);
	return memcmp(&now, &o->src, sizeof(now)) ||
	       now_ms() - o->when_ms >= RECOVER_MS;
}

/*
 * The object open as @fd (@st), its examiner @e waiting: covered if new,
 * or covered again if @miss says the kernel lost it; its slot, or NULL
 * when the table is full.
 */
static struct obj *cover_opened(struct examiner *e, int fd,
				const struct stat *st, const char *path,
				bool miss, uint64_t user)
{
	struct obj *o = tab_find(st->st_dev, st->st_ino);
	char why[96];

	if (o)
		o->seen = scan_gen;	/* mapped: gc.c keeps it */
	if (o && miss && lost_entry(o, st)) {
		logmsg("%s: missed again: registering it again", path);
	} else if (!o) {
		o = tab_add(st->st_dev, st->st_ino, !store_trusted_object(st));
		if (!o) {
			static bool said;

			if (!said)
				logmsg("more than %d objects: the others are left out",
				       MAX_OBJECTS);
			said = true;
		}
	} else {
		examiner_finish(e, false, NULL, NULL, why, sizeof(why));
		return o;
	}
	if (!o) {
		examiner_finish(e, false, NULL, NULL, why, sizeof(why));
		return NULL;
	}
	cache_src_of(&o->src, st);
	o->whose = user;
	o->mapper = true;
	cover_examined(e, fd, st, path, o, false);
	return o;
}

/* cover_mapping()'s work, once the user may have the daemon's time. */
static void cover_opened_mapping(int pid, uint64_t start, uint64_t end,
				 uint64_t dev, uint64_t ino, const char *path,
				 bool miss, uint64_t user)
{
	char mf[96], link[512], shown[SHOWN_MAX], why[160];
	struct examiner e;
	struct obj *o, *a;
	struct stat st;
	int fd = -1, r;

	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", pid,
		 (unsigned long long)start, (unsigned long long)end);
	/* opened by the examining child: a file that never answers stalls it */
	r = examiner_start(&e, mf, &fd, &st, why, sizeof(why));
	if (r) {
		/* gone (exited, unmapped): another process or miss brings it back */
		if (r != -ENOENT && r != -ESRCH && opt.verbose)
			logmsg("%s: %s", mf, why);
		return;
	}
	if (!path) {
		ssize_t n = readlink(mf, link, sizeof(link) - 1);

		link[n > 0 ? n : 0] = '\0';
		path = n > 0 ? path_shown(link, shown, sizeof(shown)) : mf;
	}
	o = cover_opened(&e, fd, &st, path, miss, user);
	if (!o) {
		close(fd);
		return;
	}
	/*
	 * The map's device may name the file otherwise than stat (btrfs):
	 * an alias spares the next scans opening it, for this path.
	 */
	if (st.st_dev != dev || st.st_ino != ino) {
		/* tab_add() moves the table: @o's outcome copied first */
		int state = o->state;
		char *what = strdup(o->what ? o->what : "");

		a = tab_find(dev, ino);
		if (!a && (a = tab_add(dev, ino, !store_trusted_object(&st))))
			a->alias = true;
		else if (a && (!a->alias || !a->path || strcmp(a->path, path)))
			a = NULL;
		if (a)
			set_state(a, state, path, what);
		free(what);
	}
	close(fd);
}

/* One executable mapping [start, end) of @pid, of the object @dev/@ino. */
void cover_mapping(int pid, uint64_t start, uint64_t end, uint64_t dev,
		   uint64_t ino, const char *path, bool miss)
{
	char shown[SHOWN_MAX];
	uint64_t t0, user;
	struct obj *o;

	if (path)
		path = path_shown(path, shown, sizeof(shown));
	o = tab_find(dev, ino);
	if (o && o->alias && (miss || !o->path || strcmp(path, o->path)))
		o = NULL;	/* which file it is, its file says */
	if (o)
		o->seen = scan_gen;	/* mapped: gc.c keeps it */
	if (o && !(miss && o->state == OBJ_COVERED))
		return;
	if (process_user(pid, &user))
		return;		/* gone: another process or miss brings it back */
	/* a user over their share of the daemon's time waits (usertime.c) */
	if (usertime_over(user))
		return;
	t0 = now_ms();
	cover_opened_mapping(pid, start, end, dev, ino, path, miss, user);
	usertime_charge(user, now_ms() - t0);
}
