/* SPDX-License-Identifier: GPL-2.0 */
/* ustack.ko: declarations shared between the module's files. */
#ifndef USTACK_INTERNAL_H
#define USTACK_INTERNAL_H

#include <linux/types.h>
#include "compat.h"

#define USTACK_VERSION "0.1.0"

/* Module parameters (ustack_main.c). */
extern unsigned int ustack_sample_hz;
extern int ustack_pid;
extern bool ustack_offcpu;

/* /dev/ustack (ustack_dev.c). */
int ustack_dev_init(void);
void ustack_dev_exit(void);

/* /dev/sframe (sframe_dev.c). */
int sframe_dev_init(void);
void sframe_dev_exit(void);

#endif /* USTACK_INTERNAL_H */
