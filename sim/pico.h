/* pico: the virtual Pico as a whole: a board with every RP2040 peripheral xipbench models and
 * its own bootrom, loading a firmware image, running it until something happens, and a
 * summary of the run. docs/sim.md describes the devices. */
#ifndef XB_PICO_H
#define XB_PICO_H

#include <stdint.h>
#include <stdio.h>

#include "../core/trace.h"
#include "../core/util.h"
#include "board.h"
#include "loader.h"

typedef struct xb_pico xb_pico;

/* Receives each byte UART0 transmits, as it is transmitted. */
typedef void (*xb_pico_uart_fn)(void *ctx, uint8_t byte);

typedef struct xb_pico_options {
	int strict;       /* unmapped accesses are bus errors (HardFault), not reads of 0 */
	int debugger;     /* attach the virtual debugger (DHCSR.C_DEBUGEN) after every reset,
			   * so that a BKPT halts the core (run result "halted") instead of
			   * faulting; on by default */
	xb_pico_uart_fn uart_fn; /* optional */
	void *uart_ctx;
	FILE *uart_file;  /* optional: UART0 bytes are written and flushed here as they go */
	xb_trace_stream *trace; /* optional fetch trace (board_set_trace); the caller opens,
				 * closes and owns it */
	xb_log_fn log_fn; /* reports (unmapped accesses, flash misuse); NULL: stderr, "sim: " */
	void *log_ctx;
	int quiet;        /* with log_fn NULL: no reports at all */
	enum xb_boot_mode boot; /* how pico_load_file's image starts (loader.h): auto (default),
				 * direct, or through boot2 as the chip does */
} xb_pico_options;

/* Defaults: not strict, debugger attached, no UART sink, no trace, reports to stderr. */
void pico_options_init(xb_pico_options *o);

/* A powered-on Pico for target t (targets/rp2040.target): devices mapped, bootrom loaded,
 * flash erased, nothing to run yet. o may be NULL (defaults); it is copied. NULL with err
 * set when the target cannot make a board or lacks the ROM the bootrom needs. */
xb_pico *pico_new(const xb_target *t, const xb_pico_options *o, xb_err *err);
void pico_free(xb_pico *p);

/* The board inside (owned by the pico): for bus access, counters, the debug port. */
xb_board *pico_board(xb_pico *p);

struct xb_usbctrl;
/* The USB device controller (owned by the pico): plug a virtual host into it
 * (usbhost_new(pico_board(p), pico_usb(p), ...)). */
struct xb_usbctrl *pico_usb(xb_pico *p);

/* The ADC's analog inputs (sim/adc.c): AIN0-3 in microvolts (GPIO26-29; -1 for another
 * channel) and the die temperature the sensor reports, in millidegrees Celsius. Defaults:
 * 0 V, AIN3 1.667 V (VSYS/3), 27 degrees. */
int pico_adc_set_input(xb_pico *p, unsigned ch, uint32_t microvolts);
void pico_adc_set_temperature(xb_pico *p, int32_t millicelsius);

/* The address the virtual I2C target on I2C0 or I2C1 (bus 0 or 1, sim/i2c.c) answers at:
 * 7 bits, default 0x50. -1 for another bus or an address above 0x7F. */
int pico_i2c_set_target(xb_pico *p, unsigned bus, unsigned addr7);

/* Loads an image file (loader_load_file: fmt AUTO detects ELF or UF2; XB_IMAGE_BIN goes to
 * bin_addr), then resets. info may be NULL. On failure the board is unchanged. */
int pico_load_file(xb_pico *p, const char *path, enum xb_image_format fmt, uint32_t bin_addr,
		   xb_load_info *info, xb_err *err);
/* The boot path (loader.h, xb_boot_mode) for the image in flash, with vtor the vector table
 * a direct start uses (pico_load_file does this with the options' mode); the next reset
 * boots that way. */
void pico_set_boot(xb_pico *p, enum xb_boot_mode mode, uint32_t vtor);
/* How the last load chose to boot and what the last boot2 check found. */
void pico_boot_info(xb_pico *p, xb_boot_info *out);
/* System reset (board_reset), then the debugger is attached again if the options say so. */
void pico_reset(xb_pico *p);

/* How a run ended. */
enum xb_pico_stop {
	XB_PICO_BUDGET = 0, /* the cycle budget was spent */
	XB_PICO_HALTED,     /* the core halted (a BKPT under the debugger, a halt request) */
	XB_PICO_LOCKUP,     /* the core locked up */
	XB_PICO_STOPPED,    /* board_stop from elsewhere */
	XB_PICO_UART,       /* the awaited text appeared on UART0 */
	XB_PICO_USB_BOOT,   /* the firmware called the bootrom's reset_to_usb_boot: the chip
			     * would reboot into BOOTSEL mode; runs return at once until a reset */
};
const char *pico_stop_name(enum xb_pico_stop s);

/* Runs up to cycles of virtual time; returns at once when the core is already halted or
 * locked up. */
enum xb_pico_stop pico_run(xb_pico *p, uint64_t cycles);
/* The same, but also stops right after the instruction that completes text on UART0
 * (counting only bytes sent during this call). */
enum xb_pico_stop pico_run_until_uart(xb_pico *p, const char *text, uint64_t cycles);

/* Everything UART0 has sent since pico_new (the first 1 MiB of it; later bytes are counted
 * in the summary but not kept). NUL-terminated; *len may be NULL. */
const char *pico_uart_output(const xb_pico *p, size_t *len);

typedef struct xb_pico_summary {
	enum xb_pico_stop stop;   /* how the last run ended */
	uint32_t cpu_hz;
	uint64_t cycles, instructions, sleep_cycles, exceptions;
	uint64_t xip_accesses, xip_hits, xip_misses;
	uint64_t xip_unanswered;  /* flash reads while the flash could not answer (board.h) */
	uint64_t faults;          /* HardFaults and lockups since pico_new */
	xb_fault last_fault;      /* zeroed when faults == 0 */
	uint32_t pc;              /* the next instruction the core would execute */
	uint64_t unmapped;        /* accesses nothing answered (all, not only reported ones) */
	uint64_t uart_bytes;      /* bytes UART0 transmitted */
	uint64_t timer_us;        /* the TIMER's microsecond counter */
	int usb_boot;             /* reset_to_usb_boot was called (since the last reset), with: */
	uint32_t usb_boot_gpio_mask, usb_boot_disable_mask;
	/* Core 1: a core that stops does not end the run (core 0 goes on, as on the chip);
	 * the summary says what it was doing. */
	const char *core1_state;  /* board_core_state */
	uint32_t core1_pc;
	uint64_t core1_instructions;
	uint64_t core1_faults;
	xb_fault core1_last_fault;
} xb_pico_summary;
void pico_summary(xb_pico *p, xb_pico_summary *s);

#endif
