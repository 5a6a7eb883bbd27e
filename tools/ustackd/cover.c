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
 * What @fd is: an ELF executable or shared object of this machine (else 1
 * with *@why, or -1 for a file that is not ELF at all), its own PT_GNU_SFRAME,
 * its build-id and the name of its store entry.
 */
static int examine(int fd, const struct stat *st, struct objinfo *oi,
		   const char **why)
{
	size_t phnum, shnum;
	GElf_Ehdr eh;
	Elf *elf;
	int ret = 1;

	memset(oi, 0, sizeof(*oi));
	if (!S_ISREG(st->st_mode)) {
		*why = "not a regular file";
		return 1;
	}
	if ((uint64_t)st->st_size > MAX_OBJ_SIZE) {
		*why = "larger than 1 GiB";
		return 1;
	}
	if (elf_object_shnum(fd) > MAX_SECTIONS) {
		*why = "more than 65536 sections";
		return 1;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		if (elf)
			elf_end(elf);
		*why = "not an ELF file";
		return -1;
	}
	if (!elf_object_supported(elf, &eh)) {
		*why = "not " USTACK_ARCH_NAME " ELF64";
		goto out;
	}
	if (eh.e_type != ET_DYN && eh.e_type != ET_EXEC) {
		*why = "not an executable or shared object";
		ret = -1;
		goto out;
	}
	if (elf_getphdrnum(elf, &phnum) || phnum > MAX_PHDRS) {
		*why = "bad program headers";
		goto out;
	}
	if (elf_getshdrnum(elf, &shnum) || shnum > MAX_SECTIONS) {
		*why = "more than 65536 sections";
		goto out;
	}
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_SFRAME)
			oi->own_sframe = true;
	}
	elf_object_build_id(elf, oi->bid, sizeof(oi->bid));
	cache_src_of(&oi->src, st);
	if (store_entry_name(fd, st, oi->bid, oi->name, sizeof(oi->name),
			     &oi->need_src)) {
		*why = "cannot read";
		goto out;
	}
	ret = 0;
out:
	elf_end(elf);
	return ret;
}

/* What the examining child tells the daemon. */
struct examined {
	int ret;
	char why[64];
	struct objinfo oi;
};
_Static_assert(sizeof(struct examined) <= PIPE_BUF, "one atomic write");

/*
 * examine() in a limited child: libelf maps the file there, so that a
 * crafted file (a million sections, millions of notes), one truncated
 * while it is read (SIGBUS) or one that never answers (FUSE) costs that
 * child, never the daemon, which never maps a file a user may write.
 * The result comes back through a pipe, whole or not at all.
 */
static int examine_limited(int fd, const struct stat *st, struct objinfo *oi,
			   char *why, size_t whylen)
{
	struct examined x;
	char w[96];
	int p[2], pid;
	ssize_t n;

	memset(oi, 0, sizeof(*oi));
	if (pipe2(p, O_CLOEXEC)) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return 1;
	}
	pid = limited_fork(EXAMINE_AS_LIMIT, EXAMINE_SECONDS, why, whylen);
	if (!pid) {
		const char *cw = "";

		memset(&x, 0, sizeof(x));
		x.ret = examine(fd, st, &x.oi, &cw);
		snprintf(x.why, sizeof(x.why), "%s", cw);
		_exit(write(p[1], &x, sizeof(x)) == sizeof(x) ? 0 : 1);
	}
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return 1;
	}
	/* the result fits the pipe: the child has written it when it exits */
	if (limited_wait(pid, w, sizeof(w))) {
		snprintf(why, whylen, "examination %s", w);
		close(p[0]);
		return 1;
	}
	n = read(p[0], &x, sizeof(x));
	close(p[0]);
	if (n != sizeof(x)) {
		snprintf(why, whylen, "examination gave no result");
		return 1;
	}
	x.why[sizeof(x.why) - 1] = '\0';
	x.oi.bid[sizeof(x.oi.bid) - 1] = '\0';
	x.oi.name[sizeof(x.oi.name) - 1] = '\0';
	snprintf(why, whylen, "%s", x.why);
	if (!x.ret && (!x.oi.name[0] || strchr(x.oi.name, '/'))) {
		snprintf(why, whylen, "examination gave a bad entry name");
		return 1;
	}
	*oi = x.oi;
	return x.ret;
}

/* @objfd -1: the vDSO's entry */
static int store_add(int objfd, int sffd, const struct cache_hdr *h)
{
	struct sframe_store_reg r = {
		.size = sizeof(r), .object_fd = objfd, .sframe_fd = sffd,
		.flags = objfd < 0 ? SFRAME_STORE_VDSO : 0,
		.sframe_off = h->hdr_size, .sframe_len = h->sframe_len,
		.sframe_vaddr = h->sframe_vaddr,
	};

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
			r = store_add(vdso ? -1 : src->fd, sffd, &h);
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
void cover_fd(int fd, const struct stat *st, const char *path,
	      struct obj *o, bool quiet_non_elf)
{
	struct gen_src src = { .fd = fd, .size = st->st_size };
	struct objinfo oi;
	char w[160];
	int r;

	o->uid = st->st_uid;
	r = examine_limited(fd, st, &oi, w, sizeof(w));
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

/*
 * The vDSO: its image is ours (the kernel maps the same one into every
 * 64-bit process), the whole ELF file, section headers last.  Its entry is
 * vdso-<kernel release>-<build-id>, registered with SFRAME_STORE_VDSO.
 */
void cover_vdso(void)
{
	const void *image = (const void *)getauxval(AT_SYSINFO_EHDR);
	struct gen_src src = { .fd = -1, .mem = image };
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

/* One executable mapping [start, end) of @pid, of the object @dev/@ino. */
void cover_mapping(int pid, uint64_t start, uint64_t end, uint64_t dev,
		   uint64_t ino, const char *path, bool miss)
{
	char mf[96], link[512], shown[SHOWN_MAX];
	struct obj *o, *a;
	struct stat st;
	bool again;
	int fd;

	if (path)
		path = path_shown(path, shown, sizeof(shown));
	o = tab_find(dev, ino);
	if (o && o->alias && (miss || !o->path || strcmp(path, o->path)))
		o = NULL;	/* which file it is, its file says */
	if (o)
		o->seen = scan_gen;	/* mapped: gc.c keeps it */
	if (o && !(miss && o->state == OBJ_COVERED))
		return;
	snprintf(mf, sizeof(mf), "/proc/%d/map_files/%llx-%llx", pid,
		 (unsigned long long)start, (unsigned long long)end);
	fd = open(mf, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0) {
		/* gone (exited, unmapped): another process or miss brings it back */
		if (errno != ENOENT && errno != ESRCH && opt.verbose)
			logmsg("%s: %s", mf, strerror(errno));
		return;
	}
	if (!path) {
		ssize_t n = readlink(mf, link, sizeof(link) - 1);

		link[n > 0 ? n : 0] = '\0';
		path = n > 0 ? path_shown(link, shown, sizeof(shown)) : mf;
	}
	if (fstat(fd, &st)) {
		close(fd);
		return;
	}
	o = tab_find(st.st_dev, st.st_ino);
	if (o)
		o->seen = scan_gen;
	again = o && miss && lost_entry(o, &st);
	if (again) {
		logmsg("%s: missed again: registering it again", path);
		cache_src_of(&o->src, &st);
		cover_fd(fd, &st, path, o, false);
	} else if (!o) {
		o = tab_add(st.st_dev, st.st_ino, !store_trusted_object(&st));
		if (!o) {
			static bool said;

			if (!said)
				logmsg("more than %d objects: the others are left out",
				       MAX_OBJECTS);
			said = true;
			close(fd);
			return;
		}
		cache_src_of(&o->src, &st);
		cover_fd(fd, &st, path, o, false);
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
