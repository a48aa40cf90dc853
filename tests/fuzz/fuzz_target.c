/* fuzz_target: target_parse on any bytes must fail cleanly or yield a target that works. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/cache.h"
#include "../../core/target.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_target t;
	xb_err err;
	if (target_parse(&t, (const char *)data, size, "fuzz.target", &err) != 0) {
		/* Every message names the file and a line. */
		if (strncmp(err.msg, "fuzz.target:", 12) != 0)
			abort();
		return 0;
	}
	uint32_t sets = target_sets(&t);
	if (!sets || (sets & (sets - 1)) || t.naliases < 1 || t.cache.fill == 0)
		abort();
	/* Probe a few addresses: every alias decodes to an offset inside flash. */
	for (int i = 0; i < t.naliases; i++) {
		uint32_t off;
		enum xb_alias_mode mode;
		uint32_t a = t.aliases[i].base + t.flash_size - 1;
		if (!target_decode_xip(&t, a, &off, &mode) || off >= t.flash_size)
			abort();
		if (target_region_of(&t, a) == NULL)
			abort();
		if (target_set_of(&t, a) >= sets)
			abort();
	}
	/* A target that loads always makes a cache; keep the allocation small. */
	if (t.flash_size <= (16u << 20) && target_cache_lines(&t) <= 65536) {
		xb_cache *c = cache_new(&t.cache, t.flash_size, NULL);
		if (!c)
			abort();
		for (uint32_t k = 0; k < 64; k++)
			cache_access(c, (k * 2654435761u) % t.flash_size, (enum xb_alias_mode)(k & 3));
		if (cache_total_accesses(c) != 64)
			abort();
		cache_free(c);
	}
	return 0;
}
