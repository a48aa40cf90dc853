/* swd_internal: what the SWD port's wire and DP logic (swd.c) and its MEM-AP (swd_ap.c)
 * share. Internal to sim/. */
#ifndef XB_SWD_INTERNAL_H
#define XB_SWD_INTERNAL_H

#include <stdint.h>

#include "swd.h"

/* Where a DP is in the packet it is receiving or sending. */
enum swd_phase {
	SWD_PH_IDLE = 0,     /* waiting for a start bit */
	SWD_PH_RESET_HIGH,   /* after a line reset: ignoring high cycles */
	SWD_PH_HEADER,       /* the 7 request bits after the start bit */
	SWD_PH_TURN_TO_ACK,  /* turnaround before the ACK */
	SWD_PH_ACK,          /* driving the 3 ACK bits */
	SWD_PH_RDATA,        /* driving 32 data bits and parity */
	SWD_PH_TURN_TO_DATA, /* turnaround before the host's write data */
	SWD_PH_WDATA,        /* receiving 32 data bits and parity */
	SWD_PH_TURN_TO_IDLE, /* turnaround (and skipped data phase) back to idle */
	SWD_PH_TSEL_SKIP,    /* TARGETSEL: the ACK phase nobody drives */
	SWD_PH_TSEL_DATA,    /* TARGETSEL: its 32 data bits and parity */
};

/* The MEM-AP behind a core's DP. */
typedef struct swd_ap {
	int present;
	uint32_t csw;      /* stored bits (Size, AddrInc, Mode, Prot ...) */
	uint32_t tar;
	uint32_t read_buf; /* result of the last AP read (posted) */
} swd_ap;

typedef struct swd_dp {
	unsigned index;
	uint32_t targetsel;
	enum swd_link link;
	enum swd_phase phase;
	unsigned count;     /* cycles left in the phase */
	unsigned header;    /* request bits: APnDP, RnW, A2, A3, parity, stop, park */
	unsigned ack;       /* the ACK being driven: 1 OK, 2 WAIT, 4 FAULT */
	uint32_t shift;     /* data going out or coming in */
	unsigned parity;
	/* registers */
	uint32_t ctrl;      /* CTRL/STAT: stored request bits and sticky flags */
	uint32_t select;
	unsigned turnaround;
	uint32_t resend;    /* the last AP or RDBUFF read, for RESEND */
	int resend_ok;
	swd_ap ap;
} swd_dp;

struct xb_swd {
	xb_board *board;
	swd_dp dp[SWD_NDP];
	uint64_t cycles;
	uint64_t contentions;
	/* shared line watchers */
	unsigned ones;          /* consecutive high cycles */
	int s2d_count;          /* bits of a possible SWD-to-dormant sequence seen, -1 none */
	unsigned s2d_bits;
	uint64_t alert_lo, alert_hi; /* the last 128 line bits */
	int act_count;          /* cycles left after a selection alert, 0 none */
	unsigned act_code;
	/* AP timing */
	int inject;             /* SWD_INJECT_* */
	unsigned busy_cycles;
	uint64_t busy_until;
	xb_swd_sync_fn sync;
	void *sync_ctx;
	xb_swd_access_fn hook;
	void *hook_ctx;
};

/* The AP's power: both power-up requests granted. */
int swd_dp_powered(const swd_dp *dp);

/* MEM-AP register access at address reg (APBANKSEL << 4 | A[3:2] << 2) of dp's AP. A read
 * returns what the SWD read delivers (for DRW and BDn: the previous read's value, the new
 * one is posted). Memory faults set STICKYERR on dp. */
uint32_t swd_ap_read(xb_swd *s, swd_dp *dp, unsigned reg);
void swd_ap_write(xb_swd *s, swd_dp *dp, unsigned reg, uint32_t value);
void swd_ap_reset(swd_ap *ap, int present);

#endif
