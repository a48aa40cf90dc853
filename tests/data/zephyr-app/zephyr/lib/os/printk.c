/* printk (lib/os/printk.c). */
#include <stdint.h>
static volatile char console[64];
static unsigned int pos;

void printk_char(char c) { console[pos++ & 63] = c; }

void printk(const char *s)
{
	while (*s)
		printk_char(*s++);
}
