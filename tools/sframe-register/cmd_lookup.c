// SPDX-License-Identifier: GPL-2.0
/* sframe-register lookup FILE ADDR...: the SFrame rule of each address. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "cmds.h"
#include "elf_sframe.h"

static const char * const reg_names[SFRAME_NR_REGS] = {
	"rax", "rdx", "rcx", "rbx", "rsi", "rdi", "fp", "sp",
	"r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15", "ra",
};

static const char *reg_name(u8 reg)
{
	return reg < SFRAME_NR_REGS ? reg_names[reg] : "?";
}

const char *sframe_fmt_cfa(char *buf, const struct sframe_loc *l)
{
	if (l->kind == SFRAME_LOC_REG_DEREF)
		snprintf(buf, 32, "*(%s%+" PRId32 ")", reg_name(l->reg), l->off);
	else
		snprintf(buf, 32, "%s%+" PRId32, reg_name(l->reg), l->off);
	return buf;
}

const char *sframe_fmt_loc(char *buf, const struct sframe_loc *l)
{
	switch (l->kind) {
	case SFRAME_LOC_CFA_DEREF:
		snprintf(buf, 32, "c%+" PRId32, l->off);
		break;
	case SFRAME_LOC_CFA_VAL:	/* the value CFA+off itself */
		snprintf(buf, 32, "=c%+" PRId32, l->off);
		break;
	case SFRAME_LOC_REG_DEREF:
		snprintf(buf, 32, "*(%s%+" PRId32 ")", reg_name(l->reg), l->off);
		break;
	case SFRAME_LOC_REG_VAL:
		if (l->off)
			snprintf(buf, 32, "=%s%+" PRId32, reg_name(l->reg), l->off);
		else
			snprintf(buf, 32, "=%s", reg_name(l->reg));
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

int cmd_lookup(int argc, char **argv)
{
	struct elf_sframe es;
	struct sframe_sec sec;
	struct sframe_rule r;
	char a[32], b[32], c[32];
	int i, err, ret = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: sframe-register lookup FILE ADDR...\n");
		return 2;
	}
	if (sframe_load_file("sframe-register lookup", argv[1], &es, &sec))
		return 1;
	for (i = 2; i < argc; i++) {
		char *end;
		u64 pc;

		errno = 0;
		pc = strtoull(argv[i], &end, 16);
		if (errno || end == argv[i] || *end) {
			fprintf(stderr, "sframe-register lookup: bad address '%s'\n",
				argv[i]);
			ret = 2;
			continue;
		}
		err = ustack_sframe_find(&sec, pc, &r);
		if (err == SFRAME_E_NOINFO) {
			printf("0x%" PRIx64 " none\n", pc);
		} else if (err) {
			printf("0x%" PRIx64 " error %s\n", pc, ustack_sframe_strerror(err));
			ret = 1;
		} else if (r.flags & SFRAME_R_OUTERMOST) {
			printf("0x%" PRIx64 " outermost\n", pc);
		} else {
			printf("0x%" PRIx64 " cfa=%s fp=%s ra=%s%s\n", pc,
			       sframe_fmt_cfa(a, &r.cfa), sframe_fmt_loc(b, &r.fp),
			       sframe_fmt_loc(c, &r.ra),
			       (r.flags & SFRAME_R_SIGNAL) ? " signal" : "");
		}
	}
	elf_sframe_free(&es);
	return ret;
}
