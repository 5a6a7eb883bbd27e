/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dlopen(file, mode) for x86-64 (shim.c says why it is a stub): save the
 * arguments, ask shim_dlopen_prep(file) whether the caller's return
 * address matters for this name; if not (1), or if there is no real dlopen
 * yet, call shim_dlopen_full(file, mode), which registers the new objects;
 * else jump to the real dlopen with the caller's return address still on
 * the stack, so that glibc's $ORIGIN, RUNPATH and namespace lookups see
 * the caller, not the shim.
 */
	.text
	.globl	dlopen
	.type	dlopen, @function
dlopen:
	.cfi_startproc
	pushq	%rdi
	.cfi_def_cfa_offset 16
	pushq	%rsi
	.cfi_def_cfa_offset 24
	subq	$8, %rsp
	.cfi_def_cfa_offset 32
	call	shim_dlopen_prep
	movq	%rax, (%rsp)
	call	shim_dlopen_real
	movq	%rax, %r11
	movq	(%rsp), %rax
	addq	$8, %rsp
	.cfi_def_cfa_offset 24
	popq	%rsi
	.cfi_def_cfa_offset 16
	popq	%rdi
	.cfi_def_cfa_offset 8
	testq	%rax, %rax
	jnz	shim_dlopen_full
	testq	%r11, %r11
	jz	shim_dlopen_full
	jmp	*%r11
	.cfi_endproc
	.size	dlopen, .-dlopen

	.section .note.GNU-stack, "", @progbits
