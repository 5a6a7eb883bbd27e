// SPDX-License-Identifier: GPL-2.0
/*
 * sframe_text.c - what dump and lookup share: a file's .sframe loaded for
 * the decoder, and its rules as text (cmds.h).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include "cmds.h"

static const char * const reg_names[SFRAME_NR_REGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "fp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ra",
};

const char *sframe_reg_name(u8 reg)
{
	return reg < SFRAME_NR_REGS ? reg_names[reg] : "?";
}

const char *sframe_fmt_cfa(char *buf, const struct sframe_loc *l)
{
	const char *reg = sframe_reg_name(l->reg);

	if (l->kind == SFRAME_LOC_REG_DEREF)
		snprintf(buf, 32, "*(%s%+" PRId32 ")", reg, l->off);
	else
		snprintf(buf, 32, "%s%+" PRId32, reg, l->off);
	return buf;
}

const char *sframe_fmt_loc(char *buf, const struct sframe_loc *l)
{
	const char *reg = sframe_reg_name(l->reg);

	switch (l->kind) {
	case SFRAME_LOC_CFA_DEREF:
		snprintf(buf, 32, "c%+" PRId32, l->off);
		break;
	case SFRAME_LOC_CFA_VAL:	/* the value CFA+off itself */
		snprintf(buf, 32, "=c%+" PRId32, l->off);
		break;
	case SFRAME_LOC_REG_DEREF:
		snprintf(buf, 32, "*(%s%+" PRId32 ")", reg, l->off);
		break;
	case SFRAME_LOC_REG_VAL:
		if (l->off)
			snprintf(buf, 32, "=%s%+" PRId32, reg, l->off);
		else
			snprintf(buf, 32, "=%s", reg);
		break;
	default:
		snprintf(buf, 32, "u");
	}
	return buf;
}

int sframe_load_file(const char *prog, const char *path, struct elf_sframe *es,
		     struct sframe_sec *sec)
{
	const char *msg;
	int err;

	err = elf_sframe_read(path, es, &msg);
	if (err) {
		fprintf(stderr, "%s: %s: %s\n", prog, path, msg);
		return err;
	}
	err = ustack_sframe_sec_init(sec, (unsigned long)es->data, es->size,
			      es->vaddr, 0, 0);
	if (err) {
		fprintf(stderr, "%s: %s: bad .sframe: %s\n", prog, path,
			ustack_sframe_strerror(err));
		elf_sframe_free(es);
		return ustack_sframe_errno(err, -EINVAL);
	}
	return 0;
}
