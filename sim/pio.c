/* pio: PIO0 and PIO1 of the virtual Pico (RP2040 datasheet chapter 3): four state machines
 * each, 32 words of shared instruction memory, the nine instructions with side-set and
 * delay, autopush and autopull at their thresholds, FIFO joins, the fractional clock
 * divider, wrap, instructions executed through SMx_INSTR, OUT EXEC and MOV EXEC, the IRQ
 * flags and the two interrupt lines of each block, DMA request lines, and the pins through
 * IO_BANK0 (FUNCSEL 6 and 7).
 *
 * Time: a state machine executes at most one instruction per clock enable of its divider
 * (datasheet 3.5.5: INT + FRAC/256 clk_sys cycles apart; clk_sys is the CPU's clock). The
 * machines are not stepped with the CPU instruction by instruction: every access to the
 * block first brings them up to the current cycle ("catch up"), in cycle order, so what
 * the CPU sees in the FIFOs and registers is what it would see at that cycle. While a
 * machine can make progress on its own, an event catches up at least every PIO_BATCH
 * cycles, so pins and interrupt lines follow with at most that lag. Machines that all wait
 * for the CPU (an empty TX FIFO, a full RX FIFO, an IRQ flag) cost nothing until it acts. */
#include <stdlib.h>
#include <string.h>

#include "periph.h"

enum {
	PIO_CTRL = 0x000,
	PIO_FSTAT = 0x004,
	PIO_FDEBUG = 0x008,
	PIO_FLEVEL = 0x00C,
	PIO_TXF0 = 0x010,
	PIO_RXF0 = 0x020,
	PIO_IRQ = 0x030,
	PIO_IRQ_FORCE = 0x034,
	PIO_INPUT_SYNC_BYPASS = 0x038,
	PIO_DBG_PADOUT = 0x03C,
	PIO_DBG_PADOE = 0x040,
	PIO_DBG_CFGINFO = 0x044,
	PIO_INSTR_MEM0 = 0x048,
	PIO_SM0 = 0x0C8, /* CLKDIV, EXECCTRL, SHIFTCTRL, ADDR, INSTR, PINCTRL per machine */
	PIO_SM_STRIDE = 0x18,
	PIO_INTR = 0x128,
	PIO_IRQ0_INTE = 0x12C, /* INTE, INTF, INTS; IRQ1's at 0x138 */
	PIO_SIZE = 0x144,
};

enum { SM_CLKDIV, SM_EXECCTRL, SM_SHIFTCTRL, SM_ADDR, SM_INSTR, SM_PINCTRL };

#define PIO_SMS 4
#define PIO_MEM 32
#define PIO_FIFO 4
/* FIFO_DEPTH 4, SM_COUNT 4, IMEM_SIZE 32 */
#define PIO_CFGINFO 0x00200404u
#define PIO_BATCH 32
/* The interval while the machines move FIFO words: DREQs and FIFO interrupts follow
 * within a few cycles, so DMA keeps a fast machine fed. */
#define PIO_BATCH_FIFO 4

/* SMx_EXECCTRL */
#define EX_STATUS_N 0x0000000Fu
#define EX_STATUS_SEL 0x00000010u
#define EX_WRAP_BOTTOM_SHIFT 7
#define EX_WRAP_TOP_SHIFT 12
#define EX_JMP_PIN_SHIFT 24
#define EX_SIDE_PINDIR 0x20000000u
#define EX_SIDE_EN 0x40000000u
#define EX_EXEC_STALLED 0x80000000u
#define EX_MASK 0x7FFFFF9Fu
#define EX_RESET 0x0001F000u
/* SMx_SHIFTCTRL */
#define SH_AUTOPUSH 0x00010000u
#define SH_AUTOPULL 0x00020000u
#define SH_IN_RIGHT 0x00040000u
#define SH_OUT_RIGHT 0x00080000u
#define SH_PUSH_THRESH_SHIFT 20
#define SH_PULL_THRESH_SHIFT 25
#define SH_FJOIN_TX 0x40000000u
#define SH_FJOIN_RX 0x80000000u
#define SH_MASK 0xFFFF0000u
#define SH_RESET 0x000C0000u
/* SMx_PINCTRL fields: OUT_BASE 4:0, SET_BASE 9:5, SIDESET_BASE 14:10, IN_BASE 19:15,
 * OUT_COUNT 25:20, SET_COUNT 28:26, SIDESET_COUNT 31:29 */
#define PC_RESET 0x14000000u
#define CLKDIV_RESET 0x00010000u
/* FDEBUG */
#define FD_RXSTALL 0
#define FD_RXUNDER 8
#define FD_TXOVER 16
#define FD_TXSTALL 24

/* What a stalled machine waits for. */
enum {
	WAIT_NONE = 0,
	WAIT_CPU,  /* TX data, RX room or an IRQ flag: only the CPU or another machine helps */
	WAIT_PIN,  /* a pin level: IO_BANK0 says when an input changes (gpio_on_input) */
};

typedef struct pio_sm {
	uint32_t clkdiv, execctrl, shiftctrl, pinctrl;
	uint32_t pc;
	uint32_t x, y, isr, osr;
	unsigned isr_count, osr_count;
	uint32_t tx[2 * PIO_FIFO], rx[2 * PIO_FIFO];
	unsigned tx_head, tx_count, rx_head, rx_count;
	unsigned delay;     /* delay cycles left after the last instruction */
	int stall;          /* WAIT_*: the current instruction stalled */
	int irq_waiting;    /* an IRQ ... wait has set its flag and waits for it to clear */
	uint16_t exec;      /* an instruction to execute instead of the next fetch */
	int exec_pending;
	uint64_t tick_at;   /* the next clock enable, in 1/256 cycles */
} pio_sm;

struct xb_pio {
	xb_board *board;
	xb_gpio *gpio;
	unsigned index;
	uint16_t mem[PIO_MEM];
	pio_sm sm[PIO_SMS];
	uint32_t ctrl, fdebug, irq, sync_bypass;
	uint32_t inte[2], intf[2];
	uint32_t pad_out, pad_oe;
	uint32_t sent_out, sent_oe; /* what IO_BANK0 was last told */
	uint64_t done_to;   /* cycle the machines have been brought up to */
	int catching_up;
	int fifo_busy;      /* the last event's catch-up moved FIFO words */
	uint64_t event;
	int irq_level[2];
	xb_dreq_lines dreq; /* TX0-3, RX0-3 */
};

static xb_bus *pio_bus(xb_pio *p)
{
	return board_bus(p->board);
}

/* ---- FIFOs (3.2.4: 4 deep each, 8 in one direction when joined) ---- */

static unsigned tx_depth(const pio_sm *s)
{
	return (s->shiftctrl & SH_FJOIN_RX) ? 0 : (s->shiftctrl & SH_FJOIN_TX) ? 8 : 4;
}

static unsigned rx_depth(const pio_sm *s)
{
	return (s->shiftctrl & SH_FJOIN_TX) ? 0 : (s->shiftctrl & SH_FJOIN_RX) ? 8 : 4;
}

static int tx_pop(pio_sm *s, uint32_t *v)
{
	if (!s->tx_count)
		return 0;
	*v = s->tx[s->tx_head];
	s->tx_head = (s->tx_head + 1) % (2 * PIO_FIFO);
	s->tx_count--;
	return 1;
}

static int rx_push(pio_sm *s, uint32_t v)
{
	if (s->rx_count >= rx_depth(s))
		return 0;
	s->rx[(s->rx_head + s->rx_count) % (2 * PIO_FIFO)] = v;
	s->rx_count++;
	return 1;
}

static void fifo_flush(pio_sm *s)
{
	s->tx_head = s->tx_count = s->rx_head = s->rx_count = 0;
}

/* ---- Interrupts and DMA requests ---- */

/* INTR: RXNEMPTY 3:0, TXNFULL 7:4, IRQ flags 0-3 at 11:8 (3.7). */
static uint32_t pio_intr(const xb_pio *p)
{
	uint32_t v = (p->irq & 0xF) << 8;
	for (unsigned n = 0; n < PIO_SMS; n++) {
		const pio_sm *s = &p->sm[n];
		if (s->rx_count)
			v |= 1u << n;
		if (s->tx_count < tx_depth(s))
			v |= 1u << (4 + n);
	}
	return v;
}

static uint32_t pio_ints(const xb_pio *p, unsigned line)
{
	return ((pio_intr(p) & p->inte[line]) | p->intf[line]) & 0xFFF;
}

static void pio_update(xb_pio *p)
{
	for (unsigned line = 0; line < 2; line++) {
		int level = pio_ints(p, line) != 0;
		if (level != p->irq_level[line]) {
			p->irq_level[line] = level;
			board_irq_set(p->board, XB_IRQ_PIO0_0 + 2 * p->index + line, level);
		}
	}
	/* DREQ_PIOn_TXm while TX FIFO m has room, RXm while RX FIFO m has data (2.5.3.1). */
	for (unsigned k = 0; k < 8; k++) {
		const pio_sm *s = &p->sm[k % 4];
		dreq_lines_set(&p->dreq, k, k < 4 ? s->tx_count < tx_depth(s) : s->rx_count > 0);
	}
}

/* ---- Pins ---- */

static void pins_commit(xb_pio *p)
{
	if (p->pad_out == p->sent_out && p->pad_oe == p->sent_oe)
		return;
	p->sent_out = p->pad_out;
	p->sent_oe = p->pad_oe;
	gpio_set_pio(p->gpio, p->index, p->pad_out, p->pad_oe);
}

/* Writes count pins from base (wrapping at 32) with the low bits of v, to the levels or
 * (dirs) the directions. */
static void pins_write(xb_pio *p, unsigned base, unsigned count, uint32_t v, int dirs)
{
	uint32_t *r = dirs ? &p->pad_oe : &p->pad_out;
	for (unsigned i = 0; i < count; i++) {
		uint32_t bit = 1u << ((base + i) & 31);
		*r = (v >> i) & 1 ? *r | bit : *r & ~bit;
	}
}

/* The 32 input pins rotated so that bit 0 is pin base (IN PINS, MOV x, PINS). */
static uint32_t pins_read(const xb_pio *p, unsigned base)
{
	uint32_t in = gpio_input(p->gpio);
	base &= 31;
	return base ? (in >> base) | (in << (32 - base)) : in;
}

static int pin_level(const xb_pio *p, unsigned pin)
{
	return (gpio_input(p->gpio) >> (pin & 31)) & 1;
}

/* ---- The state machines ---- */

static unsigned thresh(uint32_t shiftctrl, unsigned shift)
{
	unsigned t = (shiftctrl >> shift) & 0x1F;
	return t ? t : 32;
}

/* The IRQ number an IRQ or WAIT IRQ index names: bit 4 (REL) adds the machine number to
 * the low two bits, modulo 4 (3.4.9.2). */
static unsigned irq_index(unsigned idx, unsigned sm)
{
	unsigned n = idx & 7;
	if (idx & 0x10)
		n = (n & 4) | ((n + sm) & 3);
	return n;
}

static void sm_set_pc(pio_sm *s, uint32_t pc)
{
	s->pc = pc & 31;
}

/* Shifts n bits out of the OSR (3.5.4) and returns them. */
static uint32_t osr_shift(pio_sm *s, unsigned n)
{
	uint32_t data;
	if (s->shiftctrl & SH_OUT_RIGHT) {
		data = n == 32 ? s->osr : s->osr & ((1u << n) - 1);
		s->osr = n == 32 ? 0 : s->osr >> n;
	} else {
		data = n == 32 ? s->osr : s->osr >> (32 - n);
		s->osr = n == 32 ? 0 : s->osr << n;
	}
	s->osr_count = s->osr_count + n > 32 ? 32 : s->osr_count + n;
	return data;
}

/* The ISR after shifting in the low n bits of data (3.5.4). */
static uint32_t isr_shifted(const pio_sm *s, uint32_t data, unsigned n)
{
	if (n < 32)
		data &= (1u << n) - 1;
	if (s->shiftctrl & SH_IN_RIGHT)
		return n == 32 ? data : (s->isr >> n) | (data << (32 - n));
	return n == 32 ? data : (s->isr << n) | data;
}

/* Executes instr on machine n. Returns 1 when it completed, 0 when it stalls (it is
 * issued again at the next clock enable); *jumped is set when it wrote the PC. */
static int sm_exec(xb_pio *p, unsigned n, uint16_t instr, int *jumped)
{
	pio_sm *s = &p->sm[n];
	unsigned op = instr >> 13, arg1 = (instr >> 5) & 7, arg2 = instr & 0x1F;
	unsigned cnt = arg2 ? arg2 : 32;
	uint32_t pinctrl = s->pinctrl;
	unsigned out_base = pinctrl & 0x1F, set_base = (pinctrl >> 5) & 0x1F;
	unsigned in_base = (pinctrl >> 15) & 0x1F, out_count = (pinctrl >> 20) & 0x3F;
	unsigned set_count = (pinctrl >> 26) & 7;
	s->stall = WAIT_NONE;
	switch (op) {
	case 0: { /* JMP (3.4.2) */
		int take;
		switch (arg1) {
		case 0: take = 1; break;
		case 1: take = s->x == 0; break;
		case 2: take = s->x != 0; s->x--; break;
		case 3: take = s->y == 0; break;
		case 4: take = s->y != 0; s->y--; break;
		case 5: take = s->x != s->y; break;
		case 6: take = pin_level(p, s->execctrl >> EX_JMP_PIN_SHIFT); break;
		default: take = s->osr_count < thresh(s->shiftctrl, SH_PULL_THRESH_SHIFT); break;
		}
		if (take) {
			sm_set_pc(s, arg2);
			*jumped = 1;
		}
		return 1;
	}
	case 1: { /* WAIT (3.4.3) */
		unsigned pol = (instr >> 7) & 1, src = (instr >> 5) & 3;
		int met;
		if (src == 0 || src == 1) {
			unsigned pin = src == 0 ? arg2 : in_base + arg2;
			met = pin_level(p, pin) == (int)pol;
			if (!met)
				s->stall = WAIT_PIN;
		} else if (src == 2) {
			uint32_t bit = 1u << irq_index(arg2, n);
			met = ((p->irq & bit) != 0) == (int)pol;
			if (met && pol)
				p->irq &= ~bit; /* WAIT 1 IRQ clears the flag it waited for */
			if (!met)
				s->stall = WAIT_CPU;
		} else {
			return 1; /* reserved source: taken as a no-op */
		}
		return met;
	}
	case 2: { /* IN (3.4.4) */
		uint32_t data;
		switch (arg1) {
		case 0: data = pins_read(p, in_base); break;
		case 1: data = s->x; break;
		case 2: data = s->y; break;
		case 6: data = s->isr; break;
		case 7: data = s->osr; break;
		default: data = 0; break; /* NULL and the reserved sources */
		}
		uint32_t isr = isr_shifted(s, data, cnt);
		unsigned count = s->isr_count + cnt > 32 ? 32 : s->isr_count + cnt;
		if ((s->shiftctrl & SH_AUTOPUSH) &&
		    count >= thresh(s->shiftctrl, SH_PUSH_THRESH_SHIFT)) {
			if (!rx_push(s, isr)) {
				p->fdebug |= 1u << (FD_RXSTALL + n);
				s->stall = WAIT_CPU;
				return 0;
			}
			s->isr = 0;
			s->isr_count = 0;
			return 1;
		}
		s->isr = isr;
		s->isr_count = count;
		return 1;
	}
	case 3: { /* OUT (3.4.5) */
		int autopull = (s->shiftctrl & SH_AUTOPULL) != 0;
		unsigned pull_at = thresh(s->shiftctrl, SH_PULL_THRESH_SHIFT);
		if (autopull && s->osr_count >= pull_at) {
			/* An empty OSR is refilled and the OUT stalls for that cycle: the chip
			 * cannot fill the OSR and shift it out in one cycle (3.5.4.2). */
			uint32_t v;
			if (!tx_pop(s, &v)) {
				p->fdebug |= 1u << (FD_TXSTALL + n);
				s->stall = WAIT_CPU;
				return 0;
			}
			s->osr = v;
			s->osr_count = 0;
			return 0;
		}
		uint32_t data = osr_shift(s, cnt);
		switch (arg1) {
		case 0: pins_write(p, out_base, out_count, data, 0); break;
		case 1: s->x = data; break;
		case 2: s->y = data; break;
		case 3: break; /* NULL */
		case 4: pins_write(p, out_base, out_count, data, 1); break;
		case 5:
			sm_set_pc(s, data);
			*jumped = 1;
			break;
		case 6:
			s->isr = data;
			s->isr_count = cnt;
			break;
		case 7:
			s->exec = (uint16_t)data;
			s->exec_pending = 1;
			break;
		}
		/* Autopull refills an emptied OSR at once when the TX FIFO has data. */
		if (autopull && s->osr_count >= pull_at) {
			uint32_t v;
			if (tx_pop(s, &v)) {
				s->osr = v;
				s->osr_count = 0;
			}
		}
		return 1;
	}
	case 4: {
		unsigned if_flag = (instr >> 6) & 1, block = (instr >> 5) & 1;
		if (!(instr & 0x80)) { /* PUSH (3.4.6) */
			if (if_flag && s->isr_count < thresh(s->shiftctrl, SH_PUSH_THRESH_SHIFT))
				return 1;
			if (!rx_push(s, s->isr)) {
				if (block) {
					p->fdebug |= 1u << (FD_RXSTALL + n);
					s->stall = WAIT_CPU;
					return 0;
				}
				/* A non-blocking PUSH to a full FIFO loses the data
				 * (RXSTALL says so, 3.4.6.2). */
				p->fdebug |= 1u << (FD_RXSTALL + n);
			}
			s->isr = 0;
			s->isr_count = 0;
			return 1;
		}
		/* PULL (3.4.7) */
		unsigned pull_at = thresh(s->shiftctrl, SH_PULL_THRESH_SHIFT);
		if (if_flag && s->osr_count < pull_at)
			return 1;
		if ((s->shiftctrl & SH_AUTOPULL) && s->osr_count == 0)
			return 1; /* with autopull a PULL of a full OSR does nothing */
		uint32_t v;
		if (tx_pop(s, &v)) {
			s->osr = v;
		} else if (block) {
			p->fdebug |= 1u << (FD_TXSTALL + n);
			s->stall = WAIT_CPU;
			return 0;
		} else {
			s->osr = s->x; /* a non-blocking PULL of an empty FIFO copies X */
		}
		s->osr_count = 0;
		return 1;
	}
	case 5: { /* MOV (3.4.8) */
		uint32_t v;
		switch (instr & 7) {
		case 0: v = pins_read(p, in_base); break;
		case 1: v = s->x; break;
		case 2: v = s->y; break;
		case 5: {
			unsigned level = (s->execctrl & EX_STATUS_SEL) ? s->rx_count : s->tx_count;
			v = level < (s->execctrl & EX_STATUS_N) ? 0xFFFFFFFFu : 0;
			break;
		}
		case 6: v = s->isr; break;
		case 7: v = s->osr; break;
		default: v = 0; break; /* NULL and reserved */
		}
		unsigned mop = (instr >> 3) & 3;
		if (mop == 1)
			v = ~v;
		else if (mop == 2)
			v = periph_bitrev(v);
		switch (arg1) {
		case 0: pins_write(p, out_base, out_count, v, 0); break;
		case 1: s->x = v; break;
		case 2: s->y = v; break;
		case 4:
			s->exec = (uint16_t)v;
			s->exec_pending = 1;
			break;
		case 5:
			sm_set_pc(s, v);
			*jumped = 1;
			break;
		case 6:
			s->isr = v;
			s->isr_count = 0;
			break;
		case 7:
			s->osr = v;
			s->osr_count = 0;
			break;
		default: break; /* reserved */
		}
		return 1;
	}
	case 6: { /* IRQ (3.4.9) */
		unsigned clr = (instr >> 6) & 1, wait = (instr >> 5) & 1;
		uint32_t bit = 1u << irq_index(arg2, n);
		if (clr) {
			p->irq &= ~bit;
			return 1;
		}
		if (!s->irq_waiting) {
			p->irq |= bit;
			if (!wait)
				return 1;
			s->irq_waiting = 1;
		}
		if (p->irq & bit) {
			s->stall = WAIT_CPU;
			return 0;
		}
		s->irq_waiting = 0;
		return 1;
	}
	default: /* SET (3.4.10) */
		switch (arg1) {
		case 0: pins_write(p, set_base, set_count, arg2, 0); break;
		case 1: s->x = arg2; break;
		case 2: s->y = arg2; break;
		case 4: pins_write(p, set_base, set_count, arg2, 1); break;
		default: break; /* reserved */
		}
		return 1;
	}
}

/* Side-set (3.5.1): the top SIDESET_COUNT bits of the delay/side-set field, the first an
 * enable when EXECCTRL.SIDE_EN; applied when the instruction issues, even if it stalls.
 * Returns the delay. */
static unsigned sm_side_set(xb_pio *p, const pio_sm *s, uint16_t instr)
{
	unsigned field = (instr >> 8) & 0x1F, count = s->pinctrl >> 29;
	if (count > 5)
		count = 5;
	unsigned delay = field & ((1u << (5 - count)) - 1);
	if (count) {
		unsigned side = field >> (5 - count), bits = count;
		int enabled = 1;
		if (s->execctrl & EX_SIDE_EN) {
			bits = count - 1;
			enabled = (side >> bits) & 1;
		}
		if (enabled && bits)
			pins_write(p, (s->pinctrl >> 10) & 0x1F, bits, side,
				   (s->execctrl & EX_SIDE_PINDIR) != 0);
	}
	return delay;
}

/* Autopull between OUTs (3.5.4.2): on every cycle that is not an OUT, an OSR shifted to
 * the threshold is refilled as soon as the TX FIFO has data. */
static void sm_background_pull(pio_sm *s)
{
	uint32_t v;
	if ((s->shiftctrl & SH_AUTOPULL) &&
	    s->osr_count >= thresh(s->shiftctrl, SH_PULL_THRESH_SHIFT) && tx_pop(s, &v)) {
		s->osr = v;
		s->osr_count = 0;
	}
}

/* One clock enable of machine n. */
static void sm_step(xb_pio *p, unsigned n)
{
	pio_sm *s = &p->sm[n];
	if (s->delay) {
		s->delay--;
		sm_background_pull(s);
		return;
	}
	int from_exec = s->exec_pending;
	uint16_t instr = from_exec ? s->exec : p->mem[s->pc];
	s->exec_pending = 0; /* an OUT EXEC or MOV EXEC may latch the next one */
	unsigned delay = sm_side_set(p, s, instr);
	int jumped = 0;
	int done = sm_exec(p, n, instr, &jumped);
	if (instr >> 13 != 3)
		sm_background_pull(s);
	if (!done) {
		if (from_exec) {
			s->exec = instr;
			s->exec_pending = 1;
			s->execctrl |= EX_EXEC_STALLED;
		}
		return;
	}
	if (s->exec_pending)
		delay = 0; /* OUT EXEC, MOV EXEC: their own delay is ignored (3.4.5.2) */
	if (from_exec) {
		/* An executed instruction leaves the PC alone unless it writes it. */
		s->execctrl &= ~EX_EXEC_STALLED;
	} else if (!jumped) {
		unsigned top = (s->execctrl >> EX_WRAP_TOP_SHIFT) & 0x1F;
		unsigned bottom = (s->execctrl >> EX_WRAP_BOTTOM_SHIFT) & 0x1F;
		s->pc = s->pc == top ? bottom : (s->pc + 1) & 31;
	}
	s->delay = delay;
}

/* ---- Time ---- */

/* The divider in 1/256 cycles: INT + FRAC/256, INT 0 meaning 65536 (3.5.5). */
static uint64_t sm_div(const pio_sm *s)
{
	uint64_t i = s->clkdiv >> 16, f = (s->clkdiv >> 8) & 0xFF;
	return (i ? i : 65536) * 256 + (i ? f : 0);
}

static int sm_enabled(const xb_pio *p, unsigned n)
{
	return (p->ctrl >> n) & 1;
}

/* Brings every enabled machine up to cycle now (inclusive), one clock enable at a time
 * in cycle order (machine 0 first within a cycle). */
static void pio_catch_up(xb_pio *p, uint64_t now)
{
	if (now < p->done_to || p->catching_up)
		return;
	p->catching_up = 1;
	for (;;) {
		/* All enabled machines waiting on the CPU: skip to now. */
		int any = 0, runnable = 0;
		for (unsigned n = 0; n < PIO_SMS; n++)
			if (sm_enabled(p, n)) {
				any = 1;
				if (p->sm[n].delay || p->sm[n].stall == WAIT_NONE)
					runnable = 1;
			}
		if (!any)
			break;
		if (!runnable) {
			for (unsigned n = 0; n < PIO_SMS; n++) {
				pio_sm *s = &p->sm[n];
				if (!sm_enabled(p, n) || (s->tick_at >> 8) > now)
					continue;
				uint64_t div = sm_div(s), behind = (now + 1) * 256 - s->tick_at;
				s->tick_at += (behind + div - 1) / div * div;
			}
			break;
		}
		uint64_t best = UINT64_MAX;
		for (unsigned n = 0; n < PIO_SMS; n++)
			if (sm_enabled(p, n) && (p->sm[n].tick_at >> 8) < best)
				best = p->sm[n].tick_at >> 8;
		if (best > now)
			break;
		for (unsigned n = 0; n < PIO_SMS; n++) {
			pio_sm *s = &p->sm[n];
			if (sm_enabled(p, n) && (s->tick_at >> 8) == best) {
				sm_step(p, n);
				s->tick_at += sm_div(s);
			}
		}
		/* Pins change in the cycle they are written: machines reading them next
		 * cycle (or the SIO) see the new levels. */
		pins_commit(p);
	}
	p->done_to = now;
	p->catching_up = 0;
}

static void pio_event(xb_board *b, void *ctx);

/* The CPU has changed something a waiting machine may need: every machine tries its
 * instruction again at its next clock enable. */
static void pio_wake(xb_pio *p)
{
	for (unsigned n = 0; n < PIO_SMS; n++)
		if (p->sm[n].stall == WAIT_CPU)
			p->sm[n].stall = WAIT_NONE;
}

static void pio_reschedule(xb_pio *p);
static uint32_t pio_flevel(const xb_pio *p);

/* An input level changed (a pin this block or the other drives, the SIO, IO_BANK0 or
 * PADS_BANK0): the machines waiting on pins look again from their next clock enable. */
static void pio_input_changed(void *ctx)
{
	xb_pio *p = ctx;
	int inside = p->catching_up;
	if (!inside)
		pio_catch_up(p, board_cycles(p->board));
	for (unsigned n = 0; n < PIO_SMS; n++)
		if (p->sm[n].stall == WAIT_PIN)
			p->sm[n].stall = WAIT_NONE;
	if (!inside)
		pio_reschedule(p);
}

/* Keeps an event pending while some machine can make progress without the CPU. */
static void pio_reschedule(xb_pio *p)
{
	uint64_t now = board_cycles(p->board), next = UINT64_MAX;
	for (unsigned n = 0; n < PIO_SMS; n++) {
		const pio_sm *s = &p->sm[n];
		if (sm_enabled(p, n) && (s->delay || s->stall == WAIT_NONE) &&
		    (s->tick_at >> 8) < next)
			next = s->tick_at >> 8;
	}
	if (p->event) {
		board_cancel(p->board, p->event);
		p->event = 0;
	}
	if (next == UINT64_MAX)
		return;
	uint64_t batch = p->fifo_busy ? PIO_BATCH_FIFO : PIO_BATCH;
	if (next < now + batch)
		next = now + batch;
	p->event = board_schedule(p->board, next, pio_event, p);
}

static void pio_event(xb_board *b, void *ctx)
{
	xb_pio *p = ctx;
	p->event = 0;
	uint32_t levels = pio_flevel(p);
	pio_catch_up(p, board_cycles(b));
	p->fifo_busy = pio_flevel(p) != levels;
	pio_update(p);
	pio_reschedule(p);
}

/* ---- Registers ---- */

/* Machine n restarted (CTRL.SM_RESTART, 3.5.6 / 3.7): shift counters, ISR, delay, stalls,
 * IRQ waits and the EXEC latch are cleared; PC, X, Y, OSR contents and FIFOs stay. */
static void sm_restart(pio_sm *s)
{
	s->isr = 0;
	s->isr_count = 0;
	s->osr_count = 32;
	s->delay = 0;
	s->stall = WAIT_NONE;
	s->irq_waiting = 0;
	s->exec_pending = 0;
	s->execctrl &= ~EX_EXEC_STALLED;
}

static void sm_reset(pio_sm *s)
{
	memset(s, 0, sizeof *s);
	s->clkdiv = CLKDIV_RESET;
	s->execctrl = EX_RESET;
	s->shiftctrl = SH_RESET;
	s->pinctrl = PC_RESET;
	s->osr_count = 32;
}

static uint32_t pio_flevel(const xb_pio *p)
{
	uint32_t v = 0;
	for (unsigned n = 0; n < PIO_SMS; n++)
		v |= (p->sm[n].tx_count & 0xF) << (8 * n) |
		     (p->sm[n].rx_count & 0xF) << (8 * n + 4);
	return v;
}

static uint32_t pio_fstat(const xb_pio *p)
{
	uint32_t v = 0;
	for (unsigned n = 0; n < PIO_SMS; n++) {
		const pio_sm *s = &p->sm[n];
		if (s->rx_count >= rx_depth(s))
			v |= 1u << n;
		if (!s->rx_count)
			v |= 1u << (8 + n);
		if (s->tx_count >= tx_depth(s))
			v |= 1u << (16 + n);
		if (!s->tx_count)
			v |= 1u << (24 + n);
	}
	return v;
}

static uint32_t pio_read(void *ctx, uint32_t off, unsigned size)
{
	(void)size;
	xb_pio *p = ctx;
	int debug = bus_access_is_debug(pio_bus(p));
	pio_catch_up(p, board_cycles(p->board));
	pio_update(p);
	uint32_t v = 0;
	if (off >= PIO_RXF0 && off < PIO_RXF0 + 16) {
		pio_sm *s = &p->sm[(off - PIO_RXF0) / 4];
		if (!s->rx_count) {
			if (!debug)
				p->fdebug |= 1u << (FD_RXUNDER + (off - PIO_RXF0) / 4);
			return 0;
		}
		v = s->rx[s->rx_head];
		if (!debug) {
			s->rx_head = (s->rx_head + 1) % (2 * PIO_FIFO);
			s->rx_count--;
			pio_wake(p);
			pio_update(p);
			pio_reschedule(p);
		}
		return v;
	}
	if (off >= PIO_TXF0 && off < PIO_TXF0 + 16)
		return 0; /* write-only */
	if (off >= PIO_INSTR_MEM0 && off < PIO_SM0)
		return 0; /* write-only */
	if (off >= PIO_SM0 && off < PIO_INTR) {
		pio_sm *s = &p->sm[(off - PIO_SM0) / PIO_SM_STRIDE];
		switch ((off - PIO_SM0) % PIO_SM_STRIDE / 4) {
		case SM_CLKDIV: return s->clkdiv;
		case SM_EXECCTRL: return s->execctrl;
		case SM_SHIFTCTRL: return s->shiftctrl;
		case SM_ADDR: return s->pc;
		case SM_INSTR: return s->exec_pending ? s->exec : p->mem[s->pc];
		default: return s->pinctrl;
		}
	}
	switch (off) {
	case PIO_CTRL: return p->ctrl & 0xF;
	case PIO_FSTAT: return pio_fstat(p);
	case PIO_FDEBUG: return p->fdebug;
	case PIO_FLEVEL: return pio_flevel(p);
	case PIO_IRQ: return p->irq;
	case PIO_IRQ_FORCE: return 0;
	case PIO_INPUT_SYNC_BYPASS: return p->sync_bypass;
	case PIO_DBG_PADOUT: return p->pad_out;
	case PIO_DBG_PADOE: return p->pad_oe;
	case PIO_DBG_CFGINFO: return PIO_CFGINFO;
	case PIO_INTR: return pio_intr(p);
	}
	if (off >= PIO_IRQ0_INTE && off < PIO_SIZE) {
		unsigned line = (off - PIO_IRQ0_INTE) / 12, k = (off - PIO_IRQ0_INTE) % 12 / 4;
		return k == 0 ? p->inte[line] : k == 1 ? p->intf[line] : pio_ints(p, line);
	}
	bus_report_hole(pio_bus(p));
	return 0;
}

/* Executes instr on machine n now (SMx_INSTR): a stopped machine runs it at once (the SDK
 * configures stopped machines this way); a running one instead of its next fetch. */
static void sm_exec_now(xb_pio *p, unsigned n, uint16_t instr)
{
	pio_sm *s = &p->sm[n];
	if (sm_enabled(p, n)) {
		s->exec = instr;
		s->exec_pending = 1;
		return;
	}
	int jumped = 0;
	s->exec_pending = 0;
	sm_side_set(p, s, instr);
	if (sm_exec(p, n, instr, &jumped)) {
		s->execctrl &= ~EX_EXEC_STALLED;
	} else {
		s->exec = instr;
		s->exec_pending = 1;
		s->execctrl |= EX_EXEC_STALLED;
	}
}

static void sm_write(xb_pio *p, unsigned n, unsigned reg, uint32_t value, enum xb_alias_op op)
{
	pio_sm *s = &p->sm[n];
	switch (reg) {
	case SM_CLKDIV: s->clkdiv = periph_rw(s->clkdiv, value, op, 0xFFFFFF00u); break;
	case SM_EXECCTRL: s->execctrl = periph_rw(s->execctrl, value, op, EX_MASK); break;
	case SM_SHIFTCTRL: {
		uint32_t old = s->shiftctrl;
		s->shiftctrl = periph_rw(s->shiftctrl, value, op, SH_MASK);
		/* Changing a join flushes both FIFOs (3.7, SHIFTCTRL.FJOIN_*). */
		if ((old ^ s->shiftctrl) & (SH_FJOIN_TX | SH_FJOIN_RX))
			fifo_flush(s);
		break;
	}
	case SM_ADDR: break; /* read-only */
	case SM_INSTR: sm_exec_now(p, n, (uint16_t)bus_alias_apply(0, value, op)); break;
	default: s->pinctrl = periph_rw(s->pinctrl, value, op, 0xFFFFFFFFu); break;
	}
}

static void pio_write(void *ctx, uint32_t off, uint32_t value, unsigned size,
		      enum xb_alias_op op)
{
	(void)size;
	xb_pio *p = ctx;
	uint64_t now = board_cycles(p->board);
	pio_catch_up(p, now);
	if (off >= PIO_TXF0 && off < PIO_TXF0 + 16) {
		unsigned n = (off - PIO_TXF0) / 4;
		pio_sm *s = &p->sm[n];
		if (s->tx_count < tx_depth(s)) {
			unsigned at = (s->tx_head + s->tx_count) % (2 * PIO_FIFO);
			s->tx[at] = bus_alias_apply(0, value, op);
			s->tx_count++;
		} else {
			p->fdebug |= 1u << (FD_TXOVER + n); /* the word is lost */
		}
	} else if (off >= PIO_INSTR_MEM0 && off < PIO_SM0) {
		p->mem[(off - PIO_INSTR_MEM0) / 4] = (uint16_t)bus_alias_apply(0, value, op);
	} else if (off >= PIO_SM0 && off < PIO_INTR) {
		sm_write(p, (off - PIO_SM0) / PIO_SM_STRIDE, (off - PIO_SM0) % PIO_SM_STRIDE / 4,
			 value, op);
	} else if (off >= PIO_IRQ0_INTE && off < PIO_SIZE) {
		unsigned line = (off - PIO_IRQ0_INTE) / 12, k = (off - PIO_IRQ0_INTE) % 12 / 4;
		if (k == 0)
			p->inte[line] = periph_rw(p->inte[line], value, op, 0xFFF);
		else if (k == 1)
			p->intf[line] = periph_rw(p->intf[line], value, op, 0xFFF);
	} else {
		switch (off) {
		case PIO_CTRL: {
			uint32_t v = bus_alias_apply(p->ctrl, value, op);
			for (unsigned n = 0; n < PIO_SMS; n++) {
				pio_sm *s = &p->sm[n];
				if ((v >> (4 + n)) & 1)
					sm_restart(s);
				/* CLKDIV_RESTART, or a machine being enabled, starts the divider
				 * afresh: the first clock enable comes on the next cycle. */
				if (((v >> (8 + n)) & 1) || (((v & ~p->ctrl) >> n) & 1))
					s->tick_at = (now + 1) * 256;
			}
			p->ctrl = v & 0xF; /* the restart bits self-clear */
			break;
		}
		case PIO_FDEBUG: p->fdebug = periph_wc(p->fdebug, value & 0x0F0F0F0Fu); break;
		case PIO_IRQ: p->irq = periph_wc(p->irq, value & 0xFF); break;
		case PIO_IRQ_FORCE: p->irq |= bus_alias_apply(0, value, op) & 0xFF; break;
		case PIO_INPUT_SYNC_BYPASS:
			p->sync_bypass = periph_rw(p->sync_bypass, value, op, 0xFFFFFFFFu);
			break;
		case PIO_FSTAT:
		case PIO_FLEVEL:
		case PIO_DBG_PADOUT:
		case PIO_DBG_PADOE:
		case PIO_DBG_CFGINFO:
		case PIO_INTR:
			break; /* read-only */
		default:
			if (off >= PIO_RXF0 && off < PIO_RXF0 + 16)
				break; /* read-only */
			bus_report_hole(pio_bus(p));
			return;
		}
	}
	pins_commit(p);
	pio_wake(p);
	pio_update(p);
	pio_reschedule(p);
}

static const xb_device_ops pio_ops = {.read = pio_read, .write = pio_write};

/* ---- Life cycle ---- */

int pio_dreq(xb_pio *p, unsigned dreq)
{
	pio_catch_up(p, board_cycles(p->board));
	pio_update(p);
	return dreq_lines_level(&p->dreq, dreq);
}

void pio_set_dreq(xb_pio *p, xb_dreq_fn fn, void *ctx)
{
	p->dreq.fn = fn;
	p->dreq.ctx = ctx;
}

/* RESETS bit 10 or 11 (and a system reset): every register, the instruction memory, the
 * machines and the pins back to their reset state. */
static void pio_block_reset(void *ctx, int held)
{
	xb_pio *p = ctx;
	if (!held)
		return;
	if (p->event)
		board_cancel(p->board, p->event);
	p->event = 0;
	memset(p->mem, 0, sizeof p->mem);
	for (unsigned n = 0; n < PIO_SMS; n++)
		sm_reset(&p->sm[n]);
	p->ctrl = p->fdebug = p->irq = p->sync_bypass = 0;
	p->inte[0] = p->inte[1] = p->intf[0] = p->intf[1] = 0;
	p->pad_out = p->pad_oe = 0;
	p->done_to = board_cycles(p->board);
	p->sent_out = p->sent_oe = 1; /* forces the commit below */
	pins_commit(p);
	pio_update(p);
}

xb_pio *pio_new(xb_board *b, xb_resets *r, xb_gpio *g, unsigned index)
{
	if (index > 1)
		return NULL;
	xb_pio *p = xcalloc(1, sizeof *p);
	p->board = b;
	p->gpio = g;
	p->index = index;
	p->dreq = (xb_dreq_lines){.base = XB_DREQ_PIO0_TX0 + 8 * index, .n = 8};
	pio_block_reset(p, 1);
	if (bus_map(board_bus(b), index ? XB_PIO1_BASE : XB_PIO0_BASE, 0x1000,
		    index ? "PIO1" : "PIO0", &pio_ops, p)) {
		free(p);
		return NULL;
	}
	resets_on_block(r, index ? XB_RESET_PIO1 : XB_RESET_PIO0, pio_block_reset, p);
	gpio_on_input(g, pio_input_changed, p);
	return p;
}

void pio_free(xb_pio *p)
{
	free(p);
}
