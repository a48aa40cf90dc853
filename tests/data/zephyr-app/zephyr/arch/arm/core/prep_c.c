/* z_prep_c: what runs after reset, before the kernel (arch/arm/core/cortex_m/prep_c.c). */
#include <stdint.h>
void z_bss_zero(void);
void z_data_copy(void);
void z_cstart(void);

static void relocate_vector_table(void)
{
	extern char _vector_start[];
	*(volatile uint32_t *)0xe000ed08 = (uint32_t)_vector_start;
}

void z_arm_interrupt_init(void)
{
	for (int i = 0; i < 32; i++)
		*(volatile uint32_t *)(0xe000e400 + 4 * (i / 4)) = 0;
}

void z_prep_c(void)
{
	relocate_vector_table();
	z_bss_zero();
	z_data_copy();
	z_arm_interrupt_init();
	z_cstart();
}
