# SPDX-License-Identifier: GPL-2.0
# CFI that SFrame cannot express, or that gas 2.40 gets wrong.
	.text
	.globl	f_r10
	.type	f_r10, @function
f_r10:					# CFA in r10: gas 2.40 encodes sp+0 (wrong)
	.cfi_startproc
	leaq	8(%rsp), %r10
	.cfi_def_cfa %r10, 0
	andq	$-16, %rsp
	pushq	-8(%r10)
	movq	%r10, %rsp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	f_r10, .-f_r10

	.globl	f_undef_ra
	.type	f_undef_ra, @function
f_undef_ra:				# outermost: gas 2.40 ignores it
	.cfi_startproc
	.cfi_undefined %rip
	xorl	%ebp, %ebp
	ret
	.cfi_endproc
	.size	f_undef_ra, .-f_undef_ra

	.globl	f_plain
	.type	f_plain, @function
f_plain:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	popq	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size	f_plain, .-f_plain
	.section	.note.GNU-stack,"",@progbits
