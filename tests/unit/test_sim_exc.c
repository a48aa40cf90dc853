/* test_sim_exc: exceptions on the virtual Pico with a gcc-built program (tests/data/sim/exc.c):
 * nested interrupts by priority, SVC, HardFaults (unaligned, strict-mode bad access,
 * execute-never, bad EXC_RETURN), lockup, WFI woken by an interrupt at a chosen virtual
 * time, NMI. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_sim_common.h"

static xb_board *start(unsigned mode, sim_log *log)
{
	xb_board *b = sim_board(log);
	uint32_t in = mode;
	sim_load(b, "exc", &in, 1);
	return b;
}

static void expect_log(const xb_board *b, const uint32_t *want, unsigned n)
{
	assert_int_equal(sim_mailbox(b, 1), n);
	for (unsigned i = 0; i < n; i++) {
		uint32_t got = sim_mailbox(b, 2 + i);
		if (got != want[i])
			fail_msg("log[%u] = 0x%x, expected 0x%x", i, got, want[i]);
	}
}

static void test_nested_priorities(void **state)
{
	(void)state;
	xb_board *b = start(1, NULL);
	assert_int_equal(board_run(b, 1000000), XB_RUN_HALTED);
	/* IRQ0 (0x80) pends IRQ2 (same priority: waits) and IRQ1 (0x40: preempts at once,
	 * IPSR 17); IRQ2 runs when IRQ0 ends. Then IRQ3 and IRQ4, pended together at the
	 * same priority: the lower number first. */
	static const uint32_t want[] = {0x10, 0x11, 0x20, 17, 0x12, 0x30, 0x43, 0x44};
	expect_log(b, want, 8);
	assert_int_equal(sim_mailbox(b, 0), 0xD0);
	xb_board_counters k;
	board_counters(b, &k);
	assert_int_equal(k.exceptions, 5);
	assert_int_equal(board_faults(b, NULL), 0);
	board_free(b);
}

static void test_svc(void **state)
{
	(void)state;
	xb_board *b = start(2, NULL);
	assert_int_equal(board_run(b, 1000000), XB_RUN_HALTED);
	static const uint32_t want[] = {0x5C00 | 21, 42};
	expect_log(b, want, 2);
	board_free(b);
}

static void test_hardfault_unaligned(void **state)
{
	(void)state;
	sim_log log;
	xb_board *b = start(3, &log);
	assert_int_equal(board_run(b, 1000000), XB_RUN_HALTED);
	uint32_t insn = sim_symbol("exc", "unaligned_insn");
	assert_int_not_equal(insn, 0);
	/* The handler saw the faulting instruction as the stacked PC and skipped it. */
	static const uint32_t want_head[] = {0xF003};
	expect_log(b, (uint32_t[]){want_head[0], insn, 0x3E}, 3);
	xb_fault f;
	assert_int_equal(board_faults(b, &f), 1);
	assert_int_equal(f.kind, XB_FAULT_UNALIGNED);
	assert_int_equal(f.addr, 0x20000001);
	assert_int_equal(f.pc, insn);
	assert_int_equal(f.lockup, 0);
	assert_non_null(strstr(log.last, "unaligned"));
	board_free(b);
}

static void test_bad_access_strict(void **state)
{
	(void)state;
	uint32_t insn = sim_symbol("exc", "unmapped_insn");
	/* Not strict: reported once, reads as zero, no fault. */
	sim_log log;
	xb_board *b = start(4, &log);
	assert_int_equal(board_run(b, 1000000), XB_RUN_HALTED);
	expect_log(b, (uint32_t[]){0x4000}, 1);
	assert_int_equal(board_faults(b, NULL), 0);
	assert_int_equal(log.lines, 1);
	char want[128];
	snprintf(want, sizeof want, "unmapped read of 4 bytes at 0x30000000 (pc 0x%08x)", insn);
	assert_string_equal(log.last, want);
	board_free(b);

	/* Strict: a HardFault at the load. */
	b = start(4, &log);
	board_set_strict(b, 1);
	assert_int_equal(board_run(b, 1000000), XB_RUN_HALTED);
	xb_fault f;
	assert_int_equal(board_faults(b, &f), 1);
	assert_int_equal(f.kind, XB_FAULT_BUS_READ);
	assert_int_equal(f.addr, 0x30000000);
	assert_int_equal(f.pc, insn);
	assert_int_equal(sim_mailbox(b, 2), 0xF004);
	assert_int_equal(sim_mailbox(b, 3), insn);
	board_free(b);
}

static void test_execute_never(void **state)
{
	(void)state;
	xb_board *b = start(5, NULL);
	assert_int_equal(board_run(b, 1000000), XB_RUN_HALTED);
	/* The handler saw 0x40000000 as the return address and resumed at after_xn. */
	expect_log(b, (uint32_t[]){0xF005, 0x40000000, 0xAF}, 3);
	xb_fault f;
	assert_int_equal(board_faults(b, &f), 1);
	assert_int_equal(f.kind, XB_FAULT_XN);
	assert_int_equal(f.pc, 0x40000000);
	board_free(b);
}

static void test_bad_exc_return(void **state)
{
	(void)state;
	xb_board *b = start(6, NULL);
	assert_int_equal(board_run(b, 1000000), XB_RUN_HALTED);
	xb_fault f;
	assert_int_equal(board_faults(b, &f), 1);
	assert_int_equal(f.kind, XB_FAULT_EXC_RETURN);
	assert_int_equal(f.addr, 0xFFFFFFF5);
	assert_int_equal(f.exception, 11); /* in the SVC handler */
	/* Halted at the BKPT in the HardFault handler, with HardFault active. */
	assert_int_equal(board_reg(b, XB_REG_XPSR) & 0x3F, 3);
	assert_int_equal(sim_mailbox(b, 3), 0xF006);
	board_free(b);
}

static void test_lockup(void **state)
{
	(void)state;
	sim_log log;
	xb_board *b = start(7, &log);
	assert_int_equal(board_run(b, 1000000), XB_RUN_LOCKUP);
	assert_true(board_locked_up(b));
	xb_fault f;
	assert_int_equal(board_faults(b, &f), 2);
	assert_int_equal(f.kind, XB_FAULT_UNALIGNED);
	assert_int_equal(f.lockup, 1);
	assert_int_equal(f.exception, 3);
	assert_int_equal(f.addr, 0x20000002);
	assert_non_null(strstr(log.last, "lockup"));
	assert_int_equal(board_pcsr(b), 0xFFFFFFFFu);
	uint32_t dhcsr;
	assert_int_equal(board_debug_read(b, SIM_DHCSR, 4, &dhcsr), 0);
	assert_true(dhcsr & (1u << 19)); /* S_LOCKUP */
	/* A locked-up board lets time pass and keeps answering. */
	uint64_t t = board_cycles(b);
	assert_int_equal(board_run(b, 5000), XB_RUN_LOCKUP);
	assert_int_equal(board_cycles(b), t + 5000);
	/* Reset brings it back. */
	board_reset(b);
	assert_false(board_locked_up(b));
	board_free(b);
}

typedef struct irq_event {
	xb_board *b;
	uint64_t at;
} irq_event;

static void raise_irq5(xb_board *b, void *ctx)
{
	irq_event *e = ctx;
	e->at = board_cycles(b);
	board_irq_pend(b, 5);
}

static void test_wfi_wakeup(void **state)
{
	(void)state;
	xb_board *b = start(8, NULL);
	irq_event e = {b, 0};
	uint64_t when = board_cycles(b) + 2000000; /* 16 ms at 125 MHz */
	board_schedule(b, when, raise_irq5, &e);
	/* Run until the core sleeps, then check that it sleeps without executing. */
	assert_int_equal(board_run(b, 100000), XB_RUN_BUDGET);
	assert_true(board_sleeping(b));
	xb_board_counters k0, k1;
	board_counters(b, &k0);
	assert_int_equal(board_run(b, 5000000), XB_RUN_HALTED);
	board_counters(b, &k1);
	assert_int_equal(e.at, when); /* virtual time jumped straight to the event */
	expect_log(b, (uint32_t[]){0x55, 0x80}, 2);
	assert_true(k1.sleep_cycles - k0.sleep_cycles >= 2000000 - 100000);
	assert_true(k1.instructions - k0.instructions < 200);
	board_free(b);
}

static void raise_nmi(xb_board *b, void *ctx)
{
	(void)ctx;
	board_nmi(b);
}

static void test_nmi(void **state)
{
	(void)state;
	xb_board *b = start(9, NULL);
	board_schedule(b, board_cycles(b) + 10000, raise_nmi, NULL);
	assert_int_equal(board_run(b, 1000000), XB_RUN_HALTED);
	expect_log(b, (uint32_t[]){0x66, 0x90}, 2);
	board_free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nested_priorities), cmocka_unit_test(test_svc),
		cmocka_unit_test(test_hardfault_unaligned), cmocka_unit_test(test_bad_access_strict),
		cmocka_unit_test(test_execute_never),      cmocka_unit_test(test_bad_exc_return),
		cmocka_unit_test(test_lockup),             cmocka_unit_test(test_wfi_wakeup),
		cmocka_unit_test(test_nmi),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
