/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The architecture seam.  Generic code includes this header, never an
 * arch_<arch>.h: it picks the one of the CPU the module (or a tool) is
 * built for.  An architecture is
 *   arch_<arch>.h          the names every arch defines (USTACK_ARCH_*,
 *                          ustack_arch_*()): the SFrame core's registers,
 *                          frames and signal trampoline for all builds,
 *                          the kernel side (registers, vDSO, NMI, system
 *                          calls) under __KERNEL__;
 *   arch_<arch>_unwind.c   its part of the core's walk (declared below:
 *                          signal frames, PLT stubs; and the call before
 *                          a return address, ustack_sframe.h),
 *                          which core.mk and Kbuild pick by the kernel's
 *                          name of the architecture (SRCARCH);
 *   arch.mk                a line for the machine name uname gives.
 * docs/DESIGN.md says how to add one.
 */
#ifndef USTACK_ARCH_H
#define USTACK_ARCH_H

#if defined(__x86_64__)
#include "arch_x86.h"
#elif defined(__aarch64__)
#include "arch_arm64.h"
#else
#error "ustack: no arch_<arch>.h for this architecture (see docs/DESIGN.md)"
#endif

/* ---- the architecture's part of the walk: arch_<arch>_unwind.c ---------- */

struct sframe_state;
struct sframe_walk;

/*
 * @st is at the signal trampoline, SP where the kernel left the signal
 * frame: the interrupted frame's registers, into w->gpr and @st (a
 * topmost frame again).  0 or an SFrame code.
 */
int ustack_arch_signal_step(struct sframe_walk *w, struct sframe_state *st);

/*
 * Is the code @c (USTACK_ARCH_PLT_PEEK_LEN bytes at a direct call's
 * target) a PLT stub, a jump elsewhere through the GOT?
 */
bool ustack_arch_plt_stub(const u8 *c);

#endif /* USTACK_ARCH_H */
