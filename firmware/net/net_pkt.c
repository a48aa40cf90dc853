/* net_pkt.c: packet pools, allocation with buffers, and the cursor that reads and writes
 * across a packet's fragment chain. */
#include <string.h>

#include "net/net_if.h"
#include "net/net_pkt.h"
#include "net_private.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_pkt, LOG_LEVEL_WRN);

#define RX_PKT_COUNT 16
#define TX_PKT_COUNT 16
#define RX_BUF_COUNT 48
#define TX_BUF_COUNT 48

K_MEM_SLAB_DEFINE(rx_pkt_slab, sizeof(struct net_pkt), RX_PKT_COUNT);
K_MEM_SLAB_DEFINE(tx_pkt_slab, sizeof(struct net_pkt), TX_PKT_COUNT);
NET_BUF_POOL_DEFINE(rx_bufs, RX_BUF_COUNT, NET_BUF_DATA_SIZE);
NET_BUF_POOL_DEFINE(tx_bufs, TX_BUF_COUNT, NET_BUF_DATA_SIZE);
static uint32_t pkt_alloc_failures;

void net_pkt_init(void)
{
	k_mem_slab_init(&rx_pkt_slab);
	k_mem_slab_init(&tx_pkt_slab);
	net_buf_pool_init(&rx_bufs);
	net_buf_pool_init(&tx_bufs);
}

/* ---- Allocation ---- */

static struct net_pkt *pkt_alloc(struct k_mem_slab *slab, struct net_if *iface,
				 k_timeout_t timeout)
{
	struct net_pkt *pkt;
	if (unlikely(k_mem_slab_alloc(slab, (void **)&pkt, timeout))) {
		pkt_alloc_failures++;
		LOG_DBG("no packet");
		return NULL;
	}
	memset(pkt, 0, sizeof(*pkt));
	pkt->timestamp = k_cycle_get_32();
	pkt->slab = slab;
	pkt->ref = 1;
	pkt->iface = iface;
	pkt->is_rx = slab == &rx_pkt_slab;
	if (iface)
		pkt->ipv4_ttl = iface->ipv4.ttl;
	LOG_DBG("%s pkt %p", pkt->is_rx ? "rx" : "tx", pkt);
	return pkt;
}

/* A chain of buffers with room for size bytes, allocated within timeout. Buffers that are
 * free are taken at once; the deadline is computed (the clock read) only when one must be
 * waited for. */
static struct net_buf *pkt_alloc_buffer(struct net_buf_pool *pool, size_t size,
					k_timeout_t timeout)
{
	struct net_buf *first = NULL, *last = NULL;
	k_timepoint_t deadline;
	bool timed = false;
	while (size > 0 || !first) {
		struct net_buf *buf = net_buf_alloc(pool, K_NO_WAIT);
		if (!buf && !k_timeout_is_no_wait(timeout)) {
			if (!timed) {
				deadline = sys_timepoint_calc(timeout);
				timed = true;
			}
			buf = net_buf_alloc(pool, sys_timepoint_timeout(deadline));
		}
		if (!buf) {
			if (first)
				net_buf_unref(first);
			return NULL;
		}
		if (!first)
			first = buf;
		else
			last->frags = buf;
		last = buf;
		size -= MIN(size, buf->size);
	}
	return first;
}

/* Header bytes a family and protocol need in front of the payload. */
static size_t pkt_hdr_len(uint8_t family, uint8_t proto)
{
	size_t len = 0;
	if (family == AF_INET)
		len += NET_IPV4_HDR_LEN;
	if (proto == IPPROTO_UDP)
		len += NET_UDPH_LEN;
	else if (proto == IPPROTO_ICMP)
		len += NET_ICMPH_LEN + 4; /* echo: id and sequence */
	else if (proto == IPPROTO_IGMP)
		len += NET_IGMPH_LEN;
	return len;
}

static struct net_pkt *pkt_alloc_with_buffer(struct k_mem_slab *slab, struct net_buf_pool *pool,
					     struct net_if *iface, size_t size, uint8_t family,
					     uint8_t proto, k_timeout_t timeout)
{
	/* The packet's wait and its buffers' count against one timeout. */
	uint32_t start = k_timeout_is_no_wait(timeout) || k_timeout_is_forever(timeout)
				 ? 0
				 : k_cycle_get_32();
	struct net_pkt *pkt = pkt_alloc(slab, iface, timeout);
	if (!pkt)
		return NULL;
	pkt->family = family;
	pkt->ip_proto = proto;
	uint32_t waited_us = start ? k_cycle_get_32() - start : 0;
	if (waited_us >= K_USEC_PER_TICK) {
		/* What is left of the timeout after the wait for the packet (whole ticks). */
		k_ticks_t waited = (k_ticks_t)(waited_us / K_USEC_PER_TICK);
		timeout.ticks = timeout.ticks > waited ? timeout.ticks - waited : 0;
	}
	pkt->buffer = pkt_alloc_buffer(pool, size, timeout);
	if (!pkt->buffer) {
		LOG_DBG("pkt %p: no buffers for %u bytes", pkt, (unsigned)size);
		net_pkt_unref(pkt);
		return NULL;
	}
	net_pkt_cursor_init(pkt);
	LOG_DBG("pkt %p: %u bytes in %u buffers", pkt, (unsigned)size,
		(unsigned)(size + NET_BUF_DATA_SIZE - 1) / NET_BUF_DATA_SIZE);
	return pkt;
}

struct net_pkt *net_pkt_alloc_with_buffer(struct net_if *iface, size_t size, uint8_t family,
					  uint8_t proto, k_timeout_t timeout)
{
	size_t hdr = pkt_hdr_len(family, proto);
	if (iface && size + hdr > iface->mtu)
		size = iface->mtu > hdr ? iface->mtu - hdr : 0;
	return pkt_alloc_with_buffer(&tx_pkt_slab, &tx_bufs, iface, size + hdr, family, proto,
				     timeout);
}

struct net_pkt *net_pkt_rx_alloc_with_buffer(struct net_if *iface, size_t size, uint8_t family,
					     uint8_t proto, k_timeout_t timeout)
{
	return pkt_alloc_with_buffer(&rx_pkt_slab, &rx_bufs, iface, size, family, proto, timeout);
}

struct net_pkt *net_pkt_shallow_clone(struct net_pkt *pkt, k_timeout_t timeout)
{
	struct net_pkt *clone = pkt_alloc(pkt->slab, pkt->iface, timeout);
	if (!clone)
		return NULL;
	clone->buffer = net_buf_ref(pkt->buffer);
	clone->family = pkt->family;
	clone->ip_proto = pkt->ip_proto;
	clone->ip_hdr_len = pkt->ip_hdr_len;
	clone->ipv4_ttl = pkt->ipv4_ttl;
	clone->priority = pkt->priority;
	clone->ll_proto_type = pkt->ll_proto_type;
	clone->lladdr_src = pkt->lladdr_src;
	clone->lladdr_dst = pkt->lladdr_dst;
	clone->timestamp = pkt->timestamp;
	clone->overwrite = true; /* it may only be read */
	net_pkt_cursor_init(clone);
	return clone;
}

struct net_pkt *net_pkt_rx_clone(struct net_pkt *pkt, k_timeout_t timeout)
{
	size_t len = net_pkt_get_len(pkt);
	struct net_pkt *clone = pkt_alloc_with_buffer(&rx_pkt_slab, &rx_bufs, pkt->iface, len,
						      pkt->family, pkt->ip_proto, timeout);
	if (!clone)
		return NULL;
	struct net_pkt_cursor backup;
	bool overwrite = pkt->overwrite;
	net_pkt_cursor_backup(pkt, &backup);
	net_pkt_seek(pkt, 0);
	int ret = net_pkt_copy(clone, pkt, len);
	net_pkt_cursor_restore(pkt, &backup);
	net_pkt_set_overwrite(pkt, overwrite);
	if (ret) {
		net_pkt_unref(clone);
		return NULL;
	}
	clone->priority = pkt->priority;
	clone->ll_proto_type = pkt->ll_proto_type;
	clone->ip_hdr_len = pkt->ip_hdr_len;
	clone->timestamp = pkt->timestamp;
	net_pkt_cursor_init(clone);
	return clone;
}

struct net_buf *net_pkt_get_frag(struct net_pkt *pkt, size_t min_len, k_timeout_t timeout)
{
	struct net_buf_pool *pool = pkt->is_rx ? &rx_bufs : &tx_bufs;
	if (min_len > pool->alloc->max_alloc_size)
		return NULL;
	return net_buf_alloc(pool, timeout);
}

void net_pkt_frag_insert(struct net_pkt *pkt, struct net_buf *frag)
{
	net_buf_frag_last(frag)->frags = pkt->buffer;
	pkt->buffer = frag;
	net_pkt_cursor_init(pkt);
}

struct net_pkt *net_pkt_ref(struct net_pkt *pkt)
{
	unsigned key = irq_lock();
	pkt->ref++;
	irq_unlock(key);
	return pkt;
}

void net_pkt_unref(struct net_pkt *pkt)
{
	unsigned key = irq_lock();
	if (unlikely(pkt->ref == 0))
		k_panic("net_pkt: double free");
	uint8_t ref = --pkt->ref;
	irq_unlock(key);
	if (ref > 0)
		return;
	LOG_DBG("free pkt %p", pkt);
	if (pkt->buffer)
		net_buf_unref(pkt->buffer);
	pkt->buffer = NULL;
	k_mem_slab_free(pkt->slab, pkt);
}

/* ---- Cursor ---- */

void net_pkt_cursor_init(struct net_pkt *pkt)
{
	pkt->cursor.buf = pkt->buffer;
	pkt->cursor.pos = pkt->buffer ? pkt->buffer->data : NULL;
}

/* How far the cursor may go in its fragment: the data for reads and overwrites, the
 * storage for appending writes. */
static size_t cursor_limit(const struct net_pkt *pkt, bool write)
{
	const struct net_buf *buf = pkt->cursor.buf;
	if (write && !pkt->overwrite)
		return buf->size - net_buf_headroom(buf);
	return buf->len;
}

/* At the end of a fragment: on to the next one that has data (or room). */
static void cursor_update(struct net_pkt *pkt, bool write)
{
	struct net_pkt_cursor *c = &pkt->cursor;
	while (c->buf && (size_t)(c->pos - c->buf->data) >= cursor_limit(pkt, write)) {
		c->buf = c->buf->frags;
		if (c->buf)
			c->pos = write && !pkt->overwrite ? net_buf_tail(c->buf) : c->buf->data;
	}
	if (!c->buf)
		c->pos = NULL;
}

/* The one loop behind reads, writes, skips and fills: data is copied when copy is set,
 * else (if given) its first byte fills. */
static int cursor_operate(struct net_pkt *pkt, void *data, size_t length, bool copy, bool write)
{
	struct net_pkt_cursor *c = &pkt->cursor;
	uint8_t *d = data;
	while (length) {
		cursor_update(pkt, write);
		if (!c->buf)
			break;
		size_t room = cursor_limit(pkt, write) - (size_t)(c->pos - c->buf->data);
		size_t len = MIN(length, room);
		if (copy) {
			if (write)
				memcpy(c->pos, d, len);
			else
				memcpy(d, c->pos, len);
			d += len;
		} else if (d) {
			memset(c->pos, *d, len);
		}
		if (write && !pkt->overwrite)
			c->buf->len += (uint16_t)len;
		c->pos += len;
		length -= len;
	}
	cursor_update(pkt, write);
	return length ? -ENOBUFS : 0;
}

int net_pkt_skip(struct net_pkt *pkt, size_t len)
{
	return cursor_operate(pkt, NULL, len, false, true);
}

int net_pkt_memset(struct net_pkt *pkt, int byte, size_t len)
{
	uint8_t b = (uint8_t)byte;
	return cursor_operate(pkt, &b, len, false, true);
}

int net_pkt_read(struct net_pkt *pkt, void *data, size_t len)
{
	return cursor_operate(pkt, data, len, true, false);
}

int net_pkt_read_u8(struct net_pkt *pkt, uint8_t *v)
{
	return net_pkt_read(pkt, v, 1);
}

int net_pkt_read_be16(struct net_pkt *pkt, uint16_t *v)
{
	uint8_t b[2];
	int ret = net_pkt_read(pkt, b, sizeof(b));
	*v = sys_get_be16(b);
	return ret;
}

int net_pkt_read_be32(struct net_pkt *pkt, uint32_t *v)
{
	uint8_t b[4];
	int ret = net_pkt_read(pkt, b, sizeof(b));
	*v = sys_get_be32(b);
	return ret;
}

int net_pkt_write(struct net_pkt *pkt, const void *data, size_t len)
{
	return cursor_operate(pkt, (void *)data, len, true, true);
}

int net_pkt_write_u8(struct net_pkt *pkt, uint8_t v)
{
	return net_pkt_write(pkt, &v, 1);
}

int net_pkt_write_be16(struct net_pkt *pkt, uint16_t v)
{
	uint8_t b[2];
	sys_put_be16(v, b);
	return net_pkt_write(pkt, b, sizeof(b));
}

int net_pkt_write_be32(struct net_pkt *pkt, uint32_t v)
{
	uint8_t b[4];
	sys_put_be32(v, b);
	return net_pkt_write(pkt, b, sizeof(b));
}

size_t net_pkt_write_window(struct net_pkt *pkt, uint8_t **ptr)
{
	struct net_pkt_cursor *c = &pkt->cursor;
	cursor_update(pkt, true);
	if (!c->buf || pkt->overwrite)
		return 0;
	*ptr = c->pos;
	return cursor_limit(pkt, true) - (size_t)(c->pos - c->buf->data);
}

int net_pkt_copy(struct net_pkt *dst, struct net_pkt *src, size_t len)
{
	while (len) {
		cursor_update(src, false);
		if (!src->cursor.buf)
			return -ENOBUFS;
		size_t run = src->cursor.buf->len - (size_t)(src->cursor.pos - src->cursor.buf->data);
		run = MIN(run, len);
		if (net_pkt_write(dst, src->cursor.pos, run))
			return -ENOBUFS;
		src->cursor.pos += run;
		len -= run;
	}
	cursor_update(src, false);
	return 0;
}

int net_pkt_seek(struct net_pkt *pkt, size_t offset)
{
	net_pkt_set_overwrite(pkt, true);
	net_pkt_cursor_init(pkt);
	return net_pkt_skip(pkt, offset);
}

size_t net_pkt_get_len(const struct net_pkt *pkt)
{
	return net_buf_frags_len(pkt->buffer);
}

size_t net_pkt_get_current_offset(const struct net_pkt *pkt)
{
	size_t off = 0;
	for (const struct net_buf *b = pkt->buffer; b && b != pkt->cursor.buf; b = b->frags)
		off += b->len;
	if (pkt->cursor.buf)
		off += (size_t)(pkt->cursor.pos - pkt->cursor.buf->data);
	return off;
}

size_t net_pkt_remaining_data(const struct net_pkt *pkt)
{
	const struct net_buf *b = pkt->cursor.buf;
	if (!b)
		return 0;
	size_t len = b->len - (size_t)(pkt->cursor.pos - b->data);
	for (b = b->frags; b; b = b->frags)
		len += b->len;
	return len;
}

size_t net_pkt_available_buffer(const struct net_pkt *pkt)
{
	size_t room = 0;
	for (const struct net_buf *b = pkt->buffer; b; b = b->frags)
		room += net_buf_tailroom(b);
	return room;
}

void *net_pkt_get_data(struct net_pkt *pkt, struct net_pkt_data_access *access)
{
	bool write = !pkt->overwrite;
	cursor_update(pkt, write);
	struct net_pkt_cursor *c = &pkt->cursor;
	if (!c->buf)
		return NULL;
	size_t room = cursor_limit(pkt, write) - (size_t)(c->pos - c->buf->data);
	if (room >= access->size) {
		access->ptr = c->pos; /* contiguous: work in place */
		return access->ptr;
	}
	if (pkt->overwrite) {
		struct net_pkt_cursor backup = pkt->cursor;
		int ret = net_pkt_read(pkt, access->data, access->size);
		pkt->cursor = backup;
		if (ret)
			return NULL;
	}
	access->ptr = access->data;
	return access->ptr;
}

int net_pkt_set_data(struct net_pkt *pkt, struct net_pkt_data_access *access)
{
	if (access->ptr == access->data)
		return net_pkt_write(pkt, access->data, access->size);
	return net_pkt_skip(pkt, access->size);
}

int net_pkt_pull(struct net_pkt *pkt, size_t len)
{
	while (len && pkt->buffer) {
		struct net_buf *buf = pkt->buffer;
		size_t n = MIN(len, (size_t)buf->len);
		net_buf_pull(buf, n);
		len -= n;
		if (buf->len == 0 && buf->frags)
			pkt->buffer = net_buf_frag_del(NULL, buf);
	}
	net_pkt_cursor_init(pkt);
	return len ? -ENOBUFS : 0;
}

int net_pkt_update_length(struct net_pkt *pkt, size_t len)
{
	for (struct net_buf *b = pkt->buffer; b;) {
		if (b->len <= len) {
			len -= b->len;
			b = b->frags;
			continue;
		}
		b->len = (uint16_t)len;
		len = 0;
		/* Everything after the new end goes back to the pool. */
		if (b->frags) {
			net_buf_unref(b->frags);
			b->frags = NULL;
		}
		break;
	}
	net_pkt_cursor_init(pkt);
	return len ? -EINVAL : 0;
}

void net_pkt_pool_stats(struct net_pkt_pool_stats *s)
{
	s->pkts_free = (uint16_t)(k_mem_slab_num_free_get(&rx_pkt_slab) +
				  k_mem_slab_num_free_get(&tx_pkt_slab));
	s->pkts_total = RX_PKT_COUNT + TX_PKT_COUNT;
	s->rx_bufs_free = rx_bufs.avail;
	s->tx_bufs_free = tx_bufs.avail;
	s->rx_bufs_min = rx_bufs.min_avail;
	s->tx_bufs_min = tx_bufs.min_avail;
	s->bufs_total = RX_BUF_COUNT + TX_BUF_COUNT;
	s->alloc_failures = pkt_alloc_failures + rx_bufs.alloc_failures + tx_bufs.alloc_failures;
}
