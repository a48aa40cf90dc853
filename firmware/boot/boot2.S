/* boot2.S: a 256-byte stand-in for the RP2040's second-stage boot loader. The virtual Pico
 * starts at the vector table (0x10000100) and never runs it. Real hardware needs a flash
 * boot2 (pico-sdk's boot2_w25q080 or similar) that sets up XIP; none is provided: without a
 * valid CRC in the last word the bootrom refuses this one and stays in USB boot mode. If run
 * anyway, it only enters the image the way a boot2 does (VTOR, stack, reset vector). */
	.syntax unified
	.cpu cortex-m0plus
	.thumb

	.section .boot2, "ax", %progbits
	.global boot2_entry
	.type boot2_entry, %function
	.thumb_func
boot2_entry:
	ldr r0, =0x10000100
	ldr r1, =0xE000ED08
	str r0, [r1]
	ldmia r0!, {r1, r2}
	msr msp, r1
	bx r2
	.pool
	.balign 4
	.fill 252 - (. - boot2_entry), 1, 0
	.word 0 /* where a real boot2 carries its CRC-32 */
	.size boot2_entry, . - boot2_entry
