/* The exception vector table (rom_start, through vector_table.ld). */
	.syntax unified
	.thumb
	.section .exc_vector_table._vector_table_section, "a"
	.global _vector_table
_vector_table:
	.word __kernel_ram_end
	.word z_arm_reset
	.word z_arm_nmi
	.word z_arm_hard_fault
	.rept 7
	.word 0
	.endr
	.word z_arm_svc
	.word 0
	.word 0
	.word z_arm_pendsv
	.word sys_clock_isr
	.section .gnu.linkonce.irq_vector_table, "a"
	.global _irq_vector_table
_irq_vector_table:
	.word udc_rpi_isr
	.word z_irq_spurious
