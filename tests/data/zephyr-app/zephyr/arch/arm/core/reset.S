/* z_arm_reset (alias __start, the ELF entry point): assembly of size 0, as Zephyr's
 * SECTION_SUBSEC_FUNC declares it. Sets the stack and calls z_prep_c. */
	.syntax unified
	.thumb
	.section .text._reset_section, "ax"
	.global z_arm_reset
	.global __start
	.type z_arm_reset, %function
	.type __start, %function
	.thumb_func
z_arm_reset:
	.thumb_func
__start:
	ldr r0, =__kernel_ram_end
	msr msp, r0
	bl z_prep_c
1:	b 1b
	.pool
