/* usb_dc.c: driver for the RP2040 USB device controller. */
/* Registers at 0x50110000; the dual-port RAM with endpoint and buffer control at
 * 0x50100000. */
#include "fw.h"

#define USBCTRL_DPRAM 0x50100000u
#define USBCTRL_REGS 0x50110000u
#define USB_ADDR_ENDP (USBCTRL_REGS + 0x00)
#define USB_MAIN_CTRL (USBCTRL_REGS + 0x40)
#define USB_SIE_CTRL (USBCTRL_REGS + 0x4c)
#define USB_SIE_STATUS (USBCTRL_REGS + 0x50)
#define USB_BUFF_STATUS (USBCTRL_REGS + 0x58)
#define USB_MUXING (USBCTRL_REGS + 0x74)
#define USB_PWR (USBCTRL_REGS + 0x78)
#define USB_INTE (USBCTRL_REGS + 0x90)
#define USB_INTS (USBCTRL_REGS + 0x98)
#define RESETS_RESET 0x4000c000u
#define RESETS_DONE 0x4000c008u

#define SIE_SETUP_REC (1u << 17)
#define SIE_BUS_RESET (1u << 19)
#define INTS_BUFF_STATUS (1u << 4)
#define INTS_BUS_RESET (1u << 12)
#define INTS_SETUP_REQ (1u << 16)
#define BUF_FULL (1u << 15)
#define BUF_LAST (1u << 14)
#define BUF_DATA1 (1u << 13)
#define BUF_AVAILABLE (1u << 10)

struct udc_ep {
	uint16_t mps;
	uint8_t type, next_pid;
	uint32_t buf_offset;
	udc_ep_cb cb;
	uint32_t transfers;
};

static struct udc_ep eps[16][2];
static void (*setup_fn)(const uint8_t *setup);
static uint8_t pending_addr;
static uint32_t next_buf = 0x180;
static uint32_t isr_count;

static volatile uint32_t *ep_ctrl(uint8_t ep)
{
	uint8_t num = ep & 0x0f;
	uint32_t off = 8u * (num - 1u) + ((ep & 0x80) ? 0u : 4u);
	return (volatile uint32_t *)(uintptr_t)(USBCTRL_DPRAM + off);
}

static volatile uint32_t *buf_ctrl(uint8_t ep)
{
	uint8_t num = ep & 0x0f;
	uint32_t off = 0x80u + 8u * num + ((ep & 0x80) ? 0u : 4u);
	return (volatile uint32_t *)(uintptr_t)(USBCTRL_DPRAM + off);
}

static struct udc_ep *ep_state(uint8_t ep)
{
	return &eps[ep & 0x0f][(ep & 0x80) ? 1 : 0];
}

void udc_init(void)
{
	REG32(RESETS_RESET) |= 1u << 24;
	REG32(RESETS_RESET) &= ~(1u << 24);
	while (!(REG32(RESETS_DONE) & (1u << 24)))
		;
	memset((void *)(uintptr_t)USBCTRL_DPRAM, 0, 0x1000);
	REG32(USB_MUXING) = 0x9; /* to PHY, softcon */
	REG32(USB_PWR) = 0xc;    /* VBUS detect override */
	REG32(USB_MAIN_CTRL) = 1;
	REG32(USB_SIE_CTRL) = 1u << 29; /* EP0 interrupt on buffer */
	REG32(USB_INTE) = INTS_BUFF_STATUS | INTS_BUS_RESET | INTS_SETUP_REQ;
	REG32(USB_SIE_CTRL) |= 1u << 16; /* pull-up: connect */
	next_buf = 0x180;
	ep_state(0x00)->mps = ep_state(0x80)->mps = 64;
}

int udc_ep_configure(uint8_t ep, uint8_t type, uint16_t mps, udc_ep_cb cb)
{
	if ((ep & 0x0f) == 0 || (ep & 0x0f) > 15 || mps > 64)
		return -22;
	struct udc_ep *e = ep_state(ep);
	e->mps = mps;
	e->type = type;
	e->cb = cb;
	e->next_pid = 0;
	e->buf_offset = next_buf;
	next_buf += 64;
	*ep_ctrl(ep) = (1u << 31) | (1u << 29) | ((uint32_t)type << 26) | e->buf_offset;
	if (!(ep & 0x80))
		*buf_ctrl(ep) = mps | BUF_AVAILABLE;
	return 0;
}

static void buf_start(uint8_t ep, uint16_t len, int in)
{
	struct udc_ep *e = ep_state(ep);
	uint32_t v = len | BUF_AVAILABLE | (e->next_pid ? BUF_DATA1 : 0);
	e->next_pid ^= 1;
	if (in)
		v |= BUF_FULL | BUF_LAST;
	*buf_ctrl(ep) = v & ~BUF_AVAILABLE;
	__asm__ volatile("nop\n nop\n nop");
	*buf_ctrl(ep) = v;
}

int udc_ep_write(uint8_t ep, const uint8_t *data, uint16_t len)
{
	struct udc_ep *e = ep_state(ep);
	if (len > e->mps)
		return -22;
	uint32_t off = (ep & 0x0f) ? e->buf_offset : 0x100;
	memcpy((void *)(uintptr_t)(USBCTRL_DPRAM + off), data, len);
	buf_start(ep, len, 1);
	e->transfers++;
	return len;
}

void udc_ep_stall(uint8_t ep)
{
	*buf_ctrl(ep) |= 1u << 11;
}

void udc_set_address(uint8_t addr)
{
	pending_addr = addr;
}

void udc_setup_handler(void (*fn)(const uint8_t *setup))
{
	setup_fn = fn;
}

static void handle_buff_status(void)
{
	uint32_t status = REG32(USB_BUFF_STATUS);
	for (uint8_t i = 0; i < 32 && status; i++) {
		uint32_t bit = 1u << i;
		if (!(status & bit))
			continue;
		REG32(USB_BUFF_STATUS) = bit;
		status &= ~bit;
		uint8_t ep = (uint8_t)((i >> 1) | ((i & 1) ? 0 : 0x80));
		struct udc_ep *e = ep_state(ep);
		uint16_t len = *buf_ctrl(ep) & 0x3ff;
		if (ep == 0x80 && pending_addr) {
			REG32(USB_ADDR_ENDP) = pending_addr;
			pending_addr = 0;
		}
		if (e->cb) {
			uint32_t off = (ep & 0x0f) ? e->buf_offset : 0x100;
			e->cb(ep, (const uint8_t *)(uintptr_t)(USBCTRL_DPRAM + off), len);
		}
		if (!(ep & 0x80) && (ep & 0x0f))
			buf_start(ep, e->mps, 0);
	}
}

__attribute__((aligned(8))) void udc_isr(void)
{
	uint32_t ints = REG32(USB_INTS);
	isr_count++;
	if (ints & INTS_SETUP_REQ) {
		REG32(USB_SIE_STATUS) = SIE_SETUP_REC;
		ep_state(0x80)->next_pid = 1;
		if (setup_fn)
			setup_fn((const uint8_t *)(uintptr_t)USBCTRL_DPRAM);
	}
	if (ints & INTS_BUFF_STATUS)
		handle_buff_status();
	if (ints & INTS_BUS_RESET) {
		REG32(USB_SIE_STATUS) = SIE_BUS_RESET;
		REG32(USB_ADDR_ENDP) = 0;
		pending_addr = 0;
		if ((isr_count & 0xff) == 0)
			drivers_gen_00(isr_count);
	}
}
