/* test_verify: a relinked image against its plan. On synthetic images (a "built" image made
 * from the placement, then spoilt one way at a time): moved, recoloured, missing, new and
 * resized functions, same-named static functions, renumbered LTO clones, veneers as notes.
 * On real relinks of the demo echo firmware by GNU ld (the make builder run as a build job):
 * hot, colour and SRAM layouts verify clean; a layout edited after the relink and a relink
 * with other fragments fail, naming the function. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../core/plan_inputs.h"
#include "../../core/plan.h"
#include "../../core/verify.h"
#include "../../session/build_job.h"
#include "../common/synth.h"
#include "../common/testdir.h"
#include "test_pico_common.h"

static xb_target tg;

/* ---- synthetic images ---- */

static int by_addr(const void *a, const void *b)
{
	const xb_function *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return strcmp(x->name, y->name);
}

static void set_name(xb_function *f, const char *name)
{
	size_t at;
	free(f->name);
	free(f->base_name);
	free(f->suffix);
	f->name = xstrdup(name);
	f->base_name = image_base_name(name, &at);
	f->suffix = xstrdup(name + at);
}

/* The image GNU ld would make under p: every stock function at its new address, plus
 * extra empty slots for a test to fill. Sorted by address, as image_load_elf leaves it. */
static void built_from(xb_image *b, const xb_image *s, const xb_placement *p, size_t extra)
{
	memset(b, 0, sizeof *b);
	b->path = xstrdup("built.elf");
	b->funcs = xcalloc(s->nfuncs + extra + 1, sizeof *b->funcs);
	b->nfuncs = s->nfuncs;
	for (size_t i = 0; i < s->nfuncs; i++) {
		xb_function *g = &b->funcs[i];
		*g = s->funcs[i];
		g->name = g->base_name = g->suffix = NULL;
		set_name(g, s->funcs[i].name);
		g->addr = p->new_addr[i];
		g->alias_of = -1;
		g->input = -1;
		g->file = -1;
	}
}

static void built_sort(xb_image *b)
{
	qsort(b->funcs, b->nfuncs, sizeof *b->funcs, by_addr);
}

static xb_function *built_add(xb_image *b, const char *name, uint32_t addr, uint32_t size)
{
	xb_function *g = &b->funcs[b->nfuncs++];
	memset(g, 0, sizeof *g);
	set_name(g, name);
	g->addr = addr;
	g->size = size;
	g->alias_of = g->input = g->file = g->out_section = -1;
	g->same_name = 1;
	g->is_veneer = image_veneer_name(name, NULL); /* as image_load_elf marks them */
	return g;
}

static xb_function *built_find(xb_image *b, const char *name)
{
	for (size_t i = 0; i < b->nfuncs; i++)
		if (strcmp(b->funcs[i].name, name) == 0)
			return &b->funcs[i];
	fail_msg("no function %s", name);
	return NULL;
}

typedef struct fixture {
	xb_image stock, built;
	xb_layout l;
	xb_placement p;
	xb_verify_result r;
} fixture;

/* A synthetic image with a hot, a coloured and two SRAM functions, its placement and the
 * image it predicts. */
static void fixture_init(fixture *x)
{
	memset(x, 0, sizeof *x);
	synth_image(&x->stock, 60, 11);
	layout_init(&x->l);
	strcpy(x->l.strategy, "colour");
	layout_add(&x->l, 20, XB_PLACE_HOT, 0);
	layout_add(&x->l, 5, XB_PLACE_HOT, 0);
	layout_add(&x->l, 33, XB_PLACE_COLOUR, 0x0400);
	layout_add(&x->l, 12, XB_PLACE_SRAM, 0);
	layout_add(&x->l, 40, XB_PLACE_SRAM, 0);
	xb_err err;
	if (layout_place(&x->stock, &tg, &x->l, &x->p, &err) != 0)
		fail_msg("%s", err.msg);
	built_from(&x->built, &x->stock, &x->p, 4);
}

static void fixture_verify(fixture *x)
{
	built_sort(&x->built);
	verify_free(&x->r);
	xb_err err;
	if (verify_image(&x->stock, &tg, &x->l, &x->p, &x->built, &x->r, &err) != 0)
		fail_msg("%s", err.msg);
}

static void fixture_free(fixture *x)
{
	verify_free(&x->r);
	image_free(&x->built);
	placement_free(&x->p);
	layout_free(&x->l);
	synth_image_free(&x->stock);
}

static char *summary(const xb_verify_result *r)
{
	xb_strbuf sb = {0};
	verify_summary(r, &sb);
	return sb.buf;
}

static void test_clean(void **state)
{
	(void)state;
	fixture x;
	fixture_init(&x);
	fixture_verify(&x);
	assert_true(verify_ok(&x.r));
	assert_int_equal(x.r.functions, 60);
	assert_int_equal(x.r.placed, 60);
	assert_int_equal(x.r.hot, 2);
	assert_int_equal(x.r.coloured, 1);
	assert_int_equal(x.r.sram, 2);
	assert_int_equal(x.r.nnotes, 0);
	char *s = summary(&x.r);
	assert_string_equal(s, "60 functions where the plan put them: 2 in the hot block, 1 "
			       "coloured, 2 in SRAM");
	free(s);
	/* the planned offset really is where the colouring put the function */
	assert_int_equal(x.p.new_addr[33] % target_way_bytes(&tg), 0x0400);
	fixture_free(&x);
}

static void test_moved(void **state)
{
	(void)state;
	fixture x;
	fixture_init(&x);
	built_find(&x.built, "f12")->addr += 8;  /* SRAM */
	built_find(&x.built, "f50")->addr += 2;  /* left to the general rules */
	built_find(&x.built, "f33")->addr += 16; /* coloured: another offset in the way */
	fixture_verify(&x);
	assert_false(verify_ok(&x.r));
	assert_int_equal(x.r.nproblems, 3);
	assert_int_equal(x.r.placed, 57);
	const xb_verify_problem *pr = &x.r.problems[0]; /* by stock address: f12 first */
	assert_string_equal(pr->name, "f12");
	assert_int_equal(pr->role, XB_VERIFY_SRAM);
	assert_int_equal(pr->kind, XB_VERIFY_MOVED);
	assert_int_equal(pr->expected, x.p.new_addr[12]);
	assert_int_equal(pr->found, x.p.new_addr[12] + 8);
	assert_string_equal(x.r.problems[1].name, "f33");
	assert_int_equal(x.r.problems[1].kind, XB_VERIFY_WAY);
	assert_int_equal(x.r.problems[1].found_offset, 0x0410);
	assert_string_equal(x.r.problems[2].name, "f50");
	assert_int_equal(x.r.problems[2].role, XB_VERIFY_OTHER);
	char *s = summary(&x.r), want[256];
	snprintf(want, sizeof want,
		 "verification failed: 3 functions are not where the plan put them: f12 (SRAM: "
		 "expected 0x%08x, found 0x%08x), f33 (colour: expected at way offset 0x0400, "
		 "found 0x0410 at 0x%08x), f50 (other: expected 0x%08x, found 0x%08x)",
		 x.p.new_addr[12], x.p.new_addr[12] + 8, x.p.new_addr[33] + 16, x.p.new_addr[50],
		 x.p.new_addr[50] + 2);
	assert_string_equal(s, want);
	free(s);
	fixture_free(&x);
}

static void test_missing_new_resized(void **state)
{
	(void)state;
	fixture x;
	fixture_init(&x);
	set_name(built_find(&x.built, "f7"), "g7"); /* f7 gone, g7 new */
	built_find(&x.built, "f20")->size += 2;     /* hot, another size */
	built_add(&x.built, "extra", 0x10008000, 12);
	fixture_verify(&x);
	assert_int_equal(x.r.nproblems, 4);
	int missing = 0, fresh = 0, resized = 0;
	for (size_t i = 0; i < x.r.nproblems; i++) {
		const xb_verify_problem *pr = &x.r.problems[i];
		if (pr->role == XB_VERIFY_MISSING && strcmp(pr->name, "f7") == 0)
			missing++;
		if (pr->role == XB_VERIFY_NEW && (!strcmp(pr->name, "g7") || !strcmp(pr->name, "extra")))
			fresh++;
		if (pr->kind == XB_VERIFY_RESIZED && !strcmp(pr->name, "f20") &&
		    pr->role == XB_VERIFY_HOT && pr->found_size == pr->expected_size + 2)
			resized++;
	}
	assert_int_equal(missing, 1);
	assert_int_equal(fresh, 2);
	assert_int_equal(resized, 1);
	xb_strbuf t = {0};
	verify_problem_text(&x.r.problems[x.r.nproblems - 1], &t);
	assert_string_equal(t.buf, "extra (new: at 0x10008000, not in the stock image)");
	sb_free(&t);
	fixture_free(&x);
}

/* Two static functions share a name: each is matched to its own, whatever the order. */
static void test_same_name(void **state)
{
	(void)state;
	fixture x;
	fixture_init(&x);
	/* a stock image with two "helper"s of different sizes */
	set_name(&x.stock.funcs[8], "helper");
	set_name(&x.stock.funcs[44], "helper");
	x.stock.funcs[8].same_name = x.stock.funcs[44].same_name = 2;
	assert_int_not_equal(x.stock.funcs[8].size, x.stock.funcs[44].size);
	image_free(&x.built);
	built_from(&x.built, &x.stock, &x.p, 2);
	fixture_verify(&x);
	assert_true(verify_ok(&x.r));

	/* the two exchange places: both are reported */
	uint32_t a = x.p.new_addr[8], b = x.p.new_addr[44];
	for (size_t i = 0; i < x.built.nfuncs; i++) {
		xb_function *g = &x.built.funcs[i];
		if (strcmp(g->name, "helper") == 0)
			g->addr = g->addr == a ? b : a;
	}
	fixture_verify(&x);
	assert_int_equal(x.r.nproblems, 2);
	assert_int_equal(x.r.problems[0].expected, a);
	assert_int_equal(x.r.problems[0].found, b);
	assert_int_equal(x.r.problems[1].expected, b);
	assert_int_equal(x.r.problems[1].found, a);
	fixture_free(&x);
}

/* LTO numbers its private clones per link: foo.lto_priv.0 may come back as .lto_priv.2. */
static void test_lto_renumbered(void **state)
{
	(void)state;
	fixture x;
	fixture_init(&x);
	set_name(&x.stock.funcs[9], "csum_fold.lto_priv.0");
	image_free(&x.built);
	built_from(&x.built, &x.stock, &x.p, 2);
	set_name(built_find(&x.built, "csum_fold.lto_priv.0"), "csum_fold.lto_priv.2");
	fixture_verify(&x);
	assert_true(verify_ok(&x.r));
	/* but not when the size differs: then it is another function */
	built_find(&x.built, "csum_fold.lto_priv.2")->size += 4;
	fixture_verify(&x);
	assert_int_equal(x.r.nproblems, 2);
	assert_int_equal(x.r.problems[0].role, XB_VERIFY_MISSING);
	assert_int_equal(x.r.problems[1].role, XB_VERIFY_NEW);
	fixture_free(&x);
}

/* Veneers the placement did not predict are notes: no function moved for them. */
static void test_veneer_notes(void **state)
{
	(void)state;
	fixture x;
	fixture_init(&x);
	built_add(&x.built, "__f12_veneer", 0x10009000, 16);
	fixture_verify(&x);
	assert_true(verify_ok(&x.r));
	assert_int_equal(x.r.nnotes, 1);
	assert_int_equal(x.r.notes[0].role, XB_VERIFY_VENEER);
	assert_int_equal(x.r.notes[0].kind, XB_VERIFY_UNEXPECTED);
	assert_int_equal(x.r.veneers_built, 1);
	assert_int_equal(x.r.veneers, 0);
	char *s = summary(&x.r);
	assert_non_null(strstr(s, "; 0 of 1 veneers where predicted (0 predicted)"));
	free(s);
	fixture_free(&x);
}

static void test_wrong_inputs(void **state)
{
	(void)state;
	fixture x;
	fixture_init(&x);
	xb_err err;
	xb_placement short_p = x.p;
	short_p.n = 10;
	assert_int_equal(verify_image(&x.stock, &tg, &x.l, &short_p, &x.built, &x.r, &err), -1);
	assert_non_null(strstr(err.msg, "computed for another image"));
	assert_int_equal(verify_image(&x.stock, NULL, &x.l, &x.p, &x.built, &x.r, &err), -1);
	fixture_free(&x);
}

/* ---- real relinks of the demo firmware ---- */

typedef struct real {
	const char *elf;   /* the stock image */
	char *fw_build;    /* its BUILD_DIR (objects) */
	xb_image img;
	xb_calls calls;
	xb_samples samples;
	xb_profile prof;
	xb_plan_input in;
	int ready;
} real;

static real R;

static uint64_t lcg(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return *s >> 33;
}

/* A profile of the demo firmware: samples spread over its functions with a skewed, fixed
 * pseudo-random weight (the planners need heat, not a real run). */
static int real_setup(void)
{
	if (R.ready)
		return R.ready > 0;
	R.ready = -1;
	R.elf = tp_firmware_elf();
	if (!R.elf)
		return 0;
	char *abs = realpath(R.elf, NULL);
	assert_non_null(abs);
	R.fw_build = xstrndup(abs, strlen(abs) - strlen("/echo.elf"));
	free(abs);
	xb_err err;
	xb_image_open io = {.elf = R.elf, .need_map = 1};
	if (image_open(&R.img, &io, &tg, &err) != 0 || calls_load_elf(&R.calls, R.elf, &err) != 0)
		fail_msg("%s", err.msg);
	samples_init(&R.samples);
	uint64_t seed = 42;
	for (size_t i = 0; i < R.img.nfuncs; i++) {
		const xb_function *f = &R.img.funcs[i];
		if (f->alias_of >= 0 || f->size < 4 || f->region != XB_REGION_FLASH)
			continue;
		uint64_t r = lcg(&seed) % 100;
		unsigned n = r < 60 ? 0 : (unsigned)(r - 59) * (r > 90 ? 20 : 1);
		for (unsigned k = 0; k < n; k++)
			samples_push(&R.samples, f->addr + (uint32_t)(lcg(&seed) % f->size & ~1u), 0);
	}
	profile_build(&R.prof, &R.img, &R.samples, tg.cache.line);
	R.in = (xb_plan_input){.img = &R.img, .tg = &tg, .prof = &R.prof, .calls = &R.calls,
			       .sram_budget = 6144, .pad_budget = 16384};
	R.ready = 1;
	return 1;
}

static void real_teardown(void)
{
	if (R.ready <= 0)
		return;
	profile_free(&R.prof);
	samples_free(&R.samples);
	calls_free(&R.calls);
	image_free(&R.img);
	free(R.fw_build);
	memset(&R, 0, sizeof R);
}

static uint64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Relinks the demo firmware with the fragments in dir through the make builder, as the
 * workbench will: a build job pumped from a poll loop. Returns the ELF (new string). */
static char *relink(const char *dir, const char *name)
{
	xb_builder b = {.ops = &builder_make};
	xb_build_request rq = {.layout_dir = dir, .build_dir = R.fw_build, .name = name};
	char *elf = xasprintf("%s/%s.elf", dir, name);
	rq.elf = elf;
	xb_err err;
	xb_build_job *j = build_start(&b, &rq, NULL, &err);
	if (!j)
		fail_msg("%s", err.msg);
	uint64_t t0 = now_ms();
	while (build_pump(j)) {
		struct pollfd f = {.fd = build_pollfd(j), .events = POLLIN};
		poll(&f, f.fd >= 0, 200);
		if (now_ms() - t0 > 300000)
			fail_msg("the relink of %s took more than 5 minutes", name);
	}
	const xb_build_result *res = build_result(j);
	if (res->state != XB_BUILD_OK) {
		for (size_t i = 0; i < res->nlines; i++)
			fprintf(stderr, "# %s\n", res->lines[i]);
		fail_msg("%s", res->message);
	}
	build_free(j);
	return elf;
}

/* Whether a problem's text holds what. */
static int some_problem_says(const xb_verify_result *r, const char *what)
{
	int found = 0;
	for (size_t i = 0; i < r->nproblems && !found; i++) {
		xb_strbuf t = {0};
		verify_problem_text(&r->problems[i], &t);
		found = strstr(t.buf, what) != NULL;
		sb_free(&t);
	}
	return found;
}

/* Verifies built against the layout in dir; the result in r. */
static void verify_dir(const char *dir, const char *built_elf, xb_verify_result *r)
{
	xb_err err;
	xb_layout l;
	layout_init(&l);
	char *lpath = xasprintf("%s/layout.txt", dir);
	if (layout_read_file(&l, &R.img, lpath, &err) != 0)
		fail_msg("%s", err.msg);
	free(lpath);
	xb_image_open io = {.elf = built_elf};
	xb_image built;
	if (image_open(&built, &io, &tg, &err) != 0)
		fail_msg("%s", err.msg);
	assert_true(built.has_map); /* the map beside it */
	image_free(&built);
	if (verify_relink(&R.in, &l, &io, r, &err) != 0)
		fail_msg("%s", err.msg);
	layout_free(&l);
}

static size_t count_place(const xb_layout *l, enum xb_place place)
{
	size_t n = 0;
	for (size_t i = 0; i < l->n; i++)
		n += l->e[i].place == place;
	return n;
}

/* Plans with strategy, writes the layout folder, relinks, verifies. */
static void plan_relink_verify(const char *strategy, char **dir_out, char **elf_out)
{
	const xb_planner *pl = plan_find(strategy);
	assert_non_null(pl);
	xb_layout l;
	layout_init(&l);
	xb_err err;
	if (pl->plan(&R.in, &l, &err) != 0)
		fail_msg("%s", err.msg);
	char *dir = xasprintf("%s/%s", test_dir, strategy);
	if (plan_write_layout_dir(&R.in, &l, dir, &err) != 0)
		fail_msg("%s", err.msg);
	char *elf = relink(dir, strategy);
	xb_verify_result r;
	verify_dir(dir, elf, &r);
	if (!verify_ok(&r)) {
		char *s = summary(&r);
		fail_msg("%s: %s", strategy, s);
	}
	assert_int_equal(r.placed, r.functions);
	assert_int_equal(r.hot, count_place(&l, XB_PLACE_HOT));
	assert_int_equal(r.coloured, count_place(&l, XB_PLACE_COLOUR));
	assert_int_equal(r.sram, count_place(&l, XB_PLACE_SRAM));
	if (strcmp(strategy, "sram") == 0) {
		assert_true(r.sram > 0);
		assert_true(r.veneers_predicted > 0);
		assert_true(r.veneers_built > 0);
	} else {
		assert_true(r.hot + r.coloured > 0);
	}
	verify_free(&r);
	layout_free(&l);
	*dir_out = dir;
	*elf_out = elf;
}

static void test_real_relinks(void **state)
{
	(void)state;
	if (!real_setup())
		skip();
	char *dir[3], *elf[3];
	const char *strategies[] = {"hot", "colour", "sram"};
	for (int i = 0; i < 3; i++)
		plan_relink_verify(strategies[i], &dir[i], &elf[i]);

	/* another layout's image: the colour relink is not the SRAM plan */
	xb_verify_result r;
	verify_dir(dir[2], elf[1], &r);
	assert_false(verify_ok(&r));
	int sram_named = 0;
	for (size_t i = 0; i < r.nproblems; i++)
		sram_named += r.problems[i].role == XB_VERIFY_SRAM;
	assert_true(sram_named > 0);
	char *s = summary(&r);
	assert_non_null(strstr(s, "verification failed: "));
	free(s);
	assert_true(some_problem_says(&r, "(SRAM: expected 0x2"));
	verify_free(&r);

	/* the hot layout's file edited after its relink: its first two entries swapped */
	xb_layout l;
	layout_init(&l);
	xb_err err;
	char *lpath = xasprintf("%s/layout.txt", dir[0]);
	assert_int_equal(layout_read_file(&l, &R.img, lpath, &err), 0);
	assert_true(l.n >= 2);
	xb_layout_entry e = l.e[0];
	l.e[0] = l.e[1];
	l.e[1] = e;
	assert_int_equal(layout_write_file(&l, &R.img, lpath, &err), 0);
	verify_dir(dir[0], elf[0], &r);
	assert_false(verify_ok(&r));
	char *first = image_qualified_name(&R.img, &R.img.funcs[l.e[0].func]);
	char *second = image_qualified_name(&R.img, &R.img.funcs[l.e[1].func]);
	int named = 0;
	for (size_t i = 0; i < r.nproblems; i++)
		named += r.problems[i].role == XB_VERIFY_HOT &&
			 (!strcmp(r.problems[i].name, first) || !strcmp(r.problems[i].name, second));
	assert_int_equal(named, 2);
	assert_true(some_problem_says(&r, "(hot: expected 0x1"));
	free(first);
	free(second);
	free(lpath);
	verify_free(&r);
	layout_free(&l);

	/* the stock image is not any layout's */
	verify_dir(dir[1], R.elf, &r);
	assert_false(verify_ok(&r));
	verify_free(&r);
	for (int i = 0; i < 3; i++) {
		free(dir[i]);
		free(elf[i]);
	}
}

static int setup(void **state)
{
	xb_err err;
	if (target_load_file(&tg, "targets/rp2040.target", &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	return testdir_setup(state);
}

static int teardown(void **state)
{
	real_teardown();
	return testdir_teardown(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clean),
		cmocka_unit_test(test_moved),
		cmocka_unit_test(test_missing_new_resized),
		cmocka_unit_test(test_same_name),
		cmocka_unit_test(test_lto_renumbered),
		cmocka_unit_test(test_veneer_notes),
		cmocka_unit_test(test_wrong_inputs),
		cmocka_unit_test(test_real_relinks),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
