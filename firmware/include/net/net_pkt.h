/* net_pkt.h: network packets: metadata plus a chain of net_buf fragments, read and written
 * through a cursor that walks the chain. */
#ifndef NET_NET_PKT_H
#define NET_NET_PKT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/kernel.h"
#include "net/net_buf.h"
#include "net/net_ip.h"
#include "net/net_stats.h"

struct net_if;
struct net_context;

struct net_linkaddr {
	uint8_t *addr;
	uint8_t len;
};

struct net_pkt_cursor {
	struct net_buf *buf; /* the fragment the cursor is in */
	uint8_t *pos;        /* the next byte to read or write */
};

struct net_pkt {
	sys_snode_t node; /* first: FIFO link (RX queue, socket queues, ARP pending list) */
	struct net_buf *buffer;
	struct net_pkt_cursor cursor;
	struct k_mem_slab *slab; /* where it came from */
	struct net_if *iface;
	struct net_context *context;
	struct net_linkaddr lladdr_src, lladdr_dst;
	uint16_t ll_proto_type; /* Ethertype, host order */
	uint8_t ref;
	uint8_t family;
	uint8_t ip_hdr_len;
	uint8_t ip_proto;
	uint8_t ipv4_ttl;
	uint8_t priority; /* 0 (background) .. 7 (network control); picks the traffic class */
	uint8_t overwrite : 1; /* writes replace data instead of appending */
	uint8_t is_rx : 1;
	uint8_t forwarding : 1;
	uint8_t tx_timestamp : 1; /* its context wants to hear when it has been sent */
	uint16_t appdata_offset; /* where the payload starts, for sockets */
	uint16_t appdata_len;
	uint32_t timestamp;      /* k_cycle_get_32() at reception or creation */
	uint32_t queued_us;      /* when it entered its traffic class queue */
	uint32_t tskey;          /* its number among the context's timestamped datagrams */
	uint16_t stats_tick[NET_STATS_TIME_STAGES]; /* us since timestamp at each stage */
	uint8_t stats_tick_count;
};

/* A data access: net_pkt_get_data returns a pointer to size contiguous bytes at the cursor,
 * into the buffer when they are contiguous there, else copied into data. */
struct net_pkt_data_access {
	void *data;  /* local storage for a copy */
	size_t size;
	void *ptr;   /* what net_pkt_get_data returned */
};

#define NET_PKT_DATA_ACCESS_DEFINE(name, type) \
	type name##_storage;                   \
	struct net_pkt_data_access name = {.data = &name##_storage, .size = sizeof(type)}

/* Packet and fragment pools; net_pkt_init sets them up. */
void net_pkt_init(void);

/* A packet for iface with enough buffer space for size payload bytes plus the headers of
 * family/proto and of the link layer. NULL when the pools stayed empty for timeout. */
struct net_pkt *net_pkt_alloc_with_buffer(struct net_if *iface, size_t size, uint8_t family,
					  uint8_t proto, k_timeout_t timeout);
/* The same from the receive pools, for exactly size bytes (no header room). */
struct net_pkt *net_pkt_rx_alloc_with_buffer(struct net_if *iface, size_t size, uint8_t family,
					     uint8_t proto, k_timeout_t timeout);
/* A second packet over the same data (Zephyr's net_pkt_shallow_clone): new metadata and
 * cursor, the fragment chain shared (one more reference on it). Neither packet may change
 * the data or the chain afterwards; the chain goes back to the pool with the last of them.
 * NULL when no packet was free within timeout. */
struct net_pkt *net_pkt_shallow_clone(struct net_pkt *pkt, k_timeout_t timeout);
/* A copy of pkt (data and metadata) from the receive pools, for another interface. */
struct net_pkt *net_pkt_rx_clone(struct net_pkt *pkt, k_timeout_t timeout);
/* A bare fragment for pkt's direction (headers added in front of a packet). */
struct net_buf *net_pkt_get_frag(struct net_pkt *pkt, size_t min_len, k_timeout_t timeout);
/* Adds frag in front of pkt's buffer chain. */
void net_pkt_frag_insert(struct net_pkt *pkt, struct net_buf *frag);

struct net_pkt *net_pkt_ref(struct net_pkt *pkt);
void net_pkt_unref(struct net_pkt *pkt);

/* ---- Cursor ---- */
void net_pkt_cursor_init(struct net_pkt *pkt);
static inline void net_pkt_cursor_backup(const struct net_pkt *pkt, struct net_pkt_cursor *b)
{
	*b = pkt->cursor;
}
static inline void net_pkt_cursor_restore(struct net_pkt *pkt, const struct net_pkt_cursor *b)
{
	pkt->cursor = *b;
}
static inline void net_pkt_set_overwrite(struct net_pkt *pkt, bool overwrite)
{
	pkt->overwrite = overwrite;
}
/* Puts the cursor offset bytes from the start, for reading or overwriting (sets overwrite
 * mode). 0 or -ENOBUFS. */
int net_pkt_seek(struct net_pkt *pkt, size_t offset);
/* Offset of the cursor from the start of the packet. */
size_t net_pkt_get_current_offset(const struct net_pkt *pkt);
/* Bytes from the cursor to the end. */
size_t net_pkt_remaining_data(const struct net_pkt *pkt);
/* Total bytes. */
size_t net_pkt_get_len(const struct net_pkt *pkt);
/* Room left for appending. */
size_t net_pkt_available_buffer(const struct net_pkt *pkt);

/* All return 0 or -ENOBUFS (not enough data, or room to write). */
int net_pkt_skip(struct net_pkt *pkt, size_t len);
int net_pkt_read(struct net_pkt *pkt, void *data, size_t len);
int net_pkt_read_u8(struct net_pkt *pkt, uint8_t *v);
int net_pkt_read_be16(struct net_pkt *pkt, uint16_t *v);
int net_pkt_read_be32(struct net_pkt *pkt, uint32_t *v);
int net_pkt_write(struct net_pkt *pkt, const void *data, size_t len);
int net_pkt_write_u8(struct net_pkt *pkt, uint8_t v);
int net_pkt_write_be16(struct net_pkt *pkt, uint16_t v);
int net_pkt_write_be32(struct net_pkt *pkt, uint32_t v);
int net_pkt_memset(struct net_pkt *pkt, int byte, size_t len);
/* Appending: the contiguous room at the cursor (its fragment's tail), for the caller to
 * fill and then claim with net_pkt_skip. Returns how many bytes, 0 when there is none. */
size_t net_pkt_write_window(struct net_pkt *pkt, uint8_t **ptr);
/* Copies len bytes from src's cursor to dst's cursor (both advance). */
int net_pkt_copy(struct net_pkt *dst, struct net_pkt *src, size_t len);

/* Header access at the cursor (see net_pkt_data_access); NULL when the packet is too short.
 * net_pkt_set_data writes a copied header back and moves the cursor past it. */
void *net_pkt_get_data(struct net_pkt *pkt, struct net_pkt_data_access *access);
int net_pkt_set_data(struct net_pkt *pkt, struct net_pkt_data_access *access);
static inline int net_pkt_acknowledge_data(struct net_pkt *pkt,
					   struct net_pkt_data_access *access)
{
	return net_pkt_skip(pkt, access->size);
}

/* Removes len bytes from the front of the packet (a link-layer header). */
int net_pkt_pull(struct net_pkt *pkt, size_t len);
/* Shortens the packet to len bytes (drops trailing link-layer padding). */
int net_pkt_update_length(struct net_pkt *pkt, size_t len);

/* Internet checksum accumulator over the packet from the cursor to the end (the cursor
 * does not move). */
uint32_t net_pkt_chksum(struct net_pkt *pkt, uint32_t sum);

/* Pool statistics, for the shell and the stats report. */
struct net_pkt_pool_stats {
	uint16_t pkts_free, pkts_total;
	uint16_t rx_bufs_free, tx_bufs_free, bufs_total;
	uint16_t rx_bufs_min, tx_bufs_min;
	uint32_t alloc_failures;
};
void net_pkt_pool_stats(struct net_pkt_pool_stats *s);

static inline struct net_buf *net_pkt_cursor_buf(const struct net_pkt *pkt)
{
	return pkt->cursor.buf;
}

#endif
