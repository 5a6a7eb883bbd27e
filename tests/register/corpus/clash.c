// SPDX-License-Identifier: GPL-2.0
/*
 * A frame of 64 KiB: built with -fstack-clash-protection (Debian's default
 * from trixie on), gcc probes it a page at a time in a loop whose CFA is
 * in r11, a row SFrame cannot express; the rest of the function can.
 */
#include <string.h>

__attribute__((noinline)) int big(int n)
{
	volatile char buf[65536];

	memset((char *)buf, n, sizeof(buf));
	return buf[n & 0xffff] + 1;
}

int main(int argc, char **argv)
{
	(void)argv;
	return big(argc) == 0;
}
