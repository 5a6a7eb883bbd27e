// SPDX-License-Identifier: GPL-2.0
/*
 * sframe-register gen FILE -o OUT [--version 1|2|3] [-q]
 *   Build SFrame from FILE's .eh_frame (gen_sframe.c); OUT is a copy of FILE
 *   whose .sframe section holds it (gen_elf.c says where).  Default v1,
 *   what gas 2.40 emits and the only version binutils 2.40 (readelf
 *   --sframe, objdump, libsframe) decodes; v1 cannot mark an outermost
 *   frame, so RA-undefined functions (_start, the clone child) are left
 *   out, where a walker ends anyway (rbp is 0 there).  v2 and v3 keep them.
 *   Prints one statistics line (functions, FDEs, FREs, what was left out).
 *
 * sframe-register gen --cache OUT --build-id HEX FILE
 *   For the shim: write a cache entry (cache_fmt.h) for FILE to OUT, after
 *   checking that FILE's build-id is HEX.  Silent; exit 0 on success.
 *
 * sframe-register gen --store DIR --build-id HEX FILE
 *   For root's shim: the same into the root-owned store DIR (store.h: the
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
#include "gen_sframe.h"
#include "gen_elf.h"
#include "sframe_entry.h"
#include "sframe_store.h"

static int write_store(const char *dir, int fd, const char *id,
		       const void *sf, size_t len, const struct gen_stats *st,
		       const struct stat *src)
{
	struct cache_hdr h = {
		.hdr_size = sizeof(h), .sframe_version = CACHE_SFRAME_VERSION,
		.sframe_len = len,
		.funcs = (uint32_t)st->funcs, .left_out = (uint32_t)st->left_out,
	};
	char err[256] = "", name[STORE_NAME_MAX];
	bool need_src;
	int dfd, ret;

	memcpy(h.magic, CACHE_MAGIC, sizeof(h.magic));
	cache_src_of(&h.src, src);
	ret = store_entry_name(fd, src, id, name, sizeof(name), &need_src);
	if (ret)
		return ret;
	dfd = store_open(dir, err, sizeof(err));
	if (dfd < 0)
		return dfd;
	ret = store_put(dfd, name, &h, sf, len);
	close(dfd);
	return ret;
}

static int write_cache(const char *out, const void *sf, size_t len,
		       const struct gen_stats *st, const struct stat *src)
{
	struct cache_hdr h = {
		.hdr_size = sizeof(h), .sframe_version = CACHE_SFRAME_VERSION,
		.sframe_len = len,
		.funcs = (uint32_t)st->funcs, .left_out = (uint32_t)st->left_out,
	};
	char *tmp;
	int fd, ok;

	memcpy(h.magic, CACHE_MAGIC, sizeof(h.magic));
	/* what was read, not what the path names now: the shim compares */
	cache_src_of(&h.src, src);
	if (asprintf(&tmp, "%s.tmp.%d", out, (int)getpid()) < 0)
		return -1;
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(tmp);
		return -1;
	}
	/* whatever the umask: the shim trusts no group- or world-writable entry */
	ok = !fchmod(fd, 0644) &&
	     write(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) &&
	     write(fd, sf, len) == (ssize_t)len;
	ok = !close(fd) && ok && !rename(tmp, out);
	if (!ok)
		unlink(tmp);
	free(tmp);
	return ok ? 0 : -1;
}

int cmd_gen(int argc, char **argv)
{
	const char *file = NULL, *out = NULL, *cache = NULL, *want_id = NULL;
	const char *store = NULL;
	int version = 1, quiet = 0, fd, ret = 1;
	char err[256], id[129];
	struct gen_stats st;
	struct stat sb;
	uint8_t *img;
	size_t sflen;
	void *sf = NULL;
	uint64_t vaddr;
	Elf *elf;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--version") && i + 1 < argc) {
			version = atoi(argv[++i]);
		} else if (!strncmp(argv[i], "--version=", 10)) {
			version = atoi(argv[i] + 10);
		} else if (!strcmp(argv[i], "--cache") && i + 1 < argc) {
			cache = argv[++i];
		} else if (!strcmp(argv[i], "--store") && i + 1 < argc) {
			store = argv[++i];
		} else if (!strcmp(argv[i], "--build-id") && i + 1 < argc) {
			want_id = argv[++i];
		} else if (!strcmp(argv[i], "-q")) {
			quiet = 1;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "gen: unknown option %s\n", argv[i]);
			return 2;
		} else if (!file) {
			file = argv[i];
		} else {
			fprintf(stderr, "gen: one FILE only\n");
			return 2;
		}
	}
	if (store && (cache || out)) {
		fprintf(stderr, "gen: --store goes with neither --cache nor -o\n");
		return 2;
	}
	if (store)
		cache = store;	/* the same entry, written elsewhere */
	if (cache) {
		version = CACHE_SFRAME_VERSION;
		quiet = 1;
	}
	if (!file || (!out && !cache) || (cache && (out || !want_id)) ||
	    version < SFRAME_VERSION_1 || version > SFRAME_VERSION_3) {
		fprintf(stderr, "usage: sframe-register gen FILE -o OUT "
			"[--version 1|2|3]\n");
		return 2;
	}
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &sb) || !S_ISREG(sb.st_mode) ||
	    sb.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		fprintf(stderr, "gen: %s: %s\n", file,
			fd < 0 ? strerror(errno) : "not an ELF file");
		if (fd >= 0)
			close(fd);
		return 1;
	}
	img = mmap(NULL, sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (img == MAP_FAILED) {
		fprintf(stderr, "gen: %s: %s\n", file, strerror(errno));
		close(fd);
		return 1;
	}
	elf_version(EV_CURRENT);
	elf = elf_memory((char *)img, sb.st_size);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		fprintf(stderr, "gen: %s: not an ELF file\n", file);
		goto out;
	}
	if (cache) {
		if (!gen_build_id(elf, id, sizeof(id)) || strcmp(id, want_id)) {
			if (!quiet)
				fprintf(stderr, "gen: %s: build-id mismatch\n",
					file);
			goto out;
		}
		vaddr = 0;
	} else {
		vaddr = gen_elf_sframe_vaddr(img, sb.st_size);
		if (!vaddr) {
			fprintf(stderr, "gen: %s: no loadable segment\n", file);
			goto out;
		}
	}
	if (gen_sframe_build(elf, version, vaddr, &sf, &sflen, &st, err,
			     sizeof(err))) {
		if (!quiet)
			fprintf(stderr, "gen: %s: %s\n", file, err);
		/* an empty entry: nothing to do for this object next time */
		if (store && !write_store(store, fd, want_id, NULL, 0, &st, &sb))
			ret = 0;
		else if (cache && !store && !write_cache(cache, NULL, 0, &st, &sb))
			ret = 0;
		goto out;
	}
	if (store) {
		ret = write_store(store, fd, want_id, sf, sflen, &st, &sb) ? 1 : 0;
		goto out;
	}
	if (cache) {
		ret = write_cache(cache, sf, sflen, &st, &sb) ? 1 : 0;
		goto out;
	}
	if (gen_elf_write(out, img, sb.st_size, sf, sflen, vaddr, sb.st_mode,
			  err, sizeof(err))) {
		fprintf(stderr, "gen: %s\n", err);
		goto out;
	}
	if (!quiet) {
		char what[64];

		snprintf(what, sizeof(what), "gen v%d .sframe %zu bytes at %#llx",
			 version, sflen, (unsigned long long)vaddr);
		gen_stats_print(stdout, what, &st);
	}
	ret = 0;
out:
	free(sf);
	if (elf)
		elf_end(elf);
	munmap(img, sb.st_size);
	close(fd);
	return ret;
}
