/* mem_blocks.h: a block allocator: a buffer cut into equal blocks, with a bitmap of the
 * used ones; an allocation is a run of contiguous blocks (first fit). */
#ifndef SYS_MEM_BLOCKS_H
#define SYS_MEM_BLOCKS_H

#include <stddef.h>
#include <stdint.h>

#include "sys/util.h"

struct sys_mem_blocks {
	uint8_t *buffer;
	uint32_t *bitmap; /* bit i set: block i is used */
	uint16_t block_size;
	uint16_t num_blocks;
	uint16_t used_blocks, max_used_blocks;
	uint32_t failures;
};

#define SYS_MEM_BLOCKS_DEFINE(name, blk_size, num_blks)                                 \
	static uint8_t name##_buffer[(blk_size) * (num_blks)] __aligned(4);             \
	static uint32_t name##_bitmap[((num_blks) + 31) / 32];                           \
	struct sys_mem_blocks name = {.buffer = name##_buffer, .bitmap = name##_bitmap,   \
				      .block_size = (blk_size), .num_blocks = (num_blks)}

/* size bytes (rounded up to whole blocks) or NULL; *allocated gets the rounded size. */
void *sys_mem_blocks_alloc_contiguous(struct sys_mem_blocks *mb, size_t size, size_t *allocated);
/* Gives back the size bytes at ptr that an allocation returned. */
void sys_mem_blocks_free_contiguous(struct sys_mem_blocks *mb, void *ptr, size_t size);

#endif
