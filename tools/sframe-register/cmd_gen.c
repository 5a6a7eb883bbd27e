// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-register gen FILE -o OUT [--version 1|2|3] [-q]
 *   Build SFrame from FILE's .eh_frame (tools/lib/gen_sframe.c); OUT is a
 *   copy of FILE whose .sframe section holds it (gen_elf.c says where).
 *   Default v1, what gas 2.40 emits and the only version binutils 2.40
 *   (readelf --sframe, objdump, libsframe) decodes; v1 cannot mark an
 *   outermost frame, so RA-undefined functions (_start, the clone child)
 *   are left out, where a walker ends anyway (rbp is 0 there).  v2 and v3
 *   keep them.
 *   Prints one statistics line (functions, FDEs, FREs, what was left out).
 *
 * sframe-register gen --cache OUT --build-id HEX FILE
 *   For the shim: write a cache entry (sframe_entry.h) for FILE to OUT, after
 *   checking that FILE's build-id is HEX.  Silent; exit 0 on success.
 *
 * sframe-register gen --store DIR --build-id HEX FILE
 *   For root's shim: the same into the root-owned store DIR (sframe_store.h: the
 *   directory checked, the entry named from what was read, written
 *   atomically), the entry ustackd would make and reuse.  The name comes
 *   from the file this process opened, not from the caller: a file
 *   replaced in between gets its own name, never the real one's.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <gelf.h>
#include "cmds.h"
#include "elf_object.h"
#include "fileio.h"
#include "gen_elf.h"
#include "gen_sframe.h"
#include "sframe_store.h"

struct gen_args {
	const char *file, *out, *cache, *store, *want_id;
	int version, quiet;
};

/* The object being read: its file, its bytes, libelf's view. */
struct gen_in {
	int fd;
	struct stat sb;
	uint8_t *img;
	Elf *elf;
};

static int write_store(const char *dir, int fd, const char *id,
		       const void *sf, const struct cache_hdr *h,
		       const struct stat *src)
{
	char err[256] = "", name[STORE_NAME_MAX];
	bool need_src;
	int dfd, ret;

	ret = store_entry_name(fd, src, id, name, sizeof(name), &need_src);
	if (ret)
		return ret;
	dfd = store_open(dir, err, sizeof(err));
	if (dfd < 0)
		return dfd;
	ret = store_put(dfd, name, h, sf, h->sframe_len);
	close(dfd);
	return ret;
}

static int write_cache(const char *out, const void *sf,
		       const struct cache_hdr *h)
{
	char *tmp;
	int fd, ok;

	if (asprintf(&tmp, "%s.tmp.%d", out, (int)getpid()) < 0)
		return -1;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	/* whatever the umask: the shim trusts no group- or world-writable entry */
	ok = !fchmod(fd, 0644) && !write_all(fd, h, sizeof(*h)) &&
	     !write_all(fd, sf, h->sframe_len);
	ok = !close(fd) && ok && !rename(tmp, out);
	if (!ok)
		unlink(tmp);
	free(tmp);
	return ok ? 0 : -1;
}

/* Options into @a: 0, or the exit status of a usage error. */
static int parse_args(int argc, char **argv, struct gen_args *a)
{
	for (int i = 1; i < argc; i++) {
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(argv[i], "-o") && v) {
			a->out = argv[++i];
		} else if (!strcmp(argv[i], "--version") && v) {
			a->version = atoi(argv[++i]);
		} else if (!strncmp(argv[i], "--version=", 10)) {
			a->version = atoi(argv[i] + 10);
		} else if (!strcmp(argv[i], "--cache") && v) {
			a->cache = argv[++i];
		} else if (!strcmp(argv[i], "--store") && v) {
			a->store = argv[++i];
		} else if (!strcmp(argv[i], "--build-id") && v) {
			a->want_id = argv[++i];
		} else if (!strcmp(argv[i], "-q")) {
			a->quiet = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "gen: unknown option %s\n", argv[i]);
			return 2;
		} else if (a->file) {
			fprintf(stderr, "gen: one FILE only\n");
			return 2;
		} else {
			a->file = argv[i];
		}
	}
	return 0;
}

/* The modes' rules: --store and --cache write v3 entries, quietly. */
static int check_args(struct gen_args *a)
{
	if (a->store && (a->cache || a->out)) {
		fprintf(stderr, "gen: --store goes with neither --cache nor -o\n");
		return 2;
	}
	if (a->store)
		a->cache = a->store;	/* the same entry, written elsewhere */
	if (a->cache) {
		a->version = CACHE_SFRAME_VERSION;
		a->quiet = 1;
	}
	if (!a->file || (!a->out && !a->cache) ||
	    (a->cache && (a->out || !a->want_id)) ||
	    a->version < SFRAME_VERSION_1 || a->version > SFRAME_VERSION_3) {
		fprintf(stderr, "usage: sframe-register gen FILE -o OUT "
			"[--version 1|2|3]\n");
		return 2;
	}
	return 0;
}

/* Open and map @file for libelf; 0, or 1 with a message. */
static int open_input(const char *file, struct gen_in *in)
{
	in->fd = open(file, O_RDONLY | O_CLOEXEC);
	if (in->fd < 0 || fstat(in->fd, &in->sb) || !S_ISREG(in->sb.st_mode) ||
	    in->sb.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		fprintf(stderr, "gen: %s: %s\n", file,
			in->fd < 0 ? strerror(errno) : "not an ELF file");
		if (in->fd >= 0)
			close(in->fd);
		return 1;
	}
	in->img = mmap(NULL, in->sb.st_size, PROT_READ, MAP_PRIVATE, in->fd, 0);
	if (in->img == MAP_FAILED) {
		fprintf(stderr, "gen: %s: %s\n", file, strerror(errno));
		close(in->fd);
		return 1;
	}
	elf_version(EV_CURRENT);
	in->elf = elf_memory((char *)in->img, in->sb.st_size);
	return 0;
}

static void close_input(struct gen_in *in)
{
	if (in->elf)
		elf_end(in->elf);
	munmap(in->img, in->sb.st_size);
	close(in->fd);
}

/*
 * --cache and --store: an entry for @in, if its build-id is the one the
 * shim read from the mapped object; an empty entry when .eh_frame gives
 * nothing (nothing to do for this object next time).
 */
static int gen_entry(const struct gen_args *a, const struct gen_in *in)
{
	struct cache_src src;
	struct cache_hdr h;
	char err[256], id[129];
	void *sf;
	size_t len;
	int ret;

	if (!elf_object_build_id(in->elf, id, sizeof(id)) ||
	    strcmp(id, a->want_id))
		return 1;	/* the file was replaced since it was mapped */
	/* what was read, not what the path names now: the shim compares */
	cache_src_of(&src, &in->sb);
	gen_sframe_entry(in->elf, &src, &sf, &len, &h, err, sizeof(err));
	if (a->store)
		ret = write_store(a->store, in->fd, a->want_id, sf, &h, &in->sb);
	else
		ret = write_cache(a->cache, sf, &h);
	free(sf);
	return ret ? 1 : 0;
}

/* -o OUT: a copy of @in whose .sframe section is the generated one. */
static int gen_copy(const struct gen_args *a, const struct gen_in *in)
{
	uint64_t vaddr = gen_elf_sframe_vaddr(in->img, in->sb.st_size);
	struct gen_stats st;
	char err[256], what[64];
	void *sf = NULL;
	size_t sflen;
	int ret = 1;

	if (!vaddr) {
		fprintf(stderr, "gen: %s: no loadable segment\n", a->file);
		return 1;
	}
	if (gen_sframe_build(in->elf, a->version, vaddr, &sf, &sflen, &st, err,
			     sizeof(err))) {
		if (!a->quiet)
			fprintf(stderr, "gen: %s: %s\n", a->file, err);
	} else if (gen_elf_write(a->out, in->img, in->sb.st_size, sf, sflen,
				 vaddr, in->sb.st_mode, err, sizeof(err))) {
		fprintf(stderr, "gen: %s\n", err);
	} else {
		if (!a->quiet) {
			snprintf(what, sizeof(what), "gen v%d .sframe %zu bytes at %#llx",
				 a->version, sflen, (unsigned long long)vaddr);
			gen_stats_print(stdout, what, &st);
		}
		ret = 0;
	}
	free(sf);
	return ret;
}

int cmd_gen(int argc, char **argv)
{
	struct gen_args a = { .version = 1 };
	struct gen_in in = { 0 };
	int ret;

	ret = parse_args(argc, argv, &a);
	if (!ret)
		ret = check_args(&a);
	if (ret)
		return ret;
	if (open_input(a.file, &in))
		return 1;
	if (!in.elf || elf_kind(in.elf) != ELF_K_ELF) {
		fprintf(stderr, "gen: %s: not an ELF file\n", a.file);
		ret = 1;
	} else if (a.cache) {
		ret = gen_entry(&a, &in);
	} else {
		ret = gen_copy(&a, &in);
	}
	close_input(&in);
	return ret;
}
