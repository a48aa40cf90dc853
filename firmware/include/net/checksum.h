/* checksum.h: the Internet checksum (RFC 1071). csum_partial has two implementations:
 * net/csum_c.c (CSUM=c, generic C) and net/csum_m0.S (CSUM=asm, Thumb assembly). */
#ifndef NET_CHECKSUM_H
#define NET_CHECKSUM_H

#include <stddef.h>
#include <stdint.h>

/* Adds buf's 16-bit big-endian words (a trailing odd byte as the high byte of a word) to
 * sum. Returns an unfolded accumulator that stays valid for at least 64 KB of input more
 * when sum < 0x10000. */
uint32_t csum_partial(const void *buf, size_t len, uint32_t sum);

/* Folds an accumulator to 16 bits (ones' complement sum, not yet inverted). */
static inline uint16_t csum_fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xFFFFu) + (sum >> 16);
	return (uint16_t)sum;
}

/* The checksum field's value for data whose accumulator is sum (host order). */
static inline uint16_t csum_finish(uint32_t sum)
{
	uint16_t s = (uint16_t)~csum_fold(sum);
	return s;
}

#endif
