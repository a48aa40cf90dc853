/* Kernel start-up (kernel/init.c): the init levels, z_cstart and z_bss_zero. */
#include <stddef.h>
#include <stdint.h>
void *memset(void *d, int c, size_t n);
int main(void);
extern char __bss_start[], __bss_end[];
volatile uint32_t z_swap_count;

__attribute__((noinline)) void z_sys_init_run_level(int level)
{
	extern int (*const __init_start[])(void), (*const __init_end[])(void);
	for (int (*const *f)(void) = __init_start; f < __init_end; f++)
		if (level >= 0)
			(*f)();
}

__attribute__((noinline)) static void bg_thread_main(void)
{
	z_sys_init_run_level(2);
	main();
}

void z_cstart(void)
{
	z_sys_init_run_level(0);
	z_sys_init_run_level(1);
	bg_thread_main();
	for (;;)
		;
}

void z_bss_zero(void)
{
	memset(__bss_start, 0, (size_t)(__bss_end - __bss_start));
#ifdef CONFIG_CODE_DATA_RELOCATION
	extern void bss_zeroing_relocation(void);
	bss_zeroing_relocation();
#endif
}
