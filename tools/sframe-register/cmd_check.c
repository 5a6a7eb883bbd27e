// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "cmds.h"

int cmd_check(int argc, char **argv)
{
	fprintf(stderr, "sframe-register check: not implemented yet\n");
	return 1;
}
