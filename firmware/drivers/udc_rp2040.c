/* udc_rp2040.c: the RP2040 USB device controller (RP2040 datasheet 4.1). The interrupt
 * handler moves packets between DPRAM and transfer buffers; transfer starts, completions and
 * SETUP packets go through the driver's own thread, woken by an event object. Order of
 * operations as the datasheet asks: BUFF_STATUS before SETUP_REQ, AVAILABLE set after the
 * rest of a buffer control word, the new address after the status stage, DATA1 after a
 * SETUP, write-1-to-clear bits cleared through the CLR alias, EP0 stalls with EP_STALL_ARM. */
#include <string.h>

#include "drivers/clock.h"
#include "drivers/udc.h"
#include "rp2040/regs.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(udc_rp2040, LOG_LEVEL_WRN);

#define UDC_IRQ_PRIO 1
#define UDC_THREAD_STACK_SIZE 1024
/* The most urgent thread: it hands buffers back to the controller. */
#define UDC_THREAD_PRIO 1

#define EVT_SETUP BIT32(0)
#define EVT_XFER_NEW BIT32(1)
#define EVT_XFER_FINISHED BIT32(2)
#define EVT_ALL (EVT_SETUP | EVT_XFER_NEW | EVT_XFER_FINISHED)

#define USB_INTS_HANDLED                                                              \
	(USB_INT_BUFF_STATUS | USB_INT_SETUP_REQ | USB_INT_BUS_RESET | USB_INT_DEV_SUSPEND | \
	 USB_INT_DEV_RESUME_FROM_HOST | USB_INT_DEV_CONN_DIS | USB_INT_ERROR_DATA_SEQ)

struct rp2040_ep {
	uint32_t buf_ctrl; /* address of the buffer control word */
	uint32_t ep_ctrl;  /* address of the endpoint control word (0 for EP0) */
	uint8_t *dpram;    /* its 64-byte buffer in DPRAM */
	uint16_t pkt_len;  /* bytes of the IN packet in flight */
	uint8_t next_pid;  /* 0: DATA0, 1: DATA1 */
	bool zlp_pending;
};

static struct rp2040_ep eps[USB_NUM_EP][2]; /* [index][0: OUT, 1: IN] */
static struct k_event events;
/* Endpoints with work for the thread: bit 16 + n for EPn IN, bit n for EPn OUT. */
static atomic_t xfer_new, xfer_finished;
static uint8_t setup_pkt[8];
static uint32_t dpram_next;
static int pending_addr = -1;
static struct k_thread udc_thread;
static K_THREAD_STACK_DEFINE(udc_stack, UDC_THREAD_STACK_SIZE);

static struct rp2040_ep *ep_data(uint8_t ep)
{
	return &eps[USB_EP_IDX(ep)][USB_EP_IS_IN(ep) ? 1 : 0];
}

static uint32_t ep_bit(uint8_t ep)
{
	return USB_EP_IS_IN(ep) ? BIT32(16u + USB_EP_IDX(ep)) : BIT32(USB_EP_IDX(ep));
}

static uint8_t bit_ep(unsigned bit)
{
	return bit >= 16 ? (uint8_t)((bit - 16) | USB_EP_DIR_IN) : (uint8_t)bit;
}

/* With clk_sys faster than clk_usb the controller may sample a buffer control word while
 * it changes: write it without AVAILABLE, let it settle (12 cycles at 125 MHz), then set
 * AVAILABLE (datasheet 4.1.2.5.1). */
static void buf_ctrl_write(const struct rp2040_ep *e, uint32_t val)
{
	hw_write(e->buf_ctrl, val);
	__asm__ volatile("nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\t"
			 "nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop");
	hw_write(e->buf_ctrl, val | USB_BUF_CTRL_AVAIL);
}

static uint32_t pid_bits(const struct rp2040_ep *e)
{
	return e->next_pid ? USB_BUF_CTRL_DATA1_PID : 0;
}

/* The next IN packet of buf: up to mps bytes from its front (sent bytes are pulled). */
static void start_in_packet(struct udc_ep_config *cfg, struct net_buf *buf)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	uint16_t n = (uint16_t)MIN((uint32_t)cfg->mps, (uint32_t)buf->len);
	if (n)
		memcpy(e->dpram, buf->data, n);
	e->pkt_len = n;
	uint32_t val = n | USB_BUF_CTRL_FULL | pid_bits(e);
	if (n == buf->len && !e->zlp_pending)
		val |= USB_BUF_CTRL_LAST;
	buf_ctrl_write(e, val);
}

static void start_out_packet(struct udc_ep_config *cfg)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	buf_ctrl_write(e, cfg->mps | pid_bits(e));
}

/* Starts buf, the head of cfg's queue. Interrupts locked. */
static void start_xfer(struct udc_ep_config *cfg, struct net_buf *buf)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	udc_ep_set_busy(cfg, true);
	if (cfg->halted)
		return; /* held until the halt is cleared */
	if (USB_EP_IS_IN(cfg->addr)) {
		struct udc_buf_info *info = udc_get_buf_info(buf);
		e->zlp_pending = info->zlp && buf->len && (buf->len % cfg->mps) == 0;
		start_in_packet(cfg, buf);
	} else {
		start_out_packet(cfg);
	}
}

static void xfer_finished_from_isr(uint8_t ep)
{
	atomic_or(&xfer_finished, ep_bit(ep));
	k_event_post(&events, EVT_XFER_FINISHED);
}

static void in_buffer_done(struct udc_ep_config *cfg)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	struct net_buf *buf = udc_buf_peek(cfg);
	if (!buf || !udc_ep_is_busy(cfg))
		return;
	net_buf_pull(buf, e->pkt_len);
	e->next_pid ^= 1u;
	cfg->stats.packets++;
	cfg->stats.bytes += e->pkt_len;
	if (buf->len) {
		start_in_packet(cfg, buf);
		return;
	}
	if (e->zlp_pending) {
		e->zlp_pending = false;
		start_in_packet(cfg, buf); /* a zero-length packet ends the transfer */
		return;
	}
	/* The status stage of SET_ADDRESS is over: the new address applies from now. */
	if (USB_EP_IDX(cfg->addr) == 0 && udc_get_buf_info(buf)->status && pending_addr >= 0) {
		hw_write(USB_ADDR_ENDP, (uint32_t)pending_addr);
		pending_addr = -1;
	}
	udc_ep_set_busy(cfg, false);
	xfer_finished_from_isr(cfg->addr);
}

static void out_buffer_done(struct udc_ep_config *cfg)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	struct net_buf *buf = udc_buf_peek(cfg);
	if (!buf || !udc_ep_is_busy(cfg))
		return;
	struct udc_buf_info *info = udc_get_buf_info(buf);
	uint16_t n = (uint16_t)(hw_read(e->buf_ctrl) & USB_BUF_CTRL_LEN_MASK);
	uint16_t room = (uint16_t)(info->size - buf->len);
	e->next_pid ^= 1u;
	cfg->stats.packets++;
	cfg->stats.bytes += n;
	if (n > room) {
		net_buf_add_mem(buf, e->dpram, room);
		info->err = -EOVERFLOW;
		udc_ep_set_busy(cfg, false);
		xfer_finished_from_isr(cfg->addr);
		return;
	}
	if (n)
		net_buf_add_mem(buf, e->dpram, n);
	if (n < cfg->mps || buf->len == info->size) {
		udc_ep_set_busy(cfg, false);
		xfer_finished_from_isr(cfg->addr);
	} else {
		start_out_packet(cfg);
	}
}

static void handle_buff_status(void)
{
	uint32_t status = hw_read(USB_BUFF_STATUS);
	for (uint32_t bit = 0; status; bit++) {
		uint32_t mask = BIT32(bit);
		if (!(status & mask))
			continue;
		status &= ~mask;
		hw_clear_bits(USB_BUFF_STATUS, mask);
		/* bit 2n: EPn IN, bit 2n + 1: EPn OUT */
		uint8_t ep = (uint8_t)((bit >> 1) | ((bit & 1u) ? 0 : USB_EP_DIR_IN));
		struct udc_ep_config *cfg = udc_get_ep_cfg(ep);
		if (USB_EP_IS_IN(ep))
			in_buffer_done(cfg);
		else
			out_buffer_done(cfg);
	}
}

/* Gives every queued buffer of cfg back with err. Interrupts locked or thread context. */
static void ep_flush(struct udc_ep_config *cfg, int err)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	hw_write(e->buf_ctrl, 0); /* take the buffer back from the controller */
	udc_ep_set_busy(cfg, false);
	e->zlp_pending = false;
	atomic_and(&xfer_finished, ~ep_bit(cfg->addr));
	struct net_buf *buf;
	while ((buf = udc_buf_get(cfg)) != NULL)
		udc_submit_ep_event(buf, err);
}

static void handle_bus_reset(void)
{
	hw_clear_bits(USB_SIE_STATUS, USB_SIE_STATUS_BUS_RESET);
	hw_write(USB_ADDR_ENDP, 0);
	pending_addr = -1;
	for (int d = 0; d < 2; d++)
		eps[0][d].next_pid = 0;
	udc_submit_event(UDC_EVT_RESET, 0);
}

static void udc_rp2040_isr(const void *arg)
{
	UNUSED(arg);
	uint32_t ints = hw_read(USB_INTS);
	/* Buffers first: a status stage that finished must be seen before a new SETUP. */
	if (ints & USB_INT_BUFF_STATUS)
		handle_buff_status();
	if (ints & USB_INT_SETUP_REQ) {
		uint32_t w0 = hw_read(USB_DPRAM_SETUP), w1 = hw_read(USB_DPRAM_SETUP + 4);
		sys_put_le32(w0, setup_pkt);
		sys_put_le32(w1, setup_pkt + 4);
		hw_clear_bits(USB_SIE_STATUS, USB_SIE_STATUS_SETUP_REC);
		/* The data stage after a SETUP starts with DATA1 in both directions. */
		eps[0][0].next_pid = eps[0][1].next_pid = 1;
		k_event_post(&events, EVT_SETUP);
	}
	if (ints & USB_INT_BUS_RESET)
		handle_bus_reset();
	if (ints & USB_INT_DEV_SUSPEND) {
		hw_clear_bits(USB_SIE_STATUS, USB_SIE_STATUS_SUSPENDED);
		udc_submit_event(UDC_EVT_SUSPEND, 0);
	}
	if (ints & USB_INT_DEV_RESUME_FROM_HOST) {
		hw_clear_bits(USB_SIE_STATUS, USB_SIE_STATUS_RESUME);
		udc_submit_event(UDC_EVT_RESUME, 0);
	}
	if (ints & USB_INT_DEV_CONN_DIS)
		hw_clear_bits(USB_SIE_STATUS, USB_SIE_STATUS_CONNECTED);
	if (ints & USB_INT_ERROR_DATA_SEQ) {
		hw_clear_bits(USB_SIE_STATUS, USB_SIE_STATUS_DATA_SEQ_ERROR);
		udc_submit_event(UDC_EVT_ERROR, -EPROTO);
	}
}

/* ---- The driver thread ---- */

static void handle_xfer_finished(uint8_t ep)
{
	struct udc_ep_config *cfg = udc_get_ep_cfg(ep);
	unsigned key = irq_lock();
	struct net_buf *buf = udc_buf_get(cfg);
	struct net_buf *next = udc_buf_peek(cfg);
	LOG_DBG("ep %02x: transfer done (%p), next %p", ep, buf, next);
	if (next && !udc_ep_is_busy(cfg))
		start_xfer(cfg, next);
	irq_unlock(key);
	if (!buf)
		return;
	int err = udc_get_buf_info(buf)->err;
	cfg->stats.transfers++;
	if (err)
		cfg->stats.errors++;
	udc_submit_ep_event(buf, err);
}

static void handle_xfer_new(uint8_t ep)
{
	struct udc_ep_config *cfg = udc_get_ep_cfg(ep);
	unsigned key = irq_lock();
	struct net_buf *buf = udc_buf_peek(cfg);
	LOG_DBG("ep %02x: new transfer %p (%s)", ep, buf, udc_ep_is_busy(cfg) ? "busy" : "idle");
	if (buf && !udc_ep_is_busy(cfg))
		start_xfer(cfg, buf);
	irq_unlock(key);
}

static void handle_setup(void)
{
	/* A SETUP ends whatever control transfer was going on. */
	unsigned key = irq_lock();
	ep_flush(udc_get_ep_cfg(USB_EP0_IN), -ECONNABORTED);
	ep_flush(udc_get_ep_cfg(USB_EP0_OUT), -ECONNABORTED);
	uint8_t pkt[8];
	memcpy(pkt, setup_pkt, sizeof(pkt));
	irq_unlock(key);

	struct net_buf *buf = udc_ep_buf_alloc(USB_EP0_OUT, sizeof(pkt));
	if (!buf) {
		udc_submit_event(UDC_EVT_ERROR, -ENOMEM);
		return;
	}
	net_buf_add_mem(buf, pkt, sizeof(pkt));
	udc_get_buf_info(buf)->setup = 1;
	udc_submit_ep_event(buf, 0);
}

/* Runs the handler for every endpoint bit in eps. */
static void for_each_ep(uint32_t bits, void (*handler)(uint8_t ep))
{
	for (unsigned bit = 0; bits; bit++) {
		if (bits & BIT32(bit)) {
			bits &= ~BIT32(bit);
			handler(bit_ep(bit));
		}
	}
}

static void udc_thread_main(void *p1, void *p2, void *p3)
{
	UNUSED(p1);
	UNUSED(p2);
	UNUSED(p3);
	for (;;) {
		uint32_t evt = k_event_wait(&events, EVT_ALL, false, K_FOREVER);
		k_event_clear(&events, evt);
		if (evt & EVT_XFER_FINISHED)
			for_each_ep(atomic_clear(&xfer_finished), handle_xfer_finished);
		if (evt & EVT_XFER_NEW)
			for_each_ep(atomic_clear(&xfer_new), handle_xfer_new);
		if (evt & EVT_SETUP)
			handle_setup();
	}
}

/* ---- The driver API ---- */

static int rp2040_ep_enqueue(struct udc_ep_config *cfg, struct net_buf *buf)
{
	UNUSED(buf);
	atomic_or(&xfer_new, ep_bit(cfg->addr));
	k_event_post(&events, EVT_XFER_NEW);
	return 0;
}

static int rp2040_ep_dequeue(struct udc_ep_config *cfg)
{
	unsigned key = irq_lock();
	ep_flush(cfg, -ECONNABORTED);
	irq_unlock(key);
	return 0;
}

static int rp2040_ep_enable(struct udc_ep_config *cfg)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	if (!e->dpram) {
		/* One 64-byte buffer per endpoint, kept until the controller is reset. */
		if (dpram_next + 64u > USB_DPRAM_SIZE)
			return -ENOMEM;
		e->dpram = (uint8_t *)(USBCTRL_DPRAM_BASE + dpram_next);
		dpram_next += 64u;
	}
	e->next_pid = 0;
	e->zlp_pending = false;
	hw_write(e->ep_ctrl, USB_EP_CTRL_ENABLE | USB_EP_CTRL_INTERRUPT_PER_BUFF |
				     ((uint32_t)cfg->attributes << USB_EP_CTRL_TYPE_SHIFT) |
				     ((uint32_t)e->dpram - USBCTRL_DPRAM_BASE));
	LOG_DBG("ep %02x: buffer at 0x%03x", cfg->addr,
		(unsigned)((uint32_t)e->dpram - USBCTRL_DPRAM_BASE));
	return 0;
}

static int rp2040_ep_disable(struct udc_ep_config *cfg)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	unsigned key = irq_lock();
	hw_write(e->ep_ctrl, 0);
	ep_flush(cfg, -ECONNABORTED);
	irq_unlock(key);
	return 0;
}

static int rp2040_ep_set_halt(struct udc_ep_config *cfg)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	unsigned key = irq_lock();
	if (USB_EP_IDX(cfg->addr) == 0) {
		/* EP0 needs EP_STALL_ARM as well; the next SETUP clears both. */
		hw_set_bits(USB_EP_STALL_ARM, USB_EP_IS_IN(cfg->addr) ? 0x1u : 0x2u);
	}
	hw_write(e->buf_ctrl, USB_BUF_CTRL_STALL);
	irq_unlock(key);
	return 0;
}

static int rp2040_ep_clear_halt(struct udc_ep_config *cfg)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	if (USB_EP_IDX(cfg->addr) == 0)
		return 0;
	unsigned key = irq_lock();
	/* Clearing a halt resets the data toggle (USB 2.0 9.4.5); a transfer that waited
	 * starts now. */
	hw_write(e->buf_ctrl, 0);
	e->next_pid = 0;
	cfg->halted = false;
	struct net_buf *buf = udc_buf_peek(cfg);
	if (buf)
		start_xfer(cfg, buf);
	irq_unlock(key);
	return 0;
}

static int rp2040_set_address(uint8_t addr)
{
	unsigned key = irq_lock();
	pending_addr = addr;
	irq_unlock(key);
	return 0;
}

static int rp2040_enable(void)
{
	hw_set_bits(USB_SIE_CTRL, USB_SIE_CTRL_PULLUP_EN);
	return 0;
}

static int rp2040_disable(void)
{
	hw_clear_bits(USB_SIE_CTRL, USB_SIE_CTRL_PULLUP_EN);
	return 0;
}

static void ep_init_regs(uint8_t ep)
{
	struct rp2040_ep *e = ep_data(ep);
	uint8_t idx = USB_EP_IDX(ep);
	e->buf_ctrl = USB_EP_IS_IN(ep) ? USB_DPRAM_BUF_CTRL_IN(idx) : USB_DPRAM_BUF_CTRL_OUT(idx);
	e->ep_ctrl = idx == 0 ? 0
			      : (USB_EP_IS_IN(ep) ? USB_DPRAM_EP_CTRL_IN(idx)
						  : USB_DPRAM_EP_CTRL_OUT(idx));
	e->dpram = NULL;
}

static int rp2040_init(void)
{
	reset_block(RESET_USBCTRL);
	unreset_block_wait(RESET_USBCTRL);
	memset((void *)USBCTRL_DPRAM_BASE, 0, USB_DPRAM_SIZE);

	for (uint8_t i = 0; i < USB_NUM_EP; i++) {
		ep_init_regs(i);
		ep_init_regs((uint8_t)(i | USB_EP_DIR_IN));
	}
	/* EP0: both directions share the buffer at 0x100. */
	eps[0][0].dpram = eps[0][1].dpram = (uint8_t *)(USBCTRL_DPRAM_BASE + USB_DPRAM_EP0_BUF);
	dpram_next = USB_DPRAM_EPX_DATA;
	k_event_init(&events);

	/* The on-chip PHY; VBUS taken as present (the Pico does not sense it on chip). */
	hw_write(USB_USB_MUXING, USB_MUXING_TO_PHY | USB_MUXING_SOFTCON);
	hw_write(USB_USB_PWR, USB_PWR_VBUS_DETECT | USB_PWR_VBUS_DETECT_OVERRIDE_EN);
	hw_write(USB_MAIN_CTRL, USB_MAIN_CTRL_CONTROLLER_EN); /* device mode */
	hw_write(USB_SIE_CTRL, USB_SIE_CTRL_EP0_INT_1BUF);
	hw_write(USB_INTE, USB_INTS_HANDLED);

	k_thread_create(&udc_thread, udc_stack, sizeof(udc_stack), udc_thread_main, NULL, NULL,
			NULL, UDC_THREAD_PRIO, "udc");
	irq_connect(IRQ_USBCTRL, UDC_IRQ_PRIO, udc_rp2040_isr, NULL);
	irq_enable(IRQ_USBCTRL);
	return 0;
}

static const struct udc_api rp2040_api = {
	.init = rp2040_init,
	.enable = rp2040_enable,
	.disable = rp2040_disable,
	.set_address = rp2040_set_address,
	.ep_enable = rp2040_ep_enable,
	.ep_disable = rp2040_ep_disable,
	.ep_enqueue = rp2040_ep_enqueue,
	.ep_dequeue = rp2040_ep_dequeue,
	.ep_set_halt = rp2040_ep_set_halt,
	.ep_clear_halt = rp2040_ep_clear_halt,
};

void udc_rp2040_register(void)
{
	udc_register_api(&rp2040_api);
}
