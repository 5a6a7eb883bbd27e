/* SPDX-License-Identifier: GPL-2.0 */
/* /sys/kernel/debug/ustack/ (stats.c). */
#ifndef USTACK_STATS_H
#define USTACK_STATS_H


struct dentry;

struct dentry *ustack_stats_init(void);
void ustack_stats_exit(void);

#endif /* USTACK_STATS_H */
