/* swd: the RP2040's multidrop SWD bus at the bit level: line reset, dormant state and the
 * selection alert, TARGETSEL, the request / ACK / data state machine of each DP and the DP
 * registers. The MEM-AP behind each core's DP is in swd_ap.c. */
#include "swd.h"

#include <stdlib.h>
#include <string.h>

#include "swd_internal.h"

/* The 128-bit selection alert as sent, first bit in bit 0 of lo. */
#define ALERT_LO 0x86852D956209F392ull
#define ALERT_HI 0x19BC0EA2E3DDAFE9ull
#define ACTIVATION_SWD 0x1Au
#define ACTIVATION_CYCLES 12 /* 4 cycles, then the 8-bit code */
#define SWD_TO_DORMANT 0xE3BCu
#define LINE_RESET_CYCLES 50u

#define ACK_OK 1u
#define ACK_WAIT 2u
#define ACK_FAULT 4u

#define CTRL_STICKY (SWD_CTRL_STICKYORUN | SWD_CTRL_STICKYCMP | SWD_CTRL_STICKYERR | \
		     SWD_CTRL_WDATAERR)
/* ORUNDETECT, TRNMODE, MASKLANE, TRNCNT and the three requests. */
#define CTRL_WRITABLE (SWD_CTRL_ORUNDETECT | 0x00FFFF0Cu | SWD_CTRL_CDBGRSTREQ | \
		       SWD_CTRL_CDBGPWRUPREQ | SWD_CTRL_CSYSPWRUPREQ)

/* Request bits as received after the start bit. */
#define REQ_APNDP(h) ((h) & 1u)
#define REQ_RNW(h) (((h) >> 1) & 1u)
#define REQ_A(h) (((h) >> 2) & 3u) /* A[3:2] */
#define REQ_PARITY(h) (((h) >> 4) & 1u)
#define REQ_STOP(h) (((h) >> 5) & 1u)
#define REQ_PARK(h) (((h) >> 6) & 1u)

static const uint32_t swd_tinstance[SWD_NDP] = {0x0u, 0x1u, 0xFu};

const char *swd_link_name(enum swd_link l)
{
	switch (l) {
	case SWD_LINK_DORMANT: return "dormant";
	case SWD_LINK_RESET: return "reset";
	case SWD_LINK_ACTIVE: return "active";
	case SWD_LINK_LOCKOUT: return "lockout";
	}
	return "?";
}

static unsigned swd_parity32(uint32_t v)
{
	return (unsigned)__builtin_parity(v);
}

xb_swd *swd_new(xb_board *b)
{
	xb_swd *s = xcalloc(1, sizeof *s);
	s->board = b;
	s->s2d_count = -1;
	for (unsigned i = 0; i < SWD_NDP; i++) {
		swd_dp *dp = &s->dp[i];
		dp->index = i;
		dp->targetsel = (swd_tinstance[i] << 28) | (SWD_TARGETID_VALUE & 0x0FFFFFFFu);
		dp->link = SWD_LINK_DORMANT;
		dp->turnaround = 1;
		swd_ap_reset(&dp->ap, i != SWD_DP_RESCUE);
	}
	return s;
}

void swd_free(xb_swd *s)
{
	free(s);
}

xb_board *swd_board(const xb_swd *s)
{
	return s->board;
}

uint64_t swd_cycles(const xb_swd *s)
{
	return s->cycles;
}

void swd_set_sync(xb_swd *s, xb_swd_sync_fn fn, void *ctx)
{
	s->sync = fn;
	s->sync_ctx = ctx;
}

void swd_set_access_hook(xb_swd *s, xb_swd_access_fn fn, void *ctx)
{
	s->hook = fn;
	s->hook_ctx = ctx;
}

void swd_set_ap_busy(xb_swd *s, unsigned cycles)
{
	s->busy_cycles = cycles;
}

void swd_set_fault_injection(xb_swd *s, int mode)
{
	s->inject = mode == SWD_INJECT_FAULT || mode == SWD_INJECT_WAIT ? mode : SWD_INJECT_OFF;
}

uint64_t swd_contentions(const xb_swd *s)
{
	return s->contentions;
}

enum swd_link swd_link_state(const xb_swd *s, unsigned dp)
{
	return dp < SWD_NDP ? s->dp[dp].link : SWD_LINK_DORMANT;
}

int swd_dp_powered(const swd_dp *dp)
{
	uint32_t both = SWD_CTRL_CDBGPWRUPREQ | SWD_CTRL_CSYSPWRUPREQ;
	return (dp->ctrl & both) == both;
}

static uint32_t swd_read_ctrl(const swd_dp *dp)
{
	uint32_t v = dp->ctrl;
	/* Each acknowledge follows its request at once. */
	if (v & SWD_CTRL_CDBGRSTREQ)
		v |= SWD_CTRL_CDBGRSTACK;
	if (v & SWD_CTRL_CDBGPWRUPREQ)
		v |= SWD_CTRL_CDBGPWRUPACK;
	if (v & SWD_CTRL_CSYSPWRUPREQ)
		v |= SWD_CTRL_CSYSPWRUPACK;
	return v;
}

uint32_t swd_ctrl_stat(const xb_swd *s, unsigned dp)
{
	return dp < SWD_NDP ? swd_read_ctrl(&s->dp[dp]) : 0;
}

static void swd_lockout(swd_dp *dp)
{
	dp->link = SWD_LINK_LOCKOUT;
	dp->phase = SWD_PH_IDLE;
}

/* ---- DP registers ---- */

static uint32_t swd_dp_bank_read(const swd_dp *dp)
{
	switch (dp->select & 0xFu) {
	case 0: return swd_read_ctrl(dp);
	case 1: return 0x40u | (dp->turnaround - 1) << 8; /* DLCR */
	case 2: return SWD_TARGETID_VALUE;
	case 3: return swd_tinstance[dp->index] << 28 | 1u; /* DLPIDR: PROTVSN 1 */
	default: return 0; /* EVENTSTAT and reserved banks */
	}
}

/* The value an acknowledged read returns; AP reads and RDBUFF reads feed RESEND. */
static uint32_t swd_dp_read(xb_swd *s, swd_dp *dp, unsigned apndp, unsigned a)
{
	uint32_t v;
	if (apndp) {
		v = swd_ap_read(s, dp, (dp->select & 0xF0u) | a << 2);
	} else if (a == 3) {
		v = dp->ap.read_buf; /* RDBUFF */
	} else {
		if (a == 2)
			return dp->resend;
		return a == 0 ? SWD_DPIDR_VALUE : swd_dp_bank_read(dp);
	}
	dp->ctrl |= SWD_CTRL_READOK;
	dp->resend = v;
	dp->resend_ok = 1;
	return v;
}

/* The RP2040's rescue reset: the chip resets and the core halts before running anything. */
static void swd_rescue_reset(xb_swd *s)
{
	if (s->sync)
		s->sync(s->sync_ctx);
	board_reset(s->board);
	board_halt(s->board);
}

static void swd_dp_write(xb_swd *s, swd_dp *dp, unsigned apndp, unsigned a, uint32_t v)
{
	if (apndp) {
		swd_ap_write(s, dp, (dp->select & 0xF0u) | a << 2, v);
		return;
	}
	switch (a) {
	case 0: /* ABORT */
		if (v & SWD_ABORT_DAPABORT)
			s->busy_until = 0;
		if (v & SWD_ABORT_STKCMPCLR)
			dp->ctrl &= ~SWD_CTRL_STICKYCMP;
		if (v & SWD_ABORT_STKERRCLR)
			dp->ctrl &= ~SWD_CTRL_STICKYERR;
		if (v & SWD_ABORT_WDERRCLR)
			dp->ctrl &= ~SWD_CTRL_WDATAERR;
		if (v & SWD_ABORT_ORUNERRCLR)
			dp->ctrl &= ~SWD_CTRL_STICKYORUN;
		break;
	case 1:
		if ((dp->select & 0xFu) == 0) {
			uint32_t old = dp->ctrl;
			dp->ctrl = (old & ~CTRL_WRITABLE) | (v & CTRL_WRITABLE);
			if (dp->index == SWD_DP_RESCUE && !(old & SWD_CTRL_CDBGPWRUPREQ) &&
			    (v & SWD_CTRL_CDBGPWRUPREQ))
				swd_rescue_reset(s);
		} else if ((dp->select & 0xFu) == 1) {
			dp->turnaround = ((v >> 8) & 3u) + 1;
		}
		break;
	case 2:
		dp->select = v;
		break;
	default:
		break; /* TARGETSEL never gets here: the link logic handles it */
	}
}

/* ---- Packets ---- */

/* Whether request h is a memory access of dp's AP (DRW, or BD0-BD3 in bank 1). */
static int swd_is_memory_access(const swd_dp *dp, unsigned h)
{
	unsigned reg = (dp->select & 0xF0u) | REQ_A(h) << 2;
	return REQ_APNDP(h) && dp->ap.present && (dp->select >> 24) == 0 &&
	       (reg == 0x0Cu || (reg >= 0x10u && reg <= 0x1Cu));
}

static unsigned swd_decide_ack(const xb_swd *s, const swd_dp *dp, unsigned h)
{
	unsigned apndp = REQ_APNDP(h), rnw = REQ_RNW(h), a = REQ_A(h);
	int allowed = !apndp && ((rnw && a == 0) || (rnw && a == 1 && (dp->select & 0xFu) == 0) ||
				 (!rnw && a == 0));
	if ((dp->ctrl & CTRL_STICKY) && !allowed)
		return ACK_FAULT;
	if (s->inject && swd_is_memory_access(dp, h))
		return s->inject == SWD_INJECT_FAULT ? ACK_FAULT : ACK_WAIT;
	if ((apndp || (rnw && a == 3)) && s->cycles < s->busy_until)
		return ACK_WAIT;
	return ACK_OK;
}

/* The park bit has arrived: check the request and decide what happens. */
static void swd_decode(xb_swd *s, swd_dp *dp)
{
	unsigned h = dp->header;
	unsigned apndp = REQ_APNDP(h), rnw = REQ_RNW(h), a = REQ_A(h);
	if (REQ_PARITY(h) != swd_parity32(h & 0xFu) || REQ_STOP(h) || !REQ_PARK(h)) {
		swd_lockout(dp);
		return;
	}
	if (!apndp && !rnw && a == 3) { /* TARGETSEL */
		if (dp->link != SWD_LINK_RESET) {
			swd_lockout(dp);
			return;
		}
		dp->phase = SWD_PH_TSEL_SKIP;
		dp->count = 2 * dp->turnaround + 3;
		return;
	}
	if (dp->link == SWD_LINK_RESET && (apndp || !rnw || a != 0)) {
		swd_lockout(dp); /* only TARGETSEL or a DPIDR read may follow a line reset */
		return;
	}
	if (!apndp && rnw && a == 2 && !dp->resend_ok) {
		swd_lockout(dp); /* RESEND with nothing to resend: a protocol error */
		return;
	}
	dp->link = SWD_LINK_ACTIVE;
	dp->ack = swd_decide_ack(s, dp, h);
	if (dp->ack == ACK_FAULT && s->inject == SWD_INJECT_FAULT && swd_is_memory_access(dp, h))
		dp->ctrl |= SWD_CTRL_STICKYERR; /* the injected bus fault */
	if (dp->ack != ACK_OK) {
		if (dp->ctrl & SWD_CTRL_ORUNDETECT)
			dp->ctrl |= SWD_CTRL_STICKYORUN;
		if (rnw && (apndp || a == 3))
			dp->ctrl &= ~SWD_CTRL_READOK;
	} else if (rnw) {
		int keeps_resend = !apndp && a == 2;
		if (!keeps_resend)
			dp->resend_ok = 0;
		dp->shift = swd_dp_read(s, dp, apndp, a);
		dp->parity = swd_parity32(dp->shift);
	} else {
		dp->resend_ok = 0;
	}
	dp->phase = SWD_PH_TURN_TO_ACK;
	dp->count = dp->turnaround;
}

static void swd_after_ack(swd_dp *dp)
{
	if (dp->ack == ACK_OK) {
		if (REQ_RNW(dp->header)) {
			dp->phase = SWD_PH_RDATA;
			dp->count = 33;
		} else {
			dp->phase = SWD_PH_TURN_TO_DATA;
			dp->count = dp->turnaround;
		}
		return;
	}
	dp->phase = SWD_PH_TURN_TO_IDLE;
	dp->count = dp->turnaround + ((dp->ctrl & SWD_CTRL_ORUNDETECT) ? 33 : 0);
}

/* What dp drives in this cycle: 0, 1, or -1 for nothing. */
static int swd_drive(const swd_dp *dp)
{
	switch (dp->phase) {
	case SWD_PH_ACK:
		return (int)((dp->ack >> (3 - dp->count)) & 1u);
	case SWD_PH_RDATA:
		return dp->count > 1 ? (int)(dp->shift & 1u) : (int)dp->parity;
	default:
		return -1;
	}
}

/* Collects one bit of a 33-cycle data phase; returns 1 when the parity bit has arrived. */
static int swd_collect(swd_dp *dp, int line)
{
	if (dp->count > 1) {
		dp->shift |= (uint32_t)line << (33 - dp->count);
		dp->parity ^= (unsigned)line;
		dp->count--;
		return 0;
	}
	dp->count = 0;
	return 1;
}

static void swd_start_data(swd_dp *dp, enum swd_phase phase)
{
	dp->phase = phase;
	dp->count = 33;
	dp->shift = 0;
	dp->parity = 0;
}

/* dp sees the line level of this cycle. */
static void swd_step(xb_swd *s, swd_dp *dp, int line)
{
	switch (dp->phase) {
	case SWD_PH_IDLE:
		if (line) {
			dp->phase = SWD_PH_HEADER;
			dp->count = 7;
			dp->header = 0;
		}
		break;
	case SWD_PH_RESET_HIGH:
		if (!line)
			dp->phase = SWD_PH_IDLE;
		break;
	case SWD_PH_HEADER:
		dp->header |= (unsigned)line << (7 - dp->count);
		if (--dp->count == 0)
			swd_decode(s, dp);
		break;
	case SWD_PH_TURN_TO_ACK:
		if (--dp->count == 0) {
			dp->phase = SWD_PH_ACK;
			dp->count = 3;
		}
		break;
	case SWD_PH_ACK:
		if (--dp->count == 0)
			swd_after_ack(dp);
		break;
	case SWD_PH_RDATA:
		if (dp->count > 1)
			dp->shift >>= 1;
		if (--dp->count == 0) {
			dp->phase = SWD_PH_TURN_TO_IDLE;
			dp->count = dp->turnaround;
		}
		break;
	case SWD_PH_TURN_TO_DATA:
		if (--dp->count == 0)
			swd_start_data(dp, SWD_PH_WDATA);
		break;
	case SWD_PH_WDATA:
		if (swd_collect(dp, line)) {
			dp->phase = SWD_PH_IDLE;
			if ((unsigned)line != dp->parity)
				dp->ctrl |= SWD_CTRL_WDATAERR; /* the write is discarded */
			else
				swd_dp_write(s, dp, REQ_APNDP(dp->header), REQ_A(dp->header),
					     dp->shift);
		}
		break;
	case SWD_PH_TURN_TO_IDLE:
		if (--dp->count == 0)
			dp->phase = SWD_PH_IDLE;
		break;
	case SWD_PH_TSEL_SKIP:
		if (--dp->count == 0)
			swd_start_data(dp, SWD_PH_TSEL_DATA);
		break;
	case SWD_PH_TSEL_DATA:
		if (swd_collect(dp, line)) {
			if (dp->shift == dp->targetsel && (unsigned)line == dp->parity)
				dp->phase = SWD_PH_IDLE; /* selected: still in RESET */
			else
				swd_lockout(dp);
		}
		break;
	}
}

/* ---- Line watchers shared by every DP ---- */

static void swd_line_reset(xb_swd *s)
{
	for (unsigned i = 0; i < SWD_NDP; i++) {
		swd_dp *dp = &s->dp[i];
		if (dp->link == SWD_LINK_DORMANT)
			continue;
		if (dp->link != SWD_LINK_RESET && (dp->ctrl & SWD_CTRL_ORUNDETECT))
			dp->ctrl |= SWD_CTRL_STICKYORUN;
		dp->link = SWD_LINK_RESET;
		dp->phase = SWD_PH_RESET_HIGH;
		dp->select &= ~0xFu; /* DPBANKSEL 0: DPIDR and CTRL/STAT are where hosts expect */
	}
}

static int swd_any_dormant(const xb_swd *s)
{
	for (unsigned i = 0; i < SWD_NDP; i++)
		if (s->dp[i].link == SWD_LINK_DORMANT)
			return 1;
	return 0;
}

static void swd_watch_line(xb_swd *s, int line)
{
	if (line) {
		if (++s->ones == LINE_RESET_CYCLES)
			swd_line_reset(s);
	} else {
		s->ones = 0;
	}

	/* SWD-to-dormant: 16 bits right after a line reset's high cycles. */
	if (s->ones >= LINE_RESET_CYCLES) {
		s->s2d_count = 0;
		s->s2d_bits = 0;
	} else if (s->s2d_count >= 0) {
		s->s2d_bits |= (unsigned)line << s->s2d_count;
		if (++s->s2d_count == 16) {
			if (s->s2d_bits == SWD_TO_DORMANT)
				for (unsigned i = 0; i < SWD_NDP; i++) {
					s->dp[i].link = SWD_LINK_DORMANT;
					s->dp[i].phase = SWD_PH_IDLE;
				}
			s->s2d_count = -1;
		}
	}

	/* Dormant DPs listen for the selection alert and the activation code. */
	if (!swd_any_dormant(s)) {
		s->act_count = 0;
		return;
	}
	s->alert_lo = (s->alert_lo >> 1) | (s->alert_hi << 63);
	s->alert_hi = (s->alert_hi >> 1) | ((uint64_t)line << 63);
	if (s->act_count > 0) {
		s->act_count--;
		if (s->act_count < 8)
			s->act_code |= (unsigned)line << (7 - s->act_count);
		if (s->act_count == 0 && s->act_code == ACTIVATION_SWD)
			for (unsigned i = 0; i < SWD_NDP; i++)
				if (s->dp[i].link == SWD_LINK_DORMANT) {
					s->dp[i].link = SWD_LINK_RESET;
					s->dp[i].phase = SWD_PH_RESET_HIGH;
				}
	} else if (s->alert_lo == ALERT_LO && s->alert_hi == ALERT_HI) {
		s->act_count = ACTIVATION_CYCLES;
		s->act_code = 0;
	}
}

int swd_clock(xb_swd *s, int host_bit)
{
	int driven = -1, clash = 0;
	for (unsigned i = 0; i < SWD_NDP; i++) {
		const swd_dp *dp = &s->dp[i];
		if (dp->link != SWD_LINK_RESET && dp->link != SWD_LINK_ACTIVE)
			continue;
		int d = swd_drive(dp);
		if (d < 0)
			continue;
		if (driven >= 0 && d != driven)
			clash = 1;
		driven = driven >= 0 ? (driven & d) : d;
	}
	int line;
	if (host_bit != SWD_RELEASE) {
		line = host_bit ? 1 : 0;
		if (driven >= 0 && driven != line)
			clash = 1;
	} else {
		line = driven >= 0 ? driven : 1; /* the pull-up */
	}
	s->contentions += (uint64_t)clash;
	for (unsigned i = 0; i < SWD_NDP; i++) {
		swd_dp *dp = &s->dp[i];
		if (dp->link == SWD_LINK_RESET || dp->link == SWD_LINK_ACTIVE)
			swd_step(s, dp, line);
	}
	swd_watch_line(s, line);
	s->cycles++;
	return line;
}
