// SPDX-License-Identifier: GPL-2.0
/*
 * store-cache's library: no SFrame and no frame pointers, so that only a
 * store entry (or a stale cached rule) gives its frame an SFrame rule.
 */
__attribute__((visibility("default"), noinline))
int store_cache_lib_call(int (*cb)(int), int d)
{
	volatile char pad[40];
	int r;

	pad[0] = (char)d;
	r = cb(d);
	return r + pad[0] - (char)d;
}
