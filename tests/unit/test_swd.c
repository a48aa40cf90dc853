/* test_swd: the virtual Pico's SWD port driven bit by bit, as a host would on the wire:
 * dormant state and the selection alert, line resets, TARGETSEL on the multidrop bus,
 * protocol errors and lockout, the CTRL/STAT power-up handshake, sticky errors and ABORT,
 * WAIT from a busy AP, posted reads and RESEND, the MEM-AP (byte lanes, increment, banked
 * data, identification), core 1's and the rescue DP's peculiarities, and DLCR. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_dap_common.h"

#define SRAM 0x20000000u
#define ACK_OK 1u
#define ACK_WAIT 2u
#define ACK_FAULT 4u
#define ACK_NONE 7u

typedef struct host {
	xb_swd *s;
	unsigned trn;
} host;

/* Drives n bits of v, LSB first (bits past 63 are 0). */
static void put(host *h, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		swd_clock(h->s, i < 64 ? (int)((v >> i) & 1u) : 0);
}

/* Releases the line for n cycles; returns the first 64 bits sampled. */
static uint64_t get(host *h, unsigned n)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < n; i++) {
		uint64_t bit = (uint64_t)swd_clock(h->s, SWD_RELEASE);
		if (i < 64)
			v |= bit << i;
	}
	return v;
}

static void line_reset(host *h)
{
	put(h, ~0ull, 56);
	put(h, 0, 8);
}

static void wake(host *h)
{
	put(h, 0xFF, 8);
	put(h, 0x86852D956209F392ull, 64);
	put(h, 0x19BC0EA2E3DDAFE9ull, 64);
	put(h, 0, 4);
	put(h, 0x1A, 8);
	line_reset(h);
}

static void targetsel(host *h, uint32_t v)
{
	put(h, 0x99, 8);
	get(h, 2 * h->trn + 3);
	put(h, v | (uint64_t)__builtin_parity(v) << 32, 33);
	put(h, 0, 2);
}

/* A request byte as sent (start, APnDP, RnW, A2, A3, parity, stop, park). */
static unsigned request(int ap, int rnw, unsigned addr)
{
	unsigned a2 = (addr >> 2) & 1u, a3 = (addr >> 3) & 1u;
	unsigned par = (unsigned)ap ^ (unsigned)rnw ^ a2 ^ a3;
	return 1u | (unsigned)ap << 1 | (unsigned)rnw << 2 | a2 << 3 | a3 << 4 | par << 5 | 1u << 7;
}

/* One transfer with an arbitrary request byte; bad_parity flips a write's parity bit.
 * Returns the ACK, or 8 for read data whose parity is wrong. */
static unsigned xfer_raw(host *h, unsigned req, int rnw, uint32_t *data, int bad_parity)
{
	put(h, req, 8);
	get(h, h->trn);
	unsigned ack = (unsigned)get(h, 3);
	if (ack == ACK_OK && rnw) {
		uint64_t v = get(h, 33);
		get(h, h->trn);
		if (data)
			*data = (uint32_t)v;
		if (((v >> 32) & 1u) != (unsigned)__builtin_parity((uint32_t)v))
			ack = 8;
	} else if (ack == ACK_OK) {
		get(h, h->trn);
		unsigned par = (unsigned)__builtin_parity(*data) ^ (bad_parity ? 1u : 0u);
		put(h, *data | (uint64_t)par << 32, 33);
	} else if (ack == ACK_WAIT || ack == ACK_FAULT) {
		get(h, h->trn);
	} else {
		get(h, h->trn + 33);
	}
	put(h, 0, 2);
	return ack;
}

static unsigned xfer(host *h, int ap, int rnw, unsigned addr, uint32_t *data)
{
	return xfer_raw(h, request(ap, rnw, addr), rnw, data, 0);
}

static unsigned dp_read(host *h, unsigned addr, uint32_t *v)
{
	return xfer(h, 0, 1, addr, v);
}

static unsigned dp_write(host *h, unsigned addr, uint32_t v)
{
	return xfer(h, 0, 0, addr, &v);
}

static unsigned ap_read(host *h, unsigned addr, uint32_t *v)
{
	return xfer(h, 1, 1, addr, v);
}

static unsigned ap_write(host *h, unsigned addr, uint32_t v)
{
	return xfer(h, 1, 0, addr, &v);
}

/* Wakes the bus, selects dp and reads DPIDR. */
static void select_dp(host *h, uint32_t sel)
{
	uint32_t v = 0;
	line_reset(h);
	targetsel(h, sel);
	assert_int_equal(dp_read(h, 0x0, &v), ACK_OK);
	assert_int_equal(v, SWD_DPIDR_VALUE);
}

/* Selected and powered, AP bank 0, CSW word-sized with increment inc. */
static void ready(host *h, uint32_t sel, unsigned inc)
{
	wake(h);
	select_dp(h, sel);
	assert_int_equal(dp_write(h, 0x4, SWD_CTRL_CDBGPWRUPREQ | SWD_CTRL_CSYSPWRUPREQ), ACK_OK);
	assert_int_equal(dp_write(h, 0x8, 0), ACK_OK);
	assert_int_equal(ap_write(h, 0x0, 0x02u | inc << 4), ACK_OK);
}

/* Reads a word of memory: TAR, DRW (posted), RDBUFF. */
static uint32_t mem_read(host *h, uint32_t addr)
{
	uint32_t v = 0;
	assert_int_equal(ap_write(h, 0x4, addr), ACK_OK);
	assert_int_equal(ap_read(h, 0xC, NULL), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	return v;
}

typedef struct fixture {
	xb_board *b;
	host h;
} fixture;

static int setup(void **state)
{
	fixture *f = calloc(1, sizeof *f);
	f->b = sim_board(NULL);
	f->h.s = swd_new(f->b);
	f->h.trn = 1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	fixture *f = *state;
	swd_free(f->h.s);
	board_free(f->b);
	free(f);
	return 0;
}

static void test_dormant_at_power_up(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	for (unsigned i = 0; i < SWD_NDP; i++)
		assert_int_equal(swd_link_state(h->s, i), SWD_LINK_DORMANT);
	line_reset(h);
	assert_int_equal(dp_read(h, 0x0, NULL), ACK_NONE); /* a plain line reset is not enough */
	wake(h);
	for (unsigned i = 0; i < SWD_NDP; i++)
		assert_int_equal(swd_link_state(h->s, i), SWD_LINK_RESET);
	/* A wrong activation code leaves the bus dormant. */
	put(h, 0, 8);
	put(h, ~0ull, 56);
	put(h, 0xE3BC, 16);
	assert_int_equal(swd_link_state(h->s, 0), SWD_LINK_DORMANT);
	put(h, 0xFF, 8);
	put(h, 0x86852D956209F392ull, 64);
	put(h, 0x19BC0EA2E3DDAFE9ull, 64);
	put(h, 0, 4);
	put(h, 0x0A, 8); /* JTAG's code */
	assert_int_equal(swd_link_state(h->s, 0), SWD_LINK_DORMANT);
}

static void test_targetsel_selects_each_dp(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	static const struct {
		uint32_t sel, dlpidr;
		unsigned dp;
	} cases[] = {
		{DH_TARGETSEL_CORE0, 0x00000001u, SWD_DP_CORE0},
		{DH_TARGETSEL_CORE1, 0x10000001u, SWD_DP_CORE1},
		{DH_TARGETSEL_RESCUE, 0xF0000001u, SWD_DP_RESCUE},
	};
	wake(h);
	for (size_t i = 0; i < 3; i++) {
		uint32_t v = 0;
		select_dp(h, cases[i].sel);
		for (unsigned d = 0; d < SWD_NDP; d++)
			assert_int_equal(swd_link_state(h->s, d), d == cases[i].dp ? SWD_LINK_ACTIVE
										 : SWD_LINK_LOCKOUT);
		assert_int_equal(dp_write(h, 0x8, 3), ACK_OK);
		assert_int_equal(dp_read(h, 0x4, &v), ACK_OK);
		assert_int_equal(v, cases[i].dlpidr);
		assert_int_equal(dp_write(h, 0x8, 2), ACK_OK);
		assert_int_equal(dp_read(h, 0x4, &v), ACK_OK);
		assert_int_equal(v, SWD_TARGETID_VALUE);
		assert_int_equal(dp_write(h, 0x8, 0), ACK_OK);
	}
	assert_int_equal(swd_contentions(h->s), 0);
}

static void test_wrong_targetsel_leaves_bus_silent(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	wake(h);
	targetsel(h, 0x21002927u); /* instance 2: nobody */
	for (unsigned d = 0; d < SWD_NDP; d++)
		assert_int_equal(swd_link_state(h->s, d), SWD_LINK_LOCKOUT);
	assert_int_equal(dp_read(h, 0x0, NULL), ACK_NONE);
	/* The right value with a wrong parity bit selects nobody either. */
	line_reset(h);
	put(h, 0x99, 8);
	get(h, 5);
	put(h, DH_TARGETSEL_CORE0 | (uint64_t)(__builtin_parity(DH_TARGETSEL_CORE0) ^ 1) << 32, 33);
	put(h, 0, 2);
	assert_int_equal(dp_read(h, 0x0, NULL), ACK_NONE);
	select_dp(h, DH_TARGETSEL_CORE0); /* a line reset and the right TARGETSEL recover */
}

static void test_reset_state_and_protocol_errors(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	uint32_t v;
	wake(h);
	/* After a line reset only TARGETSEL or a DPIDR read may come first. */
	line_reset(h);
	targetsel(h, DH_TARGETSEL_CORE0);
	assert_int_equal(dp_read(h, 0x4, &v), ACK_NONE);
	assert_int_equal(swd_link_state(h->s, 0), SWD_LINK_LOCKOUT);
	select_dp(h, DH_TARGETSEL_CORE0);
	/* A TARGETSEL while active locks the DP out. */
	targetsel(h, DH_TARGETSEL_CORE0);
	assert_int_equal(dp_read(h, 0x0, &v), ACK_NONE);
	/* Bad request parity, stop bit or park bit: no answer, and none until a line reset. */
	static const unsigned flips[] = {1u << 5, 1u << 6, 1u << 7};
	for (size_t i = 0; i < 3; i++) {
		select_dp(h, DH_TARGETSEL_CORE0);
		assert_int_equal(xfer_raw(h, request(0, 1, 0x0) ^ flips[i], 1, &v, 0), ACK_NONE);
		assert_int_equal(dp_read(h, 0x0, &v), ACK_NONE);
		assert_int_equal(swd_link_state(h->s, 0), SWD_LINK_LOCKOUT);
	}
	/* RESEND with nothing to resend is a protocol error too. */
	select_dp(h, DH_TARGETSEL_CORE0);
	assert_int_equal(dp_read(h, 0x8, &v), ACK_NONE);
}

static void test_swd_to_dormant_and_jtag_noise(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	wake(h);
	select_dp(h, DH_TARGETSEL_CORE0);
	put(h, ~0ull, 56); /* line reset, then SWD-to-dormant */
	put(h, 0xE3BC, 16);
	for (unsigned d = 0; d < SWD_NDP; d++)
		assert_int_equal(swd_link_state(h->s, d), SWD_LINK_DORMANT);
	line_reset(h);
	targetsel(h, DH_TARGETSEL_CORE0);
	assert_int_equal(dp_read(h, 0x0, NULL), ACK_NONE);
	wake(h);
	select_dp(h, DH_TARGETSEL_CORE0);
	/* JTAG-to-dormant means nothing to an SWD port: noise, then a line reset recovers. */
	put(h, 0x1F, 5);
	put(h, 0x33BBBBBAu, 31);
	assert_int_not_equal(swd_link_state(h->s, 0), SWD_LINK_DORMANT);
	select_dp(h, DH_TARGETSEL_CORE0);
}

static void test_power_up_handshake(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	uint32_t v = 0;
	wake(h);
	select_dp(h, DH_TARGETSEL_CORE0);
	assert_int_equal(dp_read(h, 0x4, &v), ACK_OK);
	assert_int_equal(v & 0xF0000000u, 0);
	/* Unpowered, the AP's registers answer but memory accesses fail. */
	assert_int_equal(ap_write(h, 0x0, 0x02), ACK_OK);
	assert_int_equal(ap_write(h, 0x4, SRAM), ACK_OK);
	assert_int_equal(ap_read(h, 0xC, NULL), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_FAULT);
	assert_int_equal(dp_read(h, 0x4, &v), ACK_OK);
	assert_true(v & SWD_CTRL_STICKYERR);
	assert_int_equal(dp_write(h, 0x0, SWD_ABORT_STKERRCLR), ACK_OK);
	assert_int_equal(dp_write(h, 0x4, SWD_CTRL_CDBGPWRUPREQ), ACK_OK);
	assert_int_equal(dp_read(h, 0x4, &v), ACK_OK);
	assert_int_equal(v & 0xF0000000u, SWD_CTRL_CDBGPWRUPREQ | SWD_CTRL_CDBGPWRUPACK);
	assert_int_equal(dp_write(h, 0x4, SWD_CTRL_CDBGPWRUPREQ | SWD_CTRL_CSYSPWRUPREQ), ACK_OK);
	assert_int_equal(dp_read(h, 0x4, &v), ACK_OK);
	assert_int_equal(v & 0xF0000000u, 0xF0000000u);
	board_debug_write(f->b, SRAM, 4, 0xCAFEF00Du);
	assert_int_equal(mem_read(h, SRAM), 0xCAFEF00Du);
	assert_int_equal(dp_write(h, 0x4, 0), ACK_OK);
	assert_int_equal(dp_read(h, 0x4, &v), ACK_OK);
	assert_int_equal(v & 0xF0000000u, 0);
}

static void test_posted_reads_and_resend(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	uint32_t v = 0;
	board_debug_write(f->b, SRAM, 4, 0x11111111u);
	board_debug_write(f->b, SRAM + 4, 4, 0x22222222u);
	ready(h, DH_TARGETSEL_CORE0, 1);
	assert_int_equal(dp_write(h, 0x8, 0xF0), ACK_OK); /* APBANKSEL 0xF */
	assert_int_equal(ap_read(h, 0xC, &v), ACK_OK);    /* IDR, posted */
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v, SWD_AP_IDR_VALUE);
	assert_int_equal(dp_write(h, 0x8, 0x00), ACK_OK);
	assert_int_equal(ap_write(h, 0x4, SRAM), ACK_OK);
	assert_int_equal(ap_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v, SWD_AP_IDR_VALUE); /* the previous AP read's value */
	assert_int_equal(ap_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v, 0x11111111u);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v, 0x22222222u);
	assert_int_equal(dp_read(h, 0x8, &v), ACK_OK); /* RESEND */
	assert_int_equal(v, 0x22222222u);
	assert_int_equal(ap_read(h, 0x4, &v), ACK_OK); /* TAR: advanced twice */
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v, SRAM + 8);
	assert_true(swd_ctrl_stat(h->s, 0) & SWD_CTRL_READOK);
}

static void test_write_parity_error(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	uint32_t v = 0x000000F0u;
	ready(h, DH_TARGETSEL_CORE0, 0);
	/* The ACK comes before the data, so the write is acknowledged, then discarded. */
	assert_int_equal(xfer_raw(h, request(0, 0, 0x8), 0, &v, 1), ACK_OK);
	assert_int_equal(dp_read(h, 0x4, &v), ACK_OK);
	assert_true(v & SWD_CTRL_WDATAERR);
	assert_int_equal(ap_read(h, 0x0, &v), ACK_FAULT);
	assert_int_equal(dp_write(h, 0x8, 0), ACK_FAULT);
	assert_int_equal(dp_read(h, 0x0, &v), ACK_OK); /* DPIDR always answers */
	assert_int_equal(dp_write(h, 0x0, SWD_ABORT_WDERRCLR), ACK_OK);
	assert_int_equal(ap_read(h, 0x0, &v), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v & 0x37u, 0x02u); /* CSW: SELECT was not changed to bank 0xF */
	assert_true(v & (1u << 6));         /* DeviceEn */
}

static void test_sticky_error_from_bus_fault(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	uint32_t v = 0;
	board_set_strict(f->b, 1);
	ready(h, DH_TARGETSEL_CORE0, 0);
	assert_int_equal(ap_write(h, 0x4, 0x30000000u), ACK_OK); /* nothing there */
	assert_int_equal(ap_read(h, 0xC, NULL), ACK_OK);          /* acknowledged, then fails */
	assert_int_equal(dp_read(h, 0xC, &v), ACK_FAULT);
	assert_int_equal(ap_read(h, 0x4, &v), ACK_FAULT);
	assert_int_equal(dp_read(h, 0x4, &v), ACK_OK);
	assert_true(v & SWD_CTRL_STICKYERR);
	assert_int_equal(dp_write(h, 0x0, SWD_ABORT_STKERRCLR), ACK_OK);
	assert_int_equal(dp_read(h, 0x4, &v), ACK_OK);
	assert_false(v & SWD_CTRL_STICKYERR);
	/* A write the board refuses: ROM is read-only. */
	assert_int_equal(ap_write(h, 0x4, 0x00000100u), ACK_OK);
	assert_int_equal(ap_write(h, 0xC, 0x12345678u), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_FAULT);
	assert_int_equal(dp_write(h, 0x0, SWD_ABORT_STKERRCLR), ACK_OK);
	/* Unaligned word accesses fail too. */
	assert_int_equal(ap_write(h, 0x4, SRAM + 2), ACK_OK);
	assert_int_equal(ap_read(h, 0xC, NULL), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_FAULT);
	assert_int_equal(dp_write(h, 0x0, 0x1E), ACK_OK);
	board_debug_write(f->b, SRAM, 4, 0x5A5A5A5Au);
	assert_int_equal(mem_read(h, SRAM), 0x5A5A5A5Au);
}

static void test_wait_from_busy_ap(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	uint32_t v = 0;
	board_debug_write(f->b, SRAM, 4, 0x600DD00Du);
	ready(h, DH_TARGETSEL_CORE0, 0);
	swd_set_ap_busy(h->s, 100);
	assert_int_equal(ap_write(h, 0x4, SRAM), ACK_OK);
	assert_int_equal(ap_read(h, 0xC, NULL), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_WAIT);
	assert_int_equal(ap_read(h, 0x0, &v), ACK_WAIT);
	assert_int_equal(dp_read(h, 0x4, &v), ACK_OK); /* DP registers still answer */
	put(h, 0, 100);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v, 0x600DD00Du);
	/* DAPABORT ends the AP's transfer at once. */
	assert_int_equal(ap_read(h, 0xC, NULL), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_WAIT);
	assert_int_equal(dp_write(h, 0x0, SWD_ABORT_DAPABORT), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	/* With ORUNDETECT a WAIT sets STICKYORUN, and then everything FAULTs. */
	assert_int_equal(dp_write(h, 0x4, SWD_CTRL_CDBGPWRUPREQ | SWD_CTRL_CSYSPWRUPREQ |
						  SWD_CTRL_ORUNDETECT),
			 ACK_OK);
	assert_int_equal(ap_read(h, 0xC, NULL), ACK_OK);
	put(h, 0, 33); /* ORUNDETECT: the host always sends a data phase */
	assert_int_equal(dp_read(h, 0xC, &v), ACK_WAIT);
	put(h, 0, 33);
	assert_int_equal(dp_read(h, 0x4, &v), ACK_OK);
	assert_true(v & SWD_CTRL_STICKYORUN);
	put(h, 0, 200);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_FAULT);
	put(h, 0, 33);
	assert_int_equal(dp_write(h, 0x0, SWD_ABORT_ORUNERRCLR), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v, 0x600DD00Du);
	swd_set_ap_busy(h->s, 0);
}

static void test_byte_lanes_and_increment(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	uint32_t v = 0;
	board_debug_write(f->b, SRAM + 0x100, 4, 0x44332211u);
	ready(h, DH_TARGETSEL_CORE0, 1);
	assert_int_equal(ap_write(h, 0x0, 0x10), ACK_OK); /* byte, increment single */
	assert_int_equal(ap_write(h, 0x4, SRAM + 0x102), ACK_OK);
	assert_int_equal(ap_write(h, 0xC, 0x00AB0000u), ACK_OK); /* lane 2 */
	assert_int_equal(ap_write(h, 0xC, 0xCD000000u), ACK_OK); /* lane 3 */
	assert_int_equal(board_debug_read(f->b, SRAM + 0x100, 4, &v), 0);
	assert_int_equal(v, 0xCDAB2211u);
	assert_int_equal(ap_write(h, 0x4, SRAM + 0x101), ACK_OK);
	assert_int_equal(ap_read(h, 0xC, NULL), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v, 0x00002200u); /* byte 0x22 on lane 1 */
	assert_int_equal(ap_write(h, 0x0, 0x11), ACK_OK); /* halfword */
	assert_int_equal(ap_write(h, 0x4, SRAM + 0x102), ACK_OK);
	assert_int_equal(ap_read(h, 0xC, NULL), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v, 0xCDAB0000u);
	/* Word increments wrap within the 1 KB block. */
	assert_int_equal(ap_write(h, 0x0, 0x12), ACK_OK);
	assert_int_equal(ap_write(h, 0x4, SRAM + 0x3FC), ACK_OK);
	assert_int_equal(ap_write(h, 0xC, 0x01020304u), ACK_OK);
	assert_int_equal(ap_read(h, 0x4, NULL), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v, SRAM);
	/* Larger sizes are refused: CSW keeps the word size. */
	assert_int_equal(ap_write(h, 0x0, 0x13), ACK_OK);
	assert_int_equal(ap_read(h, 0x0, NULL), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v & 0x77u, 0x52u);
}

static void test_banked_data_and_identification(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	uint32_t v = 0;
	for (uint32_t i = 0; i < 4; i++)
		board_debug_write(f->b, SRAM + 0x40 + 4 * i, 4, 0xB0 + i);
	ready(h, DH_TARGETSEL_CORE0, 1);
	assert_int_equal(ap_write(h, 0x4, SRAM + 0x48), ACK_OK);
	assert_int_equal(dp_write(h, 0x8, 0x10), ACK_OK); /* bank 1: BD0-BD3 */
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(ap_read(h, 4 * i, NULL), ACK_OK);
		assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
		assert_int_equal(v, 0xB0 + i);
	}
	assert_int_equal(ap_write(h, 0xC, 0x77), ACK_OK); /* BD3 write */
	assert_int_equal(board_debug_read(f->b, SRAM + 0x4C, 4, &v), 0);
	assert_int_equal(v, 0x77);
	assert_int_equal(dp_write(h, 0x8, 0xF0), ACK_OK);
	static const uint32_t want[3] = {0, 0xE00FF003u, SWD_AP_IDR_VALUE}; /* CFG BASE IDR */
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(ap_read(h, 0x4 + 4 * i, NULL), ACK_OK);
		assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
		assert_int_equal(v, want[i]);
	}
	/* Another APSEL has no AP: reads 0. */
	assert_int_equal(dp_write(h, 0x8, 0x010000F0u), ACK_OK);
	assert_int_equal(ap_read(h, 0xC, NULL), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v, 0);
}

static void test_core1_and_xip_counters(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	uint32_t v = 0, before = 0, after = 0;
	board_debug_write(f->b, SRAM, 4, 0x0C0FFEE1u);
	ready(h, DH_TARGETSEL_CORE1, 0);
	assert_int_equal(mem_read(h, SRAM), 0x0C0FFEE1u);
	/* Flash reads through any alias count in CTR_ACC, as on the chip. */
	before = mem_read(h, 0x14000010u);
	mem_read(h, 0x10000000u);
	mem_read(h, 0x13000000u);
	after = mem_read(h, 0x14000010u);
	assert_int_equal(after - before, 2);
	/* Core 1's own PPB is not modelled: its AP cannot reach DHCSR. */
	assert_int_equal(ap_write(h, 0x4, DH_DHCSR), ACK_OK);
	assert_int_equal(ap_read(h, 0xC, NULL), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_FAULT);
	assert_int_equal(dp_write(h, 0x0, SWD_ABORT_STKERRCLR), ACK_OK);
	/* Core 0's AP can. */
	select_dp(h, DH_TARGETSEL_CORE0);
	assert_int_equal(dp_write(h, 0x4, SWD_CTRL_CDBGPWRUPREQ | SWD_CTRL_CSYSPWRUPREQ), ACK_OK);
	assert_int_equal(ap_write(h, 0x0, 0x02), ACK_OK);
	assert_int_equal(mem_read(h, DH_DHCSR) & 1u, 0);
}

static void test_rescue_reset(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	uint32_t v = 0;
	dh_load_program(f->b, "spin");
	board_run(f->b, 10000);
	assert_false(board_halted(f->b));
	wake(h);
	select_dp(h, DH_TARGETSEL_RESCUE);
	assert_int_equal(dp_write(h, 0x4, SWD_CTRL_CDBGPWRUPREQ), ACK_OK);
	assert_true(board_halted(f->b));
	assert_int_equal(board_reg(f->b, XB_REG_PC) | 1u, dh_symbol("spin", "reset_handler") | 1u);
	/* The rescue DP has no AP. */
	assert_int_equal(dp_write(h, 0x4, SWD_CTRL_CDBGPWRUPREQ | SWD_CTRL_CSYSPWRUPREQ), ACK_OK);
	assert_int_equal(dp_write(h, 0x8, 0xF0), ACK_OK);
	assert_int_equal(ap_read(h, 0xC, NULL), ACK_OK);
	assert_int_equal(dp_read(h, 0xC, &v), ACK_OK);
	assert_int_equal(v, 0);
}

static int g_hook_count;
static void count_hook(void *ctx, const xb_swd_access *a)
{
	(void)ctx;
	if (!a->fault)
		g_hook_count++;
}

static void test_turnaround_contention_and_hook(void **state)
{
	fixture *f = *state;
	host *h = &f->h;
	uint32_t v = 0;
	wake(h);
	select_dp(h, DH_TARGETSEL_CORE0);
	assert_int_equal(dp_write(h, 0x8, 1), ACK_OK);
	assert_int_equal(dp_write(h, 0x4, 1u << 8), ACK_OK); /* DLCR.TURNROUND: 2 cycles */
	h->trn = 2;
	assert_int_equal(dp_read(h, 0x4, &v), ACK_OK);
	assert_int_equal(v, 0x140u);
	assert_int_equal(dp_read(h, 0x0, &v), ACK_OK);
	assert_int_equal(v, SWD_DPIDR_VALUE);
	assert_int_equal(dp_write(h, 0x4, 0), ACK_OK); /* back to 1 (a line reset keeps it) */
	h->trn = 1;
	assert_int_equal(dp_write(h, 0x8, 0), ACK_OK);
	/* Without TARGETSEL every DP answers: DPIDR agrees, DLPIDR does not. */
	line_reset(h);
	assert_int_equal(dp_read(h, 0x0, &v), ACK_OK);
	assert_int_equal(v, SWD_DPIDR_VALUE);
	assert_int_equal(swd_contentions(h->s), 0);
	assert_int_equal(dp_write(h, 0x8, 3), ACK_OK);
	dp_read(h, 0x4, &v);
	assert_true(swd_contentions(h->s) > 0);
	/* The access hook sees every memory access. */
	g_hook_count = 0;
	swd_set_access_hook(h->s, count_hook, NULL);
	ready(h, DH_TARGETSEL_CORE0, 0);
	mem_read(h, SRAM);
	assert_int_equal(ap_write(h, 0xC, 1), ACK_OK);
	assert_int_equal(g_hook_count, 2);
	swd_set_access_hook(h->s, NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dormant_at_power_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_targetsel_selects_each_dp, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wrong_targetsel_leaves_bus_silent, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_reset_state_and_protocol_errors, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_swd_to_dormant_and_jtag_noise, setup, teardown),
		cmocka_unit_test_setup_teardown(test_power_up_handshake, setup, teardown),
		cmocka_unit_test_setup_teardown(test_posted_reads_and_resend, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_parity_error, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sticky_error_from_bus_fault, setup, teardown),
		cmocka_unit_test_setup_teardown(test_wait_from_busy_ap, setup, teardown),
		cmocka_unit_test_setup_teardown(test_byte_lanes_and_increment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_banked_data_and_identification, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_core1_and_xip_counters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rescue_reset, setup, teardown),
		cmocka_unit_test_setup_teardown(test_turnaround_contention_and_hook, setup,
						teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
