/* net_buf.c: buffer pools and the buffer operations the network and USB stacks build on. */
#include <string.h>

#include "net/net_buf.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_buf, LOG_LEVEL_WRN);

void net_buf_pool_init(struct net_buf_pool *pool)
{
	k_fifo_init(&pool->free);
	for (uint16_t i = 0; i < pool->count; i++) {
		struct net_buf *buf = &pool->bufs[i];
		buf->pool = pool;
		buf->__buf = pool->storage + (size_t)i * pool->buf_size;
		buf->size = pool->buf_size;
		k_fifo_put(&pool->free, buf);
	}
	pool->avail = pool->min_avail = pool->count;
}

struct net_buf *net_buf_alloc(struct net_buf_pool *pool, k_timeout_t timeout)
{
	struct net_buf *buf = k_fifo_get(&pool->free, timeout);
	if (unlikely(!buf)) {
		pool->alloc_failures++;
		LOG_DBG("%s: no buffer", pool->name);
		return NULL;
	}
	unsigned key = irq_lock();
	pool->avail--;
	if (pool->avail < pool->min_avail)
		pool->min_avail = pool->avail;
	irq_unlock(key);
	buf->ref = 1;
	buf->flags = 0;
	memset(buf->user_data, 0, sizeof(buf->user_data));
	buf->frags = NULL;
	buf->data = buf->__buf;
	buf->len = 0;
	LOG_DBG("%s: alloc %p", pool->name, buf);
	return buf;
}

struct net_buf *net_buf_ref(struct net_buf *buf)
{
	buf->ref++;
	return buf;
}

static void net_buf_free(struct net_buf *buf)
{
	struct net_buf_pool *pool = buf->pool;
	unsigned key = irq_lock();
	pool->avail++;
	irq_unlock(key);
	k_fifo_put(&pool->free, buf);
}

void net_buf_unref(struct net_buf *buf)
{
	while (buf) {
		struct net_buf *frags = buf->frags;
		if (unlikely(buf->ref == 0))
			k_panic("net_buf: double free");
		if (--buf->ref > 0)
			return;
		LOG_DBG("%s: free %p", buf->pool->name, buf);
		buf->frags = NULL;
		net_buf_free(buf);
		buf = frags;
	}
}

void net_buf_reserve(struct net_buf *buf, size_t headroom)
{
	buf->data = buf->__buf + headroom;
}

size_t net_buf_headroom(const struct net_buf *buf)
{
	return (size_t)(buf->data - buf->__buf);
}

size_t net_buf_tailroom(const struct net_buf *buf)
{
	return buf->size - net_buf_headroom(buf) - buf->len;
}

void *net_buf_add(struct net_buf *buf, size_t len)
{
	uint8_t *tail = net_buf_tail(buf);
	if (unlikely(len > net_buf_tailroom(buf)))
		k_panic("net_buf_add: no tailroom");
	buf->len += (uint16_t)len;
	return tail;
}

void *net_buf_add_mem(struct net_buf *buf, const void *mem, size_t len)
{
	return memcpy(net_buf_add(buf, len), mem, len);
}

void *net_buf_push(struct net_buf *buf, size_t len)
{
	if (unlikely(len > net_buf_headroom(buf)))
		k_panic("net_buf_push: no headroom");
	buf->data -= len;
	buf->len += (uint16_t)len;
	return buf->data;
}

void *net_buf_pull(struct net_buf *buf, size_t len)
{
	if (unlikely(len > buf->len))
		k_panic("net_buf_pull: beyond the data");
	buf->len -= (uint16_t)len;
	buf->data += len;
	return buf->data;
}

struct net_buf *net_buf_frag_last(struct net_buf *buf)
{
	while (buf->frags)
		buf = buf->frags;
	return buf;
}

void net_buf_frag_insert(struct net_buf *parent, struct net_buf *frag)
{
	if (parent->frags)
		net_buf_frag_last(frag)->frags = parent->frags;
	parent->frags = frag;
}

void net_buf_frag_add(struct net_buf *head, struct net_buf *frag)
{
	net_buf_frag_insert(net_buf_frag_last(head), frag);
}

struct net_buf *net_buf_frag_del(struct net_buf *parent, struct net_buf *frag)
{
	struct net_buf *next = frag->frags;
	if (parent)
		parent->frags = next;
	frag->frags = NULL;
	net_buf_unref(frag);
	return next;
}

size_t net_buf_frags_len(const struct net_buf *buf)
{
	size_t len = 0;
	for (; buf; buf = buf->frags)
		len += buf->len;
	return len;
}
