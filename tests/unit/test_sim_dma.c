/* test_sim_dma: the virtual Pico's DMA, ADC and PWM. Programs of tests/data/pico driving
 * them as pico-sdk does (dma_copy, dma_sniff, dma_timer, dma_uart, adc_dma, pwm_wrap),
 * checked against the datasheet's numbers: one DMA item per clk_sys cycle, pacing timer
 * fractions, 96 clk_adc cycles (2 us) per conversion, the temperature sensor's formula,
 * PWM periods of (TOP + 1) * (PH_CORRECT + 1) * DIV; and the registers through the bus:
 * exact transfer and conversion times, aliases and triggers, IRQ lines, holes, resets. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_pico_common.h"

#define BUDGET 200000000u

#define SET 0x2000u
#define CLR 0x3000u
#define RESETS 0x4000C000u
#define NVIC_ISPR 0xE000E200u
#define NVIC_ICPR 0xE000E280u
#define DMA 0x50000000u
#define DMA_CH(n, off) (DMA + 0x40u * (n) + (off))
#define ADC 0x4004C000u
#define PWM 0x40050000u
#define PWM_SL(n, off) (PWM + 0x14u * (n) + (off))

typedef struct run {
	xb_pico *p;
	xb_pico_summary s;
	const char *out;
} run;

/* Runs tests/data/pico/NAME.elf on p (inputs already set) until it halts. */
static run run_on(xb_pico *p, const char *name)
{
	run r = {p, {0}, NULL};
	char *path = tp_program_path(name, "elf");
	xb_err err;
	if (pico_load_file(p, path, XB_IMAGE_ELF, 0, NULL, &err))
		fail_msg("%s", err.msg);
	free(path);
	enum xb_pico_stop stop = pico_run(p, BUDGET);
	pico_summary(p, &r.s);
	r.out = pico_uart_output(p, NULL);
	if (stop != XB_PICO_HALTED)
		fail_msg("%s ended %s at 0x%08x; output: %s", name, pico_stop_name(stop), r.s.pc,
			 r.out);
	return r;
}

/* The number after "key " on its line. */
static unsigned long value_of(const char *out, const char *key)
{
	const char *l = strstr(out, key);
	if (!l)
		fail_msg("no \"%s\" in the output:\n%s", key, out);
	return strtoul(l + strlen(key), NULL, 10);
}

static void expect_range(const char *out, const char *key, unsigned long lo, unsigned long hi)
{
	unsigned long v = value_of(out, key);
	if (v < lo || v > hi)
		fail_msg("%s%lu: expected %lu to %lu", key, v, lo, hi);
}

/* ---- Programs ---- */

static void test_dma_copy_program(void **state)
{
	(void)state;
	tp_log log;
	run r = run_on(tp_pico(&log, 0), "dma_copy");
	tp_expect_line(r.out, "channels 12\n");
	/* 256 words then, chained, 64 bytes: 320 items at one per cycle (datasheet 2.5.1),
	 * plus the polling loop and the IRQ handler that runs at the end. */
	expect_range(r.out, "copy cycles ", 320, 380);
	tp_expect_line(r.out, "irq count 1\n");
	tp_expect_line(r.out, "irq ints 2\n"); /* only channel 1: channel 0 is IRQ_QUIET */
	tp_expect_line(r.out, "copy mismatches 0\n");
	tp_expect_line(r.out, "ch0 read advanced 1024\n");
	tp_expect_line(r.out, "ch0 count 0\nch0 tcr 256\nch0 busy 0\n");
	tp_expect_line(r.out, "ring 0000000a 0000000b 0000000c 0000000d 0000000a 0000000b 0000000c "
			   "0000000d 0000000a 0000000b 0000000c 0000000d 0000000a 0000000b "
			   "0000000c 0000000d\nring read 0\n");
	tp_expect_line(r.out, "blocks 'hello world' ints 00000010\n");
	tp_expect_line(r.out, "paused moved 0\npaused busy 1\nresumed count 0\nresumed last 1\n");
	tp_expect_line(r.out, "aborted busy 0\naborted intr 0\n");
	tp_expect_line(r.out, "error flags 1\nerror intr 128\nerror cleared 0\n");
	tp_expect_line(r.out, "after reset 0\nexit 0\n");
	assert_non_null(strstr(log.last, "DMA channel 7: read bus error at 0xd0000000"));
	assert_int_equal(r.s.faults, 0);
	assert_int_equal(r.s.unmapped, 0);
	pico_free(r.p);
}

static void test_dma_sniff_program(void **state)
{
	(void)state;
	run r = run_on(tp_pico(NULL, 0), "dma_sniff");
	tp_expect_line(r.out, "crc32 0376e6e7\n");  /* CRC-32/MPEG-2 check value */
	tp_expect_line(r.out, "crc32r cbf43926\n"); /* CRC-32 (zlib) check value */
	tp_expect_line(r.out, "crc16 000029b1\n");  /* CRC-16/CCITT-FALSE check value */
	tp_expect_line(r.out, "sum 000001dd\n");    /* '1' + ... + '9' = 477 */
	tp_expect_line(r.out, "even 00000001\n");   /* 33 one bits */
	const char *hw = strstr(r.out, "words hw "), *sw = strstr(r.out, "words sw ");
	assert_non_null(hw);
	assert_non_null(sw);
	assert_memory_equal(hw + 9, sw + 9, 8);
	assert_memory_not_equal(hw + 9, "ffffffff", 8);
	tp_expect_line(r.out, "residue 00000000\ncopied 00000001\nexit 0\n");
	pico_free(r.p);
}

static void test_dma_timer_program(void **state)
{
	(void)state;
	run r = run_on(tp_pico(NULL, 0), "dma_timer");
	/* X/Y = 1/1250: a request every 1250 cycles, 10 us of the 1 us TIMER. */
	tp_expect_line(r.out, "timer0 steps 10 10 10 10 10 10 10 10 10 10 10\n");
	/* 12 requests: the last at 12 * 1250 cycles after the timer's write. */
	expect_range(r.out, "timer0 cycles ", 15000, 15030);
	/* 3/1000: the 30th request at ceil(30 * 1000 / 3) = 10000 cycles. */
	expect_range(r.out, "timer1 cycles ", 10000, 10030);
	/* Paused for 101 us: ten requests waiting, all served on resume. */
	assert_int_equal(value_of(r.out, "ctdreq "), 10);
	expect_range(r.out, " left ", 8, 10);
	pico_free(r.p);
}

static void test_dma_uart_program(void **state)
{
	(void)state;
	run r = run_on(tp_pico(NULL, 0), "dma_uart");
	const char *msg = "dma says: the quick brown fox jumps over the lazy dog\n";
	tp_expect_line(r.out, "no txdmae left 54\n");
	/* 54 bytes: 32 fill the FIFO of the stopped transmitter, 22 wait. */
	tp_expect_line(r.out, "fifo full left 22 dreq 0\n");
	tp_expect_line(r.out, "no fifo left 53\n");
	int copies = 0;
	for (const char *l = r.out; (l = strstr(l, msg)) != NULL; l++)
		copies++;
	assert_int_equal(copies, 3);
	/* The line rate from the divisors (datasheet 4.2.7.1): baud = clk_peri / (16 x (IBRD +
	 * FBRD / 64)); 115200 at 125 MHz gives IBRD 67, FBRD 52. A frame of 8N1 is 10 bits. */
	unsigned long ibrd = value_of(r.out, "ibrd "), fbrd = value_of(r.out, " fbrd ");
	assert_int_equal(ibrd, 67);
	assert_int_equal(fbrd, 52);
	double baud = 125e6 / (16.0 * ((double)ibrd + (double)fbrd / 64.0));
	double frame_us = 10.0 * 1e6 / baud; /* 86.8 us */
	/* 33 bytes go at once (FIFO and shift register), then one a frame: the channel ends
	 * 21 frames after its start, the line 54 frames after it. */
	unsigned long done = value_of(r.out, "streamed 54 bytes in ");
	unsigned long idle = value_of(r.out, "line idle at ");
	print_message("UART0 at %.1f baud: frame %.2f us; channel done at %lu us (model %.1f), "
		      "line idle at %lu us (%.1f)\n", baud, frame_us, done, 21 * frame_us, idle,
		      54 * frame_us);
	/* Never sooner than the line allows; later only by the program's own few microseconds
	 * between its clock reading and the channel's start (code fetched through the XIP
	 * cache); from channel end to line idle exactly 33 frames. */
	assert_true((double)done >= 21 * frame_us - 1.0 && (double)done <= 21 * frame_us + 8.0);
	assert_true(fabs((double)(idle - done) - 33 * frame_us) <= 2.0);
	pico_free(r.p);
}

/* What an ideal 12-bit converter with a 3.3 V reference reads for the temperature sensor
 * at t degrees (datasheet 4.9.5: 0.706 V at 27 degrees, -1.721 mV per degree). */
static unsigned temp_raw(double t)
{
	double v = 0.706 - (t - 27.0) * 0.001721;
	return (unsigned)(v / 3.3 * 4096.0 + 0.5);
}

static void test_adc_program(void **state)
{
	(void)state;
	run r = run_on(tp_pico(NULL, 0), "adc_dma");
	tp_expect_line(r.out, "once busy 1\n");
	/* 96 cycles of the 48 MHz clk_adc: 2 us, 250 cycles at 125 MHz; the polling loop
	 * adds a few. */
	expect_range(r.out, "once cycles ", 250, 275);
	assert_int_equal(value_of(r.out, "temp raw "), temp_raw(27.0));
	expect_range(r.out, "temp mC ", 26500, 27500);
	/* 100 back-to-back conversions: 200 us. */
	expect_range(r.out, "many cycles ", 25000, 25040);
	tp_expect_line(r.out, "many same 100\n");
	/* DIV.INT 479: one conversion per 480 clk_adc cycles (10 us); the 20th ends 19 * 10
	 * + 2 us after START_MANY. */
	expect_range(r.out, "div cycles ", 24000, 24040);
	tp_expect_line(r.out, "ain0 byte 0\nain0 result 0\n");
	tp_expect_line(r.out, "rrobin 0 876 0 876 0 876\n");
	tp_expect_line(r.out, "full level 4\nfull flags 3\nover cleared 0\n");
	tp_expect_line(r.out, "irq drained 4\nirq level left 0\n");
	tp_expect_line(r.out, "exit 0\n");
	assert_int_equal(r.s.faults, 0);
	assert_int_equal(r.s.unmapped, 0);
	pico_free(r.p);

	/* Inputs set from outside: 40 degrees, AIN0 at half the reference. */
	xb_pico *p = tp_pico(NULL, 0);
	pico_adc_set_temperature(p, 40000);
	assert_int_equal(pico_adc_set_input(p, 0, 1650000), 0);
	assert_int_equal(pico_adc_set_input(p, 4, 1000), -1);
	r = run_on(p, "adc_dma");
	unsigned raw = temp_raw(40.0);
	assert_int_equal(value_of(r.out, "temp raw "), raw);
	expect_range(r.out, "temp mC ", 39500, 40500);
	tp_expect_line(r.out, "ain0 byte 128\nain0 result 2048\n");
	char line[64];
	snprintf(line, sizeof line, "rrobin 2048 %u 2048 %u 2048 %u\n", raw, raw, raw);
	tp_expect_line(r.out, line);
	pico_free(p);
}

static void test_pwm_program(void **state)
{
	(void)state;
	run r = run_on(tp_pico(NULL, 0), "pwm_wrap");
	tp_expect_line(r.out, "reset top 65535\nreset div 16\n");
	/* (999 + 1) * 2.5 and 2 * (99 + 1) * 4 cycles between wrap interrupts. */
	tp_expect_line(r.out, "trailing 2500 2500 2500 2500 2500 2500 2500 ints 1\n");
	tp_expect_line(r.out, "phase 800 800 800 800 800 800 800 ints 8\n");
	/* 250 * 17/16 = 265.625 cycles: the fractional divider alternates 265 and 266. */
	const char *l = strstr(r.out, "fraction ");
	assert_non_null(l);
	unsigned v[7], sum = 0;
	assert_int_equal(sscanf(l, "fraction %u %u %u %u %u %u %u", &v[0], &v[1], &v[2], &v[3],
				&v[4], &v[5], &v[6]),
			 7);
	for (int i = 0; i < 7; i++) {
		assert_true(v[i] == 265 || v[i] == 266);
		sum += v[i];
	}
	assert_true(sum == 1859 || sum == 1860);
	tp_expect_line(r.out, " ints 32\n");
	/* DIV 1: the counter counts clk_sys cycles. */
	unsigned long moved = value_of(r.out, "counter moved ");
	assert_true(moved > 100);
	assert_int_equal(moved, value_of(r.out, "systick moved "));
	tp_expect_line(r.out, "stopped holds 1\n");
	tp_expect_line(r.out, "in step 3\n"); /* the second read is one APB read (3 cycles) later */
	/* Ten CC writes, one per wrap of TOP 499 at DIV 1: 5000 cycles. */
	expect_range(r.out, "dma wraps cycles ", 5000, 5030);
	tp_expect_line(r.out, "dma last cc 1000\n");
	tp_expect_line(r.out, "exit 0\n");
	pico_free(r.p);
}

static void test_programs_deterministic(void **state)
{
	(void)state;
	const char *names[] = {"adc_dma", "pwm_wrap", "dma_timer"};
	for (int i = 0; i < 3; i++) {
		run a = run_on(tp_pico(NULL, 0), names[i]);
		run b = run_on(tp_pico(NULL, 0), names[i]);
		assert_int_equal(a.s.cycles, b.s.cycles);
		assert_int_equal(a.s.instructions, b.s.instructions);
		assert_string_equal(a.out, b.out);
		pico_free(a.p);
		pico_free(b.p);
	}
}

/* ---- Registers through the bus ---- */

static void run_cycles(xb_pico *p, uint64_t n)
{
	board_run(pico_board(p), n);
}

static void release(xb_pico *p, uint32_t bits)
{
	tp_write(p, RESETS + CLR, bits);
}

static void test_dma_registers(void **state)
{
	(void)state;
	tp_log log;
	xb_pico *p = tp_pico(&log, 0);
	tp_idle(p);
	release(p, 1u << 2);
	assert_int_equal(tp_read(p, DMA + 0x448), 12);
	/* A hole between the global registers and the debug block is reported. */
	int lines = log.lines;
	assert_int_equal(tp_read(p, DMA + 0x600), 0);
	assert_int_equal(log.lines, lines + 1);
	assert_non_null(strstr(log.last, "DMA"));

	/* 100 words SRAM to SRAM through AL2 (WRITE_ADDR_TRIG): one item per cycle from the
	 * trigger, so after 50 more cycles 51 have moved. */
	for (uint32_t i = 0; i < 100; i++)
		tp_write(p, 0x20010000u + 4 * i, 0xC0DE0000u + i);
	tp_write(p, DMA_CH(3, 0x00), 0x20010000u);
	tp_write(p, DMA_CH(3, 0x08), 100);
	tp_write(p, DMA_CH(3, 0x10), 1u | 2u << 2 | 3u << 4 | 3u << 11 | 0x3Fu << 15); /* AL1 */
	assert_int_equal(tp_read(p, DMA_CH(3, 0x0C)) >> 24 & 1, 0); /* not triggered */
	assert_int_equal(tp_read(p, DMA + 0x8C4), 100);                /* CH3 DBG_TCR */
	tp_write(p, DMA_CH(3, 0x2C), 0x20020000u);                     /* AL2 WRITE_ADDR_TRIG */
	assert_int_equal(tp_read(p, DMA_CH(3, 0x0C)) >> 24 & 1, 1);
	run_cycles(p, 50);
	assert_int_equal(tp_read(p, DMA_CH(3, 0x08)), 49);
	assert_int_equal(tp_read(p, DMA_CH(3, 0x24)), 49); /* AL2 TRANS_COUNT: the same */
	run_cycles(p, 49);
	assert_int_equal(tp_read(p, DMA_CH(3, 0x08)), 0);
	assert_int_equal(tp_read(p, DMA_CH(3, 0x0C)) >> 24 & 1, 0);
	assert_int_equal(tp_read(p, 0x20020000u + 4 * 99), 0xC0DE0000u + 99);
	assert_int_equal(tp_read(p, DMA_CH(3, 0x04)), 0x20020000u + 400);
	assert_int_equal(tp_read(p, DMA + 0x400), 1u << 3); /* INTR */

	/* IRQ lines: INTE0 routes channel 3 to DMA_IRQ_0 (11); INTF1 forces DMA_IRQ_1 (12);
	 * writing INTS0 through the SET alias clears INTR bit 3 (write-1-to-clear). */
	tp_write(p, NVIC_ICPR, 3u << 11);
	tp_write(p, DMA + 0x404, 1u << 3);
	assert_int_equal(tp_read(p, DMA + 0x40C), 1u << 3);
	assert_int_equal(tp_read(p, NVIC_ISPR) >> 11 & 3, 1);
	tp_write(p, DMA + 0x418, 1u << 5);
	assert_int_equal(tp_read(p, DMA + 0x41C), 1u << 5);
	assert_int_equal(tp_read(p, NVIC_ISPR) >> 11 & 3, 3);
	tp_write(p, DMA + SET + 0x40C, 1u << 3);
	assert_int_equal(tp_read(p, DMA + 0x400), 0);
	assert_int_equal(tp_read(p, DMA + 0x40C), 0);

	/* A null trigger (0 written to a trigger alias) with IRQ_QUIET raises the IRQ. */
	tp_write(p, DMA_CH(4, 0x10), 1u << 21 | 4u << 11);
	tp_write(p, DMA_CH(4, 0x3C), 0); /* AL3 READ_ADDR_TRIG */
	assert_int_equal(tp_read(p, DMA + 0x400), 1u << 4);
	assert_int_equal(tp_read(p, DMA_CH(4, 0x0C)) >> 24 & 1, 0);

	/* A DREQ nothing drives (45: no RP2040 block has it) waits and is reported. */
	lines = log.lines;
	tp_write(p, DMA_CH(5, 0x08), 4);
	tp_write(p, DMA_CH(5, 0x0C), 1u | 5u << 11 | 45u << 15);
	run_cycles(p, 1000);
	assert_int_equal(tp_read(p, DMA_CH(5, 0x08)), 4);
	assert_int_equal(log.lines, lines + 1);
	assert_non_null(strstr(log.last, "DREQ 45"));

	/* Two empty sequences chained to each other: each completes a cycle after its
	 * trigger, so the pair keeps the DMA busy (as on the chip) while time passes. */
	tp_write(p, DMA + 0x400, 0xFFFF);
	tp_write(p, DMA_CH(8, 0x10), 1u | 9u << 11 | 0x3Fu << 15);
	tp_write(p, DMA_CH(9, 0x10), 1u | 8u << 11 | 0x3Fu << 15);
	tp_write(p, DMA + 0x430, 1u << 8);
	run_cycles(p, 100);
	assert_int_equal((tp_read(p, DMA_CH(8, 0x0C)) | tp_read(p, DMA_CH(9, 0x0C))) >> 24 & 1, 1);
	assert_int_equal(tp_read(p, DMA + 0x400), 3u << 8);
	tp_write(p, DMA + 0x444, 3u << 8);
	assert_int_equal((tp_read(p, DMA_CH(8, 0x0C)) | tp_read(p, DMA_CH(9, 0x0C))) >> 24 & 1, 0);

	/* reset_block: everything back to zero. */
	tp_write(p, RESETS + SET, 1u << 2);
	release(p, 1u << 2);
	assert_int_equal(tp_read(p, DMA_CH(5, 0x0C)), 0);
	assert_int_equal(tp_read(p, DMA_CH(3, 0x00)), 0);
	assert_int_equal(tp_read(p, DMA + 0x404) | tp_read(p, DMA + 0x41C), 0);
	pico_free(p);
}

static void test_adc_registers(void **state)
{
	(void)state;
	tp_log log;
	xb_pico *p = tp_pico(&log, 0);
	tp_idle(p);
	release(p, 1u);
	assert_int_equal(tp_read(p, ADC + 0x00), 0); /* powered down: not READY */
	tp_write(p, ADC + 0x00, 1);
	assert_int_equal(tp_read(p, ADC + 0x00), 0x101);
	/* AIN1 at 3.3 V reads full scale; the conversion takes exactly 250 cycles. */
	assert_int_equal(pico_adc_set_input(p, 1, 3300000), 0);
	tp_write(p, ADC + SET + 0x00, 1u << 12);
	tp_write(p, ADC + SET + 0x00, 4);
	assert_int_equal(tp_read(p, ADC + 0x00) & 0x10C, 0); /* busy, START_ONCE cleared */
	run_cycles(p, 249);
	assert_int_equal(tp_read(p, ADC + 0x00) & 0x100, 0);
	run_cycles(p, 1);
	assert_int_equal(tp_read(p, ADC + 0x00) & 0x100, 0x100);
	assert_int_equal(tp_read(p, ADC + 0x04), 4095);
	/* The sensor unpowered (TS_EN clear) gives 0 V. */
	tp_write(p, ADC + 0x00, 1 | 4u << 12 | 4);
	run_cycles(p, 250);
	assert_int_equal(tp_read(p, ADC + 0x04), 0);
	/* FIFO: THRESH 2 raises INTR and, with INTE, ADC_IRQ_FIFO (22). */
	tp_write(p, NVIC_ICPR, 1u << 22);
	tp_write(p, ADC + 0x08, 1 | 2u << 24);
	tp_write(p, ADC + 0x18, 1);
	tp_write(p, ADC + 0x00, 1 | 2 | 4u << 12 | 4);
	run_cycles(p, 250);
	assert_int_equal(tp_read(p, ADC + 0x14), 0);
	tp_write(p, ADC + 0x00, 1 | 2 | 4u << 12 | 4);
	run_cycles(p, 250);
	assert_int_equal(tp_read(p, ADC + 0x14), 1);
	assert_int_equal(tp_read(p, ADC + 0x20), 1);
	assert_int_equal(tp_read(p, NVIC_ISPR) >> 22 & 1, 1);
	assert_int_equal(tp_read(p, ADC + 0x08) >> 16 & 0xF, 2);
	/* A debug read of FIFO does not pop it. */
	uint32_t v;
	board_debug_read(pico_board(p), ADC + 0x0C, 4, &v);
	assert_int_equal(v, temp_raw(27.0));
	assert_int_equal(tp_read(p, ADC + 0x08) >> 16 & 0xF, 2);
	assert_int_equal(tp_read(p, ADC + 0x0C), temp_raw(27.0));
	assert_int_equal(tp_read(p, ADC + 0x14), 0);
	tp_read(p, ADC + 0x0C);
	tp_read(p, ADC + 0x0C); /* empty: UNDER */
	assert_int_equal(tp_read(p, ADC + 0x08) & 0x500, 0x500);
	tp_write(p, ADC + SET + 0x08, 0x400);
	assert_int_equal(tp_read(p, ADC + 0x08) & 0x400, 0);
	/* The hole after INTS is reported; a block reset powers the ADC down. */
	int lines = log.lines;
	tp_read(p, ADC + 0x24);
	assert_int_equal(log.lines, lines + 1);
	tp_write(p, RESETS + SET, 1u);
	release(p, 1u);
	assert_int_equal(tp_read(p, ADC + 0x00) | tp_read(p, ADC + 0x08), 0x100 /* EMPTY */);
	pico_free(p);
}

static void test_pwm_registers(void **state)
{
	(void)state;
	tp_log log;
	xb_pico *p = tp_pico(&log, 0);
	tp_idle(p);
	release(p, 1u << 14);
	assert_int_equal(tp_read(p, PWM_SL(0, 0x10)), 0xFFFF);
	assert_int_equal(tp_read(p, PWM_SL(0, 0x04)), 0x10);
	/* Slice 2: TOP 9, DIV 3: CTR moves every 3 cycles and wraps every 30. */
	tp_write(p, PWM_SL(2, 0x10), 9);
	tp_write(p, PWM_SL(2, 0x04), 3u << 4);
	tp_write(p, PWM + 0xA0, 1u << 2); /* EN */
	assert_int_equal(tp_read(p, PWM_SL(2, 0x00)), 1);
	run_cycles(p, 7);
	assert_int_equal(tp_read(p, PWM_SL(2, 0x08)), 2);
	assert_int_equal(tp_read(p, PWM + 0xA4), 0);
	run_cycles(p, 23);
	assert_int_equal(tp_read(p, PWM_SL(2, 0x08)), 0);
	assert_int_equal(tp_read(p, PWM + 0xA4), 1u << 2); /* INTR at the wrap */
	tp_write(p, PWM + 0xA4, 1u << 2);
	assert_int_equal(tp_read(p, PWM + 0xA4), 0);
	/* INTE: PWM_IRQ_WRAP (4) rises at the next wrap, exactly 30 cycles on. */
	tp_write(p, NVIC_ICPR, 1u << 4);
	tp_write(p, PWM + 0xA8, 1u << 2);
	run_cycles(p, 29);
	assert_int_equal(tp_read(p, NVIC_ISPR) >> 4 & 1, 0);
	run_cycles(p, 1);
	assert_int_equal(tp_read(p, NVIC_ISPR) >> 4 & 1, 1);
	assert_int_equal(tp_read(p, PWM + 0xB0), 1u << 2);
	/* TOP written while running takes effect at the next wrap (double-buffered). */
	tp_write(p, PWM + 0xA4, 0xFF);
	tp_write(p, PWM + 0xA8, 0);
	tp_write(p, PWM_SL(2, 0x10), 19);
	run_cycles(p, 30);
	assert_int_equal(tp_read(p, PWM_SL(2, 0x08)), 0); /* old period: wrapped at 30 */
	run_cycles(p, 30);
	assert_int_equal(tp_read(p, PWM_SL(2, 0x08)), 10); /* now counting to 19 */
	/* Stopped, the counter holds; a write sets it. */
	tp_write(p, PWM + CLR + 0xA0, 1u << 2);
	run_cycles(p, 100);
	assert_int_equal(tp_read(p, PWM_SL(2, 0x08)), 10);
	tp_write(p, PWM_SL(2, 0x08), 5);
	assert_int_equal(tp_read(p, PWM_SL(2, 0x08)), 5);
	/* DIVMODE 1 (gated by the B input, which nothing drives) does not count. */
	tp_write(p, PWM_SL(2, 0x00), 1 | 1u << 4);
	run_cycles(p, 100);
	assert_int_equal(tp_read(p, PWM_SL(2, 0x08)), 5);
	int lines = log.lines;
	tp_read(p, PWM + 0xB4);
	assert_int_equal(log.lines, lines + 1);
	tp_write(p, RESETS + SET, 1u << 14);
	release(p, 1u << 14);
	assert_int_equal(tp_read(p, PWM_SL(2, 0x10)), 0xFFFF);
	assert_int_equal(tp_read(p, PWM_SL(2, 0x00)), 0);
	pico_free(p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dma_copy_program),
		cmocka_unit_test(test_dma_sniff_program),
		cmocka_unit_test(test_dma_timer_program),
		cmocka_unit_test(test_dma_uart_program),
		cmocka_unit_test(test_adc_program),
		cmocka_unit_test(test_pwm_program),
		cmocka_unit_test(test_programs_deterministic),
		cmocka_unit_test(test_dma_registers),
		cmocka_unit_test(test_adc_registers),
		cmocka_unit_test(test_pwm_registers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
