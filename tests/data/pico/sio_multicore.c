/* sio_multicore.c: core 1 on the virtual Pico. Core 0 launches it through the bootrom's FIFO
 * handshake as pico-sdk's multicore_launch_core1_raw does (RP2040 datasheet 2.8.2: drain and
 * SEV before each 0, push, wait for the echo, start over on a mismatch); then words go both
 * ways through the inter-core FIFOs, each side popping in its SIO_IRQ_PROCn handler; both
 * cores contend for a spinlock; core 1 runs its own SysTick while core 0's stays off; core 1
 * waits for core 0 in WFE. Results are printed by core 0; core 1 ends spinning in
 * core1_spin, whose address it leaves in c1_spin_addr for the debugger. */
#include "rt.h"

#define SIO_CPUID REG(SIO_BASE + 0x00)
#define SIO_SPINLOCK(n) REG(SIO_BASE + 0x100 + 4u * (n))
#define SIO_INTERP0_ACCUM0 REG(SIO_BASE + 0x80)
#define SCB_VTOR REG(0xE000ED08u)
#define IRQ_SIO_PROC0 15
#define IRQ_SIO_PROC1 16

#define WORDS 2000u
#define ROUNDS 3000u
#define LOCK 7u


/* ---- State shared by the cores ---- */

static volatile uint32_t c1_cpuid = 0xFFFFFFFFu, c1_ready, c1_phase, c1_done, c1_ticks;
static volatile uint32_t c1_spin_addr, c1_lock_waits, c1_interp;
static volatile uint32_t rx_count, rx_bad, c0_lock_waits;
static volatile uint32_t counter;
static volatile uint32_t go;

static uint32_t core1_stack[256];
static void (*core0_table[48])(void) __attribute__((aligned(256)));
static void (*core1_table[48])(void) __attribute__((aligned(256)));

/* ---- Core 1 ---- */

static void core1_fifo_isr(void)
{
	while (SIO_FIFO_ST & FIFO_VLD) {
		uint32_t w = SIO_FIFO_RD;
		while (!(SIO_FIFO_ST & FIFO_RDY))
			;
		SIO_FIFO_WR = w * 3u + 1u;
		rt_sev();
	}
}

static void core1_systick(void)
{
	c1_ticks++;
}

static void contend(volatile uint32_t *waits)
{
	for (unsigned i = 0; i < ROUNDS; i++) {
		while (!SIO_SPINLOCK(LOCK))
			(*waits)++;
		uint32_t v = counter; /* a read-modify-write the lock must protect */
		__asm volatile("nop\nnop\nnop\nnop\nnop\nnop\nnop\nnop" ::: "memory");
		counter = v + 1;
		SIO_SPINLOCK(LOCK) = 0;
		__asm volatile("nop\nnop\nnop" ::: "memory");
	}
}

__attribute__((noinline, section(".time_critical.core1_spin"))) static void core1_spin(void)
{
	for (;;)
		__asm volatile("nop\nnop\nnop\nnop\nb 1f\n1:" ::: "memory");
}

static void core1_main(void)
{
	c1_cpuid = SIO_CPUID;
	SIO_INTERP0_ACCUM0 = 0xC0DE0001u; /* core 1's own interpolator */
	NVIC_ISER = 1u << IRQ_SIO_PROC1;
	SYST_RVR = 1250 - 1; /* 10 us on the processor clock */
	SYST_CVR = 0;
	SYST_CSR = 0x7;
	c1_ready = 1;
	rt_sev();
	while (c1_phase < 2) /* FIFO traffic runs in the interrupt handler meanwhile */
		rt_wfe();
	contend(&c1_lock_waits);
	c1_interp = SIO_INTERP0_ACCUM0;
	c1_done = 1;
	rt_sev();
	while (c1_phase < 3)
		rt_wfe();
	SYST_CSR = 0;
	c1_spin_addr = (uint32_t)(uintptr_t)core1_spin & ~1u;
	core1_spin();
}

/* ---- Core 0 ---- */

static void core0_fifo_isr(void)
{
	while (SIO_FIFO_ST & FIFO_VLD) {
		uint32_t w = SIO_FIFO_RD;
		if (w != rx_count * 7u * 3u + 3u * 3u + 1u) /* f(sent word rx_count) */
			rx_bad++;
		rx_count++;
	}
}

int main(void)
{
	rt_puts("core0 cpuid ");
	rt_put_dec(SIO_CPUID);
	rt_putc('\n');

	/* Vector tables in SRAM: core 0's is rt's with the FIFO handler added. */
	const uint32_t *flash_table = (const uint32_t *)0x10000100u;
	for (unsigned i = 0; i < 48; i++) {
		core0_table[i] = (void (*)(void))(uintptr_t)flash_table[i];
		core1_table[i] = (void (*)(void))(uintptr_t)flash_table[i];
	}
	core0_table[16 + IRQ_SIO_PROC0] = core0_fifo_isr;
	core1_table[15] = core1_systick;
	core1_table[16 + IRQ_SIO_PROC1] = core1_fifo_isr;
	SCB_VTOR = (uint32_t)(uintptr_t)core0_table;

	uint32_t *sp = core1_stack + sizeof core1_stack / sizeof core1_stack[0];
	unsigned sent = rt_launch_core1(core1_main, sp, (uint32_t)(uintptr_t)core1_table);
	while (!c1_ready)
		rt_wfe();
	rt_puts("launch words ");
	rt_put_dec(sent);
	rt_puts(" core1 cpuid ");
	rt_put_dec(c1_cpuid);
	rt_putc('\n');

	/* FIFO traffic both ways, popped in each core's SIO interrupt handler. */
	rt_fifo_drain();
	SIO_FIFO_ST = 0xC; /* clear WOF/ROE */
	NVIC_ICPR = 1u << IRQ_SIO_PROC0;
	NVIC_ISER = 1u << IRQ_SIO_PROC0;
	for (uint32_t i = 0; i < WORDS; i++)
		rt_fifo_push(i * 7u + 3u);
	uint32_t t0 = rt_time_us();
	while (rx_count < WORDS && rt_time_us() - t0 < 100000)
		;
	NVIC_ISER = 0;
	rt_puts("fifo received ");
	rt_put_dec(rx_count);
	rt_puts(" bad ");
	rt_put_dec(rx_bad);
	rt_putc('\n');

	/* Both cores contend for one spinlock. */
	counter = 0;
	c1_phase = 2;
	rt_sev();
	contend(&c0_lock_waits);
	while (!c1_done)
		rt_wfe();
	rt_puts("spinlock counter ");
	rt_put_dec(counter);
	rt_puts(" waits ");
	rt_put_dec(c0_lock_waits > 0);
	rt_putc(' ');
	rt_put_dec(c1_lock_waits > 0);
	rt_puts(" free ");
	rt_put_hex(REG(SIO_BASE + 0x5C));
	rt_putc('\n');

	/* Private PPB: core 1's SysTick ran, core 0's never did; private interpolators. */
	rt_puts("systick core1 ");
	rt_put_dec(c1_ticks > 100);
	rt_puts(" core0 csr ");
	rt_put_dec(SYST_CSR);
	rt_puts(" interp ");
	rt_put_hex(c1_interp);
	rt_putc(' ');
	rt_put_hex(SIO_INTERP0_ACCUM0);
	rt_putc('\n');

	c1_phase = 3;
	rt_sev();
	while (!c1_spin_addr)
		;
	rt_puts("core1 spinning at ");
	rt_put_hex(c1_spin_addr);
	rt_putc('\n');
	return 0;
}
