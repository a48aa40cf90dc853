/* fuzz_history_method: the run history's method JSON reader (core/export.c) on arbitrary
 * bytes: no crash, no read past the text; what it accepts goes back to JSON that reads the
 * same, and its paragraph can always be made. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/export.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int same(double a, double b)
{
	return (isnan(a) && isnan(b)) || a == b;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = xmalloc(size + 1);
	memcpy(text, data, size);
	text[size] = 0;
	xb_method m, back;
	xb_err err;
	if (export_method_parse(text, &m, &err) != 0) {
		if (strncmp(err.msg, "method JSON, offset ", 20) != 0)
			abort();
		free(text);
		return 0;
	}
	xb_strbuf sb = {0};
	export_method_json(&sb, &m);
	if (export_method_parse(sb.buf, &back, &err) != 0)
		abort();
	if (!same(m.pings, back.pings) || !same(m.interval_ms, back.interval_ms) ||
	    !same(m.step_s, back.step_s) || !same(m.footprint_ms, back.footprint_ms) ||
	    back.nrates != m.nrates)
		abort();
	for (size_t i = 0; i < m.nrates; i++)
		if (!same(m.rates[i], back.rates[i]))
			abort();
	sb.len = 0;
	export_method_text(&sb, &m, 1);
	sb_free(&sb);
	free(text);
	return 0;
}
