// SPDX-License-Identifier: GPL-2.0
int b_func(int x)
{
	return x * 7;
}
