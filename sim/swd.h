/* swd: the virtual Pico's Serial Wire Debug port at the bit level: the RP2040's multidrop bus
 * with one debug port per core (each with one AHB-AP) and the rescue debug port. */
#ifndef XB_SWD_H
#define XB_SWD_H

#include <stdint.h>

#include "board.h"

/*
 * The host (a probe) drives SWCLK: each swd_clock call is one clock cycle in which either
 * the host drives SWDIO or it lets go of the line. The three debug ports (DPs) share the
 * line, as on the chip:
 *
 *    DP       TARGETSEL     DLPIDR       AP
 *    core 0   0x01002927    0x00000001   AHB-AP at APSEL 0 (the board's view)
 *    core 1   0x11002927    0x10000001   AHB-AP at APSEL 0 (see "core 1" below)
 *    rescue   0xF1002927    0xF0000001   none
 *
 * All three read DPIDR 0x0BC12477 and TARGETID 0x01002927 (SW-DP version 2, MINDP not set).
 *
 * Link states of each DP (ADIv5.2 B4.3.4, with Arm IHI 0031 B5.3 for dormant operation):
 *  - DORMANT at power-up. The selection alert (the 128-bit sequence, LSB first from the
 *    bytes 92 f3 09 62 95 2d 85 86 e9 af dd e3 a2 0e bc 19), any 4 cycles, then the SWD
 *    activation code 0x1A (8 bits) wake every dormant DP into RESET. A line reset followed
 *    by the 16-bit sequence 0xE3BC (SWD-to-dormant) sends every awake DP back to DORMANT.
 *    JTAG-to-dormant (0x33BBBBBA) means nothing to an SWD-only port: to an awake DP it is
 *    line noise (a protocol error, then lockout until the next line reset).
 *  - RESET after a line reset (at least 50 cycles with SWDIO high; the DP ignores further
 *    high cycles and listens from the first low one). In RESET only two packets are legal:
 *    a write to TARGETSEL (never acknowledged: the DP drives nothing during its ACK phase;
 *    a DP whose TARGETSEL value differs, or a bad data parity, goes to LOCKOUT) and a read
 *    of DPIDR (which makes the DP ACTIVE). Anything else sends the DP to LOCKOUT.
 *  - ACTIVE: normal operation. A TARGETSEL write while ACTIVE locks the DP out.
 *  - LOCKOUT: deselected or after a protocol error (bad parity, stop or park bit in a
 *    request, a RESEND with nothing to resend): the DP drives nothing until a line reset.
 *    A wrong TARGETSEL therefore leaves the bus silent: every DP locked out, no ACK.
 *
 * Packets: request (start, APnDP, RnW, A[2:3], parity, stop, park), turnaround, 3-bit ACK
 * (OK 001, WAIT 010, FAULT 100, LSB first), then for a read 32 data bits and parity from
 * the DP and a turnaround, for a write a turnaround and 32 data bits and parity from the
 * host. The turnaround is DLCR.TURNROUND + 1 cycles (1 at power-up; a line reset keeps it). After WAIT or FAULT
 * the DP turns the line around and waits for the next request (with CTRL/STAT.ORUNDETECT
 * set it also skips a 33-cycle data phase and sets STICKYORUN).
 *
 * FAULT: while STICKYERR, STICKYCMP, STICKYORUN or WDATAERR is set, every access except a
 * DPIDR read, a CTRL/STAT read (DPBANKSEL 0) and an ABORT write gets FAULT. A write whose
 * data parity is wrong is acknowledged (the ACK comes first), discarded, and sets
 * WDATAERR. A memory access the board refuses (board_debug_read/write returned -1) sets
 * STICKYERR, so the *next* access gets FAULT (the access itself was already acknowledged,
 * as ADIv5 specifies for posted transfers). ABORT clears them: DAPABORT (bit 0, also ends a
 * busy AP transfer), STKCMPCLR, STKERRCLR, WDERRCLR, ORUNERRCLR (bits 1-4).
 *
 * WAIT: an AP access or RDBUFF read while the AP is still busy with the previous memory
 * transfer. The AP is never busy unless swd_set_ap_busy gives it a busy time.
 *
 * CTRL/STAT: ORUNDETECT, TRNMODE, MASKLANE and TRNCNT are stored (pushed compare and
 * verify are not modelled, so STICKYCMP is never set); CDBGRSTACK, CDBGPWRUPACK and
 * CSYSPWRUPACK follow their requests at once. While either power-up request is clear, AP
 * registers work but every memory access through the AP fails (STICKYERR). Setting
 * CDBGPWRUPREQ on the rescue DP resets the board and halts the core before its first
 * instruction (the RP2040's rescue reset; the real bootrom halts there).
 * DP banks at address 0x4 (SELECT.DPBANKSEL): 0 CTRL/STAT, 1 DLCR (TURNROUND bits 9:8),
 * 2 TARGETID, 3 DLPIDR, 4 EVENTSTAT (reads 0), others read 0. A line reset sets DPBANKSEL
 * to 0 (OpenOCD relies on it) and keeps the rest of SELECT. RESEND (read 0x8) returns
 * the last AP or RDBUFF read again.
 *
 * MEM-AP (APSEL 0, APBANKSEL selects the bank): CSW 0x00 (Size 2:0 byte/halfword/word,
 * larger sizes are refused and keep the old size; AddrInc 5:4 off/single/packed, packed
 * acts as single, 3 as off; DeviceEn bit 6 reads 1; TrInProg bit 7 reads 1 while busy;
 * bits 11:8 and 31:24 stored), TAR 0x04, DRW 0x0C, BD0-BD3 0x10-0x1C (the word at
 * (TAR & ~0xF) + 4n), CFG 0xF4 (0), BASE 0xF8 (0xE00FF003: the ROM table), IDR 0xFC
 * (0x04770031). Other registers read 0. Reads are posted: an AP read returns the value of
 * the previous AP read and starts a new one; RDBUFF returns the last one. Data sits on the
 * byte lanes its address selects (a byte at TAR & 3 == 2 is bits 23:16). With AddrInc, TAR
 * advances by the size after each DRW access and wraps within its 1 KB block (ADIv5 only
 * guarantees increments within 10 bits). Halfword and word accesses must be aligned;
 * others fail (STICKYERR). APSEL other than 0 reads 0 and ignores writes.
 * Memory accesses use board_debug_read/write: everything the CPU reaches plus the debug
 * registers; flash reads through the 0x10/0x12 aliases fill and count in the XIP cache as
 * on the chip. Core 1's AP sees the same system bus (the board models one core: SIO CPUID
 * reads 0 there too), but its private peripheral bus (0xE0000000-0xE00FFFFF) belongs to a
 * core the board does not model, so accesses there fail (STICKYERR).
 *
 * Several DPs driving the line in the same cycle (possible only when the host skips
 * TARGETSEL after a line reset) combine as a wired AND; a host driving while a DP drives
 * wins. swd_contentions counts the cycles in which drivers disagreed. Nobody driving reads
 * 1 (SWDIO has a pull-up).
 *
 * Time: the port counts SWCLK cycles itself. Whoever owns time (the probe model) installs a
 * sync callback, called right before every memory access the AP makes, to bring the board
 * up to that moment; the port itself never runs the board.
 */

typedef struct xb_swd xb_swd;

enum {
	SWD_DP_CORE0 = 0,
	SWD_DP_CORE1 = 1,
	SWD_DP_RESCUE = 2,
	SWD_NDP = 3,
};

/* Link state of one DP (see above). */
enum swd_link {
	SWD_LINK_DORMANT = 0,
	SWD_LINK_RESET,
	SWD_LINK_ACTIVE,
	SWD_LINK_LOCKOUT,
};
const char *swd_link_name(enum swd_link l);

/* The host lets go of SWDIO in this cycle (swd_clock). */
#define SWD_RELEASE (-1)

/* A port on board b (not owned). Every DP starts DORMANT. */
xb_swd *swd_new(xb_board *b);
void swd_free(xb_swd *s);
xb_board *swd_board(const xb_swd *s);

/* One SWCLK cycle. host_bit is 0 or 1 when the host drives SWDIO, SWD_RELEASE when it does
 * not. Returns the level of SWDIO in this cycle: what the host samples. */
int swd_clock(xb_swd *s, int host_bit);

/* SWCLK cycles so far. */
uint64_t swd_cycles(const xb_swd *s);

/* Called right before each memory access of an AP (fn may be NULL). */
typedef void (*xb_swd_sync_fn)(void *ctx);
void swd_set_sync(xb_swd *s, xb_swd_sync_fn fn, void *ctx);

/* One memory access an AP made. */
typedef struct xb_swd_access {
	unsigned dp;    /* SWD_DP_CORE0 or SWD_DP_CORE1 */
	int write;
	uint32_t addr;
	unsigned size;  /* 1, 2 or 4 */
	uint32_t value; /* the value read (0 when it failed) or written, in the low bits */
	int fault;      /* the access failed: STICKYERR was set */
	uint64_t cycle; /* board_cycles when it happened (after the sync) */
} xb_swd_access;
typedef void (*xb_swd_access_fn)(void *ctx, const xb_swd_access *a);
/* Observes every memory access of the APs (for tests and traces; fn may be NULL). */
void swd_set_access_hook(xb_swd *s, xb_swd_access_fn fn, void *ctx);

/* After each memory transfer an AP stays busy for cycles SWCLK cycles: AP accesses and
 * RDBUFF reads in that window get WAIT. 0 (the default): never busy. */
void swd_set_ap_busy(xb_swd *s, unsigned cycles);

/* Fault injection for tests of hosts that must ride out a target that stops answering:
 * SWD_INJECT_FAULT: every memory access of an AP (a DRW or BD0-BD3 access) answers FAULT
 * and sets STICKYERR, as a bus fault would, so the accesses after it fault too until
 * ABORT clears the flag; SWD_INJECT_WAIT: every memory access of an AP answers WAIT (as
 * an AP stuck in a transfer). Other DP and AP registers answer as usual. SWD_INJECT_OFF
 * (the default) ends it. */
enum {
	SWD_INJECT_OFF = 0,
	SWD_INJECT_FAULT = 1,
	SWD_INJECT_WAIT = 2,
};
void swd_set_fault_injection(xb_swd *s, int mode);

/* ---- Inspection (tests, diagnostics) ---- */

enum swd_link swd_link_state(const xb_swd *s, unsigned dp);
/* CTRL/STAT of dp as a read would return it. */
uint32_t swd_ctrl_stat(const xb_swd *s, unsigned dp);
/* Cycles in which drivers disagreed on the line. */
uint64_t swd_contentions(const xb_swd *s);

/* Register addresses and bits hosts use (ADIv5). */
#define SWD_DPIDR_VALUE 0x0BC12477u
#define SWD_TARGETID_VALUE 0x01002927u
#define SWD_AP_IDR_VALUE 0x04770031u

#define SWD_CTRL_ORUNDETECT (1u << 0)
#define SWD_CTRL_STICKYORUN (1u << 1)
#define SWD_CTRL_STICKYCMP (1u << 4)
#define SWD_CTRL_STICKYERR (1u << 5)
#define SWD_CTRL_READOK (1u << 6)
#define SWD_CTRL_WDATAERR (1u << 7)
#define SWD_CTRL_CDBGRSTREQ (1u << 26)
#define SWD_CTRL_CDBGRSTACK (1u << 27)
#define SWD_CTRL_CDBGPWRUPREQ (1u << 28)
#define SWD_CTRL_CDBGPWRUPACK (1u << 29)
#define SWD_CTRL_CSYSPWRUPREQ (1u << 30)
#define SWD_CTRL_CSYSPWRUPACK (1u << 31)

#define SWD_ABORT_DAPABORT (1u << 0)
#define SWD_ABORT_STKCMPCLR (1u << 1)
#define SWD_ABORT_STKERRCLR (1u << 2)
#define SWD_ABORT_WDERRCLR (1u << 3)
#define SWD_ABORT_ORUNERRCLR (1u << 4)

#endif
