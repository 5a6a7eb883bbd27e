// SPDX-License-Identifier: GPL-2.0
/* sframe-register lookup FILE ADDR...: the SFrame rule of each address. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include "cmds.h"

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
