/* net_buf.h: buffers from fixed-size pools, reference counted and chainable, with a few
 * bytes of user data: the network stack's packet fragments (net_pkt.h) and the USB
 * stack's transfer buffers (drivers/udc.h). lib/net_buf.c implements them. */
#ifndef NET_NET_BUF_H
#define NET_NET_BUF_H

#include <stddef.h>
#include <stdint.h>

#include "kernel/kernel.h"

#include "sys/mem_blocks.h"

struct net_buf_pool;

/* The data part of a buffer: storage, and the valid bytes in it. Also usable alone, for
 * buffers on the stack. */
struct net_buf_simple {
	uint8_t *data;   /* first byte of valid data */
	uint16_t len;    /* valid bytes from data */
	uint16_t size;   /* bytes of storage at __buf */
	uint8_t *__buf;
};

void net_buf_simple_init(struct net_buf_simple *b, size_t headroom);
void net_buf_simple_reserve(struct net_buf_simple *b, size_t headroom);
size_t net_buf_simple_headroom(const struct net_buf_simple *b);
size_t net_buf_simple_tailroom(const struct net_buf_simple *b);
void *net_buf_simple_add(struct net_buf_simple *b, size_t len);
void *net_buf_simple_add_mem(struct net_buf_simple *b, const void *mem, size_t len);
void *net_buf_simple_push(struct net_buf_simple *b, size_t len);
void *net_buf_simple_pull(struct net_buf_simple *b, size_t len);

struct net_buf {
	sys_snode_t node; /* first: the pool's free FIFO link */
	struct net_buf *frags; /* the next fragment of the chain */
	struct net_buf_pool *pool;
	union {
		struct {
			uint8_t *data;
			uint16_t len;
			uint16_t size;
			uint8_t *__buf;
		};
		struct net_buf_simple b;
	};
	uint8_t ref;
	uint8_t flags;
	uint8_t user_data[12] __aligned(4); /* the owner's (the USB stack keeps transfer state) */
};

/* Where a pool's data comes from: a fixed slice per buffer, or variable-size runs of
 * blocks. alloc may round *size up; it returns NULL when there is no room. */
struct net_buf_data_cb {
	uint8_t *(*alloc)(struct net_buf *buf, size_t *size, k_timeout_t timeout);
	void (*unref)(struct net_buf *buf, uint8_t *data);
};

struct net_buf_data_alloc {
	const struct net_buf_data_cb *cb;
	void *alloc_data;
	size_t max_alloc_size; /* what net_buf_alloc asks for */
};

struct net_buf_pool_fixed {
	uint8_t *data_pool;
	size_t data_size;
};

extern const struct net_buf_data_cb net_buf_fixed_cb;
extern const struct net_buf_data_cb net_buf_var_cb;

struct net_buf_pool {
	const char *name;
	struct k_lifo free; /* idle buffer headers, most recently freed first */
	struct net_buf *bufs;
	const struct net_buf_data_alloc *alloc;
	uint16_t count;
	uint16_t avail;     /* free headers now */
	uint16_t min_avail; /* low-water mark, for statistics */
	uint32_t alloc_failures;
};

/* A pool of cnt buffers of sz bytes each. Call net_buf_pool_init before use. */
#ifdef CONFIG_NET_BUF_UNALIGNED
/* BUFFERS=unaligned: the storage one byte past a word boundary, as packet buffers declared
 * as plain byte arrays can land; every buffer in it is then misaligned. Placed by the
 * assembler so that the address does not depend on the linker's order. */
#define NET_BUF_STR2(x) #x
#define NET_BUF_STR(x) NET_BUF_STR2(x)
#define NET_BUF_STORAGE(name, bytes)                                                      \
	__asm__(".pushsection .bss." #name ",\"aw\",%nobits\n\t.balign 4\n\t.skip 1\n\t"   \
		".type " #name ", %object\n" #name ":\n\t.skip " NET_BUF_STR(bytes) "\n\t"     \
		".size " #name ", . - " #name "\n\t.popsection");                          \
	extern uint8_t name[]
#else
#define NET_BUF_STORAGE(name, bytes) static uint8_t name[bytes] __aligned(4)
#endif

#define NET_BUF_POOL_FIXED_DEFINE(pname, cnt, sz)                                       \
	static struct net_buf pname##_bufs[cnt];                                        \
	NET_BUF_STORAGE(pname##_storage, (cnt) * ROUND_UP(sz, 4));                      \
	static struct net_buf_pool_fixed pname##_fixed = {.data_pool = pname##_storage,  \
							   .data_size = ROUND_UP(sz, 4)}; \
	static const struct net_buf_data_alloc pname##_alloc = {                         \
		.cb = &net_buf_fixed_cb, .alloc_data = &pname##_fixed,                   \
		.max_alloc_size = ROUND_UP(sz, 4)};                                      \
	struct net_buf_pool pname = {                                                    \
		.name = #pname, .bufs = pname##_bufs, .alloc = &pname##_alloc, .count = (cnt)}
#define NET_BUF_POOL_DEFINE(pname, cnt, sz) NET_BUF_POOL_FIXED_DEFINE(pname, cnt, sz)

/* A pool of cnt buffer headers sharing data_size bytes of storage, handed out in blocks of
 * blk bytes: for buffers of very different sizes. */
#define NET_BUF_POOL_VAR_DEFINE(pname, cnt, data_size, blk)                              \
	static struct net_buf pname##_bufs[cnt];                                        \
	SYS_MEM_BLOCKS_DEFINE(pname##_blocks, blk, (data_size) / (blk));                 \
	static const struct net_buf_data_alloc pname##_alloc = {                         \
		.cb = &net_buf_var_cb, .alloc_data = &pname##_blocks,                    \
		.max_alloc_size = (data_size)};                                          \
	struct net_buf_pool pname = {                                                    \
		.name = #pname, .bufs = pname##_bufs, .alloc = &pname##_alloc, .count = (cnt)}

void net_buf_pool_init(struct net_buf_pool *pool);
static inline void *net_buf_user_data(const struct net_buf *buf)
{
	return (void *)buf->user_data;
}
/* A buffer with room for size bytes, ref 1, no data and no fragments; NULL when none (or
 * no room for its data) became free in time. */
struct net_buf *net_buf_alloc_len(struct net_buf_pool *pool, size_t size, k_timeout_t timeout);
/* The same with the pool's largest size (the fixed size of a fixed pool). */
struct net_buf *net_buf_alloc(struct net_buf_pool *pool, k_timeout_t timeout);
struct net_buf *net_buf_ref(struct net_buf *buf);
/* Drops one reference to buf and, for each buffer that reaches 0, to the rest of its
 * chain: buffers go back to their pools. */
void net_buf_unref(struct net_buf *buf);

/* Keeps headroom bytes free in front of the data (an empty buffer only). */
void net_buf_reserve(struct net_buf *buf, size_t headroom);
size_t net_buf_headroom(const struct net_buf *buf);
size_t net_buf_tailroom(const struct net_buf *buf);
static inline uint8_t *net_buf_tail(const struct net_buf *buf)
{
	return buf->data + buf->len;
}
/* Extends the data at the end / the front; returns where the new bytes go. */
void *net_buf_add(struct net_buf *buf, size_t len);
void *net_buf_add_mem(struct net_buf *buf, const void *mem, size_t len);
void *net_buf_push(struct net_buf *buf, size_t len);
/* Removes len bytes at the front; returns the new data start. */
void *net_buf_pull(struct net_buf *buf, size_t len);

/* Chains: frag (and its own chain) goes after the last fragment of head. */
struct net_buf *net_buf_frag_last(struct net_buf *buf);
void net_buf_frag_add(struct net_buf *head, struct net_buf *frag);
void net_buf_frag_insert(struct net_buf *parent, struct net_buf *frag);
/* Unlinks frag (which follows parent, or is the head when parent is NULL) and drops the
 * reference the chain held; returns the fragment after it. */
struct net_buf *net_buf_frag_del(struct net_buf *parent, struct net_buf *frag);
/* Bytes in the whole chain. */
size_t net_buf_frags_len(const struct net_buf *buf);

#endif
