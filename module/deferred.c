// SPDX-License-Identifier: GPL-2.0
/* The deferred unwind engine: cookies, task_work, coalescing. */
#include "ustack.h"

int ustack_deferred_init(void)
{
	return 0;
}

void ustack_deferred_exit(void)
{
}

u64 ustack_request_self(void)
{
	return 0;
}
