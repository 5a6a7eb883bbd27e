/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cmds.h - sframe-register's commands, each in cmd_<name>.c, and what
 * dump and lookup share (sframe_text.c).
 */
#ifndef SFRAME_REGISTER_CMDS_H
#define SFRAME_REGISTER_CMDS_H

#include "elf_sframe.h"
#include "ustack_sframe.h"

int cmd_run(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_lookup(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* The name of SFrame register @reg (DWARF numbering, "fp", "sp", "ra"). */
const char *sframe_reg_name(u8 reg);

/*
 * Text of a rule in objdump's notation (`lookup` and `dump`; @buf needs 32
 * bytes).  CFA: "sp+16", "fp+16", "r10+0" (flex: another register),
 * "*(fp-8)" (flex: dereferenced, DRAP).  FP and RA: "u" (unchanged, or
 * untracked), "c-16" (saved at CFA-16); flex only: "=c+8" (the value CFA+8),
 * "=rbx" / "=rbx+8" (a register's value), "*(rbx+8)" (saved at rbx+8).
 */
const char *sframe_fmt_cfa(char *buf, const struct sframe_loc *l);
const char *sframe_fmt_loc(char *buf, const struct sframe_loc *l);

/* Load @path's .sframe and init @sec over it; prints errors to stderr. */
int sframe_load_file(const char *prog, const char *path, struct elf_sframe *es,
		     struct sframe_sec *sec);

#endif
