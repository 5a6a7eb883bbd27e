/* SPDX-License-Identifier: GPL-2.0 */
/* /dev/ustack (stream_dev.c). */
#ifndef USTACK_STREAM_DEV_H
#define USTACK_STREAM_DEV_H

/* Ring size in KiB, taken at the next first open (parameter buffer_kb). */
extern unsigned int ustack_stream_dev_buffer_kb;

int ustack_stream_dev_init(void);
void ustack_stream_dev_exit(void);

#endif /* USTACK_STREAM_DEV_H */
