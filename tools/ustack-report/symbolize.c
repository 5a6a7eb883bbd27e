// SPDX-License-Identifier: GPL-2.0
/*
 * ustack-report: user frames -> function+offset (and file:line) with
 * libelf/libdwfl.  A frame names its object and a file offset; the offset
 * maps to a virtual address through the object's PT_LOAD headers, which is
 * looked up in the object's symbol tables (or its separate debug info).
 * Return addresses (every frame but the interrupted IP) are looked up at
 * ip - 1, the call instruction, as perf and gdb do.  One Dwfl per object,
 * opened once; results cached per (object, offset, adjust).
 *
 * The object paths come from the recorded processes, i.e. from any user,
 * while ustack-report may run as root: symbolize_open() opens each one
 * without following a symlink at its end and without opening anything
 * but a regular file (a FIFO would hang us, a device might act on open),
 * and /usr/lib/debug as a directory; then the caller drops privileges
 * (main.c) and only then is any ELF or DWARF parsed, from those
 * descriptors.  Separate debug info is looked up by build-id under the
 * directory opened before (root-owned files, whatever the object claims),
 * then the usual ways, with the caller's reduced rights.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <elfutils/libdwfl.h>
#include <gelf.h>

#include "report.h"
#include "uapi/ustack.h"

/* libstdc++'s demangler, as perf uses (C++ names; Rust's legacy scheme) */
char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

struct obj {
	struct objstat st;
	int fd;			/* from symbolize_open(), or -1 */
	int parsed;
	Dwfl *dwfl;
	Dwfl_Module *mod;
	struct symtab *syms;	/* sorted (symtab.c) */
	GElf_Phdr *load;
	size_t nload;
	uint64_t split_lo, split_hi;	/* the evaluator's other part */
};

static struct sym_opts opts;
static char *debuginfo_path;
static struct obj **objs;
static size_t nobj;
static int debug_dirfd = -1;	/* [root]/usr/lib/debug */

/*
 * Open @path (relative to @dirfd) read-only if it is a regular file, never
 * opening anything else: an O_PATH descriptor first (no open() reaches a
 * driver or a FIFO), checked, then reopened through /proc/self/fd.
 * @nofollow: refuse a symlink as the last component.  -1 with errno.
 */
int open_regular(int dirfd, const char *path, int nofollow)
{
	char self[64];
	struct stat a, b;
	int pfd, fd;

	pfd = openat(dirfd, path, O_PATH | O_CLOEXEC |
		     (nofollow ? O_NOFOLLOW : 0));
	if (pfd < 0)
		return -1;
	if (fstat(pfd, &a)) {
		close(pfd);
		return -1;
	}
	if (!S_ISREG(a.st_mode)) {
		close(pfd);
		/* O_PATH | O_NOFOLLOW opens a symlink itself */
		errno = S_ISLNK(a.st_mode) ? ELOOP : EINVAL;
		return -1;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0 && errno == ENOENT)	/* no /proc: the plain way */
		fd = openat(dirfd, path, O_RDONLY | O_NONBLOCK | O_NOCTTY |
			    O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	close(pfd);
	if (fd < 0)
		return -1;
	if (fstat(fd, &b) || !S_ISREG(b.st_mode) || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/* Separate debug info: by build-id under debug_dirfd first. */
static int find_debuginfo(Dwfl_Module *mod, void **userdata,
			  const char *modname, GElf_Addr base,
			  const char *file_name, const char *debuglink_file,
			  GElf_Word debuglink_crc, char **debuginfo_file_name)
{
	const unsigned char *bits;
	GElf_Addr vaddr;
	char rel[160];
	int len, n, fd;

	len = dwfl_module_build_id(mod, &bits, &vaddr);
	if (debug_dirfd >= 0 && len > 1 && len <= 64) {
		n = snprintf(rel, sizeof(rel), ".build-id/%02x/", bits[0]);
		for (int i = 1; i < len; i++)
			n += snprintf(rel + n, sizeof(rel) - n, "%02x", bits[i]);
		snprintf(rel + n, sizeof(rel) - n, ".debug");
		fd = open_regular(debug_dirfd, rel, 0);
		if (fd >= 0)
			return fd;
	}
	return dwfl_standard_find_debuginfo(mod, userdata, modname, base,
					    file_name, debuglink_file,
					    debuglink_crc, debuginfo_file_name);
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

void symbolize_init(const struct sym_opts *o)
{
	opts = *o;
	elf_version(EV_CURRENT);
	if (o->root) {
		size_t n = strlen(o->root) + 64;

		debuginfo_path = malloc(n);
		if (!debuginfo_path)
			die("out of memory");
		snprintf(debuginfo_path, n, ":.debug:%s/usr/lib/debug", o->root);
	}
}

static int is_pseudo(const char *name)
{
	return name[0] == '[' || name[0] != '/';
}

static int obj_path(const struct obj *ob, char *path, size_t size)
{
	int len;

	if (is_pseudo(ob->st.name))
		return -1;
	len = snprintf(path, size, "%s%s", opts.root ? opts.root : "",
		       ob->st.name);
	if (len >= (int)size)
		return -1;
	/* a file replaced or removed since it was mapped: try the path */
	if (len > 10 && !strcmp(path + len - 10, " (deleted)"))
		path[len - 10] = '\0';
	return 0;
}

/* Before privileges are dropped: the descriptor only, nothing parsed. */
static void obj_fd(struct obj *ob)
{
	char path[4096];

	ob->fd = -1;
	if (obj_path(ob, path, sizeof(path)))
		return;
	ob->fd = open_regular(AT_FDCWD, path, 1);
	if (ob->fd < 0)
		warnx_("%s: %s", path, errno == EINVAL ?
		       "not a regular file" : errno == ELOOP ?
		       "a symbolic link" : strerror(errno));
}

/*
 * A Python evaluator (_PyEval_EvalFrameDefault) that GCC split in two:
 * Debian's 3.14 and 3.15 run its loop in the part no symbol names
 * (ehsplit.c).  Its frames get the name the split part has where the
 * symbol table is kept, "_PyEval_EvalFrameDefault.cold", for frames.c to
 * put the interpreter's own frames in their place.
 */
#define EVAL_NAME "_PyEval_EvalFrameDefault"

static void find_split_evaluator(struct obj *ob, Elf *elf, GElf_Addr bias)
{
	int i, n = dwfl_module_getsymtab(ob->mod);
	uint64_t lo, hi;
	uint64_t soff;

	for (i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr a;
		const char *name = dwfl_module_getsym_info(ob->mod, i, &sym, &a,
							   NULL, NULL, NULL);

		if (!name || strcmp(name, EVAL_NAME))
			continue;
		/* split: its first part is only its entry */
		if (!sym.st_size || sym.st_size >= 8192 ||
		    eh_next_fde(elf, sym.st_value, &lo, &hi))
			return;
		/* ... and the next FDE's start has no name of its own */
		name = symtab_lookup(ob->syms, lo + bias, &soff);
		if (name && !soff)
			return;
		ob->split_lo = lo;
		ob->split_hi = hi;
		return;
	}
}

static void obj_open(struct obj *ob)
{
	char path[4096];
	GElf_Addr bias;
	const unsigned char *bits;
	GElf_Addr bvaddr;
	Elf *elf;
	size_t i, n;
	int len;

	ob->parsed = 1;
	if (ob->fd < 0 || obj_path(ob, path, sizeof(path)))
		return;
	ob->dwfl = dwfl_begin(&callbacks);
	if (!ob->dwfl)
		return;
	dwfl_report_begin(ob->dwfl);
	/* the descriptor is libdwfl's from here on */
	ob->mod = dwfl_report_elf(ob->dwfl, ob->st.name, path, ob->fd, 0, true);
	ob->fd = -1;
	dwfl_report_end(ob->dwfl, NULL, NULL);
	if (!ob->mod) {
		warnx_("%s: %s", path, dwfl_errmsg(-1));
		return;
	}
	elf = dwfl_module_getelf(ob->mod, &bias);
	if (!elf || elf_getphdrnum(elf, &n))
		return;
	ob->load = calloc(n ? n : 1, sizeof(*ob->load));
	if (!ob->load)
		die("out of memory");
	for (i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD)
			ob->load[ob->nload++] = ph;
	}
	ob->syms = symtab_build(ob->mod);
	find_split_evaluator(ob, elf, bias);
	len = dwfl_module_build_id(ob->mod, &bits, &bvaddr);
	if (len > 0 && len <= 64) {
		char *h = xalloc(2 * len + 1);

		for (i = 0; i < (size_t)len; i++)
			sprintf(h + 2 * i, "%02x", bits[i]);
		ob->st.build_id = h;
	}
	ob->st.opened = 1;
}

/* Objects by interned name: open addressing on the pointer. */
static struct obj **otab;
static size_t ocap;

static size_t ohash(const char *name, size_t cap)
{
	uint64_t h = (uintptr_t)name * 0x9e3779b97f4a7c15ull;

	return (h >> 32) & (cap - 1);
}

static struct obj *obj_get(const char *name)
{
	struct obj *ob;
	size_t j;

	if (ocap) {
		for (j = ohash(name, ocap); otab[j]; j = (j + 1) & (ocap - 1))
			if (otab[j]->st.name == name)
				return otab[j];
	}
	if ((nobj + 1) * 2 > ocap) {
		size_t ncap = ocap ? ocap * 2 : 64, i;

		free(otab);
		otab = calloc(ncap, sizeof(*otab));
		if (!otab)
			die("out of memory");
		ocap = ncap;
		for (i = 0; i < nobj; i++) {
			j = ohash(objs[i]->st.name, ocap);
			while (otab[j])
				j = (j + 1) & (ocap - 1);
			otab[j] = objs[i];
		}
	}
	ob = xalloc(sizeof(*ob));
	ob->st.name = name;
	obj_fd(ob);
	objs = xrealloc(objs, (nobj + 1) * sizeof(*objs));
	objs[nobj++] = ob;
	for (j = ohash(name, ocap); otab[j]; j = (j + 1) & (ocap - 1))
		;
	otab[j] = ob;
	return ob;
}

/* Result cache: open addressing on (obj, off, adjust). */
struct centry {
	const char *obj;
	uint64_t off;
	int adj;
	const struct symres *res;
};
static struct centry *cache;
static size_t ccap, ccount;

static size_t chash(const char *obj, uint64_t off, int adj, size_t cap)
{
	uint64_t h = (uintptr_t)obj * 0x9e3779b97f4a7c15ull;

	h ^= (off + adj) * 0xc2b2ae3d27d4eb4full;
	return (h ^ (h >> 29)) & (cap - 1);
}

static void cache_put(const char *obj, uint64_t off, int adj,
		      const struct symres *res)
{
	size_t j;

	if (ccount * 2 >= ccap) {
		size_t ncap = ccap ? ccap * 2 : 4096, i;
		struct centry *nc = calloc(ncap, sizeof(*nc));

		if (!nc)
			die("out of memory");
		for (i = 0; i < ccap; i++) {
			if (!cache[i].obj)
				continue;
			j = chash(cache[i].obj, cache[i].off, cache[i].adj, ncap);
			while (nc[j].obj)
				j = (j + 1) & (ncap - 1);
			nc[j] = cache[i];
		}
		free(cache);
		cache = nc;
		ccap = ncap;
	}
	j = chash(obj, off, adj, ccap);
	while (cache[j].obj)
		j = (j + 1) & (ccap - 1);
	cache[j] = (struct centry){ obj, off, adj, res };
	ccount++;
}

static const struct symres *cache_get(const char *obj, uint64_t off, int adj)
{
	size_t j;

	if (!ccap)
		return NULL;
	j = chash(obj, off, adj, ccap);
	while (cache[j].obj) {
		if (cache[j].obj == obj && cache[j].off == off &&
		    cache[j].adj == adj)
			return cache[j].res;
		j = (j + 1) & (ccap - 1);
	}
	return NULL;
}

static const struct symres *lookup(struct obj *ob, uint64_t off, int adj)
{
	struct symres *res = xalloc(sizeof(*res));
	GElf_Addr bias, addr = 0;
	uint64_t soff;
	const char *name;
	size_t i;
	int found = 0;

	if (!ob->mod)
		return res;
	res->build_id = ob->st.build_id;
	for (i = 0; i < ob->nload; i++) {
		const GElf_Phdr *ph = &ob->load[i];

		if (off >= ph->p_offset && off - ph->p_offset < ph->p_filesz) {
			addr = ph->p_vaddr + (off - ph->p_offset);
			found = 1;
			break;
		}
	}
	if (!found)
		return res;
	dwfl_module_getelf(ob->mod, &bias);
	addr += bias;
	if (addr < (GElf_Addr)adj)
		return res;
	name = symtab_lookup(ob->syms, addr - adj, &soff);
	if (name && *name) {
		char *dm = NULL;
		int st = -1;

		if (name[0] == '_' && name[1] == 'Z')
			dm = __cxa_demangle(name, NULL, NULL, &st);
		res->name = internz(dm && !st ? dm : name);
		res->symoff = soff + adj;
		free(dm);
	} else if (addr - bias - adj >= ob->split_lo &&
		   addr - bias - adj < ob->split_hi) {
		res->name = internz(EVAL_NAME ".cold");
		res->symoff = addr - bias - ob->split_lo;
	}
	if (opts.lines) {
		Dwfl_Line *l = dwfl_module_getsrc(ob->mod, addr - adj);
		int line = 0;
		const char *file = l ? dwfl_lineinfo(l, NULL, &line, NULL,
						     NULL, NULL) : NULL;

		if (file) {
			const char *dir = file[0] != '/' ? dwfl_line_comp_dir(l) : NULL;
			char b[4096];

			if (dir && snprintf(b, sizeof(b), "%s/%s", dir, file) <
				   (int)sizeof(b))
				file = b;
			res->file = internz(file);
			res->line = line;
		}
	}
	return res;
}

void symbolize_all(struct recs *r)
{
	const char *regs = method_name(USTACK_METHOD_REGS);
	const char *sig = method_name(USTACK_METHOD_SIGNAL);
	size_t i, j;

	for (i = 0; i < r->nu; i++) {
		struct user *u = &r->u[i];

		for (j = 0; j < u->nr; j++) {
			struct uframe *f = &u->f[j];
			struct obj *ob;

			if (f->res)	/* named by perf already (parse_perf.c) */
				continue;
			ob = obj_get(f->obj);
			if (!ob->parsed)
				obj_open(ob);
			/* only the interrupted IP is exact; others return */
			int adj = (j == 0 || f->method == regs ||
				   f->method == sig) ? 0 : 1;

			f->res = cache_get(f->obj, f->off, adj);
			if (!f->res) {
				f->res = lookup(ob, f->off, adj);
				cache_put(f->obj, f->off, adj, f->res);
			}
			ob->st.frames++;
			if (f->res->name)
				ob->st.resolved++;
		}
	}
}

/* Open every object named in @r, and the debug directory; parse nothing. */
void symbolize_open(struct recs *r)
{
	char path[4096];
	size_t i, j;

	if (snprintf(path, sizeof(path), "%s/usr/lib/debug",
		     opts.root ? opts.root : "") < (int)sizeof(path))
		debug_dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	for (i = 0; i < r->nu; i++)
		for (j = 0; j < r->u[i].nr; j++)
			if (!r->u[i].f[j].res)	/* not named by perf */
				obj_get(r->u[i].f[j].obj);
}

size_t symbolize_nobj(void)
{
	return nobj;
}

const struct objstat *symbolize_obj(size_t i)
{
	return i < nobj ? &objs[i]->st : NULL;
}
