/* util.h: small helpers every layer uses: sizes, containers, bits, byte order. */
#ifndef SYS_UTIL_H
#define SYS_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define CONTAINER_OF(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))
#define MIN(a, b) ((a) < (b) ? (a) : (b))
#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define BIT(n) (1u << (n))
#define ROUND_UP(x, a) (((x) + (a) - 1) / (a) * (a))
#define UNUSED(x) ((void)(x))

#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

/* picolibc's sys/cdefs.h defines some of these the same way. */
#define __noinit __attribute__((section(".noinit")))
#ifndef __aligned
#define __aligned(n) __attribute__((aligned(n)))
#endif
#ifndef __packed
#define __packed __attribute__((packed))
#endif
#ifndef __unused
#define __unused __attribute__((unused))
#endif
#ifndef __noreturn
#define __noreturn __attribute__((noreturn))
#endif
/* Code that must not run from flash (flash may be busy); placed with .data in SRAM. */
#define __ramfunc __attribute__((section(".ramfunc"), noinline))

/* Network byte order: the M0+ is little-endian. */
static inline uint16_t sys_be16(uint16_t v)
{
	return (uint16_t)((v << 8) | (v >> 8));
}

static inline uint32_t sys_be32(uint32_t v)
{
	return __builtin_bswap32(v);
}

#define htons(x) sys_be16(x)
#define ntohs(x) sys_be16(x)
#define htonl(x) sys_be32(x)
#define ntohl(x) sys_be32(x)

/* Unaligned little/big endian access to byte buffers (USB descriptors and wire headers). */
static inline uint16_t sys_get_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | (p[1] << 8));
}

static inline void sys_put_le16(uint16_t v, uint8_t *p)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void sys_put_le32(uint32_t v, uint8_t *p)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint16_t sys_get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static inline void sys_put_be16(uint16_t v, uint8_t *p)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static inline uint32_t sys_get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static inline void sys_put_be32(uint32_t v, uint8_t *p)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

#endif
