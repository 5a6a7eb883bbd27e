// SPDX-License-Identifier: GPL-2.0
/*
 * ustackd - give every process SFrame for the ELF objects it maps, through
 * the module's file-keyed store (SFRAME_IOC_STORE_*, include/uapi/ustack.h).
 *
 * At start: every executable file mapping of every process; each distinct
 * object (device + inode) is opened through /proc/PID/map_files/ (the exact
 * file mapped, whatever the process's mount namespace).  An object with its
 * own PT_GNU_SFRAME is left to the kernel's discovery; for the others,
 * SFrame generated from .eh_frame by the shim's generator
 * (../sframe-register/gen_sframe.c) is written to the store
 * (../sframe-register/store.h, which root's shim shares) and
 * registered.  Generation runs in a child with bounded memory and time: a
 * hostile object costs that child, never the daemon.  Then the module's
 * miss queue (objects walked without unwind info) is polled.
 *
 * The vDSO has no file: its image, mapped in every 64-bit process of this
 * kernel, is ustackd's own (AT_SYSINFO_EHDR); its entry is named by kernel
 * release and build-id and registered once, with SFRAME_STORE_VDSO.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <gelf.h>
#include <linux/types.h>
#include "uapi/ustack.h"
#include "gen_sframe.h"
#include "sframe_store.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME	0x6474e554
#endif

#define SFRAME_DEV	"/dev/sframe"
#define STATUS_NAME	"status"
/* Bounds: what one object, the table and the generator may cost. */
#define MAX_OBJ_SIZE	(1ull << 30)
#define MAX_PHDRS	4096
#define MAX_OBJECTS	65536
#define MAX_MAPS_LINES	100000
#define GEN_AS_LIMIT	(4ull << 30)
#define GEN_SECONDS	60
#define MISS_BATCH	64
/* A miss for an object registered longer ago than this registers it again. */
#define RECOVER_MS	10000

enum obj_state { OBJ_COVERED, OBJ_OWN, OBJ_REFUSED, OBJ_PREPARED };
static const char *const state_names[] = { "covered", "own", "refused", "prepared" };

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
	uint64_t when_ms;	/* of the last outcome */
	struct cache_src src;	/* the file as it was then */
	char *path;		/* as a process mapped it, for the logs */
	char *what;		/* store entry, or why refused */
};

static struct {
	const char *store;
	long interval_ms, rescan_s;
	int verbose;
} opt = { STORE_DEFAULT, 100, 10, 0 };

static struct obj *tab;
static size_t tab_cap, tab_used;
static struct obj vdso_obj;	/* the vDSO: no file, not in tab */
static int store_fd = -1, dev_fd = -1;
static bool registering;
static volatile sig_atomic_t stopping;
static bool status_dirty;
static uint64_t misses_dropped;
static bool rescan_wanted;	/* the miss queue overflowed: scan again */
static uint64_t last_poll;	/* when the miss queue was last read, ms */

static bool poll_misses(void);
static struct {
	unsigned long generated, reused, own, refused, prepared, covered;
} cnt;

static void logmsg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("ustackd: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* The peak resident memory of the daemon and of its largest generator, KiB. */
static void log_rss(void)
{
	struct rusage self, gen;

	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &gen);
	logmsg("max RSS %ld KiB, generator %ld KiB", self.ru_maxrss, gen.ru_maxrss);
}

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the objects seen, by device and inode ------------------------------ */

static size_t tab_slot(uint64_t dev, uint64_t ino)
{
	uint64_t h = (dev * 0x9e3779b97f4a7c15ull) ^ (ino * 0xc2b2ae3d27d4eb4full);

	return (h ^ (h >> 29)) & (tab_cap - 1);
}

static struct obj *tab_find(uint64_t dev, uint64_t ino)
{
	if (!tab_cap)
		return NULL;
	for (size_t i = tab_slot(dev, ino);; i = (i + 1) & (tab_cap - 1)) {
		if (!tab[i].dev && !tab[i].ino)
			return NULL;
		if (tab[i].dev == dev && tab[i].ino == ino)
			return &tab[i];
	}
}

static struct obj *tab_add(uint64_t dev, uint64_t ino)
{
	size_t i;

	if (!dev && !ino)
		ino = ~0ull;	/* 0/0 marks a free slot */
	if (tab_used >= MAX_OBJECTS)
		return NULL;
	if ((tab_used + 1) * 2 > tab_cap) {
		struct obj *old = tab;
		size_t ocap = tab_cap;

		tab_cap = ocap ? ocap * 2 : 1024;
		tab = calloc(tab_cap, sizeof(*tab));
		if (!tab) {
			tab = old;
			tab_cap = ocap;
			return NULL;
		}
		for (size_t j = 0; j < ocap; j++) {
			if (!old[j].dev && !old[j].ino)
				continue;
			for (i = tab_slot(old[j].dev, old[j].ino);
			     tab[i].dev || tab[i].ino; i = (i + 1) & (tab_cap - 1))
				;
			tab[i] = old[j];
		}
		free(old);
	}
	for (i = tab_slot(dev, ino); tab[i].dev || tab[i].ino;
	     i = (i + 1) & (tab_cap - 1))
		;
	tab[i].dev = dev;
	tab[i].ino = ino;
	tab_used++;
	return &tab[i];
}

static void set_state(struct obj *o, int state, const char *path, const char *what)
{
	o->state = state;
	o->when_ms = now_ms();
	free(o->path);
	free(o->what);
	o->path = strdup(path ? path : "?");
	o->what = strdup(what ? what : "");
	status_dirty = true;
}

/* ---- one object ----------------------------------------------------------- */

struct objinfo {
	bool own_sframe;
	char bid[129];
	char name[STORE_NAME_MAX];
	bool need_src;		/* entry keyed by identity: compare it */
	struct cache_src src;
};

/*
 * What @fd is: an x86-64 ELF executable or shared object (else 1 with
 * *@why, or -1 for a file that is not ELF at all), its own PT_GNU_SFRAME,
 * its build-id and the name of its store entry.
 */
static int examine(int fd, const struct stat *st, struct objinfo *oi,
		   const char **why)
{
	GElf_Ehdr eh;
	size_t phnum;
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
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF || !gelf_getehdr(elf, &eh)) {
		if (elf)
			elf_end(elf);
		*why = "not an ELF file";
		return -1;
	}
	if (gelf_getclass(elf) != ELFCLASS64 || eh.e_machine != EM_X86_64) {
		*why = "not x86-64 ELF64";
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
	for (size_t i = 0; i < phnum; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_GNU_SFRAME)
			oi->own_sframe = true;
	}
	gen_build_id(elf, oi->bid, sizeof(oi->bid));
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

/* What an entry is generated from: a file, or an image in memory. */
struct gen_src {
	int fd;
	size_t size;
	const void *mem;	/* or NULL: the file */
};

/* The generator's child: SFrame v3 at vaddr 0 into the entry @oi->name.
 * An object without usable .eh_frame gets an empty entry: a restart knows. */
static int gen_child(const struct gen_src *src, const struct objinfo *oi,
		     const char *path)
{
	struct cache_hdr h = {
		.hdr_size = sizeof(h), .sframe_version = CACHE_SFRAME_VERSION,
	};
	struct gen_stats gs;
	char err[256];
	void *sf = NULL;
	size_t len = 0;
	void *img;
	Elf *elf;
	int ret;

	img = (void *)src->mem;
	if (!img)
		img = mmap(NULL, src->size, PROT_READ, MAP_PRIVATE, src->fd, 0);
	if (img == MAP_FAILED)
		return 1;
	elf = elf_memory(img, src->size);
	memset(&gs, 0, sizeof(gs));
	if (!elf || gen_sframe_build(elf, CACHE_SFRAME_VERSION, 0, &sf, &len, &gs,
				     err, sizeof(err))) {
		logmsg("%s: no SFrame from .eh_frame: %s", path,
		       elf ? err : "not ELF");
		sf = NULL;
		len = 0;
	}
	memcpy(h.magic, CACHE_MAGIC, sizeof(h.magic));
	h.sframe_len = len;
	h.funcs = gs.funcs;
	h.left_out = gs.left_out;
	h.src = oi->src;
	ret = store_put(store_fd, oi->name, &h, sf, len);
	if (ret)
		logmsg("%s: cannot write %s/%s: %s", path, opt.store, oi->name,
		       strerror(-ret));
	return ret ? 1 : 0;
}

static int generate(const struct gen_src *src, const struct objinfo *oi,
		    const char *path, char *why, size_t whylen)
{
	int status;
	pid_t pid;

	fflush(stderr);
	pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		return -1;
	}
	if (!pid) {
		struct rlimit rl = { GEN_AS_LIMIT, GEN_AS_LIMIT };

		signal(SIGTERM, SIG_DFL);
		signal(SIGINT, SIG_DFL);
		setrlimit(RLIMIT_AS, &rl);
		alarm(GEN_SECONDS);
		_exit(gen_child(src, oi, path));
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			snprintf(why, whylen, "waitpid: %s", strerror(errno));
			return -1;
		}
	}
	if (WIFSIGNALED(status)) {
		snprintf(why, whylen, "generator killed by signal %d%s",
			 WTERMSIG(status),
			 WTERMSIG(status) == SIGALRM ? " (over 60 s)" : "");
		return -1;
	}
	if (WEXITSTATUS(status)) {
		snprintf(why, whylen, "cannot write the store entry");
		return -1;
	}
	return 0;
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

	while (ioctl(dev_fd, SFRAME_IOC_STORE_ADD, &r)) {
		if (errno != EINTR)
			return -errno;
	}
	return 0;
}

static void cover_entry(const struct gen_src *src, const struct objinfo *oi,
			const char *path, struct obj *o);

/*
 * Cover the object open as @fd: its entry reused or generated, then
 * registered (unless only preparing the store).  Records the outcome in @o.
 */
static void cover_fd(int fd, const struct stat *st, const char *path,
		     struct obj *o, bool quiet_non_elf)
{
	struct gen_src src = { .fd = fd, .size = st->st_size };
	const char *w = NULL;
	struct objinfo oi;
	int r;

	r = examine(fd, st, &oi, &w);
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
	cover_entry(&src, &oi, path, o);
}

/*
 * The entry @oi->name of the object @src, reused or generated, then
 * registered: for a file (@src->fd) or the vDSO (@src->mem).  The vDSO is
 * not counted among the objects.
 */
static void cover_entry(const struct gen_src *src, const struct objinfo *oi,
			const char *path, struct obj *o)
{
	bool fresh = false, vdso = src->mem != NULL;
	char why[160] = "";
	struct cache_hdr h;
	int r, sffd;

	for (int attempt = 0; attempt < 2; attempt++) {
		sffd = store_get(store_fd, oi->name, oi->need_src ? &oi->src : NULL, &h);
		if (sffd < 0) {
			if (generate(src, oi, path, why, sizeof(why)))
				break;
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
		set_state(o, registering ? OBJ_COVERED : OBJ_PREPARED, path, oi->name);
		return;
	}
	if (!why[0])
		snprintf(why, sizeof(why), "failed");
	logmsg("%s: refused: %s", path, why);
	set_state(o, OBJ_REFUSED, path, why);
	if (!vdso)
		cnt.refused++;
}

/* FNV-1a of @len bytes at @p: the name of an image without a build-id. */
static uint64_t mem_hash(const unsigned char *p, size_t len)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (size_t i = 0; i < len; i++)
		h = (h ^ p[i]) * 0x100000001b3ull;
	return h;
}

/*
 * The vDSO: its image is ours (the kernel maps the same one into every
 * 64-bit process), the whole ELF file, section headers last.  Its entry is
 * vdso-<kernel release>-<build-id>, registered with SFRAME_STORE_VDSO.
 */
static void cover_vdso(void)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	struct gen_src src = { .fd = -1 };
	const char *path = "[vdso]";
	struct objinfo oi;
	struct utsname u;
	Elf *elf;

	memset(&oi, 0, sizeof(oi));
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > (1u << 20) ||
	    eh->e_shnum > 256 || uname(&u)) {
		logmsg("%s: refused: no 64-bit vDSO image", path);
		set_state(&vdso_obj, OBJ_REFUSED, path, "no 64-bit vDSO image");
		return;
	}
	src.mem = eh;
	src.size = eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	elf = elf_memory((char *)eh, src.size);
	if (elf)
		gen_build_id(elf, oi.bid, sizeof(oi.bid));
	elf_end(elf);
	if (!oi.bid[0])
		snprintf(oi.bid, sizeof(oi.bid), "c-%016llx",
			 (unsigned long long)mem_hash((const void *)eh, src.size));
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
 * A miss for the vDSO: the kernel has no entry for it (a flush), or one
 * for another image.  Registered again as a lost file entry is.
 */
static void vdso_missed(void)
{
	if (vdso_obj.state != OBJ_COVERED ||
	    now_ms() - vdso_obj.when_ms < RECOVER_MS)
		return;
	logmsg("[vdso]: missed again: registering it again");
	cover_vdso();
}

/* One executable mapping [start, end) of @pid, of the object @dev/@ino. */
static void cover_mapping(int pid, uint64_t start, uint64_t end, uint64_t dev,
			  uint64_t ino, const char *path, bool miss)
{
	char mf[96], link[512];
	struct obj *o, *a;
	struct stat st;
	bool again;
	int fd;

	o = tab_find(dev, ino);
	if (o && o->alias && (miss || !o->path || strcmp(path, o->path)))
		o = NULL;	/* which file it is, its file says */
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
		path = n > 0 ? link : mf;
	}
	if (fstat(fd, &st)) {
		close(fd);
		return;
	}
	o = tab_find(st.st_dev, st.st_ino);
	again = o && miss && lost_entry(o, &st);
	if (again) {
		logmsg("%s: missed again: registering it again", path);
		cache_src_of(&o->src, &st);
		cover_fd(fd, &st, path, o, false);
	} else if (!o) {
		o = tab_add(st.st_dev, st.st_ino);
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
		a = tab_find(dev, ino);
		if (!a && (a = tab_add(dev, ino)))
			a->alias = true;
		else if (a && (!a->alias || !a->path || strcmp(a->path, path)))
			a = NULL;
		if (a)
			set_state(a, o->state, path, o->what);
	}
	close(fd);
}

static void scan_pid(int pid)
{
	char p[64], *line = NULL;
	size_t cap = 0;
	int lines = 0;
	FILE *f;

	snprintf(p, sizeof(p), "/proc/%d/maps", pid);
	f = fopen(p, "re");
	if (!f)
		return;
	while (!stopping && lines++ < MAX_MAPS_LINES && getline(&line, &cap, f) > 0) {
		unsigned long long start, end, off, ino;
		unsigned int maj, min;
		char perms[8];
		int n = 0;

		if (sscanf(line, "%llx-%llx %7s %llx %x:%x %llu %n", &start, &end,
			   perms, &off, &maj, &min, &ino, &n) < 7)
			continue;
		if (perms[2] != 'x' || !ino)
			continue;
		line[strcspn(line, "\n")] = '\0';
		cover_mapping(pid, start, end, makedev(maj, min), ino,
			      n ? line + n : NULL, false);
	}
	free(line);
	fclose(f);
}

static void scan_all(void)
{
	struct dirent *de;
	DIR *d = opendir("/proc");

	if (!d) {
		logmsg("/proc: %s", strerror(errno));
		return;
	}
	while (!stopping && (de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || pid == getpid())
			continue;
		scan_pid((int)pid);
		/*
		 * A scan of every process takes seconds on a busy machine: the
		 * misses of new objects are served meanwhile, each within an
		 * interval as between scans.
		 */
		if (registering && now_ms() - last_poll >= (uint64_t)opt.interval_ms)
			poll_misses();
	}
	closedir(d);
}

/* ---- --prepare PATH... ---------------------------------------------------- */

/* A directory's symbolic links are skipped (their targets are its files, or
 * not what was asked for); a PATH named on the command line is followed. */
static void prepare_one(int dirfd, const char *name, const char *path, int flags)
{
	struct stat st;
	struct obj *o;
	int fd;

	fd = openat(dirfd, name, O_RDONLY | O_NONBLOCK | O_CLOEXEC | flags);
	if (fd < 0)
		return;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && !tab_find(st.st_dev, st.st_ino)) {
		o = tab_add(st.st_dev, st.st_ino);
		if (o)
			cover_fd(fd, &st, path, o, true);
	}
	close(fd);
}

static void prepare_path(const char *path)
{
	struct dirent *de;
	struct stat st;
	DIR *d;

	if (stat(path, &st)) {
		logmsg("%s: %s", path, strerror(errno));
		return;
	}
	if (!S_ISDIR(st.st_mode)) {
		prepare_one(AT_FDCWD, path, path, 0);
		return;
	}
	d = opendir(path);
	if (!d) {
		logmsg("%s: %s", path, strerror(errno));
		return;
	}
	while (!stopping && (de = readdir(d))) {
		char full[4096];

		if (de->d_name[0] == '.')
			continue;
		snprintf(full, sizeof(full), "%s/%s", path, de->d_name);
		prepare_one(dirfd(d), de->d_name, full, O_NOFOLLOW);
	}
	closedir(d);
}

/* ---- status ---------------------------------------------------------------- */

static void write_status(const char *phase)
{
	char tmp[64];
	FILE *f;
	int fd;

	snprintf(tmp, sizeof(tmp), ".%s.%d.tmp", STATUS_NAME, (int)getpid());
	unlinkat(store_fd, tmp, 0);
	fd = openat(store_fd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    0644);
	if (fd < 0 || !(f = fdopen(fd, "w"))) {
		if (fd >= 0)
			close(fd);
		return;
	}
	fchmod(fd, 0644);
	fprintf(f, "ustackd %d %s\n", (int)getpid(), phase);
	fprintf(f, "objects %zu covered %lu own %lu refused %lu generated %lu reused %lu\n",
		tab_used, cnt.covered, cnt.own, cnt.refused, cnt.generated,
		cnt.reused);
	fprintf(f, "misses_dropped %llu\n", (unsigned long long)misses_dropped);
	if (vdso_obj.path)
		fprintf(f, "%s 0:0:0 %s %s\n", state_names[vdso_obj.state],
			vdso_obj.path, vdso_obj.what);
	for (size_t i = 0; i < tab_cap; i++) {
		const struct obj *o = &tab[i];

		if ((!o->dev && !o->ino) || !o->path)
			continue;
		fprintf(f, "%s %u:%u:%llu %s %s\n", state_names[o->state],
			major(o->dev), minor(o->dev), (unsigned long long)o->ino,
			o->path, o->what);
	}
	if (fclose(f) || renameat(store_fd, tmp, store_fd, STATUS_NAME))
		unlinkat(store_fd, tmp, 0);
	status_dirty = false;
}

static int show_status(void)
{
	char err[256] = "", buf[4096];
	int fd, pid = 0;
	struct stat st;
	FILE *f;
	size_t n;

	store_fd = store_open(opt.store, err, sizeof(err));
	if (store_fd < 0) {
		logmsg("%s", err);
		return 1;
	}
	fd = openat(store_fd, STATUS_NAME, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || st.st_uid != 0 || (st.st_mode & 022) ||
	    !(f = fdopen(fd, "r"))) {
		logmsg("%s/%s: no status (has ustackd run?)", opt.store, STATUS_NAME);
		return 1;
	}
	if (fscanf(f, "ustackd %d", &pid) == 1)
		printf("ustackd pid %d: %s\n", pid,
		       pid > 0 && !kill(pid, 0) ? "running" : "not running");
	rewind(f);
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		fwrite(buf, 1, n, stdout);
	fclose(f);
	/* the module's own count of what it holds */
	f = fopen("/sys/kernel/debug/ustack/stats", "re");
	if (f) {
		while (fgets(buf, sizeof(buf), f)) {
			if (!strncmp(buf, "store", 5))
				printf("module %s", buf);
		}
		fclose(f);
	}
	return 0;
}

/* ---- the daemon --------------------------------------------------------------- */

static void on_signal(int sig)
{
	stopping = 1;
}

/* Read the miss queue until empty; false if the module has no store. */
static bool poll_misses(void)
{
	struct sframe_store_miss m[MISS_BATCH];
	struct sframe_store_misses q;

	last_poll = now_ms();
	do {
		memset(&q, 0, sizeof(q));
		q.size = sizeof(q);
		q.misses = (uintptr_t)m;
		q.max_misses = MISS_BATCH;
		if (ioctl(dev_fd, SFRAME_IOC_STORE_MISSES, &q)) {
			if (errno == EINTR)
				return true;
			logmsg("%s: STORE_MISSES: %s%s", SFRAME_DEV, strerror(errno),
			       errno == ENOTTY ? " (a module without the SFrame store)" : "");
			return false;
		}
		if (q.dropped > misses_dropped) {
			/* the queue overflowed: what it lost, a scan finds */
			if (misses_dropped || opt.verbose)
				logmsg("%llu misses dropped by the module; rescanning",
				       (unsigned long long)(q.dropped - misses_dropped));
			misses_dropped = q.dropped;
			rescan_wanted = true;
			status_dirty = true;
		}
		for (uint32_t i = 0; i < q.nr_misses && i < MISS_BATCH && !stopping; i++) {
			uint64_t t = now_ms();

			if (!m[i].ino && !m[i].dev)
				vdso_missed();
			else
				cover_mapping((int)m[i].pid, m[i].start, m[i].end,
					      m[i].dev, m[i].ino, NULL, true);
			/* CLOCK_MONOTONIC, as the records' time= */
			if (opt.verbose)
				logmsg("miss: pid %u %llx-%llx read at %llu.%03llu s, done in %llu ms",
				       m[i].pid, (unsigned long long)m[i].start,
				       (unsigned long long)m[i].end,
				       (unsigned long long)(t / 1000),
				       (unsigned long long)(t % 1000),
				       (unsigned long long)(now_ms() - t));
		}
	} while (q.nr_misses == MISS_BATCH && !stopping);
	return true;
}

static int run_daemon(void)
{
	uint64_t t0 = now_ms(), last_scan, last_status = 0;
	struct sigaction sa = { .sa_handler = on_signal };

	if (geteuid()) {
		logmsg("must run as root");
		return 1;
	}
	dev_fd = open(SFRAME_DEV, O_RDWR | O_CLOEXEC);
	if (dev_fd < 0) {
		logmsg("%s: %s%s", SFRAME_DEV, strerror(errno),
		       errno == ENOENT ? " (load the module: modprobe ustack)" : "");
		return 1;
	}
	registering = true;
	/* no SA_RESTART: a signal ends the sleep and the wait at once */
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	/* misses queued before the scan are for objects the scan covers */
	if (!poll_misses())
		return 1;
	cover_vdso();
	scan_all();
	last_scan = now_ms();
	if (stopping)
		goto out;
	logmsg("%zu objects: %lu covered (%lu generated, %lu reused), %lu own .sframe, "
	       "%lu refused, in %llu ms", tab_used, cnt.covered, cnt.generated,
	       cnt.reused, cnt.own, cnt.refused, (unsigned long long)(now_ms() - t0));
	log_rss();
	write_status("ready");
	logmsg("ready");
	while (!stopping) {
		struct timespec ts = {
			opt.interval_ms / 1000, (opt.interval_ms % 1000) * 1000000
		};
		uint64_t now;

		nanosleep(&ts, NULL);
		if (stopping)
			break;
		if (!poll_misses())
			return 1;
		now = now_ms();
		if (rescan_wanted ||
		    (opt.rescan_s && now - last_scan >= (uint64_t)opt.rescan_s * 1000)) {
			/* cleared first: what overflows during the scan, a next one finds */
			rescan_wanted = false;
			scan_all();
			last_scan = now;
		}
		if (status_dirty && now - last_status >= 1000) {
			write_status("ready");
			last_status = now;
		}
	}
out:
	write_status("stopped");
	/*
	 * Entries stay registered: the kernel keeps serving them without us,
	 * and the next ustackd replaces them (STORE_ADD of the same object).
	 * `ustackd --flush` or rmmod drops them.
	 */
	logmsg("stopped; %lu objects stay registered", cnt.covered);
	return 0;
}

static int run_prepare(int argc, char **argv)
{
	uint64_t t0 = now_ms();
	struct sigaction sa = { .sa_handler = on_signal };

	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	cover_vdso();
	if (argc == 0) {
		scan_all();
	} else {
		for (int i = 0; i < argc && !stopping; i++)
			prepare_path(argv[i]);
	}
	logmsg("%zu objects: %lu prepared (%lu generated, %lu reused), %lu own .sframe, "
	       "%lu refused, in %llu ms", tab_used, cnt.prepared, cnt.generated,
	       cnt.reused, cnt.own, cnt.refused, (unsigned long long)(now_ms() - t0));
	log_rss();
	return stopping ? 1 : 0;
}

static int run_flush(void)
{
	dev_fd = open(SFRAME_DEV, O_RDWR | O_CLOEXEC);
	if (dev_fd < 0 || ioctl(dev_fd, SFRAME_IOC_STORE_FLUSH, 0)) {
		logmsg("%s: STORE_FLUSH: %s", SFRAME_DEV, strerror(errno));
		return 1;
	}
	logmsg("every store entry dropped from the kernel");
	return 0;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ustackd [--store DIR] [--interval MS] [--rescan SEC] [-v]\n"
		"       ustackd --status [--store DIR]\n"
		"       ustackd --prepare [--store DIR] [PATH...]\n"
		"       ustackd --flush\n"
		"Give every process SFrame for the ELF objects it maps (as root, with\n"
		"the ustack module loaded): SFrame generated from .eh_frame into the\n"
		"store (default " STORE_DEFAULT "), registered with /dev/sframe\n"
		"for each object file.  Prints 'ustackd: ready' once every process\n"
		"running at its start is covered; SIGTERM or SIGINT stop it (entries\n"
		"stay registered).\n"
		"  --store DIR     the store: a root-owned directory, no symbolic link\n"
		"  --interval MS   how often the module's miss queue is read (100)\n"
		"  --rescan SEC    how often every process's maps are read (10; 0: never)\n"
		"  -v, --verbose   also log reused entries\n"
		"  --status        print what is covered and what was refused\n"
		"  --prepare       write the store's entries for the running processes,\n"
		"                  or for the files PATH (directories: their files),\n"
		"                  without registering them\n"
		"  --flush         drop every store entry from the kernel\n"
		"  -h, --help      this text\n");
}

int main(int argc, char **argv)
{
	enum { MODE_DAEMON, MODE_STATUS, MODE_PREPARE, MODE_FLUSH } mode = MODE_DAEMON;
	static const struct option lo[] = {
		{ "store", required_argument, NULL, 's' },
		{ "interval", required_argument, NULL, 'i' },
		{ "rescan", required_argument, NULL, 'r' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "status", no_argument, NULL, 'S' },
		{ "prepare", no_argument, NULL, 'P' },
		{ "flush", no_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	char err[256] = "", *end;
	int c, ret;

	while ((c = getopt_long(argc, argv, "vh", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			opt.store = optarg;
			break;
		case 'i':
			opt.interval_ms = strtol(optarg, &end, 10);
			if (*end || opt.interval_ms < 10 || opt.interval_ms > 60000) {
				logmsg("--interval: 10 to 60000 ms");
				return 2;
			}
			break;
		case 'r':
			opt.rescan_s = strtol(optarg, &end, 10);
			if (*end || opt.rescan_s < 0 || opt.rescan_s > 86400) {
				logmsg("--rescan: 0 to 86400 s");
				return 2;
			}
			break;
		case 'v':
			opt.verbose++;
			break;
		case 'S':
			mode = MODE_STATUS;
			break;
		case 'P':
			mode = MODE_PREPARE;
			break;
		case 'F':
			mode = MODE_FLUSH;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc && mode != MODE_PREPARE) {
		usage(stderr);
		return 2;
	}
	setvbuf(stderr, NULL, _IOLBF, 0);
	if (mode == MODE_STATUS)
		return show_status();
	if (mode == MODE_FLUSH)
		return run_flush();
	elf_version(EV_CURRENT);
	store_fd = store_open(opt.store, err, sizeof(err));
	if (store_fd < 0) {
		logmsg("store refused: %s", err);
		return 1;
	}
	if (mode == MODE_PREPARE)
		ret = run_prepare(argc - optind, argv + optind);
	else
		ret = run_daemon();
	return ret;
}
