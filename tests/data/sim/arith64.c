/* arith64.c: 64-bit arithmetic through libgcc's __aeabi_* helpers on inputs from the test
 * (MAILBOX_IN[0..3] = a lo, a hi, b lo, b hi; [4] = shift count). Results, two words each
 * (low first), from MAILBOX[1]: a*b, a/b, a%b, (s64)a/(s64)b, (s64)a%(s64)b, a<<k, a>>k,
 * (s64)a>>k, a+b, a-b. */
#include "sim.h"

static void put(int i, uint64_t v)
{
	MAILBOX[1 + 2 * i] = (uint32_t)v;
	MAILBOX[2 + 2 * i] = (uint32_t)(v >> 32);
}

int main(void)
{
	uint64_t a = MAILBOX_IN[0] | ((uint64_t)MAILBOX_IN[1] << 32);
	uint64_t b = MAILBOX_IN[2] | ((uint64_t)MAILBOX_IN[3] << 32);
	unsigned k = MAILBOX_IN[4] & 63;
	put(0, a * b);
	put(1, a / b);
	put(2, a % b);
	put(3, (uint64_t)((int64_t)a / (int64_t)b));
	put(4, (uint64_t)((int64_t)a % (int64_t)b));
	put(5, a << k);
	put(6, a >> k);
	put(7, (uint64_t)((int64_t)a >> k));
	put(8, a + b);
	put(9, a - b);
	return 0;
}
