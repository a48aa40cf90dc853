/* adc: the RP2040's ADC on the virtual Pico (datasheet 4.9): conversions of 96 clk_adc
 * cycles in virtual time, one-shot, free-running and paced by DIV, round robin, the
 * 4-entry FIFO with its DREQ and interrupt, and inputs the host sets (AIN0-3 in volts, the
 * temperature sensor in degrees). An ideal converter: no noise, no ERR. */
#include <stdlib.h>

#include "periph.h"

enum {
	ADC_CS = 0x00,
	ADC_RESULT = 0x04,
	ADC_FCS = 0x08,
	ADC_FIFO = 0x0C,
	ADC_DIV = 0x10,
	ADC_INTR = 0x14,
	ADC_INTE = 0x18,
	ADC_INTF = 0x1C,
	ADC_INTS = 0x20,
};

#define ADC_CS_EN 0x1u
#define ADC_CS_TS_EN 0x2u
#define ADC_CS_START_ONCE 0x4u
#define ADC_CS_START_MANY 0x8u
#define ADC_CS_READY 0x100u
#define ADC_CS_AINSEL_SHIFT 12
#define ADC_CS_AINSEL_MASK (7u << ADC_CS_AINSEL_SHIFT)
#define ADC_CS_RROBIN_SHIFT 16
/* The bits CS stores: EN, TS_EN, START_MANY, AINSEL, RROBIN. */
#define ADC_CS_STORED 0x001F700Bu

#define ADC_FCS_EN 0x1u
#define ADC_FCS_SHIFT 0x2u
#define ADC_FCS_ERR 0x4u
#define ADC_FCS_DREQ_EN 0x8u
#define ADC_FCS_EMPTY 0x100u
#define ADC_FCS_FULL 0x200u
#define ADC_FCS_UNDER 0x400u
#define ADC_FCS_OVER 0x800u
#define ADC_FCS_THRESH_SHIFT 24
#define ADC_FCS_STORED 0x0F00000Fu

#define ADC_FIFO_DEPTH 4
/* A conversion takes 96 cycles of clk_adc: 2 us at 48 MHz, 500 kS/s (datasheet 4.9). */
#define ADC_CONV_CYCLES 96u
#define ADC_INPUTS 4
#define ADC_TEMP_CH 4
/* 3.3 V reference, 12 bits. */
#define ADC_VREF_UV 3300000u

enum adc_state { ADC_IDLE, ADC_WAIT, ADC_CONVERTING };

struct xb_adc {
	xb_board *board;
	uint32_t cs, fcs, div, inte, intf, result;
	int over, under;
	uint16_t fifo[ADC_FIFO_DEPTH];
	unsigned fifo_head, fifo_n;
	enum adc_state state;
	unsigned conv_ch;      /* the input sampled by the conversion in progress */
	uint32_t conv_raw;
	uint64_t conv_end;     /* its last cycle */
	uint64_t event_id;
	/* START_MANY with DIV: triggers at many_base + k * (1 + INT + FRAC/256) clk_adc
	 * cycles (the divider restarts at a DIV write and when START_MANY is set). */
	uint64_t many_base;
	uint64_t many_k;
	uint32_t input_uv[ADC_INPUTS];
	int32_t temp_mc;
	int irq_level;
	xb_dreq_lines dreq;
};

/* CPU cycles from clk_adc cycles (rounded up: the result is there at the next CPU cycle). */
static uint64_t adc_cpu_cycles(const xb_adc *a, uint64_t adc_cycles)
{
	return periph_muldiv_ceil(adc_cycles, board_cpu_hz(a->board), XB_CLK_ADC_HZ);
}

/* ---- Inputs ---- */

static uint32_t adc_raw_of(uint64_t uv)
{
	uint64_t raw = (uv * 4096 + ADC_VREF_UV / 2) / ADC_VREF_UV;
	return raw > 4095 ? 4095 : (uint32_t)raw;
}

/* The temperature sensor (datasheet 4.9.5): 0.706 V at 27 degrees C, -1.721 mV per
 * degree. Unpowered (CS.TS_EN clear) it gives 0 V. */
static uint32_t adc_sample(const xb_adc *a, unsigned ch)
{
	if (ch < ADC_INPUTS)
		return adc_raw_of(a->input_uv[ch]);
	if (ch != ADC_TEMP_CH || !(a->cs & ADC_CS_TS_EN))
		return 0;
	int64_t uv = 706000 - ((int64_t)a->temp_mc - 27000) * 1721 / 1000;
	return adc_raw_of(uv < 0 ? 0 : (uint64_t)uv);
}

int adc_set_input(xb_adc *a, unsigned ch, uint32_t microvolts)
{
	if (ch >= ADC_INPUTS)
		return -1;
	a->input_uv[ch] = microvolts;
	return 0;
}

void adc_set_temperature(xb_adc *a, int32_t millicelsius)
{
	a->temp_mc = millicelsius;
}

/* ---- FIFO, DREQ and interrupt ---- */

static unsigned adc_thresh(const xb_adc *a)
{
	return (a->fcs >> ADC_FCS_THRESH_SHIFT) & 0xF;
}

/* DREQ and INTR.FIFO: the FIFO level has reached FCS.THRESH (FCS, datasheet 4.9). */
static int adc_fifo_at_thresh(const xb_adc *a)
{
	return a->fifo_n >= adc_thresh(a);
}

int adc_dreq(const xb_adc *a, unsigned dreq)
{
	return dreq == XB_DREQ_ADC && (a->fcs & ADC_FCS_DREQ_EN) && a->fifo_n > 0 &&
	       adc_fifo_at_thresh(a);
}

void adc_set_dreq(xb_adc *a, xb_dreq_fn fn, void *ctx)
{
	a->dreq.fn = fn;
	a->dreq.ctx = ctx;
}

static uint32_t adc_ints(const xb_adc *a)
{
	return ((adc_fifo_at_thresh(a) ? 1u : 0u) & a->inte) | a->intf;
}

static void adc_update(xb_adc *a)
{
	int level = adc_ints(a) != 0;
	if (level != a->irq_level) {
		a->irq_level = level;
		board_irq_set(a->board, XB_IRQ_ADC_FIFO, level);
	}
	dreq_lines_set(&a->dreq, 0, adc_dreq(a, XB_DREQ_ADC));
}

static void adc_fifo_push(xb_adc *a, uint32_t raw)
{
	if (a->fifo_n == ADC_FIFO_DEPTH) {
		a->over = 1; /* the result is lost; the FIFO keeps what it has */
		return;
	}
	uint16_t v = (uint16_t)((a->fcs & ADC_FCS_SHIFT) ? raw >> 4 : raw);
	a->fifo[(a->fifo_head + a->fifo_n++) % ADC_FIFO_DEPTH] = v;
}

/* ---- Conversions ---- */

static void adc_event(xb_board *b, void *ctx);

static void adc_cancel(xb_adc *a)
{
	if (a->event_id)
		board_cancel(a->board, a->event_id);
	a->event_id = 0;
}

static unsigned adc_ainsel(const xb_adc *a)
{
	return (a->cs & ADC_CS_AINSEL_MASK) >> ADC_CS_AINSEL_SHIFT;
}

/* Starts a conversion at cycle at (now or the trigger that was due): the input is sampled
 * then, the result lands 96 clk_adc cycles later. */
static void adc_start(xb_adc *a, uint64_t at)
{
	adc_cancel(a);
	a->state = ADC_CONVERTING;
	a->conv_ch = adc_ainsel(a);
	a->conv_raw = adc_sample(a, a->conv_ch);
	a->conv_end = at + adc_cpu_cycles(a, ADC_CONV_CYCLES);
	a->event_id = board_schedule(a->board, a->conv_end, adc_event, a);
}

/* DIV's period in 1/256 clk_adc cycles: 1 + INT + FRAC/256 (the DIV register, 4.9). */
static uint64_t adc_period256(const xb_adc *a)
{
	return 256u + (a->div & 0xFFFFFFu);
}

static uint64_t adc_trigger_cycle(const xb_adc *a, uint64_t k)
{
	/* First-order delta-sigma: trigger k falls on clk_adc cycle floor(k * period). */
	uint64_t adc_cycles = k * adc_period256(a) / 256;
	return a->many_base + adc_cpu_cycles(a, adc_cycles);
}

/* After a conversion ends at cycle end with START_MANY set: back to back without DIV;
 * otherwise at the first divider trigger not inside the conversion (triggers that come
 * while the ADC is busy are ignored). */
static void adc_next(xb_adc *a, uint64_t end)
{
	if ((a->div & 0xFFFFFFu) == 0) {
		adc_start(a, end);
		return;
	}
	uint64_t elapsed = end - a->many_base;
	uint64_t adc_elapsed = periph_muldiv(elapsed, XB_CLK_ADC_HZ, board_cpu_hz(a->board));
	uint64_t k = adc_elapsed * 256 / adc_period256(a);
	if (k > 0)
		k--;
	while (adc_trigger_cycle(a, k) < end)
		k++;
	a->many_k = k;
	uint64_t at = adc_trigger_cycle(a, k);
	if (at <= board_cycles(a->board)) {
		adc_start(a, at);
		return;
	}
	a->state = ADC_WAIT;
	a->event_id = board_schedule(a->board, at, adc_event, a);
}

/* Round robin (CS.RROBIN): after each conversion AINSEL moves to the next enabled input
 * above it, wrapping around. */
static void adc_rrobin(xb_adc *a)
{
	unsigned mask = (a->cs >> ADC_CS_RROBIN_SHIFT) & 0x1F;
	if (!mask)
		return;
	unsigned ch = adc_ainsel(a);
	for (unsigned i = 1; i <= 5; i++) {
		unsigned n = (ch + i) % 5;
		if ((mask >> n) & 1) {
			a->cs = (a->cs & ~ADC_CS_AINSEL_MASK) | (n << ADC_CS_AINSEL_SHIFT);
			return;
		}
	}
}

static void adc_event(xb_board *b, void *ctx)
{
	(void)b;
	xb_adc *a = ctx;
	a->event_id = 0;
	if (a->state == ADC_WAIT) {
		adc_start(a, adc_trigger_cycle(a, a->many_k));
		return;
	}
	if (a->state != ADC_CONVERTING)
		return;
	a->state = ADC_IDLE;
	a->result = a->conv_raw;
	if (a->fcs & ADC_FCS_EN)
		adc_fifo_push(a, a->conv_raw);
	adc_rrobin(a);
	adc_update(a);
	if ((a->cs & (ADC_CS_EN | ADC_CS_START_MANY)) == (ADC_CS_EN | ADC_CS_START_MANY))
		adc_next(a, a->conv_end);
}

/* ---- Registers ---- */

/* ERR and ERR_STICKY stay 0: an ideal converter. */
static uint32_t adc_cs_read(const xb_adc *a)
{
	uint32_t v = a->cs;
	if ((a->cs & ADC_CS_EN) && a->state != ADC_CONVERTING)
		v |= ADC_CS_READY;
	return v;
}

static uint32_t adc_fcs_read(const xb_adc *a)
{
	uint32_t v = a->fcs | (uint32_t)a->fifo_n << 16;
	if (a->fifo_n == 0)
		v |= ADC_FCS_EMPTY;
	if (a->fifo_n == ADC_FIFO_DEPTH)
		v |= ADC_FCS_FULL;
	if (a->under)
		v |= ADC_FCS_UNDER;
	if (a->over)
		v |= ADC_FCS_OVER;
	return v;
}

static uint32_t adc_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_adc *a = ctx;
	switch (off) {
	case ADC_CS: return adc_cs_read(a);
	case ADC_RESULT: return a->result;
	case ADC_FCS: return adc_fcs_read(a);
	case ADC_FIFO: {
		if (!a->fifo_n) {
			if (!bus_access_is_debug(board_bus(a->board)))
				a->under = 1;
			return 0;
		}
		uint32_t v = a->fifo[a->fifo_head];
		if (!bus_access_is_debug(board_bus(a->board))) {
			a->fifo_head = (a->fifo_head + 1) % ADC_FIFO_DEPTH;
			a->fifo_n--;
			adc_update(a);
		}
		return v;
	}
	case ADC_DIV: return a->div;
	case ADC_INTR: return adc_fifo_at_thresh(a) ? 1 : 0;
	case ADC_INTE: return a->inte;
	case ADC_INTF: return a->intf;
	case ADC_INTS: return adc_ints(a);
	}
	bus_report_hole(board_bus(a->board));
	return 0;
}

static void adc_cs_write(xb_adc *a, uint32_t value, enum xb_alias_op op)
{
	uint32_t old = a->cs;
	uint32_t nv = bus_alias_apply(adc_cs_read(a), value, op);
	a->cs = nv & ADC_CS_STORED;
	uint64_t now = board_cycles(a->board);
	if (!(a->cs & ADC_CS_EN)) {
		/* Powered down: any conversion in progress is abandoned. */
		adc_cancel(a);
		a->state = ADC_IDLE;
		return;
	}
	int many = (a->cs & ADC_CS_START_MANY) != 0;
	int was_many = (old & (ADC_CS_START_MANY | ADC_CS_EN)) == (ADC_CS_START_MANY | ADC_CS_EN);
	if (many && !was_many) {
		a->many_base = now;
		a->many_k = 0;
		if (a->state != ADC_CONVERTING)
			adc_start(a, now);
		return;
	}
	if (!many && a->state == ADC_WAIT) {
		adc_cancel(a);
		a->state = ADC_IDLE;
	}
	/* START_ONCE self-clears; ignored while START_MANY runs or a conversion is under way. */
	if ((nv & ADC_CS_START_ONCE) && !many && a->state == ADC_IDLE)
		adc_start(a, now);
}

static void adc_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		      enum xb_alias_op op)
{
	(void)size;
	xb_adc *a = ctx;
	switch (off) {
	case ADC_CS:
		adc_cs_write(a, value, op);
		return;
	case ADC_FCS:
		if (value & ADC_FCS_UNDER)
			a->under = 0;
		if (value & ADC_FCS_OVER)
			a->over = 0;
		a->fcs = periph_rw(a->fcs, value, op, ADC_FCS_STORED);
		break;
	case ADC_DIV:
		a->div = periph_rw(a->div, value, op, 0xFFFFFFu);
		/* The divider restarts: the next trigger is a whole period away. */
		a->many_base = board_cycles(a->board);
		a->many_k = 0;
		if (a->state == ADC_WAIT) {
			adc_cancel(a);
			a->many_k = 1;
			a->state = ADC_WAIT;
			a->event_id =
				board_schedule(a->board, adc_trigger_cycle(a, 1), adc_event, a);
		}
		return;
	case ADC_INTE:
		a->inte = periph_rw(a->inte, value, op, 1);
		break;
	case ADC_INTF:
		a->intf = periph_rw(a->intf, value, op, 1);
		break;
	case ADC_RESULT:
	case ADC_FIFO:
	case ADC_INTR:
	case ADC_INTS:
		return; /* read-only */
	default:
		bus_report_hole(board_bus(a->board));
		return;
	}
	adc_update(a);
}

static const xb_device_ops adc_ops = {
	.read = adc_read,
	.write = adc_write,
};

/* RESETS bit 0 (and a system reset): powered down, FIFO empty. The inputs are the
 * outside world's and stay. */
static void adc_block_reset(void *ctx, int held)
{
	xb_adc *a = ctx;
	if (!held)
		return;
	adc_cancel(a);
	a->state = ADC_IDLE;
	a->cs = a->fcs = a->div = a->inte = a->intf = a->result = 0;
	a->over = a->under = 0;
	a->fifo_head = a->fifo_n = 0;
	adc_update(a);
}

xb_adc *adc_new(xb_board *b, xb_resets *r)
{
	xb_adc *a = xcalloc(1, sizeof *a);
	a->board = b;
	a->dreq = (xb_dreq_lines){.base = XB_DREQ_ADC, .n = 1};
	a->input_uv[3] = 5000000u / 3; /* the Pico's VSYS/3 with VSYS at 5 V */
	a->temp_mc = 27000;
	adc_block_reset(a, 1);
	if (bus_map(board_bus(b), XB_ADC_BASE, 0x24, "ADC", &adc_ops, a)) {
		free(a);
		return NULL;
	}
	resets_on_block(r, XB_RESET_ADC, adc_block_reset, a);
	return a;
}

void adc_free(xb_adc *a)
{
	free(a);
}
