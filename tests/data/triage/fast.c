/* fast.c: built -O2 (the optimisation rule's evidence). */
#include <stddef.h>
#include <stdint.h>

void fast_path(uint32_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		p[i] = p[i] * 2654435761u + (uint32_t)i;
}
