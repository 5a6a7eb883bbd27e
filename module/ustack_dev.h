/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/ustack (ustack_dev.c). */
#ifndef USTACK_USTACK_DEV_H
#define USTACK_USTACK_DEV_H

/* Ring size in KiB, taken at the next first open (parameter buffer_kb). */
extern unsigned int ustack_dev_buffer_kb;

int ustack_dev_init(void);
void ustack_dev_exit(void);

#endif /* USTACK_USTACK_DEV_H */
