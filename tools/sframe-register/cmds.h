/* SPDX-License-Identifier: GPL-2.0 */
/* Subcommands of sframe-register; each lives in cmd_<name>.c. */
#ifndef SFRAME_REGISTER_CMDS_H
#define SFRAME_REGISTER_CMDS_H

int cmd_run(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_lookup(int argc, char **argv);
int cmd_gen(int argc, char **argv);
int cmd_check(int argc, char **argv);

#endif
