// SPDX-License-Identifier: GPL-2.0
/* libsframe 2.40 as an oracle for sfcheck (v1 sections only). */
#include <stdint.h>
#include <stddef.h>
#include <sframe-api.h>

void *ls_open(const void *buf, size_t len, int *err);
int ls_find(void *ctx, int32_t rel_pc, int *base_sp, long *cfa_off,
	    int *fp_saved, long *fp_off);

void *ls_open(const void *buf, size_t len, int *err)
{
	return sframe_decode(buf, len, err);
}

int ls_find(void *ctx, int32_t rel_pc, int *base_sp, long *cfa_off,
	    int *fp_saved, long *fp_off)
{
	sframe_frame_row_entry fre;
	int err = 0;

	if (sframe_find_fre(ctx, rel_pc, &fre))
		return 0;
	*base_sp = sframe_fre_get_base_reg_id(&fre, &err) == SFRAME_BASE_REG_SP;
	*cfa_off = sframe_fre_get_cfa_offset(ctx, &fre, &err);
	if (err)
		return -1;
	*fp_off = sframe_fre_get_fp_offset(ctx, &fre, &err);
	*fp_saved = !err;
	return 1;
}
