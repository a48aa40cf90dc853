/* usbctrl: the RP2040 USB device controller: DPRAM, registers, interrupts, and the
 * token-level behaviour of the datasheet's device controller (4.1.2.6). */
#include "usbctrl.h"

#include <stdlib.h>
#include <string.h>

#include "periph.h"

enum {
	R_ADDR_ENDP = 0x00,
	R_ADDR_ENDP15 = 0x3C,
	R_MAIN_CTRL = 0x40,
	R_SOF_WR = 0x44,
	R_SOF_RD = 0x48,
	R_SIE_CTRL = 0x4C,
	R_SIE_STATUS = 0x50,
	R_INT_EP_CTRL = 0x54,
	R_BUFF_STATUS = 0x58,
	R_BUFF_CPU_SHOULD_HANDLE = 0x5C,
	R_EP_ABORT = 0x60,
	R_EP_ABORT_DONE = 0x64,
	R_EP_STALL_ARM = 0x68,
	R_NAK_POLL = 0x6C,
	R_EP_STATUS_STALL_NAK = 0x70,
	R_USB_MUXING = 0x74,
	R_USB_PWR = 0x78,
	R_USBPHY_DIRECT = 0x7C,
	R_USBPHY_DIRECT_OVERRIDE = 0x80,
	R_USBPHY_TRIM = 0x84,
	R_RESERVED = 0x88, /* inside usb_hw_t: drivers memset it with the rest */
	R_INTR = 0x8C,
	R_INTE = 0x90,
	R_INTF = 0x94,
	R_INTS = 0x98,
	REGS_SIZE = 0x9C,
};

/* MAIN_CTRL */
#define MAIN_CONTROLLER_EN 0x1u
#define MAIN_HOST_NDEVICE 0x2u
#define MAIN_MASK 0x80000003u
/* SIE_CTRL */
#define SIE_CTRL_MASK 0xFF07BF5Fu
#define SIE_CTRL_SC 0x00003011u /* RESET_BUS, RESUME, STOP_TRANS, START_TRANS */
#define SIE_EP0_INT_STALL (1u << 31)
#define SIE_EP0_DOUBLE_BUF (1u << 30)
#define SIE_EP0_INT_1BUF (1u << 29)
#define SIE_EP0_INT_2BUF (1u << 28)
#define SIE_EP0_INT_NAK (1u << 27)
#define SIE_TRANSCEIVER_PD (1u << 18)
#define SIE_PULLUP_EN (1u << 16)
/* SIE_STATUS */
#define ST_DATA_SEQ_ERROR (1u << 31)
#define ST_ACK_REC (1u << 30)
#define ST_STALL_REC (1u << 29)
#define ST_RX_TIMEOUT (1u << 27)
#define ST_RX_OVERFLOW (1u << 26)
#define ST_BIT_STUFF_ERROR (1u << 25)
#define ST_CRC_ERROR (1u << 24)
#define ST_BUS_RESET (1u << 19)
#define ST_TRANS_COMPLETE (1u << 18)
#define ST_SETUP_REC (1u << 17)
#define ST_CONNECTED (1u << 16)
#define ST_RESUME (1u << 11)
#define ST_SUSPENDED (1u << 4)
#define ST_VBUS_DETECTED (1u << 0)
#define ST_LATCHED 0xFF0E0800u /* the write-1-to-clear event bits kept here */
/* INTR */
#define IN_EP_STALL_NAK (1u << 19)
#define IN_ABORT_DONE (1u << 18)
#define IN_DEV_SOF (1u << 17)
#define IN_SETUP_REQ (1u << 16)
#define IN_DEV_RESUME_FROM_HOST (1u << 15)
#define IN_DEV_SUSPEND (1u << 14)
#define IN_DEV_CONN_DIS (1u << 13)
#define IN_BUS_RESET (1u << 12)
#define IN_VBUS_DETECT (1u << 11)
#define IN_STALL (1u << 10)
#define IN_ERROR_CRC (1u << 9)
#define IN_ERROR_BIT_STUFF (1u << 8)
#define IN_ERROR_RX_OVERFLOW (1u << 7)
#define IN_ERROR_RX_TIMEOUT (1u << 6)
#define IN_ERROR_DATA_SEQ (1u << 5)
#define IN_BUFF_STATUS (1u << 4)
#define IN_TRANS_COMPLETE (1u << 3)
#define IN_MASK 0x000FFFFFu
/* USB_PWR */
#define PWR_VBUS_DETECT (1u << 2)
#define PWR_VBUS_DETECT_OVERRIDE_EN (1u << 3)
/* Endpoint control word (EP1-15) */
#define EPC_ENABLE (1u << 31)
#define EPC_DOUBLE (1u << 30)
#define EPC_INT_PER_BUFF (1u << 29)
#define EPC_INT_PER_DOUBLE (1u << 28)
#define EPC_TYPE_SHIFT 26
#define EPC_INT_ON_STALL (1u << 17)
#define EPC_INT_ON_NAK (1u << 16)
/* Buffer control: per 16-bit half, plus the low-half-only RESET and STALL */
#define BC_FULL 0x8000u
#define BC_LAST 0x4000u
#define BC_PID 0x2000u
#define BC_AVAIL 0x0400u
#define BC_LEN 0x03FFu
#define BC_RESET_SEL (1u << 12)
#define BC_STALL (1u << 11)

#define EP_TYPE_ISO 1u
#define SUSPEND_US 3000u

struct xb_usbctrl {
	xb_board *board;
	uint8_t dpram[XB_USBCTRL_DPRAM_SIZE];
	uint32_t addr_endp, int_ep_addr[15], main_ctrl, sof_rd, sie_ctrl, sie_status;
	uint32_t int_ep_ctrl, buff_status, buff_should_handle, ep_abort, ep_abort_done;
	uint32_t ep_stall_arm, nak_poll, stall_nak, muxing, pwr, phy_direct, phy_override;
	uint32_t phy_trim, inte, intf;
	uint32_t changed;  /* INTR's latched "changed" flags */
	uint32_t buf_sel;  /* per endpoint (BUFF_STATUS map): the buffer the next packet uses */
	int held;          /* RESETS bit 24 */
	int vbus, se0, resume_k, suspended, attached, connected, vbus_detected, irq;
	int host_mode_reported;
	/* an IN packet sent and waiting for the host's handshake */
	int in_pending;
	unsigned in_ep, in_buf;
	/* suspend detection */
	uint64_t last_activity;
	uint64_t suspend_event;
	xb_usbctrl_host_fn host_fn;
	void *host_ctx;
};

/* What the controller needs to know about one endpoint direction. */
typedef struct ep_info {
	unsigned bit;       /* BUFF_STATUS bit: 2n for IN, 2n + 1 for OUT */
	uint32_t bc_off;    /* buffer control word offset */
	int enabled, dbl, per_buff, per_dbl, iso, int_nak, int_stall;
	uint32_t buf[2];    /* buffer offsets */
} ep_info;

static uint32_t dp_word(const xb_usbctrl *u, uint32_t off)
{
	uint32_t v;
	memcpy(&v, u->dpram + off, 4); /* little-endian host, as the bus assumes */
	return v;
}

static void dp_set_word(xb_usbctrl *u, uint32_t off, uint32_t v)
{
	memcpy(u->dpram + off, &v, 4);
}

static void ep_lookup(const xb_usbctrl *u, unsigned ep, int in, ep_info *e)
{
	memset(e, 0, sizeof *e);
	e->bit = 2 * ep + (in ? 0 : 1);
	e->bc_off = 0x80 + 8 * ep + (in ? 0 : 4);
	if (ep == 0) {
		e->enabled = 1;
		e->dbl = !!(u->sie_ctrl & SIE_EP0_DOUBLE_BUF);
		e->per_buff = !!(u->sie_ctrl & SIE_EP0_INT_1BUF);
		e->per_dbl = !!(u->sie_ctrl & SIE_EP0_INT_2BUF);
		e->int_nak = !!(u->sie_ctrl & SIE_EP0_INT_NAK);
		e->int_stall = !!(u->sie_ctrl & SIE_EP0_INT_STALL);
		e->buf[0] = 0x100;
		e->buf[1] = 0x140;
		return;
	}
	uint32_t c = dp_word(u, 8 * ep + (in ? 0 : 4));
	e->enabled = !!(c & EPC_ENABLE);
	e->dbl = !!(c & EPC_DOUBLE);
	e->per_buff = !!(c & EPC_INT_PER_BUFF);
	e->per_dbl = !!(c & EPC_INT_PER_DOUBLE);
	e->iso = ((c >> EPC_TYPE_SHIFT) & 3) == EP_TYPE_ISO;
	e->int_nak = !!(c & EPC_INT_ON_NAK);
	e->int_stall = !!(c & EPC_INT_ON_STALL);
	e->buf[0] = c & 0xFFC0u;
	uint32_t step = 64;
	if (e->iso)
		step = 128u << ((dp_word(u, e->bc_off) >> 27) & 3);
	e->buf[1] = e->buf[0] + step;
}

/* ---- Interrupts ---- */

static uint32_t usbctrl_intr(const xb_usbctrl *u)
{
	uint32_t s = u->sie_status, r = u->changed;
	if (u->stall_nak)
		r |= IN_EP_STALL_NAK;
	if (u->ep_abort_done)
		r |= IN_ABORT_DONE;
	if (s & ST_SETUP_REC)
		r |= IN_SETUP_REQ;
	if (s & ST_BUS_RESET)
		r |= IN_BUS_RESET;
	if (s & ST_STALL_REC)
		r |= IN_STALL;
	if (s & ST_CRC_ERROR)
		r |= IN_ERROR_CRC;
	if (s & ST_BIT_STUFF_ERROR)
		r |= IN_ERROR_BIT_STUFF;
	if (s & ST_RX_OVERFLOW)
		r |= IN_ERROR_RX_OVERFLOW;
	if (s & ST_RX_TIMEOUT)
		r |= IN_ERROR_RX_TIMEOUT;
	if (s & ST_DATA_SEQ_ERROR)
		r |= IN_ERROR_DATA_SEQ;
	if (u->buff_status)
		r |= IN_BUFF_STATUS;
	if (s & ST_TRANS_COMPLETE)
		r |= IN_TRANS_COMPLETE;
	return r;
}

static uint32_t usbctrl_ints(const xb_usbctrl *u)
{
	return ((usbctrl_intr(u) & u->inte) | u->intf) & IN_MASK;
}

static void usbctrl_update_irq(xb_usbctrl *u)
{
	int level = usbctrl_ints(u) != 0;
	if (level != u->irq) {
		u->irq = level;
		board_irq_set(u->board, XB_USBCTRL_IRQ, level);
	}
}

/* ---- Line state: attachment, VBUS, connection, suspend ---- */

static void usbctrl_tell_host(xb_usbctrl *u, unsigned what)
{
	if (u->host_fn)
		u->host_fn(u->host_ctx, what);
}

static void usbctrl_suspend_check(xb_board *b, void *ctx);

static void usbctrl_arm_suspend(xb_usbctrl *u)
{
	if (u->suspend_event || !u->connected || u->suspended)
		return;
	uint64_t at = u->last_activity +
		      periph_muldiv(SUSPEND_US, board_cpu_hz(u->board), 1000000u);
	u->suspend_event = board_schedule(u->board, at, usbctrl_suspend_check, u);
}

/* Suspend and resume (datasheet 4.1.2.6.4): the device suspends when its bus has been idle
 * (J, no SOF) for 3 ms (USB 2.0 7.1.7.6), which also happens while a host debounces a new
 * connection before its first reset (the datasheet's note). Entering suspend sets
 * SIE_STATUS.SUSPENDED and latches INTR.DEV_SUSPEND; leaving it raises no second
 * DEV_SUSPEND (drivers treat every DEV_SUSPEND as "suspended": Zephyr's udc_rpi_pico,
 * TinyUSB's dcd_rp2040) but SIE_STATUS.RESUME and INTR.DEV_RESUME_FROM_HOST: the bus left
 * its idle state (resume signalling, a packet, or the SE0 of a bus reset), so that a
 * driver's suspended flag follows the bus. */
static void usbctrl_suspend_check(xb_board *b, void *ctx)
{
	xb_usbctrl *u = ctx;
	u->suspend_event = 0;
	if (!u->connected || u->suspended || u->se0 || u->resume_k)
		return;
	uint64_t idle = periph_muldiv(SUSPEND_US, board_cpu_hz(b), 1000000u);
	if (board_cycles(b) - u->last_activity >= idle) {
		u->suspended = 1;
		u->changed |= IN_DEV_SUSPEND;
		usbctrl_update_irq(u);
	} else {
		usbctrl_arm_suspend(u);
	}
}

/* Bus activity (a packet, resume signalling, SE0) at the current time. */
static void usbctrl_activity(xb_usbctrl *u)
{
	u->last_activity = board_cycles(u->board);
	if (u->suspended) {
		u->suspended = 0;
		u->sie_status |= ST_RESUME;
		u->changed |= IN_DEV_RESUME_FROM_HOST;
		usbctrl_update_irq(u);
	}
	usbctrl_arm_suspend(u);
}

/* Recomputes attachment, VBUS detection and connection after anything that affects them. */
static void usbctrl_update_line(xb_usbctrl *u)
{
	int attached = !u->held && (u->main_ctrl & MAIN_CONTROLLER_EN) &&
		       !(u->main_ctrl & MAIN_HOST_NDEVICE) && (u->sie_ctrl & SIE_PULLUP_EN) &&
		       !(u->sie_ctrl & SIE_TRANSCEIVER_PD);
	int overridden = !!(u->pwr & PWR_VBUS_DETECT_OVERRIDE_EN);
	int vbus = overridden ? !!(u->pwr & PWR_VBUS_DETECT) : u->vbus;
	if (u->held)
		vbus = 0;
	if (vbus != u->vbus_detected) {
		u->vbus_detected = vbus;
		if (!overridden && !u->held)
			u->changed |= IN_VBUS_DETECT;
	}
	int connected = attached && u->vbus;
	if (connected != u->connected) {
		u->connected = connected;
		u->changed |= IN_DEV_CONN_DIS;
		if (connected) {
			u->last_activity = board_cycles(u->board);
			usbctrl_arm_suspend(u);
		} else {
			u->suspended = 0;
			u->in_pending = 0;
		}
	}
	usbctrl_update_irq(u);
	if (attached != u->attached) {
		u->attached = attached;
		usbctrl_tell_host(u, XB_USBCTRL_ATTACH);
	}
}

/* ---- Registers ---- */

static void usbctrl_regs_reset(xb_usbctrl *u)
{
	u->addr_endp = u->main_ctrl = u->sof_rd = u->sie_ctrl = u->sie_status = 0;
	memset(u->int_ep_addr, 0, sizeof u->int_ep_addr);
	u->int_ep_ctrl = u->buff_status = u->buff_should_handle = u->ep_abort = 0;
	u->ep_abort_done = u->ep_stall_arm = u->stall_nak = u->muxing = u->pwr = 0;
	u->phy_direct = u->phy_override = u->inte = u->intf = 0;
	u->nak_poll = 0x00100010u;
	u->phy_trim = 0x00001F1Fu;
	u->changed = 0;
	u->buf_sel = 0;
	u->in_pending = 0;
	u->suspended = 0;
}

static uint32_t usbctrl_sie_status(const xb_usbctrl *u)
{
	uint32_t s = u->sie_status;
	if (u->connected)
		s |= ST_CONNECTED;
	if (u->suspended)
		s |= ST_SUSPENDED;
	if (u->vbus_detected)
		s |= ST_VBUS_DETECTED;
	if (u->attached && u->vbus && !u->se0)
		s |= (u->resume_k ? 2u : 1u) << 2; /* LINE_STATE: K (resume) or J (idle) */
	return s;
}

static uint32_t usbctrl_reg_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_usbctrl *u = ctx;
	if (off >= 0x04 && off <= R_ADDR_ENDP15)
		return u->int_ep_addr[off / 4 - 1];
	switch (off) {
	case R_ADDR_ENDP: return u->addr_endp;
	case R_MAIN_CTRL: return u->main_ctrl;
	case R_SOF_WR: return 0;
	case R_SOF_RD:
		if (!bus_access_is_debug(board_bus(u->board)) && (u->changed & IN_DEV_SOF)) {
			u->changed &= ~IN_DEV_SOF;
			usbctrl_update_irq(u);
		}
		return u->sof_rd;
	case R_SIE_CTRL: return u->sie_ctrl;
	case R_SIE_STATUS: return usbctrl_sie_status(u);
	case R_INT_EP_CTRL: return u->int_ep_ctrl;
	case R_BUFF_STATUS: return u->buff_status;
	case R_BUFF_CPU_SHOULD_HANDLE: return u->buff_should_handle;
	case R_EP_ABORT: return u->ep_abort;
	case R_EP_ABORT_DONE: return u->ep_abort_done;
	case R_EP_STALL_ARM: return u->ep_stall_arm;
	case R_NAK_POLL: return u->nak_poll;
	case R_EP_STATUS_STALL_NAK: return u->stall_nak;
	case R_USB_MUXING: return u->muxing;
	case R_USB_PWR: return u->pwr;
	case R_USBPHY_DIRECT: return u->phy_direct;
	case R_USBPHY_DIRECT_OVERRIDE: return u->phy_override;
	case R_USBPHY_TRIM: return u->phy_trim;
	case R_RESERVED: return 0;
	case R_INTR: return usbctrl_intr(u);
	case R_INTE: return u->inte;
	case R_INTF: return u->intf;
	case R_INTS: return usbctrl_ints(u);
	}
	bus_report_hole(board_bus(u->board));
	return 0;
}

static void usbctrl_write_sie_status(xb_usbctrl *u, uint32_t v)
{
	u->sie_status = periph_wc(u->sie_status, v & ST_LATCHED);
	if (v & ST_CONNECTED)
		u->changed &= ~IN_DEV_CONN_DIS;
	if (v & ST_SUSPENDED)
		u->changed &= ~IN_DEV_SUSPEND;
	if (v & ST_RESUME)
		u->changed &= ~IN_DEV_RESUME_FROM_HOST;
	if (v & ST_VBUS_DETECTED)
		u->changed &= ~IN_VBUS_DETECT;
}

/* Setting EP_ABORT bits: an endpoint is idle at once unless its IN packet awaits the
 * host's handshake, in which case EP_ABORT_DONE follows that handshake. */
static void usbctrl_write_abort(xb_usbctrl *u, uint32_t v)
{
	uint32_t rising = v & ~u->ep_abort;
	u->ep_abort = v;
	if (u->in_pending)
		rising &= ~(1u << (2 * u->in_ep));
	u->ep_abort_done |= rising;
}

static void usbctrl_reg_write(void *ctx, uint32_t off, uint32_t v, unsigned size,
			      enum xb_alias_op op)
{
	(void)size;
	xb_usbctrl *u = ctx;
	if (u->held)
		return;
	if (off >= 0x04 && off <= R_ADDR_ENDP15) {
		uint32_t *r = &u->int_ep_addr[off / 4 - 1];
		*r = periph_rw(*r, v, op, 0x060F007Fu);
		return;
	}
	switch (off) {
	case R_ADDR_ENDP:
		u->addr_endp = periph_rw(u->addr_endp, v, op, 0x000F007Fu);
		break;
	case R_MAIN_CTRL:
		u->main_ctrl = periph_rw(u->main_ctrl, v, op, MAIN_MASK);
		if ((u->main_ctrl & MAIN_HOST_NDEVICE) && !u->host_mode_reported) {
			u->host_mode_reported = 1;
			bus_log(board_bus(u->board),
				"USB: host mode (MAIN_CTRL.HOST_NDEVICE) is not modelled; the "
				"controller stays silent");
		}
		break;
	case R_SOF_WR:
	case R_SOF_RD:
		return;
	case R_SIE_CTRL:
		u->sie_ctrl = periph_rw(u->sie_ctrl, v, op, SIE_CTRL_MASK) & ~SIE_CTRL_SC;
		break;
	case R_SIE_STATUS:
		usbctrl_write_sie_status(u, v);
		break;
	case R_INT_EP_CTRL:
		u->int_ep_ctrl = periph_rw(u->int_ep_ctrl, v, op, 0xFFFEu);
		return;
	case R_BUFF_STATUS:
		u->buff_status = periph_wc(u->buff_status, v);
		break;
	case R_BUFF_CPU_SHOULD_HANDLE:
		return;
	case R_EP_ABORT:
		usbctrl_write_abort(u, bus_alias_apply(u->ep_abort, v, op));
		break;
	case R_EP_ABORT_DONE:
		u->ep_abort_done = periph_wc(u->ep_abort_done, v);
		break;
	case R_EP_STALL_ARM:
		u->ep_stall_arm = periph_rw(u->ep_stall_arm, v, op, 0x3u);
		break;
	case R_NAK_POLL:
		u->nak_poll = periph_rw(u->nak_poll, v, op, 0x03FF03FFu);
		return;
	case R_EP_STATUS_STALL_NAK:
		u->stall_nak = periph_wc(u->stall_nak, v);
		break;
	case R_USB_MUXING:
		u->muxing = periph_rw(u->muxing, v, op, 0xFu);
		break;
	case R_USB_PWR:
		u->pwr = periph_rw(u->pwr, v, op, 0x3Fu);
		break;
	case R_USBPHY_DIRECT:
		u->phy_direct = periph_rw(u->phy_direct, v, op, 0x0000FF77u);
		return;
	case R_USBPHY_DIRECT_OVERRIDE:
		u->phy_override = periph_rw(u->phy_override, v, op, 0x9FFFu);
		return;
	case R_USBPHY_TRIM:
		u->phy_trim = periph_rw(u->phy_trim, v, op, 0x1F1Fu);
		return;
	case R_RESERVED:
	case R_INTR:
	case R_INTS:
		return;
	case R_INTE:
		u->inte = periph_rw(u->inte, v, op, IN_MASK);
		break;
	case R_INTF:
		u->intf = periph_rw(u->intf, v, op, IN_MASK);
		break;
	default:
		bus_report_hole(board_bus(u->board));
		return;
	}
	usbctrl_update_line(u);
	usbctrl_tell_host(u, XB_USBCTRL_CHANGE);
}

static const xb_device_ops usbctrl_reg_ops = {
	.read = usbctrl_reg_read,
	.write = usbctrl_reg_write,
};

/* ---- DPRAM ---- */

static uint32_t usbctrl_dp_read(void *ctx, uint32_t off, unsigned size)
{
	xb_usbctrl *u = ctx;
	uint32_t v = 0;
	memcpy(&v, u->dpram + off, size);
	return v;
}

static void usbctrl_dp_write(void *ctx, uint32_t off, uint32_t v, unsigned size,
			     enum xb_alias_op op)
{
	xb_usbctrl *u = ctx;
	uint32_t old = 0;
	memcpy(&old, u->dpram + off, size);
	v = bus_alias_apply(old, v, op);
	memcpy(u->dpram + off, &v, size);
	if (off >= 0x100)
		return; /* packet data: the handshakes do not depend on it */
	/* "Reset buffer select to buffer 0" in a buffer control word acts when written. */
	uint32_t word = off & ~3u;
	if (word >= 0x80 && (dp_word(u, word) & BC_RESET_SEL)) {
		unsigned ep = (word - 0x80) / 8, in = !((word >> 2) & 1);
		u->buf_sel &= ~(1u << (2 * ep + (in ? 0 : 1)));
	}
	usbctrl_tell_host(u, XB_USBCTRL_CHANGE);
}

static const xb_device_ops usbctrl_dp_ops = {
	.read = usbctrl_dp_read,
	.write = usbctrl_dp_write,
	.flags = XB_DEV_BYTES,
};

/* ---- Resets ---- */

static void usbctrl_system_reset(xb_board *b, void *ctx)
{
	(void)b;
	xb_usbctrl *u = ctx;
	usbctrl_regs_reset(u);
	usbctrl_update_line(u);
}

void usbctrl_block_reset(void *ctx, int held)
{
	xb_usbctrl *u = ctx;
	u->held = held;
	if (held)
		usbctrl_regs_reset(u);
	usbctrl_update_line(u);
}

xb_usbctrl *usbctrl_new(xb_board *b)
{
	xb_usbctrl *u = xcalloc(1, sizeof *u);
	u->board = b;
	usbctrl_regs_reset(u);
	xb_bus *bus = board_bus(b);
	if (bus_map(bus, XB_USBCTRL_DPRAM_BASE, XB_USBCTRL_DPRAM_SIZE, "USBCTRL_DPRAM",
		    &usbctrl_dp_ops, u)) {
		free(u);
		return NULL;
	}
	if (bus_map(bus, XB_USBCTRL_REGS_BASE, REGS_SIZE, "USBCTRL_REGS", &usbctrl_reg_ops, u)) {
		bus_unmap(bus, XB_USBCTRL_DPRAM_BASE);
		free(u);
		return NULL;
	}
	board_on_reset(b, usbctrl_system_reset, u);
	return u;
}

void usbctrl_free(xb_usbctrl *u)
{
	free(u);
}

/* ---- Wire side ---- */

void usbctrl_set_host(xb_usbctrl *u, xb_usbctrl_host_fn fn, void *ctx)
{
	u->host_fn = fn;
	u->host_ctx = ctx;
}

int usbctrl_attached(const xb_usbctrl *u)
{
	return u->attached;
}

void usbctrl_set_vbus(xb_usbctrl *u, int on)
{
	u->vbus = !!on;
	usbctrl_update_line(u);
}

void usbctrl_bus_reset(xb_usbctrl *u, int se0)
{
	se0 = !!se0;
	if (se0 == u->se0)
		return;
	u->se0 = se0;
	usbctrl_activity(u);
	if (se0 && u->connected) {
		u->sie_status |= ST_BUS_RESET;
		u->buf_sel = 0;
		u->in_pending = 0;
	}
	usbctrl_update_irq(u);
}

void usbctrl_resume(xb_usbctrl *u, int k)
{
	k = !!k;
	if (k == u->resume_k)
		return;
	u->resume_k = k;
	if (u->connected)
		usbctrl_activity(u);
}

static int usbctrl_listening(const xb_usbctrl *u, unsigned addr)
{
	return u->connected && !u->se0 && !(u->main_ctrl & MAIN_HOST_NDEVICE) &&
	       addr == (u->addr_endp & 0x7Fu);
}

void usbctrl_sof(xb_usbctrl *u, unsigned frame)
{
	if (!u->connected || u->se0)
		return;
	usbctrl_activity(u);
	u->sof_rd = frame & 0x7FFu;
	u->changed |= IN_DEV_SOF;
	usbctrl_update_irq(u);
}

enum xb_usb_response usbctrl_setup(xb_usbctrl *u, unsigned addr, const uint8_t setup[8])
{
	if (!usbctrl_listening(u, addr))
		return XB_USB_NONE;
	usbctrl_activity(u);
	memcpy(u->dpram, setup, 8);
	u->ep_stall_arm = 0;
	u->sie_status |= ST_SETUP_REC;
	usbctrl_update_irq(u);
	return XB_USB_ACK;
}

/* EP_STATUS_STALL_NAK when the driver asked for it. */
static void usbctrl_note(xb_usbctrl *u, const ep_info *e, enum xb_usb_response r)
{
	if ((r == XB_USB_NAK && e->int_nak) || (r == XB_USB_STALL && e->int_stall)) {
		u->stall_nak |= 1u << e->bit;
		usbctrl_update_irq(u);
	}
}

static int usbctrl_stalled(const xb_usbctrl *u, unsigned ep, int in, uint32_t bc)
{
	if (!(bc & BC_STALL))
		return 0;
	return ep != 0 || (u->ep_stall_arm & (in ? 1u : 2u));
}

/* The status phase of a buffer (datasheet 4.1.2.6.2): TRANS_COMPLETE on the last buffer,
 * the buffer selector flips on double-buffered endpoints, BUFF_STATUS when asked for. */
static void usbctrl_buffer_done(xb_usbctrl *u, const ep_info *e, unsigned b, uint32_t half)
{
	if (half & BC_LAST)
		u->sie_status |= ST_TRANS_COMPLETE;
	if (e->dbl)
		u->buf_sel ^= 1u << e->bit;
	if (e->per_buff || (e->dbl && e->per_dbl && b == 1)) {
		u->buff_status |= 1u << e->bit;
		u->buff_should_handle = (u->buff_should_handle & ~(1u << e->bit)) | (b << e->bit);
	}
	usbctrl_update_irq(u);
}

/* Writes the half of buffer control word e->bc_off for buffer b, and clears "reset buffer
 * select" (the datasheet: cleared at the end of a transfer). */
static void usbctrl_write_half(xb_usbctrl *u, const ep_info *e, unsigned b, uint32_t half)
{
	uint32_t bc = dp_word(u, e->bc_off) & ~BC_RESET_SEL;
	if (b == 0)
		bc = (bc & (0xFFFF0000u | BC_STALL)) | (half & ~(BC_RESET_SEL | BC_STALL));
	else
		bc = (bc & 0x0000FFFFu) | (half << 16);
	dp_set_word(u, e->bc_off, bc);
}

/* Buffer b's half of the buffer control word (the low half without RESET and STALL). */
static uint32_t usbctrl_half(const xb_usbctrl *u, const ep_info *e, unsigned b)
{
	uint32_t bc = dp_word(u, e->bc_off);
	return b ? bc >> 16 : bc & 0xFFFFu & ~(BC_RESET_SEL | BC_STALL);
}

/* The buffer the next packet uses, and the bytes of DPRAM from a buffer's start. */
static unsigned usbctrl_current_buffer(const xb_usbctrl *u, const ep_info *e)
{
	return e->dbl ? (u->buf_sel >> e->bit) & 1u : 0u;
}

static unsigned usbctrl_room(uint32_t buf)
{
	return buf < XB_USBCTRL_DPRAM_SIZE ? XB_USBCTRL_DPRAM_SIZE - buf : 0;
}

/* The endpoint a token addresses, if the device answers the token at all (its address,
 * an enabled endpoint): its info, the buffer it uses now and that buffer's half of the
 * control word, and in *busy NAK (aborted) or STALL (stalled), else XB_USB_NONE. Returns 0
 * when the token gets no answer. */
static int usbctrl_token(xb_usbctrl *u, unsigned addr, unsigned ep, int in, ep_info *e,
			 unsigned *b, uint32_t *half, enum xb_usb_response *busy)
{
	if (ep > 15 || !usbctrl_listening(u, addr))
		return 0;
	ep_lookup(u, ep, in, e);
	if (!e->enabled)
		return 0;
	usbctrl_activity(u);
	uint32_t bc = dp_word(u, e->bc_off);
	*b = usbctrl_current_buffer(u, e);
	*half = usbctrl_half(u, e, *b);
	if (u->ep_abort & (1u << e->bit))
		*busy = XB_USB_NAK;
	else if (usbctrl_stalled(u, ep, in, bc))
		*busy = XB_USB_STALL;
	else
		*busy = XB_USB_NONE;
	return 1;
}

/* A NAK or STALL handshake (none on an isochronous endpoint), noted. */
static enum xb_usb_response usbctrl_refuse(xb_usbctrl *u, const ep_info *e,
					   enum xb_usb_response r)
{
	if (e->iso)
		return XB_USB_NONE;
	usbctrl_note(u, e, r);
	return r;
}

enum xb_usb_response usbctrl_out(xb_usbctrl *u, unsigned addr, unsigned ep, int data1,
				 const uint8_t *data, unsigned len)
{
	ep_info e;
	unsigned b;
	uint32_t half;
	enum xb_usb_response busy;
	if (!usbctrl_token(u, addr, ep, 0, &e, &b, &half, &busy))
		return XB_USB_NONE;
	if (busy != XB_USB_NONE)
		return usbctrl_refuse(u, &e, busy);
	if (!(half & BC_AVAIL) || (half & BC_FULL))
		return usbctrl_refuse(u, &e, XB_USB_NAK);
	if (!!(half & BC_PID) != !!data1) {
		u->sie_status |= ST_DATA_SEQ_ERROR;
		usbctrl_update_irq(u);
		return XB_USB_ACK;
	}
	if (len > (half & BC_LEN) || len > usbctrl_room(e.buf[b])) {
		u->sie_status |= ST_RX_OVERFLOW;
		usbctrl_update_irq(u);
		return XB_USB_NONE;
	}
	if (len)
		memcpy(u->dpram + e.buf[b], data, len);
	half = (half & ~(BC_LEN | BC_AVAIL)) | BC_FULL | len;
	usbctrl_write_half(u, &e, b, half);
	usbctrl_buffer_done(u, &e, b, half);
	return e.iso ? XB_USB_NONE : XB_USB_ACK;
}

enum xb_usb_response usbctrl_in(xb_usbctrl *u, unsigned addr, unsigned ep, uint8_t *data,
				unsigned *len, int *data1)
{
	*len = 0;
	*data1 = 0;
	u->in_pending = 0;
	ep_info e;
	unsigned b;
	uint32_t half;
	enum xb_usb_response busy;
	if (!usbctrl_token(u, addr, ep, 1, &e, &b, &half, &busy))
		return XB_USB_NONE;
	if (busy != XB_USB_NONE)
		return usbctrl_refuse(u, &e, busy);
	if ((half & (BC_AVAIL | BC_FULL)) != (BC_AVAIL | BC_FULL))
		return usbctrl_refuse(u, &e, XB_USB_NAK);
	unsigned n = half & BC_LEN, room = usbctrl_room(e.buf[b]);
	if (n > room)
		n = room;
	memcpy(data, u->dpram + e.buf[b], n);
	*len = n;
	*data1 = !!(half & BC_PID);
	u->in_pending = 1;
	u->in_ep = ep;
	u->in_buf = b;
	if (e.iso) /* no handshake: the buffer is done as it leaves */
		usbctrl_in_handshake(u, 1);
	return XB_USB_DATA;
}

void usbctrl_in_handshake(xb_usbctrl *u, int ack)
{
	if (!u->in_pending)
		return;
	u->in_pending = 0;
	ep_info e;
	ep_lookup(u, u->in_ep, 1, &e);
	if (!ack) {
		u->sie_status |= ST_RX_TIMEOUT;
	} else {
		unsigned b = u->in_buf;
		uint32_t half = usbctrl_half(u, &e, b) & ~(BC_FULL | BC_AVAIL);
		usbctrl_write_half(u, &e, b, half);
		u->sie_status |= ST_ACK_REC;
		usbctrl_buffer_done(u, &e, b, half);
	}
	if (u->ep_abort & (1u << e.bit))
		u->ep_abort_done |= 1u << e.bit;
	usbctrl_update_irq(u);
}

int usbctrl_reports_nak(const xb_usbctrl *u)
{
	if (u->sie_ctrl & SIE_EP0_INT_NAK)
		return 1;
	for (uint32_t off = 0x08; off < 0x80; off += 4)
		if (dp_word(u, off) & EPC_INT_ON_NAK)
			return 1;
	return 0;
}

uint8_t *usbctrl_dpram(xb_usbctrl *u)
{
	return u->dpram;
}

unsigned usbctrl_address(const xb_usbctrl *u)
{
	return u->addr_endp & 0x7Fu;
}
