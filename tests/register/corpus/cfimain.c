// SPDX-License-Identifier: GPL-2.0
void f_r10(void);
void f_plain(void);

int main(void)
{
	f_r10();
	f_plain();
	return 0;
}
