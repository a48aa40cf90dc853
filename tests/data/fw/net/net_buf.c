/* net_buf.c: a fixed pool of network buffers with headroom, push/pull and FIFOs. */
#include "fw.h"

#define NET_BUF_COUNT 8

static struct net_buf pool[NET_BUF_COUNT];
static struct net_buf *free_list;
static uint8_t pool_ready;
static struct k_sem free_sem = {.count = NET_BUF_COUNT, .limit = NET_BUF_COUNT};
static uint32_t alloc_failures;

static void pool_init(void)
{
	free_list = NULL;
	for (int i = NET_BUF_COUNT - 1; i >= 0; i--) {
		pool[i].next = free_list;
		free_list = &pool[i];
	}
	pool_ready = 1;
}

struct net_buf *net_buf_alloc(int32_t timeout_ms)
{
	if (!pool_ready)
		pool_init();
	if (k_sem_take(&free_sem, timeout_ms) != 0) {
		alloc_failures++;
		return NULL;
	}
	struct net_buf *b = free_list;
	free_list = b->next;
	b->next = NULL;
	b->ref = 1;
	b->flags = 0;
	b->size = NET_BUF_SIZE;
	b->data = b->storage;
	b->len = 0;
	return b;
}

struct net_buf *net_buf_ref(struct net_buf *b)
{
	b->ref++;
	return b;
}

void net_buf_unref(struct net_buf *b)
{
	if (--b->ref)
		return;
	b->next = free_list;
	free_list = b;
	k_sem_give(&free_sem);
}

void net_buf_reserve(struct net_buf *b, size_t headroom)
{
	b->data = b->storage + headroom;
}

size_t net_buf_headroom(const struct net_buf *b)
{
	return (size_t)(b->data - b->storage);
}

uint8_t *net_buf_add(struct net_buf *b, size_t n)
{
	uint8_t *tail = b->data + b->len;
	if (net_buf_headroom(b) + b->len + n > b->size)
		k_fatal("net_buf_add", n);
	b->len += n;
	return tail;
}

uint8_t *net_buf_push(struct net_buf *b, size_t n)
{
	if (net_buf_headroom(b) < n)
		k_fatal("net_buf_push", n);
	b->data -= n;
	b->len += n;
	return b->data;
}

uint8_t *net_buf_pull(struct net_buf *b, size_t n)
{
	if (b->len < n)
		return NULL;
	b->len -= n;
	b->data += n;
	return b->data;
}

void net_buf_put(struct net_buf **fifo, struct net_buf *b)
{
	while (*fifo)
		fifo = &(*fifo)->next;
	b->next = NULL;
	*fifo = b;
}

struct net_buf *net_buf_get(struct net_buf **fifo)
{
	struct net_buf *b = *fifo;
	if (b)
		*fifo = b->next;
	return b;
}
