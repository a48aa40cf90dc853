/* NVIC control and the SRAM vector table. */
#ifndef _HARDWARE_IRQ_H
#define _HARDWARE_IRQ_H

#include "pico.h"
#include "hardware/regs/intctrl.h"
#include "hardware/regs/m0plus.h"

#define PICO_DEFAULT_IRQ_PRIORITY 0x80
#define PICO_LOWEST_IRQ_PRIORITY 0xff
#define PICO_HIGHEST_IRQ_PRIORITY 0x00
#define PICO_SHARED_IRQ_HANDLER_DEFAULT_ORDER_PRIORITY 0x80

#define VTABLE_FIRST_IRQ 16

typedef void (*irq_handler_t)(void);

void irq_set_priority(uint num, uint8_t hardware_priority);
uint irq_get_priority(uint num);
void irq_set_enabled(uint num, bool enabled);
bool irq_is_enabled(uint num);
void irq_set_mask_enabled(uint32_t mask, bool enabled);
void irq_set_exclusive_handler(uint num, irq_handler_t handler);
irq_handler_t irq_get_exclusive_handler(uint num);
void irq_add_shared_handler(uint num, irq_handler_t handler, uint8_t order_priority);
void irq_remove_handler(uint num, irq_handler_t handler);
bool irq_has_shared_handler(uint num);
irq_handler_t irq_get_vtable_handler(uint num);
void irq_set_pending(uint num);
void irq_clear(uint int_num);
void irq_init_priorities(void);
void irq_install_ram_vector_table(void);

#endif
