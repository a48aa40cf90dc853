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
/* CPU cycles one frame (start, data, parity and stop bits) takes at the latched baud rate. */
uint64_t uart_frame_cycles(const xb_uart *u);
/* 1 while a byte waits in the FIFO or is on the line (FR.BUSY). */
int uart_busy(const xb_uart *u);
/* 1 when UARTEN and TXE are both set. */
int uart_tx_enabled(const xb_uart *u);

/* ---- The bootrom and its host calls (bootrom.c) ---- */

typedef struct xb_bootrom xb_bootrom;
/* Loads the board's own bootrom at the ROM base and maps the host-call block. Fails when the
 * target has no ROM of at least 1 KB at address 0. */
xb_bootrom *bootrom_new(xb_board *b, xb_err *err);
void bootrom_free(xb_bootrom *r);

/* ==== I2C, SPI, PIO and the small system blocks (i2c.c, spi.c, pio.c, misc.c) ==== */

#define XB_SYSCFG_BASE 0x40004000u
#define XB_PSM_BASE 0x40010000u
#define XB_BUSCTRL_BASE 0x40030000u
#define XB_SPI0_BASE 0x4003C000u
#define XB_SPI1_BASE 0x40040000u
#define XB_I2C0_BASE 0x40044000u
#define XB_I2C1_BASE 0x40048000u
#define XB_ROSC_BASE 0x40060000u
#define XB_VREG_BASE 0x40064000u
#define XB_TBMAN_BASE 0x4006C000u
#define XB_PIO0_BASE 0x50200000u
#define XB_PIO1_BASE 0x50300000u

/* RESETS bits (pico-sdk resets.h). */
enum {
	XB_RESET_BUSCTRL = 1,
	XB_RESET_I2C0 = 3,
	XB_RESET_I2C1 = 4,
	XB_RESET_PIO0 = 10,
	XB_RESET_PIO1 = 11,
	XB_RESET_SPI0 = 16,
	XB_RESET_SPI1 = 17,
	XB_RESET_SYSCFG = 18,
};

/* NVIC lines (pico-sdk intctrl.h). */
enum {
	XB_IRQ_PIO0_0 = 7, /* PIO0_IRQ_0, PIO0_IRQ_1 = 8, PIO1_IRQ_0 = 9, PIO1_IRQ_1 = 10 */
	XB_IRQ_SPI0 = 18,  /* SPI1 = 19 */
	XB_IRQ_I2C0 = 23,  /* I2C1 = 24 */
};

/* DREQ numbers (pico-sdk dreq.h). */
enum {
	XB_DREQ_PIO0_TX0 = 0, /* PIO0 TX0-3 0-3, RX0-3 4-7; PIO1 TX0-3 8-11, RX0-3 12-15 */
	XB_DREQ_SPI0_TX = 16, /* SPI0 RX 17, SPI1 TX 18, RX 19 */
	XB_DREQ_I2C0_TX = 32, /* I2C0 RX 33, I2C1 TX 34, RX 35 */
};

/*
 * DREQ hook (datasheet 2.5.3): a DMA model connects to a paced peripheral with its
 * *_set_dreq function; the device then calls fn(ctx, dreq, level) on every change of one
 * of its request lines (level 1: the peripheral wants a transfer: TX FIFO room or RX data,
 * gated by the device's DMA enables). *_dreq(dev, dreq) reads a line's level now. Devices
 * without a listener keep the levels only. A DMA transfer moves data through the ordinary
 * bus_read/bus_write of the FIFO register, which updates the lines.
 */
typedef void (*xb_dreq_fn)(void *ctx, unsigned dreq, int level);

/* A device's end of the hook: its listener (*_set_dreq) and its n request lines from DREQ
 * base on, at the levels the listener last heard. */
typedef struct xb_dreq_lines {
	xb_dreq_fn fn;
	void *ctx;
	unsigned base, n;
	uint8_t level[8];
} xb_dreq_lines;

/* Line k (0 to n - 1) is at level now: the listener hears of a change. */
static inline void dreq_lines_set(xb_dreq_lines *l, unsigned k, int level)
{
	level = level != 0;
	if (l->level[k] == level)
		return;
	l->level[k] = (uint8_t)level;
	if (l->fn)
		l->fn(l->ctx, l->base + k, level);
}

/* The level of DREQ dreq (0 when it is not one of l's lines). */
static inline int dreq_lines_level(const xb_dreq_lines *l, unsigned dreq)
{
	return dreq >= l->base && dreq - l->base < l->n ? l->level[dreq - l->base] : 0;
}

/* v with its 32 bits in reverse order (the DMA sniffer, PIO's MOV bit-reverse). */
static inline uint32_t periph_bitrev(uint32_t v)
{
	uint32_t r = 0;
	for (unsigned i = 0; i < 32; i++)
		r |= ((v >> i) & 1u) << (31 - i);
	return r;
}

/* ---- ROSC, TBMAN, VREG_AND_CHIP_RESET, SYSCFG, PSM, BUSCTRL (misc.c) ---- */

typedef struct xb_misc xb_misc;
#define XB_ROSC_SEED_DEFAULT 0x5EEDB17u
xb_misc *misc_new(xb_board *b, xb_resets *r);
void misc_free(xb_misc *m);
/* RANDOMBIT's sequence restarts from seed (also at power-on: misc_new uses the default). */
void misc_set_rosc_seed(xb_misc *m, uint64_t seed);
/* The ROSC's output frequency (0 when disabled). */
uint32_t misc_rosc_hz(const xb_misc *m);

/* ---- I2C0, I2C1: DW_apb_i2c masters with a virtual target each (i2c.c) ---- */

typedef struct xb_i2c xb_i2c;
#define XB_I2C_TARGET_DEFAULT 0x50u
xb_i2c *i2c_new(xb_board *b, xb_resets *r, unsigned index);
void i2c_free(xb_i2c *i);
/* The 7-bit address the virtual target answers at (0-0x7F). */
void i2c_set_target(xb_i2c *i, unsigned addr7);
void i2c_set_dreq(xb_i2c *i, xb_dreq_fn fn, void *ctx);
int i2c_dreq(const xb_i2c *i, unsigned dreq);

/* ---- SPI0, SPI1: PL022 masters (spi.c) ---- */

typedef struct xb_spi xb_spi;
xb_spi *spi_new(xb_board *b, xb_resets *r, unsigned index);
void spi_free(xb_spi *s);
void spi_set_dreq(xb_spi *s, xb_dreq_fn fn, void *ctx);
int spi_dreq(const xb_spi *s, unsigned dreq);

/* ---- PIO0, PIO1 (pio.c) ---- */

typedef struct xb_pio xb_pio;
xb_pio *pio_new(xb_board *b, xb_resets *r, xb_gpio *g, unsigned index);
void pio_free(xb_pio *p);
void pio_set_dreq(xb_pio *p, xb_dreq_fn fn, void *ctx);
int pio_dreq(xb_pio *p, unsigned dreq);
/* ---- UART1 (uart.c, the same PL011 model as UART0) ---- */

#define XB_UART1_BASE 0x40038000u
#define XB_RESET_UART1 23 /* UART1_IRQ is 21, its DREQs 22 (TX) and 23 (RX) */
/* UART index (0 or 1) with its own base, RESETS bit, IRQ and DREQs; uart_new is index 0. */
xb_uart *uart_new_index(xb_board *b, xb_resets *r, unsigned index, xb_uart_byte_fn fn,
			void *ctx);
/* An xb_uart_byte_fn (ctx: the xb_misc) reporting UART1's bytes to the board log, a line
 * at a time. */
void misc_uart1_byte(void *ctx, uint8_t byte);

/* What PIO n drives on the pins (for IO_BANK0: FUNCSEL 6 is PIO0, 7 PIO1). */
void gpio_set_pio(xb_gpio *g, unsigned n, uint32_t out, uint32_t oe);
/* fn(ctx) after every change of gpio_input (two listeners at most: the PIOs). It may be
 * called from inside gpio_set_pio. */
void gpio_on_input(xb_gpio *g, void (*fn)(void *ctx), void *ctx);

/* ---- Bootrom extras: soft-float host calls, USB boot requests (romfloat.c, bootrom.c) ---- */

/* R0-R3 of a soft-float table call, in and out; set_flags asks for NZCV (flags, xPSR bits
 * 31:28) to be set as well. */
typedef struct xb_romfloat_regs {
	uint32_t r[4];
	uint32_t flags;
	int set_flags;
} xb_romfloat_regs;
/* Entry offset (0x00-0x7C) of the soft-float (is_double 0) or soft-double table: computes
 * the result into r. -1 for an offset that has no function. */
int romfloat_call(xb_romfloat_regs *r, int is_double, unsigned offset);

/* 1 once the firmware called reset_to_usb_boot (until the next board reset); its two
 * arguments in *gpio_mask and *disable_mask (either may be NULL). */
int bootrom_usb_boot(const xb_bootrom *r, uint32_t *gpio_mask, uint32_t *disable_mask);

/* ==== DMA, ADC, PWM and the UART's DMA requests (dma.c, adc.c, pwm.c, uart.c) ==== */

#define XB_ADC_BASE 0x4004C000u
#define XB_PWM_BASE 0x40050000u
#define XB_DMA_BASE 0x50000000u

/* RESETS bits (pico-sdk resets.h). */
enum {
	XB_RESET_ADC = 0,
	XB_RESET_DMA = 2,
	XB_RESET_PWM = 14,
};

/* NVIC lines (pico-sdk intctrl.h). */
enum {
	XB_IRQ_PWM_WRAP = 4,
	XB_IRQ_DMA_0 = 11, /* DMA_IRQ_1 = 12 */
	XB_IRQ_ADC_FIFO = 22,
};

/* More DREQ numbers (datasheet 2.5.3.1, pico-sdk dreq.h). */
enum {
	XB_DREQ_UART0_TX = 20, /* UART0 RX 21, UART1 TX 22, RX 23 */
	XB_DREQ_UART0_RX = 21,
	XB_DREQ_PWM_WRAP0 = 24, /* PWM_WRAP0-7 are 24-31 */
	XB_DREQ_ADC = 36,
	XB_DREQ_COUNT = 64, /* TREQ_SEL's range; 0x3B-0x3E are the pacing timers, 0x3F
			     * the permanent request */
};

/* clk_adc as the SDK configures it (PLL_USB, 48 MHz): the ADC's conversion clock. */
#define XB_CLK_ADC_HZ 48000000u

/* ---- DMA (dma.c) ---- */

/*
 * Two kinds of DREQ reach the DMA:
 *  - Level lines (FIFOs: UART, SPI, I2C, PIO, ADC): the device calls dma_dreq_line (an
 *    xb_dreq_fn, the hook above) with ctx = the DMA whenever a line changes; the owner
 *    connects them with the device's *_set_dreq(dev, dma_dreq_line, dma) and then passes
 *    the current level (dma_dreq_line(dma, n, *_dreq(dev, n))). A paced channel moves one
 *    item while its line is high; the item's bus access updates the line before the next.
 *  - Pulse sources (PWM wraps): counted events, one transfer each. The source tells the
 *    DMA how many pulses it has made and when the n-th comes (virtual time), and calls
 *    dma_dreq_changed when its rate changes.
 */
typedef struct xb_dma xb_dma;
typedef struct xb_dreq_pulse_ops {
	/* Pulses since power-on (monotonic). */
	uint64_t (*count)(void *ctx);
	/* The cycle at which count reaches n (n > count now), UINT64_MAX if it never does at
	 * the current setting. */
	uint64_t (*cycle_of)(void *ctx, uint64_t n);
} xb_dreq_pulse_ops;

xb_dma *dma_new(xb_board *b, xb_resets *r);
void dma_free(xb_dma *d);
/* An xb_dreq_fn: ctx is the xb_dma. */
void dma_dreq_line(void *ctx, unsigned dreq, int level);
void dma_dreq_pulse_source(xb_dma *d, unsigned dreq, const xb_dreq_pulse_ops *ops,
			   void *ctx);
/* A pulse source's timing changed: the DMA looks again. */
void dma_dreq_changed(xb_dma *d);

/* ---- ADC (adc.c) ---- */

typedef struct xb_adc xb_adc;
/* Defaults: AIN0-2 at 0 V, AIN3 at 1.667 V (the Pico's VSYS/3 with VSYS 5 V), the die at
 * 27 degrees C. */
xb_adc *adc_new(xb_board *b, xb_resets *r);
void adc_free(xb_adc *a);
/* Input AIN0-3 in microvolts (above 3.3 V reads 4095). -1 for a bad channel. */
int adc_set_input(xb_adc *a, unsigned ch, uint32_t microvolts);
/* The die temperature the sensor (AIN4) reports, in millidegrees Celsius. */
void adc_set_temperature(xb_adc *a, int32_t millicelsius);
void adc_set_dreq(xb_adc *a, xb_dreq_fn fn, void *ctx);
int adc_dreq(const xb_adc *a, unsigned dreq);

/* ---- PWM (pwm.c) ---- */

typedef struct xb_pwm xb_pwm;
/* d may be NULL (no DREQs). */
xb_pwm *pwm_new(xb_board *b, xb_resets *r, xb_dma *d);
void pwm_free(xb_pwm *p);

/* ---- The UARTs' DMA requests (uart.c): DMACR.TXDMAE/RXDMAE gate DREQ 20/21 (UART0) and
 * 22/23 (UART1) ---- */

void uart_set_dreq(xb_uart *u, xb_dreq_fn fn, void *ctx);
int uart_dreq(const xb_uart *u, unsigned dreq);

/* ---- SIO interpolators (sio_interp.c; one pair per core inside the SIO) ---- */

typedef struct xb_interp {
	uint32_t accum[2], base[3], ctrl[2];
	unsigned index; /* 0: INTERP0 (blend mode), 1: INTERP1 (clamp mode) */
} xb_interp;
void interp_reset(xb_interp *ip, unsigned index);
/* Register at offset off (0x00-0x3C) of the interpolator; debug reads do not POP. */
uint32_t interp_read(xb_interp *ip, uint32_t off, int debug);
void interp_write(xb_interp *ip, uint32_t off, uint32_t value);

/* ---- QSPI flash chip (flashchip.c), SSI, IO_QSPI, PADS_QSPI and the boot path (ssi.c) ---- */

#include "loader.h" /* xb_boot_mode, xb_boot_info */

/* The flash chip: a 2 MB W25Q16JV-like part whose array is the board's flash buffer. The
 * SSI clocks it: flashchip_select moves /CS (low = 1), flashchip_clock is one SCK with the
 * lanes IO3:0 as the master drives them (undriven ones at 1); it returns the lanes the
 * chip drives and sets *oe to their mask. cycle is the virtual time of the edge. */
typedef struct xb_flashchip xb_flashchip;
xb_flashchip *flashchip_new(xb_board *b);
void flashchip_free(xb_flashchip *f);
/* A copy that runs no command with effects (for probing a read format). */
xb_flashchip *flashchip_probe_copy(const xb_flashchip *f);
void flashchip_select(xb_flashchip *f, int low, uint64_t cycle);
unsigned flashchip_clock(xb_flashchip *f, unsigned io, uint64_t cycle, unsigned *oe);
/* Status register n (1-3) as a read would return it at cycle (SR1 with BUSY and WEL). */
uint8_t flashchip_status(const xb_flashchip *f, unsigned n, uint64_t cycle);
void flashchip_set_status(xb_flashchip *f, unsigned n, uint8_t v);
int flashchip_busy(const xb_flashchip *f, uint64_t cycle);
/* The cycle the current program, erase or status write ends. */
uint64_t flashchip_busy_until(const xb_flashchip *f);
int flashchip_powered_down(const xb_flashchip *f);
/* Continuous read (after BBh/EBh with mode bits M5-4 = 10): 1 and *cmd the read. */
int flashchip_continuous(const xb_flashchip *f, uint8_t *cmd);
void flashchip_set_continuous(xb_flashchip *f, uint8_t cmd);
void flashchip_exit_continuous(xb_flashchip *f);
int flashchip_read_reached(const xb_flashchip *f, uint32_t *addr);

/* The SSI, IO_QSPI, PADS_QSPI and the boot path around the chip. */
typedef struct xb_qspi xb_qspi;
/* r may be NULL (no block resets). Registers a board reset hook: create it after every
 * device whose reset hook must run first (it sets the core's registers on a boot2 boot). */
xb_qspi *qspi_new(xb_board *b, xb_resets *r, xb_err *err);
void qspi_free(xb_qspi *q);
/* The bootrom's flash functions that touch the SSI and the pins (its host calls). */
enum xb_rom_flash {
	XB_ROM_FLASH_CONNECT,       /* connect_internal_flash */
	XB_ROM_FLASH_EXIT_XIP,      /* flash_exit_xip */
	XB_ROM_FLASH_ENTER_CMD_XIP, /* flash_enter_cmd_xip */
	XB_ROM_FLASH_FLUSH,         /* flash_flush_cache's /CS part */
};
void qspi_rom_call(xb_qspi *q, enum xb_rom_flash call);
/* Chooses the boot path after a load (want: auto, direct or boot2; loader_vtor: the
 * vector table the loader found) and sets the reset vector table; the next reset boots. */
void qspi_select_boot(xb_qspi *q, enum xb_boot_mode want, uint32_t loader_vtor);
void qspi_boot_info(const xb_qspi *q, struct xb_boot_info *out);
/* The bootrom's boot2 CRC-32 (datasheet 2.8.1.3.1). */
uint32_t qspi_boot2_crc(const uint8_t *data, size_t len);
/* The bootrom routes connect_internal_flash, flash_exit_xip, flash_enter_cmd_xip and
 * flash_flush_cache to q (bootrom.c). */
void bootrom_attach_qspi(xb_bootrom *r, xb_qspi *q);

#endif
