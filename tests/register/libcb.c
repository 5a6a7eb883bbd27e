// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>

int cb_run(int (*cmp)(const void *, const void *))
{
	int v[8] = { 5, 3, 7, 1, 8, 2, 6, 4 };

	qsort(v, 8, sizeof(v[0]), cmp);
	return v[0];
}
