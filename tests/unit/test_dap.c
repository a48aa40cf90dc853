/* test_dap: the virtual CMSIS-DAP probe, byte for byte against the CMSIS-DAP specification:
 * every command's answer, ExecuteCommands and QueueCommands, the connect sequences OpenOCD
 * and probe-rs send to an RP2040 (as their DAP_SWJ_Sequence and DAP_SWD_Sequence bytes), a
 * wrong TARGETSEL, parity and sticky errors cleared by ABORT, value match, timestamps,
 * WAIT retries, the timing model, a PC-sampling session checked against the board's own
 * execution, and the Unix socket. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "test_dap_common.h"

#define SRAM 0x20000000u
#define CPU_HZ 125000000u

typedef struct fixture {
	xb_board *b;
	dh h;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof *f);
	f->b = sim_board(NULL);
	dh_init(&f->h, f->b, NULL);
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	dh_free(&f->h);
	board_free(f->b);
	free(f);
	return 0;
}

#define EXPECT(h, ...)                                                               \
	do {                                                                         \
		static const uint8_t want_[] = {__VA_ARGS__};                        \
		if (!dh_is((h), want_, sizeof want_)) {                              \
			print_message("got %zu bytes:", (h)->rlen);                  \
			for (size_t i_ = 0; i_ < (h)->rlen; i_++)                    \
				print_message(" %02x", (h)->resp[i_]);               \
			print_message("\n");                                         \
			fail_msg("response differs from the specification");        \
		}                                                                    \
	} while (0)

static void test_info(void **state)
{
	fixture *f = *state;
	dh *h = &f->h;
	DH_XFER(h, 0x00, 0x01);
	EXPECT(h, 0x00, 9, 'x', 'i', 'p', 'b', 'e', 'n', 'c', 'h', 0);
	DH_XFER(h, 0x00, 0x02);
	assert_int_equal(h->rlen, 2 + 35);
	assert_int_equal(h->resp[1], 35);
	assert_string_equal((const char *)h->resp + 2, "xipbench virtual probe (CMSIS-DAP)");
	DH_XFER(h, 0x00, 0x03);
	EXPECT(h, 0x00, 11, 'x', 'i', 'p', 'b', 'e', 'n', 'c', 'h', '-', '0', 0);
	DH_XFER(h, 0x00, 0x04);
	EXPECT(h, 0x00, 6, '2', '.', '1', '.', '0', 0);
	DH_XFER(h, 0x00, 0x09);
	EXPECT(h, 0x00, 4, '1', '.', '0', 0);
	DH_XFER(h, 0x00, 0xF0);
	EXPECT(h, 0x00, 1, 0x31);
	DH_XFER(h, 0x00, 0xF1);
	EXPECT(h, 0x00, 4, 0x40, 0x59, 0x73, 0x07); /* 125 MHz */
	DH_XFER(h, 0x00, 0xFE);
	EXPECT(h, 0x00, 1, 8);
	DH_XFER(h, 0x00, 0xFF);
	EXPECT(h, 0x00, 2, 64, 0);
	static const uint8_t empty[] = {0x05, 0x06, 0x07, 0x08, 0xFB, 0xFC, 0xFD, 0x42};
	for (size_t i = 0; i < sizeof empty; i++) {
		uint8_t req[2] = {0x00, empty[i]};
		dh_xfer(h, req, 2);
		EXPECT(h, 0x00, 0x00);
	}
}

static void test_simple_commands(void **state)
{
	fixture *f = *state;
	dh *h = &f->h;
	/* Before DAP_Connect there is no port to transfer on. */
	DH_XFER(h, 0x05, 0x00, 0x01, 0x02);
	EXPECT(h, 0x05, 0x00, 0x00);
	DH_XFER(h, 0x06, 0x00, 0x02, 0x00, 0x02);
	EXPECT(h, 0x06, 0x00, 0x00, 0x00);
	DH_XFER(h, 0x08, 0x00, 0x1E, 0x00, 0x00, 0x00);
	EXPECT(h, 0x08, 0xFF);
	DH_XFER(h, 0x01, 0x00, 0x01);
	EXPECT(h, 0x01, 0x00);
	DH_XFER(h, 0x01, 0x01, 0x00);
	EXPECT(h, 0x01, 0x00);
	DH_XFER(h, 0x01, 0x02, 0x01);
	EXPECT(h, 0x01, 0xFF);
	DH_XFER(h, 0x02, 0x02); /* JTAG */
	EXPECT(h, 0x02, 0x00);
	DH_XFER(h, 0x02, 0x07);
	EXPECT(h, 0x02, 0x00);
	DH_XFER(h, 0x02, 0x00); /* default: SWD */
	EXPECT(h, 0x02, 0x01);
	DH_XFER(h, 0x03);
	EXPECT(h, 0x03, 0x00);
	DH_XFER(h, 0x02, 0x01);
	EXPECT(h, 0x02, 0x01);
	DH_XFER(h, 0x04, 0x02, 0x40, 0x00, 0x03, 0x00);
	EXPECT(h, 0x04, 0x00);
	DH_XFER(h, 0x0A);
	EXPECT(h, 0x0A, 0x00, 0x00);
	DH_XFER(h, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00);
	EXPECT(h, 0x10, 0x83); /* SWCLK, SWDIO high; nRESET pulled up */
	DH_XFER(h, 0x11, 0x00, 0x00, 0x00, 0x00);
	EXPECT(h, 0x11, 0xFF);
	DH_XFER(h, 0x11, 0x00, 0x36, 0x6E, 0x01); /* 24 MHz */
	EXPECT(h, 0x11, 0x00);
	DH_XFER(h, 0x12, 0x08, 0xFF);
	EXPECT(h, 0x12, 0x00);
	DH_XFER(h, 0x13, 0x00);
	EXPECT(h, 0x13, 0x00);
	DH_XFER(h, 0x1D, 0x02, 0x08, 0xFF, 0x84);
	EXPECT(h, 0x1D, 0x00, 0x0F); /* four released cycles read the pull-up */
	DH_XFER(h, 0x14, 0x01, 0x08, 0xFF);
	EXPECT(h, 0x14, 0xFF);
	DH_XFER(h, 0x15, 0x01, 0x04);
	EXPECT(h, 0x15, 0xFF);
	DH_XFER(h, 0x16, 0x00);
	EXPECT(h, 0x16, 0xFF);
	DH_XFER(h, 0x42);
	EXPECT(h, 0xFF);
	DH_XFER(h, 0x80, 0x01);
	EXPECT(h, 0xFF);
	DH_XFER(h, 0x18, 0x00); /* SWO: not in this probe */
	EXPECT(h, 0xFF);
	DH_XFER(h, 0x07);
	assert_int_equal(h->rlen, 0); /* TransferAbort: no response */
	/* DAP_Delay waits on the probe: 1000 us more than the 1 ms round trip. */
	uint64_t t0 = dap_host_time(h->dap);
	DH_XFER(h, 0x09, 0xE8, 0x03);
	EXPECT(h, 0x09, 0x00);
	assert_int_equal(dap_host_time(h->dap) - t0, 2 * CPU_HZ / 1000);
	/* Requests longer than a packet are refused. */
	uint8_t big[65] = {0};
	xb_err err;
	assert_int_equal(dap_submit(h->dap, big, sizeof big, &err), -1);
	assert_non_null(strstr(err.msg, "65 bytes"));
}

static void test_execute_and_queue_commands(void **state)
{
	fixture *f = *state;
	dh *h = &f->h;
	/* The specification's example: SWJ_Pins, Delay, SWJ_Pins. */
	DH_XFER(h, 0x7F, 0x03, 0x10, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x09, 0x0A, 0x00, 0x10,
		0x02, 0x02, 0x00, 0x00, 0x00, 0x00);
	EXPECT(h, 0x7F, 0x03, 0x10, 0x81, 0x09, 0x00, 0x10, 0x83);
	/* A command whose answer would not fit is not run: NumCmd says how many ran. */
	DH_XFER(h, 0x7F, 0x03, 0x00, 0x02, 0x00, 0x02, 0x00, 0x01);
	assert_int_equal(h->resp[1], 1);
	assert_int_equal(h->rlen, 2 + 37);
	/* Queued packets run with the next other packet; each gets its own response. */
	uint8_t resp[64];
	size_t len;
	xb_err err;
	static const uint8_t q1[] = {0x7E, 0x01, 0x00, 0xFE};
	static const uint8_t q2[] = {0x7E, 0x02, 0x13, 0x00, 0x02, 0x01};
	static const uint8_t last[] = {0x00, 0xFF};
	assert_int_equal(dap_submit(h->dap, q1, sizeof q1, &err), 0);
	assert_int_equal(dap_submit(h->dap, q2, sizeof q2, &err), 0);
	assert_int_equal(dap_in_flight(h->dap), 2);
	assert_int_equal(dap_collect(h->dap, resp, sizeof resp, &len, NULL), 0);
	assert_int_equal(dap_submit(h->dap, last, sizeof last, &err), 0);
	assert_int_equal(dap_collect(h->dap, resp, sizeof resp, &len, NULL), 1);
	assert_int_equal(len, 5);
	assert_memory_equal(resp, ((const uint8_t[]){0x7F, 0x01, 0x00, 0x01, 0x08}), 5);
	assert_int_equal(dap_collect(h->dap, resp, sizeof resp, &len, NULL), 1);
	assert_int_equal(len, 6);
	assert_memory_equal(resp, ((const uint8_t[]){0x7F, 0x02, 0x13, 0x00, 0x02, 0x01}), 6);
	assert_int_equal(dap_collect(h->dap, resp, sizeof resp, &len, NULL), 1);
	assert_memory_equal(resp, ((const uint8_t[]){0x00, 0x02, 0x40, 0x00}), 4);
	assert_int_equal(dap_in_flight(h->dap), 0);
}

static void test_openocd_connect(void **state)
{
	fixture *f = *state;
	dh *h = &f->h;
	uint32_t dpidr = 0, dlpidr = 0;
	assert_int_equal(dh_openocd_connect(h, DH_TARGETSEL_CORE0, &dpidr, &dlpidr), 1);
	assert_int_equal(h->rlen, 11);
	assert_int_equal(dpidr, SWD_DPIDR_VALUE);
	assert_int_equal(dlpidr, 0x00000001u);
	assert_int_equal(swd_link_state(h->swd, SWD_DP_CORE0), SWD_LINK_ACTIVE);
	/* Switching cores, as OpenOCD's multidrop select does (the bus is out of dormant now,
	 * but the tool sends the whole sequence again on a new session). */
	assert_int_equal(dh_openocd_connect(h, DH_TARGETSEL_CORE1, &dpidr, &dlpidr), 1);
	assert_int_equal(dpidr, SWD_DPIDR_VALUE);
	assert_int_equal(dlpidr, 0x10000001u);
	assert_int_equal(swd_link_state(h->swd, SWD_DP_CORE0), SWD_LINK_LOCKOUT);
	assert_int_equal(swd_contentions(h->swd), 0);
}

static void test_probers_connect(void **state)
{
	fixture *f = *state;
	dh *h = &f->h;
	uint32_t dpidr = 0, targetid = 0, dlpidr = 0;
	assert_true(dh_probers_connect(h, DH_TARGETSEL_CORE1, &dpidr, &targetid, &dlpidr));
	assert_int_equal(dpidr, SWD_DPIDR_VALUE);
	assert_int_equal(targetid, SWD_TARGETID_VALUE);
	assert_int_equal(dlpidr, 0x10000001u);
	assert_true(dh_probers_connect(h, DH_TARGETSEL_CORE0, &dpidr, &targetid, &dlpidr));
	assert_int_equal(dlpidr, 0x00000001u);
	assert_int_equal(swd_contentions(h->swd), 0);
}

static void test_wrong_targetsel_no_ack(void **state)
{
	fixture *f = *state;
	dh *h = &f->h;
	uint32_t dpidr = 0, dlpidr = 0;
	dh_openocd_connect(h, 0x21002927u, &dpidr, &dlpidr);
	EXPECT(h, 0x05, 0x00, 0x07);
	DH_XFER(h, 0x05, 0x00, 0x01, 0x02);
	EXPECT(h, 0x05, 0x00, 0x07);
	xb_dap_stats st;
	dap_stats(h->dap, &st);
	assert_true(st.no_acks >= 2);
}

/* An SWD_Sequence write of SELECT with its parity bit flipped. */
static void bad_parity_select_write(dh *h)
{
	/* request 0xB1 (DP write, A 0x8), release turnaround + ACK + turnaround, then 33 bits */
	DH_XFER(h, 0x1D, 0x03, 0x08, 0xB1, 0x85, 0x21, 0xF0, 0x00, 0x00, 0x00, 0x01);
	EXPECT(h, 0x1D, 0x00, 0x13); /* turnaround (pull-up), ACK OK (1 0 0), turnaround */
}

static void test_parity_error_and_abort(void **state)
{
	fixture *f = *state;
	dh *h = &f->h;
	uint32_t dpidr = 0, dlpidr = 0, ctrl = 0;
	assert_int_equal(dh_openocd_connect(h, DH_TARGETSEL_CORE0, &dpidr, &dlpidr), 1);
	assert_true(dh_power_up(h, 1));
	bad_parity_select_write(h);
	DH_XFER(h, 0x05, 0x00, 0x01, 0x0F); /* AP read: FAULT */
	EXPECT(h, 0x05, 0x00, 0x04);
	assert_int_equal(dh_dp_read(h, 0x4, &ctrl), 1);
	assert_true(ctrl & SWD_CTRL_WDATAERR);
	DH_XFER(h, 0x08, 0x00, 0x08, 0x00, 0x00, 0x00); /* WriteABORT: WDERRCLR */
	EXPECT(h, 0x08, 0x00);
	DH_XFER(h, 0x05, 0x00, 0x01, 0x03); /* AP read of CSW */
	assert_int_equal(h->rlen, 7);
	EXPECT(h, 0x05, 0x01, 0x01, 0x52, 0x00, 0x00, 0x23); /* word, increment, DeviceEn */
}

static void test_sticky_fault_and_abort(void **state)
{
	fixture *f = *state;
	dh *h = &f->h;
	uint32_t dpidr = 0, dlpidr = 0, ctrl = 0, v = 0;
	board_set_strict(f->b, 1);
	assert_int_equal(dh_openocd_connect(h, DH_TARGETSEL_CORE0, &dpidr, &dlpidr), 1);
	assert_int_equal(dh_dp_write(h, 0x8, 0), 1); /* DP bank 0: CTRL/STAT stays readable */
	/* Not powered up yet: the memory access fails, the next transfer gets FAULT. */
	assert_int_equal(dh_mem_read32(h, SRAM, &v), 4);
	EXPECT(h, 0x05, 0x02, 0x04);
	assert_true(dh_power_up(h, 1) == 0); /* its CTRL/STAT write FAULTs */
	assert_int_equal(dh_dp_read(h, 0x4, &ctrl), 1);
	assert_true(ctrl & SWD_CTRL_STICKYERR);
	DH_XFER(h, 0x08, 0x00, 0x04, 0x00, 0x00, 0x00);
	EXPECT(h, 0x08, 0x00);
	assert_true(dh_power_up(h, 1));
	/* An address nothing answers, in strict mode. */
	assert_int_equal(dh_mem_read32(h, 0x30000000u, &v), 4);
	EXPECT(h, 0x05, 0x02, 0x04);
	assert_int_equal(dh_mem_write32(h, SRAM, 1), 4);
	EXPECT(h, 0x05, 0x00, 0x04);
	DH_XFER(h, 0x08, 0x00, 0x1E, 0x00, 0x00, 0x00);
	assert_int_equal(dh_mem_write32(h, SRAM, 0xFEEDC0DEu), 1);
	EXPECT(h, 0x05, 0x02, 0x01);
	assert_int_equal(dh_mem_read32(h, SRAM, &v), 1);
	EXPECT(h, 0x05, 0x02, 0x01, 0xDE, 0xC0, 0xED, 0xFE);
}

static void test_value_match_and_timestamps(void **state)
{
	fixture *f = *state;
	dh *h = &f->h;
	uint32_t dpidr = 0, dlpidr = 0;
	dh_load_program(f->b, "spin");
	assert_int_equal(dh_openocd_connect(h, DH_TARGETSEL_CORE0, &dpidr, &dlpidr), 1);
	assert_true(dh_power_up(h, 0));
	/* TAR = DHCSR, match mask = S_HALT, read DRW until S_HALT: running, so no match. */
	DH_XFER(h, 0x05, 0x00, 0x03, 0x05, 0xF0, 0xED, 0x00, 0xE0, 0x20, 0x00, 0x00, 0x02, 0x00,
		0x1F, 0x00, 0x00, 0x02, 0x00);
	EXPECT(h, 0x05, 0x02, 0x11);
	assert_true(dh_halt(h));
	DH_XFER(h, 0x05, 0x00, 0x03, 0x05, 0xF0, 0xED, 0x00, 0xE0, 0x20, 0x00, 0x00, 0x02, 0x00,
		0x1F, 0x00, 0x00, 0x02, 0x00);
	EXPECT(h, 0x05, 0x03, 0x01);
	/* A DP read with a timestamp: the board's clock at the end of its data phase. */
	uint64_t t0 = dap_host_time(h->dap);
	DH_XFER(h, 0x05, 0x00, 0x01, 0x82);
	assert_int_equal(h->rlen, 11);
	assert_int_equal(h->resp[1], 1);
	assert_int_equal(dh_u32(h->resp + 7), SWD_DPIDR_VALUE);
	uint32_t ts = dh_u32(h->resp + 3);
	uint64_t t1 = dap_host_time(h->dap);
	assert_true(ts > (uint32_t)t0 && ts < (uint32_t)t1);
	/* 500 us to reach the probe, then 46 SWCLK cycles at 1 MHz (request, turnaround, ACK,
	 * data and parity, turnaround). */
	assert_int_equal(ts - (uint32_t)t0, CPU_HZ / 2000 + 46 * (CPU_HZ / 1000000));
	/* AP read with a timestamp: the timestamp comes before the (posted) data. */
	DH_XFER(h, 0x05, 0x00, 0x01, 0x8F);
	assert_int_equal(h->rlen, 11);
	assert_int_equal(dh_u32(h->resp + 7) & DH_S_HALT, DH_S_HALT);
}

static void test_transfer_block_and_wait(void **state)
{
	fixture *f = *state;
	dh *h = &f->h;
	uint32_t dpidr = 0, dlpidr = 0, words[20];
	for (uint32_t i = 0; i < 20; i++)
		words[i] = 0xA0000000u + i;
	assert_int_equal(dh_openocd_connect(h, DH_TARGETSEL_CORE0, &dpidr, &dlpidr), 1);
	assert_true(dh_power_up(h, 1));
	assert_true(dh_mem_write_block(h, SRAM + 0x3F0, words, 20)); /* crosses 1 KB */
	for (uint32_t i = 0; i < 20; i++) {
		uint32_t v = 0;
		board_debug_read(f->b, SRAM + 0x3F0 + 4 * i, 4, &v);
		assert_int_equal(v, words[i]);
	}
	assert_int_equal(dh_ap_write(h, 0x4, SRAM + 0x400), 1);
	DH_XFER(h, 0x06, 0x00, 0x02, 0x00, 0x0F);
	EXPECT(h, 0x06, 0x02, 0x00, 0x01, 0x04, 0x00, 0x00, 0xA0, 0x05, 0x00, 0x00, 0xA0);
	/* A read block is shortened to what fits in a packet. */
	assert_int_equal(dh_ap_write(h, 0x4, SRAM + 0x400), 1);
	DH_XFER(h, 0x06, 0x00, 0x20, 0x00, 0x0F);
	assert_int_equal(h->rlen, 64);
	assert_int_equal(h->resp[1], 15);
	/* A busy AP answers WAIT; the probe retries (TransferConfigure's WAIT retry). */
	swd_set_ap_busy(h->swd, 200);
	uint32_t v = 0;
	assert_int_equal(dh_mem_read32(h, SRAM + 0x400, &v), 1);
	assert_int_equal(v, 0xA0000004u);
	xb_dap_stats st;
	dap_stats(h->dap, &st);
	assert_true(st.waits > 0);
	DH_XFER(h, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00); /* no retries */
	assert_int_equal(dh_mem_read32(h, SRAM + 0x400, &v), 2);
	EXPECT(h, 0x05, 0x02, 0x02);
	DH_XFER(h, 0x08, 0x00, 0x01, 0x00, 0x00, 0x00); /* DAPABORT */
	swd_set_ap_busy(h->swd, 0);
	assert_int_equal(dh_mem_read32(h, SRAM + 0x404, &v), 1);
	assert_int_equal(v, 0xA0000005u);
}

static void test_timing_model(void **state)
{
	fixture *f = *state;
	dh *h = &f->h;
	uint8_t resp[64];
	size_t len;
	uint64_t at = 0;
	xb_err err;
	static const uint8_t info[] = {0x00, 0xFE};
	uint64_t t0 = dap_host_time(h->dap);
	/* Eight packets in flight arrive together after one round trip; a ninth waits. */
	for (int i = 0; i < 8; i++)
		assert_int_equal(dap_submit(h->dap, info, sizeof info, &err), 0);
	assert_int_equal(dap_submit(h->dap, info, sizeof info, &err), -1);
	for (int i = 0; i < 8; i++) {
		assert_int_equal(dap_collect(h->dap, resp, sizeof resp, &len, &at), 1);
		assert_int_equal(at - t0, CPU_HZ / 1000);
	}
	/* A DPIDR read: 8 + 1 + 3 + 33 + 1 = 46 SWCLK cycles, at 1 MHz and at 24 MHz. */
	uint32_t dpidr = 0, dlpidr = 0;
	assert_int_equal(dh_openocd_connect(h, DH_TARGETSEL_CORE0, &dpidr, &dlpidr), 1);
	uint64_t t1 = dap_host_time(h->dap);
	DH_XFER(h, 0x05, 0x00, 0x01, 0x02);
	assert_int_equal(dap_host_time(h->dap) - t1, CPU_HZ / 1000 + 46 * 125);
	dh_swj_clock(h, 24000000);
	t1 = dap_host_time(h->dap);
	DH_XFER(h, 0x05, 0x00, 0x01, 0x02);
	/* 46 periods of 41667 ps = 1916682 ps: 239.6 cycles of 8 ns */
	uint64_t dt = dap_host_time(h->dap) - t1 - CPU_HZ / 1000;
	assert_true(dt == 239 || dt == 240);
	/* The host's clock never runs behind the board's. */
	uint64_t target = dap_host_time(h->dap) + CPU_HZ / 100;
	while (board_cycles(f->b) < target)
		board_run(f->b, target - board_cycles(f->b));
	assert_int_equal(dap_host_time(h->dap), board_cycles(f->b));
}

/* ---- PC sampling ---- */

typedef struct samples {
	uint32_t pc[64];
	uint64_t cycle[64];
	int n;
} samples;

static void record_pcsr(void *ctx, const xb_swd_access *a)
{
	samples *s = ctx;
	if (!a->write && a->addr == DH_DWT_PCSR && s->n < 64) {
		s->pc[s->n] = a->value;
		s->cycle[s->n] = a->cycle;
		s->n++;
	}
}

/* 1 when addr starts an instruction (not data) in the program's disassembly. */
static int instruction_at(const char *name, uint32_t addr)
{
	size_t len;
	char *dis = dh_program_file(name, "dis", &len);
	int found = 0;
	for (char *line = strtok(dis, "\n"); line && !found; line = strtok(NULL, "\n")) {
		unsigned a;
		char colon;
		if (sscanf(line, " %x%c", &a, &colon) == 2 && colon == ':' && a == addr)
			found = !strstr(line, ".word") && !strstr(line, ".short");
	}
	free(dis);
	return found;
}

static void test_pcsr_session(void **state)
{
	fixture *f = *state;
	dh *h = &f->h;
	uint32_t dpidr = 0, dlpidr = 0;
	samples s = {0};
	dh_load_program(f->b, "spin");
	board_run(f->b, 100000);
	assert_int_equal(dh_openocd_connect(h, DH_TARGETSEL_CORE0, &dpidr, &dlpidr), 1);
	assert_true(dh_power_up(h, 0)); /* CSW: word, AddrInc off */
	assert_int_equal(dh_mem_write32(h, DH_DEMCR, 1u << 24), 1); /* DWTENA */
	assert_int_equal(dh_ap_write(h, 0x4, DH_DWT_PCSR), 1);
	dh_swj_clock(h, 24000000);
	swd_set_access_hook(h->swd, record_pcsr, &s);
	DH_XFER(h, 0x06, 0x00, 0x0F, 0x00, 0x0F);
	swd_set_access_hook(h->swd, NULL, NULL);
	/* 64 bytes: header, count 15, OK, 15 words. */
	assert_int_equal(h->rlen, 64);
	assert_int_equal(h->resp[1], 15);
	assert_int_equal(h->resp[3], 1);
	assert_int_equal(s.n, 15);

	int distinct = 0;
	for (int i = 0; i < 15; i++) {
		uint32_t pc = dh_u32(h->resp + 4 + 4 * i);
		assert_int_equal(pc, s.pc[i]);
		if (i) {
			/* fresh: virtual time moved by about one transfer (46 cycles at 24 MHz) */
			assert_true(s.cycle[i] >= s.cycle[i - 1] + 200);
			distinct += pc != s.pc[i - 1];
		}
		assert_true(pc >= 0x10000100u && pc < 0x10001000u);
		assert_true(instruction_at("spin", pc));
	}
	assert_true(distinct >= 5);

	/* The same program on a second board, run to each sample's cycle: the same PC. */
	xb_board *b2 = sim_board(NULL);
	dh_load_program(b2, "spin");
	board_run(b2, 100000);
	for (int i = 0; i < 15; i++) {
		while (board_cycles(b2) < s.cycle[i])
			board_run(b2, s.cycle[i] - board_cycles(b2));
		assert_int_equal(board_cycles(b2), s.cycle[i]);
		assert_int_equal(board_pcsr(b2), s.pc[i]);
	}
	board_free(b2);
}

/* ---- The socket ---- */

typedef struct client_args {
	char path[108];
	uint8_t resp[64];
	size_t rlen;
	int ok;
} client_args;

static void *client_main(void *arg)
{
	client_args *c = arg;
	int fd = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	memcpy(addr.sun_path, c->path, strlen(c->path) + 1);
	if (fd < 0 || connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0)
		return NULL;
	static const uint8_t frame[] = {0x02, 0x00, 0x00, 0x02}; /* DAP_Info product */
	if (write(fd, frame, sizeof frame) != (ssize_t)sizeof frame)
		goto out;
	uint8_t hdr[2];
	size_t got = 0;
	while (got < 2) {
		ssize_t n = read(fd, hdr + got, 2 - got);
		if (n <= 0)
			goto out;
		got += (size_t)n;
	}
	c->rlen = hdr[0] | (size_t)hdr[1] << 8;
	got = 0;
	while (got < c->rlen && c->rlen <= sizeof c->resp) {
		ssize_t n = read(fd, c->resp + got, c->rlen - got);
		if (n <= 0)
			goto out;
		got += (size_t)n;
	}
	c->ok = got == c->rlen;
out:
	close(fd);
	return NULL;
}

static void test_socket(void **state)
{
	fixture *f = *state;
	char dir[] = "/tmp/xb-dap-XXXXXX";
	assert_non_null(mkdtemp(dir));
	client_args c = {0};
	snprintf(c.path, sizeof c.path, "%s/probe.sock", dir);
	xb_err err;
	xb_dap_server *srv = dap_socket_open(c.path, f->h.dap, &err);
	assert_non_null(srv);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, client_main, &c), 0);
	int served = 0;
	for (int i = 0; i < 200 && !c.ok; i++) {
		struct pollfd fds[2];
		int n = dap_socket_pollfds(srv, fds, 2);
		poll(fds, (nfds_t)n, 20);
		int r = dap_socket_service(srv, &err);
		assert_true(r >= 0);
		served += r;
		if (served && !dap_socket_connected(srv))
			break;
	}
	pthread_join(t, NULL);
	assert_int_equal(served, 1);
	assert_true(c.ok);
	assert_int_equal(c.rlen, 37);
	assert_int_equal(c.resp[0], 0x00);
	assert_int_equal(c.resp[1], 35);
	assert_string_equal((const char *)c.resp + 2, "xipbench virtual probe (CMSIS-DAP)");
	/* Refuses to replace something that is not a socket. */
	dap_socket_close(srv);
	char file[160];
	snprintf(file, sizeof file, "%s/plain", dir);
	FILE *fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_null(dap_socket_open(file, f->h.dap, &err));
	assert_non_null(strstr(err.msg, "not a socket"));
	unlink(file);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_info, setup, teardown),
		cmocka_unit_test_setup_teardown(test_simple_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_execute_and_queue_commands, setup, teardown),
		cmocka_unit_test_setup_teardown(test_openocd_connect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_probers_connect, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_targetsel_no_ack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_parity_error_and_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sticky_fault_and_abort, setup, teardown),
		cmocka_unit_test_setup_teardown(test_value_match_and_timestamps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_transfer_block_and_wait, setup, teardown),
		cmocka_unit_test_setup_teardown(test_timing_model, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pcsr_session, setup, teardown),
		cmocka_unit_test_setup_teardown(test_socket, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
