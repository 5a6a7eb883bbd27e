// SPDX-License-Identifier: GPL-2.0
/*
 * py_linetable.c - the line of a code unit from a CPython location table
 * (PEP 657, 3.11 on), as PyCode_Addr2Line() reads it: entries of one
 * byte (1, code 4 bits, length - 1 3 bits) and the varints its code
 * says.  The table is the process's: read through @read in chunks, up to
 * the entry that covers the unit, at most PY_LINETABLE_MAX bytes.
 */
#include "py_linetable.h"

#define LT_CHUNK	128	/* table bytes per read */
#define LT_AHEAD	16	/* an entry is 1 + 4 varints of 4 bytes, at most */

static unsigned int lt_varint(const u8 *p, size_t n, size_t *i)
{
	unsigned int v, shift = 0, b;

	if (*i >= n)
		return 0;
	b = p[(*i)++];
	v = b & 63;
	while ((b & 64) && *i < n && shift < 24) {
		b = p[(*i)++];
		shift += 6;
		v |= (b & 63) << shift;
	}
	return v;
}

/**
 * ustack_py_addr2line() - the line of a code unit
 * @read: reads the table's bytes
 * @ctx: its context
 * @n: the table's length
 * @first: the code object's first line
 * @unit: the code unit (instruction) whose line is wanted
 *
 * Return: the line, @first for a unit before the code, 0 when unknown
 * (no entry, an entry without a line, or an unreadable table).
 */
int ustack_py_addr2line(py_lt_read_t read, void *ctx, u64 n, int first,
			long unit)
{
	u8 t[LT_CHUNK + LT_AHEAD];
	size_t have = 0, i = 0, k;
	u64 base = 0;
	long end = 0;
	int line = first;

	if (unit < 0)
		return first;
	if (n > PY_LINETABLE_MAX)
		n = PY_LINETABLE_MAX;
	/* each step moves on by a byte at least: @n bounds the loop */
	while (base + i < n) {
		unsigned int b, code;

		if (i + LT_AHEAD > have && base + have < n) {
			size_t left = have - i;
			u64 want = n - base - i;

			memmove(t, t + i, left);
			base += i;
			i = 0;
			if (want > sizeof(t))
				want = sizeof(t);
			if (read(ctx, t + left, base + left, want - left))
				return 0;
			have = want;
		}
		b = t[i];
		code = (b >> 3) & 15;
		end += (b & 7) + 1;
		k = i + 1;
		if (code == 13 || code == 14) {
			unsigned int v = lt_varint(t, have, &k);

			line += (v & 1) ? -(int)(v >> 1) : (int)(v >> 1);
		} else if (code >= 10 && code <= 12) {
			line += code - 10;
		}
		if (unit < end)
			return code == 15 ? 0 : line;
		for (k = i + 1; k < have && !(t[k] & 128); k++)
			;
		i = k;
	}
	return 0;
}
