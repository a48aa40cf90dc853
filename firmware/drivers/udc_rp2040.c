/* udc_rp2040.c: the RP2040 USB device controller (RP2040 datasheet 4.1). The interrupt
 * handler moves packets between DPRAM and transfer buffers; transfer starts, completions and
 * SETUP packets go through the driver's own thread, woken by an event object. Order of
 * operations as the datasheet asks: BUFF_STATUS before SETUP_REQ, AVAILABLE set after the
 * rest of a buffer control word, the new address after the status stage, DATA1 after a
 * SETUP, write-1-to-clear bits cleared through the CLR alias, EP0 stalls with EP_STALL_ARM.
 * Bulk endpoints are double-buffered: two packets are armed at once, so the host sends or
 * takes the second while the first one's interrupt is handled. The buffer control word is
 * only written when neither half is in flight (the controller owns a half while it is
 * AVAILABLE), and the driver follows the controller's buffer selector packet by packet. An
 * OUT buffer armed ahead may bring the first packet of the next transfer (the one before
 * ended short): the packet waits in DPRAM until that transfer starts. */
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
	uint32_t buf_ctrl;   /* address of the buffer control word */
	uint32_t ep_ctrl;    /* address of the endpoint control word (0 for EP0) */
	uint8_t *dpram;      /* its buffer(s) in DPRAM: 64 bytes each, the second after the first */
	uint16_t pkt_len[2]; /* IN: bytes of the packet armed in each buffer */
	uint16_t pkts_left;  /* IN: packets of the transfer not yet taken by the host */
	uint8_t nbufs;       /* 1, or 2 when double-buffered */
	uint8_t in_flight;   /* IN: packets armed and not yet taken */
	uint8_t hw_sel;      /* the buffer the controller uses next (double-buffered) */
	uint8_t next_pid;    /* the data toggle of the next packet armed: 0 DATA0, 1 DATA1 */
	uint8_t held;        /* OUT: 1 + the buffer holding a packet that came between
			      * transfers (0: none) */
	uint16_t held_len;
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
static void buf_ctrl_write_avail(const struct rp2040_ep *e, uint32_t val, uint32_t avail)
{
	hw_write(e->buf_ctrl, val);
	__asm__ volatile("nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n\t"
			 "nop\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop");
	hw_write(e->buf_ctrl, val | avail);
}

static uint32_t pid_bits(const struct rp2040_ep *e)
{
	return e->next_pid ? USB_BUF_CTRL_DATA1_PID : 0;
}

/* The packets an IN transfer of len bytes takes: whole and short ones, a zero-length one
 * after a last whole packet when the transfer asks for it, and one ZLP for an empty
 * transfer. */
static uint16_t in_packet_count(const struct udc_ep_config *cfg, size_t len, bool zlp)
{
	if (len == 0)
		return 1;
	uint16_t n = (uint16_t)((len + cfg->mps - 1) / cfg->mps);
	if (zlp && len % cfg->mps == 0)
		n++;
	return n;
}

/* Arms the next packets of buf (its front is the first unsent byte): one per buffer the
 * endpoint has, starting at the one the controller uses next, all in one buffer control
 * write. Only when nothing is in flight. */
static void in_arm(struct udc_ep_config *cfg, struct net_buf *buf)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	unsigned n_arm = MIN((unsigned)e->nbufs, (unsigned)e->pkts_left);
	uint32_t word = 0, avail = 0;
	size_t off = 0;
	unsigned sel = e->hw_sel;
	for (unsigned i = 0; i < n_arm; i++) {
		uint16_t n = (uint16_t)MIN((size_t)cfg->mps, (size_t)buf->len - off);
		if (n)
			memcpy(e->dpram + 64u * sel, buf->data + off, n);
		off += n;
		e->pkt_len[sel] = n;
		uint32_t half = n | USB_BUF_CTRL_FULL | pid_bits(e);
		if (i + 1u == e->pkts_left)
			half |= USB_BUF_CTRL_LAST;
		e->next_pid ^= 1u;
		unsigned shift = sel ? 16u : 0u;
		word |= half << shift;
		avail |= USB_BUF_CTRL_AVAIL << shift;
		if (e->nbufs == 2)
			sel ^= 1u;
	}
	e->in_flight = (uint8_t)n_arm;
	buf_ctrl_write_avail(e, word, avail);
}

/* Arms OUT buffers for buf: two when the endpoint has them and the transfer has room for
 * two whole packets, else one; from the buffer the controller fills next. Only when
 * nothing is in flight. */
static void out_arm(struct udc_ep_config *cfg, struct net_buf *buf)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	struct udc_buf_info *info = udc_get_buf_info(buf);
	size_t room = info->size > buf->len ? info->size - buf->len : 0;
	unsigned n_arm = (e->nbufs == 2 && room >= 2u * cfg->mps) ? 2 : 1;
	uint32_t word = 0, avail = 0;
	unsigned sel = e->hw_sel;
	for (unsigned i = 0; i < n_arm; i++) {
		unsigned shift = sel ? 16u : 0u;
		word |= (cfg->mps | pid_bits(e)) << shift;
		avail |= USB_BUF_CTRL_AVAIL << shift;
		e->next_pid ^= 1u;
		if (e->nbufs == 2)
			sel ^= 1u;
	}
	e->in_flight = (uint8_t)n_arm;
	buf_ctrl_write_avail(e, word, avail);
}

static void xfer_finished_from_isr(struct udc_ep_config *cfg, struct net_buf *buf);

/* A packet of n bytes in buffer sel for buf's transfer. True when it ended the transfer
 * (a short packet, the transfer full, or more than it had room for: -EOVERFLOW). */
static bool out_take_packet(struct udc_ep_config *cfg, struct net_buf *buf, unsigned sel,
			    uint16_t n)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	struct udc_buf_info *info = udc_get_buf_info(buf);
	uint16_t room = (uint16_t)(info->size - buf->len);
	const uint8_t *src = e->dpram + 64u * sel;
	cfg->stats.packets++;
	cfg->stats.bytes += n;
	if (n > room) {
		net_buf_add_mem(buf, src, room);
		info->err = -EOVERFLOW;
	} else if (n) {
		net_buf_add_mem(buf, src, n);
	}
	if (n > room || n < cfg->mps || buf->len == info->size) {
		udc_ep_set_busy(cfg, false);
		xfer_finished_from_isr(cfg, buf);
		return true;
	}
	return false;
}

/* Starts an OUT transfer: a packet that came early goes first. */
static void start_out(struct udc_ep_config *cfg, struct net_buf *buf)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	if (e->held) {
		unsigned sel = e->held - 1u;
		e->held = 0;
		if (out_take_packet(cfg, buf, sel, e->held_len))
			return;
	}
	if (!e->in_flight)
		out_arm(cfg, buf);
	/* else the buffer armed ahead brings the first packet; the next round follows it */
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
		e->pkts_left = in_packet_count(cfg, buf->len, info->zlp);
		in_arm(cfg, buf);
	} else {
		start_out(cfg, buf);
	}
}

static void xfer_finished_from_isr(struct udc_ep_config *cfg, struct net_buf *buf)
{
	uint8_t ep = cfg->addr;
	udc_get_buf_info(buf)->timestamp = k_cycle_get_32();
	atomic_or(&xfer_finished, ep_bit(ep));
	k_event_post(&events, EVT_XFER_FINISHED);
}

/* The host took IN packets: as many of the armed ones as the buffer control word shows
 * done (AVAILABLE cleared), in the order the controller sends them. One BUFF_STATUS bit
 * may stand for both buffers. */
static void in_buffer_done(struct udc_ep_config *cfg)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	struct net_buf *buf = udc_buf_peek(cfg);
	if (!buf || !udc_ep_is_busy(cfg) || !e->in_flight)
		return;
	uint32_t word = hw_read(e->buf_ctrl);
	while (e->in_flight) {
		unsigned sel = e->hw_sel;
		uint32_t half = sel ? word >> 16 : word;
		if (half & USB_BUF_CTRL_AVAIL)
			break; /* still the controller's */
		net_buf_pull(buf, e->pkt_len[sel]);
		cfg->stats.packets++;
		cfg->stats.bytes += e->pkt_len[sel];
		e->in_flight--;
		e->pkts_left--;
		if (e->nbufs == 2)
			e->hw_sel ^= 1u;
	}
	if (e->in_flight)
		return; /* the other buffer is still on its way */
	if (e->pkts_left) {
		in_arm(cfg, buf);
		return;
	}
	/* The status stage of SET_ADDRESS is over: the new address applies from now. */
	if (USB_EP_IDX(cfg->addr) == 0 && udc_get_buf_info(buf)->status && pending_addr >= 0) {
		hw_write(USB_ADDR_ENDP, (uint32_t)pending_addr);
		pending_addr = -1;
	}
	udc_ep_set_busy(cfg, false);
	xfer_finished_from_isr(cfg, buf);
}

/* OUT packets arrived: every armed buffer the controller has filled (AVAILABLE cleared),
 * in the order it fills them. One BUFF_STATUS bit may stand for both buffers. */
static void out_buffer_done(struct udc_ep_config *cfg)
{
	struct rp2040_ep *e = ep_data(cfg->addr);
	uint32_t word = hw_read(e->buf_ctrl);
	while (e->in_flight) {
		unsigned sel = e->hw_sel;
		uint32_t half = sel ? word >> 16 : word;
		if (half & USB_BUF_CTRL_AVAIL)
			break; /* still waiting for the host */
		uint16_t n = (uint16_t)(half & USB_BUF_CTRL_LEN_MASK);
		e->in_flight--;
		if (e->nbufs == 2)
			e->hw_sel ^= 1u;
		struct net_buf *buf = udc_buf_peek(cfg);
		if (!buf || !udc_ep_is_busy(cfg)) {
			/* The next transfer's first packet, before that transfer started. */
			e->held = (uint8_t)(sel + 1u);
			e->held_len = n;
			return;
		}
		out_take_packet(cfg, buf, sel, n);
	}
	struct net_buf *buf = udc_buf_peek(cfg);
	if (!e->in_flight && buf && udc_ep_is_busy(cfg))
		out_arm(cfg, buf);
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
	/* Packets armed but never used did not use their data toggles (EP0's next toggle is
	 * set by the SETUP that ends its transfers); a packet held for a transfer that will
	 * not come is gone. */
	if (USB_EP_IDX(cfg->addr) != 0)
		e->next_pid ^= (uint8_t)(e->in_flight & 1u);
	e->held = 0;
	/* Take the buffers back from the controller; its selector starts at buffer 0. */
	hw_write(e->buf_ctrl, USB_BUF_CTRL_SEL);
	e->hw_sel = 0;
	e->in_flight = 0;
	e->pkts_left = 0;
	udc_ep_set_busy(cfg, false);
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
	/* Bulk endpoints get two buffers (see the top of the file). */
	uint8_t nbufs = cfg->attributes == USB_EP_BULK ? 2 : 1;
	if (!e->dpram || e->nbufs != nbufs) {
		/* 64 bytes per buffer, kept until the controller is reset. */
		if (dpram_next + 64u * nbufs > USB_DPRAM_SIZE)
			return -ENOMEM;
		e->dpram = (uint8_t *)(USBCTRL_DPRAM_BASE + dpram_next);
		dpram_next += 64u * nbufs;
		e->nbufs = nbufs;
	}
	e->next_pid = 0;
	e->hw_sel = 0;
	e->in_flight = 0;
	e->pkts_left = 0;
	e->held = 0;
	hw_write(e->buf_ctrl, USB_BUF_CTRL_SEL);
	hw_write(e->ep_ctrl, USB_EP_CTRL_ENABLE | USB_EP_CTRL_INTERRUPT_PER_BUFF |
				     (nbufs == 2 ? USB_EP_CTRL_DOUBLE_BUFFERED : 0) |
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
	 * starts now, from what the host has not taken yet. */
	hw_write(e->buf_ctrl, USB_BUF_CTRL_SEL);
	e->next_pid = 0;
	e->hw_sel = 0;
	e->in_flight = 0;
	e->held = 0;
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
	e->nbufs = 1;
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
