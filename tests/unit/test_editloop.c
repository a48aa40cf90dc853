/* test_editloop: the study's loop on the virtual bench in virtual time with the demo echo
 * firmware: the planning profile, a colouring relinked with the firmware's Makefile,
 * verified, flashed in place, measured and recorded beside the stock image's run (within
 * 5 % of its prediction, below stock); a build that fails and a relink that is not what
 * the plan said keep the last good image on the board; going back flashes it again. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/history.h"
#include "../../session/editloop.h"
#include "../common/testdir.h"
#include "test_pico_common.h"

static xb_target target;
static xb_session *s;
static xb_editloop *loop;
static xb_builder make_builder = {.ops = &builder_make};
static char *history_path;

static void pump_loop(void)
{
	for (int i = 0; i < 2000000 && editloop_state(loop) == XB_LOOP_RUNNING; i++) {
		assert_int_equal(session_pump(s), 0);
		editloop_pump(loop);
		struct pollfd fds[8];
		int n = editloop_pollfds(loop, fds, 8);
		if (n && editloop_step(loop) == XB_STEP_RELINK)
			poll(fds, (nfds_t)n, 50); /* the build runs in real time */
	}
	assert_int_not_equal(editloop_state(loop), XB_LOOP_RUNNING);
}

static int setup(void **state)
{
	if (testdir_setup(state))
		return -1;
	tp_target(&target);
	xb_session_options o;
	session_options_init(&o);
	o.tg = &target;
	o.elf = tp_firmware_elf();
	o.virt.virtual_time = 1;
	o.ping_rate = o.udp_rate = 0;
	o.idle_seconds = 0;
	xb_report rep;
	s = session_open(&o, &rep);
	if (!s || session_wait_ready(s, &rep) != 0) {
		fprintf(stderr, "session: %s\n", rep.msg);
		return -1;
	}
	history_path = xasprintf("%s/runs.db", test_dir);
	xb_editloop_config c = {.builder = &make_builder, .history = history_path,
				.measure = {.pings = 300, .interval_ms = 20, .ping_size = 56,
					    .footprint_ms = 20},
				.profile = {.pings = 300, .interval_ms = 20, .ping_size = 56}};
	char *work = xasprintf("%s/work", test_dir);
	c.work_dir = work;
	xb_err err;
	loop = editloop_new(s, &c, &err);
	free(work);
	if (!loop) {
		fprintf(stderr, "editloop_new: %s\n", err.msg);
		return -1;
	}
	return 0;
}

static int teardown(void **state)
{
	editloop_free(loop);
	session_close(s);
	free(history_path);
	return testdir_teardown(state);
}

typedef struct run_list {
	int n;
	int64_t ids[8], parents[8];
	double misses[8];
	size_t nfuncs[8];
} run_list;

static int list_run(void *ctx, const xb_run *r)
{
	run_list *l = ctx;
	if (l->n < 8) {
		l->ids[l->n] = r->id;
		l->parents[l->n] = r->parent_id;
		l->misses[l->n] = r->misses_per_echo;
		l->n++;
	}
	return 0;
}

static void test_profile_then_colour(void **state)
{
	(void)state;
	xb_report rep;
	/* no layout to plan before the planning profile */
	assert_null(editloop_plan_input(loop)->prof);
	assert_int_equal(editloop_start(loop, NULL, NULL, XB_LOOP_PROFILE, &rep), 0);
	pump_loop();
	assert_int_equal(editloop_state(loop), XB_LOOP_DONE);
	xb_plan_input *in = editloop_plan_input(loop);
	assert_non_null(in->prof);
	assert_non_null(in->trace);
	assert_int_equal(editloop_inputs_version(loop), 1);

	xb_layout l;
	layout_init(&l);
	in->pad_budget = 32768;
	xb_err err;
	assert_int_equal(plan_colour.plan(in, &l, &err), 0);
	assert_int_equal(editloop_start(loop, &l, "colour", XB_LOOP_ALL, &rep), 0);
	assert_int_equal(editloop_start(loop, &l, "again", XB_LOOP_ALL, &rep), -1);
	assert_int_equal(rep.status, XB_STATUS_BUSY);
	pump_loop();
	const xb_report *res = editloop_result(loop);
	print_message("# %s\n", res->msg);
	assert_int_equal(editloop_state(loop), XB_LOOP_DONE);
	const xb_loop_image *good[8];
	assert_int_equal(editloop_good(loop, good), 2);
	const xb_loop_image *stock = good[0], *col = good[1];
	assert_ptr_equal(editloop_flashed(loop), col);
	assert_string_equal(session_image_path(s), col->elf);
	print_message("# stock %.1f misses per echo (predicted %.1f), colour %.1f (predicted %.1f)\n",
		      stock->m.misses_per_echo, stock->pred.misses_per_echo, col->m.misses_per_echo,
		      col->pred.misses_per_echo);
	assert_true(col->m.misses_per_echo < stock->m.misses_per_echo);
	assert_true(fabs(col->m.misses_per_echo - col->pred.misses_per_echo) / col->m.misses_per_echo <
		    0.05);
	assert_true(fabs(stock->m.misses_per_echo - stock->pred.misses_per_echo) /
			    stock->m.misses_per_echo < 0.05);
	/* both runs are in the history, the colouring's with the stock run as its parent */
	assert_true(stock->run > 0 && col->run > stock->run);
	xb_history *h;
	assert_int_equal(history_open(&h, history_path, &err), 0);
	run_list rl = {0};
	assert_int_equal(history_list(h, NULL, list_run, &rl, &err), 0);
	history_close(h);
	assert_int_equal(rl.n, 2);
	assert_int_equal(rl.parents[1], rl.ids[0]);
	assert_true(rl.misses[1] == col->m.misses_per_echo);
	layout_free(&l);
}

static void test_failures_keep_the_last_good(void **state)
{
	(void)state;
	xb_report rep;
	const xb_loop_image *before = editloop_flashed(loop);
	char *elf_before = xstrdup(session_image_path(s));
	xb_plan_input *in = editloop_plan_input(loop);
	xb_layout l;
	layout_init(&l);
	xb_err err;
	in->sram_budget = 4096;
	assert_int_equal(plan_sram.plan(in, &l, &err), 0);

	/* a build command that fails */
	xb_builder failing = {.ops = &builder_command,
			      .cfg = {.command = "sh -c 'echo building; echo \"x.c:1: error: no\"; exit 1'"}};
	editloop_set_builder(loop, &failing);
	assert_int_equal(editloop_start(loop, &l, "fails", XB_LOOP_ALL, &rep), 0);
	pump_loop();
	assert_int_equal(editloop_state(loop), XB_LOOP_FAILED);
	assert_int_equal(editloop_result(loop)->status, XB_STATUS_BUILD_FAILED);
	print_message("# %s\n", editloop_result(loop)->msg);
	assert_ptr_equal(editloop_flashed(loop), before);
	assert_string_equal(session_image_path(s), elf_before);

	/* a relink that gives another image than the plan's: the stock one */
	char *cmd = xasprintf("cp %s {elf}", editloop_good_image(loop, 0)->elf);
	xb_builder wrong = {.ops = &builder_command, .cfg = {.command = cmd}};
	editloop_set_builder(loop, &wrong);
	assert_int_equal(editloop_start(loop, &l, "wrong", XB_LOOP_ALL, &rep), 0);
	pump_loop();
	assert_int_equal(editloop_state(loop), XB_LOOP_FAILED);
	assert_int_equal(editloop_result(loop)->status, XB_STATUS_VERIFY_FAILED);
	print_message("# %s\n", editloop_result(loop)->msg);
	assert_ptr_equal(editloop_flashed(loop), before);
	assert_string_equal(session_image_path(s), elf_before);
	assert_int_equal(session_phase(s), XB_PHASE_RUNNING);
	editloop_set_builder(loop, &make_builder);
	free(cmd);
	free(elf_before);
	layout_free(&l);
}

static void test_revert(void **state)
{
	(void)state;
	xb_report rep;
	assert_int_equal(editloop_good(loop, NULL), 2);
	assert_int_equal(editloop_revert(loop, &rep), 0);
	pump_loop();
	assert_int_equal(editloop_state(loop), XB_LOOP_DONE);
	assert_int_equal(editloop_good(loop, NULL), 1);
	assert_string_equal(session_image_path(s), tp_firmware_elf());
	assert_int_equal(session_phase(s), XB_PHASE_RUNNING);
	assert_int_equal(editloop_revert(loop, &rep), -1); /* nothing before the base */
}

int main(void)
{
	if (!tp_firmware_elf()) {
		printf("ok 1 # SKIP no arm-none-eabi-gcc: the echo firmware cannot be built\n");
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_profile_then_colour),
		cmocka_unit_test(test_failures_keep_the_last_good),
		cmocka_unit_test(test_revert),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
