/* app.c: the triage rules' test image (built -Os -g by tests/integration/test_triage.sh):
 * a word-at-a-time copy, a byte-at-a-time copy and checksum, three functions whose first
 * cache lines share a set (triage.ld), an assertion hook, and main calling them. */
#include <stddef.h>
#include <stdint.h>

void fast_path(uint32_t *p, size_t n);

__attribute__((noinline)) void copy_words(uint32_t *d, const uint32_t *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		d[i] = s[i];
}

__attribute__((noinline)) void copy_bytes(uint8_t *d, const uint8_t *s, size_t n)
{
	while (n--)
		*d++ = *s++;
}

__attribute__((noinline)) uint32_t sum_bytes(const uint8_t *p, size_t n)
{
	uint32_t s = 0;
	while (n--)
		s += *p++;
	return s;
}

__attribute__((noinline, section(".text.set_a"))) uint32_t set_a(uint32_t x)
{
	return x * 3u + 1u;
}

__attribute__((noinline, section(".text.set_b"))) uint32_t set_b(uint32_t x)
{
	return x * 5u + 2u;
}

__attribute__((noinline, section(".text.set_c"))) uint32_t set_c(uint32_t x)
{
	return x * 7u + 3u;
}

volatile uint32_t assert_fails;

__attribute__((noinline)) void assert_post_action(const char *file, unsigned line)
{
	(void)file;
	assert_fails += line;
}

static uint32_t buf_a[64], buf_b[64];

__attribute__((section(".text.main"))) int main(void)
{
	copy_words(buf_a, buf_b, 64);
	copy_bytes((uint8_t *)buf_a, (const uint8_t *)buf_b, 256);
	uint32_t s = sum_bytes((const uint8_t *)buf_a, 256);
	s += set_a(s) + set_b(s) + set_c(s);
	fast_path(buf_a, 64);
	if (!s)
		assert_post_action("app.c", __LINE__);
	return (int)s;
}
