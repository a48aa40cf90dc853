/* rndishost: an RNDIS class driver for the virtual USB host, behaving as Linux's rndis_host
 * on usbnet (drivers/net/usb/rndis_host.c): the control channel over
 * SEND_ENCAPSULATED_COMMAND / GET_ENCAPSULATED_RESPONSE, the bring-up messages, and
 * REMOTE_NDIS_PACKET_MSG framing on the bulk endpoints. */
#ifndef XB_RNDISHOST_H
#define XB_RNDISHOST_H

#include <stddef.h>
#include <stdint.h>

#include "ecmhost.h"
#include "usbhost.h"

/*
 * What it binds (rndis_host's device table): a configuration whose control interface is
 * class 2/2/0xFF (RNDIS), 0xEF/1/1 (ActiveSync), 0xEF/4/1 (RNDIS for tethering) or
 * 0xE0/1/3 (RNDIS over a wireless-controller class, what TinyUSB offers), its data interface
 * (the union descriptor's, else the next interface) with a bulk IN and a bulk OUT endpoint
 * at alternate setting 0 (FLAG_NO_SETINT: no SET_INTERFACE), and the control interface's
 * interrupt IN endpoint if any.
 *
 * Bring-up (generic_rndis_bind), each message a "command": SEND_ENCAPSULATED_COMMAND
 * (0x21, 0x00, wIndex the control interface) with the message, request IDs from 1, then
 * GET_ENCAPSULATED_RESPONSE (0xA1, 0x01, wLength 1025) at once, repeated every 40 ms up to
 * 10 times until a completion with the same request ID comes (Linux does not wait for the
 * RESPONSE_AVAILABLE notification first); a device KEEPALIVE met meanwhile is answered
 * with KEEPALIVE_C, an INDICATE_STATUS is counted. Messages: INITIALIZE (version 1.0,
 * MaxTransferSize 1600: usbnet's rx buffer for a 1500-byte MTU plus the 44-byte header on
 * 64-byte packets), QUERY OID_GEN_PHYSICAL_MEDIUM (optional; a wireless medium is refused),
 * QUERY OID_802_3_PERMANENT_ADDRESS (6 bytes; a locally administered address makes Linux
 * pick a random host MAC: rndishost_mac then gives NULL and the peer uses its default), SET
 * OID_GEN_CURRENT_PACKET_FILTER 0x2D (directed, multicast, broadcast, promiscuous). A
 * failure after INITIALIZE sends HALT. Then the interface opens: the interrupt URB
 * (notifications counted, as rndis_status only logs them), rx URBs, and the link is up at
 * once (no FLAG_LINK_INTR).
 *
 * Frames: each sent frame gets the 44-byte REMOTE_NDIS_PACKET_MSG header (DataOffset 36,
 * no out-of-band data), plus one zero byte when the transfer would be a multiple of
 * wMaxPacketSize (usbnet without FLAG_SEND_ZLP); received transfers may hold several
 * messages, each checked as rndis_rx_fixup does (a bad one drops the rest of the transfer).
 */

typedef struct xb_rndishost xb_rndishost;

/* One of h's class drivers (usbhost_add_driver); o's callbacks and counts as for CDC-ECM. */
xb_rndishost *rndishost_new(xb_usbhost *h, const xb_ecmhost_options *o);
void rndishost_free(xb_rndishost *r);
/* Queues one Ethernet frame (14 to 1514 bytes). 0, or -1 when not up or the queue is full. */
int rndishost_send(xb_rndishost *r, const uint8_t *frame, size_t len);
int rndishost_up(const xb_rndishost *r);
int rndishost_link(const xb_rndishost *r);
/* The device's OID_802_3_PERMANENT_ADDRESS when it is a global one, else NULL. */
const uint8_t *rndishost_mac(const xb_rndishost *r);
/* As ecmhost_trouble. */
int rndishost_trouble(const xb_rndishost *r, char *out, size_t n);
void rndishost_stats(const xb_rndishost *r, xb_ecmhost_stats *out);

typedef struct xb_rndishost_info {
	uint32_t init_max_transfer;  /* the device's MaxTransferSize in INITIALIZE_CMPLT */
	uint32_t medium;             /* OID_GEN_PHYSICAL_MEDIUM (0 when not answered) */
	uint8_t device_mac[6];       /* OID_802_3_PERMANENT_ADDRESS as given */
	uint32_t commands;           /* messages sent */
	uint32_t polls;              /* GET_ENCAPSULATED_RESPONSE requests */
	uint32_t keepalives;         /* device KEEPALIVEs answered */
	uint32_t indications;        /* INDICATE_STATUS messages */
	int failed;                  /* 1: the bring-up gave up */
} xb_rndishost_info;
void rndishost_info(const xb_rndishost *r, xb_rndishost_info *out);

#endif
