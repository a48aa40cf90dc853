/* net_buf_simple.c: operations on a buffer's data part: adding at the end, pushing in
 * front, pulling from the front, with the room checks every caller relies on. */
#include <string.h>

#include "kernel/kernel.h"
#include "net/net_buf.h"
#include "sys/assert.h"

void net_buf_simple_init(struct net_buf_simple *b, size_t headroom)
{
	b->len = 0;
	b->data = b->__buf + headroom;
}

void net_buf_simple_reserve(struct net_buf_simple *b, size_t headroom)
{
	b->data = b->__buf + headroom;
}

size_t net_buf_simple_headroom(const struct net_buf_simple *b)
{
	return (size_t)(b->data - b->__buf);
}

size_t net_buf_simple_tailroom(const struct net_buf_simple *b)
{
	return b->size - net_buf_simple_headroom(b) - b->len;
}

void *net_buf_simple_add(struct net_buf_simple *b, size_t len)
{
	__ASSERT_NO_MSG(b != NULL && (len == 0 || b->data != NULL));
	uint8_t *tail = b->data + b->len;
	if (unlikely(len > net_buf_simple_tailroom(b)))
		k_panic("net_buf: no tailroom");
	b->len += (uint16_t)len;
	return tail;
}

void *net_buf_simple_add_mem(struct net_buf_simple *b, const void *mem, size_t len)
{
	return memcpy(net_buf_simple_add(b, len), mem, len);
}

void *net_buf_simple_push(struct net_buf_simple *b, size_t len)
{
	__ASSERT_NO_MSG(b != NULL && (len == 0 || b->data != NULL));
	if (unlikely(len > net_buf_simple_headroom(b)))
		k_panic("net_buf: no headroom");
	b->data -= len;
	b->len += (uint16_t)len;
	return b->data;
}

void *net_buf_simple_pull(struct net_buf_simple *b, size_t len)
{
	__ASSERT_NO_MSG(b != NULL && (len == 0 || b->data != NULL));
	if (unlikely(len > b->len))
		k_panic("net_buf: pull beyond the data");
	b->len -= (uint16_t)len;
	b->data += len;
	return b->data;
}
