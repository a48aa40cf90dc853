/* arith64.c: 64-bit multiply, divide, modulo and shifts through libgcc (the M0+ has no
 * divide instruction), and the SIO hardware divider, printed on UART0. */
#include "rt.h"

/* Keeps gcc from folding the arithmetic at compile time. */
static volatile uint64_t in_u[4] = {0xFFFFFFFFFFFFFFFFull, 7, 0x123456789ABCDEFull, 1000000007};
static volatile int64_t in_s[2] = {-1234567890123456789ll, 1000};

#define SIO_DIV_UDIVIDEND REG(SIO_BASE + 0x60)
#define SIO_DIV_UDIVISOR REG(SIO_BASE + 0x64)
#define SIO_DIV_SDIVIDEND REG(SIO_BASE + 0x68)
#define SIO_DIV_SDIVISOR REG(SIO_BASE + 0x6C)
#define SIO_DIV_QUOTIENT REG(SIO_BASE + 0x70)
#define SIO_DIV_REMAINDER REG(SIO_BASE + 0x74)

static void line(const char *what, uint64_t v)
{
	rt_puts(what);
	rt_putc(' ');
	rt_put_dec64(v);
	rt_putc('\n');
}

static void hwdiv(int32_t n, int32_t d)
{
	SIO_DIV_SDIVIDEND = (uint32_t)n;
	SIO_DIV_SDIVISOR = (uint32_t)d;
	__asm volatile("b 1f\n1: b 1f\n1: b 1f\n1: b 1f\n1:"); /* 8 cycles, as the SDK waits */
	int32_t r = (int32_t)SIO_DIV_REMAINDER, q = (int32_t)SIO_DIV_QUOTIENT;
	rt_puts("hwdiv ");
	rt_put_sdec64(n);
	rt_puts(" / ");
	rt_put_sdec64(d);
	rt_puts(" = ");
	rt_put_sdec64(q);
	rt_puts(" r ");
	rt_put_sdec64(r);
	rt_putc('\n');
}

int main(void)
{
	uint64_t f = 1;
	for (uint64_t i = 2; i <= 20; i++)
		f *= i;
	line("fact20", f);
	line("max/7", in_u[0] / in_u[1]);
	line("max%7", in_u[0] % in_u[1]);
	line("big*p", in_u[2] * in_u[3]);
	line("big/p", in_u[2] / in_u[3]);
	line("big>>13", in_u[2] >> 13);
	rt_puts("sdiv ");
	rt_put_sdec64(in_s[0] / in_s[1]);
	rt_puts(" smod ");
	rt_put_sdec64(in_s[0] % in_s[1]);
	rt_putc('\n');
	hwdiv(100, 7);
	hwdiv(-100, 7);
	hwdiv(100, -7);
	hwdiv(100, 0);
	hwdiv(-100, 0);
	SIO_DIV_UDIVIDEND = 100;
	SIO_DIV_UDIVISOR = 0;
	rt_puts("hwudiv 100 / 0 = ");
	rt_put_hex(SIO_DIV_QUOTIENT);
	rt_putc('\n');
	return 0;
}
