/* Interrupt control. Handlers live in the SRAM vector table (.ram_vector_table), which
 * runtime start-up installs in VTOR; shared handlers are called one after another by a
 * small dispatcher. */
#include "hardware/irq.h"
#include "hardware/sync.h"
#include "hardware/address_mapped.h"

#define NVIC_REG(off) (*(io_rw_32 *)(PPB_BASE + (off)))
#define MAX_SHARED_HANDLERS 4

extern void __unhandled_user_irq(void);

/* the vector table in SRAM: 16 exceptions and 32 interrupts */
__attribute__((section(".ram_vector_table"), aligned(256))) static irq_handler_t ram_vector_table[48];

struct shared_handler {
    irq_handler_t handler;
    uint8_t order_priority;
    uint8_t irq;
};

static struct shared_handler shared_handlers[MAX_SHARED_HANDLERS];
static uint shared_handler_count;

static inline irq_handler_t *get_vtable(void)
{
    return (irq_handler_t *)NVIC_REG(M0PLUS_VTOR_OFFSET);
}

static void check_irq_param(__unused uint num)
{
    invalid_params_if(HARDWARE_IRQ, num >= NUM_IRQS);
}

static void set_raw_irq_handler_and_unlock(uint num, irq_handler_t handler, uint32_t save)
{
    get_vtable()[VTABLE_FIRST_IRQ + num] = handler;
    __dmb();
    spin_unlock(spin_lock_instance(PICO_SPINLOCK_ID_IRQ), save);
}

void irq_install_ram_vector_table(void)
{
    irq_handler_t *flash_table = (irq_handler_t *)NVIC_REG(M0PLUS_VTOR_OFFSET);
    for (uint i = 0; i < count_of(ram_vector_table); i++)
        ram_vector_table[i] = flash_table[i];
    NVIC_REG(M0PLUS_VTOR_OFFSET) = (uintptr_t)ram_vector_table;
}

void irq_set_enabled(uint num, bool enabled)
{
    check_irq_param(num);
    irq_set_mask_enabled(1u << num, enabled);
}

bool irq_is_enabled(uint num)
{
    check_irq_param(num);
    return 0 != (NVIC_REG(M0PLUS_NVIC_ISER_OFFSET) & (1u << num));
}

void irq_set_mask_enabled(uint32_t mask, bool enabled)
{
    if (enabled) {
        NVIC_REG(M0PLUS_NVIC_ICPR_OFFSET) = mask;
        NVIC_REG(M0PLUS_NVIC_ISER_OFFSET) = mask;
    } else {
        NVIC_REG(M0PLUS_NVIC_ICER_OFFSET) = mask;
    }
}

void irq_set_pending(uint num)
{
    check_irq_param(num);
    NVIC_REG(M0PLUS_NVIC_ISPR_OFFSET) = 1u << num;
}

void irq_clear(uint int_num)
{
    NVIC_REG(M0PLUS_NVIC_ICPR_OFFSET) = 1u << (int_num & 31u);
}

irq_handler_t irq_get_vtable_handler(uint num)
{
    check_irq_param(num);
    return get_vtable()[VTABLE_FIRST_IRQ + num];
}

void irq_set_exclusive_handler(uint num, irq_handler_t handler)
{
    check_irq_param(num);
    spin_lock_t *lock = spin_lock_instance(PICO_SPINLOCK_ID_IRQ);
    uint32_t save = spin_lock_blocking(lock);
    irq_handler_t current = irq_get_vtable_handler(num);
    if (current != __unhandled_user_irq && current != handler) {
        spin_unlock(lock, save);
        panic("irq %d already has a handler", num);
    }
    set_raw_irq_handler_and_unlock(num, handler, save);
}

irq_handler_t irq_get_exclusive_handler(uint num)
{
    irq_handler_t handler = irq_get_vtable_handler(num);
    if (handler == __unhandled_user_irq || irq_has_shared_handler(num))
        return NULL;
    return handler;
}

bool irq_has_shared_handler(uint num)
{
    for (uint i = 0; i < shared_handler_count; i++) {
        if (shared_handlers[i].irq == num)
            return true;
    }
    return false;
}

/* calls every shared handler of the active interrupt, highest order priority first */
static void irq_shared_dispatch(void)
{
    uint num = __get_current_exception() - VTABLE_FIRST_IRQ;
    for (uint i = 0; i < shared_handler_count; i++) {
        if (shared_handlers[i].irq == num)
            shared_handlers[i].handler();
    }
}

void irq_add_shared_handler(uint num, irq_handler_t handler, uint8_t order_priority)
{
    check_irq_param(num);
    spin_lock_t *lock = spin_lock_instance(PICO_SPINLOCK_ID_IRQ);
    uint32_t save = spin_lock_blocking(lock);
    if (shared_handler_count == MAX_SHARED_HANDLERS) {
        spin_unlock(lock, save);
        panic("IRQ handlers exhausted");
    }
    uint pos = shared_handler_count++;
    while (pos > 0 && shared_handlers[pos - 1].order_priority < order_priority) {
        shared_handlers[pos] = shared_handlers[pos - 1];
        pos--;
    }
    shared_handlers[pos].handler = handler;
    shared_handlers[pos].order_priority = order_priority;
    shared_handlers[pos].irq = (uint8_t)num;
    set_raw_irq_handler_and_unlock(num, irq_shared_dispatch, save);
}

void irq_remove_handler(uint num, irq_handler_t handler)
{
    spin_lock_t *lock = spin_lock_instance(PICO_SPINLOCK_ID_IRQ);
    uint32_t save = spin_lock_blocking(lock);
    uint out = 0;
    bool others = false;
    for (uint i = 0; i < shared_handler_count; i++) {
        if (shared_handlers[i].irq == num && shared_handlers[i].handler == handler)
            continue;
        others |= shared_handlers[i].irq == num;
        shared_handlers[out++] = shared_handlers[i];
    }
    shared_handler_count = out;
    set_raw_irq_handler_and_unlock(num, others ? irq_shared_dispatch : __unhandled_user_irq, save);
}

void irq_set_priority(uint num, uint8_t hardware_priority)
{
    check_irq_param(num);
    io_rw_32 *p = &NVIC_REG(M0PLUS_NVIC_IPR0_OFFSET + (num >> 2u) * 4u);
    uint shift = 8u * (num & 3u);
    *p = (*p & ~(0xffu << shift)) | ((uint32_t)hardware_priority << shift);
}

uint irq_get_priority(uint num)
{
    check_irq_param(num);
    io_rw_32 *p = &NVIC_REG(M0PLUS_NVIC_IPR0_OFFSET + (num >> 2u) * 4u);
    return (uint8_t)(*p >> (8u * (num & 3u)));
}

void irq_init_priorities(void)
{
    for (uint irq = 0; irq < NUM_IRQS; irq += 4)
        NVIC_REG(M0PLUS_NVIC_IPR0_OFFSET + irq) = 0x80808080u;
}
