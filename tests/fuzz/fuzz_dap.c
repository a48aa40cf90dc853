/* fuzz_dap: any bytes as one CMSIS-DAP request to a fresh virtual probe on a small board
 * (connected, the bus awake, core 0 selected and powered, so that transfers reach the
 * board): never crashes, never answers more than a packet, refuses what it must refuse. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/target.h"
#include "../../sim/board.h"
#include "../../sim/dap.h"
#include "../../sim/swd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A small RP2040-like target: little flash and SRAM, the real debug map. */
static const char small_target[] =
	"name = small\n"
	"cpu_hz = 125000000\n"
	"flash_size = 64K\n"
	"code_align = 2\n"
	"[region rom]\nkind = rom\nbase = 0x00000000\nsize = 16K\n"
	"[region flash]\nkind = flash\nbase = 0x10000000\nsize = 64K\n"
	"[region xip_ctrl]\nkind = other\nbase = 0x14000000\nsize = 0x1000\n"
	"[region sram]\nkind = sram\nbase = 0x20000000\nsize = 16K\n"
	"[region ppb]\nkind = other\nbase = 0xe0000000\nsize = 0x10000000\n"
	"[alias]\nbase = 0x10000000\nmode = cached-alloc\n"
	"[alias]\nbase = 0x13000000\nmode = uncached-noalloc\n"
	"[cache]\nsize = 1K\nways = 2\nline = 8\nfill = 8\npolicy = lru\nseed = 1\n"
	"hit_cycles = 1\nmiss_penalty = 70\nflush_cycles = 128\n"
	"[registers]\nctrl = 0x14000000\nflush = 0x14000004\nstat = 0x14000008\n"
	"ctr_hit = 0x1400000c\nctr_acc = 0x14000010\n";

static void transact(xb_dap *d, const uint8_t *req, size_t len)
{
	uint8_t resp[64];
	size_t rlen;
	if (dap_transact(d, req, len, resp, sizeof resp, &rlen, NULL))
		abort();
}

/* Connect, wake the bus, select core 0, power up (what every host does first). */
static void prime(xb_dap *d)
{
	static const uint8_t connect[] = {0x02, 0x01};
	static const uint8_t wake[] = {0x12, 0xe0, 0xff, 0x92, 0xf3, 0x09, 0x62, 0x95, 0x2d, 0x85,
				       0x86, 0xe9, 0xaf, 0xdd, 0xe3, 0xa2, 0x0e, 0xbc, 0x19, 0xa0,
				       0xf1, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x00};
	static const uint8_t targetsel[] = {0x1d, 0x03, 0x08, 0x99, 0x85, 0x21,
					    0x27, 0x29, 0x00, 0x01, 0x00};
	static const uint8_t power[] = {0x05, 0x00, 0x04, 0x02, 0x08, 0x00, 0x00, 0x00, 0x00,
					0x04, 0x00, 0x00, 0x00, 0x50, 0x01, 0x12, 0x00, 0x00, 0x23};
	transact(d, connect, sizeof connect);
	transact(d, wake, sizeof wake);
	transact(d, targetsel, sizeof targetsel);
	transact(d, power, sizeof power);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_target t;
	xb_err err;
	if (target_parse(&t, small_target, sizeof small_target - 1, "small.target", &err))
		abort();
	xb_board *b = board_new(&t, &err);
	if (!b)
		abort();
	board_set_log(b, NULL, NULL);
	xb_swd *swd = swd_new(b);
	xb_dap *d = dap_new(swd, NULL);
	prime(d);
	if (swd_link_state(swd, SWD_DP_CORE0) != SWD_LINK_ACTIVE)
		abort();

	int rc = dap_submit(d, data, size, &err);
	if ((size == 0 || size > 64) != (rc != 0))
		abort(); /* refuses exactly the packets that do not fit */
	uint8_t resp[1024];
	size_t len;
	unsigned responses = 0;
	while (dap_collect(d, resp, sizeof resp, &len, NULL)) {
		if (len == 0 || len > 64)
			abort();
		responses++;
	}
	if (rc == 0) {
		int silent = data[0] == 0x7E || data[0] == 0x07;
		if (responses != (silent ? 0u : 1u))
			abort();
	}
	dap_free(d);
	swd_free(swd);
	board_free(b);
	return 0;
}
