/* arch_m0.S: Cortex-M0+ context switch (PendSV), the interrupt wrapper and the HardFault
 * entry. */
	.syntax unified
	.cpu cortex-m0plus
	.thumb

/* PendSV, the lowest-priority exception, switches threads. Threads run on the PSP; the
 * hardware has stacked r0-r3, r12, lr, pc and xPSR there. This code saves r4-r11 below that
 * frame, stores the PSP in _kernel.current->sp, asks z_sched_switch for the next thread and
 * unwinds its saved context. Thumb-1 can store only r0-r7 with STM, hence the moves. */
	.section .text.isr_pendsv, "ax", %progbits
	.global isr_pendsv
	.type isr_pendsv, %function
	.thumb_func
isr_pendsv:
	cpsid i
	mrs r0, psp
	subs r0, #32
	ldr r1, =_kernel
	ldr r2, [r1]
	str r0, [r2]
	stmia r0!, {r4-r7}
	mov r4, r8
	mov r5, r9
	mov r6, r10
	mov r7, r11
	stmia r0!, {r4-r7}
	bl z_sched_switch
	ldr r0, [r0]
	adds r0, #16
	ldmia r0!, {r4-r7}
	mov r8, r4
	mov r9, r5
	mov r10, r6
	mov r11, r7
	msr psp, r0
	subs r0, #32
	ldmia r0!, {r4-r7}
	cpsie i
	ldr r0, =0xFFFFFFFD /* thread mode, process stack */
	bx r0
	.pool
	.size isr_pendsv, . - isr_pendsv

/* HardFault: hand the stacked frame (on the MSP or the PSP, as EXC_RETURN bit 2 says) to
 * z_fault, which reports and halts. */
	.section .text.isr_hardfault, "ax", %progbits
	.global isr_hardfault
	.type isr_hardfault, %function
	.thumb_func
isr_hardfault:
	mov r1, lr
	movs r2, #4
	tst r1, r2
	bne 1f
	mrs r0, msp
	b 2f
1:	mrs r0, psp
2:	ldr r2, =z_fault
	bx r2
	.pool
	.size isr_hardfault, . - isr_hardfault

/* Every external interrupt: IPSR - 16 indexes the software ISR table of {arg, handler}
 * pairs (kernel/arch.c); z_arch_isr_enter and z_arch_isr_exit keep the interrupt's
 * statistics and trace it; after the handler, z_arch_int_exit pends a context switch when
 * the handler made a more urgent thread ready. r4 (pushed, which keeps the stack 8-byte
 * aligned) holds the IRQ number. */
	.section .text._isr_wrapper, "ax", %progbits
	.global _isr_wrapper
	.type _isr_wrapper, %function
	.thumb_func
_isr_wrapper:
	push {r4, lr}
	mrs r4, ipsr
	subs r4, #16
	movs r0, r4
	bl z_arch_isr_enter
	lsls r0, r4, #3
	ldr r1, =_sw_isr_table
	adds r1, r1, r0
	ldmia r1!, {r0, r3}
	blx r3
	movs r0, r4
	bl z_arch_isr_exit
	bl z_arch_int_exit
	pop {r4, pc}
	.pool
	.size _isr_wrapper, . - _isr_wrapper
