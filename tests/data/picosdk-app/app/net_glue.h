#ifndef NET_GLUE_H
#define NET_GLUE_H
#include <stdint.h>

void net_glue_init(void);
void net_glue_poll(void);
uint32_t ram_fast_sum(uint32_t seed);

#endif
