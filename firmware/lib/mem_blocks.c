/* mem_blocks.c: the block allocator: first-fit runs of free blocks in a bitmap. Callers
 * lock around it (the net_buf variable-size pools do). */
#include "sys/mem_blocks.h"

static bool block_used(const struct sys_mem_blocks *mb, unsigned i)
{
	return (mb->bitmap[i / 32] >> (i % 32)) & 1u;
}

static void mark_run(struct sys_mem_blocks *mb, unsigned first, unsigned n, bool used)
{
	for (unsigned i = first; i < first + n; i++) {
		uint32_t bit = 1u << (i % 32);
		if (used)
			mb->bitmap[i / 32] |= bit;
		else
			mb->bitmap[i / 32] &= ~bit;
	}
}

void *sys_mem_blocks_alloc_contiguous(struct sys_mem_blocks *mb, size_t size, size_t *allocated)
{
	unsigned need = (unsigned)((size + mb->block_size - 1) / mb->block_size);
	if (need == 0)
		need = 1;
	unsigned run = 0;
	for (unsigned i = 0; i < mb->num_blocks; i++) {
		/* A whole word of used blocks is skipped at once. */
		if (i % 32 == 0 && mb->bitmap[i / 32] == 0xFFFFFFFFu && i + 32 <= mb->num_blocks) {
			run = 0;
			i += 31;
			continue;
		}
		if (block_used(mb, i)) {
			run = 0;
			continue;
		}
		if (++run == need) {
			unsigned first = i + 1 - need;
			mark_run(mb, first, need, true);
			mb->used_blocks = (uint16_t)(mb->used_blocks + need);
			if (mb->used_blocks > mb->max_used_blocks)
				mb->max_used_blocks = mb->used_blocks;
			*allocated = (size_t)need * mb->block_size;
			return mb->buffer + (size_t)first * mb->block_size;
		}
	}
	mb->failures++;
	return NULL;
}

void sys_mem_blocks_free_contiguous(struct sys_mem_blocks *mb, void *ptr, size_t size)
{
	unsigned first = (unsigned)(((uint8_t *)ptr - mb->buffer) / mb->block_size);
	unsigned n = (unsigned)((size + mb->block_size - 1) / mb->block_size);
	if (n == 0)
		n = 1;
	mark_run(mb, first, n, false);
	mb->used_blocks = (uint16_t)(mb->used_blocks - n);
}
