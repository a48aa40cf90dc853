/* usbdev.h: the RP2040 USB controller registers (datasheet 4.1, pico-sdk usb.h values) and a
 * few helpers for the virtual Pico's USB device test programs. */
#ifndef USBDEV_H
#define USBDEV_H

#include <stdint.h>

#include "sim.h"

/* -ffreestanding still lets the compiler call these; each program includes this once. */
void *memcpy(void *d, const void *s, unsigned n);
void *memset(void *d, int c, unsigned n);

void *memcpy(void *d, const void *s, unsigned n)
{
	uint8_t *dd = d;
	const uint8_t *ss = s;
	while (n--)
		*dd++ = *ss++;
	return d;
}

void *memset(void *d, int c, unsigned n)
{
	uint8_t *dd = d;
	while (n--)
		*dd++ = (uint8_t)c;
	return d;
}

#define ALIAS_SET 0x2000u
#define ALIAS_CLR 0x3000u

#define RESETS_BASE 0x4000C000u
#define RESETS_RESET (RESETS_BASE + 0x0u)
#define RESETS_DONE (RESETS_BASE + 0x8u)
#define RESET_USBCTRL (1u << 24)

#define USB_DPRAM 0x50100000u
#define USB_REGS 0x50110000u
#define USB_ADDR_ENDP (USB_REGS + 0x00u)
#define USB_MAIN_CTRL (USB_REGS + 0x40u)
#define USB_SIE_CTRL (USB_REGS + 0x4Cu)
#define USB_SIE_STATUS (USB_REGS + 0x50u)
#define USB_BUFF_STATUS (USB_REGS + 0x58u)
#define USB_EP_STALL_ARM (USB_REGS + 0x68u)
#define USB_MUXING (USB_REGS + 0x74u)
#define USB_PWR (USB_REGS + 0x78u)
#define USB_INTE (USB_REGS + 0x90u)
#define USB_INTS (USB_REGS + 0x98u)

#define MAIN_CTRL_CONTROLLER_EN 0x1u
#define SIE_CTRL_EP0_INT_1BUF (1u << 29)
#define SIE_CTRL_PULLUP_EN (1u << 16)
#define SIE_STATUS_BUS_RESET (1u << 19)
#define SIE_STATUS_SETUP_REC (1u << 17)
#define INT_SETUP_REQ (1u << 16)
#define INT_BUS_RESET (1u << 12)
#define INT_BUFF_STATUS (1u << 4)
#define MUXING_TO_PHY_SOFTCON 0x9u
#define PWR_VBUS_OVERRIDE 0xCu

/* Endpoint control (EP1-15) and buffer control words. */
#define EP_CTRL(n, in) (USB_DPRAM + 8u * (n) + ((in) ? 0u : 4u))
#define BUF_CTRL(n, in) (USB_DPRAM + 0x80u + 8u * (n) + ((in) ? 0u : 4u))
#define EP_CTRL_ENABLE (1u << 31)
#define EP_CTRL_INT_PER_BUFF (1u << 29)
#define EP_TYPE_BULK (2u << 26)
#define EP_TYPE_INTERRUPT (3u << 26)
#define BC_FULL 0x8000u
#define BC_LAST 0x4000u
#define BC_DATA1 0x2000u
#define BC_STALL 0x0800u
#define BC_AVAIL 0x0400u
#define BC_LEN 0x03FFu
#define EP0_BUF (USB_DPRAM + 0x100u)

/* The datasheet's concurrent-access rule: everything but AVAILABLE first, then AVAILABLE
 * a few cycles later (TinyUSB waits 12 cycles, Zephyr 3 NOPs). */
static inline void buf_ctrl_hand_over(uint32_t addr, uint32_t v)
{
	REG(addr) = v;
	__asm volatile("nop\n nop\n nop\n nop" ::: "memory");
	REG(addr) = v | BC_AVAIL;
}

static inline void dpram_put(uint32_t addr, const uint8_t *src, uint32_t n)
{
	volatile uint8_t *d = (volatile uint8_t *)addr;
	for (uint32_t i = 0; i < n; i++)
		d[i] = src[i];
}

static inline void dpram_get(uint8_t *dst, uint32_t addr, uint32_t n)
{
	const volatile uint8_t *s = (const volatile uint8_t *)addr;
	for (uint32_t i = 0; i < n; i++)
		dst[i] = s[i];
}

/* ---- Network byte order and the Internet checksum (RFC 1071), for the network devices ---- */

static inline uint32_t get16be(const uint8_t *p) { return (uint32_t)(p[0] << 8 | p[1]); }
static inline void put16be(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }

static inline uint32_t csum_add(uint32_t sum, const uint8_t *p, uint32_t n)
{
	for (; n >= 2; p += 2, n -= 2)
		sum += get16be(p);
	if (n)
		sum += (uint32_t)p[0] << 8;
	return sum;
}

static inline uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFF) + (sum >> 16);
	return (uint16_t)~sum;
}

/* String descriptor idx into out (64 bytes): 0 is the LANGID list (0x0409), others
 * strings[idx] in UTF-16LE, 30 characters at most. Returns its length. */
static inline uint32_t usb_string_desc(const char *const *strings, unsigned idx, uint8_t *out)
{
	if (idx == 0) {
		static const uint8_t langid[4] = {4, 3, 0x09, 0x04};
		memcpy(out, langid, 4);
		return 4;
	}
	const char *s = strings[idx];
	uint32_t n = 0;
	while (s[n] && n < 30)
		n++;
	out[0] = (uint8_t)(2 + 2 * n);
	out[1] = 3;
	for (uint32_t i = 0; i < n; i++) {
		out[2 + 2 * i] = (uint8_t)s[i];
		out[3 + 2 * i] = 0;
	}
	return 2 + 2 * n;
}

/* ---- EP0 with one 64-byte buffer each way, IN data handed over a packet at a time ---- */

static const uint8_t *ep0_ptr;
static uint32_t ep0_left, ep0_pid;
static int ep0_data_in, ep0_zlp;

static inline void ep0_send_next(void)
{
	uint32_t n = ep0_left < 64u ? ep0_left : 64u;
	dpram_put(EP0_BUF, ep0_ptr, n);
	ep0_ptr += n;
	ep0_left -= n;
	buf_ctrl_hand_over(BUF_CTRL(0, 1), n | BC_FULL | (ep0_pid ? BC_DATA1 : 0));
	ep0_pid ^= 1;
}

/* The data stage of an IN request: len bytes (at most wLength), ended by a ZLP when a
 * shorter reply fills whole packets. */
static inline void ep0_reply(const uint8_t *data, uint32_t len, uint32_t wlength)
{
	if (len > wlength)
		len = wlength;
	ep0_ptr = data;
	ep0_left = len;
	ep0_zlp = len < wlength && len % 64u == 0;
	ep0_pid = 1;
	ep0_data_in = 1;
	ep0_send_next();
}

/* The status stage of a request without data: a zero-length IN with DATA1. */
static inline void ep0_status_in(void)
{
	ep0_data_in = 0;
	buf_ctrl_hand_over(BUF_CTRL(0, 1), BC_FULL | BC_DATA1);
}

/* ---- The controller, as TinyUSB's dcd_rp2040 brings it up ---- */

/* The block reset, the DPRAM cleared, the PHY with soft connect, VBUS forced, EP0 with an
 * interrupt per buffer, the buffer, bus reset and SETUP interrupts on IRQ 5, the pull-up. */
static inline void usb_device_start(void)
{
	REG(RESETS_RESET + ALIAS_SET) = RESET_USBCTRL;
	REG(RESETS_RESET + ALIAS_CLR) = RESET_USBCTRL;
	while (!(REG(RESETS_DONE) & RESET_USBCTRL))
		;
	for (uint32_t off = 0; off < 4096; off += 4)
		REG(USB_DPRAM + off) = 0;
	REG(USB_MUXING) = MUXING_TO_PHY_SOFTCON;
	REG(USB_PWR) = PWR_VBUS_OVERRIDE;
	REG(USB_MAIN_CTRL) = MAIN_CTRL_CONTROLLER_EN;
	REG(USB_SIE_CTRL) = SIE_CTRL_EP0_INT_1BUF;
	REG(USB_INTE) = INT_BUFF_STATUS | INT_BUS_RESET | INT_SETUP_REQ;
	NVIC_ISER = 1u << 5;
	REG(USB_SIE_CTRL + ALIAS_SET) = SIE_CTRL_PULLUP_EN;
	enable_irq();
}

/* A bus reset: acknowledged, address 0, every buffer taken back, EP0 idle. */
static inline void usb_bus_reset_endpoints(void)
{
	REG(USB_SIE_STATUS + ALIAS_CLR) = SIE_STATUS_BUS_RESET;
	REG(USB_ADDR_ENDP) = 0;
	ep0_data_in = 0;
	for (unsigned n = 0; n < 16; n++) {
		REG(BUF_CTRL(n, 1)) = 0;
		REG(BUF_CTRL(n, 0)) = 0;
	}
}

/* An IN packet of EP0 went: the next one of the data stage (a ZLP ends a short reply that
 * fills whole packets), or, after the last, the host's status stage armed (a zero-length
 * OUT with DATA1). 0 when EP0 had no data stage going: the status of a request without
 * data went (the caller applies SET_ADDRESS then). */
static inline int ep0_in_continue(void)
{
	if (!ep0_data_in)
		return 0;
	if (ep0_left || ep0_zlp) {
		if (!ep0_left)
			ep0_zlp = 0;
		ep0_send_next();
	} else {
		ep0_data_in = 0;
		buf_ctrl_hand_over(BUF_CTRL(0, 0), BC_DATA1 | 64u);
	}
	return 1;
}

/* The USB interrupt (IRQ 5) as the test devices take it: every completed buffer (its
 * BUFF_STATUS bit cleared first) to on_buffer(endpoint, in), then a SETUP, then a bus
 * reset. */
static inline void usb_irq(void (*on_buffer)(unsigned ep, unsigned in), void (*on_setup)(void),
			   void (*on_bus_reset)(void))
{
	uint32_t ints = REG(USB_INTS);
	uint32_t status;
	if (ints & INT_BUFF_STATUS) {
		while ((status = REG(USB_BUFF_STATUS)) != 0)
			for (unsigned bit = 0; bit < 32; bit++)
				if (status & (1u << bit)) {
					REG(USB_BUFF_STATUS + ALIAS_CLR) = 1u << bit;
					on_buffer(bit / 2, !(bit & 1));
				}
	}
	if (ints & INT_SETUP_REQ)
		on_setup();
	if (ints & INT_BUS_RESET)
		on_bus_reset();
}

/* STALL both directions of EP0 until the next SETUP. */
static inline void ep0_stall_both(void)
{
	REG(USB_EP_STALL_ARM + ALIAS_SET) = 3;
	REG(BUF_CTRL(0, 1)) = BC_STALL;
	REG(BUF_CTRL(0, 0)) = BC_STALL;
}

#endif
