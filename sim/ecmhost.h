/* ecmhost: a CDC-ECM class driver for the virtual USB host, behaving as Linux's cdc_ether
 * and usbnet do: it binds to the device, brings the link up, sends and receives Ethernet
 * frames in virtual time. */
#ifndef XB_ECMHOST_H
#define XB_ECMHOST_H

#include <stddef.h>
#include <stdint.h>

#include "usbhost.h"

/*
 * Binding (Linux cdc_ether + usbnet, reference/rp2040-peripherals.md 6.3): when the host has
 * configured a device, the driver looks for a communications interface of class 02/06/00
 * with a CDC header (bLength 5), union (data interface class 0A) and Ethernet networking
 * (bLength 13) descriptor, an interrupt IN status endpoint, and a data interface alternate
 * setting with a bulk IN and a bulk OUT endpoint. It then sends, each after the previous
 * one completed: SET_INTERFACE(data, that alternate setting) unless it is 0,
 * SET_ETHERNET_PACKET_FILTER(wValue 0x000C: directed + broadcast), the LANGID string if the
 * host has not read it, and GET_DESCRIPTOR(STRING iMACAddress, 255), which must hold exactly
 * 12 hex digits (the host side's MAC address). Then the interface is "up" (usbnet_open):
 * the status URB is submitted (interrupt IN, wMaxPacketSize bytes, interval max(bInterval,
 * 3) frames, which the host rounds down to a power of 2) and rx_urbs bulk IN URBs of
 * wMaxSegmentSize bytes are kept posted.
 *
 * Link: down until a NETWORK_CONNECTION notification with wValue 1, down again with 0.
 * CONNECTION_SPEED_CHANGE is read whole (16 bytes) or split over two transfers of 8.
 *
 * Frames: one Ethernet frame (no FCS) per bulk transfer. Received frames are delivered when
 * a bulk IN URB completes with at least 14 bytes (ends with a short packet or a ZLP, or
 * fills wMaxSegmentSize). A frame to send whose length is a multiple of the bulk OUT
 * wMaxPacketSize gets one zero byte appended (usbnet without FLAG_SEND_ZLP); at most tx_urbs
 * transfers are in flight, later frames wait in a queue of tx_queue frames.
 * A STALL on a data endpoint is cleared (CLEAR_FEATURE(ENDPOINT_HALT)) and the traffic goes
 * on. A disconnect ends the binding; the next device configured binds again.
 */

typedef struct xb_ecmhost xb_ecmhost;

/* A frame received from the device: its bytes (valid during the call) and the virtual time
 * (CPU cycle) its bulk IN transfer completed. */
typedef void (*xb_ecmhost_rx_fn)(void *ctx, const uint8_t *frame, size_t len, uint64_t cycle);
/* The link went up (1) or down (0). */
typedef void (*xb_ecmhost_link_fn)(void *ctx, int up);
/* A frame given to ecmhost_send has been sent (status 0) or not (a negative errno) at cycle. */
typedef void (*xb_ecmhost_tx_fn)(void *ctx, size_t len, int status, uint64_t cycle);

typedef struct xb_ecmhost_options {
	xb_ecmhost_rx_fn rx;
	void *rx_ctx;
	xb_ecmhost_link_fn link;
	void *link_ctx;
	xb_ecmhost_tx_fn tx_done;
	void *tx_ctx;
	unsigned rx_urbs;  /* bulk IN URBs kept posted (default 4: usbnet at full speed) */
	unsigned tx_urbs;  /* bulk OUT URBs in flight (default 4) */
	unsigned tx_queue; /* frames waiting beyond those (default 1000: txqueuelen) */
} xb_ecmhost_options;

/* One of h's class drivers (usbhost_add_driver). o may be NULL (no callbacks). */
xb_ecmhost *ecmhost_new(xb_usbhost *h, const xb_ecmhost_options *o);
/* Unlinks its URBs (their callbacks see -ENOENT), stops being h's driver. */
void ecmhost_free(xb_ecmhost *e);

/* Queues one Ethernet frame (14 to wMaxSegmentSize bytes, copied). Returns 0, or -1 when
 * the interface is not up, the link is down, the length is wrong or the queue is full. */
int ecmhost_send(xb_ecmhost *e, const uint8_t *frame, size_t len);

/* 1 once the binding requests are done and the URBs posted (the interface is up). */
int ecmhost_up(const xb_ecmhost *e);
/* 1 while the device says the network is connected. */
int ecmhost_link(const xb_ecmhost *e);
/* The MAC address read from iMACAddress (6 bytes), or NULL before it was read. */
const uint8_t *ecmhost_mac(const xb_ecmhost *e);
/* Why the bound driver's bring-up gave up (the request and its status), or the request it
 * waits for (and how long it has): a line in out, 1; 0 when neither. */
int ecmhost_trouble(const xb_ecmhost *e, char *out, size_t n);

typedef struct xb_ecmhost_stats {
	uint64_t rx_frames, rx_bytes, rx_errors;
	uint64_t tx_frames, tx_bytes, tx_errors, tx_dropped;
	uint64_t notifications;
	uint32_t downlink_bps, uplink_bps; /* from CONNECTION_SPEED_CHANGE (0 if none) */
	uint64_t binds;
} xb_ecmhost_stats;
void ecmhost_stats(const xb_ecmhost *e, xb_ecmhost_stats *out);

#endif
