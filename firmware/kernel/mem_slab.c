/* mem_slab.c: memory slabs: fixed-size blocks handed out from a free list, with waiting
 * for a block to come back. */
#include "kernel_internal.h"

void k_mem_slab_init(struct k_mem_slab *slab)
{
	z_waitq_init(&slab->wait_q);
	slab->free_list = NULL;
	for (uint32_t i = slab->num_blocks; i-- > 0;) {
		char *block = slab->buffer + i * slab->block_size;
		*(char **)block = slab->free_list;
		slab->free_list = block;
	}
	slab->num_used = slab->max_used = 0;
}

int k_mem_slab_alloc(struct k_mem_slab *slab, void **mem, k_timeout_t timeout)
{
	unsigned key = irq_lock();
	if (likely(slab->free_list)) {
		*mem = slab->free_list;
		slab->free_list = *(char **)slab->free_list;
		slab->num_used++;
		if (slab->num_used > slab->max_used)
			slab->max_used = slab->num_used;
		irq_unlock(key);
		return 0;
	}
	if (k_timeout_is_no_wait(timeout)) {
		irq_unlock(key);
		*mem = NULL;
		return -ENOMEM;
	}
	struct k_thread *cur = _kernel.current;
	cur->swap_data = NULL;
	int ret = z_pend_curr(key, &slab->wait_q, timeout);
	*mem = ret == 0 ? cur->swap_data : NULL;
	return ret;
}

void k_mem_slab_free(struct k_mem_slab *slab, void *mem)
{
	unsigned key = irq_lock();
	struct k_thread *t = z_unpend_first_thread(&slab->wait_q);
	if (t) {
		/* The block goes straight to the waiter: it stays counted as used. */
		z_wake_thread(t, 0, mem);
		z_reschedule(key);
		return;
	}
	*(char **)mem = slab->free_list;
	slab->free_list = mem;
	slab->num_used--;
	irq_unlock(key);
}
