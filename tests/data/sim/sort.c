/* sort.c: sorts 512 pseudo-random words (quicksort with an insertion-sort finish) in SRAM;
 * MAILBOX[1] = 1 if sorted, MAILBOX[2] = sum of i * v[i]; returns the sum of the values. */
#include "sim.h"

#define N 512
static uint32_t v[N];

static void insertion(uint32_t *a, int n)
{
	for (int i = 1; i < n; i++) {
		uint32_t x = a[i];
		int j = i - 1;
		while (j >= 0 && a[j] > x) {
			a[j + 1] = a[j];
			j--;
		}
		a[j + 1] = x;
	}
}

static void quick(uint32_t *a, int n)
{
	while (n > 12) {
		uint32_t p = a[n / 2];
		int i = 0, j = n - 1;
		while (i <= j) {
			while (a[i] < p)
				i++;
			while (a[j] > p)
				j--;
			if (i <= j) {
				uint32_t t = a[i];
				a[i] = a[j];
				a[j] = t;
				i++;
				j--;
			}
		}
		if (j + 1 < n - i) {
			quick(a, j + 1);
			a += i;
			n -= i;
		} else {
			quick(a + i, n - i);
			n = j + 1;
		}
	}
	insertion(a, n);
}

int main(void)
{
	uint32_t x = 2463534242u, sum = 0;
	for (int i = 0; i < N; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		v[i] = x;
		sum += x;
	}
	quick(v, N);
	uint32_t sorted = 1, weighted = 0;
	for (int i = 0; i < N; i++) {
		if (i && v[i - 1] > v[i])
			sorted = 0;
		weighted += (uint32_t)i * v[i];
	}
	MAILBOX[1] = sorted;
	MAILBOX[2] = weighted;
	return (int)sum;
}
