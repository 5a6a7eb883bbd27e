// SPDX-License-Identifier: GPL-2.0
/* sframe-register: entry point, dispatches to the subcommands. */
#include <stdio.h>
#include <string.h>
#include "cmds.h"

static const struct {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
} cmds[] = {
	{ "run",    cmd_run,    "run [--] PROG [ARGS...]" },
	{ "dump",   cmd_dump,   "dump FILE" },
	{ "lookup", cmd_lookup, "lookup FILE ADDR..." },
	{ "gen",    cmd_gen,    "gen FILE -o OUT [--version 1|2|3]" },
	{ "check",  cmd_check,  "check FILE" },
};

static int usage(FILE *f)
{
	fprintf(f, "usage:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  sframe-register %s\n", cmds[i].usage);
	return f == stderr ? 2 : 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage(stderr);
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))
		return usage(stdout);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	fprintf(stderr, "sframe-register: unknown command '%s'\n", argv[1]);
	return usage(stderr);
}
