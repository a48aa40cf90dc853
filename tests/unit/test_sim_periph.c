/* test_sim_periph: the virtual Pico's peripherals through bus_read/bus_write on a pico: the
 * atomic aliases (write-1-to-clear under SET/CLR too), RESETS, SYSINFO, CLOCKS, XOSC, PLLs,
 * the watchdog and its tick, TIMER latching and alarms at exact virtual times with their
 * IRQ lines, the SIO (divider, spinlocks, FIFO, GPIO), IO_BANK0/PADS, UART0, and the
 * bootrom's table lookup and flash functions called through the CPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_pico_common.h"

#define XOR 0x1000u
#define SET 0x2000u
#define CLR 0x3000u

#define RESETS 0x4000C000u
#define RESETS_DONE 0x4000C008u
#define CLOCKS 0x40008000u
#define XOSC 0x40024000u
#define PLL_SYS 0x40028000u
#define IO_BANK0 0x40014000u
#define PADS 0x4001C000u
#define UART0 0x40034000u
#define TIMER 0x40054000u
#define WATCHDOG 0x40058000u
#define SIO 0xD0000000u
#define NVIC_ISPR 0xE000E200u
#define NVIC_ICPR 0xE000E280u

#define T_TIMEHW (TIMER + 0x00)
#define T_TIMELW (TIMER + 0x04)
#define T_TIMEHR (TIMER + 0x08)
#define T_TIMELR (TIMER + 0x0C)
#define T_ALARM(n) (TIMER + 0x10 + 4 * (n))
#define T_ARMED (TIMER + 0x20)
#define T_RAWH (TIMER + 0x24)
#define T_RAWL (TIMER + 0x28)
#define T_PAUSE (TIMER + 0x30)
#define T_INTR (TIMER + 0x34)
#define T_INTE (TIMER + 0x38)
#define T_INTF (TIMER + 0x3C)
#define T_INTS (TIMER + 0x40)
#define WD_TICK (WATCHDOG + 0x2C)

static void run_cycles(xb_pico *p, uint64_t n)
{
	board_run(pico_board(p), n);
}

static uint64_t now(xb_pico *p)
{
	return board_cycles(pico_board(p));
}

/* The timer out of reset with the 1 us tick started now (12 cycles of the 12 MHz clk_ref:
 * 125 CPU cycles per tick at 125 MHz). */
static void start_timer(xb_pico *p)
{
	tp_write(p, RESETS + CLR, 1u << 21);
	tp_write(p, WD_TICK, 0x20C);
}

/* ---- Bus rules ---- */

static void test_alias_plain_registers(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	uint32_t div = CLOCKS + 0x40; /* CLK_SYS_DIV: all bits writable */
	tp_write(p, div, 0x100);
	tp_write(p, div + XOR, 0x300);
	assert_int_equal(tp_read(p, div), 0x200);
	tp_write(p, div + SET, 0x1);
	assert_int_equal(tp_read(p, div), 0x201);
	tp_write(p, div + CLR, 0x200);
	assert_int_equal(tp_read(p, div), 0x001);
	assert_int_equal(tp_read(p, div + SET), 0x001); /* alias reads read the register */
	/* hw_write_masked: XOR alias with (old ^ value) & mask; here IE off, OD on. */
	uint32_t pad0 = PADS + 0x04, old = tp_read(p, pad0);
	assert_int_equal(old, 0x56);
	tp_write(p, pad0 + XOR, (old ^ 0x80) & 0xC0);
	assert_int_equal(tp_read(p, pad0), 0x96);
	/* Reserved bits stay 0. */
	tp_write(p, CLOCKS + 0x30, 0xFFFFFFFF);
	assert_int_equal(tp_read(p, CLOCKS + 0x30), 0x63);
	/* A byte write reaches the register replicated (datasheet 2.1.4). */
	bus_write(board_bus(pico_board(p)), UART0 + 0x24, 1, 0x43);
	assert_int_equal(tp_read(p, UART0 + 0x24), 0x4343);
	pico_free(p);
}

static void test_alias_write_one_to_clear(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_write(p, RESETS + CLR, 1u << 21);
	for (unsigned n = 0; n < 4; n++)
		tp_write(p, T_ALARM(n), 0); /* the count is 0: each fires at once */
	assert_int_equal(tp_read(p, T_INTR), 0xF);
	assert_int_equal(tp_read(p, T_ARMED), 0);
	/* The raw written value clears, whatever the alias: never old & ~value first. */
	tp_write(p, T_INTR + SET, 0x1);
	assert_int_equal(tp_read(p, T_INTR), 0xE);
	tp_write(p, T_INTR + CLR, 0x2);
	assert_int_equal(tp_read(p, T_INTR), 0xC);
	tp_write(p, T_INTR + XOR, 0x4);
	assert_int_equal(tp_read(p, T_INTR), 0x8);
	tp_write(p, T_INTR, 0x8);
	assert_int_equal(tp_read(p, T_INTR), 0);
	/* XOSC STATUS.BADWRITE is WC too; a bad ENABLE code sets it. */
	tp_write(p, XOSC, 0x123AA0);
	assert_true(tp_read(p, XOSC + 4) & 0x01000000u);
	tp_write(p, XOSC + 4 + CLR, 0x01000000u);
	assert_false(tp_read(p, XOSC + 4) & 0x01000000u);
	pico_free(p);
}

static void test_holes_and_strict(void **state)
{
	(void)state;
	tp_log log;
	xb_pico *p = tp_pico(&log, 0);
	uint32_t v = 1;
	assert_int_equal(bus_read(board_bus(pico_board(p)), SIO + 0x0C, 4, &v), 0); /* a gap */
	assert_int_equal(v, 0);
	assert_int_equal(log.lines, 1);
	assert_non_null(strstr(log.last, "0xd000000c"));
	pico_free(p);
	p = tp_pico(&log, 1);
	assert_int_equal(bus_read(board_bus(pico_board(p)), CLOCKS + 0x4C, 4, &v), -1);
	assert_int_equal(bus_write(board_bus(pico_board(p)), TIMER + 0x44, 4, 1), -1);
	assert_int_equal(bus_read(board_bus(pico_board(p)), TIMER + 0x40, 4, &v), 0);
	pico_free(p);
}

/* ---- RESETS, SYSINFO, CLOCKS, XOSC, PLL ---- */

static void test_resets(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	assert_int_equal(tp_read(p, RESETS), 0x01FFFFFF);
	assert_int_equal(tp_read(p, RESETS_DONE), 0);
	tp_write(p, RESETS + CLR, (1u << 21) | (1u << 22));
	assert_int_equal(tp_read(p, RESETS), 0x019FFFFF);
	assert_int_equal(tp_read(p, RESETS_DONE), 0x00600000);
	tp_write(p, RESETS_DONE, 0xFFFFFFFF); /* read-only */
	assert_int_equal(tp_read(p, RESETS_DONE), 0x00600000);
	tp_write(p, RESETS, 0xFFFFFFFF);
	assert_int_equal(tp_read(p, RESETS), 0x01FFFFFF);
	tp_write(p, RESETS + 4, 0x3);
	assert_int_equal(tp_read(p, RESETS + 4), 0x3);
	/* Entering reset puts a block back to its reset values. */
	tp_write(p, RESETS + CLR, 1u << 22);
	tp_write(p, UART0 + 0x24, 67);
	tp_write(p, RESETS + SET, 1u << 22);
	assert_int_equal(tp_read(p, UART0 + 0x24), 0);
	assert_int_equal(tp_read(p, UART0 + 0x30), 0x300);
	/* A system reset: everything held again. */
	tp_write(p, RESETS + CLR, 0xFF);
	board_reset(pico_board(p));
	assert_int_equal(tp_read(p, RESETS), 0x01FFFFFF);
	assert_int_equal(tp_read(p, RESETS + 4), 0);
	pico_free(p);
}

static void test_sysinfo(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	assert_int_equal(tp_read(p, 0x40000000), 0x20002927); /* B2 */
	assert_int_equal(tp_read(p, 0x40000004), 0x2);        /* ASIC */
	assert_int_equal(tp_read(p, 0x40000040), 0);
	pico_free(p);
}

static void test_clocks_selected(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	uint32_t ref_ctrl = CLOCKS + 0x30, ref_sel = CLOCKS + 0x38;
	uint32_t sys_ctrl = CLOCKS + 0x3C, sys_sel = CLOCKS + 0x44;
	assert_int_equal(tp_read(p, ref_sel), 1);
	assert_int_equal(tp_read(p, sys_sel), 1);
	assert_int_equal(tp_read(p, CLOCKS + 0x34), 0x100); /* DIV resets to / 1 */
	/* The SDK's masked write of SRC = XOSC (2), then its poll. */
	uint32_t old = tp_read(p, ref_ctrl);
	tp_write(p, ref_ctrl + XOR, (old ^ 2) & 3);
	assert_int_equal(tp_read(p, ref_sel), 1u << 2);
	tp_write(p, ref_ctrl + CLR, 3);
	tp_write(p, ref_ctrl + SET, 1);
	assert_int_equal(tp_read(p, ref_sel), 1u << 1);
	tp_write(p, sys_ctrl + SET, 1);
	assert_int_equal(tp_read(p, sys_sel), 2);
	tp_write(p, sys_ctrl + CLR, 1);
	assert_int_equal(tp_read(p, sys_sel), 1);
	/* Other SELECTED registers read 1 whatever the CTRL. */
	tp_write(p, CLOCKS + 0x48, 0xFFF);
	assert_int_equal(tp_read(p, CLOCKS + 0x50), 1);
	assert_int_equal(tp_read(p, CLOCKS + 0x5C), 1);
	tp_write(p, CLOCKS + 0x50, 0); /* read-only */
	assert_int_equal(tp_read(p, CLOCKS + 0x50), 1);
	assert_int_equal(tp_read(p, CLOCKS + 0x78), 0xFF); /* SYS_RESUS_CTRL reset */
	pico_free(p);
}

static void test_xosc(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_idle(p);
	assert_int_equal(tp_read(p, XOSC), 0x00D1EAA0);
	assert_int_equal(tp_read(p, XOSC + 4), 0);
	assert_int_equal(tp_read(p, XOSC + 0x0C), 0xC4);
	/* The SDK's sequence. Its first write leaves ENABLE 0, an invalid code: BADWRITE, and
	 * (datasheet) the oscillator runs. */
	tp_write(p, XOSC, 0xAA0);
	assert_int_equal(tp_read(p, XOSC + 4), 0x81001000u); /* STABLE, BADWRITE, ENABLED */
	tp_write(p, XOSC + 0x0C, 282);
	tp_write(p, XOSC + SET, 0xFAB000);
	tp_write(p, XOSC + 4, 0x01000000u);
	assert_int_equal(tp_read(p, XOSC + 4), 0x80001000u); /* STABLE, ENABLED */
	/* COUNT runs down at 12 MHz: 120 counts in 1250 CPU cycles. */
	tp_write(p, XOSC + 0x1C, 120);
	run_cycles(p, 625);
	assert_int_equal(tp_read(p, XOSC + 0x1C), 60);
	run_cycles(p, 1000);
	assert_int_equal(tp_read(p, XOSC + 0x1C), 0);
	tp_write(p, XOSC + XOR, 0xFAB000 ^ 0xD1E000); /* back to the disable code */
	assert_int_equal(tp_read(p, XOSC) >> 12, 0xD1E);
	assert_int_equal(tp_read(p, XOSC + 4), 0);
	pico_free(p);
}

static void test_pll_lock(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	assert_int_equal(tp_read(p, PLL_SYS), 0x1);
	assert_int_equal(tp_read(p, PLL_SYS + 4), 0x2D);
	assert_int_equal(tp_read(p, PLL_SYS + 0xC), 0x77000);
	tp_write(p, PLL_SYS + 8, 125);
	assert_false(tp_read(p, PLL_SYS) & 0x80000000u); /* still powered down */
	tp_write(p, PLL_SYS + 4 + CLR, 0x21);
	assert_int_equal(tp_read(p, PLL_SYS), 0x80000001u);
	tp_write(p, PLL_SYS + 8, 10); /* FBDIV out of range */
	assert_false(tp_read(p, PLL_SYS) & 0x80000000u);
	tp_write(p, PLL_SYS + 8, 100);
	tp_write(p, PLL_SYS + 0xC, 0x62000);
	tp_write(p, PLL_SYS + 4 + CLR, 0x08);
	assert_int_equal(tp_read(p, PLL_SYS + 4), 0x04);
	assert_true(tp_read(p, PLL_SYS) & 0x80000000u);
	/* PLL_USB is its own block. */
	assert_false(tp_read(p, 0x4002C000) & 0x80000000u);
	/* RESETS bit 12 puts PLL_SYS back to its reset state. */
	tp_write(p, RESETS + CLR, 1u << 12);
	tp_write(p, RESETS + SET, 1u << 12);
	assert_int_equal(tp_read(p, PLL_SYS), 0x1);
	assert_int_equal(tp_read(p, PLL_SYS + 8), 0);
	pico_free(p);
}

/* ---- Watchdog and TIMER ---- */

static void test_watchdog_tick_drives_timer(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_idle(p);
	tp_write(p, RESETS + CLR, 1u << 21);
	assert_int_equal(tp_read(p, WD_TICK), 0x200); /* enabled, CYCLES 0: not running */
	run_cycles(p, 10000);
	assert_int_equal(tp_read(p, T_RAWL), 0); /* no tick, no count */
	tp_write(p, WD_TICK, 0x20C);
	assert_true(tp_read(p, WD_TICK) & 0x400); /* RUNNING */
	run_cycles(p, 12500);
	assert_int_equal(tp_read(p, T_RAWL), 100);
	run_cycles(p, 124);
	assert_int_equal(tp_read(p, T_RAWL), 100);
	run_cycles(p, 1);
	assert_int_equal(tp_read(p, T_RAWL), 101);
	/* PAUSE holds the count. */
	tp_write(p, T_PAUSE, 1);
	run_cycles(p, 5000);
	assert_int_equal(tp_read(p, T_RAWL), 101);
	tp_write(p, T_PAUSE, 0);
	run_cycles(p, 1250);
	assert_int_equal(tp_read(p, T_RAWL), 111);
	/* A 2 us tick (CYCLES 24); then the tick stopped. */
	tp_write(p, WD_TICK, 0x218);
	run_cycles(p, 2500);
	assert_int_equal(tp_read(p, T_RAWL), 121);
	tp_write(p, WD_TICK + CLR, 0x200);
	assert_false(tp_read(p, WD_TICK) & 0x400);
	run_cycles(p, 25000);
	assert_int_equal(tp_read(p, T_RAWL), 121);
	/* Held in reset, the timer reads 0 and stands still. */
	tp_write(p, WD_TICK, 0x20C);
	tp_write(p, RESETS + SET, 1u << 21);
	run_cycles(p, 2500);
	assert_int_equal(tp_read(p, T_RAWL), 0);
	pico_free(p);
}

static void test_timer_write_and_latch(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_write(p, RESETS + CLR, 1u << 21); /* no tick: the count stands still */
	tp_write(p, T_TIMELW, 0xFFFFFFF0u);
	assert_int_equal(tp_read(p, T_RAWL), 0); /* held until TIMEHW */
	tp_write(p, T_TIMEHW, 1);
	assert_int_equal(tp_read(p, T_RAWH), 1);
	assert_int_equal(tp_read(p, T_RAWL), 0xFFFFFFF0u);
	assert_int_equal(tp_read(p, T_TIMELR), 0xFFFFFFF0u); /* latches high = 1 */
	tp_write(p, T_TIMELW, 7);
	tp_write(p, T_TIMEHW, 5);
	assert_int_equal(tp_read(p, T_TIMEHR), 1); /* still the latched word */
	uint32_t v;
	bus_debug_read(board_bus(pico_board(p)), T_TIMELR, 4, &v); /* no side effect */
	assert_int_equal(v, 7);
	assert_int_equal(tp_read(p, T_TIMEHR), 1);
	assert_int_equal(tp_read(p, T_TIMELR), 7);
	assert_int_equal(tp_read(p, T_TIMEHR), 5);
	assert_int_equal(tp_read(p, T_RAWH), 5);
	pico_free(p);
}

static uint32_t nvic_pending(xb_pico *p)
{
	return tp_read(p, NVIC_ISPR);
}

static void test_timer_alarm_at_exact_time(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_idle(p);
	start_timer(p);
	uint64_t t0 = now(p);
	tp_write(p, T_INTE, 0x1);
	tp_write(p, T_ALARM(0), 50);
	assert_int_equal(tp_read(p, T_ARMED), 0x1);
	run_cycles(p, t0 + 50 * 125 - 1 - now(p));
	assert_int_equal(tp_read(p, T_INTR), 0);
	assert_int_equal(nvic_pending(p) & 1, 0);
	run_cycles(p, 1);
	assert_int_equal(now(p), t0 + 50 * 125);
	assert_int_equal(tp_read(p, T_RAWL), 50);
	assert_int_equal(tp_read(p, T_INTR), 0x1);
	assert_int_equal(tp_read(p, T_INTS), 0x1);
	assert_int_equal(tp_read(p, T_ARMED), 0);
	assert_int_equal(nvic_pending(p) & 0xF, 0x1); /* TIMER_IRQ_0 line high */
	tp_write(p, T_INTR, 0x1);
	assert_int_equal(tp_read(p, T_INTS), 0);
	tp_write(p, NVIC_ICPR, 0x1);
	assert_int_equal(nvic_pending(p) & 1, 0); /* the line is low: nothing re-pends */
	/* INTF forces a line. */
	tp_write(p, T_INTF, 0x4);
	assert_int_equal(nvic_pending(p) & 0xF, 0x4);
	tp_write(p, T_INTF, 0);
	pico_free(p);
}

static void test_timer_alarm_rules(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_idle(p);
	start_timer(p);
	/* Only the low 32 bits are compared: across a high-word carry. */
	tp_write(p, T_TIMELW, 0xFFFFFFFBu);
	tp_write(p, T_TIMEHW, 2);
	tp_write(p, T_ALARM(1), 3);
	run_cycles(p, 8 * 125 - 1);
	assert_int_equal(tp_read(p, T_INTR), 0);
	run_cycles(p, 1);
	assert_int_equal(tp_read(p, T_INTR), 0x2);
	assert_int_equal(tp_read(p, T_RAWH), 3);
	/* Disarming through ARMED (WC, here through the SET alias) cancels it. */
	uint32_t c = tp_read(p, T_RAWL);
	tp_write(p, T_ALARM(2), c + 10);
	assert_int_equal(tp_read(p, T_ARMED), 0x4);
	tp_write(p, T_ARMED + SET, 0x4);
	assert_int_equal(tp_read(p, T_ARMED), 0);
	run_cycles(p, 20 * 125);
	assert_int_equal(tp_read(p, T_INTR) & 0x4, 0);
	/* A value equal to the count fires at once. */
	tp_write(p, T_ALARM(3), tp_read(p, T_RAWL));
	assert_int_equal(tp_read(p, T_INTR) & 0x8, 0x8);
	/* PAUSE delays an alarm by the paused time. */
	c = tp_read(p, T_RAWL);
	tp_write(p, T_ALARM(0), c + 10);
	run_cycles(p, 4 * 125);
	tp_write(p, T_PAUSE, 1);
	run_cycles(p, 100 * 125);
	assert_int_equal(tp_read(p, T_INTR) & 1, 0);
	tp_write(p, T_PAUSE, 0);
	run_cycles(p, 6 * 125 - 1);
	assert_int_equal(tp_read(p, T_INTR) & 1, 0);
	run_cycles(p, 1);
	assert_int_equal(tp_read(p, T_INTR) & 1, 1);
	/* A slower tick reschedules a pending alarm. */
	c = tp_read(p, T_RAWL);
	tp_write(p, T_ALARM(2), c + 4);
	tp_write(p, WD_TICK, 0x218); /* 250 cycles per tick */
	run_cycles(p, 4 * 250 - 1);
	assert_int_equal(tp_read(p, T_INTR) & 0x4, 0);
	run_cycles(p, 1);
	assert_int_equal(tp_read(p, T_INTR) & 0x4, 0x4);
	pico_free(p);
}

static void test_watchdog(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_idle(p);
	assert_int_equal(tp_read(p, WATCHDOG), 0x07000000);
	tp_write(p, WATCHDOG + 0x0C, 0x1234);
	tp_write(p, WATCHDOG + 0x28 + SET, 0xF0);
	assert_int_equal(tp_read(p, WATCHDOG + 0x28), 0xF0);
	/* The countdown: two per tick (RP2040-E1). */
	tp_write(p, WD_TICK, 0x20C);
	tp_write(p, WATCHDOG + 4, 1000);
	tp_write(p, WATCHDOG + SET, 0x40000000); /* ENABLE */
	run_cycles(p, 100 * 125);
	assert_int_equal(tp_read(p, WATCHDOG) & 0xFFFFFF, 800);
	tp_write(p, RESETS + CLR, 0xFF);
	run_cycles(p, 400 * 125 + 16);
	/* It reached 0: the chip was reset, the reason recorded, scratch kept. */
	assert_int_equal(tp_read(p, RESETS), 0x01FFFFFF);
	assert_int_equal(tp_read(p, WATCHDOG + 8), 0x1); /* REASON.TIMER */
	assert_int_equal(tp_read(p, WATCHDOG + 0x0C), 0x1234);
	/* A forced trigger. */
	tp_write(p, WATCHDOG + CLR, 0x40000000);
	tp_write(p, WATCHDOG + SET, 0x80000000);
	assert_false(tp_read(p, WATCHDOG) & 0x80000000u); /* self-clearing */
	tp_write(p, RESETS + CLR, 0xFF);
	run_cycles(p, 100);
	assert_int_equal(tp_read(p, RESETS), 0x01FFFFFF);
	assert_int_equal(tp_read(p, WATCHDOG + 8), 0x2); /* REASON.FORCE */
	/* An ordinary system reset clears the reason. */
	board_reset(pico_board(p));
	assert_int_equal(tp_read(p, WATCHDOG + 8), 0);
	pico_free(p);
}

/* ---- SIO ---- */

static void div_signed(xb_pico *p, int32_t n, int32_t d, int32_t q, int32_t r)
{
	tp_write(p, SIO + 0x68, (uint32_t)n);
	tp_write(p, SIO + 0x6C, (uint32_t)d);
	assert_int_equal(tp_read(p, SIO + 0x78), 0x2); /* calculating, DIRTY */
	run_cycles(p, 9);                               /* 8 cycles, readable on the 9th */
	assert_int_equal(tp_read(p, SIO + 0x78), 0x3); /* READY, DIRTY */
	assert_int_equal((int32_t)tp_read(p, SIO + 0x74), r);
	assert_int_equal((int32_t)tp_read(p, SIO + 0x70), q);
	assert_int_equal(tp_read(p, SIO + 0x78), 0x1); /* the quotient read cleared DIRTY */
}

static void test_sio_divider(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_idle(p); /* a core asleep in WFI: run_cycles lets exactly that time pass */
	assert_int_equal(tp_read(p, SIO + 0x78), 0x1);
	div_signed(p, 100, 7, 14, 2);
	div_signed(p, -100, 7, -14, -2);
	div_signed(p, 100, -7, -14, 2);
	div_signed(p, -100, -7, 14, -2);
	div_signed(p, INT32_MIN, -1, INT32_MIN, 0);
	div_signed(p, 100, 0, -1, 100); /* by zero: as the silicon answers */
	div_signed(p, -100, 0, 1, -100);
	div_signed(p, 0, 0, -1, 0);
	tp_write(p, SIO + 0x60, 0xFFFFFFFFu); /* unsigned */
	tp_write(p, SIO + 0x64, 3);
	run_cycles(p, 9);
	assert_int_equal(tp_read(p, SIO + 0x70), 0x55555555u);
	tp_write(p, SIO + 0x64, 0);
	run_cycles(p, 9);
	assert_int_equal(tp_read(p, SIO + 0x74), 0xFFFFFFFFu);
	assert_int_equal(tp_read(p, SIO + 0x70), 0xFFFFFFFFu);
	/* Only the last write's signedness counts: the dividend alone re-divides. */
	tp_write(p, SIO + 0x64, 2);
	tp_write(p, SIO + 0x68, (uint32_t)-9);
	run_cycles(p, 9);
	assert_int_equal((int32_t)tp_read(p, SIO + 0x70), -4);
	/* Save/restore as pico_divider does it around an interrupt: read (REMAINDER then
	 * QUOTIENT), later write UDIVIDEND, UDIVISOR, REMAINDER, QUOTIENT. */
	tp_write(p, SIO + 0x60, 1000);
	tp_write(p, SIO + 0x64, 7);
	run_cycles(p, 9); /* the save path waits for READY */
	uint32_t sn = tp_read(p, SIO + 0x60), sd = tp_read(p, SIO + 0x64);
	uint32_t sr = tp_read(p, SIO + 0x74), sq = tp_read(p, SIO + 0x70);
	tp_write(p, SIO + 0x60, 5); /* the interrupt's own divide */
	tp_write(p, SIO + 0x64, 5);
	tp_write(p, SIO + 0x60, sn);
	tp_write(p, SIO + 0x64, sd);
	tp_write(p, SIO + 0x74, 0xAAAA); /* restored results win over the recomputed ones */
	tp_write(p, SIO + 0x70, 0xBBBB);
	assert_int_equal(tp_read(p, SIO + 0x78), 0x3);
	assert_int_equal(tp_read(p, SIO + 0x74), 0xAAAA);
	uint32_t v;
	bus_debug_read(board_bus(pico_board(p)), SIO + 0x70, 4, &v);
	assert_int_equal(tp_read(p, SIO + 0x78), 0x3); /* a debugger read keeps DIRTY */
	assert_int_equal(tp_read(p, SIO + 0x70), 0xBBBB);
	assert_int_equal(tp_read(p, SIO + 0x78), 0x1);
	assert_int_equal(sq, 142);
	assert_int_equal(sr, 6);
	pico_free(p);
}

static void test_sio_spinlocks_fifo_cpuid(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	assert_int_equal(tp_read(p, SIO + 0x000), 0); /* CPUID: core 0 */
	uint32_t lock5 = SIO + 0x100 + 4 * 5, v;
	bus_debug_read(board_bus(pico_board(p)), lock5, 4, &v); /* looks, does not claim */
	assert_int_equal(v, 1u << 5);
	assert_int_equal(tp_read(p, SIO + 0x5C), 0);
	assert_int_equal(tp_read(p, lock5), 1u << 5); /* claimed */
	assert_int_equal(tp_read(p, lock5), 0);       /* already taken */
	assert_int_equal(tp_read(p, SIO + 0x5C), 1u << 5);
	assert_int_equal(tp_read(p, SIO + 0x17C), 1u << 31);
	tp_write(p, lock5, 0); /* any write releases */
	assert_int_equal(tp_read(p, SIO + 0x5C), 1u << 31);
	/* FIFO to an absent core 1: 8 words fit, the 9th overflows; reads find it empty. */
	assert_int_equal(tp_read(p, SIO + 0x50), 0x2); /* RDY */
	for (int i = 0; i < 8; i++)
		tp_write(p, SIO + 0x54, (uint32_t)i);
	assert_int_equal(tp_read(p, SIO + 0x50), 0x0);
	assert_int_equal(nvic_pending(p) & (1u << 15), 0);
	tp_write(p, SIO + 0x54, 8);
	assert_int_equal(tp_read(p, SIO + 0x50), 0x4); /* WOF */
	assert_int_equal(nvic_pending(p) & (1u << 15), 1u << 15); /* SIO_IRQ_PROC0 */
	assert_int_equal(tp_read(p, SIO + 0x58), 0);
	assert_int_equal(tp_read(p, SIO + 0x50), 0xC); /* ROE too */
	tp_write(p, SIO + 0x50, 0xC);
	assert_int_equal(tp_read(p, SIO + 0x50), 0x0);
	pico_free(p);
}

static void test_sio_gpio_and_io_bank(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_write(p, RESETS + CLR, (1u << 5) | (1u << 8));
	assert_int_equal(tp_read(p, IO_BANK0 + 8 * 2 + 4), 0x1F); /* GPIO2_CTRL: NULL */
	tp_write(p, SIO + 0x10, 0x5);       /* OUT */
	tp_write(p, SIO + 0x14, 0x2);       /* OUT_SET */
	tp_write(p, SIO + 0x18, 0x4);       /* OUT_CLR */
	tp_write(p, SIO + 0x1C, 0x8);       /* OUT_XOR */
	assert_int_equal(tp_read(p, SIO + 0x10), 0xB);
	tp_write(p, SIO + 0x24, 0xF);       /* OE_SET */
	assert_int_equal(tp_read(p, SIO + 0x20), 0xF);
	tp_write(p, SIO + 0x10, 0xFFFFFFFF);
	assert_int_equal(tp_read(p, SIO + 0x10), 0x3FFFFFFF); /* 30 pins */
	tp_write(p, SIO + 0x10, 0xB);
	/* The pins follow the SIO only with FUNCSEL 5. */
	assert_int_equal(tp_read(p, SIO + 0x04), 0);
	for (unsigned n = 0; n < 4; n++)
		tp_write(p, IO_BANK0 + 8 * n + 4, 5);
	assert_int_equal(tp_read(p, SIO + 0x04), 0xB);
	/* GPIO0 status: driven high by the SIO, input seen. */
	uint32_t st = tp_read(p, IO_BANK0 + 0);
	assert_int_equal(st & 0x000A3300u, 0x000A3300u);
	/* Input disabled on GPIO0's pad; GPIO2 pulled up while not driven; an output
	 * override drives GPIO3 low. */
	tp_write(p, PADS + 4 + CLR, 0x40);
	tp_write(p, SIO + 0x28, 0x4);       /* OE_CLR GPIO2 */
	tp_write(p, PADS + 4 * 3 + XOR, 0x0C); /* GPIO2: PUE on, PDE off */
	tp_write(p, IO_BANK0 + 8 * 3 + 4 + SET, 0x200); /* GPIO3 OUTOVER = low */
	assert_int_equal(tp_read(p, SIO + 0x04), 0x6);
	/* QSPI_SS reads high (BOOTSEL not pressed). */
	assert_int_equal(tp_read(p, SIO + 0x08) & 0x2, 0x2);
	pico_free(p);
}

static void test_gpio_interrupts(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_write(p, RESETS + CLR, (1u << 5) | (1u << 8));
	tp_write(p, IO_BANK0 + 8 * 9 + 4, 5); /* GPIO9 = SIO */
	tp_write(p, SIO + 0x24, 1u << 9);
	uint32_t intr1 = IO_BANK0 + 0xF0 + 4, inte1 = IO_BANK0 + 0x100 + 4;
	assert_int_equal((tp_read(p, intr1) >> 4) & 0xF, 0x1); /* LEVEL_LOW */
	tp_write(p, SIO + 0x14, 1u << 9);                       /* rising */
	assert_int_equal((tp_read(p, intr1) >> 4) & 0xF, 0xA); /* LEVEL_HIGH, EDGE_HIGH */
	tp_write(p, SIO + 0x18, 1u << 9);                       /* falling */
	assert_int_equal((tp_read(p, intr1) >> 4) & 0xF, 0xD); /* + EDGE_LOW */
	assert_int_equal(nvic_pending(p) & (1u << 13), 0);
	tp_write(p, inte1, 0x8u << 4); /* EDGE_HIGH of GPIO9 to proc 0 */
	assert_int_equal(nvic_pending(p) & (1u << 13), 1u << 13);
	assert_int_equal(tp_read(p, IO_BANK0 + 0x120 + 4), 0x8u << 4); /* PROC0_INTS1 */
	assert_true(tp_read(p, IO_BANK0 + 8 * 9) & 0x04000000u);      /* IRQTOPROC */
	tp_write(p, intr1 + CLR, 0xCu << 4); /* edges are WC, whatever the alias */
	assert_int_equal((tp_read(p, intr1) >> 4) & 0xF, 0x1);
	assert_int_equal(tp_read(p, IO_BANK0 + 0x120 + 4), 0);
	pico_free(p);
}

/* ---- UART ---- */

static void test_uart(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_idle(p);
	tp_write(p, RESETS + CLR, 1u << 22);
	assert_int_equal(tp_read(p, UART0 + 0x18), 0x90); /* TXFE | RXFE */
	assert_int_equal(tp_read(p, UART0 + 0x30), 0x300);
	assert_int_equal(tp_read(p, UART0 + 0x34), 0x12);
	assert_int_equal(tp_read(p, UART0 + 0xFE0), 0x11);
	assert_int_equal(tp_read(p, UART0 + 0xFFC), 0xB1);
	/* While disabled, bytes wait: one without FIFOs, then the holding register is full. */
	tp_write(p, UART0, 'x');
	assert_int_equal(tp_read(p, UART0 + 0x18), 0x10 | 0x20 | 0x08); /* RXFE TXFF BUSY */
	/* The SDK's baud and line set-up: the divisors read back at once and take effect with
	 * the LCR_H write (8 bits, FIFOs). 115200 at 125 MHz: 67 + 52/64, 86.8 us a frame. */
	tp_write(p, UART0 + 0x24, 67);
	tp_write(p, UART0 + 0x28, 52);
	assert_int_equal(tp_read(p, UART0 + 0x24), 67);
	assert_int_equal(tp_read(p, UART0 + 0x28), 52);
	tp_write(p, UART0 + 0x2C, 0x70);
	uint64_t frame = (10 * 16 * (67 * 64 + 52) + 63) / 64; /* cycles: 10850 */
	tp_write(p, UART0, 'y');
	assert_int_equal(tp_read(p, UART0 + 0x18), 0x10 | 0x08);
	size_t len;
	pico_uart_output(p, &len);
	assert_int_equal(len, 0);
	/* Enabled: 'x' goes to the shift register; each byte is out one frame later. */
	tp_write(p, UART0 + 0x30, 0x301);
	run_cycles(p, frame - 10);
	pico_uart_output(p, &len);
	assert_int_equal(len, 0);
	run_cycles(p, 20);
	assert_string_equal(pico_uart_output(p, NULL), "x");
	assert_int_equal(tp_read(p, UART0 + 0x18), 0x10 | 0x80 | 0x08); /* TXFE, still BUSY */
	run_cycles(p, frame);
	assert_string_equal(pico_uart_output(p, NULL), "xy");
	assert_int_equal(tp_read(p, UART0 + 0x18), 0x90);
	/* Draining from 2 never passed through the trigger level (16): no transmit interrupt,
	 * as on the PL011, whose interrupt is an edge. */
	assert_int_equal(tp_read(p, UART0 + 0x3C) & 0x20, 0);
	/* 33 bytes: one on the line, 32 in the FIFO (TXFF); a 34th is lost. */
	for (unsigned i = 0; i < 34; i++)
		bus_write(board_bus(pico_board(p)), UART0, 1, 'a' + i % 26); /* strb, as putc */
	assert_int_equal(tp_read(p, UART0 + 0x18) & 0x20, 0x20);
	tp_write(p, UART0 + 0x38, 0x20); /* TXIM */
	assert_int_equal(tp_read(p, UART0 + 0x40), 0);
	/* The FIFO falls to 16 after 16 more frames: TXRIS and the IRQ. */
	run_cycles(p, 15 * frame + frame / 2);
	assert_int_equal(tp_read(p, UART0 + 0x3C) & 0x20, 0);
	run_cycles(p, frame);
	assert_int_equal(tp_read(p, UART0 + 0x40), 0x20);
	assert_int_equal(nvic_pending(p) & (1u << 20), 1u << 20);
	/* Filling past the trigger level clears it; ICR does too. */
	bus_write(board_bus(pico_board(p)), UART0, 1, '!');
	assert_int_equal(tp_read(p, UART0 + 0x3C) & 0x20, 0);
	run_cycles(p, 2 * frame);
	assert_int_equal(tp_read(p, UART0 + 0x40), 0x20);
	tp_write(p, UART0 + 0x44, 0x20);
	assert_int_equal(tp_read(p, UART0 + 0x40), 0);
	run_cycles(p, 20 * frame);
	pico_uart_output(p, &len);
	assert_int_equal(len, 2 + 33 + 1);
	assert_int_equal(tp_read(p, UART0 + 0x18), 0x90);
	/* 7 bits, even parity, 2 stop bits: 1 + 7 + 1 + 2 = 11 bits a frame; a new divisor only
	 * with the LCR_H write. */
	tp_write(p, UART0 + 0x24, 2);
	tp_write(p, UART0 + 0x28, 0);
	tp_write(p, UART0, 'A');
	run_cycles(p, frame - 10);
	assert_int_equal(pico_uart_output(p, &len)[len - 1], '!');
	run_cycles(p, 20);
	assert_int_equal(pico_uart_output(p, &len)[len - 1], 'A');
	tp_write(p, UART0 + 0x2C, 0x40 | 0x08 | 0x04 | 0x02 | 0x10);
	tp_write(p, UART0, 'B');
	run_cycles(p, 11 * 16 * 2 - 4);
	assert_int_equal(pico_uart_output(p, &len)[len - 1], 'A');
	run_cycles(p, 8);
	assert_int_equal(pico_uart_output(p, &len)[len - 1], 'B');
	/* A reset drops what waits. */
	tp_write(p, UART0, 'C');
	tp_write(p, RESETS + SET, 1u << 22);
	tp_write(p, RESETS + CLR, 1u << 22);
	assert_int_equal(tp_read(p, UART0 + 0x18), 0x90);
	run_cycles(p, 1000);
	assert_int_equal(pico_uart_output(p, &len)[len - 1], 'B');
	pico_free(p);
}

/* ---- Bootrom ---- */

static uint16_t rom16(xb_pico *p, uint32_t addr)
{
	uint16_t v;
	xb_err err;
	if (board_peek(pico_board(p), addr, &v, 2, &err))
		fail_msg("%s", err.msg);
	return v;
}

static uint32_t rom_lookup(xb_pico *p, uint32_t table, char c1, char c2)
{
	return tp_call(p, rom16(p, 0x18), table, (uint32_t)c1 | (uint32_t)c2 << 8, 0, 0);
}

static void test_bootrom_lookup(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	tp_boot(p, 0);
	uint8_t magic[4];
	xb_err err;
	assert_int_equal(board_peek(pico_board(p), 0x10, magic, 4, &err), 0);
	assert_memory_equal(magic, "Mu\x01", 3);
	uint32_t funcs = rom16(p, 0x14), data = rom16(p, 0x16);
	assert_true(rom16(p, 0x18) & 1); /* a Thumb function pointer */
	const char *codes[] = {"IF", "EX", "RE", "RP", "FC", "CX", "MC", "MS", "P3", "L3", "UB",
			       "DT", "DE", "WV", "S4", "C4", "R3", "T3"};
	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		uint32_t fn = rom_lookup(p, funcs, codes[i][0], codes[i][1]);
		assert_true(fn & 1);
		assert_true(fn < 0x1000);
	}
	assert_int_equal(rom_lookup(p, funcs, 'Z', 'Z'), 0); /* unknown: NULL, no crash */
	assert_int_equal(rom_lookup(p, data, 'P', '8'), 0);  /* deprecated, absent since V2 */
	uint32_t cr = rom_lookup(p, data, 'C', 'R');
	char text[9] = {0};
	assert_int_equal(board_peek(pico_board(p), cr, text, 8, &err), 0);
	assert_string_equal(text, "xipbench");
	/* The bit helpers and memset/memcpy run. */
	assert_int_equal(tp_call(p, rom_lookup(p, funcs, 'P', '3'), 0xF0F0F0F0u, 0, 0, 0), 16);
	assert_int_equal(tp_call(p, rom_lookup(p, funcs, 'L', '3'), 1, 0, 0, 0), 31);
	assert_int_equal(tp_call(p, rom_lookup(p, funcs, 'T', '3'), 0, 0, 0, 0), 32);
	assert_int_equal(tp_call(p, rom_lookup(p, funcs, 'R', '3'), 0x1, 0, 0, 0), 0x80000000u);
	assert_int_equal(tp_call(p, rom_lookup(p, funcs, 'M', 'S'), 0x20001000, 0xA5, 5, 0),
			 0x20001000);
	assert_int_equal(tp_call(p, rom_lookup(p, funcs, 'M', 'C'), 0x20002000, 0x20001000, 5, 0),
			 0x20002000);
	uint8_t buf[6];
	assert_int_equal(board_peek(pico_board(p), 0x20002000, buf, 6, &err), 0);
	assert_memory_equal(buf, "\xA5\xA5\xA5\xA5\xA5\x00", 6);
	/* The ROM's own reset vector goes to the flash vector table. */
	uint32_t vec[2];
	assert_int_equal(board_peek(pico_board(p), 0, vec, 8, &err), 0);
	assert_int_equal(vec[0], 0x20041F00); /* the real bootrom's: below boot2's copy */
	assert_true(vec[1] & 1);
	pico_free(p);
}

static void test_bootrom_flash(void **state)
{
	(void)state;
	tp_log log;
	xb_pico *p = tp_pico(&log, 0);
	tp_boot(p, 0);
	xb_board *b = pico_board(p);
	uint32_t funcs = rom16(p, 0x14);
	uint32_t erase = rom_lookup(p, funcs, 'R', 'E'), program = rom_lookup(p, funcs, 'R', 'P');
	uint32_t flush = rom_lookup(p, funcs, 'F', 'C');
	uint32_t size;
	uint8_t *flash = board_flash(b, &size);
	memset(flash + 0x10000, 0x00, 0x3000);
	/* Erase two sectors from an unaligned offset: the sectors it touches. */
	uint64_t t0 = now(p);
	tp_call(p, erase, 0x10010, 0x1000, 65536, 0xD8);
	uint64_t took = now(p) - t0;
	assert_int_equal(flash[0x10000], 0xFF);
	assert_int_equal(flash[0x11FFF], 0xFF);
	assert_int_equal(flash[0x12000], 0x00);
	assert_true(took >= 2ull * 45000 * 125 && took < 2ull * 45000 * 125 + 1000);
	/* Program ANDs bits, as NOR flash does. */
	uint8_t src[8] = {0x0F, 0xF0, 0x12, 0x34, 0x56, 0x78, 0x9A, 0xBC};
	xb_err err;
	assert_int_equal(board_load(b, 0x20003000, src, sizeof src, &err), 0);
	tp_call(p, program, 0x10000, 0x20003000, 8, 0);
	assert_memory_equal(flash + 0x10000, src, 8);
	uint8_t again[2] = {0xF0, 0xFF};
	assert_int_equal(board_load(b, 0x20003000, again, 2, &err), 0);
	tp_call(p, program, 0x10000, 0x20003000, 2, 0);
	assert_int_equal(flash[0x10000], 0x00);
	assert_int_equal(flash[0x10001], 0xF0);
	/* FC flushes the XIP cache. */
	uint32_t v;
	bus_read(board_bus(b), 0x10010000, 4, &v);
	bus_read(board_bus(b), 0x10010000, 4, &v);
	assert_true(cache_total_hits(board_cache(b)) > 0);
	uint64_t misses = cache_total_misses(board_cache(b));
	tp_call(p, flush, 0, 0, 0, 0);
	bus_read(board_bus(b), 0x10010000, 4, &v);
	assert_int_equal(cache_total_misses(board_cache(b)), misses + 1);
	/* A 64 KB block erase where the range allows it. */
	t0 = now(p);
	tp_call(p, erase, 0x20000, 0x10000, 65536, 0xD8);
	assert_true(now(p) - t0 < 150000ull * 125 + 1000);
	/* Past the end of flash: reported, nothing crashes. */
	assert_int_equal(log.lines, 0);
	tp_call(p, program, size - 4, 0x20003000, 8, 0);
	assert_int_equal(log.lines, 1);
	assert_non_null(strstr(log.last, "flash_range_program"));
	pico_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alias_plain_registers),
		cmocka_unit_test(test_alias_write_one_to_clear),
		cmocka_unit_test(test_holes_and_strict),
		cmocka_unit_test(test_resets),
		cmocka_unit_test(test_sysinfo),
		cmocka_unit_test(test_clocks_selected),
		cmocka_unit_test(test_xosc),
		cmocka_unit_test(test_pll_lock),
		cmocka_unit_test(test_watchdog_tick_drives_timer),
		cmocka_unit_test(test_timer_write_and_latch),
		cmocka_unit_test(test_timer_alarm_at_exact_time),
		cmocka_unit_test(test_timer_alarm_rules),
		cmocka_unit_test(test_watchdog),
		cmocka_unit_test(test_sio_divider),
		cmocka_unit_test(test_sio_spinlocks_fifo_cpuid),
		cmocka_unit_test(test_sio_gpio_and_io_bank),
		cmocka_unit_test(test_gpio_interrupts),
		cmocka_unit_test(test_uart),
		cmocka_unit_test(test_bootrom_lookup),
		cmocka_unit_test(test_bootrom_flash),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
