/* sort.c: quicksort of 1000 xorshift32 numbers; prints whether the result is ordered and
 * three elements the test recomputes. */
#include "rt.h"

#define N 1000

static uint32_t v[N];

static void quicksort(uint32_t *a, int lo, int hi)
{
	while (lo < hi) {
		uint32_t pivot = a[(lo + hi) / 2];
		int i = lo, j = hi;
		while (i <= j) {
			while (a[i] < pivot)
				i++;
			while (a[j] > pivot)
				j--;
			if (i <= j) {
				uint32_t t = a[i];
				a[i++] = a[j];
				a[j--] = t;
			}
		}
		if (j - lo < hi - i) { /* recurse into the smaller half */
			quicksort(a, lo, j);
			lo = i;
		} else {
			quicksort(a, i, hi);
			hi = j;
		}
	}
}

int main(void)
{
	uint32_t x = 2463534242u;
	for (int i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		v[i] = x;
	}
	quicksort(v, 0, N - 1);
	int ordered = 1;
	for (int i = 1; i < N; i++)
		if (v[i - 1] > v[i])
			ordered = 0;
	rt_puts(ordered ? "sort ordered\n" : "sort NOT ordered\n");
	rt_puts("sort v0 ");
	rt_put_hex(v[0]);
	rt_puts(" v500 ");
	rt_put_hex(v[500]);
	rt_puts(" v999 ");
	rt_put_hex(v[N - 1]);
	rt_putc('\n');
	return 0;
}
