/* swd_ap: the AHB-AP (MEM-AP) behind each core's debug port: CSW, TAR, DRW, banked data,
 * posted reads, byte lanes, address increment, and memory accesses through the board's
 * debug accessors. */
#include <stdint.h>

#include "swd_internal.h"

#define CSW_SIZE 0x7u
#define CSW_ADDRINC_SHIFT 4
#define CSW_DEVICEEN (1u << 6)
#define CSW_TRINPROG (1u << 7)
/* Size, AddrInc, Mode (11:8), Prot / Type / DbgSwEnable (31:24): stored as written. */
#define CSW_STORED 0xFF000F37u
/* After power-up: byte size, no increment, privileged data accesses (Prot 25:24). */
#define CSW_RESET 0x03000000u

#define AP_CSW 0x00u
#define AP_TAR 0x04u
#define AP_DRW 0x0Cu
#define AP_BD0 0x10u
#define AP_BD3 0x1Cu
#define AP_CFG 0xF4u
#define AP_BASE 0xF8u
#define AP_IDR 0xFCu
#define AP_BASE_VALUE 0xE00FF003u /* the ROM table at 0xE00FF000, format 1, present */


void swd_ap_reset(swd_ap *ap, int present)
{
	ap->present = present;
	ap->csw = CSW_RESET;
	ap->tar = 0;
	ap->read_buf = 0;
}

static unsigned swd_ap_bytes(const swd_ap *ap)
{
	return 1u << (ap->csw & CSW_SIZE);
}

/* TAR advances within its 1 KB block after a DRW access with AddrInc single or packed. */
static void swd_ap_increment(swd_ap *ap)
{
	unsigned inc = (ap->csw >> CSW_ADDRINC_SHIFT) & 3u;
	if (inc == 1 || inc == 2)
		ap->tar = (ap->tar & ~0x3FFu) | ((ap->tar + swd_ap_bytes(ap)) & 0x3FFu);
}

/* Whether dp's AP may access addr at all (power, alignment). Core 1's AP reaches core 1's
 * own PPB when the board has a core 1 (board_core_debug_read refuses it otherwise). */
static int swd_ap_allowed(const swd_dp *dp, uint32_t addr, unsigned bytes)
{
	if (!swd_dp_powered(dp))
		return 0;
	if (bytes > 1 && (addr & (bytes - 1)))
		return 0;
	return 1;
}

static void swd_ap_report(xb_swd *s, const swd_dp *dp, int write, uint32_t addr,
			  unsigned bytes, uint32_t value, int fault)
{
	s->busy_until = s->cycles + s->busy_cycles;
	if (!s->hook)
		return;
	xb_swd_access a = {
		.dp = dp->index,
		.write = write,
		.addr = addr,
		.size = bytes,
		.value = value,
		.fault = fault,
		.cycle = board_cycles(s->board),
	};
	s->hook(s->hook_ctx, &a);
}

/* A memory read of the AP's size at addr; the result sits on its byte lanes. *failed (may
 * be NULL) tells whether it failed. */
static uint32_t swd_ap_mem_read(xb_swd *s, swd_dp *dp, uint32_t addr, int *failed)
{
	unsigned bytes = swd_ap_bytes(&dp->ap);
	uint32_t v = 0;
	int fault = 1;
	if (swd_ap_allowed(dp, addr, bytes)) {
		if (s->sync)
			s->sync(s->sync_ctx);
		fault = board_core_debug_read(s->board, dp->index == SWD_DP_CORE1, addr, bytes,
					      &v) != 0;
	}
	if (fault) {
		v = 0;
		dp->ctrl |= SWD_CTRL_STICKYERR;
	}
	swd_ap_report(s, dp, 0, addr, bytes, v, fault);
	if (failed)
		*failed = fault;
	return v << (8 * (addr & 3u));
}

static int swd_ap_mem_write(xb_swd *s, swd_dp *dp, uint32_t addr, uint32_t lanes)
{
	unsigned bytes = swd_ap_bytes(&dp->ap);
	uint32_t v = lanes >> (8 * (addr & 3u));
	if (bytes < 4)
		v &= (1u << (8 * bytes)) - 1;
	int fault = 1;
	if (swd_ap_allowed(dp, addr, bytes)) {
		if (s->sync)
			s->sync(s->sync_ctx);
		fault = board_core_debug_write(s->board, dp->index == SWD_DP_CORE1, addr, bytes,
					       v) != 0;
	}
	if (fault)
		dp->ctrl |= SWD_CTRL_STICKYERR;
	swd_ap_report(s, dp, 1, addr, bytes, v, fault);
	return fault;
}

static uint32_t swd_ap_register(xb_swd *s, swd_dp *dp, unsigned reg)
{
	swd_ap *ap = &dp->ap;
	switch (reg) {
	case AP_CSW:
		return ap->csw | CSW_DEVICEEN | (s->cycles < s->busy_until ? CSW_TRINPROG : 0);
	case AP_TAR:
		return ap->tar;
	case AP_DRW: {
		int failed;
		uint32_t v = swd_ap_mem_read(s, dp, ap->tar, &failed);
		if (!failed)
			swd_ap_increment(ap);
		return v;
	}
	case AP_CFG:
		return 0; /* little-endian, 32-bit addresses */
	case AP_BASE:
		return AP_BASE_VALUE;
	case AP_IDR:
		return SWD_AP_IDR_VALUE;
	default:
		if (reg >= AP_BD0 && reg <= AP_BD3)
			return swd_ap_mem_read(s, dp, (ap->tar & ~0xFu) + (reg - AP_BD0), NULL);
		return 0;
	}
}

uint32_t swd_ap_read(xb_swd *s, swd_dp *dp, unsigned reg)
{
	swd_ap *ap = &dp->ap;
	uint32_t v = 0;
	if (ap->present && (dp->select >> 24) == 0)
		v = swd_ap_register(s, dp, reg);
	uint32_t previous = ap->read_buf;
	ap->read_buf = v;
	return previous;
}

void swd_ap_write(xb_swd *s, swd_dp *dp, unsigned reg, uint32_t value)
{
	swd_ap *ap = &dp->ap;
	if (!ap->present || (dp->select >> 24) != 0)
		return;
	switch (reg) {
	case AP_CSW: {
		uint32_t size = value & CSW_SIZE;
		if (size > 2)
			size = ap->csw & CSW_SIZE; /* unsupported sizes are refused */
		ap->csw = (value & CSW_STORED & ~CSW_SIZE) | size;
		break;
	}
	case AP_TAR:
		ap->tar = value;
		break;
	case AP_DRW:
		if (!swd_ap_mem_write(s, dp, ap->tar, value))
			swd_ap_increment(ap);
		break;
	default:
		if (reg >= AP_BD0 && reg <= AP_BD3)
			swd_ap_mem_write(s, dp, (ap->tar & ~0xFu) + (reg - AP_BD0), value);
		break;
	}
}
