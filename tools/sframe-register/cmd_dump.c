// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "cmds.h"

int cmd_dump(int argc, char **argv)
{
	fprintf(stderr, "sframe-register dump: not implemented yet\n");
	return 1;
}
