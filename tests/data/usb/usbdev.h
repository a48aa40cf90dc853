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

#endif
