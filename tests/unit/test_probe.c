/* test_probe: the host side of debugging (probe/) against the virtual Pico and its virtual
 * CMSIS-DAP probe in this process: DAP_Info, both cores' debug ports and the rescue DP,
 * memory through the AP, halt/step/registers, XIP counters, WAIT and FAULT recovery, and
 * responses padded as HID reports; error paths with a fake transport (malformed answers)
 * and with no USB probe. Flash programming and PC sampling: test_probe_flash.c; the
 * socket transport: test_probe_socket.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "test_probe_common.h"

#define SRAM 0x20000000u

typedef vprobe fixture;



static int setup_strict(void **state)
{
	return vprobe_setup_strict(state, 1);
}


static void test_info(void **state)
{
	fixture *f = *state;
	xb_err err;
	xb_dap_client *c = dap_client_new(vpico_transport(&f->v), &err);
	assert_non_null(c);
	const xb_dap_info *i = dap_client_info(c);
	assert_string_equal(i->vendor, "xipbench");
	assert_string_equal(i->product, "xipbench virtual probe (CMSIS-DAP)");
	assert_string_equal(i->serial, "xipbench-0");
	assert_string_equal(i->protocol, "2.1.0");
	assert_string_equal(i->firmware, "1.0");
	assert_int_equal(i->capabilities, 0x31);
	assert_int_equal(i->packet_count, 8);
	assert_int_equal(i->packet_size, 64);
	assert_true(dap_client_transport(c)->virtual_time);
	/* Simple commands: their status bytes are checked. */
	assert_int_equal(dap_client_connect(c, &err), 0);
	assert_int_equal(dap_client_swj_clock(c, TP_SWCLK, &err), 0);
	assert_int_equal(dap_client_swj_clock(c, 0, &err), -1); /* the probe refuses 0 Hz */
	assert_non_null(strstr(err.msg, "DAP_SWJ_Clock failed"));
	uint64_t t0 = dap_client_now_ns(c);
	assert_int_equal(dap_client_delay(c, 1000, &err), 0);
	assert_int_equal(dap_client_now_ns(c) - t0, 2 * TP_MS); /* 1 ms + the round trip */
	assert_int_equal(dap_client_disconnect(c, &err), 0);
	dap_client_free(c);
}

static void test_connect_both_cores(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_attach(&f->v, &f->p, 0);
	xb_adi *a = f->p.adi;
	const xb_adi_ids *id = adi_ids(a);
	assert_int_equal(id->dpidr, SWD_DPIDR_VALUE);
	assert_int_equal(id->targetid, SWD_TARGETID_VALUE);
	assert_int_equal(id->dlpidr, 0x00000001u);
	assert_int_equal(id->ap_idr, SWD_AP_IDR_VALUE);
	assert_int_equal(id->ap_base, 0xE00FF003u);
	assert_int_equal(swd_link_state(f->v.swd, SWD_DP_CORE0), SWD_LINK_ACTIVE);
	uint32_t v = 0;
	assert_int_equal(adi_mem_read32(a, CORTEXM_CPUID, &v, &err), 0);
	assert_int_equal(v, 0x410CC601u);

	/* Core 1: the same system bus, and its own private peripheral bus. */
	xb_probe_options o1 = {.swclk_hz = TP_SWCLK, .core = 1};
	assert_int_equal(probe_connect(&f->p, &o1, &err), 0);
	assert_int_equal(id->dlpidr, 0x10000001u);
	assert_int_equal(swd_link_state(f->v.swd, SWD_DP_CORE0), SWD_LINK_LOCKOUT);
	assert_int_equal(swd_link_state(f->v.swd, SWD_DP_CORE1), SWD_LINK_ACTIVE);
	board_debug_write(f->v.b, SRAM + 0x100, 4, 0x600DF00Du);
	assert_int_equal(adi_mem_read32(a, SRAM + 0x100, &v, &err), 0);
	assert_int_equal(v, 0x600DF00Du);
	v = 0;
	assert_int_equal(adi_mem_read32(a, CORTEXM_CPUID, &v, &err), 0);
	assert_int_equal(v, 0x410CC601u);
	assert_int_equal(adi_mem_read32(a, SRAM + 0x100, &v, &err), 0);
	assert_int_equal(v, 0x600DF00Du);

	/* The rescue DP answers, has no AP, and is left unpowered (no reset). */
	xb_probe_options o2 = {.swclk_hz = TP_SWCLK, .core = 2};
	assert_int_equal(probe_connect(&f->p, &o2, &err), 0);
	assert_int_equal(id->dlpidr, 0xF0000001u);
	assert_int_equal(id->ap_idr, 0);
	assert_int_equal(swd_link_state(f->v.swd, SWD_DP_RESCUE), SWD_LINK_ACTIVE);
	assert_false(swd_ctrl_stat(f->v.swd, SWD_DP_RESCUE) & SWD_CTRL_CDBGPWRUPREQ);

	/* And back to core 0. */
	xb_probe_options o0 = {.swclk_hz = TP_SWCLK, .core = 0};
	assert_int_equal(probe_connect(&f->p, &o0, &err), 0);
	assert_int_equal(id->dlpidr, 0x00000001u);
	assert_int_equal(adi_mem_read32(a, CORTEXM_CPUID, &v, &err), 0);
	assert_int_equal(v, 0x410CC601u);
	assert_int_equal(swd_contentions(f->v.swd), 0);
}

static void test_memory(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_attach(&f->v, &f->p, 0);
	xb_adi *a = f->p.adi;
	/* Single words. */
	assert_int_equal(adi_mem_write32(a, SRAM, 0xFEEDC0DEu, &err), 0);
	uint32_t v = 0;
	board_debug_read(f->v.b, SRAM, 4, &v);
	assert_int_equal(v, 0xFEEDC0DEu);
	assert_int_equal(adi_mem_read32(a, SRAM, &v, &err), 0);
	assert_int_equal(v, 0xFEEDC0DEu);
	/* Blocks across 1 KB boundaries (TAR rewritten), pipelined. */
	enum { N = 700 };
	uint32_t *w = malloc(N * 4), *r = calloc(N, 4);
	for (uint32_t i = 0; i < N; i++)
		w[i] = 0x5A000000u ^ (i * 2654435761u);
	xb_dap_stats s0, s1;
	dap_stats(f->v.dap, &s0);
	assert_int_equal(adi_mem_write(a, SRAM + 0x3F8, w, N, &err), 0);
	for (uint32_t i = 0; i < N; i++) {
		board_debug_read(f->v.b, SRAM + 0x3F8 + 4 * i, 4, &v);
		assert_int_equal(v, w[i]);
	}
	assert_int_equal(adi_mem_read(a, SRAM + 0x3F8, r, N, &err), 0);
	assert_memory_equal(r, w, N * 4);
	dap_stats(f->v.dap, &s1);
	/* 700 words in 1 KB pieces of 2, 256, 256 and 186 words; 14 per write packet, 15 per
	 * read packet (1 + 19 + 19 + 14 and 1 + 18 + 18 + 13), one TAR packet per piece. */
	assert_int_equal(s1.packets - s0.packets, 53 + 50 + 2 * 4);
	free(w);
	free(r);
	/* A batch: TAR is written once for consecutive words. */
	xb_mem_access m[3] = {{.addr = SRAM + 8, .value = 1, .write = 1},
			      {.addr = SRAM + 12, .value = 2, .write = 1},
			      {.addr = SRAM + 8}};
	dap_stats(f->v.dap, &s0);
	assert_int_equal(adi_mem_access(a, m, 3, &err), 0);
	dap_stats(f->v.dap, &s1);
	assert_int_equal(m[2].value, 1);
	assert_int_equal(s1.packets - s0.packets, 1);
	/* TAR, DRW, DRW, TAR, DRW (+ the posted read's RDBUFF) */
	assert_int_equal(s1.transfers - s0.transfers, 6);
	/* Unaligned addresses are refused before anything is sent. */
	assert_int_equal(adi_mem_read32(a, SRAM + 2, &v, &err), -1);
	assert_non_null(strstr(err.msg, "not word aligned"));
	/* DP and AP registers. */
	assert_int_equal(adi_dp_read(a, ADI_DP_DLPIDR, &v, &err), 0);
	assert_int_equal(v, 1);
	assert_int_equal(adi_ap_read(a, ADI_AP_IDR, &v, &err), 0);
	assert_int_equal(v, SWD_AP_IDR_VALUE);
	assert_int_equal(adi_ap_read(a, ADI_AP_CSW, &v, &err), 0);
	assert_int_equal(v & 0x37u, 0x12u); /* word, single increment */
	assert_int_equal(adi_mem_read32(a, SRAM + 12, &v, &err), 0);
	assert_int_equal(v, 2);
}

static void test_halt_step_registers(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_run_program(&f->v, "spin", 100000);
	vpico_attach(&f->v, &f->p, 0);
	xb_adi *a = f->p.adi;
	uint32_t dhcsr = 0, pc = 0, pc2 = 0, v = 0;
	assert_int_equal(cortexm_status(a, &dhcsr, &err), 0);
	assert_string_equal(cortexm_state_name(dhcsr), "running");
	assert_int_equal(cortexm_halt(a, 10 * TP_MS, &err), 0);
	assert_true(board_halted(f->v.b));
	assert_int_equal(cortexm_read_reg(a, CORTEXM_PC, &pc, &err), 0);
	assert_int_equal(pc, board_reg(f->v.b, XB_REG_PC));
	assert_true(pc >= 0x10000100u && pc < 0x10001000u);
	/* A step executes one instruction. */
	uint64_t n0, n1;
	xb_board_counters bc;
	board_counters(f->v.b, &bc);
	n0 = bc.instructions;
	assert_int_equal(cortexm_step(a, 10 * TP_MS, &err), 0);
	board_counters(f->v.b, &bc);
	n1 = bc.instructions;
	assert_int_equal(n1 - n0, 1);
	assert_int_equal(cortexm_read_reg(a, CORTEXM_PC, &pc2, &err), 0);
	assert_int_not_equal(pc2, pc);
	assert_int_equal(pc2, board_reg(f->v.b, XB_REG_PC));
	/* Registers both ways (and back, so that the program runs on). */
	uint32_t saved[13];
	for (unsigned r = 0; r <= 12; r++) {
		assert_int_equal(cortexm_read_reg(a, r, &saved[r], &err), 0);
		assert_int_equal(saved[r], board_reg(f->v.b, r));
		assert_int_equal(cortexm_write_reg(a, r, 0x1000u * r + 7, &err), 0);
	}
	for (unsigned r = 0; r <= 12; r++) {
		assert_int_equal(cortexm_read_reg(a, r, &v, &err), 0);
		assert_int_equal(v, 0x1000u * r + 7);
		assert_int_equal(board_reg(f->v.b, r), 0x1000u * r + 7);
		assert_int_equal(cortexm_write_reg(a, r, saved[r], &err), 0);
	}
	/* Resume: running again; stepping a running core is refused. */
	assert_int_equal(cortexm_resume(a, 0, &err), 0);
	assert_int_equal(cortexm_status(a, &dhcsr, &err), 0);
	assert_false(dhcsr & CORTEXM_S_HALT);
	assert_int_equal(cortexm_step(a, 10 * TP_MS, &err), -1);
	assert_non_null(strstr(err.msg, "not halted"));
	assert_int_equal(cortexm_read_reg(a, CORTEXM_PC, &v, &err), -1);
	assert_non_null(strstr(err.msg, "running"));
	/* Reset with a halt on the reset vector, then without. */
	assert_int_equal(cortexm_reset(a, 1, 10 * TP_MS, &err), 0);
	assert_true(board_halted(f->v.b));
	assert_int_equal(cortexm_read_reg(a, CORTEXM_PC, &pc, &err), 0);
	assert_int_equal(pc | 1u, dh_symbol("spin", "reset_handler") | 1u);
	assert_int_equal(adi_mem_read32(a, CORTEXM_DEMCR, &v, &err), 0);
	assert_false(v & CORTEXM_VC_CORERESET);
	assert_int_equal(cortexm_reset(a, 0, 10 * TP_MS, &err), 0);
	assert_int_equal(cortexm_status(a, &dhcsr, &err), 0);
	assert_string_equal(cortexm_state_name(dhcsr), "running");
}

static void test_halt_timeout_and_call(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_run_program(&f->v, "spin", 100000);
	vpico_attach(&f->v, &f->p, 0);
	xb_adi *a = f->p.adi;
	/* Waiting for a halt nobody asked for times out in virtual time, with the state. */
	uint64_t t0 = dap_client_now_ns(f->p.dap);
	assert_int_equal(cortexm_wait_halt(a, 5 * TP_MS, NULL, &err), -1);
	assert_non_null(strstr(err.msg, "did not halt within 5 ms"));
	assert_non_null(strstr(err.msg, "running"));
	uint64_t spent = dap_client_now_ns(f->p.dap) - t0;
	assert_in_range(spent, 5 * TP_MS, 8 * TP_MS);
	/* A call of the bootrom's popcount32 ('P','3') through a trap in SRAM. */
	assert_int_equal(cortexm_halt(a, 10 * TP_MS, &err), 0);
	uint32_t fn = 0, r0 = 0;
	assert_int_equal(rp2040_rom_function(a, RP2040_ROM_CODE('P', '3'), &fn, &err), 0);
	assert_int_not_equal(fn, 0);
	assert_int_equal(adi_mem_write32(a, SRAM, 0xBE00BE00u, &err), 0);
	xb_cortexm_call call = {.fn = fn, .args = {0xF0F00001u}, .trap = SRAM, .sp = SRAM + 0x800,
				.timeout_ns = 10 * TP_MS};
	assert_int_equal(cortexm_call(a, &call, &r0, &err), 0);
	assert_int_equal(r0, 9);
	/* A function that never returns to the trap: the call says where the core stopped. */
	call.fn = SRAM + 4;
	assert_int_equal(adi_mem_write32(a, SRAM + 4, 0xBE01BE01u, &err), 0); /* BKPT 1 */
	assert_int_equal(cortexm_call(a, &call, &r0, &err), -1);
	assert_non_null(strstr(err.msg, "stopped at 0x20000004"));
	/* An unknown ROM code has no function. */
	assert_int_equal(rp2040_rom_function(a, RP2040_ROM_CODE('Z', 'Z'), &fn, &err), 0);
	assert_int_equal(fn, 0);
}

static void test_xip_counters(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_run_program(&f->v, "spin", 100000);
	vpico_attach(&f->v, &f->p, 0);
	xb_adi *a = f->p.adi;
	xb_xip_counters c0, c1, c2;
	assert_int_equal(rp2040_xip_counters(a, &c0, &err), 0);
	assert_true(c0.acc > 0);
	/* The program runs on (from flash) while the host waits. */
	transport_wait(dap_client_transport(f->p.dap), TP_MS);
	assert_int_equal(rp2040_xip_counters(a, &c1, &err), 0);
	assert_true(c1.acc > c0.acc + 1000);
	assert_true(c1.hit > c0.hit + 1000);
	uint32_t hw_acc = 0;
	board_debug_read(f->v.b, RP2040_XIP_CTR_ACC, 4, &hw_acc);
	assert_true(hw_acc >= c1.acc);
	/* Cleared on write: with the core halted nothing counts afterwards. */
	assert_int_equal(cortexm_halt(a, 10 * TP_MS, &err), 0);
	assert_int_equal(rp2040_xip_clear(a, &err), 0);
	assert_int_equal(rp2040_xip_counters(a, &c2, &err), 0);
	assert_int_equal(c2.acc, 0);
	assert_int_equal(c2.hit, 0);
	/* Flush; then reading flash through 0x13 fills no cache line (CTR_ACC sees the
	 * reads, CTR_HIT does not: nothing hits). */
	assert_int_equal(rp2040_xip_flush(a, &err), 0);
	xb_cache *cache = board_cache(f->v.b);
	uint8_t buf[300], want[300];
	assert_int_equal(rp2040_flash_read(a, 0x102, buf, sizeof buf, &err), 0);
	assert_int_equal(board_peek(f->v.b, 0x10000102u, want, sizeof want, &err), 0);
	assert_memory_equal(buf, want, sizeof buf);
	for (uint32_t set = 0; set < cache_nsets(cache); set++)
		for (uint32_t way = 0; way < cache_config(cache)->ways; way++)
			assert_int_equal(cache_peek(cache, set, way), -1);
	assert_int_equal(rp2040_xip_counters(a, &c2, &err), 0);
	assert_int_equal(c2.hit, 0);
	assert_true(c2.acc >= 300 / 4);
	/* A read through 0x10 does fill (that is why the probe does not use it). */
	uint32_t w;
	assert_int_equal(adi_mem_read32(a, 0x10000100u, &w, &err), 0);
	assert_int_equal(cache_peek(cache, (0x100 >> 3) & (cache_nsets(cache) - 1), 0), 0x100);
	xb_board_counters b0, b1;
	board_counters(f->v.b, &b0);
	/* The program misses again after the flush. */
	assert_int_equal(cortexm_resume(a, 0, &err), 0);
	assert_int_equal(rp2040_xip_counters(a, &c2, &err), 0);
	board_counters(f->v.b, &b1);
	assert_true(b1.xip_misses > b0.xip_misses);
}

static void test_wait_and_fault(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_attach(&f->v, &f->p, 0);
	xb_adi *a = f->p.adi;
	uint32_t v = 0;
	/* Strict mode: an address nothing answers. */
	assert_int_equal(adi_mem_read32(a, 0x30000000u, &v, &err), -1);
	assert_non_null(strstr(err.msg, "reading memory at 0x30000000"));
	assert_non_null(strstr(err.msg, "FAULT"));
	assert_non_null(strstr(err.msg, "sticky error is cleared"));
	assert_int_equal(adi_mem_write32(a, SRAM, 77, &err), 0);
	assert_int_equal(adi_mem_read32(a, SRAM, &v, &err), 0);
	assert_int_equal(v, 77);
	/* A block that runs into nothing names where it failed. */
	uint32_t words[8] = {0};
	assert_int_equal(adi_mem_write(a, 0x30000000u, words, 8, &err), -1);
	assert_non_null(strstr(err.msg, "0x30000000"));
	assert_true(adi_connected(a));
	/* A busy AP: the probe retries WAIT; with no retries allowed the host aborts, tries
	 * twice more and gives up with a message; afterwards all is well. */
	swd_set_ap_busy(f->v.swd, 500);
	assert_int_equal(adi_mem_read32(a, SRAM, &v, &err), 0);
	assert_int_equal(v, 77);
	assert_int_equal(dap_client_transfer_configure(f->p.dap, 0, 0, 0, &err), 0);
	assert_int_equal(adi_mem_read32(a, SRAM, &v, &err), -1);
	assert_non_null(strstr(err.msg, "WAIT"));
	swd_set_ap_busy(f->v.swd, 0);
	assert_int_equal(adi_mem_read32(a, SRAM, &v, &err), 0);
	assert_int_equal(v, 77);
	/* A lost target (every DP locked out): no ACK, and the port says so. */
	uint8_t noise[4] = {0xFF, 0x00, 0xFF, 0x00};
	assert_int_equal(dap_client_swj_sequence(f->p.dap, 32, noise, &err), 0);
	assert_int_equal(adi_mem_read32(a, SRAM, &v, &err), -1);
	assert_non_null(strstr(err.msg, "nothing answered"));
	assert_false(adi_connected(a));
	assert_int_equal(adi_mem_read32(a, SRAM, &v, &err), -1);
	assert_non_null(strstr(err.msg, "not connected"));
	xb_probe_options o = {.swclk_hz = TP_SWCLK};
	assert_int_equal(probe_connect(&f->p, &o, &err), 0);
	assert_int_equal(adi_mem_read32(a, SRAM, &v, &err), 0);
	assert_int_equal(v, 77);
}

/* ---- A transport whose responses look like HID reports: padded to 64 bytes ---- */

typedef struct padded {
	xb_transport base;
	xb_transport *inner;
} padded;

static int padded_xfer(xb_transport *t, const uint8_t *req, size_t len, uint8_t *resp,
		       size_t cap, size_t *rlen, xb_err *err)
{
	padded *p = (padded *)t;
	if (transport_xfer(p->inner, req, len, resp, cap, rlen, err))
		return -1;
	memset(resp + *rlen, 0, 64 - *rlen);
	*rlen = 64;
	return 0;
}

static void padded_close(xb_transport *t)
{
	padded *p = (padded *)t;
	transport_close(p->inner);
	free(p);
}

static const xb_transport_ops padded_ops = {
	.kind = "padded",
	.xfer = padded_xfer,
	.close = padded_close,
};

static void test_padded_reports(void **state)
{
	fixture *f = *state;
	xb_err err;
	vpico_run_program(&f->v, "spin", 100000);
	padded *p = xcalloc(1, sizeof *p);
	transport_init(&p->base, &padded_ops, "a padding probe");
	p->inner = vpico_transport(&f->v);
	p->base.link_max = 64;
	xb_probe_options o = {.swclk_hz = TP_SWCLK};
	assert_int_equal(probe_attach(&f->p, &p->base, &o, &err), 0);
	xb_adi *a = f->p.adi;
	uint32_t words[40], back[40];
	for (int i = 0; i < 40; i++)
		words[i] = 0xC0DE0000u + (uint32_t)i;
	assert_int_equal(adi_mem_write(a, SRAM + 0x40, words, 40, &err), 0);
	assert_int_equal(adi_mem_read(a, SRAM + 0x40, back, 40, &err), 0);
	assert_memory_equal(back, words, sizeof words);
	xb_xip_counters c;
	assert_int_equal(rp2040_xip_counters(a, &c, &err), 0);
	assert_true(c.acc > 0);
	/* No pipelining without submit/collect of the transport's own: emulated, 8 deep. */
	xb_samples s;
	samples_init(&s);
	xb_sampler_config cfg = {.busy_seconds = 0.002};
	xb_sampler_stats st;
	assert_int_equal(sampler_run(a, &cfg, &s, &st, &err), 0);
	assert_true(st.samples >= 15);
	assert_int_equal(st.per_block, 15);
	samples_free(&s);
}

/* ---- Malformed answers from a fake transport ---- */

typedef struct fake {
	xb_transport base;
	const uint8_t *const *script; /* responses, one per request */
	const size_t *lens;
	size_t n, at;
	uint8_t last_cmd;
} fake;

static int fake_xfer(xb_transport *t, const uint8_t *req, size_t len, uint8_t *resp, size_t cap,
		     size_t *rlen, xb_err *err)
{
	(void)len;
	fake *f = (fake *)t;
	f->last_cmd = req[0];
	if (f->at >= f->n)
		return xb_fail(err, "%s: script ended", t->name);
	size_t n = f->lens[f->at] < cap ? f->lens[f->at] : cap;
	memcpy(resp, f->script[f->at], n);
	*rlen = n;
	f->at++;
	return 0;
}

static void fake_close(xb_transport *t)
{
	free(t);
}

static const xb_transport_ops fake_ops = {
	.kind = "fake",
	.xfer = fake_xfer,
	.close = fake_close,
};

static xb_transport *fake_new(const uint8_t *const *script, const size_t *lens, size_t n)
{
	fake *f = xcalloc(1, sizeof *f);
	transport_init(&f->base, &fake_ops, "a fake probe");
	f->script = script;
	f->lens = lens;
	f->n = n;
	return &f->base;
}

#define R(...) ((const uint8_t[]){__VA_ARGS__})
#define L(...) sizeof((const uint8_t[]){__VA_ARGS__})

/* The DAP_Info answers dap_client_new asks for (size, count, caps, 4 strings, firmware). */
#define INFO_OK                                                                            \
	R(0x00, 2, 64, 0), R(0x00, 1, 8), R(0x00, 1, 0x01), R(0x00, 2, 'v', 0), R(0x00, 0),   \
		R(0x00, 3, 'S', '1', 0), R(0x00, 4, '2', '.', '1', 0), R(0x00, 0)
#define INFO_LENS L(0x00, 2, 64, 0), L(0x00, 1, 8), L(0x00, 1, 0x01), L(0x00, 2, 'v', 0),   \
		  L(0x00, 0), L(0x00, 3, 'S', '1', 0), L(0x00, 4, '2', '.', '1', 0), L(0x00, 0)

static void expect_new_fails(const uint8_t *const *script, const size_t *lens, size_t n,
			     const char *want)
{
	xb_err err;
	xb_dap_client *c = dap_client_new(fake_new(script, lens, n), &err);
	assert_null(c);
	if (!strstr(err.msg, want))
		fail_msg("'%s' not in '%s'", want, err.msg);
	assert_non_null(strstr(err.msg, "a fake probe"));
}

static void test_malformed_responses(void **state)
{
	(void)state;
	xb_err err;
	{ /* a packet size of 3 bytes */
		const uint8_t *s[] = {R(0x00, 2, 3, 0)};
		const size_t l[] = {L(0x00, 2, 3, 0)};
		expect_new_fails(s, l, 1, "too small");
	}
	{ /* an answer to another command */
		const uint8_t *s[] = {R(0x05, 2, 64, 0)};
		const size_t l[] = {L(0x05, 2, 64, 0)};
		expect_new_fails(s, l, 1, "malformed response to DAP_Info");
	}
	{ /* a length byte beyond the response */
		const uint8_t *s[] = {R(0x00, 9, 64)};
		const size_t l[] = {L(0x00, 9, 64)};
		expect_new_fails(s, l, 1, "malformed");
	}
	{ /* an empty answer */
		const uint8_t *s[] = {R(0x00)};
		const size_t l[] = {0};
		expect_new_fails(s, l, 1, "empty");
	}
	{ /* the probe does not know DAP_Info */
		const uint8_t *s[] = {R(0xFF)};
		const size_t l[] = {1};
		expect_new_fails(s, l, 1, "does not know DAP_Info");
	}
	{ /* a packet count of two bytes */
		const uint8_t *s[] = {R(0x00, 2, 64, 0), R(0x00, 2, 8, 0)};
		const size_t l[] = {L(0x00, 2, 64, 0), L(0x00, 2, 8, 0)};
		expect_new_fails(s, l, 2, "item 0xfe has 2 bytes");
	}
	/* Transfers: more done than asked, too short for the data, a block with too many
	 * words, a wrong command byte; each fails cleanly and the client stays usable. */
	const uint8_t *s[] = {
		INFO_OK,
		R(0x05, 3, 0x01),                         /* 3 done of 1 */
		R(0x05, 1, 0x01, 0xAA),                   /* a read with 1 data byte */
		R(0x06, 20, 0, 0x01),                     /* 20 words of 2, no data */
		R(0x03, 0x00),                            /* Disconnect's answer to a Transfer */
		R(0x05, 1, 0x01, 0x78, 0x56, 0x34, 0x12), /* finally a good one */
		R(0x05, 0, 0x04),                         /* FAULT: reported, values unused */
		R(0x12, 0xFF),                            /* SWJ_Sequence refused */
	};
	const size_t l[] = {INFO_LENS,
			    L(0x05, 3, 0x01),
			    L(0x05, 1, 0x01, 0xAA),
			    L(0x06, 20, 0, 0x01),
			    L(0x03, 0x00),
			    L(0x05, 1, 0x01, 0x78, 0x56, 0x34, 0x12),
			    L(0x05, 0, 0x04),
			    L(0x12, 0xFF)};
	xb_dap_client *c = dap_client_new(fake_new(s, l, sizeof l / sizeof l[0]), &err);
	assert_non_null(c);
	assert_string_equal(dap_client_info(c)->serial, "S1");
	assert_string_equal(dap_client_info(c)->product, "");
	xb_dap_transfer x = {XB_DAP_READ, 0};
	xb_dap_status st;
	assert_int_equal(dap_client_transfer(c, &x, 1, &st, &err), -1);
	assert_non_null(strstr(err.msg, "malformed response to DAP_Transfer"));
	assert_int_equal(st.ack, 0);
	assert_int_equal(dap_client_transfer(c, &x, 1, &st, &err), -1);
	assert_non_null(strstr(err.msg, "too short"));
	uint32_t w[2];
	assert_int_equal(dap_client_transfer_block(c, XB_DAP_AP | XB_DAP_READ | 0xC, w, 2, &st,
						   &err),
			 -1);
	assert_non_null(strstr(err.msg, "DAP_TransferBlock"));
	assert_int_equal(dap_client_transfer(c, &x, 1, &st, &err), -1);
	assert_non_null(strstr(err.msg, "0x03"));
	assert_int_equal(dap_client_transfer(c, &x, 1, &st, &err), 0);
	assert_int_equal(x.value, 0x12345678u);
	assert_int_equal(dap_client_transfer(c, &x, 1, &st, &err), -1);
	assert_int_equal(st.ack, XB_ACK_FAULT);
	assert_non_null(strstr(err.msg, "FAULT"));
	uint8_t bits[1] = {0xFF};
	assert_int_equal(dap_client_swj_sequence(c, 8, bits, &err), -1);
	assert_non_null(strstr(err.msg, "DAP_SWJ_Sequence failed"));
	/* The script has ended: the transport fails and stays failed with that message. */
	assert_int_equal(dap_client_transfer(c, &x, 1, &st, &err), -1);
	assert_non_null(strstr(err.msg, "script ended"));
	assert_int_equal(dap_client_delay(c, 1, &err), -1);
	assert_non_null(strstr(err.msg, "script ended"));
	dap_client_free(c);
}

/* ---- No USB probe ---- */

static void test_no_usb_probe(void **state)
{
	(void)state;
	xb_err err;
	xb_usb_probe *list;
	size_t n;
	if (transport_usb_list(&list, &n, &err)) {
		assert_non_null(strstr(err.msg, "libusb_init"));
		print_message("# skipped: %s\n", err.msg);
		skip();
	}
	free(list);
	if (n) {
		print_message("# skipped: %zu CMSIS-DAP probes are attached\n", n);
		skip();
	}
	assert_null(transport_usb_open(NULL, &err));
	assert_non_null(strstr(err.msg, "no CMSIS-DAP probe found"));
	assert_null(transport_usb_open("E6614103E7728F24", &err));
	assert_non_null(strstr(err.msg, "no CMSIS-DAP probe found"));
	xb_probe p;
	xb_probe_options o = {0};
	assert_int_equal(probe_open(&p, &o, &err), -1);
	assert_non_null(strstr(err.msg, "no CMSIS-DAP probe found"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_info, vprobe_setup, vprobe_teardown),
		cmocka_unit_test_setup_teardown(test_connect_both_cores, vprobe_setup, vprobe_teardown),
		cmocka_unit_test_setup_teardown(test_memory, vprobe_setup, vprobe_teardown),
		cmocka_unit_test_setup_teardown(test_halt_step_registers, vprobe_setup, vprobe_teardown),
		cmocka_unit_test_setup_teardown(test_halt_timeout_and_call, vprobe_setup, vprobe_teardown),
		cmocka_unit_test_setup_teardown(test_xip_counters, vprobe_setup, vprobe_teardown),
		cmocka_unit_test_setup_teardown(test_wait_and_fault, setup_strict, vprobe_teardown),
		cmocka_unit_test_setup_teardown(test_padded_reports, vprobe_setup, vprobe_teardown),
		cmocka_unit_test(test_malformed_responses),
		cmocka_unit_test(test_no_usb_probe),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
