/* Claiming hardware resources (alarms, spin locks, DMA channels) by bit in a mask. */
#ifndef _HARDWARE_CLAIM_H
#define _HARDWARE_CLAIM_H

#include "pico.h"

void hw_claim_or_assert(uint8_t *bits, uint bit_index, const char *message);
int hw_claim_unused_from_range(uint8_t *bits, bool required, uint bit_lsb, uint bit_msb, const char *message);
bool hw_is_claimed(const uint8_t *bits, uint bit_index);
void hw_claim_clear(uint8_t *bits, uint bit_index);
uint32_t hw_claim_lock(void);
void hw_claim_unlock(uint32_t token);

#endif
