/* cachetest.c: XIP cache behaviour measured by the program itself from SRAM, through
 * XIP_CTRL's counters. MAILBOX_IN[0] selects:
 *   1 three functions 8 KB apart (one set) called in turn N = MAILBOX_IN[1] times
 *   2 two of them (they fit the two ways)
 *   3 one flash word read twice, invalidated by a write, re-read, flushed, re-read
 *   4 calls through the 0x13 alias (uncached), then through 0x10
 *   5 calls through the 0x11 alias before and after a call through 0x10
 *   6 a loop in SRAM only
 * Each step stores CTR_HIT and CTR_ACC after it: MAILBOX[1 + 2i], MAILBOX[2 + 2i]. */
#include "sim.h"

__attribute__((section(".alias_a"), noipa, aligned(8))) int alias_a(void) { return 1; }
__attribute__((section(".alias_b"), noipa, aligned(8))) int alias_b(void) { return 2; }
__attribute__((section(".alias_c"), noipa, aligned(8))) int alias_c(void) { return 3; }

const uint32_t flash_word __attribute__((aligned(8))) = 0x12345678u;

typedef int (*fn)(void);

static RAMFUNC void record(int i)
{
	MAILBOX[1 + 2 * i] = XIP_CTR_HIT;
	MAILBOX[2 + 2 * i] = XIP_CTR_ACC;
}

static RAMFUNC void clear(void)
{
	XIP_FLUSH = 1;
	(void)XIP_FLUSH; /* wait for the flush */
	XIP_CTR_HIT = 0;
	XIP_CTR_ACC = 0;
}

static RAMFUNC fn at_alias(fn f, uint32_t alias)
{
	return (fn)(((uint32_t)f & 0x00FFFFFFu) | alias);
}

static RAMFUNC int run(uint32_t mode, uint32_t n)
{
	int sum = 0;
	volatile const uint32_t *w = &flash_word;
	clear();
	switch (mode) {
	case 1:
		for (uint32_t i = 0; i < n; i++)
			sum += alias_a() + alias_b() + alias_c();
		record(0);
		break;
	case 2:
		for (uint32_t i = 0; i < n; i++)
			sum += alias_a() + alias_b();
		record(0);
		break;
	case 3:
		sum += (int)*w;
		record(0);
		sum += (int)*w;
		record(1);
		*(volatile uint32_t *)w = 0; /* a write to 0x10... invalidates the line */
		sum += (int)*w;
		record(2);
		XIP_FLUSH = 1;
		(void)XIP_FLUSH;
		sum += (int)*w;
		record(3);
		XIP_CTR_HIT = 0;
		record(4);
		XIP_CTR_ACC = 5;
		record(5);
		break;
	case 4:
		for (uint32_t i = 0; i < n; i++)
			sum += at_alias(alias_a, 0x13000000u)();
		record(0);
		sum += alias_a();
		record(1);
		sum += alias_a();
		record(2);
		break;
	case 5:
		sum += at_alias(alias_a, 0x11000000u)();
		record(0);
		sum += at_alias(alias_a, 0x11000000u)();
		record(1);
		sum += alias_a();
		record(2);
		sum += at_alias(alias_a, 0x11000000u)();
		record(3);
		break;
	case 6:
		for (uint32_t i = 0; i < n; i++)
			sum += (int)(i * 3u);
		record(0);
		break;
	}
	return sum;
}

int main(void)
{
	return run(MAILBOX_IN[0], MAILBOX_IN[1]);
}
