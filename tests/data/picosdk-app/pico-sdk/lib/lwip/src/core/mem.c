/* The heap for PBUF_RAM: a first-fit allocator over one static array, blocks linked by
 * index. */
#include "lwip/mem.h"
#include "lwip/def.h"

struct mem {
    mem_size_t next;
    mem_size_t prev;
    u8_t used;
};

#define MIN_SIZE 12
#define SIZEOF_STRUCT_MEM LWIP_MEM_ALIGN_SIZE(sizeof(struct mem))
#define MEM_SIZE_ALIGNED LWIP_MEM_ALIGN_SIZE(MEM_SIZE)

static u8_t ram_heap[MEM_SIZE_ALIGNED + 2U * SIZEOF_STRUCT_MEM + MEM_ALIGNMENT];
static u8_t *ram;
static struct mem *ram_end;
static struct mem *lfree;

static inline struct mem *ptr_to_mem(mem_size_t ptr)
{
    return (struct mem *)(void *)&ram[ptr];
}

static inline mem_size_t mem_to_ptr(void *mem)
{
    return (mem_size_t)((u8_t *)mem - ram);
}

/* joins a freed block with free neighbours */
static void plug_holes(struct mem *mem)
{
    struct mem *nmem = ptr_to_mem(mem->next);
    if (mem != nmem && !nmem->used && nmem != ram_end) {
        if (lfree == nmem)
            lfree = mem;
        mem->next = nmem->next;
        if (nmem->next != MEM_SIZE_ALIGNED)
            ptr_to_mem(nmem->next)->prev = mem_to_ptr(mem);
    }
    struct mem *pmem = ptr_to_mem(mem->prev);
    if (pmem != mem && !pmem->used) {
        if (lfree == mem)
            lfree = pmem;
        pmem->next = mem->next;
        if (mem->next != MEM_SIZE_ALIGNED)
            ptr_to_mem(mem->next)->prev = mem_to_ptr(pmem);
    }
}

void mem_init(void)
{
    ram = (u8_t *)LWIP_MEM_ALIGN(ram_heap);
    struct mem *mem = (struct mem *)(void *)ram;
    mem->next = MEM_SIZE_ALIGNED;
    mem->prev = 0;
    mem->used = 0;
    ram_end = ptr_to_mem(MEM_SIZE_ALIGNED);
    ram_end->used = 1;
    ram_end->next = MEM_SIZE_ALIGNED;
    ram_end->prev = MEM_SIZE_ALIGNED;
    lfree = (struct mem *)(void *)ram;
}

void mem_free(void *rmem)
{
    if (rmem == NULL)
        return;
    struct mem *mem = (struct mem *)(void *)((u8_t *)rmem - SIZEOF_STRUCT_MEM);
    mem->used = 0;
    if (mem < lfree)
        lfree = mem;
    plug_holes(mem);
}

void *mem_trim(void *rmem, mem_size_t new_size)
{
    new_size = (mem_size_t)LWIP_MEM_ALIGN_SIZE(new_size);
    if (new_size < MIN_SIZE)
        new_size = MIN_SIZE;
    struct mem *mem = (struct mem *)(void *)((u8_t *)rmem - SIZEOF_STRUCT_MEM);
    mem_size_t ptr = mem_to_ptr(mem);
    mem_size_t size = (mem_size_t)(mem->next - ptr - SIZEOF_STRUCT_MEM);
    if (new_size + SIZEOF_STRUCT_MEM + MIN_SIZE <= size) {
        mem_size_t ptr2 = (mem_size_t)(ptr + SIZEOF_STRUCT_MEM + new_size);
        struct mem *mem2 = ptr_to_mem(ptr2);
        mem2->used = 0;
        mem2->next = mem->next;
        mem2->prev = ptr;
        mem->next = ptr2;
        if (mem2->next != MEM_SIZE_ALIGNED)
            ptr_to_mem(mem2->next)->prev = ptr2;
        if (mem2 < lfree)
            lfree = mem2;
        plug_holes(mem2);
    }
    return rmem;
}

void *mem_malloc(mem_size_t size_in)
{
    if (size_in == 0)
        return NULL;
    mem_size_t size = (mem_size_t)LWIP_MEM_ALIGN_SIZE(size_in);
    if (size < MIN_SIZE)
        size = MIN_SIZE;
    if (size > MEM_SIZE_ALIGNED)
        return NULL;

    for (mem_size_t ptr = mem_to_ptr(lfree); ptr < MEM_SIZE_ALIGNED - size; ptr = ptr_to_mem(ptr)->next) {
        struct mem *mem = ptr_to_mem(ptr);
        if (!mem->used && (mem->next - (ptr + SIZEOF_STRUCT_MEM)) >= size) {
            if (mem->next - (ptr + SIZEOF_STRUCT_MEM) >= (size + SIZEOF_STRUCT_MEM + MIN_SIZE)) {
                mem_size_t ptr2 = (mem_size_t)(ptr + SIZEOF_STRUCT_MEM + size);
                struct mem *mem2 = ptr_to_mem(ptr2);
                mem2->used = 0;
                mem2->next = mem->next;
                mem2->prev = ptr;
                mem->next = ptr2;
                mem->used = 1;
                if (mem2->next != MEM_SIZE_ALIGNED)
                    ptr_to_mem(mem2->next)->prev = ptr2;
            } else {
                mem->used = 1;
            }
            if (mem == lfree) {
                struct mem *cur = lfree;
                while (cur->used && cur != ram_end)
                    cur = ptr_to_mem(cur->next);
                lfree = cur;
            }
            return (u8_t *)mem + SIZEOF_STRUCT_MEM;
        }
    }
    return NULL;
}
