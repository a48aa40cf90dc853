/* start.S: start-up code for the xipbench virtual Pico test programs (ARMv6-M). The 256-byte
 * boot2 is zeros (the virtual board boots from the vector table at 0x10000100), .data and
 * .ram_text are copied from flash, .bss is zeroed, main runs, and BKPT ends the program. */
	.syntax unified
	.cpu cortex-m0plus
	.thumb

	.section .boot2, "a"
	.space 256

	.section .vectors, "a"
	.align 2
	.global __vectors
__vectors:
	.word __stack_top
	.word reset_handler
	.word nmi_handler
	.word hardfault_handler
	.rept 7
	.word default_handler
	.endr
	.word svc_handler
	.word default_handler
	.word default_handler
	.word pendsv_handler
	.word systick_handler
	.word irq0_handler
	.word irq1_handler
	.word irq2_handler
	.word irq3_handler
	.word irq4_handler
	.word irq5_handler
	.rept 26
	.word default_handler
	.endr

	.text
	.thumb_func
	.global reset_handler
reset_handler:
	ldr r0, =__data_load
	ldr r1, =__data_start
	ldr r2, =__data_end
1:	cmp r1, r2
	bhs 2f
	ldm r0!, {r3}
	stm r1!, {r3}
	b 1b
2:	ldr r1, =__bss_start
	ldr r2, =__bss_end
	movs r3, #0
3:	cmp r1, r2
	bhs 4f
	stm r1!, {r3}
	b 3b
4:	bl main
	ldr r1, =0x20041000
	str r0, [r1]
	.global program_end
program_end:
	bkpt #0
	b program_end

	.thumb_func
	.weak default_handler
default_handler:
	bkpt #1
	b default_handler

	.weak nmi_handler, hardfault_handler, svc_handler, pendsv_handler, systick_handler
	.weak irq0_handler, irq1_handler, irq2_handler, irq3_handler, irq4_handler, irq5_handler
	.set nmi_handler, default_handler
	.set hardfault_handler, default_handler
	.set svc_handler, default_handler
	.set pendsv_handler, default_handler
	.set systick_handler, default_handler
	.set irq0_handler, default_handler
	.set irq1_handler, default_handler
	.set irq2_handler, default_handler
	.set irq3_handler, default_handler
	.set irq4_handler, default_handler
	.set irq5_handler, default_handler
	.ltorg
