// SPDX-License-Identifier: GPL-2.0
/* The libustack API without kernel support: clean failures. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "ustack.h"

int main(void)
{
	void *buf[16];
	int n, e, r, u;

	errno = 0;
	n = ustack_backtrace(buf, 16);
	e = errno;
	r = ustack_register(buf, sizeof(buf), (void *)main, (char *)main + 16);
	u = ustack_unregister(buf);
	printf("backtrace=%d errno=%s register=%d unregister=%d zero=%d\n", n,
	       e == ENOSYS ? "ENOSYS" : strerror(e), r, u,
	       ustack_backtrace(buf, 0));
	return 0;
}
