// SPDX-License-Identifier: GPL-2.0
/*
 * A store entry made from ustackd's STORE_ADD: the object's executable
 * PT_LOADs (what maps a mapping's file offsets to ELF addresses), read
 * from the object's file or the vDSO's image; the store file, readable
 * through the page cache; and its section, decoded and validated as the
 * walks will read it, so that an entry in the table is one a walk can use.
 * Every refusal is an errno and a rate-limited line saying why.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/elf.h>
#include <linux/err.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <uapi/ustack.h>
#include "arch.h"
#include "ustack_limits.h"
#include "store_entry.h"
#include "store_read.h"
#include "ustack_elf.h"

#define STORE_MAX_PHDRS		64

struct file *ustack_store_fget(int fd)
{
	struct file *f = fget(fd);

	if (!f)
		return ERR_PTR(-EBADF);
	if (!(f->f_mode & FMODE_READ)) {
		fput(f);
		return ERR_PTR(-EBADF);
	}
	if (!S_ISREG(file_inode(f)->i_mode)) {
		fput(f);
		return ERR_PTR(-EINVAL);
	}
	return f;
}

int ustack_store_refuse(int err, const char *why, int code)
{
	pr_info_ratelimited("pid %d (%s): store entry refused: %s\n",
			    task_tgid_nr(current), current->comm,
			    code ? ustack_sframe_strerror(code) : why);
	return err;
}

static bool store_obj_read(const struct store_obj *o, void *dst, size_t len,
			   u64 off)
{
	loff_t pos = off;

	if (o->file)
		return kernel_read(o->file, dst, len, &pos) == len;
	if (off > o->len || len > o->len - off)
		return false;
	memcpy(dst, o->img + off, len);
	return true;
}

/* The executable PT_LOADs of the ELF object @obj into @e. */
static int store_read_loads(const struct store_obj *obj, struct store_ent *e)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	u32 i;

	if (!store_obj_read(obj, &eh, sizeof(eh), 0) ||
	    !ustack_elf_usable(&eh, STORE_MAX_PHDRS))
		return -EINVAL;
	for (i = 0; i < eh.e_phnum && e->nloads < STORE_MAX_LOADS; i++) {
		if (!store_obj_read(obj, &ph, sizeof(ph),
				    eh.e_phoff + (u64)i * sizeof(ph)))
			return -EINVAL;
		if (ph.p_type != PT_LOAD || !(ph.p_flags & PF_X))
			continue;
		e->load[e->nloads++] = (struct store_load) {
			.offset = ph.p_offset,
			.vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz,
		};
	}
	return e->nloads ? 0 : -EINVAL;
}

/*
 * SFrame of the vDSO names functions of its image, which is small: more
 * FDEs than bytes of text, or one outside the text, is SFrame of another
 * object.
 */
static bool store_vdso_funcs_ok(const struct store_ent *e)
{
	const struct store_load *l = &e->load[0];
	struct sframe_fde fde;
	u32 i;

	if (e->nloads != 1 || e->sec.num_fdes > l->filesz)
		return false;
	for (i = 0; i < e->sec.num_fdes; i++) {
		if (ustack_sframe_read_fde(&e->sec, i, &fde) ||
		    fde.func_start < l->vaddr ||
		    fde.func_start - l->vaddr > l->filesz ||
		    fde.func_size > l->filesz - (fde.func_start - l->vaddr))
			return false;
	}
	return true;
}

/*
 * Decode and validate the section of @e's store file, read as walks do.
 * Return: 0 or the refusal's errno.
 */
static int store_check_section(struct store_ent *e, u64 len, u64 vaddr)
{
	struct store_reader rd = {};
	int err;

	ustack_store_rd_bind(&rd, get_file(e->file), e->off, len);
	err = ustack_sframe_sec_init_rd(&e->sec, &rd.sf, 0, len, vaddr, 0, 0);
	if (!err)
		err = ustack_sframe_validate(&e->sec);
	if (err)
		err = ustack_store_refuse(ustack_sframe_errno(err, -EBADMSG), NULL, err);
	else if (e->vdso && !store_vdso_funcs_ok(e))
		err = ustack_store_refuse(-EBADMSG, "functions outside the vDSO's text", 0);
	ustack_store_rd_release(&rd);
	e->sec.rd = NULL;
	return err;
}

/*
 * @e's store file and section, of request @r (whose range ends at @end):
 * opened, readable as walks read it, and valid.  0, or the refusal's
 * errno with no reference kept.
 */
static int store_open_section(struct store_ent *e,
			      const struct sframe_store_reg *r, u64 end)
{
	int err;

	e->file = ustack_store_fget(r->sframe_fd);
	if (IS_ERR(e->file)) {
		err = PTR_ERR(e->file);
		e->file = NULL;
		return ustack_store_refuse(err, "store fd", 0);
	}
	if (!ustack_store_rd_usable(e->file))
		err = ustack_store_refuse(-EINVAL, "store file not readable through the page cache", 0);
	else if (end > i_size_read(file_inode(e->file)))
		err = ustack_store_refuse(-EINVAL, "range past the store file's end", 0);
	else
		err = store_check_section(e, r->sframe_len, r->sframe_vaddr);
	if (err) {
		fput(e->file);
		e->file = NULL;
	}
	return err;
}

/* @off (or none) leaves room for @len bytes in a buffer of @size. */
static bool py_in(u16 off, unsigned int len, unsigned int size)
{
	return off == USTACK_PY_NONE || (size >= len && off <= size - len);
}

/*
 * A layout the walk can use: every field it reads into a buffer of its
 * own lies within what it reads (the frame's fr_read bytes, a str's
 * headers); the thread lists are offsets into the process's memory only,
 * of any size (the interpreter state is some 200 KiB).  The layout may
 * come from a user's file, through ustackd: it must not make the kernel
 * read past its buffers.
 */
static bool py_ok(const struct ustack_python *py)
{
	unsigned int fr = py->fr_read, ascii = py->str_ascii_data;
	unsigned int compact = py->str_compact_data;

	if (py->size != sizeof(*py) || memchr_inv(py->reserved, 0, sizeof(py->reserved)) ||
	    py->flags & ~(USTACK_PY_INSTR_IS_PREV | USTACK_PY_DEBUG_OFFSETS))
		return false;
	if (py->rt_interp_head == USTACK_PY_NONE ||
	    py->is_threads_head == USTACK_PY_NONE ||
	    py->ts_next == USTACK_PY_NONE || py->ts_native_tid == USTACK_PY_NONE ||
	    py->current_frame == USTACK_PY_NONE ||
	    py->fr_code == USTACK_PY_NONE || py->fr_previous == USTACK_PY_NONE ||
	    py->fr_instr == USTACK_PY_NONE || py->str_length == USTACK_PY_NONE ||
	    py->str_state == USTACK_PY_NONE)
		return false;
	return fr <= USTACK_PY_FRAME_MAX && compact <= USTACK_PY_FRAME_MAX &&
	       ascii <= compact &&
	       py_in(py->fr_code, 8, fr) && py_in(py->fr_previous, 8, fr) &&
	       py_in(py->fr_instr, 8, fr) && py_in(py->fr_is_entry, 1, fr) &&
	       py_in(py->fr_owner, 1, fr) &&
	       py_in(py->str_length, 8, ascii) && py_in(py->str_state, 4, ascii) &&
	       py_in(py->str_utf8_length, 8, compact) &&
	       py_in(py->str_utf8, 8, compact) &&
	       py->ob_type < USTACK_PY_STRUCT_MAX &&
	       py->co_filename < USTACK_PY_STRUCT_MAX &&
	       py->co_qualname < USTACK_PY_STRUCT_MAX &&
	       py->co_linetable < USTACK_PY_STRUCT_MAX &&
	       py->co_firstlineno < USTACK_PY_STRUCT_MAX &&
	       py->co_code < USTACK_PY_STRUCT_MAX &&
	       py->bytes_size < USTACK_PY_STRUCT_MAX &&
	       py->bytes_data < USTACK_PY_STRUCT_MAX;
}

/* STORE_ADD's CPython, copied and checked: 0, or the refusal's errno. */
static int store_read_python(const struct sframe_store_reg *r, struct store_ent *e)
{
	struct ustack_python *py;

	if (!r->python)
		return 0;
	py = kmalloc(sizeof(*py), GFP_KERNEL);
	if (!py)
		return -ENOMEM;
	if (copy_from_user(py, u64_to_user_ptr(r->python), sizeof(*py))) {
		kfree(py);
		return -EFAULT;
	}
	if (!py_ok(py)) {
		kfree(py);
		return ustack_store_refuse(-EINVAL, "bad CPython layout", 0);
	}
	e->py = py;
	return 0;
}

struct store_ent *ustack_store_ent_new(const struct sframe_store_reg *r,
				       const struct store_obj *src)
{
	struct store_ent *e;
	u64 end;
	int err;

	if (!r->sframe_len || check_add_overflow(r->sframe_off, r->sframe_len, &end))
		return ERR_PTR(ustack_store_refuse(-EINVAL, "empty or wrapping range", 0));
	if (r->sframe_len > USTACK_SFRAME_MAX_BYTES)
		return ERR_PTR(ustack_store_refuse(-EBADMSG, "section too large", 0));
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return ERR_PTR(-ENOMEM);
	e->off = r->sframe_off;
	e->vdso = src->img;
	err = store_read_loads(src, e);
	if (err) {
		kfree(e);
		if (src->img)
			err = ustack_store_refuse(-EOPNOTSUPP, "the caller's vDSO is not " USTACK_ARCH_NAME " ELF64", 0);
		else
			err = ustack_store_refuse(err, "object not an " USTACK_ARCH_NAME " ELF file", 0);
		return ERR_PTR(err);
	}
	err = store_read_python(r, e);
	if (err) {
		kfree(e);
		return ERR_PTR(err);
	}
	err = store_open_section(e, r, end);
	if (err) {
		kfree(e->py);
		kfree(e);
		return ERR_PTR(err);
	}
	return e;
}

void ustack_store_ent_free(struct store_ent *e)
{
	fput(e->file);
	kfree(e->py);
	kfree(e);
}
