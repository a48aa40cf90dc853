/* A Zephyr-shaped reset path: z_arm_reset is an assembly function symbol of size 0 (as
 * Zephyr's GTEXT declares it) that calls a hook, then z_prep_c with BL. */
	.syntax unified
	.thumb
	.section .vectors, "a"
	.word __stack_top
	.word z_arm_reset
	.word fault
	.word fault

	.section .reset, "ax"
	.global z_arm_reset
	.global entry_point
	.type z_arm_reset, %function
	.thumb_func
z_arm_reset:
entry_point:
	ldr r0, =__stack_top
	msr msp, r0
	bl soc_reset_hook
	bl z_prep_c
1:	b 1b
	.pool

/* picolibc leaves "vfscanf = __d_vfscanf" as an absolute FUNC symbol once scanf is
 * collected: value 1, size 2528, section ABS. It is not code. */
	.global vfscanf
	.type vfscanf, %function
	.set vfscanf, 1
	.size vfscanf, 2528
