// SPDX-License-Identifier: GPL-2.0
/* sframe_entry.c - an SFrame entry's header (sframe_entry.h). */
#include <errno.h>
#include <unistd.h>
#include "sframe_entry.h"

void entry_hdr_init(struct cache_hdr *h, uint64_t len, uint32_t funcs,
		    uint32_t left_out, const struct cache_src *src)
{
	memset(h, 0, sizeof(*h));
	memcpy(h->magic, CACHE_MAGIC, sizeof(h->magic));
	h->hdr_size = sizeof(*h);
	h->sframe_version = CACHE_SFRAME_VERSION;
	h->sframe_len = len;
	h->funcs = funcs;
	h->left_out = left_out;
	h->src = *src;
}

int entry_hdr_read(int fd, const struct stat *st, struct cache_hdr *h)
{
	if ((size_t)st->st_size < sizeof(*h) ||
	    pread(fd, h, sizeof(*h), 0) != (ssize_t)sizeof(*h) ||
	    memcmp(h->magic, CACHE_MAGIC, sizeof(h->magic)) ||
	    h->hdr_size != sizeof(*h) ||
	    h->sframe_version != CACHE_SFRAME_VERSION || h->sframe_vaddr ||
	    h->sframe_len > (uint64_t)st->st_size - sizeof(*h))
		return -EBADMSG;
	return 0;
}
