#ifndef LWIP_HDR_MEM_H
#define LWIP_HDR_MEM_H

#include "lwip/opt.h"
#include "lwip/arch.h"

typedef u16_t mem_size_t;

void mem_init(void);
void *mem_malloc(mem_size_t size);
void mem_free(void *mem);
void *mem_trim(void *mem, mem_size_t size);

#endif
