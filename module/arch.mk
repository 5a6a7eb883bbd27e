# SPDX-License-Identifier: GPL-2.0
# The make side of arch.h: USTACK_ARCH, the kernel's name of the
# architecture (SRCARCH) whose arch_$(USTACK_ARCH)_unwind.c the SFrame
# core is built with.  Kbuild knows SRCARCH; a user-space build maps the
# machine name uname gives, as the kernel's own Makefile does.
USTACK_ARCH ?= $(if $(SRCARCH),$(SRCARCH),$(shell uname -m | \
		sed -e 's/^x86_64$$/x86/' -e 's/^aarch64$$/arm64/'))

# The kernel's table of system call numbers (syscall-names.sh), in a
# kernel build tree (Kbuild's objtree and srctree): arm64 generates one
# since 6.11; before, its numbers are the asm-generic table's.
ifeq ($(USTACK_ARCH),x86)
USTACK_ARCH_UNISTD := $(objtree)/arch/x86/include/generated/uapi/asm/unistd_64.h
endif
ifeq ($(USTACK_ARCH),arm64)
USTACK_ARCH_UNISTD := $(firstword \
	$(wildcard $(objtree)/arch/arm64/include/generated/uapi/asm/unistd_64.h) \
	$(srctree)/include/uapi/asm-generic/unistd.h)
endif
