/* ncmhost: a CDC-NCM class driver for the virtual USB host, behaving as Linux's cdc_ncm on
 * usbnet (drivers/net/usb/cdc_ncm.c): the bring-up requests, NTB16 framing both ways with
 * cdc_ncm's transmit aggregation timer, the status notifications. */
#ifndef XB_NCMHOST_H
#define XB_NCMHOST_H

#include <stddef.h>
#include <stdint.h>

#include "ecmhost.h"
#include "usbhost.h"

/*
 * What it binds: a control interface of class 2, subclass 0x0D (NCM), protocol 0, with the
 * header, union, Ethernet networking (iMACAddress) and NCM functional descriptors, and a
 * data interface (class 0x0A) whose alternate setting 1 has a bulk IN and a bulk OUT.
 *
 * Bring-up (cdc_ncm_bind_common, cdc_ncm_init, cdc_ncm_setup): SET_INTERFACE(data, 1) then
 * (data, 0) to reset the data interface; GET_NTB_PARAMETERS (0xA1, 0x80, 28 bytes); when the
 * device also supports NTB32, SET_NTB_FORMAT(NTB16) (0x21, 0x84); a 10 ms pause (the low end
 * of Linux's usleep_range(10000, 20000)); SET_INTERFACE(data, 1); the iMACAddress string;
 * SET_NTB_INPUT_SIZE (0x21, 0x86, 4 bytes) only when Linux's clamp changes dwNtbInMaxSize
 * (min(16384, dwNtbInMaxSize) kept within [2048, dwNtbInMaxSize]); then the interface opens:
 * SET_ETHERNET_PACKET_FILTER 0x000C (usbnet_cdc_update_filter), the interrupt URB, rx URBs of
 * that size. The link follows NETWORK_CONNECTION notifications (FLAG_LINK_INTR).
 *
 * Transmit (cdc_ncm_fill_tx_frame): an NTB of at most tx_max = min(16384, dwNtbOutMaxSize)
 * bytes: the 12-byte NTH16 (wSequence counting from 0), one NDP16 ("NCM0") aligned to
 * wNdpOutAlignment with room for wNtbOutMaxDatagrams (40 when 0 or above 40) entries and a
 * zero entry, each datagram aligned to wNdpOutDivisor plus wNdpOutPayloadRemainder. A frame
 * that does not fill the NTB waits for more: cdc_ncm's timer of 400 us, restarted twice
 * while fewer than 3 datagrams are in the NTB, so a lone frame leaves 1.2 ms after it was
 * given; a full NTB (size or datagram count) leaves at once. An NTB longer than tx_max -
 * 3 * wMaxPacketSize is padded to tx_max; one whose length is a multiple of wMaxPacketSize
 * gets a zero byte (no ZLPs). Each frame's completion is reported in order.
 *
 * Receive (cdc_ncm_rx_fixup): NTH16 and every NDP16 in the chain checked; each datagram
 * pointer (up to the first zero entry) must lie within the transfer and hold at least an
 * Ethernet header; a bad NTB or NDP is counted as an error and its frames dropped.
 */

typedef struct xb_ncmhost xb_ncmhost;

xb_ncmhost *ncmhost_new(xb_usbhost *h, const xb_ecmhost_options *o);
void ncmhost_free(xb_ncmhost *n);
/* Queues one Ethernet frame (14 to wMaxSegmentSize bytes). 0, or -1 when not up or full. */
int ncmhost_send(xb_ncmhost *n, const uint8_t *frame, size_t len);
int ncmhost_up(const xb_ncmhost *n);
int ncmhost_link(const xb_ncmhost *n);
const uint8_t *ncmhost_mac(const xb_ncmhost *n);
/* As ecmhost_trouble. */
int ncmhost_trouble(const xb_ncmhost *n, char *out, size_t len);
void ncmhost_stats(const xb_ncmhost *n, xb_ecmhost_stats *out);

typedef struct xb_ncmhost_info {
	uint8_t params[28];     /* the device's NTB parameter structure */
	uint32_t rx_max, tx_max; /* NTB sizes in use */
	uint32_t set_input_size; /* the value SET_NTB_INPUT_SIZE sent, 0 when it was not */
	uint64_t ntbs_out, ntbs_in, ntb_errors;
	uint16_t tx_seq;        /* the next NTH16 wSequence */
} xb_ncmhost_info;
void ncmhost_info(const xb_ncmhost *n, xb_ncmhost_info *out);

#endif
