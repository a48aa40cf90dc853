/* test_sim_rom: the bootrom's tables as pico-sdk 2.x uses them (tests/data/pico/romfloat.c
 * looks up every function and data code and copies the soft-float tables), every soft-float
 * and soft-double entry called on thousands of operands (edge cases: zeros of both signs,
 * denormals, infinities, NaNs, rounding ties, clamping limits) with each result compared bit
 * for bit with the host's; reset_to_usb_boot ending the run; the debug trampoline; and the
 * table of unmodelled registers behind `sim run --peripherals`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>

#include <cmocka.h>

#include "test_pico_common.h"
#include "../../sim/unmodelled.h"

#define BUDGET 200000000u
#define VEC 0x20010000u
#define VEC_MAX ((0x20040000u - VEC - 4) / 20)

typedef struct rec {
	uint32_t entry, in[4];
} rec;

typedef struct vec {
	rec *r;
	size_t n, cap;
} vec;

static void add(vec *v, uint32_t entry, uint32_t a, uint32_t b, uint32_t c, uint32_t d)
{
	if (v->n == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 1024;
		v->r = realloc(v->r, v->cap * sizeof *v->r);
		assert_non_null(v->r);
	}
	v->r[v->n++] = (rec){entry, {a, b, c, d}};
}

static uint32_t lcg_state = 12345;
static uint32_t lcg(void)
{
	lcg_state = lcg_state * 1664525u + 1013904223u;
	return lcg_state;
}

static float fb(uint32_t w) { float f; memcpy(&f, &w, 4); return f; }
static uint32_t bf(float f) { uint32_t w; memcpy(&w, &f, 4); return w; }
static double db(uint64_t w) { double d; memcpy(&d, &w, 8); return d; }
static uint64_t bd(double d) { uint64_t w; memcpy(&w, &d, 8); return w; }

static const uint32_t f_edges[] = {
	0x00000000, 0x80000000, 0x3F800000, 0xBF800000, 0x3FC00000, 0xC0200000, 0x00000001,
	0x807FFFFF, 0x00800000, 0x7F7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x3EAAAAAB,
	0x4F000000, 0xCF000001,
};
static const uint64_t d_edges[] = {
	0, 0x8000000000000000ull, 0x3FF0000000000000ull, 0xBFF0000000000000ull,
	0x3FF8000000000000ull, 0xC004000000000000ull, 1, 0x800FFFFFFFFFFFFFull,
	0x0010000000000000ull, 0x7FEFFFFFFFFFFFFFull, 0x7FF0000000000000ull,
	0xFFF0000000000000ull, 0x7FF8000000000000ull, 0x3FD5555555555555ull,
	0x41E0000000000000ull, 0xC3E0000000000001ull,
};
#define NEDGE 16
static const int32_t ns[] = {0, 1, 16, 31, -4, 40, -40};
#define NNS 7
static const int32_t i_edges[] = {0, 1, -1, INT32_MIN, INT32_MAX, 16777217, -16777217,
				  0x7FFFFFC0, 3, -3};
static const int64_t l_edges[] = {0, 1, -1, INT64_MIN, INT64_MAX, (1ll << 53) + 1,
				  -(1ll << 53) - 1, 0x7FFFFFFFFFFFFC00ll, 0xFFFFFFFFll,
				  (1ll << 24) + 1};

/* A random float or double operand: raw bits half the time (any class), else a value in
 * [-1000, 1000) with a random fraction. */
static uint64_t rnd_operand(int dbl)
{
	uint32_t k = lcg();
	if (k & 1)
		return dbl ? ((uint64_t)lcg() << 32 | lcg()) : lcg();
	double v = ((double)lcg() / 4294967296.0 - 0.5) * 2000.0;
	return dbl ? bd(v) : bf((float)v);
}

static uint64_t edge(int dbl, unsigned i)
{
	return dbl ? d_edges[i] : f_edges[i];
}

/* The value operands of one table: NEDGE edges, then random ones. */
static void add_fp(vec *v, uint32_t e, int dbl, uint64_t x, uint64_t y, int32_t n)
{
	if (dbl)
		add(v, e, (uint32_t)x, (uint32_t)(x >> 32), n != INT32_MIN ? (uint32_t)n : (uint32_t)y,
		    n != INT32_MIN ? 0 : (uint32_t)(y >> 32));
	else
		add(v, e, (uint32_t)x, n != INT32_MIN ? (uint32_t)n : (uint32_t)y, 0, 0);
}

static void build(vec *v)
{
	static const unsigned binary[] = {0x00, 0x04, 0x08, 0x0C, 0x10, 0x14, 0x54, 0x58};
	static const unsigned unary[] = {0x18, 0x1C, 0x24, 0x3C, 0x40, 0x44, 0x48, 0x4C,
					 0x50, 0x6C, 0x74, 0x7C};
	static const unsigned tofix[] = {0x20, 0x28, 0x70, 0x78};
	for (int dbl = 0; dbl < 2; dbl++) {
		uint32_t t = dbl ? 0x100 : 0;
		for (size_t k = 0; k < sizeof binary / sizeof *binary; k++) {
			for (unsigned i = 0; i < NEDGE; i++)
				for (unsigned j = 0; j < NEDGE; j++)
					add_fp(v, t | binary[k], dbl, edge(dbl, i), edge(dbl, j), INT32_MIN);
			for (int i = 0; i < 16; i++)
				add_fp(v, t | binary[k], dbl, rnd_operand(dbl), rnd_operand(dbl), INT32_MIN);
		}
		for (size_t k = 0; k < sizeof unary / sizeof *unary; k++) {
			for (unsigned i = 0; i < NEDGE; i++)
				add_fp(v, t | unary[k], dbl, edge(dbl, i), 0, INT32_MIN);
			for (int i = 0; i < 40; i++)
				add_fp(v, t | unary[k], dbl, rnd_operand(dbl), 0, INT32_MIN);
		}
		for (size_t k = 0; k < sizeof tofix / sizeof *tofix; k++)
			for (int m = 0; m < NNS; m++) {
				for (unsigned i = 0; i < NEDGE; i++)
					add_fp(v, t | tofix[k], dbl, edge(dbl, i), 0, ns[m]);
				for (int i = 0; i < 16; i++)
					add_fp(v, t | tofix[k], dbl, rnd_operand(dbl), 0, ns[m]);
			}
		for (int i = 0; i < 30; i++) {
			int32_t x = i < 10 ? i_edges[i] : (int32_t)lcg();
			int64_t l = i < 10 ? l_edges[i] : (int64_t)((uint64_t)lcg() << 32 | lcg()) >> (lcg() % 40);
			add(v, t | 0x2C, (uint32_t)x, 0, 0, 0);
			add(v, t | 0x34, (uint32_t)x, 0, 0, 0);
			add(v, t | 0x5C, (uint32_t)l, (uint32_t)((uint64_t)l >> 32), 0, 0);
			add(v, t | 0x64, (uint32_t)l, (uint32_t)((uint64_t)l >> 32), 0, 0);
			for (int m = 0; m < NNS; m++) {
				add(v, t | 0x30, (uint32_t)x, (uint32_t)ns[m], 0, 0);
				add(v, t | 0x38, (uint32_t)x, (uint32_t)ns[m], 0, 0);
				add(v, t | 0x60, (uint32_t)l, (uint32_t)((uint64_t)l >> 32), (uint32_t)ns[m], 0);
				add(v, t | 0x68, (uint32_t)l, (uint32_t)((uint64_t)l >> 32), (uint32_t)ns[m], 0);
			}
		}
	}
}

/* ---- The host's answers (independent of sim/romfloat.c) ---- */

/* floor(v * 2^n) clamped to [lo, hi]; NaN as the infinity of its sign. */
static long double fixed(long double v, int n, long double lo, long double hi)
{
	if (isnan(v))
		return signbit(v) ? lo : hi;
	long double x = floorl(ldexpl(v, n));
	return x < lo ? lo : x > hi ? hi : x;
}

static int cmp3(long double a, long double b)
{
	return a == b ? 0 : a < b ? -1 : 1;
}

typedef struct expect {
	uint32_t r[4];
	unsigned nregs;  /* result registers to compare */
	uint32_t flags;  /* NZCV to compare when has_flags */
	int has_flags;
} expect;

static void put64(expect *x, uint64_t w)
{
	x->r[0] = (uint32_t)w;
	x->r[1] = (uint32_t)(w >> 32);
	x->nregs = 2;
}

static void put_fp(expect *x, int dbl, long double v)
{
	if (dbl) {
		put64(x, bd((double)v));
	} else {
		x->r[0] = bf((float)v);
		x->nregs = 1;
	}
}

static expect reference(const rec *r)
{
	expect x = {{0}, 1, 0, 0};
	int dbl = (r->entry & 0x100) != 0;
	unsigned off = r->entry & 0xFF;
	const uint32_t *in = r->in;
	float fa = fb(in[0]), fbv = fb(in[1]);
	double da = db((uint64_t)in[1] << 32 | in[0]), dbv = db((uint64_t)in[3] << 32 | in[2]);
	long double a = dbl ? (long double)da : (long double)fa;
	long double b = dbl ? (long double)dbv : (long double)fbv;
	int n = (int32_t)(dbl ? in[2] : in[1]);
	int64_t l = (int64_t)((uint64_t)in[1] << 32 | in[0]);
	const long double P31 = 2147483648.0L, P63 = 9223372036854775808.0L;
	switch (off) {
	case 0x00: if (dbl) put_fp(&x, 1, da + dbv); else put_fp(&x, 0, fa + fbv); break;
	case 0x04: if (dbl) put_fp(&x, 1, da - dbv); else put_fp(&x, 0, fa - fbv); break;
	case 0x08: if (dbl) put_fp(&x, 1, da * dbv); else put_fp(&x, 0, fa * fbv); break;
	case 0x0C: if (dbl) put_fp(&x, 1, da / dbv); else put_fp(&x, 0, fa / fbv); break;
	case 0x10:
	case 0x54:
		x.r[0] = (uint32_t)cmp3(a, b);
		break;
	case 0x14: {
		int c = cmp3(a, b);
		x.r[0] = (uint32_t)c;
		x.flags = c < 0 ? 0x80000000u : c == 0 ? 0x60000000u : 0x20000000u;
		x.has_flags = 1;
		break;
	}
	case 0x18:
		put_fp(&x, dbl, a < 0 ? -INFINITY : dbl ? sqrt(da) : sqrtf(fa));
		break;
	case 0x1C: x.r[0] = (uint32_t)(int32_t)fixed(a, 0, -P31, P31 - 1); break;
	case 0x20: x.r[0] = (uint32_t)(int32_t)fixed(a, n, -P31, P31 - 1); break;
	case 0x24: x.r[0] = (uint32_t)fixed(a, 0, 0, 2 * P31 - 1); break;
	case 0x28: x.r[0] = (uint32_t)fixed(a, n, 0, 2 * P31 - 1); break;
	case 0x2C: put_fp(&x, dbl, (long double)(int32_t)in[0]); break;
	case 0x30: put_fp(&x, dbl, ldexpl((long double)(int32_t)in[0], -(int32_t)in[1])); break;
	case 0x34: put_fp(&x, dbl, (long double)in[0]); break;
	case 0x38: put_fp(&x, dbl, ldexpl((long double)in[0], -(int32_t)in[1])); break;
	case 0x3C: put_fp(&x, dbl, dbl ? cos(da) : cosf(fa)); break;
	case 0x40:
	case 0x48:
		if (dbl) {
			uint64_t c = bd(cos(da));
			put_fp(&x, 1, sin(da));
			x.r[2] = (uint32_t)c;
			x.r[3] = (uint32_t)(c >> 32);
			x.nregs = 4;
		} else {
			x.r[0] = bf(sinf(fa));
			x.r[1] = bf(cosf(fa));
			x.nregs = 2;
		}
		break;
	case 0x44: put_fp(&x, dbl, dbl ? tan(da) : tanf(fa)); break;
	case 0x4C: put_fp(&x, dbl, dbl ? exp(da) : expf(fa)); break;
	case 0x50: put_fp(&x, dbl, a <= 0 ? -INFINITY : dbl ? log(da) : logf(fa)); break;
	case 0x58: put_fp(&x, dbl, dbl ? atan2(da, dbv) : atan2f(fa, fbv)); break;
	case 0x5C: put_fp(&x, dbl, (long double)l); break;
	case 0x60: put_fp(&x, dbl, ldexpl((long double)l, -(int32_t)in[2])); break;
	case 0x64: put_fp(&x, dbl, (long double)(uint64_t)l); break;
	case 0x68: put_fp(&x, dbl, ldexpl((long double)(uint64_t)l, -(int32_t)in[2])); break;
	case 0x6C:
	case 0x70: {
		long double v = fixed(a, off == 0x70 ? n : 0, -P63, P63);
		put64(&x, v >= P63 ? (uint64_t)INT64_MAX : (uint64_t)(int64_t)v);
		break;
	}
	case 0x74:
	case 0x78: {
		long double v = fixed(a, off == 0x78 ? n : 0, 0, 2 * P63);
		put64(&x, v >= 2 * P63 ? UINT64_MAX : (uint64_t)v);
		break;
	}
	case 0x7C:
		if (dbl)
			x.r[0] = bf((float)da);
		else
			put64(&x, bd((double)fa));
		break;
	default:
		fail_msg("no reference for entry 0x%x", r->entry);
	}
	return x;
}

static void test_soft_float_tables(void **state)
{
	(void)state;
	vec v = {0};
	build(&v);
	assert_true(v.n > 8000 && v.n <= VEC_MAX);
	xb_pico *p = tp_pico(NULL, 0);
	char *path = tp_program_path("romfloat", "elf");
	xb_err err;
	if (pico_load_file(p, path, XB_IMAGE_ELF, 0, NULL, &err))
		fail_msg("%s", err.msg);
	free(path);
	xb_board *b = pico_board(p);
	uint32_t *words = calloc(1 + 5 * v.n, 4);
	words[0] = (uint32_t)v.n;
	for (size_t i = 0; i < v.n; i++)
		memcpy(words + 1 + 5 * i, &v.r[i], 20);
	assert_int_equal(board_load(b, VEC, words, 4 * (1 + 5 * v.n), &err), 0);
	assert_int_equal(pico_run(p, BUDGET), XB_PICO_HALTED);
	const char *out = pico_uart_output(p, NULL);
	if (!strstr(out, "rom version 3 functions 18 data 6 sf words 32 sd words 32 in fplib 32\n"))
		fail_msg("lookups: %s", out);
	char calls[64];
	snprintf(calls, sizeof calls, "calls %zu in ", v.n);
	if (!strstr(out, calls) || !strstr(out, "exit 0"))
		fail_msg("calls: %s", out);
	assert_int_equal(board_peek(b, VEC + 4, words + 1, 20 * v.n, &err), 0);
	size_t nan_results = 0, denormal_inputs = 0;
	uint32_t covered[2] = {0, 0}; /* the entries compared, per table (bit = offset / 4) */
	for (size_t i = 0; i < v.n; i++) {
		const uint32_t *got = words + 1 + 5 * i;
		expect x = reference(&v.r[i]);
		for (unsigned k = 0; k < x.nregs; k++)
			if (got[k] != x.r[k])
				fail_msg("entry 0x%03x (%s) in %08x %08x %08x %08x: r%u = %08x, host %08x",
					 v.r[i].entry, v.r[i].entry & 0x100 ? "double" : "float",
					 v.r[i].in[0], v.r[i].in[1], v.r[i].in[2], v.r[i].in[3], k, got[k],
					 x.r[k]);
		if (x.has_flags && (got[4] & 0xF0000000u) != x.flags)
			fail_msg("entry 0x%03x flags %08x, expected %08x", v.r[i].entry, got[4], x.flags);
		covered[(v.r[i].entry & 0x100) != 0] |= 1u << ((v.r[i].entry & 0xFF) / 4);
		if ((v.r[i].entry & 0x100) == 0 && x.nregs == 1 && isnan(fb(x.r[0])))
			nan_results++;
		if ((v.r[i].entry & 0x100) == 0 && (v.r[i].in[0] & 0x7F800000u) == 0 &&
		    (v.r[i].in[0] & 0x7FFFFFu))
			denormal_inputs++;
	}
	assert_int_equal(covered[0], 0xFFFFFFFFu); /* all 32 soft-float entries */
	assert_int_equal(covered[1], 0xFFFFFFFFu); /* all 32 soft-double entries */
	assert_true(nan_results > 50);    /* NaNs went through and came back as the host's */
	assert_true(denormal_inputs > 100); /* denormals were not flushed */
	/* Spot checks of the datasheet's stated behaviour, from the records. */
	int saw_sqrt_neg = 0, saw_floor = 0;
	for (size_t i = 0; i < v.n; i++) {
		const uint32_t *got = words + 1 + 5 * i;
		if (v.r[i].entry == 0x18 && v.r[i].in[0] == 0xBF800000u) {
			assert_int_equal(got[0], 0xFF800000u); /* sqrt(-1) = -Infinity */
			saw_sqrt_neg = 1;
		}
		if (v.r[i].entry == 0x1C && v.r[i].in[0] == 0xC0200000u) {
			assert_int_equal((int32_t)got[0], -3); /* float2int(-2.5): towards -Infinity */
			saw_floor = 1;
		}
	}
	assert_true(saw_sqrt_neg && saw_floor);
	free(words);
	free(v.r);
	pico_free(p);
}

static void test_reset_to_usb_boot(void **state)
{
	(void)state;
	tp_log log;
	xb_pico *p = tp_pico(&log, 0);
	char *path = tp_program_path("usbboot", "elf");
	xb_err err;
	if (pico_load_file(p, path, XB_IMAGE_ELF, 0, NULL, &err))
		fail_msg("%s", err.msg);
	free(path);
	assert_int_equal(pico_run(p, BUDGET), XB_PICO_USB_BOOT);
	assert_string_equal(pico_stop_name(XB_PICO_USB_BOOT), "usb_boot");
	xb_pico_summary s;
	pico_summary(p, &s);
	assert_int_equal(s.stop, XB_PICO_USB_BOOT);
	assert_int_equal(s.usb_boot, 1);
	assert_int_equal(s.usb_boot_gpio_mask, 1u << 25);
	assert_int_equal(s.usb_boot_disable_mask, 0);
	const char *out = pico_uart_output(p, NULL);
	assert_non_null(strstr(out, "to bootsel\n"));
	assert_null(strstr(out, "still running"));
	assert_non_null(strstr(log.last, "reset_to_usb_boot"));
	/* Later runs return at once; a reset forgets the request. */
	uint64_t cycles = s.cycles;
	assert_int_equal(pico_run(p, 1000), XB_PICO_USB_BOOT);
	pico_summary(p, &s);
	assert_int_equal(s.cycles, cycles);
	pico_reset(p);
	pico_summary(p, &s);
	assert_int_equal(s.usb_boot, 0);
	assert_int_equal(pico_run(p, BUDGET), XB_PICO_USB_BOOT); /* and it asks again */
	pico_free(p);
}

static uint16_t rom16(xb_pico *p, uint32_t addr)
{
	uint16_t v;
	xb_err err;
	if (board_peek(pico_board(p), addr, &v, 2, &err))
		fail_msg("%s", err.msg);
	return v;
}

/* debug_trampoline: the function in r7 runs with r0-r3, then the BKPT at
 * debug_trampoline_end halts the core (datasheet 2.8.3.1). */
static void test_debug_trampoline(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_boot(p, 0);
	uint32_t lookup = rom16(p, 0x18), funcs = rom16(p, 0x14);
	uint32_t dt = tp_call(p, lookup, funcs, 'D' | 'T' << 8, 0, 0);
	uint32_t de = tp_call(p, lookup, funcs, 'D' | 'E' << 8, 0, 0);
	uint32_t pop = tp_call(p, lookup, funcs, 'P' | '3' << 8, 0, 0);
	assert_true(dt & 1);
	assert_int_equal(de, dt + 2); /* right after the BLX */
	xb_board *b = pico_board(p);
	board_resume(b);
	board_set_reg(b, 0, 0x0000FFFFu);
	board_set_reg(b, 7, pop);
	board_set_reg(b, XB_REG_SP, 0x20041000u);
	board_set_reg(b, XB_REG_XPSR, 0x01000000u);
	board_set_reg(b, XB_REG_PC, dt & ~1u);
	assert_int_equal(board_run(b, 100000), XB_RUN_HALTED);
	assert_int_equal(board_reg(b, XB_REG_PC), de & ~1u);
	assert_int_equal(board_reg(b, 0), 16);
	pico_free(p);
}

/* ---- sim run --peripherals ---- */

static void test_unmodelled_names(void **state)
{
	(void)state;
	uint32_t off;
	assert_string_equal(unmodelled_block(0x4003C008u, &off), "SPI0");
	assert_int_equal(off, 0x008);
	assert_string_equal(unmodelled_block(0x4005E00Cu, &off), "RTC"); /* the SET alias */
	assert_int_equal(off, 0x00C);
	assert_string_equal(unmodelled_block(0x50300128u, &off), "PIO1");
	assert_int_equal(off, 0x128);
	assert_string_equal(unmodelled_block(0x50000040u, &off), "DMA");
	assert_string_equal(unmodelled_block(0xD0000080u, &off), "SIO");
	assert_int_equal(off, 0x080);
	assert_string_equal(unmodelled_block(0x40068000u, &off), "-"); /* a free APB slot */
	assert_string_equal(unmodelled_block(0xA0000000u, &off), "-");
	assert_int_equal(off, 0xA0000000u);
	assert_string_equal(unmodelled_block(0x18000060u, &off), "XIP_SSI");
}

static void test_unmodelled_program(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	xb_unmodelled *u = unmodelled_new(board_bus(pico_board(p)));
	char *path = tp_program_path("unmodelled", "elf");
	xb_err err;
	if (pico_load_file(p, path, XB_IMAGE_ELF, 0, NULL, &err))
		fail_msg("%s", err.msg);
	free(path);
	assert_int_equal(pico_run(p, BUDGET), XB_PICO_HALTED);
	/* A debugger's reads do not count. */
	uint32_t v;
	bus_debug_read(board_bus(pico_board(p)), 0x40070000u, 4, &v);
	/* RTC may be modelled some day: its registers are expected only while nothing answers
	 * them. */
	xb_bus *bus = board_bus(pico_board(p));
	int rtc = bus_name_of(bus, 0x4005C000u) == NULL;
	size_t n;
	const xb_unmod_reg *r = unmodelled_list(u, &n);
	assert_int_equal(n, rtc ? 4 : 2);
	size_t i = 0;
	if (rtc) {
		assert_string_equal(r[0].block, "RTC");
		assert_int_equal(r[0].offset, 0x000);
		assert_int_equal(r[0].reads, 0);
		assert_int_equal(r[0].writes, 1);
		assert_string_equal(r[1].block, "RTC");
		assert_int_equal(r[1].offset, 0x00C);
		assert_int_equal(r[1].addr, 0x4005C00Cu); /* the SET-alias write counts here */
		assert_int_equal(r[1].reads, 1);
		assert_int_equal(r[1].writes, 1);
		assert_true(r[0].first_pc < r[1].first_pc);
		i = 2;
	}
	assert_string_equal(r[i].block, "-"); /* the free APB slot */
	assert_int_equal(r[i].addr, 0x40070000u);
	assert_int_equal(r[i].reads, 3); /* the debugger's read is not counted */
	assert_int_equal(r[i].writes, 0);
	assert_string_equal(r[i + 1].block, "-");
	assert_int_equal(r[i + 1].addr, 0xA0000000u);
	assert_int_equal(r[i + 1].reads, 1);
	/* First PCs are in the program's code, in program order. */
	for (size_t k = 0; k < n; k++)
		assert_true(r[k].first_pc >= 0x10000100u && r[k].first_pc < 0x10010000u);
	assert_true(r[i].first_pc < r[i + 1].first_pc);
	if (rtc)
		assert_true(r[i].first_pc < r[0].first_pc && r[1].first_pc < r[i + 1].first_pc);
	assert_int_equal(unmodelled_dropped(u), 0);
	unmodelled_free(u, board_bus(pico_board(p)));
	pico_free(p);
}

/* Memory stays bounded: registers beyond XB_UNMOD_MAX are only counted. */
static void test_unmodelled_bounded(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	xb_bus *bus = board_bus(pico_board(p));
	xb_unmodelled *u = unmodelled_new(bus);
	uint32_t v;
	for (uint32_t i = 0; i < XB_UNMOD_MAX + 1000; i++)
		bus_read(bus, 0xA0000000u + 4 * i, 4, &v);
	bus_read(bus, 0xA0000000u, 4, &v); /* a known one still counts */
	size_t n;
	const xb_unmod_reg *r = unmodelled_list(u, &n);
	assert_int_equal(n, XB_UNMOD_MAX);
	assert_int_equal(unmodelled_dropped(u), 1000);
	assert_int_equal(r[0].reads, 2);
	unmodelled_free(u, bus);
	pico_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_soft_float_tables),
		cmocka_unit_test(test_reset_to_usb_boot),
		cmocka_unit_test(test_debug_trampoline),
		cmocka_unit_test(test_unmodelled_names),
		cmocka_unit_test(test_unmodelled_program),
		cmocka_unit_test(test_unmodelled_bounded),
	};
	return cmocka_run_group_tests_name("sim_rom", tests, NULL, NULL);
}
