/* capture.h: the packet flight recorder: the first bytes of the last frames received and
 * sent, with times, in a RAM ring a debugger reads (symbol net_capture_ring) or the stats
 * dump prints. On by default; net_capture_enable switches it. */
#ifndef NET_CAPTURE_H
#define NET_CAPTURE_H

#include <stdbool.h>
#include <stdint.h>

#define NET_CAPTURE_RECORDS 16
#define NET_CAPTURE_SNAPLEN 64 /* Ethernet, IPv4 and transport headers fit */

enum net_capture_dir { NET_CAPTURE_RX = 0, NET_CAPTURE_TX = 1 };

struct net_capture_record {
	uint32_t timestamp_us; /* k_cycle_get_32() when recorded */
	uint16_t len;          /* the frame's full length */
	uint8_t dir;           /* enum net_capture_dir */
	uint8_t iface;         /* interface index */
	uint8_t data[NET_CAPTURE_SNAPLEN];
};

struct net_capture_ring {
	uint32_t magic; /* NET_CAPTURE_MAGIC: lets a debugger find and trust it */
	uint32_t head;  /* records written so far; the newest is at (head - 1) % N */
	uint32_t dropped;
	bool enabled;
	struct net_capture_record rec[NET_CAPTURE_RECORDS];
};

#define NET_CAPTURE_MAGIC 0x50434E58u /* "XNCP" */

extern struct net_capture_ring net_capture_ring;

struct net_if;
struct net_pkt;
/* Marks the ring valid and starts recording (the network stack's start-up calls it). */
void net_capture_init(void);
/* Records the frame in pkt (from its start) as seen on iface. */
void net_capture_pkt(struct net_if *iface, struct net_pkt *pkt, enum net_capture_dir dir);
void net_capture_enable(bool on);
/* Prints the ring, oldest first. */
void net_capture_dump(void);

#endif
