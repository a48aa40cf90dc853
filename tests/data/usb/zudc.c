/* zudc: a CDC-ECM device that drives the RP2040 USB controller the way Zephyr's
 * udc_rpi_pico driver and its usbd stack do (Zephyr 4.x, device_next), written against the
 * datasheet's registers (4.1.2, 4.1.4):
 *
 *  - start-up: block reset, the register block and the DPRAM cleared with plain stores,
 *    USB_MUXING to the PHY with soft connect, VBUS forced through USB_PWR, SIE_CTRL =
 *    EP0_INT_1BUF, INTE with the suspend, resume, connection, VBUS, bus reset, error, buffer
 *    and setup interrupts, the pull-up only when SIE_STATUS.VBUS_DETECTED reads 1, then
 *    MAIN_CTRL.CONTROLLER_EN;
 *  - the interrupt handler takes INTS in Zephyr's order (connection, VBUS, resume, suspend,
 *    bus reset, errors, then BUFF_STATUS before SETUP_REQ), clears each source through the
 *    SIE_STATUS clear alias, and keeps udc_common's suspended flag: a suspend while
 *    suspended or a resume while running counts as "spurious" (Zephyr's warning);
 *  - on SETUP_REQ it cancels what EP0 was doing (EP_ABORT, waiting for EP_ABORT_DONE, then
 *    AVAILABLE cleared, when a buffer was handed over), reads the packet, sets both EP0 PIDs
 *    to DATA1 and leaves the request to the thread (here: main, woken from WFI);
 *  - buffers are handed over as the datasheet's concurrency rule asks (4.1.2.5.1): the
 *    buffer control word without AVAILABLE, three NOPs, then again with AVAILABLE; a
 *    completed IN buffer with more data goes on from the handler, the last one (and every
 *    OUT buffer that ends a transfer) is finished by the thread;
 *  - the class answers SET_INTERFACE from the thread: it brings the data interface up
 *    (notification and bulk OUT queued first), then waits MAILBOX_IN[0] milliseconds (0: 3)
 *    of SysTick before it queues the status stage, as a class whose update callback runs
 *    a while (Zephyr's net_if_carrier_on) does; SET_ADDRESS takes effect after its status
 *    stage (post_status);
 *  - frames received on bulk OUT go back on bulk IN with the MAC addresses swapped (a ZLP
 *    after a whole number of packets, as Zephyr's cdc_ecm_send asks).
 *
 * Mailbox (MAILBOX[n]) for the tests: see the enum below. Times are SysTick milliseconds
 * since start-up. */
#include "usbdev.h"

#define USB_SOF_RD (USB_REGS + 0x48u)
#define USB_EP_ABORT (USB_REGS + 0x60u)
#define USB_EP_ABORT_DONE (USB_REGS + 0x64u)
#define USB_INTR (USB_REGS + 0x8Cu)
#define MAIN_CTRL_CONTROLLER_EN_ 0x1u

/* SIE_STATUS */
#define ST_DATA_SEQ_ERROR (1u << 31)
#define ST_RX_TIMEOUT (1u << 27)
#define ST_RX_OVERFLOW (1u << 26)
#define ST_BIT_STUFF_ERROR (1u << 25)
#define ST_CRC_ERROR (1u << 24)
#define ST_CONNECTED (1u << 16)
#define ST_RESUME (1u << 11)
#define ST_SUSPENDED (1u << 4)
#define ST_VBUS_DETECTED (1u << 0)
/* INTS / INTE */
#define I_DEV_SOF (1u << 17)
#define I_SETUP_REQ (1u << 16)
#define I_RESUME (1u << 15)
#define I_SUSPEND (1u << 14)
#define I_CONN_DIS (1u << 13)
#define I_BUS_RESET (1u << 12)
#define I_VBUS_DETECT (1u << 11)
#define I_ERR_CRC (1u << 9)
#define I_ERR_BIT_STUFF (1u << 8)
#define I_ERR_RX_OVERFLOW (1u << 7)
#define I_ERR_RX_TIMEOUT (1u << 6)
#define I_ERR_DATA_SEQ (1u << 5)
#define I_BUFF_STATUS (1u << 4)
#define USB_REGS_WORDS (0x9Cu / 4u)

enum {
	MB_BUS_RESETS = 1,
	MB_SETUPS,
	MB_SUSPENDS,       /* DEV_SUSPEND interrupts */
	MB_RESUMES,        /* DEV_RESUME_FROM_HOST interrupts */
	MB_SPURIOUS,       /* Zephyr's "Spurious suspend/resume event" */
	MB_SUSPEND_MS,     /* time of the last suspend interrupt */
	MB_RESUME_MS,      /* time of the last resume interrupt */
	MB_ALT,            /* the data interface's alternate setting */
	MB_STATUS_ARMED,   /* SET_INTERFACE status stages queued */
	MB_ADDRESS,
	MB_CONFIG,
	MB_FRAMES,         /* frames echoed */
	MB_ERRORS,         /* error interrupts */
	MB_CONN_DIS,
	MB_FIRST_SUSPEND_MS,
	MB_ABORTS,         /* EP_ABORT handshakes */
	MB_STALLS,
	MB_SUSPENDED,      /* udc_common's suspended flag */
	MB_UNHANDLED,      /* INTS bits nobody handled */
	MB_NOW_MS,
	MB_SETINTF_MS,     /* when SET_INTERFACE reached the class */
	MB_ARMED_MS,       /* when its status stage was queued */
	MB_NOTIFIED,       /* the connection notification went out */
	MB_LAST_RESET_MS,
};

/* Endpoints: 0x81 notification (interrupt, 16), 0x82 bulk IN, 0x01 bulk OUT. */
#define EP_NOTIFY 1
#define EP_BULK_IN 2
#define EP_BULK_OUT 1
#define BUF_NOTIFY (USB_DPRAM + 0x180u)
#define BUF_IN (USB_DPRAM + 0x1C0u)
#define BUF_OUT (USB_DPRAM + 0x200u)
#define MPS 64u
#define FRAME_MAX 1600u

void irq5_handler(void);
void systick_handler(void);

static const uint8_t device_desc[18] = {
	18, 1, 0x00, 0x02, 0xEF, 0x02, 0x01, 64, 0xE3, 0x2F, 0x01, 0x00, 0x00, 0x04,
	1, 2, 3, 1,
};

/* Zephyr's CDC-ECM function: IAD, communications interface with a 16-byte interrupt
 * endpoint polled every 10 ms, data interface alternate settings 0 (none) and 1 (bulk). */
static const uint8_t config_desc[88] = {
	9, 2, 88, 0, 2, 1, 0, 0x80, 50,
	8, 0x0B, 0, 2, 0x02, 0x06, 0x00, 0,
	9, 4, 0, 0, 1, 0x02, 0x06, 0x00, 0,
	5, 0x24, 0x00, 0x10, 0x01,
	5, 0x24, 0x06, 0, 1,
	13, 0x24, 0x0F, 4, 0, 0, 0, 0, 0xEA, 0x05, 0, 0, 0,
	7, 5, 0x80 | EP_NOTIFY, 3, 16, 0, 10,
	9, 4, 1, 0, 0, 0x0A, 0x00, 0x00, 0,
	9, 4, 1, 1, 2, 0x0A, 0x00, 0x00, 0,
	7, 5, 0x80 | EP_BULK_IN, 2, 64, 0, 0,
	7, 5, EP_BULK_OUT, 2, 64, 0, 0,
};

static const char *const strings[] = {0, "ZEPHYR", "USBD CDC ECM", "0123456789AB",
				      "00005E005301"};

static volatile uint32_t ticks;

void systick_handler(void)
{
	ticks = ticks + 1;
	MAILBOX[MB_NOW_MS] = ticks;
}

/* ---- The driver's endpoint state ---- */

typedef struct ep_state {
	const uint8_t *tx;     /* IN: what is left to send */
	uint32_t left;
	int zlp;
	uint8_t *rx;           /* OUT: where data goes, room left */
	uint32_t got, room;
	uint32_t next_pid;
	int busy;
} ep_state;

static ep_state ep_in[3], ep_out[3];

/* Thread events (Zephyr's k_event bits and atomic endpoint masks). */
static volatile uint32_t evt_setup, evt_reset, finished_in, finished_out;

static uint32_t buf_ctrl(unsigned ep, int in)
{
	return BUF_CTRL(ep, in);
}

static uint32_t ep_buffer(unsigned ep, int in)
{
	if (ep == 0)
		return EP0_BUF;
	if (in)
		return ep == EP_NOTIFY ? BUF_NOTIFY : BUF_IN;
	return BUF_OUT;
}

/* The concurrency rule: everything but AVAILABLE, three NOPs, then AVAILABLE. */
static void hand_over(uint32_t bc_addr, uint32_t v)
{
	REG(bc_addr) = v;
	__asm volatile("nop\n nop\n nop" ::: "memory");
	REG(bc_addr) = v | BC_AVAIL;
}

static void prep_tx(unsigned ep)
{
	ep_state *e = &ep_in[ep];
	uint32_t n = e->left < MPS ? e->left : MPS;
	dpram_put(ep_buffer(ep, 1), e->tx, n);
	disable_irq();
	uint32_t v = n | BC_FULL | (e->next_pid ? BC_DATA1 : 0);
	e->next_pid ^= 1;
	hand_over(buf_ctrl(ep, 1), v);
	enable_irq();
	e->busy = 1;
}

static void prep_rx(unsigned ep)
{
	ep_state *e = &ep_out[ep];
	disable_irq();
	uint32_t v = MPS | (e->next_pid ? BC_DATA1 : 0);
	e->next_pid ^= 1;
	hand_over(buf_ctrl(ep, 0), v);
	enable_irq();
	e->busy = 1;
}

static void send(unsigned ep, const uint8_t *data, uint32_t len, int zlp)
{
	ep_state *e = &ep_in[ep];
	e->tx = data;
	e->left = len;
	e->zlp = zlp;
	prep_tx(ep);
}

static void receive(unsigned ep, uint8_t *dst, uint32_t room)
{
	ep_state *e = &ep_out[ep];
	e->rx = dst;
	e->got = 0;
	e->room = room;
	prep_rx(ep);
}

/* rpi_pico_ep_cancel: a buffer the controller owns is taken back through EP_ABORT. */
static void ep_cancel(unsigned ep, int in)
{
	uint32_t bc = REG(buf_ctrl(ep, in));
	unsigned bit = 2 * ep + (in ? 0 : 1);
	if (bc & BC_AVAIL) {
		REG(USB_EP_ABORT + ALIAS_SET) = 1u << bit;
		while (!(REG(USB_EP_ABORT_DONE) & (1u << bit)))
			;
		REG(buf_ctrl(ep, in)) = bc & ~BC_AVAIL;
		REG(USB_EP_ABORT + ALIAS_CLR) = 1u << bit;
		MAILBOX[MB_ABORTS]++;
	}
	(in ? &ep_in[ep] : &ep_out[ep])->busy = 0;
}

static void ep_enable(unsigned ep, int in, uint32_t type)
{
	REG(buf_ctrl(ep, in)) = 0; /* DATA0 */
	(in ? &ep_in[ep] : &ep_out[ep])->next_pid = 0;
	REG(EP_CTRL(ep, in)) = EP_CTRL_ENABLE | EP_CTRL_INT_PER_BUFF | type |
			       (ep_buffer(ep, in) - USB_DPRAM);
}

static void ep_disable(unsigned ep, int in)
{
	ep_cancel(ep, in);
	REG(EP_CTRL(ep, in)) = 0;
}

/* ---- The interrupt handler ---- */

static int suspended;

static void set_suspended(int v)
{
	if (v == suspended)
		MAILBOX[MB_SPURIOUS]++;
	suspended = v;
	MAILBOX[MB_SUSPENDED] = (uint32_t)v;
}

static uint8_t setup_pkt[8];

static void buff_status_in(unsigned ep)
{
	ep_state *e = &ep_in[ep];
	uint32_t n = REG(buf_ctrl(ep, 1)) & BC_LEN;
	e->tx += n;
	e->left -= n;
	if (e->left) {
		prep_tx(ep);
	} else if (e->zlp && n == MPS) {
		e->zlp = 0;
		prep_tx(ep);
	} else {
		finished_in |= 1u << ep;
	}
}

static void buff_status_out(unsigned ep)
{
	ep_state *e = &ep_out[ep];
	uint32_t n = REG(buf_ctrl(ep, 0)) & BC_LEN;
	uint32_t keep = n < e->room - e->got ? n : e->room - e->got;
	if (keep)
		dpram_get(e->rx + e->got, ep_buffer(ep, 0), keep);
	e->got += keep;
	if (n == MPS && e->got < e->room)
		prep_rx(ep);
	else
		finished_out |= 1u << ep;
}

void irq5_handler(void)
{
	uint32_t status = REG(USB_INTS), handled = 0;
	if (status & I_CONN_DIS) {
		handled |= I_CONN_DIS;
		MAILBOX[MB_CONN_DIS]++;
		REG(USB_SIE_STATUS + ALIAS_CLR) = ST_CONNECTED;
	}
	if (status & I_VBUS_DETECT) {
		handled |= I_VBUS_DETECT;
		REG(USB_SIE_STATUS + ALIAS_CLR) = ST_VBUS_DETECTED;
	}
	if (status & I_RESUME) {
		handled |= I_RESUME;
		REG(USB_SIE_STATUS + ALIAS_CLR) = ST_RESUME;
		MAILBOX[MB_RESUMES]++;
		MAILBOX[MB_RESUME_MS] = ticks;
		set_suspended(0);
	}
	if (status & I_SUSPEND) {
		handled |= I_SUSPEND;
		REG(USB_SIE_STATUS + ALIAS_CLR) = ST_SUSPENDED;
		if (!MAILBOX[MB_SUSPENDS])
			MAILBOX[MB_FIRST_SUSPEND_MS] = ticks;
		MAILBOX[MB_SUSPENDS]++;
		MAILBOX[MB_SUSPEND_MS] = ticks;
		set_suspended(1);
	}
	if (status & I_BUS_RESET) {
		handled |= I_BUS_RESET;
		REG(USB_SIE_STATUS + ALIAS_CLR) = SIE_STATUS_BUS_RESET;
		REG(USB_ADDR_ENDP) = 0;
		MAILBOX[MB_BUS_RESETS]++;
		MAILBOX[MB_LAST_RESET_MS] = ticks;
		evt_reset = 1;
	}
	static const uint32_t errors[5][2] = {
		{I_ERR_DATA_SEQ, ST_DATA_SEQ_ERROR}, {I_ERR_RX_TIMEOUT, ST_RX_TIMEOUT},
		{I_ERR_RX_OVERFLOW, ST_RX_OVERFLOW}, {I_ERR_BIT_STUFF, ST_BIT_STUFF_ERROR},
		{I_ERR_CRC, ST_CRC_ERROR},
	};
	for (unsigned i = 0; i < 5; i++) {
		if (status & errors[i][0]) {
			handled |= errors[i][0];
			REG(USB_SIE_STATUS + ALIAS_CLR) = errors[i][1];
			MAILBOX[MB_ERRORS]++;
		}
	}
	/* BUFF_STATUS before SETUP_REQ, for the order of the notifications. */
	if (status & I_BUFF_STATUS) {
		handled |= I_BUFF_STATUS;
		uint32_t bs = REG(USB_BUFF_STATUS);
		for (unsigned i = 0; bs && i < 32; i++) {
			if (!(bs & (1u << i)))
				continue;
			REG(USB_BUFF_STATUS + ALIAS_CLR) = 1u << i;
			if (i & 1)
				buff_status_out(i >> 1);
			else
				buff_status_in(i >> 1);
			bs &= ~(1u << i);
		}
	}
	if (status & I_SETUP_REQ) {
		handled |= I_SETUP_REQ;
		REG(USB_SIE_STATUS + ALIAS_CLR) = SIE_STATUS_SETUP_REC;
		ep_cancel(0, 1);
		ep_cancel(0, 0);
		dpram_get(setup_pkt, USB_DPRAM, 8);
		ep_in[0].next_pid = 1;
		ep_out[0].next_pid = 1;
		finished_in &= ~1u;
		finished_out &= ~1u;
		evt_setup = 1;
	}
	if (status ^ handled)
		MAILBOX[MB_UNHANDLED] |= status ^ handled;
}

/* ---- The thread: the usbd stack and the class ---- */

enum { CTRL_IDLE, CTRL_DATA_IN, CTRL_STATUS_OUT, CTRL_STATUS_IN };
static int ctrl_stage, post_address, iface_up;
static uint8_t new_address;
static uint8_t ctrl_buf[256];
static uint8_t rx[FRAME_MAX], tx[FRAME_MAX];
static uint32_t tx_busy;

static void ctrl_reply(const uint8_t *d, uint32_t len, uint32_t wlength)
{
	if (len > wlength)
		len = wlength;
	memcpy(ctrl_buf, d, len);
	ctrl_stage = CTRL_DATA_IN;
	send(0, ctrl_buf, len, len < wlength && len % MPS == 0);
}

static void ctrl_status_in(void)
{
	ctrl_stage = CTRL_STATUS_IN;
	send(0, ctrl_buf, 0, 0);
}

static void ctrl_stall(void)
{
	REG(USB_EP_STALL_ARM + ALIAS_SET) = 1;
	REG(buf_ctrl(0, 1) + ALIAS_SET) = BC_STALL;
	ctrl_stage = CTRL_IDLE;
	MAILBOX[MB_STALLS]++;
}

/* A sleeping wait, as k_sleep in a thread: the core idles in WFI between SysTicks (and the
 * USB interrupts that come meanwhile). */
static void delay_ms(uint32_t ms)
{
	uint32_t start = ticks;
	while (ticks - start < ms)
		wfi();
}

/* usbd_cdc_ecm_update: the data interface's alternate setting changed. */
static void class_update(unsigned alt)
{
	MAILBOX[MB_ALT] = alt;
	MAILBOX[MB_SETINTF_MS] = ticks;
	ep_disable(EP_BULK_IN, 1);
	ep_disable(EP_BULK_OUT, 0);
	iface_up = alt == 1;
	if (!iface_up)
		return;
	ep_enable(EP_BULK_IN, 1, EP_TYPE_BULK);
	ep_enable(EP_BULK_OUT, 0, EP_TYPE_BULK);
	static const uint8_t connected[8] = {0xA1, 0x00, 1, 0, 0, 0, 0, 0};
	send(EP_NOTIFY, connected, 8, 0);
	receive(EP_BULK_OUT, rx, FRAME_MAX);
	/* The rest of the update callback (net_if_carrier_on and what it starts). */
	uint32_t wait = MAILBOX_IN[0] ? MAILBOX_IN[0] : 3;
	delay_ms(wait);
}

static void handle_setup(void)
{
	const uint8_t *s = setup_pkt;
	uint32_t value = s[2] | s[3] << 8, index = s[4] | s[5] << 8, length = s[6] | s[7] << 8;
	MAILBOX[MB_SETUPS]++;
	ctrl_stage = CTRL_IDLE;
	if (s[0] == 0x80 && s[1] == 6) {
		unsigned type = value >> 8, idx = value & 0xFF;
		static uint8_t sd[64];
		if (type == 1)
			ctrl_reply(device_desc, sizeof device_desc, length);
		else if (type == 2 && idx == 0)
			ctrl_reply(config_desc, sizeof config_desc, length);
		else if (type == 3 && idx < sizeof strings / sizeof *strings)
			ctrl_reply(sd, usb_string_desc(strings, idx, sd), length);
		else
			ctrl_stall();
	} else if (s[0] == 0x00 && s[1] == 5) {
		new_address = (uint8_t)(value & 0x7F);
		post_address = 1;
		ctrl_status_in();
	} else if (s[0] == 0x00 && s[1] == 9) {
		MAILBOX[MB_CONFIG] = value;
		ep_disable(EP_NOTIFY, 1);
		ep_disable(EP_BULK_IN, 1);
		ep_disable(EP_BULK_OUT, 0);
		if (value)
			ep_enable(EP_NOTIFY, 1, EP_TYPE_INTERRUPT);
		ctrl_status_in();
	} else if (s[0] == 0x01 && s[1] == 11 && index == 1 && value <= 1) {
		class_update(value);
		MAILBOX[MB_ARMED_MS] = ticks;
		MAILBOX[MB_STATUS_ARMED]++;
		ctrl_status_in();
	} else if (s[0] == 0x21 && s[1] == 0x43) { /* SetPacketFilter: accepted */
		ctrl_status_in();
	} else if (s[0] == 0x02 && s[1] == 1 && value == 0) {
		ctrl_status_in();
	} else {
		ctrl_stall();
	}
}

static void finished_ep0_in(void)
{
	if (ctrl_stage == CTRL_DATA_IN) {
		ctrl_stage = CTRL_STATUS_OUT;
		receive(0, ctrl_buf, 0); /* the host's zero-length status */
	} else if (ctrl_stage == CTRL_STATUS_IN) {
		ctrl_stage = CTRL_IDLE;
		if (post_address) {
			post_address = 0;
			REG(USB_ADDR_ENDP) = new_address;
			MAILBOX[MB_ADDRESS] = new_address;
		}
	}
}

static void frame_received(void)
{
	uint32_t n = ep_out[EP_BULK_OUT].got;
	if (n >= 14 && !tx_busy) {
		memcpy(tx, rx + 6, 6);
		memcpy(tx + 6, rx, 6);
		memcpy(tx + 12, rx + 12, n - 12);
		tx_busy = 1;
		send(EP_BULK_IN, tx, n, n % MPS == 0);
	}
	receive(EP_BULK_OUT, rx, FRAME_MAX);
}

static void bus_reset(void)
{
	post_address = 0;
	ctrl_stage = CTRL_IDLE;
	iface_up = 0;
	tx_busy = 0;
	ep_cancel(0, 1);
	ep_disable(EP_NOTIFY, 1);
	ep_disable(EP_BULK_IN, 1);
	ep_disable(EP_BULK_OUT, 0);
}

static uint32_t take(volatile uint32_t *v)
{
	disable_irq();
	uint32_t x = *v;
	*v = 0;
	enable_irq();
	return x;
}

int main(void)
{
	SYST_RVR = 125000u - 1u; /* 1 ms at 125 MHz */
	SYST_CVR = 0;
	SYST_CSR = 7u;
	REG(RESETS_RESET + ALIAS_SET) = RESET_USBCTRL;
	REG(RESETS_RESET + ALIAS_CLR) = RESET_USBCTRL;
	while (!(REG(RESETS_DONE) & RESET_USBCTRL))
		;
	for (uint32_t i = 0; i < USB_REGS_WORDS; i++)
		REG(USB_REGS + 4u * i) = 0;
	for (uint32_t off = 0; off < 0x1000u; off += 4)
		REG(USB_DPRAM + off) = 0;
	REG(USB_MUXING) = MUXING_TO_PHY_SOFTCON;
	REG(USB_PWR) = PWR_VBUS_OVERRIDE;
	REG(USB_SIE_CTRL) = SIE_CTRL_EP0_INT_1BUF;
	REG(USB_INTE) = I_SETUP_REQ | I_RESUME | I_SUSPEND | I_CONN_DIS | I_BUS_RESET |
			I_VBUS_DETECT | I_ERR_CRC | I_ERR_BIT_STUFF | I_ERR_RX_OVERFLOW |
			I_ERR_RX_TIMEOUT | I_ERR_DATA_SEQ | I_BUFF_STATUS;
	if (REG(USB_SIE_STATUS) & ST_VBUS_DETECTED)
		REG(USB_SIE_CTRL + ALIAS_SET) = SIE_CTRL_PULLUP_EN;
	REG(USB_MAIN_CTRL) = MAIN_CTRL_CONTROLLER_EN_;
	NVIC_ISER = 1u << 5;
	enable_irq();
	for (;;) {
		disable_irq();
		if (!evt_setup && !evt_reset && !finished_in && !finished_out)
			wfi();
		enable_irq();
		if (take(&evt_reset))
			bus_reset();
		/* Finished transfers first, then a new SETUP (the driver thread's order). */
		uint32_t fin = take(&finished_in), fout = take(&finished_out);
		if (fin & 1u)
			finished_ep0_in();
		if (fin & (1u << EP_NOTIFY))
			MAILBOX[MB_NOTIFIED]++;
		if (fin & (1u << EP_BULK_IN)) {
			tx_busy = 0;
			MAILBOX[MB_FRAMES]++;
		}
		if (fout & 1u)
			ctrl_stage = CTRL_IDLE; /* status OUT done */
		if ((fout & (1u << EP_BULK_OUT)) && iface_up)
			frame_received();
		if (take(&evt_setup))
			handle_setup();
	}
}
