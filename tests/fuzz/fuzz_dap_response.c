/* fuzz_dap_response: any bytes as the responses a CMSIS-DAP probe sends to the host side
 * (probe/): DAP_Info at start-up, the multidrop connect, register and memory transfers,
 * blocks, core halt and registers, XIP counters (also the live session's packet) and a PC
 * sampling session, all through a
 * fake transport. The client must check every answer: never crash, never read past a
 * response, never loop forever.
 *
 * Input: responses one after another, each a length byte (0 .. 255; the response is cut
 * to the packet size) and that many bytes. When they run out the transport fails, as an
 * unplugged probe does. The fake transport's clock moves 100 us per packet, so timeouts end.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../probe/cortexm.h"
#include "../../probe/probe.h"
#include "../../probe/rp2040.h"
#include "../../probe/sampler.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fuzz_link {
	xb_transport base;
	const uint8_t *data;
	size_t size, pos;
	uint64_t now;
} fuzz_link;

static int fuzz_xfer(xb_transport *t, const uint8_t *req, size_t len, uint8_t *resp, size_t cap,
		     size_t *rlen, xb_err *err)
{
	(void)req;
	(void)len;
	fuzz_link *f = (fuzz_link *)t;
	f->now += 100000;
	if (f->pos >= f->size)
		return xb_fail(err, "%s: the responses ran out", t->name);
	size_t n = f->data[f->pos++];
	if (n > f->size - f->pos)
		n = f->size - f->pos;
	size_t keep = n < cap ? n : cap;
	memcpy(resp, f->data + f->pos, keep);
	f->pos += n;
	*rlen = keep;
	return 0;
}

static uint64_t fuzz_now(xb_transport *t)
{
	return ((fuzz_link *)t)->now;
}

static void fuzz_wait(xb_transport *t, uint64_t ns)
{
	((fuzz_link *)t)->now += ns;
}

static void fuzz_close(xb_transport *t)
{
	free(t);
}

static const xb_transport_ops fuzz_ops = {
	.kind = "fuzz",
	.xfer = fuzz_xfer,
	.now_ns = fuzz_now,
	.wait = fuzz_wait,
	.close = fuzz_close,
};

/* What a host does in a session; every step may fail, none may crash. */
static void fuzz_session(xb_transport *t)
{
	xb_err err;
	xb_probe p;
	xb_probe_options o = {.swclk_hz = 24000000};
	if (probe_attach(&p, t, &o, &err))
		return;
	xb_adi *a = p.adi;
	uint32_t v, words[40] = {0};
	adi_mem_read32(a, 0x20000000u, &v, &err);
	adi_mem_write(a, 0x200003F0u, words, 40, &err);
	adi_mem_read(a, 0x200003F0u, words, 40, &err);
	adi_dp_read(a, ADI_DP_DLPIDR, &v, &err);
	adi_ap_read(a, ADI_AP_IDR, &v, &err);
	xb_xip_counters c;
	rp2040_xip_counters(a, &c, &err);
	cortexm_halt(a, 2000000, &err);
	cortexm_read_reg(a, CORTEXM_PC, &v, &err);
	cortexm_write_reg(a, 0, 1, &err);
	rp2040_rom_function(a, RP2040_ROM_CODE('R', 'P'), &v, &err);
	xb_samples s;
	samples_init(&s);
	xb_sampler_config cfg = {.busy_seconds = 0.002, .idle_seconds = 0.001, .status_every = 1};
	sampler_run(a, &cfg, &s, NULL, &err);
	samples_free(&s);
	uint8_t buf[20];
	rp2040_flash_read(a, 3, buf, sizeof buf, &err);
	/* the live session's counter packet, with and without the clear */
	for (int clear = 0; clear < 2; clear++) {
		uint8_t req[64], resp[64];
		size_t n = rp2040_live_counters_request(req, sizeof req, CORTEXM_DWT_PCSR, clear), got;
		xb_xip_live lv;
		if (n && transport_xfer(dap_client_transport(p.dap), req, n, resp, sizeof resp, &got,
					&err) == 0)
			rp2040_live_counters_parse(p.dap, resp, got, clear, &lv, &err);
	}
	probe_close(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	fuzz_link *f = calloc(1, sizeof *f);
	if (!f)
		return 0;
	transport_init(&f->base, &fuzz_ops, "the fuzz probe");
	f->base.link_max = 64;
	f->data = data;
	f->size = size;
	fuzz_session(&f->base);
	return 0;
}
