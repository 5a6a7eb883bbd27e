/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The mapping at a PC of current->mm, taken once under mmap_lock and
 * handed to the lookups that need it (ELF discovery, the store), so that
 * a walk entering an object takes the lock once.
 */
#ifndef USTACK_PC_MAPPING_H
#define USTACK_PC_MAPPING_H

#include <linux/file.h>
#include <linux/mm.h>
#include <linux/sched.h>
#include "arch.h"

struct ustack_text_map {
	u64 start, end;		/* the mapping, or [pc, pc + 1) if none */
	u64 off;		/* its file offset */
	struct file *file;	/* executable file mapping: referenced */
	const void *vdso;	/* the vDSO image it maps */
};

/* @t for @pc; 0 or -EINTR.  Sleeps. */
static inline int ustack_text_map_get(u64 pc, struct ustack_text_map *t)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;

	might_sleep();
	*t = (struct ustack_text_map){ .start = pc, .end = pc + 1 };
	if (!mm)
		return 0;
	if (mmap_read_lock_killable(mm))
		return -EINTR;
	vma = find_vma(mm, pc);
	if (vma && vma->vm_start <= pc) {
		t->start = vma->vm_start;
		t->end = vma->vm_end;
		t->off = (u64)vma->vm_pgoff << PAGE_SHIFT;
		if ((vma->vm_flags & VM_EXEC) && vma->vm_file)
			t->file = get_file(vma->vm_file);
		else if ((vma->vm_flags & VM_EXEC) && ustack_arch_is_vdso(vma))
			t->vdso = ustack_arch_vdso_image(mm, NULL);
	}
	mmap_read_unlock(mm);
	return 0;
}

static inline void ustack_text_map_put(struct ustack_text_map *t)
{
	if (t->file)
		fput(t->file);
	t->file = NULL;
}

#endif /* USTACK_PC_MAPPING_H */
