/* Interrupt masking, events and the 32 SIO hardware spin locks. */
#ifndef _HARDWARE_SYNC_H
#define _HARDWARE_SYNC_H

#include "pico.h"
#include "hardware/address_mapped.h"
#include "hardware/regs/sio.h"

typedef volatile uint32_t spin_lock_t;

#define PICO_SPINLOCK_ID_IRQ 9
#define PICO_SPINLOCK_ID_TIMER 10
#define PICO_SPINLOCK_ID_HARDWARE_CLAIM 11
#define PICO_SPINLOCK_ID_RAND 12
#define PICO_SPINLOCK_ID_OS1 14
#define PICO_SPINLOCK_ID_OS2 15
#define PICO_SPINLOCK_ID_STRIPED_FIRST 16
#define PICO_SPINLOCK_ID_STRIPED_LAST 23
#define PICO_SPINLOCK_ID_CLAIM_FREE_FIRST 24
#define PICO_SPINLOCK_ID_CLAIM_FREE_LAST 31

static __force_inline void __sev(void) { __asm volatile("sev"); }
static __force_inline void __wfe(void) { __asm volatile("wfe"); }
static __force_inline void __wfi(void) { __asm volatile("wfi"); }
static __force_inline void __mem_fence_acquire(void) { __dmb(); }
static __force_inline void __mem_fence_release(void) { __dmb(); }

static __force_inline uint32_t save_and_disable_interrupts(void)
{
    uint32_t status;
    __asm volatile("mrs %0, PRIMASK\n cpsid i" : "=r"(status)::"memory");
    return status;
}

static __force_inline void restore_interrupts(uint32_t status)
{
    __asm volatile("msr PRIMASK,%0" ::"r"(status) : "memory");
}

static __force_inline void restore_interrupts_from_disabled(uint32_t status)
{
    restore_interrupts(status);
}

static __force_inline spin_lock_t *spin_lock_instance(uint lock_num)
{
    return (spin_lock_t *)(SIO_BASE + SIO_SPINLOCK0_OFFSET + lock_num * 4);
}

static __force_inline uint spin_lock_get_num(spin_lock_t *lock)
{
    return (uint)(((uintptr_t)lock - (SIO_BASE + SIO_SPINLOCK0_OFFSET)) / 4);
}

static __force_inline void spin_lock_unsafe_blocking(spin_lock_t *lock)
{
    while (__builtin_expect(!*lock, 0)) {
    }
    __mem_fence_acquire();
}

static __force_inline void spin_unlock_unsafe(spin_lock_t *lock)
{
    __mem_fence_release();
    *lock = 0;
}

static __force_inline uint32_t spin_lock_blocking(spin_lock_t *lock)
{
    uint32_t save = save_and_disable_interrupts();
    spin_lock_unsafe_blocking(lock);
    return save;
}

static __force_inline void spin_unlock(spin_lock_t *lock, uint32_t saved_irq)
{
    spin_unlock_unsafe(lock);
    restore_interrupts(saved_irq);
}

static inline bool is_spin_locked(spin_lock_t *lock)
{
    uint32_t st = *(io_ro_32 *)(SIO_BASE + SIO_SPINLOCK_ST_OFFSET);
    return (st & (1u << spin_lock_get_num(lock))) != 0;
}

spin_lock_t *spin_lock_init(uint lock_num);
void spin_locks_reset(void);
uint next_striped_spin_lock_num(void);
void spin_lock_claim(uint lock_num);
void spin_lock_claim_mask(uint32_t lock_num_mask);
void spin_lock_unclaim(uint lock_num);
int spin_lock_claim_unused(bool required);
bool spin_lock_is_claimed(uint lock_num);

#endif
