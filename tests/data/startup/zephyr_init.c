/* The C part of a Zephyr-shaped start-up: z_prep_c clears .bss and copies .data and
 * .ramfunc (z_data_copy, with memcpy) before z_cstart runs the rest. */
#include <stddef.h>
#include <stdint.h>

extern uint32_t __data_start[], __data_end[], __data_load[];
extern uint32_t __ramfunc_start[], __ramfunc_end[], __ramfunc_load[];
extern uint32_t __bss_start[], __bss_end[];
void *memcpy(void *d, const void *s, size_t n);
void *memset(void *d, int c, size_t n);
int main(void);

void fault(void) { for (;;) ; }
void soc_reset_hook(void) { *(volatile uint32_t *)0x40008000 = 1; }
void z_bss_zero(void) { memset(__bss_start, 0, (size_t)((char *)__bss_end - (char *)__bss_start)); }
void z_data_copy(void)
{
	memcpy(__ramfunc_start, __ramfunc_load, (size_t)((char *)__ramfunc_end - (char *)__ramfunc_start));
	memcpy(__data_start, __data_load, (size_t)((char *)__data_end - (char *)__data_start));
}
__attribute__((noinline)) void z_sys_init_run_level(int level) { *(volatile int *)0x40008004 = level; }
void z_cstart(void)
{
	z_sys_init_run_level(1);
	main();
}
void z_prep_c(void)
{
	z_bss_zero();
	z_data_copy();
	z_cstart();
}
