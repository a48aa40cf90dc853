/* rt.h: the runtime the virtual Pico test programs share (rt.c): register addresses, an
 * SDK-like bring-up (resets, XOSC, PLLs, clocks, watchdog tick, UART0 at 115200), UART
 * printing, the microsecond timer and the exit path. */
#ifndef PICO_RT_H
#define PICO_RT_H

#include <stdint.h>

#define REG(a) (*(volatile uint32_t *)(a))
/* Atomic aliases of an APB register: XOR, SET, CLR. */
#define REG_XOR(a) REG((a) + 0x1000u)
#define REG_SET(a) REG((a) + 0x2000u)
#define REG_CLR(a) REG((a) + 0x3000u)

#define RESETS_RESET 0x4000C000u
#define RESETS_DONE 0x4000C008u
#define RESET_IO_QSPI (1u << 6)
#define RESET_PADS_QSPI (1u << 9)
#define RESET_PLL_SYS (1u << 12)
#define RESET_PLL_USB (1u << 13)
#define RESET_SYSCFG (1u << 18)
#define RESET_TIMER (1u << 21)
#define RESET_UART0 (1u << 22)
#define RESET_USBCTRL (1u << 24)
#define RESET_ALL 0x01FFFFFFu

#define CLOCKS_BASE 0x40008000u
#define XOSC_BASE 0x40024000u
#define PLL_SYS_BASE 0x40028000u
#define PLL_USB_BASE 0x4002C000u
#define IO_BANK0_BASE 0x40014000u
#define PADS_BANK0_BASE 0x4001C000u
#define WATCHDOG_TICK 0x4005802Cu

#define UART0_BASE 0x40034000u
#define UART_DR REG(UART0_BASE + 0x000)
#define UART_FR REG(UART0_BASE + 0x018)
#define UART_FR_TXFF 0x20u
#define UART_FR_BUSY 0x08u

#define TIMER_BASE 0x40054000u
#define TIMER_ALARM(n) REG(TIMER_BASE + 0x10u + 4u * (n))
#define TIMER_ARMED REG(TIMER_BASE + 0x20)
#define TIMER_RAWH REG(TIMER_BASE + 0x24)
#define TIMER_RAWL REG(TIMER_BASE + 0x28)
#define TIMER_INTR REG(TIMER_BASE + 0x34)
#define TIMER_INTE REG(TIMER_BASE + 0x38)

#define SIO_BASE 0xD0000000u

#define SYST_CSR REG(0xE000E010u)
#define SYST_RVR REG(0xE000E014u)
#define SYST_CVR REG(0xE000E018u)
#define NVIC_ISER REG(0xE000E100u)
#define NVIC_ICPR REG(0xE000E280u)
#define SCB_ICSR REG(0xE000ED04u)
#define SCB_SHPR3 REG(0xE000ED20u)

#define CPU_HZ 125000000u

static inline void rt_wfi(void) { __asm volatile("wfi" ::: "memory"); }
static inline void rt_wfe(void) { __asm volatile("wfe" ::: "memory"); }
static inline void rt_sev(void) { __asm volatile("sev" ::: "memory"); }
static inline void rt_enable_irq(void) { __asm volatile("cpsie i" ::: "memory"); }
static inline void rt_disable_irq(void) { __asm volatile("cpsid i" ::: "memory"); }
static inline uint32_t rt_ipsr(void)
{
	uint32_t v;
	__asm volatile("mrs %0, ipsr" : "=r"(v));
	return v;
}

/* Firmware that runs from SRAM (the flash is busy while it is reprogrammed). */
#define RT_RAMFUNC __attribute__((section(".time_critical"), noinline))

void rt_putc(char c);
void rt_puts(const char *s);
/* Waits until UART0 has sent everything (FR.BUSY clear), as uart_tx_wait_blocking does. */
void rt_flush(void);

/* ---- Core 1 and the inter-core FIFO, as pico-sdk's multicore_fifo_* and
 * multicore_launch_core1_raw use them ---- */
#define SIO_FIFO_ST REG(SIO_BASE + 0x50)
#define SIO_FIFO_WR REG(SIO_BASE + 0x54)
#define SIO_FIFO_RD REG(SIO_BASE + 0x58)
#define FIFO_VLD 1u
#define FIFO_RDY 2u
void rt_fifo_drain(void);
void rt_fifo_push(uint32_t v);  /* waits for room, then SEV */
uint32_t rt_fifo_pop(void);     /* WFE until a word comes */
/* The bootrom's launch handshake (datasheet 2.8.2): 0, 0, 1, vtor, sp, entry, each echoed;
 * drain and SEV before each 0, start over on a mismatch. Returns the words sent. */
unsigned rt_launch_core1(void (*entry)(void), uint32_t *sp, uint32_t vtor);
void rt_put_dec(uint32_t v);
void rt_put_dec64(uint64_t v);
void rt_put_sdec64(int64_t v);
void rt_put_hex(uint32_t v); /* 8 digits */
/* Puts blocks (RESETS bits) into reset, takes them out and waits for RESET_DONE. */
void rt_reset_block(uint32_t bits);
uint32_t rt_time_us(void);
uint64_t rt_time_us64(void);
/* Prints "exit N" and ends the program (BKPT: the debugger halts the core). */
void rt_exit(int code) __attribute__((noreturn));

int main(void);

#endif
