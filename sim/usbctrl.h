/* usbctrl: the RP2040 USB controller in device mode at full speed: its DPRAM and registers on
 * the virtual Pico's bus, IRQ 5, and the wire side a virtual host drives token by token. */
#ifndef XB_USBCTRL_H
#define XB_USBCTRL_H

#include <stdint.h>

#include "board.h"

/*
 * Bus side (reference/rp2040-peripherals.md section 1, RP2040 datasheet 4.1):
 *
 *  - DPRAM, 4 KB at 0x50100000, a memory (XB_DEV_BYTES): SETUP packet at 0x0, endpoint
 *    control words (EP1-15) at 0x08-0x7C, buffer control words (EP0-15) at 0x80-0xFC, EP0's
 *    buffers at 0x100 and 0x140, the rest for EPx buffers. Writes through the atomic aliases
 *    (+0x1000 XOR, +0x2000 SET, +0x3000 CLR) modify the bytes written.
 *  - Registers at 0x50110000 (ADDR_ENDP ... INTS), with the RP2040 aliases: read/write
 *    registers take bus_alias_apply; write-1-to-clear registers (SIE_STATUS, BUFF_STATUS,
 *    EP_ABORT_DONE, EP_STATUS_STALL_NAK) clear the bits of the raw written value under every
 *    alias. INTR's "changed" flags (DEV_CONN_DIS, DEV_SUSPEND, DEV_RESUME_FROM_HOST,
 *    VBUS_DETECT) are latches of their own, cleared by writing the matching SIE_STATUS bit
 *    (CONNECTED, SUSPENDED, RESUME, VBUS_DETECTED); VBUS_DETECT latches changes the VBUS
 *    detector sees, not those the USB_PWR override makes. DEV_SOF is cleared by reading
 *    SOF_RD (not by debugger reads). Every other INTR bit follows its source. The reserved
 *    word at 0x88 reads as 0 and ignores writes (drivers clear the whole block with
 *    memset).
 *  - IRQ 5 is held high while INTS = (INTR & INTE) | INTF is not zero.
 *  - Device mode only: MAIN_CTRL.HOST_NDEVICE is stored, reported once, and the controller
 *    then answers nothing; host-only registers are plain storage.
 *
 * Wire side (what a host on the bus sees; sim/usbhost.c is that host). The device is
 * attached when the controller is enabled in device mode with SIE_CTRL.PULLUP_EN set (and
 * the transceiver powered, the block out of reset): usbctrl_attached. A transaction is
 * answered only when the device is attached, the host powers VBUS, no bus reset is being
 * signalled, the address matches ADDR_ENDP.ADDRESS and the endpoint is enabled (EP0
 * always); otherwise the answer is XB_USB_NONE (no handshake: a timeout for the host).
 * Each call is one transaction, at the moment the device decides its handshake (OUT and
 * SETUP: after the data packet; IN: after the token). Buffer control and status follow the
 * datasheet (4.1.2.5-4.1.2.6): AVAILABLE hands a buffer to the controller, which clears it
 * when it writes the status back; DATA0/DATA1 come from the buffer control PID bit; STALL
 * needs EP_STALL_ARM as well on EP0, and a SETUP clears EP_STALL_ARM; double-buffered
 * endpoints alternate buffers and report which one completed in BUFF_CPU_SHOULD_HANDLE.
 */

#define XB_USBCTRL_DPRAM_BASE 0x50100000u
#define XB_USBCTRL_DPRAM_SIZE 0x1000u
#define XB_USBCTRL_REGS_BASE 0x50110000u
#define XB_USBCTRL_IRQ 5u
#define XB_USBCTRL_RESETS_BIT 24u

typedef struct xb_usbctrl xb_usbctrl;

/* Maps the DPRAM and the registers on board_bus(b) and registers a system-reset hook.
 * Returns NULL (after the bus logged why) when the addresses are taken. The caller frees it
 * after board_free. */
xb_usbctrl *usbctrl_new(xb_board *b);
void usbctrl_free(xb_usbctrl *u);

/* RESETS bit 24 (an xb_block_reset_fn, ctx = the controller): while held, the registers
 * are at their reset values, writes to them are ignored and the device is detached. The
 * DPRAM keeps its contents (it is memory; drivers clear it themselves). */
void usbctrl_block_reset(void *ctx, int held);

/* ---- Wire side ---- */

enum xb_usb_response {
	XB_USB_NONE = 0, /* no handshake: not addressed, not attached, disabled, error */
	XB_USB_ACK,
	XB_USB_NAK,
	XB_USB_STALL,
	XB_USB_DATA,     /* IN: a data packet follows */
};

/* What the host is told about (usbctrl_set_host). */
enum {
	XB_USBCTRL_ATTACH = 1, /* usbctrl_attached changed */
	XB_USBCTRL_CHANGE = 2, /* the CPU wrote something that can change a handshake: a
				* register, an endpoint or buffer control word */
};
typedef void (*xb_usbctrl_host_fn)(void *ctx, unsigned what);
void usbctrl_set_host(xb_usbctrl *u, xb_usbctrl_host_fn fn, void *ctx);

/* 1 while the device presents its D+ pull-up (a full-speed device for the host). */
int usbctrl_attached(const xb_usbctrl *u);
/* The host powers VBUS (a cable is plugged in); SIE_STATUS.VBUS_DETECTED follows unless
 * USB_PWR overrides it. */
void usbctrl_set_vbus(xb_usbctrl *u, int on);
/* The host drives SE0 (bus reset) from se0 = 1 until se0 = 0. The start sets
 * SIE_STATUS.BUS_RESET and puts the buffer selectors back to buffer 0; ADDR_ENDP is left
 * to the driver, as the datasheet describes. */
void usbctrl_bus_reset(xb_usbctrl *u, int se0);
/* The host drives resume signalling (K) from k = 1 until k = 0 (then the EOP). The start
 * wakes a suspended device: SIE_STATUS.RESUME, INTR.DEV_RESUME_FROM_HOST; LINE_STATE reads
 * K meanwhile. */
void usbctrl_resume(xb_usbctrl *u, int k);
/* A start-of-frame packet: SOF_RD = frame (11 bits), INTR.DEV_SOF set. */
void usbctrl_sof(xb_usbctrl *u, unsigned frame);
/* A SETUP transaction to EP0 of addr: the 8 bytes land at DPRAM 0, EP_STALL_ARM is
 * cleared, SIE_STATUS.SETUP_REC set. XB_USB_ACK or XB_USB_NONE. */
enum xb_usb_response usbctrl_setup(xb_usbctrl *u, unsigned addr, const uint8_t setup[8]);
/* An OUT transaction with DATA0 (data1 = 0) or DATA1 and len bytes. ACK (stored, or a
 * repeated packet whose PID differs from the buffer's: SIE_STATUS.DATA_SEQ_ERROR, data
 * dropped), NAK (no buffer available, or EP_ABORT), STALL or NONE (a packet longer than the
 * buffer's LENGTH: SIE_STATUS.RX_OVERFLOW, nothing stored). */
enum xb_usb_response usbctrl_out(xb_usbctrl *u, unsigned addr, unsigned ep, int data1,
				 const uint8_t *data, unsigned len);
/* An IN token: XB_USB_DATA with the packet in data (room for 1023 bytes), its length and
 * PID, or NAK / STALL / NONE. After XB_USB_DATA the host must call usbctrl_in_handshake
 * before any other transaction: ack = 1 completes the buffer (BUFF_STATUS, FULL and
 * AVAILABLE cleared), ack = 0 (the host did not acknowledge) leaves it to be sent again and
 * sets SIE_STATUS.RX_TIMEOUT. */
enum xb_usb_response usbctrl_in(xb_usbctrl *u, unsigned addr, unsigned ep, uint8_t *data,
				unsigned *len, int *data1);
void usbctrl_in_handshake(xb_usbctrl *u, int ack);
/* Suspend needs no call: a connected device whose bus has been idle (no SOF, token, reset
 * or resume signalling) for 3 ms enters suspend (SIE_STATUS.SUSPENDED, INTR.DEV_SUSPEND;
 * also before the first reset, while the host debounces the connection: datasheet
 * 4.1.2.6.4). Any bus activity (a packet, resume signalling, a bus reset) ends it with
 * SIE_STATUS.RESUME and INTR.DEV_RESUME_FROM_HOST; leaving suspend never sets
 * DEV_SUSPEND. */

/* 1 when the driver asked to be told about NAKs (SIE_CTRL.EP0_INT_NAK or an endpoint's
 * INTERRUPT_ON_NAK): a host that skips NAK retries while nothing changes must not. */
int usbctrl_reports_nak(const xb_usbctrl *u);

/* For tests and tools: the DPRAM (4 KB), and the current address the device answers. */
uint8_t *usbctrl_dpram(xb_usbctrl *u);
unsigned usbctrl_address(const xb_usbctrl *u);

#endif
