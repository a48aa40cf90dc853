/* test_dap_common.h: a small CMSIS-DAP host for the virtual probe's byte-level tests and
 * benchmark: packets built byte by byte, the connect sequences OpenOCD and probe-rs send to
 * an RP2040, register and memory access through DAP_Transfer, core halt through DHCSR, and
 * the test programs of tests/data/dap. Header-only (static functions); transport failures
 * abort, protocol answers are returned for the tests to check. Tests that only need a
 * working host use probe/ (test_probe_common.h). */
#ifndef XB_TEST_DAP_COMMON_H
#define XB_TEST_DAP_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../sim/dap.h"
#include "../../sim/swd.h"
#include "test_sim_common.h"

#define DH_DHCSR 0xE000EDF0u
#define DH_DEMCR 0xE000EDFCu
#define DH_DWT_PCSR 0xE000101Cu
#define DH_S_HALT (1u << 17)

#define DH_TARGETSEL_CORE0 0x01002927u
#define DH_TARGETSEL_CORE1 0x11002927u
#define DH_TARGETSEL_RESCUE 0xF1002927u

/* DAP_Transfer request bytes. */
#define DH_AP 0x01u
#define DH_RD 0x02u
#define DH_A(addr) (((addr) & 0xCu)) /* A3:A2 in bits 3:2 */

typedef struct dh {
	xb_board *b;
	xb_swd *swd;
	xb_dap *dap;
	uint8_t resp[1024];
	size_t rlen;
} dh;

static inline void dh_init(dh *h, xb_board *b, const xb_dap_config *c)
{
	memset(h, 0, sizeof *h);
	h->b = b;
	h->swd = swd_new(b);
	h->dap = dap_new(h->swd, c);
}

static inline void dh_free(dh *h)
{
	dap_free(h->dap);
	swd_free(h->swd);
}

/* One packet, its response in h->resp / h->rlen. */
static inline const uint8_t *dh_xfer(dh *h, const uint8_t *req, size_t len)
{
	xb_err err;
	if (dap_transact(h->dap, req, len, h->resp, sizeof h->resp, &h->rlen, &err)) {
		fprintf(stderr, "dap_transact: %s\n", err.msg);
		abort();
	}
	return h->resp;
}

/* 1 when the last response is exactly want[0..n). */
static inline int dh_is(const dh *h, const uint8_t *want, size_t n)
{
	return h->rlen == n && memcmp(h->resp, want, n) == 0;
}

#define DH_XFER(h, ...)                                                              \
	do {                                                                         \
		static const uint8_t dh_req_[] = {__VA_ARGS__};                      \
		dh_xfer((h), dh_req_, sizeof dh_req_);                               \
	} while (0)

static inline uint32_t dh_u32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline void dh_put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* DAP_SWJ_Sequence of bits (at most 64) from v, LSB first. */
static inline void dh_swj(dh *h, unsigned bits, uint64_t v)
{
	uint8_t req[10] = {0x12, (uint8_t)bits};
	unsigned n = (bits + 7) / 8;
	for (unsigned i = 0; i < n; i++)
		req[2 + i] = (uint8_t)(v >> (8 * i));
	dh_xfer(h, req, 2 + n);
}

static inline void dh_swj_clock(dh *h, uint32_t hz)
{
	uint8_t req[5] = {0x11};
	dh_put32(req + 1, hz);
	dh_xfer(h, req, sizeof req);
}

/* ---- DP and AP registers through DAP_Transfer (one request per packet) ---- */

/* Returns the Transfer response byte (1: OK); a read stores its value. */
static inline unsigned dh_read(dh *h, unsigned req, uint32_t *v)
{
	uint8_t pkt[4] = {0x05, 0x00, 0x01, (uint8_t)(req | DH_RD)};
	dh_xfer(h, pkt, sizeof pkt);
	if (h->rlen >= 7 && h->resp[1] == 1 && h->resp[2] == 1 && v)
		*v = dh_u32(h->resp + 3);
	return h->resp[2];
}

static inline unsigned dh_write(dh *h, unsigned req, uint32_t v)
{
	uint8_t pkt[8] = {0x05, 0x00, 0x01, (uint8_t)req};
	dh_put32(pkt + 4, v);
	dh_xfer(h, pkt, sizeof pkt);
	return h->resp[2];
}

static inline unsigned dh_dp_read(dh *h, unsigned addr, uint32_t *v)
{
	return dh_read(h, DH_A(addr), v);
}

static inline unsigned dh_dp_write(dh *h, unsigned addr, uint32_t v)
{
	return dh_write(h, DH_A(addr), v);
}

static inline unsigned dh_ap_read(dh *h, unsigned addr, uint32_t *v)
{
	return dh_read(h, DH_AP | DH_A(addr), v);
}

static inline unsigned dh_ap_write(dh *h, unsigned addr, uint32_t v)
{
	return dh_write(h, DH_AP | DH_A(addr), v);
}

/* ---- Connect sequences, as the tools send them ---- */

/* OpenOCD (src/jtag/drivers/cmsis_dap.c, src/target/adi_v5_swd.c) on a multidrop RP2040:
 * connect, transfer and SWD configuration, JTAG-to-dormant and dormant-to-SWD as
 * DAP_SWJ_Sequence (each followed by DAP_SWJ_Clock), TARGETSEL as DAP_SWD_Sequence, then
 * one DAP_Transfer: DPIDR read, ABORT (clear sticky flags), SELECT DPBANKSEL 3, DLPIDR
 * read. Returns the Transfer response byte; stores DPIDR and DLPIDR. */
static inline unsigned dh_openocd_connect(dh *h, uint32_t targetsel, uint32_t *dpidr,
					  uint32_t *dlpidr)
{
	DH_XFER(h, 0x02, 0x01);                         /* DAP_Connect SWD */
	DH_XFER(h, 0x04, 0x00, 0x40, 0x00, 0x00, 0x00); /* TransferConfigure 0, 64, 0 */
	DH_XFER(h, 0x13, 0x00);                         /* SWD_Configure */
	dh_swj_clock(h, 1000000);
	/* swd_seq_jtag_to_dormant, 40 bits */
	DH_XFER(h, 0x12, 0x28, 0xff, 0x75, 0x77, 0x77, 0x67);
	dh_swj_clock(h, 1000000);
	/* swd_seq_dormant_to_swd, 224 bits */
	DH_XFER(h, 0x12, 0xe0, 0xff, 0x92, 0xf3, 0x09, 0x62, 0x95, 0x2d, 0x85, 0x86, 0xe9, 0xaf,
		0xdd, 0xe3, 0xa2, 0x0e, 0xbc, 0x19, 0xa0, 0xf1, 0xff, 0xff, 0xff, 0xff, 0xff,
		0xff, 0xff, 0xff, 0x00);
	dh_swj_clock(h, 1000000);
	/* cmsis_dap_metacmd_targetsel: 8 bits out, 5 bits in (turnaround, ACK, turnaround),
	 * 33 bits out (TARGETSEL and its parity) */
	uint8_t tsel[] = {0x1d, 0x03, 0x08, 0x99, 0x85, 0x21, 0, 0, 0, 0,
			  (uint8_t)__builtin_parity(targetsel)};
	dh_put32(tsel + 6, targetsel);
	dh_xfer(h, tsel, sizeof tsel);
	DH_XFER(h, 0x05, 0x00, 0x04, 0x02, 0x00, 0x1e, 0x00, 0x00, 0x00, 0x08, 0x03, 0x00, 0x00,
		0x00, 0x06);
	if (h->rlen == 11 && h->resp[1] == 4 && h->resp[2] == 1) {
		*dpidr = dh_u32(h->resp + 3);
		*dlpidr = dh_u32(h->resp + 7);
	}
	return h->resp[2];
}

/* probe-rs (architecture/arm/sequences.rs, debug_port_setup and debug_port_connect) on a
 * multidrop target: line reset, JTAG-to-dormant, selection alert, activation code, line
 * reset with 3 idle cycles, TARGETSEL as one 48-bit DAP_SWJ_Sequence, then DPIDR, ABORT,
 * TARGETID (bank 2), DLPIDR (bank 3), SELECT 0, CTRL/STAT. Returns 1 when every transfer
 * answered OK. */
static inline int dh_probers_connect(dh *h, uint32_t targetsel, uint32_t *dpidr,
				     uint32_t *targetid, uint32_t *dlpidr)
{
	DH_XFER(h, 0x02, 0x01);
	dh_swj(h, 51, 0x0007FFFFFFFFFFFFull);
	dh_swj(h, 31, 0x33BBBBBAull);
	dh_swj(h, 8, 0xFF);
	dh_swj(h, 64, 0x86852D956209F392ull);
	dh_swj(h, 64, 0x19BC0EA2E3DDAFE9ull);
	dh_swj(h, 12, 0x1A0);
	dh_swj(h, 54, 0x0007FFFFFFFFFFFFull);
	uint64_t parity = (uint64_t)__builtin_parity(targetsel);
	dh_swj(h, 48, parity << 45 | (uint64_t)targetsel << 13 | 0x1f99);
	uint32_t ctrl;
	int ok = dh_dp_read(h, 0x0, dpidr) == 1;
	ok &= dh_dp_write(h, 0x0, 0x1E) == 1;
	ok &= dh_dp_write(h, 0x8, 2) == 1;
	ok &= dh_dp_read(h, 0x4, targetid) == 1;
	ok &= dh_dp_write(h, 0x8, 3) == 1;
	ok &= dh_dp_read(h, 0x4, dlpidr) == 1;
	ok &= dh_dp_write(h, 0x8, 0) == 1;
	ok &= dh_dp_read(h, 0x4, &ctrl) == 1;
	return ok;
}

/* SELECT 0 (AP 0, bank 0, DP bank 0), debug power-up (CTRL/STAT requests, wait for both
 * acknowledges), CSW word-sized with csw_inc (0 off, 1 single). Returns 1 on success. */
static inline int dh_power_up(dh *h, unsigned csw_inc)
{
	uint32_t ctrl = 0;
	if (dh_dp_write(h, 0x8, 0) != 1 ||
	    dh_dp_write(h, 0x4, SWD_CTRL_CDBGPWRUPREQ | SWD_CTRL_CSYSPWRUPREQ) != 1)
		return 0;
	for (int i = 0; i < 10; i++) {
		if (dh_dp_read(h, 0x4, &ctrl) != 1)
			return 0;
		if ((ctrl & (SWD_CTRL_CDBGPWRUPACK | SWD_CTRL_CSYSPWRUPACK)) ==
		    (SWD_CTRL_CDBGPWRUPACK | SWD_CTRL_CSYSPWRUPACK))
			break;
	}
	return dh_ap_write(h, 0x0, 0x23000002u | csw_inc << 4) == 1;
}

/* ---- Memory and core (CSW word-sized, increment single) ---- */

static inline unsigned dh_mem_read32(dh *h, uint32_t addr, uint32_t *v)
{
	uint8_t pkt[] = {0x05, 0x00, 0x02, DH_AP | DH_A(0x4), 0, 0, 0, 0, DH_AP | DH_RD | DH_A(0xC)};
	dh_put32(pkt + 4, addr);
	dh_xfer(h, pkt, sizeof pkt);
	if (h->rlen == 7 && h->resp[2] == 1)
		*v = dh_u32(h->resp + 3);
	return h->resp[2];
}

static inline unsigned dh_mem_write32(dh *h, uint32_t addr, uint32_t v)
{
	uint8_t pkt[] = {0x05, 0x00, 0x02, DH_AP | DH_A(0x4), 0, 0, 0, 0, DH_AP | DH_A(0xC), 0, 0, 0, 0};
	dh_put32(pkt + 4, addr);
	dh_put32(pkt + 9, v);
	dh_xfer(h, pkt, sizeof pkt);
	return h->resp[2];
}

/* Words to memory with DAP_TransferBlock (TAR rewritten at every 1 KB boundary, as the
 * MEM-AP only increments within one). Returns 1 on success. */
static inline int dh_mem_write_block(dh *h, uint32_t addr, const uint32_t *w, size_t n)
{
	size_t per_packet = (dap_config(h->dap)->packet_size - 5) / 4;
	while (n) {
		size_t chunk = n < per_packet ? n : per_packet;
		size_t to_boundary = (0x400 - (addr & 0x3FFu)) / 4;
		if (chunk > to_boundary)
			chunk = to_boundary;
		if (dh_ap_write(h, 0x4, addr) != 1)
			return 0;
		uint8_t pkt[1024] = {0x06, 0x00, (uint8_t)chunk, (uint8_t)(chunk >> 8), DH_AP | DH_A(0xC)};
		for (size_t i = 0; i < chunk; i++)
			dh_put32(pkt + 5 + 4 * i, w[i]);
		dh_xfer(h, pkt, 5 + 4 * chunk);
		if (h->rlen != 4 || h->resp[3] != 1 || (size_t)(h->resp[1] | h->resp[2] << 8) != chunk)
			return 0;
		addr += 4 * (uint32_t)chunk;
		w += chunk;
		n -= chunk;
	}
	return 1;
}

/* Polls DHCSR until S_HALT (at most tries reads). Returns 1 when halted. */
static inline int dh_wait_halt(dh *h, int tries)
{
	for (int i = 0; i < tries; i++) {
		uint32_t v = 0;
		if (dh_mem_read32(h, DH_DHCSR, &v) != 1)
			return 0;
		if (v & DH_S_HALT)
			return 1;
	}
	return 0;
}

static inline int dh_halt(dh *h)
{
	return dh_mem_write32(h, DH_DHCSR, 0xA05F0003u) == 1 && dh_wait_halt(h, 10);
}

/* ---- Test programs (tests/data/dap) ---- */

static inline const char *dh_programs(void)
{
	static char dir[1024];
	if (dir[0])
		return dir;
	const char *build = getenv("XB_BUILD");
	snprintf(dir, sizeof dir, "%s/dap-progs", build && *build ? build : "build");
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "sh tests/data/dap/build.sh '%s'", dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "building the probe's test programs failed: %s\n", cmd);
		abort();
	}
	return dir;
}

/* Reads dh_programs()/NAME.EXT into a malloc'd buffer. */
static inline char *dh_program_file(const char *name, const char *ext, size_t *len)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s.%s", dh_programs(), name, ext);
	char *data;
	xb_err err;
	if (xb_read_file(path, &data, len, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	return data;
}

/* Loads NAME.bin into the board's flash and resets; the debugger is on (C_DEBUGEN). */
static inline void dh_load_program(xb_board *b, const char *name)
{
	size_t len;
	char *data = dh_program_file(name, "bin", &len);
	xb_err err;
	if (board_load(b, 0x10000000u, data, len, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	free(data);
	board_reset(b);
	board_debug_write(b, DH_DHCSR, 4, 0xA05F0001u);
}

/* Address of symbol sym of program NAME, or 0. */
static inline uint32_t dh_symbol(const char *name, const char *sym)
{
	size_t len;
	char *text = dh_program_file(name, "sym", &len);
	uint32_t addr = 0;
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long a;
		char type, s[256];
		if (sscanf(line, "%lx %c %255s", &a, &type, s) == 3 && strcmp(s, sym) == 0) {
			addr = (uint32_t)a;
			break;
		}
	}
	free(text);
	return addr;
}

#endif
