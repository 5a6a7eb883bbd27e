/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vdso.h - the vDSO as a file: the kernel maps the whole ELF image into
 * every 64-bit process (AT_SYSINFO_EHDR), section headers last, so its
 * bytes up to the end of the section header table are a file the
 * generator reads like any other.  The shim writes them next to its cache
 * entries; ustackd generates from its own mapping.
 */
#ifndef TOOLS_VDSO_H
#define TOOLS_VDSO_H

#include <stddef.h>

/*
 * The size of the ELF64 image at @ehdr (the vDSO's mapping): up to the end
 * of its section headers; 0 if it does not look like a vDSO image (at most
 * 256 sections, headers within its first MiB).
 */
size_t vdso_image_size(const void *ehdr);

#endif
