/* adiv5: SWD connection to a (multidrop) debug port, DP/AP registers with SELECT caching,
 * MEM-AP word and block accesses, and recovery from WAIT, FAULT and lost targets. */
#include "adiv5.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CSW_SIZE_WORD 0x2u
#define CSW_INC_SINGLE 0x10u
#define CSW_INC_MASK 0x30u
#define CSW_AHB_DEFAULT 0x23000000u /* MasterType debug, HPROT1 privileged, HPROT0 data */
#define WAIT_RETRIES 100u
#define POWER_UP_TIMEOUT_NS 100000000u
#define TAR_BLOCK 0x400u /* the MEM-AP increments TAR within 1 KB */
#define SMALL_BATCH 32u

struct xb_adi {
	xb_dap_client *c;
	xb_adi_ids ids;
	int connected;
	uint32_t select, csw, tar;
	int select_valid, csw_valid, tar_valid;
};

xb_adi *adi_new(xb_dap_client *c)
{
	xb_adi *a = xcalloc(1, sizeof *a);
	a->c = c;
	return a;
}

void adi_free(xb_adi *a)
{
	free(a);
}

xb_dap_client *adi_client(xb_adi *a)
{
	return a->c;
}

const char *adi_name(const xb_adi *a)
{
	return dap_client_name(a->c);
}

const xb_adi_ids *adi_ids(const xb_adi *a)
{
	return &a->ids;
}

int adi_connected(const xb_adi *a)
{
	return a->connected;
}

void adi_forget(xb_adi *a)
{
	a->select_valid = a->csw_valid = a->tar_valid = 0;
}

/* ---- Failures ---- */

/* Turns a failed run into a message about what (e.g. "reading memory at 0x30000000") and
 * brings the port back where it can. */
static int adi_failed(xb_adi *a, const char *what, const xb_dap_status *st, const xb_err *cerr,
		      xb_err *err)
{
	adi_forget(a);
	const char *name = adi_name(a);
	unsigned ack = st->ack;
	if (ack == 0) {
		if (dap_client_transport(a->c)->broken)
			a->connected = 0;
		return xb_fail(err, "%s (%s)", cerr->msg, what);
	}
	if (ack & XB_ACK_PROTOCOL) {
		a->connected = 0;
		return xb_fail(err, "%s: %s: parity error on the wire; check the wiring or lower the "
				    "SWD clock, then connect again",
			       name, what);
	}
	if (ack == XB_ACK_FAULT) {
		xb_dap_transfer x = {XB_DAP_READ | XB_DAP_A(ADI_DP_CTRL_STAT), 0};
		char flags[96] = "";
		if (dap_client_transfer(a->c, &x, 1, NULL, NULL) == 0)
			snprintf(flags, sizeof flags, " (CTRL/STAT 0x%08x%s%s%s)", x.value,
				 (x.value & ADI_CTRL_STICKYERR) ? ": STICKYERR" : "",
				 (x.value & ADI_CTRL_WDATAERR) ? ", WDATAERR" : "",
				 (x.value & ADI_CTRL_STICKYORUN) ? ", STICKYORUN" : "");
		int cleared = dap_client_write_abort(a->c, ADI_ABORT_CLEAR_STICKY, NULL) == 0;
		return xb_fail(err,
			       "%s: %s: the target answered FAULT%s: nothing answers at that "
			       "address, or debug power is off%s",
			       name, what, flags, cleared ? "; the sticky error is cleared" : "");
	}
	if (ack == XB_ACK_WAIT) {
		dap_client_write_abort(a->c, ADI_ABORT_DAPABORT, NULL);
		return xb_fail(err, "%s: %s: the access port stayed busy (WAIT after %u retries); "
				    "the transfer was aborted",
			       name, what, WAIT_RETRIES);
	}
	a->connected = 0;
	return xb_fail(err, "%s: %s: nothing answered (%s): is the target powered and wired "
			    "(SWDIO, SWCLK, GND)? Connect again",
		       name, what, dap_client_ack_name(ack));
}

/* ---- Building transfer lists ---- */

typedef struct xlist {
	xb_dap_transfer *x;
	size_t n, cap;
	xb_dap_transfer small[SMALL_BATCH];
} xlist;

static void xlist_init(xlist *l)
{
	l->x = l->small;
	l->n = 0;
	l->cap = SMALL_BATCH;
}

static void xlist_add(xlist *l, uint8_t req, uint32_t value)
{
	if (l->n == l->cap) {
		size_t cap = l->cap * 2;
		xb_dap_transfer *x = xmalloc(cap * sizeof *x);
		memcpy(x, l->x, l->n * sizeof *x);
		if (l->x != l->small)
			free(l->x);
		l->x = x;
		l->cap = cap;
	}
	l->x[l->n++] = (xb_dap_transfer){req, value};
}

static void xlist_free(xlist *l)
{
	if (l->x != l->small)
		free(l->x);
}

/* SELECT for AP 0, APBANKSEL apbank and DPBANKSEL dpbank, written when it differs. */
static void want_select(xb_adi *a, xlist *l, unsigned apbank, unsigned dpbank)
{
	uint32_t sel = (apbank & 0xFu) << 4 | (dpbank & 0xFu);
	if (a->select_valid && a->select == sel)
		return;
	xlist_add(l, XB_DAP_A(ADI_DP_SELECT), sel);
	a->select = sel;
	a->select_valid = 1;
}

static unsigned current_apbank(const xb_adi *a)
{
	return a->select_valid ? (a->select >> 4) & 0xFu : 0;
}

/* The MEM-AP ready for word accesses with single increment: SELECT bank 0, CSW. */
static void want_csw(xb_adi *a, xlist *l, uint32_t csw)
{
	want_select(a, l, 0, 0);
	if (a->csw_valid && a->csw == csw)
		return;
	xlist_add(l, XB_DAP_AP | XB_DAP_A(ADI_AP_CSW), csw);
	a->csw = csw;
	a->csw_valid = 1;
}

static uint32_t normal_csw(const xb_adi *a)
{
	return (a->ids.csw & ~CSW_INC_MASK) | CSW_INC_SINGLE;
}

/* Runs l; on failure describes it with what. */
static int adi_run(xb_adi *a, xlist *l, const char *what, xb_err *err)
{
	xb_dap_status st;
	xb_err cerr;
	if (dap_client_transfer(a->c, l->x, l->n, &st, &cerr) == 0)
		return 0;
	return adi_failed(a, what, &st, &cerr, err);
}

/* ---- Registers ---- */

static int adi_reg(xb_adi *a, int ap, unsigned reg, uint32_t *v, int write, xb_err *err)
{
	xb_err e;
	for (unsigned attempt = 0;; attempt++) {
		xlist l;
		xlist_init(&l);
		if (ap)
			want_select(a, &l, (reg >> 4) & 0xFu, 0);
		else if ((reg & 0xCu) == ADI_DP_CTRL_STAT)
			want_select(a, &l, current_apbank(a), (reg >> 4) & 0xFu);
		size_t at = l.n;
		xlist_add(&l, (uint8_t)((ap ? XB_DAP_AP : 0u) | (write ? 0u : XB_DAP_READ) |
					XB_DAP_A(reg)),
			  write ? *v : 0);
		xb_dap_status st;
		int rc = dap_client_transfer(a->c, l.x, l.n, &st, &e);
		if (rc == 0 && !write)
			*v = l.x[at].value;
		xlist_free(&l);
		if (rc == 0)
			return 0;
		char what[64];
		snprintf(what, sizeof what, "%s %s register 0x%02x", write ? "writing" : "reading",
			 ap ? "AP" : "DP", reg);
		rc = adi_failed(a, what, &st, &e, err);
		if (st.ack != XB_ACK_WAIT || attempt == 2)
			return rc;
	}
}

int adi_dp_read(xb_adi *a, unsigned reg, uint32_t *v, xb_err *err)
{
	return adi_reg(a, 0, reg, v, 0, err);
}

int adi_dp_write(xb_adi *a, unsigned reg, uint32_t v, xb_err *err)
{
	if ((reg & 0xCu) == ADI_DP_SELECT)
		adi_forget(a);
	return adi_reg(a, 0, reg, &v, 1, err);
}

int adi_ap_read(xb_adi *a, unsigned reg, uint32_t *v, xb_err *err)
{
	return adi_reg(a, 1, reg, v, 0, err);
}

int adi_ap_write(xb_adi *a, unsigned reg, uint32_t v, xb_err *err)
{
	if (reg == ADI_AP_CSW)
		a->csw_valid = 0;
	if (reg == ADI_AP_TAR)
		a->tar_valid = 0;
	return adi_reg(a, 1, reg, &v, 1, err);
}

int adi_abort(xb_adi *a, uint32_t bits, xb_err *err)
{
	return dap_client_write_abort(a->c, bits, err);
}

/* ---- Connecting ---- */

/* SWJ bits, LSB first. */
typedef struct bitseq {
	uint8_t b[96];
	unsigned n;
} bitseq;

static void bits_add(bitseq *s, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n && s->n < 8 * sizeof s->b; i++, s->n++) {
		if ((v >> i) & 1u)
			s->b[s->n / 8] |= (uint8_t)(1u << (s->n % 8));
		else
			s->b[s->n / 8] &= (uint8_t)~(1u << (s->n % 8));
	}
}

static int bits_send(xb_adi *a, const bitseq *s, xb_err *err)
{
	for (unsigned at = 0; at < s->n; at += 256) {
		unsigned n = s->n - at < 256 ? s->n - at : 256;
		if (dap_client_swj_sequence(a->c, n, s->b + at / 8, err))
			return -1;
	}
	return 0;
}

/* The wake-up of a multidrop bus (ADIv5.2 B5.3, dormant operation). */
static void wake_sequence(bitseq *s, uint32_t targetsel)
{
	static const uint8_t alert[16] = {0x92, 0xf3, 0x09, 0x62, 0x95, 0x2d, 0x85, 0x86,
					  0xe9, 0xaf, 0xdd, 0xe3, 0xa2, 0x0e, 0xbc, 0x19};
	bits_add(s, ~0ull, 56);     /* line reset */
	bits_add(s, 0xE3BC, 16);    /* SWD-to-dormant: awake DPs go to sleep */
	bits_add(s, ~0ull, 8);
	bits_add(s, 0x33BBBBBA, 31); /* JTAG-to-dormant */
	bits_add(s, ~0ull, 8);
	for (int i = 0; i < 16; i++)
		bits_add(s, alert[i], 8); /* selection alert */
	bits_add(s, 0, 4);
	bits_add(s, 0x1A, 8);       /* SWD activation code */
	bits_add(s, ~0ull, 56);     /* line reset */
	bits_add(s, 0, 8);          /* idle */
	if (targetsel == ADI_NO_TARGETSEL)
		return;
	/* TARGETSEL write: request 0x99, five cycles nobody answers in (turnaround, ACK,
	 * turnaround), the value and its parity, then idle. */
	bits_add(s, 0x99, 8);
	bits_add(s, 0x1F, 5);
	bits_add(s, targetsel, 32);
	bits_add(s, (uint64_t)__builtin_parity(targetsel), 1);
	bits_add(s, 0, 2);
}

static int adi_power_up(xb_adi *a, xb_err *err)
{
	uint32_t req = ADI_CTRL_CDBGPWRUPREQ | ADI_CTRL_CSYSPWRUPREQ;
	uint32_t acks = ADI_CTRL_CDBGPWRUPACK | ADI_CTRL_CSYSPWRUPACK;
	if (adi_dp_write(a, ADI_DP_CTRL_STAT, req, err))
		return -1;
	uint64_t start = dap_client_now_ns(a->c);
	for (;;) {
		uint32_t v = 0;
		if (adi_dp_read(a, ADI_DP_CTRL_STAT, &v, err))
			return -1;
		if ((v & acks) == acks)
			return 0;
		if (dap_client_now_ns(a->c) - start > POWER_UP_TIMEOUT_NS)
			return xb_fail(err,
				       "%s: debug power-up not acknowledged within 100 ms "
				       "(CTRL/STAT 0x%08x)",
				       adi_name(a), v);
	}
}

/* AP 0: IDR, BASE, CSW. */
static int adi_setup_ap(xb_adi *a, xb_err *err)
{
	xlist l;
	xlist_init(&l);
	want_select(a, &l, 0xF, 0);
	size_t at = l.n;
	xlist_add(&l, XB_DAP_AP | XB_DAP_READ | XB_DAP_A(ADI_AP_BASE), 0);
	xlist_add(&l, XB_DAP_AP | XB_DAP_READ | XB_DAP_A(ADI_AP_IDR), 0);
	want_select(a, &l, 0, 0);
	size_t csw_at = l.n;
	xlist_add(&l, XB_DAP_AP | XB_DAP_READ | XB_DAP_A(ADI_AP_CSW), 0);
	int rc = adi_run(a, &l, "reading AP 0's IDR, BASE and CSW", err);
	uint32_t base = l.x[at].value, idr = l.x[at + 1].value, csw = l.x[csw_at].value;
	xlist_free(&l);
	if (rc)
		return -1;
	a->ids.ap_base = base;
	a->ids.ap_idr = idr;
	if (idr == 0)
		return xb_fail(err, "%s: the debug port has no access port 0 (IDR reads 0)",
			       adi_name(a));
	if (((idr >> 13) & 0xFu) != 0x8u)
		return xb_fail(err, "%s: access port 0 is not a memory access port (IDR 0x%08x)",
			       adi_name(a), idr);
	uint32_t upper = (idr & 0xFu) == 0x1u ? CSW_AHB_DEFAULT : (csw & 0xFF000000u);
	a->ids.csw = upper | CSW_INC_SINGLE | CSW_SIZE_WORD;
	xlist_init(&l);
	want_csw(a, &l, a->ids.csw);
	rc = adi_run(a, &l, "setting CSW", err);
	xlist_free(&l);
	return rc;
}

int adi_connect(xb_adi *a, uint32_t targetsel, xb_err *err)
{
	a->connected = 0;
	adi_forget(a);
	memset(&a->ids, 0, sizeof a->ids);
	a->ids.targetsel = targetsel;
	if (dap_client_connect(a->c, err) ||
	    dap_client_transfer_configure(a->c, 0, WAIT_RETRIES, 0, err) ||
	    dap_client_swd_configure(a->c, 1, 0, err))
		return -1;
	bitseq s = {{0}, 0};
	wake_sequence(&s, targetsel);
	if (bits_send(a, &s, err))
		return -1;

	xb_dap_transfer x[2] = {{XB_DAP_READ | XB_DAP_A(ADI_DP_DPIDR), 0},
				{XB_DAP_A(ADI_DP_ABORT), ADI_ABORT_CLEAR_STICKY}};
	xb_dap_status st;
	xb_err cerr;
	if (dap_client_transfer(a->c, x, 2, &st, &cerr)) {
		if (st.ack == 0) {
			if (err)
				*err = cerr;
			return -1;
		}
		if (targetsel == ADI_NO_TARGETSEL)
			return xb_fail(err, "%s: no debug port answered a DPIDR read (%s)",
				       adi_name(a), dap_client_ack_name(st.ack));
		return xb_fail(err, "%s: no debug port answered after TARGETSEL 0x%08x (%s): wrong "
				    "target, or the target is not powered or wired",
			       adi_name(a), targetsel, dap_client_ack_name(st.ack));
	}
	a->ids.dpidr = x[0].value;
	if (((a->ids.dpidr >> 12) & 0xFu) >= 2) {
		if (adi_dp_read(a, ADI_DP_TARGETID, &a->ids.targetid, err) ||
		    adi_dp_read(a, ADI_DP_DLPIDR, &a->ids.dlpidr, err) ||
		    adi_dp_write(a, ADI_DP_SELECT, 0, err))
			return -1;
		a->select = 0;
		a->select_valid = 1;
		if (targetsel != ADI_NO_TARGETSEL && (a->ids.dlpidr >> 28) != (targetsel >> 28))
			return xb_fail(err,
				       "%s: DLPIDR 0x%08x names instance %u, TARGETSEL 0x%08x "
				       "asked for %u",
				       adi_name(a), a->ids.dlpidr, a->ids.dlpidr >> 28, targetsel,
				       targetsel >> 28);
	}
	/* the RP2040's rescue DP has no AP, and powering it up resets the chip */
	int rescue = targetsel != ADI_NO_TARGETSEL && (targetsel >> 28) == 0xFu;
	if (!rescue && (adi_power_up(a, err) || adi_setup_ap(a, err)))
		return -1;
	a->connected = 1;
	return 0;
}

/* ---- Memory ---- */

/* TAR after a word access at addr with single increment (within its 1 KB block). */
static uint32_t tar_after(uint32_t addr)
{
	return (addr & ~(TAR_BLOCK - 1)) | ((addr + 4) & (TAR_BLOCK - 1));
}

static int adi_check_addr(xb_adi *a, uint32_t addr, xb_err *err)
{
	if (addr & 3)
		return xb_fail(err, "%s: address 0x%08x is not word aligned", adi_name(a), addr);
	if (!a->connected)
		return xb_fail(err, "%s: not connected to a debug port (connect first)",
			       adi_name(a));
	return 0;
}

int adi_mem_access(xb_adi *a, xb_mem_access *acc, size_t n, xb_err *err)
{
	for (size_t i = 0; i < n; i++)
		if (adi_check_addr(a, acc[i].addr, err))
			return -1;
	for (unsigned attempt = 0;; attempt++) {
		xlist l;
		xlist_init(&l);
		size_t *at = xmalloc((n ? n : 1) * sizeof *at);
		want_csw(a, &l, normal_csw(a));
		for (size_t i = 0; i < n; i++) {
			if (!a->tar_valid || a->tar != acc[i].addr)
				xlist_add(&l, ADI_REQ_TAR_WRITE, acc[i].addr);
			at[i] = l.n;
			xlist_add(&l, acc[i].write ? (uint8_t)(XB_DAP_AP | XB_DAP_A(ADI_AP_DRW))
						   : ADI_REQ_DRW_READ,
				  acc[i].value);
			a->tar = tar_after(acc[i].addr);
			a->tar_valid = 1;
		}
		xb_dap_status st;
		xb_err cerr;
		int rc = dap_client_transfer(a->c, l.x, l.n, &st, &cerr);
		for (size_t i = 0; rc == 0 && i < n; i++)
			if (!acc[i].write)
				acc[i].value = l.x[at[i]].value;
		size_t bad = 0;
		while (rc && bad + 1 < n && at[bad] < st.done)
			bad++;
		free(at);
		xlist_free(&l);
		if (rc == 0)
			return 0;
		char what[64];
		if (n)
			snprintf(what, sizeof what, "%s memory at 0x%08x",
				 acc[bad].write ? "writing" : "reading", acc[bad].addr);
		else
			snprintf(what, sizeof what, "setting up the memory access port");
		rc = adi_failed(a, what, &st, &cerr, err);
		if (st.ack != XB_ACK_WAIT || attempt == 2)
			return rc;
	}
}

int adi_mem_read32(xb_adi *a, uint32_t addr, uint32_t *v, xb_err *err)
{
	xb_mem_access m = {.addr = addr};
	if (adi_mem_access(a, &m, 1, err))
		return -1;
	*v = m.value;
	return 0;
}

int adi_mem_write32(xb_adi *a, uint32_t addr, uint32_t v, xb_err *err)
{
	xb_mem_access m = {.addr = addr, .value = v, .write = 1};
	return adi_mem_access(a, &m, 1, err);
}

/* Block transfers: per 1 KB piece, a DAP_Transfer op setting TAR and a TransferBlock op. */
static int adi_mem_block(xb_adi *a, uint32_t addr, uint32_t *words, size_t n, int write,
			 xb_err *err)
{
	if (adi_check_addr(a, addr, err))
		return -1;
	if (n == 0)
		return 0;
	if ((uint64_t)addr + 4 * (uint64_t)n > 0x100000000ull)
		return xb_fail(err, "%s: %zu words from 0x%08x pass the end of the address space",
			       adi_name(a), n, addr);
	size_t pieces = (n * 4 + (addr & (TAR_BLOCK - 1)) + TAR_BLOCK - 1) / TAR_BLOCK + 1;
	for (unsigned attempt = 0;; attempt++) {
		xb_dap_op *ops = xcalloc(2 * pieces, sizeof *ops);
		xlist *lists = xcalloc(pieces, sizeof *lists);
		uint32_t *piece_addr = xcalloc(pieces, sizeof *piece_addr);
		size_t nops = 0, np = 0, done = 0;
		while (done < n) {
			uint32_t at = addr + 4 * (uint32_t)done;
			size_t room = (TAR_BLOCK - (at & (TAR_BLOCK - 1))) / 4;
			size_t k = n - done < room ? n - done : room;
			xlist *l = &lists[np];
			xlist_init(l);
			if (np == 0)
				want_csw(a, l, normal_csw(a));
			xlist_add(l, ADI_REQ_TAR_WRITE, at);
			piece_addr[np++] = at;
			ops[nops++] = (xb_dap_op){.x = l->x, .n = l->n};
			ops[nops++] = (xb_dap_op){
				.block = 1,
				.req = write ? (uint8_t)(XB_DAP_AP | XB_DAP_A(ADI_AP_DRW))
					     : ADI_REQ_DRW_READ,
				.words = words + done,
				.n = k,
			};
			done += k;
		}
		a->tar_valid = 0;
		xb_dap_status st;
		xb_err cerr;
		int rc = dap_client_run(a->c, ops, nops, &st, &cerr);
		uint32_t bad = piece_addr[st.op / 2 < np ? st.op / 2 : 0];
		if (st.op % 2)
			bad += 4 * (uint32_t)st.done;
		for (size_t i = 0; i < np; i++)
			xlist_free(&lists[i]);
		free(lists);
		free(ops);
		free(piece_addr);
		if (rc == 0)
			return 0;
		char what[128];
		snprintf(what, sizeof what, "%s %zu words of memory at 0x%08x (failed at 0x%08x)",
			 write ? "writing" : "reading", n, addr, bad);
		rc = adi_failed(a, what, &st, &cerr, err);
		if (st.ack != XB_ACK_WAIT || attempt == 2)
			return rc;
	}
}

int adi_mem_read(xb_adi *a, uint32_t addr, uint32_t *words, size_t n, xb_err *err)
{
	return adi_mem_block(a, addr, words, n, 0, err);
}

int adi_mem_write(xb_adi *a, uint32_t addr, const uint32_t *words, size_t n, xb_err *err)
{
	/* the block op only reads from words when writing */
	return adi_mem_block(a, addr, (uint32_t *)words, n, 1, err);
}

int adi_repeat_reads(xb_adi *a, uint32_t addr, xb_err *err)
{
	if (adi_check_addr(a, addr, err))
		return -1;
	xlist l;
	xlist_init(&l);
	want_csw(a, &l, a->ids.csw & ~CSW_INC_MASK);
	xlist_add(&l, ADI_REQ_TAR_WRITE, addr);
	a->tar = addr;
	a->tar_valid = 1;
	char what[64];
	snprintf(what, sizeof what, "setting up repeated reads of 0x%08x", addr);
	int rc = adi_run(a, &l, what, err);
	xlist_free(&l);
	return rc;
}
