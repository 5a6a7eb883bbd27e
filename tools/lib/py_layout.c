// SPDX-License-Identifier: GPL-2.0
/*
 * py_layout.c - a CPython's layout for the kernel's reader of its frames
 * (struct ustack_python, include/uapi/ustack.h), from the object's file:
 * the symbols _PyRuntime, PyCode_Type and Py_Version (.dynsym), the
 * version from Py_Version's initial value, and the offsets of
 * py_offsets.c: 3.11's known layout, or for 3.13 and 3.14 the
 * _Py_DebugOffsets at the start of _PyRuntime, whose initial bytes the
 * file holds (a static initialiser).
 * 3.12 (no Debian suite ships one, its thread lists unverified), 3.15 (its
 * thread state moved: native_thread_id unverified), free-threaded builds
 * and any other version get no layout, and say why.
 *
 * ustackd registers the layout with the object's store entry; the shim's
 * unwinder takes its layouts from the same tables, in the process.
 */
#include <stdio.h>
#include <string.h>
#include <gelf.h>
#include "py_layout.h"
#include "py_offsets.h"

/* @len bytes at the ELF address @addr, from its section's data. */
static int read_at(Elf *elf, uint64_t addr, void *dst, size_t len)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS ||
		    !(sh.sh_flags & SHF_ALLOC) || addr < sh.sh_addr ||
		    addr - sh.sh_addr > sh.sh_size ||
		    len > sh.sh_size - (addr - sh.sh_addr))
			continue;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size != sh.sh_size)
			return -1;
		memcpy(dst, (const char *)d->d_buf + (addr - sh.sh_addr), len);
		return 0;
	}
	return -1;
}

/* The dynamic symbols wanted: 0 when all three are there. */
static int find_syms(Elf *elf, uint64_t *rt, uint64_t *code, uint64_t *ver)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	*rt = *code = *ver = 0;
	while ((scn = elf_nextscn(elf, scn))) {
		Elf_Data *d;
		size_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM ||
		    !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		n = d ? d->d_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n && i < (1u << 20); i++) {
			GElf_Sym s;
			const char *name;

			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			name = elf_strptr(elf, sh.sh_link, s.st_name);
			if (!name)
				continue;
			if (!strcmp(name, "_PyRuntime"))
				*rt = s.st_value;
			else if (!strcmp(name, "PyCode_Type"))
				*code = s.st_value;
			else if (!strcmp(name, "Py_Version"))
				*ver = s.st_value;
		}
	}
	return *rt && *code && *ver ? 0 : 1;
}

int py_layout_of_elf(Elf *elf, struct ustack_python *py, char *why, size_t n)
{
	uint64_t rt, code, vaddr, version, t[PY_DBG_WORDS_MAX];
	unsigned int words;

	memset(py, 0, sizeof(*py));
	if (find_syms(elf, &rt, &code, &vaddr))
		return 1;
	if (read_at(elf, vaddr, &version, sizeof(version))) {
		snprintf(why, n, "Py_Version unreadable");
		return -1;
	}
	snprintf(why, n, "python %lu.%lu.%lu", (unsigned long)version >> 24,
		 (unsigned long)(version >> 16) & 0xff,
		 (unsigned long)(version >> 8) & 0xff);
	words = py_offsets_debug_words(version);
	if (PY_MINOR(version) == 0x030b) {
		*py = py_offsets_311;
	} else if (!words) {
		snprintf(why + strlen(why), n - strlen(why),
			 ": no layout known for this version");
		return -1;
	} else if (read_at(elf, rt, t, words * 8) || memcmp(t, "xdebugpy", 8) ||
		   t[1] != version || t[2] || py_offsets_from_debug(py, version, t)) {
		snprintf(why + strlen(why), n - strlen(why),
			 ": its _Py_DebugOffsets are missing, free-threaded or do not check out");
		return -1;
	} else if (py->ts_native_tid == USTACK_PY_NONE) {
		snprintf(why + strlen(why), n - strlen(why),
			 ": its thread lists are not known for this version");
		return -1;
	}
	py->version = version;
	py->runtime = rt;
	py->code_type = code;
	return 0;
}
