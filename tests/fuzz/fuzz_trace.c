/* fuzz_trace: trace_parse on any bytes must fail cleanly, or round-trip through both forms. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/opt.h"
#include "../../core/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_same(const xb_trace *a, const xb_trace *b)
{
	if (a->n != b->n || a->necho != b->necho ||
	    (a->n && memcmp(a->addr, b->addr, a->n * sizeof *a->addr)) ||
	    (a->necho && memcmp(a->echo, b->echo, a->necho * sizeof *a->echo)))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_trace t, u;
	xb_err err;
	if (trace_parse(&t, data, size, "fuzz.trace", &err) != 0) {
		if (strncmp(err.msg, "fuzz.trace", 10) != 0 || t.n || t.necho || t.addr)
			abort();
		return 0;
	}
	xb_strbuf bin = {0}, txt = {0};
	trace_encode_binary(&t, &bin);
	if (trace_parse(&u, (const uint8_t *)bin.buf, bin.len, "bin", &err))
		abort();
	fuzz_same(&t, &u);
	trace_free(&u);
	trace_encode_text(&t, &txt);
	if (trace_parse(&u, (const uint8_t *)txt.buf, txt.len, "txt", &err))
		abort();
	fuzz_same(&t, &u);
	trace_free(&u);
	sb_free(&bin);
	sb_free(&txt);

	/* Replay and classify through a small cache, so odd traces exercise OPT too. */
	xb_target tg = {.flash_size = 1u << 16, .naliases = 2, .flash_base = 0};
	tg.aliases[0] = (xb_alias){.base = 0, .mode = XB_ALIAS_CACHED_ALLOC};
	tg.aliases[1] = (xb_alias){.base = 0x10000, .mode = XB_ALIAS_CACHED_NOALLOC};
	tg.cache = (xb_cache_config){.size = 256, .ways = 2, .line = 8, .fill = 4,
				     .policy = XB_POLICY_LRU};
	xb_miss_classes mc;
	if (classify_misses(&tg, &t, &mc, &err))
		abort();
	if ((int64_t)(mc.compulsory + mc.capacity) + mc.conflict != (int64_t)mc.replay.misses ||
	    mc.opt_misses > mc.fa_lru_misses || mc.compulsory > mc.opt_misses)
		abort();
	trace_free(&t);
	return 0;
}
