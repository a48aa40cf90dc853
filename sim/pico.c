/* pico: the virtual Pico assembled from a board, the RP2040 peripherals and the bootrom;
 * loading images, runs that stop on UART text, halts or lockups, and run summaries. */
#include "pico.h"
#include "usbctrl.h"

#include <stdlib.h>
#include <string.h>

#include "periph.h"

#define PICO_UART_KEEP (1u << 20)
#define PICO_DHCSR 0xE000EDF0u
#define PICO_DHCSR_DEBUGEN 0xA05F0001u

struct xb_pico {
	xb_board *board;
	xb_pico_options opt;
	xb_resets *resets;
	xb_watchdog *watchdog;
	xb_timer *timer;
	xb_clocks *clocks;
	xb_gpio *gpio;
	xb_sio *sio;
	xb_uart *uart;
	xb_usbctrl *usb;
	xb_bootrom *bootrom;
	xb_qspi *qspi;       /* SSI, IO_QSPI, PADS_QSPI, the flash chip, the boot path */
	xb_dma *dma;
	xb_adc *adc;
	xb_pwm *pwm;
	xb_misc *misc;
	xb_uart *uart1;
	xb_i2c *i2c[2];
	xb_spi *spi[2];
	xb_pio *pio[2];
	xb_strbuf uart_out;
	/* run_until_uart: the text and the last strlen(text) bytes sent */
	const char *until;
	size_t until_len;
	char *window;
	int matched;
	enum xb_pico_stop last_stop;
};

void pico_options_init(xb_pico_options *o)
{
	memset(o, 0, sizeof *o);
	o->debugger = 1;
}

const char *pico_stop_name(enum xb_pico_stop s)
{
	switch (s) {
	case XB_PICO_BUDGET: return "budget";
	case XB_PICO_HALTED: return "halted";
	case XB_PICO_LOCKUP: return "lockup";
	case XB_PICO_STOPPED: return "stopped";
	case XB_PICO_UART: return "uart";
	case XB_PICO_USB_BOOT: return "usb_boot";
	}
	return "?";
}

static void pico_uart_byte(void *ctx, uint8_t byte)
{
	xb_pico *p = ctx;
	if (p->uart_out.len < PICO_UART_KEEP)
		sb_append(&p->uart_out, (const char *)&byte, 1);
	if (p->opt.uart_fn)
		p->opt.uart_fn(p->opt.uart_ctx, byte);
	if (p->opt.uart_file) {
		fputc(byte, p->opt.uart_file);
		fflush(p->opt.uart_file);
	}
	if (p->until && !p->matched) {
		memmove(p->window, p->window + 1, p->until_len - 1);
		p->window[p->until_len - 1] = (char)byte;
		if (memcmp(p->window, p->until, p->until_len) == 0) {
			p->matched = 1;
			board_stop(p->board);
		}
	}
}

void pico_free(xb_pico *p)
{
	if (!p)
		return;
	board_free(p->board); /* first: the devices' contexts must outlive the bus */
	for (unsigned n = 0; n < 2; n++) {
		pio_free(p->pio[n]);
		spi_free(p->spi[n]);
		i2c_free(p->i2c[n]);
	}
	uart_free(p->uart1);
	misc_free(p->misc);
	pwm_free(p->pwm);
	adc_free(p->adc);
	dma_free(p->dma);
	usbctrl_free(p->usb);
	bootrom_free(p->bootrom);
	qspi_free(p->qspi);
	uart_free(p->uart);
	sio_free(p->sio);
	gpio_free(p->gpio);
	clocks_free(p->clocks);
	timer_free(p->timer);
	watchdog_free(p->watchdog);
	resets_free(p->resets);
	sb_free(&p->uart_out);
	free(p->window);
	free(p);
}

/* ROSC, TBMAN, VREG, SYSCFG, PSM, BUSCTRL; UART1 (its output to the log), I2C0/1, SPI0/1
 * and PIO0/1 with their DREQ lines to the DMA. -1 when an address is taken. */
static int pico_new_serial(xb_pico *p)
{
	xb_board *b = p->board;
	p->misc = misc_new(b, p->resets);
	p->uart1 = p->misc ? uart_new_index(b, p->resets, 1, misc_uart1_byte, p->misc) : NULL;
	if (!p->uart1)
		return -1;
	uart_set_dreq(p->uart1, dma_dreq_line, p->dma);
	for (unsigned n = XB_DREQ_UART0_TX + 2; n <= XB_DREQ_UART0_TX + 3; n++)
		dma_dreq_line(p->dma, n, uart_dreq(p->uart1, n));
	for (unsigned n = 0; n < 2; n++) {
		p->i2c[n] = i2c_new(b, p->resets, n);
		p->spi[n] = spi_new(b, p->resets, n);
		p->pio[n] = pio_new(b, p->resets, p->gpio, n);
		if (!p->i2c[n] || !p->spi[n] || !p->pio[n])
			return -1;
		i2c_set_dreq(p->i2c[n], dma_dreq_line, p->dma);
		spi_set_dreq(p->spi[n], dma_dreq_line, p->dma);
		pio_set_dreq(p->pio[n], dma_dreq_line, p->dma);
		for (unsigned k = 0; k < 2; k++) {
			unsigned i = XB_DREQ_I2C0_TX + 2 * n + k, s = XB_DREQ_SPI0_TX + 2 * n + k;
			dma_dreq_line(p->dma, i, i2c_dreq(p->i2c[n], i));
			dma_dreq_line(p->dma, s, spi_dreq(p->spi[n], s));
		}
		for (unsigned k = 0; k < 8; k++) {
			unsigned d = XB_DREQ_PIO0_TX0 + 8 * n + k;
			dma_dreq_line(p->dma, d, pio_dreq(p->pio[n], d));
		}
	}
	return 0;
}

xb_pico *pico_new(const xb_target *t, const xb_pico_options *o, xb_err *err)
{
	xb_pico *p = xcalloc(1, sizeof *p);
	if (o)
		p->opt = *o;
	else
		pico_options_init(&p->opt);
	p->board = board_new(t, err);
	if (!p->board) {
		free(p);
		return NULL;
	}
	xb_board *b = p->board;
	if (p->opt.log_fn)
		board_set_log(b, p->opt.log_fn, p->opt.log_ctx);
	else if (p->opt.quiet)
		board_set_log(b, NULL, NULL);
	board_set_strict(b, p->opt.strict);
	/* Order matters: RESETS first (its system reset reaches the blocks), then the blocks
	 * that depend on it and on the watchdog tick. */
	p->resets = resets_new(b);
	p->watchdog = p->resets ? watchdog_new(b) : NULL;
	p->timer = p->watchdog ? timer_new(b, p->watchdog, p->resets) : NULL;
	p->clocks = p->timer ? clocks_new(b, p->resets) : NULL;
	p->gpio = p->clocks ? gpio_new(b, p->resets) : NULL;
	p->sio = p->gpio ? sio_new(b, p->gpio) : NULL;
	p->uart = p->sio ? uart_new(b, p->resets, pico_uart_byte, p) : NULL;
	p->usb = p->uart ? usbctrl_new(b) : NULL;
	if (p->usb)
		resets_on_block(p->resets, XB_USBCTRL_RESETS_BIT, usbctrl_block_reset, p->usb);
	if (!p->usb) {
		xb_fail(err, "target %s: a peripheral's address is already taken", t->name);
		pico_free(p);
		return NULL;
	}
	/* DMA, ADC, PWM; the DMA hears the UART's and the ADC's DREQ lines and PWM wraps. */
	p->dma = dma_new(b, p->resets);
	p->adc = p->dma ? adc_new(b, p->resets) : NULL;
	p->pwm = p->adc ? pwm_new(b, p->resets, p->dma) : NULL;
	if (!p->pwm || pico_new_serial(p)) {
		xb_fail(err, "target %s: a peripheral's address is already taken", t->name);
		pico_free(p);
		return NULL;
	}
	uart_set_dreq(p->uart, dma_dreq_line, p->dma);
	adc_set_dreq(p->adc, dma_dreq_line, p->dma);
	for (unsigned n = XB_DREQ_UART0_TX; n <= XB_DREQ_UART0_RX; n++)
		dma_dreq_line(p->dma, n, uart_dreq(p->uart, n));
	dma_dreq_line(p->dma, XB_DREQ_ADC, adc_dreq(p->adc, XB_DREQ_ADC));
	p->bootrom = bootrom_new(b, err);
	if (!p->bootrom) {
		pico_free(p);
		return NULL;
	}
	/* Last: its reset hook sets the core's registers when booting through boot2. */
	p->qspi = qspi_new(b, p->resets, err);
	if (!p->qspi) {
		pico_free(p);
		return NULL;
	}
	bootrom_attach_qspi(p->bootrom, p->qspi);
	if (p->opt.trace)
		board_set_trace(b, p->opt.trace);
	pico_reset(p);
	return p;
}

xb_usbctrl *pico_usb(xb_pico *p)
{
	return p->usb;
}

xb_board *pico_board(xb_pico *p)
{
	return p->board;
}

void pico_reset(xb_pico *p)
{
	board_reset(p->board);
	if (p->opt.debugger)
		board_debug_write(p->board, PICO_DHCSR, 4, PICO_DHCSR_DEBUGEN);
}

int pico_load_file(xb_pico *p, const char *path, enum xb_image_format fmt, uint32_t bin_addr,
		   xb_load_info *info, xb_err *err)
{
	xb_load_info li;
	if (loader_load_file(p->board, path, fmt, bin_addr, &li, err))
		return -1;
	if (info)
		*info = li;
	qspi_select_boot(p->qspi, p->opt.boot, li.reset_vtor);
	pico_reset(p);
	return 0;
}

void pico_set_boot(xb_pico *p, enum xb_boot_mode mode, uint32_t vtor)
{
	p->opt.boot = mode;
	qspi_select_boot(p->qspi, mode, vtor);
}

void pico_boot_info(xb_pico *p, xb_boot_info *out)
{
	qspi_boot_info(p->qspi, out);
}

static enum xb_pico_stop pico_stop_of(const xb_pico *p, enum xb_run_result r)
{
	switch (r) {
	case XB_RUN_BUDGET: return XB_PICO_BUDGET;
	case XB_RUN_HALTED: return XB_PICO_HALTED;
	case XB_RUN_LOCKUP: return XB_PICO_LOCKUP;
	case XB_RUN_STOPPED:
		if (bootrom_usb_boot(p->bootrom, NULL, NULL))
			return XB_PICO_USB_BOOT;
		return p->matched ? XB_PICO_UART : XB_PICO_STOPPED;
	}
	return XB_PICO_STOPPED;
}

/* A core that stops does not stop the UARTs: what is in their FIFOs still goes out, as on
 * the chip, while time passes (at most a FIFO and a shift register's worth of frames, past
 * the run's budget if need be: the output is whole and the cycles say when it ended). */
static void pico_settle_uarts(xb_pico *p)
{
	xb_uart *uarts[2] = {p->uart, p->uart1};
	for (unsigned i = 0; i < 2; i++)
		for (unsigned n = 0; uarts[i] && uart_busy(uarts[i]) && uart_tx_enabled(uarts[i]) &&
				     n < 40; n++)
			board_run(p->board, uart_frame_cycles(uarts[i]));
}

enum xb_pico_stop pico_run(xb_pico *p, uint64_t cycles)
{
	if (board_locked_up(p->board))
		return p->last_stop = XB_PICO_LOCKUP;
	if (board_halted(p->board))
		return p->last_stop = XB_PICO_HALTED;
	if (bootrom_usb_boot(p->bootrom, NULL, NULL))
		return p->last_stop = XB_PICO_USB_BOOT;
	enum xb_run_result r = board_run(p->board, cycles);
	if (r == XB_RUN_HALTED || r == XB_RUN_LOCKUP)
		pico_settle_uarts(p);
	return p->last_stop = pico_stop_of(p, r);
}

enum xb_pico_stop pico_run_until_uart(xb_pico *p, const char *text, uint64_t cycles)
{
	size_t n = strlen(text);
	if (n == 0)
		return p->last_stop = XB_PICO_UART;
	free(p->window);
	p->window = xcalloc(1, n);
	p->until = text;
	p->until_len = n;
	p->matched = 0;
	enum xb_pico_stop s = pico_run(p, cycles);
	p->until = NULL;
	p->matched = 0;
	return s;
}

const char *pico_uart_output(const xb_pico *p, size_t *len)
{
	if (len)
		*len = p->uart_out.len;
	return p->uart_out.buf ? p->uart_out.buf : "";
}

void pico_summary(xb_pico *p, xb_pico_summary *s)
{
	xb_board_counters k;
	board_counters(p->board, &k);
	memset(s, 0, sizeof *s);
	s->stop = p->last_stop;
	s->cpu_hz = board_cpu_hz(p->board);
	s->cycles = k.cycles;
	s->instructions = k.instructions;
	s->sleep_cycles = k.sleep_cycles;
	s->exceptions = k.exceptions;
	s->xip_accesses = k.xip_accesses;
	s->xip_hits = k.xip_hits;
	s->xip_misses = k.xip_misses;
	s->xip_unanswered = k.xip_unanswered;
	s->faults = board_faults(p->board, &s->last_fault);
	s->pc = board_reg(p->board, XB_REG_PC);
	s->unmapped = bus_unmapped_count(board_bus(p->board));
	s->uart_bytes = uart_tx_count(p->uart);
	s->timer_us = timer_count(p->timer);
	s->usb_boot = bootrom_usb_boot(p->bootrom, &s->usb_boot_gpio_mask,
				       &s->usb_boot_disable_mask);
	s->core1_state = board_core_state(p->board, 1);
	s->core1_pc = board_core_reg(p->board, 1, XB_REG_PC);
	s->core1_instructions = k.core1_instructions;
	s->core1_faults = board_core_faults(p->board, 1, &s->core1_last_fault);
}

int pico_i2c_set_target(xb_pico *p, unsigned bus, unsigned addr7)
{
	if (bus > 1 || addr7 > 0x7F)
		return -1;
	i2c_set_target(p->i2c[bus], addr7);
	return 0;
}

int pico_adc_set_input(xb_pico *p, unsigned ch, uint32_t microvolts)
{
	return adc_set_input(p->adc, ch, microvolts);
}

void pico_adc_set_temperature(xb_pico *p, int32_t millicelsius)
{
	adc_set_temperature(p->adc, millicelsius);
}
