/* sim.h: what the virtual Pico test programs share: the mailbox in SRAM5 (word 0 is main's
 * return value, the test writes inputs at MAILBOX_IN), register addresses, helpers. */
#ifndef SIM_TEST_H
#define SIM_TEST_H

#include <stdint.h>

#define MAILBOX ((volatile uint32_t *)0x20041000u)
#define MAILBOX_IN ((volatile uint32_t *)0x20041F00u) /* inputs from the test */

#define REG(a) (*(volatile uint32_t *)(a))
#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define NVIC_ISER REG(0xE000E100u)
#define NVIC_ICER REG(0xE000E180u)
#define NVIC_ISPR REG(0xE000E200u)
#define NVIC_ICPR REG(0xE000E280u)
#define NVIC_IPR(n) REG(0xE000E400u + 4u * (n))
#define SCB_ICSR REG(0xE000ED04u)
#define SCB_VTOR REG(0xE000ED08u)
#define SCB_SHPR2 REG(0xE000ED1Cu)
#define SCB_SHPR3 REG(0xE000ED20u)
#define XIP_CTRL REG(0x14000000u)
#define XIP_FLUSH REG(0x14000004u)
#define XIP_STAT REG(0x14000008u)
#define XIP_CTR_HIT REG(0x1400000Cu)
#define XIP_CTR_ACC REG(0x14000010u)

#define RAMFUNC __attribute__((section(".ram_text"), noinline))

static inline void enable_irq(void) { __asm volatile("cpsie i" ::: "memory"); }
static inline void disable_irq(void) { __asm volatile("cpsid i" ::: "memory"); }
static inline void wfi(void) { __asm volatile("wfi" ::: "memory"); }

#endif
