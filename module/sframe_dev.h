/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/sframe (sframe_dev.c). */
#ifndef USTACK_SFRAME_DEV_H
#define USTACK_SFRAME_DEV_H

int ustack_sframe_dev_init(void);
void ustack_sframe_dev_exit(void);

#endif /* USTACK_SFRAME_DEV_H */
