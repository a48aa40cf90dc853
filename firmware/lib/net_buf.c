/* net_buf.c: buffer pools and the buffer operations the network and USB stacks build on. */
#include <string.h>

#include "net/net_buf.h"
#include "sys/log.h"
#include "sys/assert.h"

LOG_MODULE_REGISTER(net_buf, LOG_LEVEL_WRN);

/* ---- Data allocators ---- */

static uint8_t *fixed_data_alloc(struct net_buf *buf, size_t *size, k_timeout_t timeout)
{
	struct net_buf_pool_fixed *fixed = buf->pool->alloc->alloc_data;
	UNUSED(timeout);
	/* Each buffer header owns the slice with its own index. */
	*size = fixed->data_size;
	return fixed->data_pool + fixed->data_size * (size_t)(buf - buf->pool->bufs);
}

static void fixed_data_unref(struct net_buf *buf, uint8_t *data)
{
	UNUSED(buf);
	UNUSED(data); /* the slice stays with its header */
}

const struct net_buf_data_cb net_buf_fixed_cb = {
	.alloc = fixed_data_alloc,
	.unref = fixed_data_unref,
};

static uint8_t *var_data_alloc(struct net_buf *buf, size_t *size, k_timeout_t timeout)
{
	struct sys_mem_blocks *mb = buf->pool->alloc->alloc_data;
	UNUSED(timeout); /* blocks are freed only with buffers: waiting is done for headers */
	if (*size == 0)
		return NULL;
	unsigned key = irq_lock();
	size_t allocated;
	uint8_t *data = sys_mem_blocks_alloc_contiguous(mb, *size, &allocated);
	irq_unlock(key);
	if (data)
		*size = allocated;
	return data;
}

static void var_data_unref(struct net_buf *buf, uint8_t *data)
{
	struct sys_mem_blocks *mb = buf->pool->alloc->alloc_data;
	if (!data)
		return;
	unsigned key = irq_lock();
	sys_mem_blocks_free_contiguous(mb, data, buf->size);
	irq_unlock(key);
}

const struct net_buf_data_cb net_buf_var_cb = {
	.alloc = var_data_alloc,
	.unref = var_data_unref,
};

/* ---- Pools ---- */

void net_buf_pool_init(struct net_buf_pool *pool)
{
	k_lifo_init(&pool->free);
	for (uint16_t i = 0; i < pool->count; i++) {
		struct net_buf *buf = &pool->bufs[i];
		buf->pool = pool;
		buf->__buf = NULL;
		buf->size = 0;
		k_lifo_put(&pool->free, buf);
	}
	pool->avail = pool->min_avail = pool->count;
}

static void net_buf_free_header(struct net_buf *buf)
{
	struct net_buf_pool *pool = buf->pool;
	unsigned key = irq_lock();
	pool->avail++;
	irq_unlock(key);
	k_lifo_put(&pool->free, buf);
}

struct net_buf *net_buf_alloc_len(struct net_buf_pool *pool, size_t size, k_timeout_t timeout)
{
	/* A free header is taken without reading the clock; only a wait needs the deadline. */
	k_timeout_t left = timeout;
	struct net_buf *buf = k_lifo_get(&pool->free, K_NO_WAIT);
	if (!buf && !k_timeout_is_no_wait(timeout)) {
		k_timepoint_t deadline = sys_timepoint_calc(timeout);
		buf = k_lifo_get(&pool->free, timeout);
		left = sys_timepoint_timeout(deadline);
	}
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

	buf->__buf = NULL;
	buf->size = 0;
	if (size) {
		uint8_t *data = pool->alloc->cb->alloc(buf, &size, left);
		if (!data) {
			pool->alloc_failures++;
			LOG_DBG("%s: no room for %u bytes", pool->name, (unsigned)size);
			net_buf_free_header(buf);
			return NULL;
		}
		buf->__buf = data;
		buf->size = (uint16_t)size;
	}
	buf->ref = 1;
	buf->flags = 0;
	buf->frags = NULL;
	buf->data = buf->__buf;
	buf->len = 0;
	memset(buf->user_data, 0, sizeof(buf->user_data));
	LOG_DBG("%s: alloc %p (%u bytes)", pool->name, buf, (unsigned)buf->size);
	return buf;
}

struct net_buf *net_buf_alloc(struct net_buf_pool *pool, k_timeout_t timeout)
{
	return net_buf_alloc_len(pool, pool->alloc->max_alloc_size, timeout);
}

/* References may be taken and dropped by different threads (a chain shared by shallow
 * clones), so the count changes with interrupts locked. */
struct net_buf *net_buf_ref(struct net_buf *buf)
{
	__ASSERT_NO_MSG(buf != NULL && buf->pool != NULL);
	unsigned key = irq_lock();
	buf->ref++;
	irq_unlock(key);
	return buf;
}

void net_buf_unref(struct net_buf *buf)
{
	while (buf) {
		struct net_buf *frags = buf->frags;
		__ASSERT_NO_MSG(buf->pool != NULL);
		unsigned key = irq_lock();
		if (unlikely(buf->ref == 0))
			k_panic("net_buf: double free");
		uint8_t ref = --buf->ref;
		irq_unlock(key);
		if (ref > 0)
			return;
		LOG_DBG("%s: free %p", buf->pool->name, buf);
		buf->frags = NULL;
		buf->pool->alloc->cb->unref(buf, buf->__buf);
		buf->__buf = NULL;
		net_buf_free_header(buf);
		buf = frags;
	}
}

void net_buf_reserve(struct net_buf *buf, size_t headroom)
{
	net_buf_simple_reserve(&buf->b, headroom);
}

size_t net_buf_headroom(const struct net_buf *buf)
{
	return net_buf_simple_headroom(&buf->b);
}

size_t net_buf_tailroom(const struct net_buf *buf)
{
	return net_buf_simple_tailroom(&buf->b);
}

void *net_buf_add(struct net_buf *buf, size_t len)
{
	return net_buf_simple_add(&buf->b, len);
}

void *net_buf_add_mem(struct net_buf *buf, const void *mem, size_t len)
{
	return net_buf_simple_add_mem(&buf->b, mem, len);
}

void *net_buf_push(struct net_buf *buf, size_t len)
{
	return net_buf_simple_push(&buf->b, len);
}

void *net_buf_pull(struct net_buf *buf, size_t len)
{
	return net_buf_simple_pull(&buf->b, len);
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
