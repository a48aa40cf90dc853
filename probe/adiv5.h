/* adiv5: the Arm Debug Interface over SWD from the host: the RP2040's multidrop wake-up and
 * target selection, DP and AP registers with SELECT caching, the MEM-AP's 32-bit single
 * and block accesses, and recovery from WAIT, FAULT and sticky errors. */
#ifndef XB_PROBE_ADIV5_H
#define XB_PROBE_ADIV5_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "dap_client.h"

/* TARGETSEL values of the RP2040's three debug ports (DPv2 multidrop). */
#define ADI_TARGETSEL_RP2040_CORE0 0x01002927u
#define ADI_TARGETSEL_RP2040_CORE1 0x11002927u
#define ADI_TARGETSEL_RP2040_RESCUE 0xF1002927u
/* A single-drop target: wake it up, no TARGETSEL. */
#define ADI_NO_TARGETSEL 0u

/* DP registers (address | DPBANKSEL << 4 for the banked address 0x4). */
#define ADI_DP_DPIDR 0x00u
#define ADI_DP_ABORT 0x00u      /* write */
#define ADI_DP_CTRL_STAT 0x04u
#define ADI_DP_TARGETID 0x24u   /* bank 2 */
#define ADI_DP_DLPIDR 0x34u     /* bank 3 */
#define ADI_DP_SELECT 0x08u
#define ADI_DP_RDBUFF 0x0Cu

/* MEM-AP registers (APBANKSEL in bits 7:4). */
#define ADI_AP_CSW 0x00u
#define ADI_AP_TAR 0x04u
#define ADI_AP_DRW 0x0Cu
#define ADI_AP_BASE 0xF8u
#define ADI_AP_IDR 0xFCu

/* CTRL/STAT and ABORT bits. */
#define ADI_CTRL_STICKYORUN (1u << 1)
#define ADI_CTRL_STICKYCMP (1u << 4)
#define ADI_CTRL_STICKYERR (1u << 5)
#define ADI_CTRL_WDATAERR (1u << 7)
#define ADI_CTRL_CDBGPWRUPREQ (1u << 28)
#define ADI_CTRL_CDBGPWRUPACK (1u << 29)
#define ADI_CTRL_CSYSPWRUPREQ (1u << 30)
#define ADI_CTRL_CSYSPWRUPACK (1u << 31)
#define ADI_ABORT_DAPABORT (1u << 0)
#define ADI_ABORT_CLEAR_STICKY 0x1Eu /* STKCMPCLR, STKERRCLR, WDERRCLR, ORUNERRCLR */

/* DAP_Transfer request bytes of the MEM-AP registers raw packets use (the sampler, the
 * live XIP counters). */
#define ADI_REQ_TAR_WRITE (XB_DAP_AP | XB_DAP_A(ADI_AP_TAR))
#define ADI_REQ_DRW_READ (XB_DAP_AP | XB_DAP_READ | XB_DAP_A(ADI_AP_DRW))
#define ADI_REQ_DRW_WRITE (XB_DAP_AP | XB_DAP_A(ADI_AP_DRW))

typedef struct xb_adi xb_adi;

/* What the connection found. */
typedef struct xb_adi_ids {
	uint32_t targetsel;   /* as given to adi_connect */
	uint32_t dpidr;
	uint32_t targetid;    /* DPv2 and later, else 0 */
	uint32_t dlpidr;      /* DPv2 and later, else 0 */
	uint32_t ap_idr;      /* AP 0 (0 for the RP2040's rescue DP, which has none) */
	uint32_t ap_base;
	uint32_t csw;         /* the CSW value memory accesses use */
} xb_adi_ids;

/* A debug port session on client c (not owned). */
xb_adi *adi_new(xb_dap_client *c);
void adi_free(xb_adi *a);
xb_dap_client *adi_client(xb_adi *a);
const char *adi_name(const xb_adi *a);

/*
 * Connects to the DP that targetsel names (ADI_NO_TARGETSEL: a single-drop target):
 * DAP_Connect (SWD), TransferConfigure (WAIT retries), SWD_Configure; then, as
 * DAP_SWJ_Sequence bits: a line reset and SWD-to-dormant (any awake DP sleeps),
 * JTAG-to-dormant, 8 high cycles, the 128-bit selection alert, 4 low cycles, the SWD
 * activation code, a line reset and idle cycles, and TARGETSEL (request, released ACK
 * phase, value and parity: never acknowledged); then DPIDR at once, ABORT (clear sticky
 * flags), TARGETID and DLPIDR (DPv2; DLPIDR's instance must match TARGETSEL's), debug and
 * system power-up (CTRL/STAT requests, waiting up to 100 ms for both acknowledges), AP 0's
 * IDR and BASE, and CSW (word size, single increment). The rescue DP has no AP and is not
 * powered up (that would reset the chip). Switching to another DP is another adi_connect.
 * Errors say what did not answer: "no DP answered after TARGETSEL 0x11002927 (ACK 7)".
 */
int adi_connect(xb_adi *a, uint32_t targetsel, xb_err *err);
const xb_adi_ids *adi_ids(const xb_adi *a);
/* 1 between a successful adi_connect and a failure that lost the target (no ACK). */
int adi_connected(const xb_adi *a);

/*
 * Register access. DP registers: ADI_DP_* (the bank of address 0x4 in bits 7:4); SELECT is
 * written only when the wanted bank differs from the cached value. AP registers of AP 0:
 * 0x00 .. 0xFC. AP reads are posted on the wire; the probe resolves that (CMSIS-DAP
 * returns each read's own value), so callers never see it.
 *
 * Every failure says what was accessed and what happened, and leaves the port usable when
 * it can: FAULT -> CTRL/STAT is read (for the message) and ABORT clears the sticky flags;
 * WAIT (after the probe's own retries) -> ABORT.DAPABORT, and the access is tried again
 * up to twice; no ACK -> the target is lost (adi_connected 0) until the next adi_connect.
 */
int adi_dp_read(xb_adi *a, unsigned reg, uint32_t *v, xb_err *err);
int adi_dp_write(xb_adi *a, unsigned reg, uint32_t v, xb_err *err);
int adi_ap_read(xb_adi *a, unsigned reg, uint32_t *v, xb_err *err);
int adi_ap_write(xb_adi *a, unsigned reg, uint32_t v, xb_err *err);
/* Writes ABORT (ADI_ABORT_*). */
int adi_abort(xb_adi *a, uint32_t bits, xb_err *err);

/* ---- Memory through the MEM-AP (32-bit, word-aligned addresses) ---- */

/* One word access of a batch. */
typedef struct xb_mem_access {
	uint32_t addr;
	uint32_t value; /* written, or what a read returned */
	int write;
} xb_mem_access;

/* Runs acc[0..n) in order, in as few packets as they fit (TAR is written only where it
 * does not already point at the address). */
int adi_mem_access(xb_adi *a, xb_mem_access *acc, size_t n, xb_err *err);
int adi_mem_read32(xb_adi *a, uint32_t addr, uint32_t *v, xb_err *err);
int adi_mem_write32(xb_adi *a, uint32_t addr, uint32_t v, xb_err *err);
/* n words from / to addr with DAP_TransferBlock, TAR written again at every 1 KB boundary
 * (the MEM-AP increments only within one), all packets pipelined. */
int adi_mem_read(xb_adi *a, uint32_t addr, uint32_t *words, size_t n, xb_err *err);
int adi_mem_write(xb_adi *a, uint32_t addr, const uint32_t *words, size_t n, xb_err *err);

/* Sets CSW's address increment off and TAR to addr, so that DRW reads (ADI_REQ_DRW_READ)
 * read addr again and again (the PC sampler). Later memory accesses put CSW back. */
int adi_repeat_reads(xb_adi *a, uint32_t addr, xb_err *err);
/* Forgets what SELECT, CSW and TAR hold (after raw packets of the caller's own). */
void adi_forget(xb_adi *a);

#endif
