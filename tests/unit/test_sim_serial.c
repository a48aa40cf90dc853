/* test_sim_serial: I2C0/1, SPI0/1, PIO0/1 and the small system blocks (ROSC, TBMAN, VREG,
 * SYSCFG, PSM, BUSCTRL) of the virtual Pico. Programs of tests/data/pico (i2c, spi, pio,
 * sysblocks) drive them as pico-sdk does and print what they saw and the cycles their
 * transfers took; the expected numbers are computed here from the datasheet's formulas:
 * SCL periods of (HCNT + SPKLEN + 7) + (LCNT + 1) clk_sys cycles (4.3.14), SPI bits of
 * CPSDVSR x (1 + SCR) clk_peri cycles (4.4.3.3), PIO machine cycles of INT + FRAC/256
 * clk_sys cycles (3.5.5). Register-level tests use the bus directly: reset values, FIFOs
 * and flags, aborts, instructions executed through SMx_INSTR, autopull timing to the
 * cycle, debug reads without side effects, block resets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_pico_common.h"

#define BUDGET 200000000u

/* Every report line, for the transfer logs. */
typedef struct logbuf {
	xb_strbuf sb;
	int lines;
} logbuf;

static void log_collect(void *ctx, const char *msg)
{
	logbuf *l = ctx;
	sb_puts(&l->sb, msg);
	sb_puts(&l->sb, "\n");
	l->lines++;
}

static xb_pico *new_pico(logbuf *log)
{
	xb_target t;
	tp_target(&t);
	xb_pico_options o;
	pico_options_init(&o);
	memset(log, 0, sizeof *log);
	o.log_fn = log_collect;
	o.log_ctx = log;
	xb_err err;
	xb_pico *p = pico_new(&t, &o, &err);
	if (!p)
		fail_msg("%s", err.msg);
	return p;
}

typedef struct run {
	xb_pico *p;
	xb_pico_summary s;
	const char *out;   /* the whole UART output */
	const char *pass1; /* from "pass 1\n" on: the warm pass */
	logbuf log;
} run;

/* Runs tests/data/pico/NAME.elf until it halts, without faults or unmapped accesses. */
static void run_once(run *r, const char *name)
{
	r->p = new_pico(&r->log);
	char *path = tp_program_path(name, "elf");
	xb_err err;
	if (pico_load_file(r->p, path, XB_IMAGE_ELF, 0, NULL, &err))
		fail_msg("%s", err.msg);
	free(path);
	enum xb_pico_stop stop = pico_run(r->p, BUDGET);
	pico_summary(r->p, &r->s);
	r->out = pico_uart_output(r->p, NULL);
	if (stop != XB_PICO_HALTED)
		fail_msg("%s ended %s at 0x%08x; output: %s", name, pico_stop_name(stop), r->s.pc,
			 r->out);
	assert_int_equal(r->s.faults, 0);
	assert_int_equal(r->s.unmapped, 0);
}

/* run_once for a program that runs its sequence twice: r->pass1 is the warm pass. */
static void run_program(run *r, const char *name)
{
	run_once(r, name);
	r->pass1 = strstr(r->out, "pass 1\n");
	if (!r->pass1)
		fail_msg("%s: no second pass in:\n%s", name, r->out);
}

static void end_run(run *r)
{
	pico_free(r->p);
	sb_free(&r->log.sb);
}

/* The number after prefix in out (the first occurrence). */
static uint64_t number_after(const char *out, const char *prefix)
{
	const char *at = strstr(out, prefix);
	if (!at)
		fail_msg("no \"%s\" in:\n%s", prefix, out);
	return strtoull(at + strlen(prefix), NULL, 10);
}

/* measured must be the model's time plus the program's own polling: at least ideal and at
 * most slack cycles more. */
static void expect_cycles(const char *what, uint64_t measured, uint64_t ideal, uint64_t slack)
{
	if (measured < ideal || measured > ideal + slack)
		fail_msg("%s took %llu cycles; the datasheet gives %llu (+ up to %llu of polling)",
			 what, (unsigned long long)measured, (unsigned long long)ideal,
			 (unsigned long long)slack);
}

/* ---- I2C ---- */

/* SCL period in clk_sys cycles for pico-sdk's i2c_set_baudrate(baud) at 125 MHz. */
static uint64_t sdk_scl_cycles(uint32_t baud)
{
	uint32_t period = (125000000u + baud / 2) / baud;
	uint32_t lcnt = period * 3 / 5, hcnt = period - lcnt;
	uint32_t spklen = lcnt < 16 ? 1 : lcnt / 16;
	return (uint64_t)hcnt + spklen + 7 + lcnt + 1;
}

static void test_i2c_program(void **state)
{
	(void)state;
	run r;
	run_program(&r, "i2c");
	const char *o = r.pass1;
	tp_expect_line(o, "i2c comp 44570140 000f0f00 status 00000006\n");
	tp_expect_line(o, "i2c write rc 3 ");
	tp_expect_line(o, "i2c read 11 22 b7 b6\n");        /* written, then the power-on pattern */
	tp_expect_line(o, "i2c read2 rc 4 b1 b0 b3 b2\n");  /* k ^ 0xA5 from 0x14 on */
	tp_expect_line(o, "i2c nak rc -1 abrt 00000001 ");  /* ABRT_7B_ADDR_NOACK, nothing flushed */
	tp_expect_line(o, "i2c stop irq 1\n");              /* STOP_DET unmasked: I2C0_IRQ pending */
	tp_expect_line(o, "i2c fast rc 1 ");
	tp_expect_line(r.out, "exit 0\n");
	/* 100 kHz: 1304 cycles a period (the SDK's 1250-cycle target plus SPKLEN + 8). */
	uint64_t p100 = sdk_scl_cycles(100000), p400 = sdk_scl_cycles(400000);
	assert_int_equal(p100, 1304);
	/* The program ends at 400 kHz: the counts it left give the same period. */
	assert_int_equal(tp_read(r.p, 0x40044000u + 0x1C) + tp_read(r.p, 0x40044000u + 0xA0) + 7 +
				 tp_read(r.p, 0x40044000u + 0x20) + 1,
			 p400);
	assert_int_equal(p400, 332);
	/* START + address + three bytes + STOP = 1 + 9 + 27 + 1 periods. */
	expect_cycles("a 3-byte write", number_after(o, "i2c write rc 3 cycles "), 38 * p100, 400);
	/* RESTART + address + four bytes + STOP. */
	expect_cycles("a 4-byte read", number_after(o, "i2c read cycles "), 47 * p100, 400);
	/* START + address (NAK) + STOP. */
	expect_cycles("a NAK", number_after(strstr(o, "i2c nak"), "cycles "), 11 * p100, 200);
	expect_cycles("a 1-byte write at 400 kHz", number_after(o, "i2c fast rc 1 cycles "),
		      20 * p400, 200);
	/* The target's log: both passes, each transfer on one line. */
	const char *log = r.log.sb.buf;
	tp_expect_line(log, "I2C0 write to 0x50: 10 11 22\n");
	tp_expect_line(log, "I2C0 read from 0x50: 11 22 b7 b6\n");
	tp_expect_line(log, "I2C0 write to 0x23: NAK (no target)\n");
	end_run(&r);
}

#define I2C0 0x40044000u
#define IC_CON (I2C0 + 0x00)
#define IC_TAR (I2C0 + 0x04)
#define IC_DATA_CMD (I2C0 + 0x10)
#define IC_FS_SCL_HCNT (I2C0 + 0x1C)
#define IC_FS_SCL_LCNT (I2C0 + 0x20)
#define IC_INTR_MASK (I2C0 + 0x30)
#define IC_RAW_INTR_STAT (I2C0 + 0x34)
#define IC_CLR_INTR (I2C0 + 0x40)
#define IC_CLR_RX_UNDER (I2C0 + 0x44)
#define IC_CLR_TX_OVER (I2C0 + 0x4C)
#define IC_CLR_TX_ABRT (I2C0 + 0x54)
#define IC_ENABLE (I2C0 + 0x6C)
#define IC_STATUS (I2C0 + 0x70)
#define IC_TXFLR (I2C0 + 0x74)
#define IC_RXFLR (I2C0 + 0x78)
#define IC_TX_ABRT_SOURCE (I2C0 + 0x80)
#define IC_ENABLE_STATUS (I2C0 + 0x9C)
#define IC_FS_SPKLEN (I2C0 + 0xA0)
#define IC_COMP_VERSION (I2C0 + 0xF8)
#define RESETS 0x4000C000u

static void unreset(xb_pico *p, uint32_t bits)
{
	tp_write(p, RESETS + 0x3000, bits);
}

static void test_i2c_registers(void **state)
{
	(void)state;
	logbuf log;
	xb_pico *p = new_pico(&log);
	tp_idle(p);
	xb_board *b = pico_board(p);
	xb_bus *bus = board_bus(b);
	unreset(p, 1u << 3);
	/* Reset values (datasheet 4.3.17). */
	assert_int_equal(tp_read(p, IC_CON), 0x65);
	assert_int_equal(tp_read(p, IC_TAR), 0x55);
	assert_int_equal(tp_read(p, IC_INTR_MASK), 0x8FF);
	assert_int_equal(tp_read(p, IC_STATUS), 0x6);
	assert_int_equal(tp_read(p, IC_FS_SPKLEN), 0x7);
	assert_int_equal(tp_read(p, IC_COMP_VERSION), 0x3230312A);
	/* Timing registers: HCNT 100, LCNT 150, SPKLEN 5: 100 + 5 + 7 + 150 + 1 = 263. */
	tp_write(p, IC_CON, 0x165); /* + TX_EMPTY_CTRL */
	tp_write(p, IC_FS_SCL_HCNT, 100);
	tp_write(p, IC_FS_SCL_LCNT, 150);
	tp_write(p, IC_FS_SPKLEN, 5);
	tp_write(p, IC_TAR, 0x50);
	tp_write(p, IC_ENABLE, 1);
	assert_int_equal(tp_read(p, IC_ENABLE_STATUS), 1);
	/* Written while enabled: ignored. */
	tp_write(p, IC_TAR, 0x23);
	assert_int_equal(tp_read(p, IC_TAR), 0x50);
	/* A read of one byte with STOP: START + address + byte + STOP = 20 periods. */
	uint64_t t0 = board_cycles(b);
	tp_write(p, IC_DATA_CMD, 0x300);
	assert_int_equal(tp_read(p, IC_STATUS) & 0x21, 0x21); /* ACTIVITY, MST_ACTIVITY */
	board_run(b, 20 * 263 - 1 - (board_cycles(b) - t0));
	assert_int_equal(tp_read(p, IC_RXFLR), 0);
	board_run(b, 4);
	assert_int_equal(tp_read(p, IC_RXFLR), 1);
	assert_int_equal(tp_read(p, IC_RAW_INTR_STAT) & 0x200, 0x200); /* STOP_DET */
	/* The debug port neither pops the FIFO nor clears flags. */
	uint32_t v;
	assert_int_equal(bus_debug_read(bus, IC_DATA_CMD, 4, &v), 0);
	assert_int_equal(v, 0x00 ^ 0xA5);
	assert_int_equal(bus_debug_read(bus, IC_CLR_INTR, 4, &v), 0);
	assert_int_equal(tp_read(p, IC_RXFLR), 1);
	assert_int_equal(tp_read(p, IC_RAW_INTR_STAT) & 0x200, 0x200);
	assert_int_equal(tp_read(p, IC_DATA_CMD), 0xA5);
	/* An empty FIFO read: RX_UNDER, cleared by reading its CLR register. */
	tp_read(p, IC_DATA_CMD);
	assert_int_equal(tp_read(p, IC_RAW_INTR_STAT) & 1, 1);
	assert_int_equal(tp_read(p, IC_CLR_RX_UNDER), 1);
	assert_int_equal(tp_read(p, IC_RAW_INTR_STAT) & 1, 0);
	/* TX_CMD_BLOCK holds commands: 16 fit, the 17th sets TX_OVER. */
	tp_write(p, IC_ENABLE, 5);
	for (int i = 0; i < 17; i++)
		tp_write(p, IC_DATA_CMD, (uint32_t)i);
	assert_int_equal(tp_read(p, IC_TXFLR), 16);
	assert_int_equal(tp_read(p, IC_STATUS) & 0x6, 0); /* neither TFNF nor TFE */
	assert_int_equal(tp_read(p, IC_RAW_INTR_STAT) & 0x8, 0x8);
	tp_read(p, IC_CLR_TX_OVER);
	/* ABORT: the FIFO is flushed, TX_ABRT with ABRT_USER_ABRT and 16 flushed commands. */
	tp_write(p, IC_ENABLE, 7);
	assert_int_equal(tp_read(p, IC_ENABLE) & 2, 0);
	assert_int_equal(tp_read(p, IC_TXFLR), 0);
	assert_int_equal(tp_read(p, IC_TX_ABRT_SOURCE), 0x10000u | 16u << 23);
	/* Held flushed until IC_CLR_TX_ABRT is read. */
	tp_write(p, IC_ENABLE, 1);
	tp_write(p, IC_DATA_CMD, 0x01);
	assert_int_equal(tp_read(p, IC_TXFLR), 0);
	tp_read(p, IC_CLR_TX_ABRT);
	assert_int_equal(tp_read(p, IC_TX_ABRT_SOURCE), 0);
	assert_int_equal(tp_read(p, IC_RAW_INTR_STAT) & 0x40, 0);
	/* I2C0_IRQ (23) follows the masked flags. */
	tp_write(p, IC_INTR_MASK, 0x200);
	uint32_t ispr = tp_read(p, 0xE000E200u);
	assert_int_equal((ispr >> 23) & 1, 1);
	/* Block reset: back to the reset values. */
	tp_write(p, RESETS + 0x2000, 1u << 3);
	assert_int_equal(tp_read(p, IC_ENABLE), 0);
	assert_int_equal(tp_read(p, IC_TAR), 0x55);
	assert_int_equal(tp_read(p, IC_RAW_INTR_STAT), 0);
	/* No holes were touched. */
	assert_int_equal(bus_unmapped_count(bus), 0);
	pico_free(p);
	sb_free(&log.sb);
}

#define I2C1 0x40048000u

/* pico_i2c_set_target moves I2C1's target: the new address ACKs, the old one NAKs. */
static void test_i2c_target_address(void **state)
{
	(void)state;
	logbuf log;
	xb_pico *p = new_pico(&log);
	tp_idle(p);
	xb_board *b = pico_board(p);
	assert_int_equal(pico_i2c_set_target(p, 2, 0x3C), -1);
	assert_int_equal(pico_i2c_set_target(p, 1, 0x80), -1);
	assert_int_equal(pico_i2c_set_target(p, 1, 0x3C), 0);
	unreset(p, 1u << 4);
	static const uint32_t addrs[2] = {0x3C, 0x50};
	for (int k = 0; k < 2; k++) {
		tp_write(p, I2C1 + 0x6C, 0);
		tp_write(p, I2C1 + 0x04, addrs[k]);
		tp_write(p, I2C1 + 0x6C, 1);
		tp_write(p, I2C1 + 0x10, 0x200 | 0x42); /* one byte with STOP */
		/* Default FS counts: 6 + 7 + 7 + 13 + 1 = 34 cycles a period; 20 periods. */
		board_run(b, 20 * 34 + 10);
		uint32_t raw = tp_read(p, I2C1 + 0x34);
		assert_int_equal(raw & 0x200, 0x200); /* STOP_DET either way */
		assert_int_equal(raw & 0x40, k ? 0x40 : 0);
		assert_int_equal(tp_read(p, I2C1 + 0x80), k ? 1u : 0u);
		tp_read(p, I2C1 + 0x40); /* IC_CLR_INTR */
	}
	tp_expect_line(log.sb.buf, "I2C1 write to 0x3c: 42\n");
	tp_expect_line(log.sb.buf, "I2C1 write to 0x50: NAK (no target)\n");
	pico_free(p);
	sb_free(&log.sb);
}

/* ---- SPI ---- */

static void test_spi_program(void **state)
{
	(void)state;
	run r;
	run_program(&r, "spi");
	const char *o = r.pass1;
	tp_expect_line(o, "spi id 00000022 sr 00000003 ris 00000008\n");
	/* The SDK's divider search for 1 MHz: CPSDVSR 2, SCR 62: 125 MHz / 126. */
	tp_expect_line(o, "spi rate 992063 cpsr 2 scr 62\n");
	tp_expect_line(o, "spi loopback 000000a0 000000a1 000000a2 000000a3 000000a4 000000a5 "
		       "000000a6 000000a7\n");
	/* The device answers each frame with the previous one (4 from the first pass). */
	tp_expect_line(o, "spi device 00000004 00000001 00000002 00000003\n");
	tp_expect_line(o, "spi 16-bit 0000beef 00001234\n");
	/* Nine frames unread: ROR, RX (half full), TX (half empty); ICR clears ROR; RT after
	 * 32 bit periods. */
	tp_expect_line(o, "spi overrun ris 0000000d after icr 0000000c\n");
	tp_expect_line(o, "spi timeout ris 0000000e\n");
	uint64_t bit = 2 * (1 + 62);
	uint64_t t8 = number_after(o, "spi loopback cycles ");
	uint64_t t4 = number_after(o, "spi loopback4 cycles ");
	expect_cycles("8 frames", t8, 8 * 8 * bit, 300);
	expect_cycles("4 frames", t4, 4 * 8 * bit, 300);
	/* The programs' polling is the same both times: the difference is four frames. */
	assert_true(t8 - t4 >= 4 * 8 * bit - 16 && t8 - t4 <= 4 * 8 * bit + 16);
	expect_cycles("two 16-bit frames", number_after(o, "spi 16-bit cycles "), 2 * 16 * 4 * 2,
		      300);
	tp_expect_line(r.log.sb.buf, "SPI0 sent 8-bit frames: 01 02 03 04\n");
	end_run(&r);
}

#define SPI1 0x40040000u

static void test_spi_registers(void **state)
{
	(void)state;
	logbuf log;
	xb_pico *p = new_pico(&log);
	tp_idle(p);
	xb_board *b = pico_board(p);
	unreset(p, 1u << 17);
	static const uint8_t ids[8] = {0x22, 0x10, 0x34, 0x00, 0x0D, 0xF0, 0x05, 0xB1};
	for (unsigned i = 0; i < 8; i++)
		assert_int_equal(tp_read(p, SPI1 + 0xFE0 + 4 * i), ids[i]);
	/* CPSDVSR is even: bit 0 reads 0. */
	tp_write(p, SPI1 + 0x10, 7);
	assert_int_equal(tp_read(p, SPI1 + 0x10), 6);
	/* 4-bit frames at 6 x (1 + 2) = 18 cycles a bit, to the device: a frame takes 72. */
	tp_write(p, SPI1 + 0x00, 2u << 8 | 3);
	tp_write(p, SPI1 + 0x04, 2);
	uint64_t t0 = board_cycles(b);
	tp_write(p, SPI1 + 0x08, 0x1F5); /* only the low 4 bits leave */
	tp_write(p, SPI1 + 0x08, 0x3);
	assert_int_equal(tp_read(p, SPI1 + 0x0C) & 0x10, 0x10); /* BSY */
	board_run(b, 144 - 1 - (board_cycles(b) - t0));
	assert_int_equal(tp_read(p, SPI1 + 0x0C) & 0x14, 0x14); /* one frame in, still busy */
	board_run(b, 4);
	assert_int_equal(tp_read(p, SPI1 + 0x0C), 0x07); /* TFE, TNF, RNE: done */
	assert_int_equal(tp_read(p, SPI1 + 0x08), 0);   /* the device's first answer */
	assert_int_equal(tp_read(p, SPI1 + 0x08), 0x5);
	/* SPI1_IRQ (19): TXIM with the TX FIFO empty. */
	tp_write(p, SPI1 + 0x14, 0x8);
	assert_int_equal((tp_read(p, 0xE000E200u) >> 19) & 1, 1);
	assert_int_equal(tp_read(p, SPI1 + 0x1C), 0x8);
	tp_write(p, RESETS + 0x2000, 1u << 17);
	assert_int_equal(tp_read(p, SPI1 + 0x00), 0);
	assert_int_equal(tp_read(p, SPI1 + 0x18), 0x8);
	tp_expect_line(log.sb.buf, "SPI1 sent 4-bit frames: 05 03\n");
	/* Between SSPDMACR and the ID registers: a hole, reported. */
	xb_bus *bus = board_bus(b);
	uint64_t holes = bus_unmapped_count(bus);
	tp_read(p, SPI1 + 0x28);
	assert_int_equal(bus_unmapped_count(bus), holes + 1);
	pico_free(p);
	sb_free(&log.sb);
}

/* ---- PIO ---- */

static void test_pio_program(void **state)
{
	(void)state;
	run r;
	run_program(&r, "pio");
	const char *o = r.pass1;
	tp_expect_line(o, "pio cfginfo 00200404 fstat 0f000f00\n");
	/* Four words in SM0's joined 8-deep TX FIFO; its RX side has no room. */
	tp_expect_line(o, "pio flevel 00000004 fstat 0e000f01\n");
	tp_expect_line(o, "pio rx 50 49 4f 21\n");
	tp_expect_line(o, "pio rx2 00 ff 55 81\n");
	tp_expect_line(o, "pio irq 00000001 nvic 1 cleared 00000000 0\n");
	tp_expect_line(o, "pio wait addr 10 released addr 12\n");
	/* uart_tx: 8 + 8 + 8 x 8 = 80 machine cycles a byte; after four bytes the fifth PULL
	 * stalls, one cycle after the enable plus 320 machine cycles. */
	expect_cycles("4 bytes at divider 10", number_after(o, "pio div 10 cycles "),
		      1 + 320 * 10, 40);
	expect_cycles("4 bytes at divider 2.5", number_after(o, "pio div 2.5 cycles "),
		      1 + 320 * 5 / 2, 40);
	end_run(&r);
}

#define PIO1 0x50300000u
#define P_CTRL (PIO1 + 0x000)
#define P_FSTAT (PIO1 + 0x004)
#define P_FDEBUG (PIO1 + 0x008)
#define P_FLEVEL (PIO1 + 0x00C)
#define P_TXF(n) (PIO1 + 0x010 + 4 * (n))
#define P_RXF(n) (PIO1 + 0x020 + 4 * (n))
#define P_MEM(i) (PIO1 + 0x048 + 4 * (i))
#define P_SM(n, r) (PIO1 + 0x0C8 + 0x18 * (n) + (r))
#define P_DBG_PADOUT (PIO1 + 0x03C)
#define P_DBG_PADOE (PIO1 + 0x040)

static void test_pio_exec_and_mov(void **state)
{
	(void)state;
	logbuf log;
	xb_pico *p = new_pico(&log);
	tp_idle(p);
	xb_bus *bus = board_bus(pico_board(p));
	unreset(p, 1u << 11);
	/* Reset values. */
	assert_int_equal(tp_read(p, P_SM(2, 0x00)), 0x00010000);
	assert_int_equal(tp_read(p, P_SM(2, 0x04)), 0x0001F000);
	assert_int_equal(tp_read(p, P_SM(2, 0x08)), 0x000C0000);
	assert_int_equal(tp_read(p, P_SM(2, 0x14)), 0x14000000);
	/* Instructions through SM2_INSTR on the stopped machine run at once. */
	tp_write(p, P_SM(2, 0x10), 0xE025); /* set x, 5 */
	tp_write(p, P_SM(2, 0x10), 0xA049); /* mov y, ~x */
	tp_write(p, P_SM(2, 0x10), 0xA0C2); /* mov isr, y */
	tp_write(p, P_SM(2, 0x10), 0x8000); /* push noblock */
	tp_write(p, P_SM(2, 0x10), 0xA032); /* mov x, ::y (bit-reversed) */
	tp_write(p, P_SM(2, 0x10), 0x4020); /* in x, 32 */
	tp_write(p, P_SM(2, 0x10), 0x8020); /* push block */
	tp_write(p, P_SM(2, 0x10), 0x0017); /* jmp 23 */
	assert_int_equal(tp_read(p, P_SM(2, 0x0C)), 23);
	assert_int_equal(tp_read(p, P_FLEVEL) >> 20 & 0xF, 2); /* RX2 holds two words */
	/* A debug read does not pop. */
	uint32_t v;
	assert_int_equal(bus_debug_read(bus, P_RXF(2), 4, &v), 0);
	assert_int_equal(v, 0xFFFFFFFAu);
	assert_int_equal(tp_read(p, P_RXF(2)), 0xFFFFFFFAu);
	assert_int_equal(tp_read(p, P_RXF(2)), 0x5FFFFFFFu); /* ~5 reversed */
	/* An empty RX FIFO read sets RXUNDER; a full TX FIFO write TXOVER (write 1 to clear). */
	tp_read(p, P_RXF(2));
	for (int i = 0; i < 5; i++)
		tp_write(p, P_TXF(2), (uint32_t)i);
	assert_int_equal(tp_read(p, P_FDEBUG), (1u << (8 + 2)) | (1u << (16 + 2)));
	assert_int_equal(tp_read(p, P_FSTAT) >> 16 & 0xF, 1u << 2); /* TXFULL */
	tp_write(p, P_FDEBUG, 0xFFFFFFFFu);
	assert_int_equal(tp_read(p, P_FDEBUG), 0);
	/* Changing a join flushes both FIFOs. */
	tp_write(p, P_SM(2, 0x08), 0x000C0000u | 1u << 30);
	assert_int_equal(tp_read(p, P_FLEVEL), 0);
	/* SET PINS/PINDIRS with SET_BASE 28, SET_COUNT 5 wraps past pin 31 to pin 0. */
	tp_write(p, P_SM(2, 0x14), 28u << 5 | 5u << 26);
	tp_write(p, P_SM(2, 0x10), 0xE015); /* set pins, 0b10101 */
	tp_write(p, P_SM(2, 0x10), 0xE09F); /* set pindirs, 0b11111 */
	assert_int_equal(tp_read(p, P_DBG_PADOUT), 0x50000001u);
	assert_int_equal(tp_read(p, P_DBG_PADOE), 0xF0000001u);
	/* The pin reaches IO_BANK0 when GPIO28's FUNCSEL is PIO1 (7): SIO GPIO_IN sees it. */
	tp_write(p, 0x40014000u + 8 * 28 + 4, 7);
	assert_int_equal((tp_read(p, 0xD0000004u) >> 28) & 1, 1);
	/* Instruction memory is write-only. */
	tp_write(p, P_MEM(5), 0xE001);
	assert_int_equal(tp_read(p, P_MEM(5)), 0);
	/* A block reset clears the lot. */
	tp_write(p, RESETS + 0x2000, 1u << 11);
	assert_int_equal(tp_read(p, P_DBG_PADOE), 0);
	assert_int_equal(tp_read(p, P_SM(2, 0x0C)), 0);
	assert_int_equal(bus_unmapped_count(bus), 0);
	/* Past IRQ1_INTS: a hole, reported. */
	tp_read(p, PIO1 + 0x144);
	assert_int_equal(bus_unmapped_count(bus), 1);
	pico_free(p);
	sb_free(&log.sb);
}

static void test_pio_autopull_timing(void **state)
{
	(void)state;
	logbuf log;
	xb_pico *p = new_pico(&log);
	tp_idle(p);
	xb_board *b = pico_board(p);
	unreset(p, 1u << 11);
	/* out null, 8 at address 0 wrapping onto itself; autopull at 16 bits; divider 4. */
	tp_write(p, P_MEM(0), 0x6068);
	tp_write(p, P_SM(0, 0x00), 4u << 16);
	tp_write(p, P_SM(0, 0x04), 0u << 12 | 0u << 7);
	tp_write(p, P_SM(0, 0x08), 1u << 17 | 16u << 25 | 1u << 19);
	for (int i = 0; i < 4; i++)
		tp_write(p, P_TXF(0), 0x11111111u * (uint32_t)i);
	uint64_t e = board_cycles(b);
	tp_write(p, P_CTRL, 1);
	/* Machine cycle k (1, 2, ...) runs at e + 1 + 4 (k - 1). The OSR starts empty: cycle
	 * 1 refills it with word 1 and stalls (an empty OSR cannot be refilled and shifted in
	 * one cycle, 3.5.4.2); from cycle 2 each OUT shifts 8 bits, and every second one
	 * empties the OSR, which autopull refills in the same cycle: words 2, 3, 4 at cycles
	 * 3, 5, 7; cycle 10 finds the OSR and the FIFO empty, and stalls. */
	board_run(b, e + 24 - board_cycles(b));
	assert_int_equal(tp_read(p, P_FLEVEL) & 0xF, 1);
	board_run(b, 1);
	assert_int_equal(tp_read(p, P_FLEVEL) & 0xF, 0);
	board_run(b, e + 36 - board_cycles(b));
	assert_int_equal(tp_read(p, P_FDEBUG), 0);
	board_run(b, 1);
	assert_int_equal(tp_read(p, P_FDEBUG), 1u << 24); /* TXSTALL of SM0 */
	/* A long wait for data costs nothing and the machine goes on when it comes. */
	board_run(b, 100000000);
	tp_write(p, P_TXF(0), 1);
	uint64_t t = board_cycles(b);
	board_run(b, 8);
	assert_int_equal(tp_read(p, P_FSTAT) >> 24 & 1, 1); /* TXEMPTY again */
	assert_true(board_cycles(b) - t < 16);
	pico_free(p);
	sb_free(&log.sb);
}

static void test_pio_wait_pin(void **state)
{
	(void)state;
	logbuf log;
	xb_pico *p = new_pico(&log);
	tp_idle(p);
	xb_board *b = pico_board(p);
	unreset(p, 1u << 11 | 1u << 5 | 1u << 8); /* PIO1, IO_BANK0, PADS_BANK0 */
	tp_write(p, 0x40014000u + 8 * 5 + 4, 5); /* GPIO5: SIO */
	uint64_t idle_event = board_next_event(b);
	/* wait 1 gpio 5; irq nowait 0; jmp 2 */
	tp_write(p, P_MEM(0), 0x2085);
	tp_write(p, P_MEM(1), 0xC000);
	tp_write(p, P_MEM(2), 0x0002);
	tp_write(p, P_CTRL, 1);
	board_run(b, 1000);
	assert_int_equal(tp_read(p, PIO1 + 0x030), 0);
	assert_int_equal(tp_read(p, P_SM(0, 0x0C)), 0);
	/* Waiting on a pin nobody moves costs no events. */
	assert_true(board_next_event(b) >= idle_event);
	board_run(b, 1000000);
	/* The SIO raises GPIO5 at cycle c: the WAIT completes at c + 1, the IRQ at c + 2. */
	tp_write(p, 0xD0000024u, 1u << 5); /* GPIO_OE_SET */
	uint64_t c = board_cycles(b);
	tp_write(p, 0xD0000014u, 1u << 5); /* GPIO_OUT_SET */
	board_run(b, 1);
	assert_int_equal(tp_read(p, PIO1 + 0x030), 0);
	board_run(b, 1);
	assert_int_equal(board_cycles(b), c + 2);
	assert_int_equal(tp_read(p, PIO1 + 0x030), 1);
	assert_int_equal(tp_read(p, P_SM(0, 0x0C)), 2);
	pico_free(p);
	sb_free(&log.sb);
}

/* ---- ROSC, TBMAN, VREG, SYSCFG, PSM, BUSCTRL ---- */

/* The RANDOMBIT sequence of the model (xorshift64* from the default seed), bit n. */
static uint32_t rosc_bits(unsigned skip)
{
	uint64_t x = 0x5EEDB17u;
	uint32_t r = 0;
	for (unsigned i = 0; i < skip + 32; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		if (i >= skip)
			r = r << 1 | (uint32_t)((x * 0x2545F4914F6CDD1Dull) >> 63);
	}
	return r;
}

static void test_sysblocks_program(void **state)
{
	(void)state;
	run r;
	run_program(&r, "sysblocks");
	const char *o = r.pass1;
	tp_expect_line(o, "tbman 00000005\n");         /* ASIC */
	tp_expect_line(o, "vreg 000010b1\n");          /* 1.10 V, enabled, ROK */
	tp_expect_line(o, "bod 00000091\n");
	tp_expect_line(o, "chip_reset 00000100\n");    /* HAD_POR */
	tp_expect_line(o, "rosc ctrl 00fabaa0\n");
	tp_expect_line(o, "rosc div 00000ab0\n");
	tp_expect_line(o, "rosc status 80011000\n");   /* STABLE, DIV_RUNNING, ENABLED */
	/* Pass 0 reads the first 32 bits of the sequence, pass 1 the next 32: they differ. */
	const char *r0 = strstr(r.out, "rosc random "), *r1 = strstr(o, "rosc random ");
	assert_non_null(r0);
	assert_non_null(r1);
	assert_true(r0 < o);
	uint32_t bits0 = (uint32_t)strtoul(r0 + 12, NULL, 16);
	uint32_t bits1 = (uint32_t)strtoul(r1 + 12, NULL, 16);
	assert_int_equal(bits0, rosc_bits(0));
	assert_int_equal(bits1, rosc_bits(32));
	assert_int_not_equal(bits0, bits1);
	/* 130 ticks of 104 MHz / 16 = 6.5 MHz: 2500 cycles. */
	expect_cycles("ROSC COUNT from 130", number_after(o, "rosc count cycles "), 2500, 40);
	tp_expect_line(o, "rosc bad div 00000abf\n");
	tp_expect_line(o, "rosc bad status 81011000\n");
	tp_expect_line(o, "rosc cleared 80011000\n");
	tp_expect_line(o, "syscfg proc_config 10000000\n");
	tp_expect_line(o, "syscfg dbgforce 00000066\n");
	tp_expect_line(o, "syscfg nmi_mask 00800000\n");
	tp_expect_line(o, "psm done 0001ffff\n");
	tp_expect_line(o, "busctrl perfsel0 0000001f\n");
	tp_expect_line(o, "busctrl ack 00000001\n");
	end_run(&r);
}

static void test_sysblocks_registers(void **state)
{
	(void)state;
	logbuf log;
	xb_pico *p = new_pico(&log);
	tp_idle(p);
	xb_bus *bus = board_bus(pico_board(p));
	/* RANDOMBIT through the debug port does not advance the sequence. */
	uint32_t a, b2;
	bus_debug_read(bus, 0x4006001Cu, 4, &a);
	bus_debug_read(bus, 0x4006001Cu, 4, &b2);
	assert_int_equal(a, b2);
	assert_int_equal(tp_read(p, 0x4006001Cu), rosc_bits(0) >> 31);
	/* FREQA without the 0x9696 password: drive strengths 0. */
	tp_write(p, 0x40060004u, 0x96967777u);
	assert_int_equal(tp_read(p, 0x40060004u), 0x96967777u);
	tp_write(p, 0x40060004u, 0x12347777u);
	assert_int_equal(tp_read(p, 0x40060004u), 0x12340000u);
	/* DORMANT is reported, not modelled: it reads awake. */
	tp_write(p, 0x4006000Cu, 0x636F6D61u);
	assert_int_equal(tp_read(p, 0x4006000Cu), 0x77616B65u);
	tp_expect_line(log.sb.buf, "ROSC DORMANT is not modelled");
	/* VREG: VSEL writable, ROK follows EN; CHIP_RESET's HAD_POR is read-only. */
	tp_write(p, 0x40064000u, 0xC1);
	assert_int_equal(tp_read(p, 0x40064000u), 0x10C1);
	tp_write(p, 0x40064000u, 0xC0);
	assert_int_equal(tp_read(p, 0x40064000u), 0xC0);
	tp_write(p, 0x40064008u, 0);
	assert_int_equal(tp_read(p, 0x40064008u), 0x100);
	/* SYSCFG follows its RESETS bit (18). */
	unreset(p, 1u << 18);
	tp_write(p, 0x40004014u, 0x0);
	assert_int_equal(tp_read(p, 0x40004014u), 0x0);
	tp_write(p, RESETS + 0x2000, 1u << 18);
	assert_int_equal(tp_read(p, 0x40004014u), 0x66);
	/* PSM: a domain forced off is not done; FRCE_OFF.PROC1 holds core 1 in reset. */
	xb_board *brd = pico_board(p);
	board_core1_enable(brd);
	assert_true(board_core1_running(brd));
	tp_write(p, 0x40010004u, 0x10000);
	assert_int_equal(tp_read(p, 0x4001000Cu), 0x0FFFF);
	assert_false(board_core1_running(brd));
	tp_write(p, 0x40010004u, 0);
	assert_true(board_core1_running(brd));
	/* SYSCFG PROC0_HALTED follows a debug halt. */
	assert_int_equal(tp_read(p, 0x40004008u) & 1, 0);
	board_halt(brd);
	assert_int_equal(tp_read(p, 0x40004008u) & 1, 1);
	board_resume(brd);
	/* BUSCTRL: the counters do not count; PERFSEL holds its value. */
	tp_write(p, 0x4003000Cu, 3);
	assert_int_equal(tp_read(p, 0x4003000Cu), 3);
	assert_int_equal(tp_read(p, 0x40030008u), 0);
	/* A hole inside a block is reported. */
	tp_read(p, 0x40064010u);
	assert_int_equal(bus_unmapped_count(bus), 1);
	pico_free(p);
	sb_free(&log.sb);
}

/* UART1: its text goes to the log a line at a time, not to UART0's output. */
static void test_uart1(void **state)
{
	(void)state;
	run r;
	run_once(&r, "uart1");
	const char *o = r.out;
	/* PERIPHID0 0x11; GPIO4 STATUS: OUTFROMPERI, OUTTOPAD, OEFROMPERI, OETOPAD, INFROMPAD,
	 * INTOPERI (the idle TX line is high and reads back). */
	tp_expect_line(o, "uart1 periphid 00000011 gpio4 status 000a3300\n");
	/* 30 frames of 10 bits at 115200 baud (IBRD 67, FBRD 52 at 125 MHz): 2604 us. */
	double frame_us = 10.0 * 16.0 * (67.0 + 52.0 / 64.0) / 125.0;
	unsigned long us = number_after(o, "uart1 30 bytes in ");
	print_message("UART1: 30 bytes in %lu us, model %.1f us\n", us, 30 * frame_us);
	/* Never sooner than the line allows; later only by the program's few microseconds of
	 * code around its clock readings. */
	assert_true((double)us >= 30 * frame_us - 1.0 && (double)us <= 30 * frame_us + 8.0);
	tp_expect_line(o, " us ris while full 0 irq 1 uart0 irq 0\n");
	tp_expect_line(o, "exit 0\n");
	assert_null(strstr(o, "hello"));
	tp_expect_line(r.log.sb.buf, "UART1: hello from uart1\nUART1: second line\n");
	assert_int_equal(r.s.uart_bytes, strlen(o));
	end_run(&r);
}

/* DMA paced by SPI0's and PIO0's DREQs (the xb_dreq_fn hook): the data arrives intact, SPI
 * at the frame rate, PIO at its 2 machine cycles a word (OUT, IN with autopull/autopush). */
static void test_serial_dma(void **state)
{
	(void)state;
	run r;
	run_program(&r, "serial_dma");
	const char *o = r.pass1;
	tp_expect_line(o, "spi dma same ");
	tp_expect_line(o, "pio dma same ");
	expect_cycles("32 SPI frames paced by DREQ 16/17", number_after(o, "spi dma same cycles "),
		      32 * 8 * 2 * 63, 300);
	expect_cycles("64 PIO words paced by DREQ 0/4", number_after(o, "pio dma same cycles "),
		      64 * 2, 150);
	end_run(&r);
}

/* The same image twice: identical output, cycles and counters. */
static void test_deterministic(void **state)
{
	(void)state;
	run a, b;
	run_program(&a, "pio");
	run_program(&b, "pio");
	assert_string_equal(a.out, b.out);
	assert_int_equal(a.s.cycles, b.s.cycles);
	assert_int_equal(a.s.instructions, b.s.instructions);
	end_run(&a);
	end_run(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_i2c_program),
		cmocka_unit_test(test_i2c_registers),
		cmocka_unit_test(test_i2c_target_address),
		cmocka_unit_test(test_spi_program),
		cmocka_unit_test(test_spi_registers),
		cmocka_unit_test(test_pio_program),
		cmocka_unit_test(test_pio_exec_and_mov),
		cmocka_unit_test(test_pio_autopull_timing),
		cmocka_unit_test(test_pio_wait_pin),
		cmocka_unit_test(test_sysblocks_program),
		cmocka_unit_test(test_sysblocks_registers),
		cmocka_unit_test(test_uart1),
		cmocka_unit_test(test_serial_dma),
		cmocka_unit_test(test_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
