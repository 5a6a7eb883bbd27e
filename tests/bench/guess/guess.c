// SPDX-License-Identifier: GPL-2.0
/*
 * The stack scan (SFRAME_WALK_GUESS) of module/sframe_scan.c on a
 * hidden-truth corpus: corpus.c's call chains, each stack walked in
 * place as if its program had no unwind information (no section, no
 * frame pointers), and compared with backtrace()'s answer from .eh_frame.
 *   guess_word_ns       thread CPU time per stack word scanned (the text
 *                       test is a binary search of this process's
 *                       executable segments, code read with memcpy)
 *   guess_true_prefix   share of true frames found in order before the
 *                       scan's first wrong frame
 *   guess_frames_true   share of the scan's frames that are true return
 *                       addresses of the stack (the rest: false positives)
 *   guess_frames_found  share of true frames found, in order (the longest
 *                       common subsequence of the truth and the walk)
 * Prints `bench <name> <value> <unit>` lines.
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "ustack_sframe.h"
#include "uapi/ustack.h"

#define MAXF		64
#define NSEEDS		256
#define DEPTH		12

void corpus_run(int depth, unsigned int seed);
void corpus_prime(void);

static struct { u64 lo, hi; } text[64];
static int ntext;
static u64 stack_hi;
static int iters = 200;
static double t_ns;
static u64 words, truth_n, prefix_n, found_n, guessed_n, guessed_true;
static void *bt[MAXF];
static u64 ips[MAXF];

static int add_text(struct dl_phdr_info *info, size_t size, void *data)
{
	/* the vDSO is no file: the kernel's scan does not take it either */
	if (strstr(info->dlpi_name, "vdso"))
		return 0;
	for (int i = 0; i < info->dlpi_phnum && ntext < 64; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
			text[ntext].lo = info->dlpi_addr + ph->p_vaddr;
			text[ntext].hi = text[ntext].lo + ph->p_memsz;
			ntext++;
		}
	}
	return 0;
}

static bool is_text(struct sframe_walk *w, u64 addr)
{
	for (int i = 0; i < ntext; i++)
		if (addr >= text[i].lo && addr < text[i].hi)
			return true;
	return false;
}

static int read_code(struct sframe_walk *w, void *dst, u64 addr, u32 len)
{
	if (!is_text(w, addr) || !is_text(w, addr + len - 1))
		return -EFAULT;
	memcpy(dst, (const void *)(uintptr_t)addr, len);
	return 0;
}

static const struct sframe_walk_ops ops = {
	.read_code = read_code,
	.is_text = is_text,
};

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

/* True frames the walk found in order: the longest common subsequence. */
static u32 lcs(int n, int m)
{
	static u16 t[MAXF + 1][MAXF + 1];

	if (n < 2 || m < 2 || n > MAXF || m > MAXF)
		return 0;
	for (int i = 0; i <= n; i++)
		t[i][m] = 0;
	for (int j = 0; j <= m; j++)
		t[n][j] = 0;
	for (int i = n - 1; i >= 1; i--)
		for (int j = m - 1; j >= 1; j--)
			t[i][j] = ips[j] == (u64)(uintptr_t)bt[i] ?
				  t[i + 1][j + 1] + 1 :
				  (t[i + 1][j] > t[i][j + 1] ? t[i + 1][j] :
				   t[i][j + 1]);
	return t[1][1];
}

/* The innermost frame of every chain: walk from here, compare. */
__attribute__((noinline)) void guess_measure(unsigned int seed)
{
	static struct sframe_walk w;
	u64 ip, sp;
	int n, k, prefix = 1;
	double t0;

	__asm__ volatile("lea 0(%%rip), %0\n\tmov %%rsp, %1" : "=r"(ip), "=r"(sp));
	n = backtrace(bt, MAXF);
	memset(&w, 0, sizeof(w));
	w.st.ip = ip;
	w.st.sp = sp;
	w.st.stack_lo = sp;
	w.st.stack_hi = stack_hi;
	w.ops = &ops;
	w.ips = ips;
	w.max_frames = MAXF;
	w.flags = SFRAME_WALK_GUESS | SFRAME_WALK_NO_FP;
	t0 = now_ns();
	for (k = 0; k < iters; k++)
		ustack_sframe_walk(&w);
	t_ns += now_ns() - t0;
	words += (u64)w.scanned * iters;
	/* bt[0] is in this function, as ips[0] is */
	for (k = 1; k < n; k++) {
		truth_n++;
		if (prefix && k < (int)w.nr && ips[k] == (u64)(uintptr_t)bt[k])
			prefix_n++;
		else
			prefix = 0;
	}
	found_n += lcs(n, w.nr);
	for (k = 1; k < (int)w.nr; k++) {
		guessed_n++;
		for (int j = 1; j < n; j++)
			if (ips[k] == (u64)(uintptr_t)bt[j]) {
				guessed_true++;
				break;
			}
	}
	(void)seed;
}

int main(int argc, char **argv)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	if (argc > 1)
		iters = atoi(argv[1]);
	while (f && fgets(line, sizeof(line), f))
		if (strstr(line, "[stack]"))
			stack_hi = strtoull(strchr(line, '-') + 1, NULL, 16);
	if (f)
		fclose(f);
	dl_iterate_phdr(add_text, NULL);
	if (!stack_hi || !ntext) {
		fprintf(stderr, "guess: no stack or text found\n");
		return 1;
	}
	corpus_prime();
	for (unsigned int s = 0; s < NSEEDS; s++)
		corpus_run(DEPTH, s * 2654435761u);
	if (!words || !truth_n || !guessed_n) {
		fprintf(stderr, "guess: nothing walked\n");
		return 1;
	}
	printf("bench guess_word_ns %.2f ns/word\n", t_ns / words);
	printf("bench guess_words_per_stack %.1f words\n",
	       (double)words / iters / NSEEDS);
	printf("bench guess_true_prefix %.1f %%\n", 100.0 * prefix_n / truth_n);
	printf("bench guess_frames_found %.1f %%\n", 100.0 * found_n / truth_n);
	printf("bench guess_frames_true %.1f %%\n",
	       100.0 * guessed_true / guessed_n);
	return 0;
}
