/* SPDX-License-Identifier: GPL-2.0 */
/* CPython's frames of current, read by the kernel (py_frames.c). */
#ifndef USTACK_PY_FRAMES_H
#define USTACK_PY_FRAMES_H

#include <linux/types.h>

bool ustack_py_frames(u64 cookie, const u64 *ips, u32 nr);

struct seq_file;
void ustack_py_show(struct seq_file *m);

#endif /* USTACK_PY_FRAMES_H */
