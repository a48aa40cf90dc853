/* The application: a hot loop of a few functions, one already in RAM that calls flash
 * (a veneer), and the C library routines the start-up code uses. */
#include <stddef.h>
#include <stdint.h>

void *memcpy(void *d, const void *s, size_t n)
{
	uint8_t *o = d;
	const uint8_t *i = s;
	while (n--)
		*o++ = *i++;
	return d;
}
void *memset(void *d, int c, size_t n)
{
	uint8_t *o = d;
	while (n--)
		*o++ = (uint8_t)c;
	return d;
}
volatile uint32_t sink;
uint32_t counter = 5;
__attribute__((noinline)) uint32_t csum(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	for (size_t i = 0; i < n; i++)
		s += p[i] * (i + 1);
	return s;
}
__attribute__((noinline)) void net_input(uint8_t *buf, size_t n)
{
	memcpy(buf + 32, buf, n);
	sink = csum(buf, n);
}
__attribute__((noinline, section(".ramfunc.usb_irq"))) void usb_irq(uint8_t *buf)
{
	net_input(buf, 16);
	sink += counter;
}
int main(void)
{
	static uint8_t buf[64];
	for (;;) {
		usb_irq(buf);
		memset(buf, (int)sink, 8);
	}
}
