/* The C library's memcpy and memset (a toolchain library, linked by its absolute path).
 * picolibc leaves "vfscanf = __d_vfscanf" as an absolute FUNC symbol: value 1, size 2528,
 * section ABS; it is not code. */
#include <stddef.h>

void *memcpy(void *d, const void *s, size_t n)
{
	char *dp = d;
	const char *sp = s;
	while (n--)
		*dp++ = *sp++;
	return d;
}

void *memset(void *d, int c, size_t n)
{
	char *dp = d;
	while (n--)
		*dp++ = (char)c;
	return d;
}

__asm__(".global vfscanf\n\t.type vfscanf, %function\n\t.set vfscanf, 1\n\t.size vfscanf, 2528");
