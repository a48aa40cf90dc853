/* A pico-sdk-shaped reset path: _reset_handler (size 0) walks a copy table with ADR and
 * calls data_cpy (size 0) with BL, clears .bss inline, then calls runtime_init and main
 * through literal pointers (LDR + BLX). */
	.syntax unified
	.thumb
	.section .vectors, "a"
	.word __stack_top
	.word _reset_handler
	.word fault
	.word fault

	.section .reset, "ax"
	.global _reset_handler
	.global entry_point
	.type _reset_handler, %function
	.thumb_func
_reset_handler:
	adr r4, data_cpy_table
1:	ldmia r4!, {r1-r3}
	cmp r1, #0
	beq 2f
	bl data_cpy
	b 1b
2:	ldr r1, =__bss_start
	ldr r2, =__bss_end
	movs r0, #0
	b bss_fill_test
bss_fill_loop:
	stm r1!, {r0}
bss_fill_test:
	cmp r1, r2
	bne bss_fill_loop
platform_entry:
	ldr r1, =runtime_init
	blx r1
	ldr r1, =main
	blx r1
3:	b 3b

	.type data_cpy, %function
	.thumb_func
data_cpy_loop:
	ldm r1!, {r0}
	stm r2!, {r0}
data_cpy:
	cmp r2, r3
	blo data_cpy_loop
	bx lr

	.type entry_point, %function
	.thumb_func
entry_point:
	ldr r0, =0x10000100
	ldr r1, [r0, #4]
	bx r1

	.align 2
data_cpy_table:
	.word __ramfunc_load
	.word __ramfunc_start
	.word __ramfunc_end
	.word __data_load
	.word __data_start
	.word __data_end
	.word 0
	.pool
