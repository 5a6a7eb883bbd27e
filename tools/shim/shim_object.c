// SPDX-License-Identifier: GPL-2.0
/*
 * shim_object.c - one loaded object: its executable range, its SFrame (its
 * own PT_GNU_SFRAME, registered in place; else an entry found by its
 * build-id and file), its registration and its release.  The vDSO has no
 * file: its image is written next to the cache entries for the helper.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "sframe_ioctl.h"
#include "sframe_section.h"
#include "fileio.h"
#include "shim_int.h"
#include "vdso.h"

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif

/* Tokens of the entries being generated (struct obj's gen). */
static unsigned long last_gen;

/*
 * Does @ph lie inside one readable PT_LOAD segment of the object?  ld.so
 * maps only PT_LOAD; PT_NOTE and PT_GNU_SFRAME are not checked by it, and
 * a malformed object's may point anywhere: reading them blindly would
 * crash the program that loaded it.
 */
static bool in_load(const struct dl_phdr_info *info, const ElfW(Phdr) *ph)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *l = &info->dlpi_phdr[i];

		if (l->p_type == PT_LOAD && (l->p_flags & PF_R) &&
		    ph->p_vaddr >= l->p_vaddr &&
		    ph->p_vaddr - l->p_vaddr <= l->p_memsz &&
		    ph->p_memsz <= l->p_memsz - (ph->p_vaddr - l->p_vaddr))
			return true;
	}
	return false;
}

static size_t mem_build_id(const struct dl_phdr_info *info, char *hex,
			   size_t hexlen)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const uint8_t *p, *end;

		if (ph->p_type != PT_NOTE || !in_load(info, ph))
			continue;
		p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (end - p >= (ptrdiff_t)sizeof(ElfW(Nhdr))) {
			ElfW(Nhdr) nh;
			size_t nsz, dsz;

			memcpy(&nh, p, sizeof(nh));
			nsz = (nh.n_namesz + 3) & ~3u;
			dsz = (nh.n_descsz + 3) & ~3u;
			if ((size_t)(end - p) - sizeof(nh) < nsz ||
			    (size_t)(end - p) - sizeof(nh) - nsz < dsz)
				break;
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp(p + sizeof(nh), "GNU", 4) &&
			    nh.n_descsz && nh.n_descsz <= MAX_BUILD_ID &&
			    hexlen > 2 * nh.n_descsz) {
				const uint8_t *d = p + sizeof(nh) + nsz;

				for (size_t k = 0; k < nh.n_descsz; k++) {
					hex[2 * k] = "0123456789abcdef"[d[k] >> 4];
					hex[2 * k + 1] = "0123456789abcdef"[d[k] & 15];
				}
				hex[2 * nh.n_descsz] = 0;
				return nh.n_descsz;
			}
			p += sizeof(nh) + nsz + dsz;
		}
	}
	return 0;
}

/* An object registered with STORE_ADD stays: other processes map it. */
void obj_release(struct obj *o, int fd)
{
	if (o->sframe && fd >= 0)
		sframe_dev_unregister(fd, o->sframe);
	if (o->map)
		munmap(o->map, o->maplen);
	free(o->name);
	memset(o, 0, sizeof(*o));
}

/*
 * The vDSO has no file: write its image (the whole ELF file is mapped,
 * section headers included) next to the cache entries as <id>.vdso.so, so
 * the helper can read it.  Returns the path, or NULL.
 */
static const char *vdso_file(uintptr_t vdso, const char *id, char *path,
			     size_t len)
{
	const void *image = (const void *)vdso;
	size_t size;
	char tmp[760];
	int fd, ok;

	if (!shim.cache_dir[0] ||
	    snprintf(path, len, "%s/%s.vdso.so", shim.cache_dir, id) >=
	    (int)len)
		return NULL;
	/* no helper will run: the entry may still be there */
	if (!access(path, R_OK) || !may_spawn())
		return path;
	size = vdso_image_size(image);
	if (!size)
		return NULL;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return NULL;
	ok = !write_all(fd, image, size);
	ok = !close(fd) && ok && !rename(tmp, path);
	if (!ok) {
		unlink(tmp);
		return NULL;
	}
	return path;
}

static const char *obj_label(const struct obj *o)
{
	return o->vdso ? "[vdso]" : o->name[0] ? o->name : "[main]";
}

void obj_register(struct obj *o, int fd, size_t len)
{
	int rc;

	if (fd < 0) {
		shim_log("ustack-shim: %s: ready, no device\n", obj_label(o));
		return;
	}
	rc = sframe_dev_register(fd, o->sframe, len, (void *)o->text_lo,
			       (void *)o->text_hi);
	shim_log("ustack-shim: %s: register %s\n", obj_label(o),
		 rc ? strerror(-rc) : "ok");
}

/*
 * The mapping that holds @addr, as "<start>-<end>": its name in
 * /proc/self/map_files/.  Bounded by the size of the maps file, read in
 * pieces (a process may have very many mappings).
 */
static bool find_mapping(uintptr_t addr, char *range, size_t len)
{
	char buf[4096];
	size_t have = 0;
	bool found = false;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return false;
	for (int reads = 0; reads < (1 << 16) && !found; reads++) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - 1 - have);
		char *p = buf, *nl;

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += n;
		buf[have] = 0;
		while ((nl = strchr(p, '\n'))) {
			unsigned long lo, hi;

			*nl = 0;
			if (sscanf(p, "%lx-%lx", &lo, &hi) == 2 &&
			    addr >= lo && addr < hi) {
				snprintf(range, len, "%lx-%lx", lo, hi);
				found = true;
				break;
			}
			p = nl + 1;
		}
		have -= p - buf;
		memmove(buf, p, have);
		if (have == sizeof(buf) - 1)	/* one line longer than buf */
			have = 0;
	}
	close(fd);
	return found;
}

/*
 * @o's executable range (its PT_LOAD segments with PF_X), and its own
 * PT_GNU_SFRAME segment if it has a sane one (NULL otherwise).
 */
static const ElfW(Phdr) *obj_text(struct obj *o,
				  const struct dl_phdr_info *info)
{
	const ElfW(Phdr) *sf = NULL;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			uintptr_t lo = info->dlpi_addr + ph->p_vaddr;
			uintptr_t hi = lo + ph->p_memsz;

			if (!o->text_hi || lo < o->text_lo)
				o->text_lo = lo;
			if (hi > o->text_hi)
				o->text_hi = hi;
		} else if (ph->p_type == PT_GNU_SFRAME) {
			if (in_load(info, ph))
				sf = ph;
			else
				shim_log("ustack-shim: %s: PT_GNU_SFRAME outside "
					 "PT_LOAD, ignored\n", obj_label(o));
		}
	}
	return sf;
}

/* The object's own SFrame section, registered in place: its length, or 0. */
static size_t obj_own_sframe(struct obj *o, const struct dl_phdr_info *info,
			     const ElfW(Phdr) *sf)
{
	const uint8_t *p = (const uint8_t *)(info->dlpi_addr + sf->p_vaddr);
	size_t len = sframe_section_len(p, sf->p_memsz);

	if (len) {
		o->sframe = p;
		shim_log("ustack-shim: %s: PT_GNU_SFRAME v%u\n", obj_label(o),
			 p[2]);
	}
	return len;
}

/*
 * Root's shim: the very file mapped, /proc/PID/map_files/RANGE (into
 * @exe), for STORE_ADD and the helper, with @key->range and @st set.
 * Else @file, and @key->range empty.
 */
static const char *mapped_file(const struct obj *o, struct entry_key *key,
			       const char *file, char *exe, size_t len,
			       struct stat *st)
{
	char mf[sizeof(key->range) + 40];
	int mfd;

	if (!find_mapping(o->text_lo, key->range, sizeof(key->range)))
		return file;
	snprintf(mf, sizeof(mf), "/proc/self/map_files/%s", key->range);
	mfd = open(mf, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (mfd >= 0 && !fstat(mfd, st) && S_ISREG(st->st_mode)) {
		snprintf(exe, len, "/proc/%d/map_files/%s", (int)getpid(),
			 key->range);
		file = exe;
	} else {
		key->range[0] = 0;
	}
	if (mfd >= 0)
		close(mfd);
	return file;
}

/*
 * The file an entry for @o is made from (the object's path, the main
 * program's, the vDSO's image, root's map_files link; @exe holds it if
 * need be) and the entry's @key.  NULL when there is none: no build-id,
 * no file.
 */
static const char *obj_file(struct obj *o, const struct dl_phdr_info *info,
			    uintptr_t vdso, struct entry_key *key, char *exe,
			    size_t len)
{
	const char *file = o->name;
	struct stat st;

	if (vdso) {
		file = NULL;	/* after the build-id, below */
	} else if (!file[0]) {
		ssize_t n = readlink("/proc/self/exe", exe, len - 1);

		if (n <= 0)
			return NULL;
		exe[n] = 0;
		file = exe;
	}
	if (!mem_build_id(info, key->id, sizeof(key->id))) {
		shim_log("ustack-shim: %s: no build-id\n", obj_label(o));
		return NULL;
	}
	if (vdso) {
		file = vdso_file(vdso, key->id, exe, len);
		if (!file)
			return NULL;
	}
	key->range[0] = 0;
	if (!vdso && shim.store_rw)
		file = mapped_file(o, key, file, exe, len, &st);
	if (!key->range[0] && stat(file, &st))
		return NULL;
	entry_key_init(key, &st, vdso);
	return file;
}

bool obj_setup(struct obj *o, const struct dl_phdr_info *info, int fd,
	       uintptr_t vdso, struct pending *pd)
{
	const ElfW(Phdr) *sf;
	struct entry_key key;
	const char *file;
	char exe[600];
	size_t len = 0;
	int rc;

	o->vdso = vdso != 0;
	sf = obj_text(o, info);
	if (!o->text_hi)
		return false;
	if (sf)
		len = obj_own_sframe(o, info, sf);
	if (!o->sframe && !shim.secure) {
		file = obj_file(o, info, vdso, &key, exe, sizeof(exe));
		if (!file)
			return false;
		rc = cache_map(o, &key, file, false, fd);
		if (rc == 1 && strlen(file) < sizeof(pd->file)) {
			o->gen = pd->gen = ++last_gen;
			pd->key = key;
			strcpy(pd->file, file);
			return true;
		}
		if (rc || o->stored)
			return false;
		len = entry_len(o);
	}
	if (o->sframe)
		obj_register(o, fd, len);
	return false;
}
