/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers of the /dev/sframe VM tests: raw ioctls, finding SFrame sections. */
#ifndef SFRAME_COMMON_H
#define SFRAME_COMMON_H

#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <uapi/ustack.h>
#include <ustack_names.h>

#ifndef PT_GNU_SFRAME
#define PT_GNU_SFRAME 0x6474e554
#endif
#define NOINLINE __attribute__((noinline))

static int sf_fd = -1;

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
#include <stdarg.h>
static void die(const char *fmt, ...)
{
	va_list ap;

	printf("FAIL: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

static void sf_open(void)
{
	sf_fd = open("/dev/sframe", O_RDWR | O_CLOEXEC);
	if (sf_fd < 0)
		die("open /dev/sframe: %s", strerror(errno));
}

/* The ioctl as an inline system call: no libc frame on top. */
static inline __attribute__((always_inline)) long raw_ioctl(long fd, unsigned long req, void *arg)
{
	long ret;

	asm volatile("syscall"
		     : "=a"(ret)
		     : "0"((long)SYS_ioctl), "D"(fd), "S"(req), "d"(arg)
		     : "rcx", "r11", "memory");
	return ret;
}

/* ips[0] = IP in here, ips[1] = return address into the caller, ... */
static __attribute__((unused)) NOINLINE int self_stack(uint64_t *ips, uint8_t *m, unsigned int max,
			       unsigned int *end)
{
	struct ustack_self s;
	long rc;

	memset(&s, 0, sizeof(s));
	s.size = sizeof(s);
	s.ips = (uintptr_t)ips;
	s.methods = (uintptr_t)m;
	s.max_frames = max;
	rc = raw_ioctl(sf_fd, SFRAME_IOC_SELF_STACK, &s);
	if (rc < 0)
		return (int)rc;
	if (end)
		*end = s.end_reason;
	return (int)s.nr_frames;
}

static __attribute__((unused)) int sf_reg(uintptr_t sf, uint64_t len, uintptr_t lo, uintptr_t hi)
{
	struct sframe_reg r = {
		.size = sizeof(r), .sframe_start = sf, .sframe_len = len,
		.text_start = lo, .text_end = hi,
	};

	return ioctl(sf_fd, SFRAME_IOC_REGISTER, &r) ? -errno : 0;
}

static __attribute__((unused)) int sf_unreg(uintptr_t sf)
{
	struct sframe_reg r = { .size = sizeof(r), .sframe_start = sf };

	return ioctl(sf_fd, SFRAME_IOC_UNREGISTER, &r) ? -errno : 0;
}

/* An object's .sframe (from its section headers) and executable range. */
struct obj {
	uintptr_t bias, sf, text_lo, text_hi;
	uint64_t sf_len;
	char path[512];
	const char *want;
	int found;
};

static int obj_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct obj *o = data;
	int i;

	(void)size;
	if (o->found)
		return 0;
	if (o->want[0] ? !strstr(info->dlpi_name, o->want) :
	    info->dlpi_name[0] != 0)
		return 0;
	o->found = 1;
	o->bias = info->dlpi_addr;
	snprintf(o->path, sizeof(o->path), "%s",
		 o->want[0] ? info->dlpi_name : "/proc/self/exe");
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_LOAD && (p->p_flags & PF_X)) {
			o->text_lo = o->bias + p->p_vaddr;
			o->text_hi = o->text_lo + p->p_memsz;
		}
	}
	return 1;
}

/* @want: a substring of the object's name, or "" for the main program. */
static __attribute__((unused)) int find_obj(const char *want, struct obj *o)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh;
	char *names;
	int fd, i, ok = -1;

	memset(o, 0, sizeof(*o));
	o->want = want;
	dl_iterate_phdr(obj_cb, o);
	if (!o->found)
		return -1;
	fd = open(o->path, O_RDONLY);
	if (fd < 0)
		return -1;
	if (pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || !eh.e_shnum ||
	    eh.e_shentsize != sizeof(*sh) || eh.e_shstrndx >= eh.e_shnum)
		goto out;
	sh = calloc(eh.e_shnum, sizeof(*sh));
	if (pread(fd, sh, eh.e_shnum * sizeof(*sh), eh.e_shoff) !=
	    (ssize_t)(eh.e_shnum * sizeof(*sh)))
		goto out_sh;
	names = malloc(sh[eh.e_shstrndx].sh_size + 1);
	if (pread(fd, names, sh[eh.e_shstrndx].sh_size,
		  sh[eh.e_shstrndx].sh_offset) < 0)
		goto out_names;
	names[sh[eh.e_shstrndx].sh_size] = 0;
	for (i = 0; i < eh.e_shnum; i++) {
		if (sh[i].sh_name < sh[eh.e_shstrndx].sh_size &&
		    !strcmp(names + sh[i].sh_name, ".sframe") && sh[i].sh_addr) {
			o->sf = o->bias + sh[i].sh_addr;
			o->sf_len = sh[i].sh_size;
			ok = 0;
		}
	}
out_names:
	free(names);
out_sh:
	free(sh);
out:
	close(fd);
	return ok;
}

static __attribute__((unused)) const char *method_name(uint8_t m)
{
	static const char * const n[USTACK_METHOD_MAX] = {
		USTACK_METHOD_NAMES(USTACK_NAME_INIT)
	};

	return m < USTACK_METHOD_MAX && n[m] ? n[m] : "?";
}

#endif
