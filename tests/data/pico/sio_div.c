/* sio_div.c: the SIO hardware divider (RP2040 datasheet 2.3.1.5) used the way pico-sdk's
 * pico_divider uses it: operands through the S or U aliases, a fixed 8-cycle wait, REMAINDER
 * then QUOTIENT; the DIRTY check and the save/restore sequence when a divide interrupts
 * another one (here SysTick handlers dividing while main divides). Results are checked
 * against libgcc's software division; the timing of READY is probed cycle by cycle from
 * SRAM. Prints one line per check. */
#include "rt.h"

#define SIO_DIV_UDIVIDEND REG(SIO_BASE + 0x60)
#define SIO_DIV_UDIVISOR REG(SIO_BASE + 0x64)
#define SIO_DIV_SDIVIDEND REG(SIO_BASE + 0x68)
#define SIO_DIV_SDIVISOR REG(SIO_BASE + 0x6C)
#define SIO_DIV_QUOTIENT REG(SIO_BASE + 0x70)
#define SIO_DIV_REMAINDER REG(SIO_BASE + 0x74)
#define SIO_DIV_CSR REG(SIO_BASE + 0x78)

typedef struct {
	uint32_t q, r;
} qr;

/* The pico-sdk protocol, written here from the datasheet's description: if DIRTY (someone
 * we interrupted is using the divider), wait for READY, save UDIVIDEND, UDIVISOR, REMAINDER
 * and QUOTIENT (QUOTIENT last: reading it clears DIRTY), divide, then restore them in the
 * order dividend, divisor, remainder, quotient (the result writes end the calculation the
 * operand writes started). Returns quotient in r0 and remainder in r1. */
#define DIV_FUNC(name, dividend_off, divisor_off)                                              \
	__attribute__((naked, noinline)) uint64_t name(uint32_t n, uint32_t d)                 \
	{                                                                                      \
		__asm volatile(".syntax unified\n"                                             \
			       "ldr r2, =0xD0000000\n"                                         \
			       "ldr r3, [r2, #0x78]\n"                                         \
			       "lsrs r3, r3, #2\n" /* DIRTY into C */                          \
			       "bcs 2f\n"                                                      \
			       "1: str r0, [r2, #" dividend_off "]\n"                          \
			       "str r1, [r2, #" divisor_off "]\n"                              \
			       "b 8f\n8: b 8f\n8: b 8f\n8: b 8f\n8:\n" /* 8 cycles */          \
			       "ldr r1, [r2, #0x74]\n"                                         \
			       "ldr r0, [r2, #0x70]\n"                                         \
			       "bx lr\n"                                                       \
			       "2: push {r4, r5, r6, r7, lr}\n"                                \
			       "3: ldr r3, [r2, #0x78]\n"                                      \
			       "lsrs r3, r3, #1\n" /* READY into C */                          \
			       "bcc 3b\n"                                                      \
			       "ldr r4, [r2, #0x60]\n"                                         \
			       "ldr r5, [r2, #0x64]\n"                                         \
			       "ldr r6, [r2, #0x74]\n"                                         \
			       "ldr r7, [r2, #0x70]\n"                                         \
			       "bl 1b\n"                                                       \
			       "ldr r2, =0xD0000000\n"                                         \
			       "str r4, [r2, #0x60]\n"                                         \
			       "str r5, [r2, #0x64]\n"                                         \
			       "str r6, [r2, #0x74]\n"                                         \
			       "str r7, [r2, #0x70]\n"                                         \
			       "pop {r4, r5, r6, r7, pc}\n"                                    \
			       ".ltorg\n");                                                    \
	}

DIV_FUNC(hw_sdiv, "0x68", "0x6C")
DIV_FUNC(hw_udiv, "0x60", "0x64")

/* CSR (or QUOTIENT) read k cycles after the instruction that wrote the divisor ends: the
 * read starts k + 1 cycles after the write's instruction started. From SRAM, so that no
 * flash miss stretches the count. */
#define PROBE(name, k, reg)                                                                    \
	__attribute__((naked, noinline, section(".time_critical." #name))) uint32_t name(     \
		uint32_t n, uint32_t d)                                                        \
	{                                                                                      \
		__asm volatile(".syntax unified\n"                                             \
			       "ldr r2, =0xD0000000\n"                                         \
			       "str r0, [r2, #0x60]\n"                                         \
			       "str r1, [r2, #0x64]\n"                                         \
			       ".rept " #k "\nnop\n.endr\n"                                    \
			       "ldr r0, [r2, #" reg "]\n"                                      \
			       "bx lr\n"                                                       \
			       ".ltorg\n");                                                    \
	}

PROBE(csr0, 0, "0x78")
PROBE(csr1, 1, "0x78")
PROBE(csr2, 2, "0x78")
PROBE(csr3, 3, "0x78")
PROBE(csr4, 4, "0x78")
PROBE(csr5, 5, "0x78")
PROBE(csr6, 6, "0x78")
PROBE(csr7, 7, "0x78")
PROBE(csr8, 8, "0x78")
PROBE(csr9, 9, "0x78")
PROBE(quo7, 7, "0x70")
PROBE(quo8, 8, "0x70")

/* Operand writes then a QUOTIENT write, on consecutive cycles from SRAM. */
__attribute__((naked, noinline, section(".time_critical.cancel_probe"))) void cancel_probe(
	uint32_t n, uint32_t d, uint32_t q)
{
	__asm volatile(".syntax unified\n"
		       "ldr r3, =0xD0000000\n"
		       "str r0, [r3, #0x60]\n"
		       "str r1, [r3, #0x64]\n"
		       "str r2, [r3, #0x70]\n"
		       "bx lr\n"
		       ".ltorg\n");
}

static uint32_t (*const csr_probe[10])(uint32_t, uint32_t) = {
	csr0, csr1, csr2, csr3, csr4, csr5, csr6, csr7, csr8, csr9,
};

static uint32_t lcg_state = 12345;

static uint32_t lcg(void)
{
	lcg_state = lcg_state * 1664525u + 1013904223u;
	return lcg_state;
}

/* Operands with every interesting shape: small, large, negative, powers of two, zero. */
static uint32_t operand(void)
{
	uint32_t v = lcg();
	switch (lcg() % 8) {
	case 0: return v & 0xFF;
	case 1: return (uint32_t)-(int32_t)(v & 0xFFF);
	case 2: return 1u << (v % 32);
	case 3: return v | 0x80000000u;
	case 4: return v >> (v % 31);
	case 5: return (v % 5) - 2; /* -2 .. 2 */
	default: return v;
	}
}

/* Division by zero on the board: unsigned q = 0xFFFFFFFF; signed q = -1 (dividend >= 0)
 * or +1; remainder = dividend (docs/sim-peripherals.md, SIO). */
static qr soft_udiv(uint32_t n, uint32_t d)
{
	if (d == 0)
		return (qr){0xFFFFFFFFu, n};
	return (qr){n / d, n % d};
}

static qr soft_sdiv(uint32_t n, uint32_t d)
{
	int32_t sn = (int32_t)n, sd = (int32_t)d;
	if (d == 0)
		return (qr){sn < 0 ? 1u : 0xFFFFFFFFu, n};
	if (n == 0x80000000u && d == 0xFFFFFFFFu)
		return (qr){0x80000000u, 0};
	return (qr){(uint32_t)(sn / sd), (uint32_t)(sn % sd)};
}

static qr hw(int is_signed, uint32_t n, uint32_t d)
{
	uint64_t v = is_signed ? hw_sdiv(n, d) : hw_udiv(n, d);
	return (qr){(uint32_t)v, (uint32_t)(v >> 32)};
}

/* ---- SysTick handlers that divide ---- */

static volatile uint32_t irq_count, irq_saves, irq_bad;
static uint32_t irq_lcg = 777;
static const uint32_t periods[] = {1009, 1013, 1019, 1021, 1031, 1033, 1039, 1049, 1051, 1061};

void isr_systick(void)
{
	irq_count++;
	if (SIO_DIV_CSR & 2u)
		irq_saves++; /* we interrupted a divide: hw_*div takes the save path */
	irq_lcg = irq_lcg * 69069u + 1u;
	uint32_t n = irq_lcg, d = (irq_lcg >> 7) | 1u;
	int s = irq_lcg & 1;
	qr h = hw(s, n, d), w = s ? soft_sdiv(n, d) : soft_udiv(n, d);
	if (h.q != w.q || h.r != w.r)
		irq_bad++;
	SYST_RVR = periods[irq_count % (sizeof periods / sizeof periods[0])] - 1;
}

static void report(const char *what, uint32_t v)
{
	rt_puts(what);
	rt_put_dec(v);
	rt_putc('\n');
}

int main(void)
{
	/* 1. Many operands, both signednesses, against software division. */
	uint32_t bad = 0, zero = 0;
	for (unsigned i = 0; i < 4000; i++) {
		uint32_t n = operand(), d = operand();
		int s = i & 1;
		if (d == 0)
			zero++;
		qr h = hw(s, n, d), w = s ? soft_sdiv(n, d) : soft_udiv(n, d);
		if (h.q != w.q || h.r != w.r) {
			if (bad < 4) {
				rt_puts("mismatch ");
				rt_put_hex(n);
				rt_putc(s ? '/' : ':');
				rt_put_hex(d);
				rt_putc(' ');
				rt_put_hex(h.q);
				rt_putc(' ');
				rt_put_hex(h.r);
				rt_putc('\n');
			}
			bad++;
		}
	}
	report("div bad ", bad);
	report("div zero divisors ", zero);
	qr m = hw(1, 0x80000000u, 0xFFFFFFFFu);
	rt_puts("div min/-1 ");
	rt_put_hex(m.q);
	rt_putc(' ');
	rt_put_hex(m.r);
	rt_putc('\n');
	m = hw(1, (uint32_t)-7, 0);
	rt_puts("div -7/0 ");
	rt_put_hex(m.q);
	rt_putc(' ');
	rt_put_hex(m.r);
	rt_putc('\n');

	/* 2. READY k cycles after the divisor write, and QUOTIENT read early. */
	hw(0, 1000, 10); /* QUOTIENT = 100 */
	rt_puts("csr");
	for (unsigned k = 0; k < 10; k++) {
		rt_putc(' ');
		rt_put_dec(csr_probe[k](77, 7) & 1u);
	}
	rt_putc('\n');
	(void)SIO_DIV_QUOTIENT;
	hw(0, 1000, 10);
	uint32_t early = quo7(77, 7);
	uint32_t csr_after_early = SIO_DIV_CSR;
	uint32_t ontime = quo8(77, 7);
	rt_puts("quotient early ");
	rt_put_dec(early);
	rt_puts(" on time ");
	rt_put_dec(ontime);
	rt_puts(" csr ");
	rt_put_dec(csr_after_early);
	rt_putc('\n');

	/* 3. DIRTY: set by any write, cleared by reading QUOTIENT only. */
	SIO_DIV_UDIVIDEND = 9;
	SIO_DIV_UDIVISOR = 2;
	uint32_t c[5];
	c[0] = SIO_DIV_CSR; /* busy, dirty */
	__asm volatile("b 1f\n1: b 1f\n1: b 1f\n1: b 1f\n1: b 1f\n1:" ::: "memory");
	c[1] = SIO_DIV_CSR; /* ready, dirty */
	(void)SIO_DIV_REMAINDER;
	c[2] = SIO_DIV_CSR; /* still dirty */
	(void)SIO_DIV_QUOTIENT;
	c[3] = SIO_DIV_CSR; /* clean */
	SIO_DIV_REMAINDER = 5;
	c[4] = SIO_DIV_CSR; /* a result write: ready, dirty */
	rt_puts("dirty");
	for (unsigned i = 0; i < 5; i++) {
		rt_putc(' ');
		rt_put_dec(c[i]);
	}
	rt_putc('\n');
	/* A result write ends a calculation in progress: its operands never reach the
	 * results. */
	cancel_probe(1000, 3, 42);
	__asm volatile("b 1f\n1: b 1f\n1: b 1f\n1: b 1f\n1: b 1f\n1:" ::: "memory");
	uint32_t rr = SIO_DIV_REMAINDER, rq = SIO_DIV_QUOTIENT;
	rt_puts("cancel ");
	rt_put_dec(rq);
	rt_putc(' ');
	rt_put_dec(rr);
	rt_putc('\n');

	/* 4. Divides in SysTick handlers interrupting divides in main. */
	irq_count = 0;
	SYST_RVR = periods[0] - 1;
	SYST_CVR = 0;
	SYST_CSR = 0x7; /* processor clock, interrupt, enable */
	bad = 0;
	for (unsigned i = 0; i < 3000; i++) {
		uint32_t n = operand(), d = operand();
		int s = i & 1;
		qr h = hw(s, n, d), w = s ? soft_sdiv(n, d) : soft_udiv(n, d);
		if (h.q != w.q || h.r != w.r)
			bad++;
	}
	SYST_CSR = 0;
	report("irq main bad ", bad);
	report("irq handler bad ", irq_bad);
	report("irq count ", irq_count);
	report("irq saves ", irq_saves);
	return 0;
}
