/* Resource claims, guarded by the claim spin lock. */
#include "hardware/claim.h"
#include "hardware/sync.h"

uint32_t hw_claim_lock(void)
{
    return spin_lock_blocking(spin_lock_instance(PICO_SPINLOCK_ID_HARDWARE_CLAIM));
}

void hw_claim_unlock(uint32_t save)
{
    spin_unlock(spin_lock_instance(PICO_SPINLOCK_ID_HARDWARE_CLAIM), save);
}

bool hw_is_claimed(const uint8_t *bits, uint bit_index)
{
    return (bits[bit_index >> 3u] & (1u << (bit_index & 7u))) != 0;
}

void hw_claim_or_assert(uint8_t *bits, uint bit_index, const char *message)
{
    uint32_t save = hw_claim_lock();
    if (hw_is_claimed(bits, bit_index)) {
        hw_claim_unlock(save);
        panic(message, bit_index);
    }
    bits[bit_index >> 3u] |= (uint8_t)(1u << (bit_index & 7u));
    hw_claim_unlock(save);
}

int hw_claim_unused_from_range(uint8_t *bits, bool required, uint bit_lsb, uint bit_msb, const char *message)
{
    uint32_t save = hw_claim_lock();
    int found = -1;
    for (uint bit = bit_lsb; bit <= bit_msb; bit++) {
        if (!hw_is_claimed(bits, bit)) {
            bits[bit >> 3u] |= (uint8_t)(1u << (bit & 7u));
            found = (int)bit;
            break;
        }
    }
    hw_claim_unlock(save);
    if (found < 0 && required)
        panic(message);
    return found;
}

void hw_claim_clear(uint8_t *bits, uint bit_index)
{
    uint32_t save = hw_claim_lock();
    bits[bit_index >> 3u] &= (uint8_t)~(1u << (bit_index & 7u));
    hw_claim_unlock(save);
}
