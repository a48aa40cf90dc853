/* periph: the RP2040 peripherals of the virtual Pico (RESETS, SYSINFO, CLOCKS, XOSC, PLLs,
 * WATCHDOG, TIMER, IO_BANK0, PADS_BANK0, SIO, UART0, the bootrom) as sim/pico.c puts them
 * together. Internal to sim/: the public interface is pico.h. */
#ifndef XB_PERIPH_H
#define XB_PERIPH_H

#include <stdint.h>

#include "board.h"
#include "bus.h"

/*
 * Every device here maps itself on board_bus(b) when it is made, registers a board_on_reset
 * hook (a system reset puts it back to its power-on state unless its section says
 * otherwise) and is freed by its owner after board_free. Register facts:
 * reference/rp2040-peripherals.md and the RP2040 datasheet; docs/sim.md describes what each
 * device models and what it leaves out.
 *
 * Alias writes (XOR/SET/CLR at +0x1000/+0x2000/+0x3000 in the peripheral space): plain
 * read/write registers take bus_alias_apply(old, value, op) (periph_rw below);
 * write-1-to-clear bits take the raw written value under every op (periph_wc), as firmware
 * and the reference expect. Read-only registers ignore writes.
 *
 * Reads through the debug port (bus_access_is_debug) have no side effects anywhere here:
 * they do not claim spinlocks, clear the divider's DIRTY flag, pop FIFOs or latch TIMEHR.
 */

/* Base addresses (RP2040 datasheet 2.2, pico-sdk addressmap.h). */
#define XB_SYSINFO_BASE 0x40000000u
#define XB_CLOCKS_BASE 0x40008000u
#define XB_RESETS_BASE 0x4000C000u
#define XB_IO_BANK0_BASE 0x40014000u
#define XB_PADS_BANK0_BASE 0x4001C000u
#define XB_XOSC_BASE 0x40024000u
#define XB_PLL_SYS_BASE 0x40028000u
#define XB_PLL_USB_BASE 0x4002C000u
#define XB_UART0_BASE 0x40034000u
#define XB_TIMER_BASE 0x40054000u
#define XB_WATCHDOG_BASE 0x40058000u
#define XB_SIO_BASE 0xD0000000u
/* The board's host-call register block (a virtual-board extension, docs/sim.md): an APB
 * slot that no RP2040 peripheral uses (the last one, TBMAN, is at 0x4006C000). */
#define XB_HOSTCALL_BASE 0x4007C000u

/* RESETS bit numbers of the blocks modelled here. */
enum {
	XB_RESET_IO_BANK0 = 5,
	XB_RESET_PADS_BANK0 = 8,
	XB_RESET_PLL_SYS = 12,
	XB_RESET_PLL_USB = 13,
	XB_RESET_SYSINFO = 19,
	XB_RESET_TIMER = 21,
	XB_RESET_UART0 = 22,
};
#define XB_RESETS_MASK 0x01FFFFFFu

/* NVIC lines. */
enum {
	XB_IRQ_TIMER0 = 0, /* TIMER_IRQ_0..3 are 0..3 */
	XB_IRQ_IO_BANK0 = 13,
	XB_IRQ_SIO_PROC0 = 15,
	XB_IRQ_CLOCKS = 17,
	XB_IRQ_UART0 = 20,
};

/* clk_ref as the SDK configures it (XOSC / 1): the watchdog tick divides it. */
#define XB_CLK_REF_HZ 12000000u

/* The new value of a read/write register after a write through op, limited to mask (bits
 * outside it keep their value: reserved or read-only). */
static inline uint32_t periph_rw(uint32_t old, uint32_t value, enum xb_alias_op op,
				 uint32_t mask)
{
	return (old & ~mask) | (bus_alias_apply(old, value, op) & mask);
}

/* Write-1-to-clear: the raw written value clears bits under every op. */
static inline uint32_t periph_wc(uint32_t old, uint32_t value)
{
	return old & ~value;
}

#ifndef __SIZEOF_INT128__
#error "sim/periph.h needs a compiler with unsigned __int128 (GCC or Clang on a 64-bit host)"
#endif

/* floor(a * b / c) and ceil(a * b / c) without overflow (c > 0; the result must fit). Time
 * conversions between CPU cycles and slower clocks use them. */
static inline uint64_t periph_muldiv(uint64_t a, uint64_t b, uint64_t c)
{
	return (uint64_t)((unsigned __int128)a * b / c);
}

static inline uint64_t periph_muldiv_ceil(uint64_t a, uint64_t b, uint64_t c)
{
	return (uint64_t)(((unsigned __int128)a * b + c - 1) / c);
}

/* ---- RESETS and SYSINFO (resets.c) ---- */

typedef struct xb_resets xb_resets;
/* Called when bit's RESET value changes (held = 1: the block entered reset) and at a
 * system reset (held = 1, the power-on state). */
typedef void (*xb_block_reset_fn)(void *ctx, int held);

xb_resets *resets_new(xb_board *b);
void resets_free(xb_resets *r);
/* fn(ctx, held) for block bit; one hook per bit. */
void resets_on_block(xb_resets *r, unsigned bit, xb_block_reset_fn fn, void *ctx);
/* 1 while block bit is held in reset. */
int resets_held(const xb_resets *r, unsigned bit);

/* ---- WATCHDOG and its tick generator (watchdog.c) ---- */

typedef struct xb_watchdog xb_watchdog;
typedef void (*xb_tick_change_fn)(void *ctx);

xb_watchdog *watchdog_new(xb_board *b);
void watchdog_free(xb_watchdog *w);
/* Ticks generated from power-on up to cycle (cycle >= the last change of TICK: callers
 * ask about now or the future). Monotonic; constant while the tick is stopped. */
uint64_t watchdog_ticks(const xb_watchdog *w, uint64_t cycle);
/* The first cycle at which watchdog_ticks reaches n, or UINT64_MAX if it never does at the
 * current setting (tick stopped). n must be more than watchdog_ticks(w, now). */
uint64_t watchdog_tick_cycle(const xb_watchdog *w, uint64_t n);
/* fn(ctx) after every change of the tick's rate (TICK writes, reset): users reschedule. */
void watchdog_on_tick_change(xb_watchdog *w, xb_tick_change_fn fn, void *ctx);

/* ---- TIMER (timer.c) ---- */

typedef struct xb_timer xb_timer;
xb_timer *timer_new(xb_board *b, xb_watchdog *w, xb_resets *r);
void timer_free(xb_timer *t);
/* The 64-bit microsecond counter now (what TIMERAWH:TIMERAWL read). */
uint64_t timer_count(const xb_timer *t);

/* ---- CLOCKS, XOSC, PLL_SYS, PLL_USB (clocks.c) ---- */

typedef struct xb_clocks xb_clocks;
xb_clocks *clocks_new(xb_board *b, xb_resets *r);
void clocks_free(xb_clocks *c);

/* ---- IO_BANK0 and PADS_BANK0 (gpio.c) ---- */

typedef struct xb_gpio xb_gpio;
xb_gpio *gpio_new(xb_board *b, xb_resets *r);
void gpio_free(xb_gpio *g);
/* What the SIO drives (GPIO_OUT, GPIO_OE); pins follow when their FUNCSEL is SIO. */
void gpio_set_sio(xb_gpio *g, uint32_t out, uint32_t oe);
/* The 30 input levels the SIO reads as GPIO_IN (after pads and input overrides). */
uint32_t gpio_input(const xb_gpio *g);

/* ---- SIO (sio.c) ---- */

typedef struct xb_sio xb_sio;
xb_sio *sio_new(xb_board *b, xb_gpio *g);
void sio_free(xb_sio *s);

/* ---- UART0 (uart.c) ---- */

typedef struct xb_uart xb_uart;
/* Receives every byte the UART transmits, when it leaves the transmitter. */
typedef void (*xb_uart_byte_fn)(void *ctx, uint8_t byte);
xb_uart *uart_new(xb_board *b, xb_resets *r, xb_uart_byte_fn fn, void *ctx);
void uart_free(xb_uart *u);
/* Bytes transmitted so far (since uart_new). */
uint64_t uart_tx_count(const xb_uart *u);

/* ---- The bootrom and its host calls (bootrom.c) ---- */

typedef struct xb_bootrom xb_bootrom;
/* Loads the board's own bootrom at the ROM base and maps the host-call block. Fails when the
 * target has no ROM of at least 1 KB at address 0. */
xb_bootrom *bootrom_new(xb_board *b, xb_err *err);
void bootrom_free(xb_bootrom *r);

#endif
