/* board: the virtual Pico assembled: memories, bus, cache, CPU, PPB and XIP from a target;
 * loading, reset, the event scheduler, the run loop, debug access, faults and counters. */
#include "board.h"

#include <stdlib.h>
#include <string.h>

#include "cpu.h"
#include "ppb.h"
#include "xip.h"

#define DHCSR_C_DEBUGEN 0x1u
#define DHCSR_C_MASKINTS 0x8u
#define DFSR_HALTED 0x1u
#define DFSR_BKPT 0x2u

typedef struct board_event {
	uint64_t at, seq, id;
	xb_event_fn fn;
	void *ctx;
} board_event;

typedef struct board_hook {
	xb_reset_fn fn;
	void *ctx;
} board_hook;

struct xb_board {
	xb_cpu cpu;
	xb_cpu *cur;       /* the core executing or being accessed (&cpu between instructions) */
	xb_cpu core1;      /* RP2040 core 1 (see board.h "Core 1") */
	int core1_on;      /* core 1 executes instructions (enabled, out of reset) */
	int core1_enabled; /* board_core1_enable: the board has core 1's boot path */
	int core1_held;    /* held in reset (board_core1_reset) */
	xb_target target;
	xb_bus *bus;
	xb_cache *cache;
	xb_xip xip;
	uint8_t *sram, *flash, *rom;
	uint32_t sram_base, sram_size, rom_base, rom_size;
	int has_unstriped; /* RP2040 SRAM0-3 at 0x21000000 */
	board_event *events;
	size_t nevents, events_cap;
	uint64_t next_seq, next_id;
	board_hook *hooks;
	size_t nhooks, hooks_cap;
	int stop_requested;
};

/* ---- One core's steps (board_run for core 0, board_core1_catch_up for core 1) ---- */

/* Takes a pending exception unless the debugger masks interrupts; 1 when k cannot execute
 * now (halted, locked up, or a step that entered an exception halted it). */
static int board_core_take(xb_cpu *k)
{
	int masked = (k->dhcsr & (DHCSR_C_DEBUGEN | DHCSR_C_MASKINTS)) ==
		     (DHCSR_C_DEBUGEN | DHCSR_C_MASKINTS);
	int took = masked ? 0 : cpu_take_pending(k);
	if (k->halted || k->lockup)
		return 1;
	if (took && k->halt_pending_step) { /* a step that entered an exception */
		k->halt_pending_step = 0;
		cpu_halt(k, DFSR_HALTED);
		return 1;
	}
	return 0;
}

/* A breakpoint at pc halts k (debugger attached) or raises a HardFault: 1 when one did. */
static int board_core_bkpt(xb_cpu *k, uint32_t pc)
{
	if (!k->bp_active || !ppb_breakpoint_hit(k, pc))
		return 0;
	if (k->dhcsr & DHCSR_C_DEBUGEN)
		cpu_halt(k, DFSR_BKPT);
	else
		cpu_raise_hardfault(k, XB_FAULT_BKPT, pc, pc);
	return 1;
}

/* After cpu_run: an instruction retired since before (insns); a step halts after it. */
static void board_core_retire(xb_cpu *k, uint64_t before)
{
	if (k->insns != before) {
		k->retired = 1;
		if (k->halt_pending_step) {
			k->halt_pending_step = 0;
			cpu_halt(k, DFSR_HALTED);
		}
	}
}

/* ---- Core 1 (board.h "Core 1") ---- */

/* Core 1 shares everything but its own state with core 0. */
static void board_core1_init(xb_board *b)
{
	xb_cpu *c = &b->cpu, *k = &b->core1;
	cpu_init(k);
	k->board = b;
	k->bus = c->bus;
	k->cache = c->cache;
	k->miss_penalty = c->miss_penalty;
	k->sram = c->sram;
	k->sram_base = c->sram_base;
	k->sram_size = c->sram_size;
	k->sram_unstriped = c->sram_unstriped;
	k->flash = c->flash;
	k->flash_size = c->flash_size;
	k->rom = c->rom;
	k->rom_base = c->rom_base;
	k->rom_size = c->rom_size;
	k->xip_naliases = c->xip_naliases;
	memcpy(k->xip_alias_base, c->xip_alias_base, sizeof k->xip_alias_base);
	memcpy(k->xip_alias_mode, c->xip_alias_mode, sizeof k->xip_alias_mode);
	k->reset_vtor = c->rom_base; /* both cores boot through the bootrom's vectors */
	k->until_pc = ~0u;
	k->core = 1;
}

/* Core 1's reset: its registers, NVIC, SysTick and SCB to their reset state, SP and PC from
 * the bootrom's vector table; it runs from there when enabled and not held in reset. */
static void board_core1_restart(xb_board *b)
{
	xb_cpu *k = &b->core1;
	k->cycles = b->cpu.cycles;
	b->core1_on = b->core1_enabled && !b->core1_held;
	if (!b->core1_on)
		return;
	ppb_reset(k);
	cpu_system_reset(k);
}

/* An interrupt line change reaching core 1's NVIC (level -1: a one-time pend). */
static void board_core1_irq(xb_board *b, uint32_t bit, int level)
{
	xb_cpu *k = &b->core1;
	unsigned n = XB_EXC_IRQ0 + (unsigned)__builtin_ctz(bit);
	if (level < 0) {
		cpu_set_pending(k, n);
	} else if (level) {
		if (!(k->irq_line & bit)) {
			k->irq_line |= bit;
			cpu_set_pending(k, n);
		}
	} else {
		k->irq_line &= ~bit;
	}
	/* A sleeping core 1 may wake: end the running core's stretch so the run loop sees it
	 * at this instant rather than at the end of a long one. */
	if (b->core1_on && k->sleep)
		b->cur->stop_at = 0;
}

/* Core 1 can execute instructions now (wakes it if a wake-up condition holds). */
static int board_core1_live(xb_board *b)
{
	xb_cpu *k = &b->core1;
	if (!b->core1_on || k->halted || k->lockup)
		return 0;
	return !k->sleep || cpu_try_wake(k);
}

/* The end of core 0's next stretch: a quantum while core 1 is live. */
static uint64_t board_core1_limit(xb_board *b, uint64_t limit)
{
	if (board_core1_live(b)) {
		uint64_t q = b->cpu.cycles + XB_CORE_QUANTUM;
		if (q < limit)
			limit = q;
	}
	return limit;
}

/* Core 1 sees the XIP state that XIP_CTRL keeps in core 0's structure. */
static void board_core1_sync_xip(xb_board *b)
{
	xb_cpu *c = &b->cpu, *k = &b->core1;
	if (k->xip_cache_on != c->xip_cache_on || k->xip_sram_on != c->xip_sram_on ||
	    k->xip_busy_until != c->xip_busy_until) {
		k->xip_cache_on = c->xip_cache_on;
		k->xip_sram_on = c->xip_sram_on;
		k->xip_busy_until = c->xip_busy_until;
		cpu_forget_region(k);
	}
}

/* Runs core 1 up to the time core 0 has reached. A core 1 asleep when this starts slept
 * through core 0's stretch: what woke it (a SEV, a FIFO interrupt) happened during it, so
 * it wakes at the start of the next stretch (board_core1_live). */
static void board_core1_catch_up(xb_board *b)
{
	xb_cpu *k = &b->core1;
	uint64_t to = b->cpu.cycles;
	if (k->cycles >= to)
		return;
	if (k->sleep || k->halted || k->lockup) {
		*(k->sleep ? &k->sleep_cycles : &k->halted_cycles) += to - k->cycles;
		k->cycles = to;
		return;
	}
	b->cur = k;
	board_core1_sync_xip(b);
	while (k->cycles < to && !b->stop_requested && !k->reset_requested) {
		if (k->halted || k->lockup) {
			k->halted_cycles += to - k->cycles;
			k->cycles = to;
			break;
		}
		if (board_core_take(k))
			continue;
		if (k->sleep && !cpu_try_wake(k)) {
			k->sleep_cycles += to - k->cycles;
			k->cycles = to;
			break;
		}
		if (board_core_bkpt(k, k->r[15]))
			continue;
		k->stop_at = (k->bp_active || k->halt_pending_step) ? k->cycles + 1 : to;
		uint64_t before = k->insns;
		cpu_run(k);
		board_core_retire(k, before);
	}
	b->cur = &b->cpu;
}

/* ---- Memories ---- */

/* Host bytes behind addr for loading and peeking: *room bytes are contiguous there. */
static uint8_t *board_host(const xb_board *b, uint32_t addr, uint32_t *room)
{
	const xb_cpu *c = &b->cpu;
	for (int i = 0; i < c->xip_naliases; i++) {
		uint32_t off = addr - c->xip_alias_base[i];
		if (off < c->flash_size) {
			*room = c->flash_size - off;
			return b->flash + off;
		}
	}
	if (addr - b->sram_base < b->sram_size) {
		*room = b->sram_size - (addr - b->sram_base);
		return b->sram + (addr - b->sram_base);
	}
	if (b->rom && addr - b->rom_base < b->rom_size) {
		*room = b->rom_size - (addr - b->rom_base);
		return b->rom + (addr - b->rom_base);
	}
	if (b->xip.sram && addr - b->xip.sram_base < b->xip.sram_size) {
		*room = b->xip.sram_size - (addr - b->xip.sram_base);
		return b->xip.sram + (addr - b->xip.sram_base);
	}
	if (b->has_unstriped && addr - XB_SRAM_UNSTRIPED_BASE < XB_SRAM_UNSTRIPED_SIZE) {
		*room = 4 - (addr & 3);
		return b->sram + cpu_sram_unstriped(addr - XB_SRAM_UNSTRIPED_BASE);
	}
	return NULL;
}

int board_load(xb_board *b, uint32_t addr, const void *bytes, size_t len, xb_err *err)
{
	const uint8_t *src = bytes;
	while (len) {
		uint32_t room;
		uint8_t *dst = board_host(b, addr, &room);
		if (!dst)
			return xb_fail(err, "load: 0x%08x is not in ROM, SRAM or flash", addr);
		size_t n = len < room ? len : room;
		memcpy(dst, src, n);
		src += n;
		len -= n;
		addr += (uint32_t)n;
	}
	return 0;
}

int board_peek(const xb_board *b, uint32_t addr, void *out, size_t len, xb_err *err)
{
	uint8_t *dst = out;
	while (len) {
		uint32_t room;
		const uint8_t *src = board_host(b, addr, &room);
		if (!src)
			return xb_fail(err, "peek: 0x%08x is not in ROM, SRAM or flash", addr);
		size_t n = len < room ? len : room;
		memcpy(dst, src, n);
		dst += n;
		len -= n;
		addr += (uint32_t)n;
	}
	return 0;
}

uint8_t *board_flash(xb_board *b, uint32_t *size)
{
	if (size)
		*size = b->cpu.flash_size;
	return b->flash;
}

/* The unstriped SRAM alias: word-aligned accesses stay inside one bank word. */
static uint32_t board_unstriped_read(void *ctx, uint32_t off, unsigned size)
{
	xb_board *b = ctx;
	uint32_t v = 0;
	memcpy(&v, b->sram + cpu_sram_unstriped(off), size);
	return v;
}

static void board_unstriped_write(void *ctx, uint32_t off, uint32_t v, unsigned size,
				  enum xb_alias_op op)
{
	(void)op;
	xb_board *b = ctx;
	memcpy(b->sram + cpu_sram_unstriped(off), &v, size);
}

static const xb_device_ops board_unstriped_ops = {
	.read = board_unstriped_read,
	.write = board_unstriped_write,
	.flags = XB_DEV_BYTES,
};

/* ---- Creation ---- */

static const xb_region *board_pick_region(const xb_target *t, enum xb_region_kind kind)
{
	for (int i = 0; i < t->nregions; i++) {
		const xb_region *r = &t->regions[i];
		if (r->kind == kind && !(kind == XB_REGION_SRAM && t->cache_sram_base &&
					 r->base == t->cache_sram_base))
			return r;
	}
	return NULL;
}

xb_board *board_new(const xb_target *t, xb_err *err)
{
	const xb_region *sram = board_pick_region(t, XB_REGION_SRAM);
	const xb_region *rom = board_pick_region(t, XB_REGION_ROM);
	if (!sram || sram->size < 8 || (sram->base & 3) || (sram->size & 3)) {
		xb_fail(err, "target %s: a board needs an SRAM region", t->name);
		return NULL;
	}
	if (t->naliases < 1 || t->flash_size == 0 || (t->flash_size & 3)) {
		xb_fail(err, "target %s: a board needs flash behind at least one alias", t->name);
		return NULL;
	}
	xb_cache *cache = cache_new(&t->cache, t->flash_size, err);
	if (!cache)
		return NULL;
	xb_board *b = xcalloc(1, sizeof *b);
	b->target = *t;
	b->cache = cache;
	b->bus = bus_new();
	b->sram_base = sram->base;
	b->sram_size = sram->size;
	b->sram = xcalloc(1, sram->size);
	b->flash = xmalloc(t->flash_size);
	memset(b->flash, 0xFF, t->flash_size);
	if (rom && rom->size >= 4) {
		b->rom_base = rom->base;
		b->rom_size = rom->size & ~3u;
		b->rom = xcalloc(1, b->rom_size);
	}
	b->next_id = 1;

	xb_cpu *c = &b->cpu;
	cpu_init(c);
	c->board = b;
	c->bus = b->bus;
	c->cache = cache;
	c->miss_penalty = t->miss_penalty;
	c->sram = b->sram;
	c->sram_base = b->sram_base;
	c->sram_size = b->sram_size;
	c->flash = b->flash;
	c->flash_size = t->flash_size;
	c->rom = b->rom;
	c->rom_base = b->rom_base;
	c->rom_size = b->rom_size;
	c->xip_naliases = t->naliases;
	for (int i = 0; i < t->naliases; i++) {
		c->xip_alias_base[i] = t->aliases[i].base;
		c->xip_alias_mode[i] = t->aliases[i].mode;
	}
	c->reset_vtor = (t->flash_base ? t->flash_base : t->aliases[0].base) + 0x100;
	c->until_pc = ~0u;
	b->cur = c;
	board_core1_init(b);

	int bad = bus_map_memory(b->bus, b->sram_base, b->sram_size, "SRAM", b->sram, 1);
	if (!bad && b->rom)
		bad = bus_map_memory(b->bus, b->rom_base, b->rom_size, "ROM", b->rom, 0);
	if (!bad && b->sram_base == 0x20000000u && b->sram_size == 0x42000u) { /* RP2040 */
		b->has_unstriped = 1;
		c->sram_unstriped = 1;
		bad = bus_map(b->bus, XB_SRAM_UNSTRIPED_BASE, XB_SRAM_UNSTRIPED_SIZE,
			      "SRAM0-3 (unstriped)", &board_unstriped_ops, b);
	}
	if (bad) {
		xb_fail(err, "target %s: memory regions overlap", t->name);
		board_free(b);
		return NULL;
	}
	if (ppb_init(c)) {
		xb_fail(err, "target %s: a region overlaps the PPB at 0xE000E000", t->name);
		board_free(b);
		return NULL;
	}
	if (xip_init(&b->xip, c, t, err)) {
		board_free(b);
		return NULL;
	}
	board_reset(b);
	return b;
}

void board_free(xb_board *b)
{
	if (!b)
		return;
	xip_free(&b->xip);
	bus_free(b->bus);
	cache_free(b->cache);
	free(b->sram);
	free(b->flash);
	free(b->rom);
	free(b->events);
	free(b->hooks);
	free(b);
}

const xb_target *board_target(const xb_board *b)
{
	return &b->target;
}

xb_bus *board_bus(xb_board *b)
{
	return b->bus;
}

xb_cache *board_cache(xb_board *b)
{
	return b->cache;
}

void board_set_log(xb_board *b, xb_log_fn fn, void *ctx)
{
	bus_set_log(b->bus, fn, ctx);
}

void board_set_strict(xb_board *b, int strict)
{
	bus_set_strict(b->bus, strict);
}

/* ---- Reset ---- */

void board_set_reset_vtor(xb_board *b, uint32_t vtor)
{
	b->cpu.reset_vtor = vtor & ~0xFFu; /* VTOR.TBLOFF is bits 31:8 on the M0+ */
}

void board_set_xip_miss_penalty(xb_board *b, uint32_t cycles)
{
	b->cpu.miss_penalty = cycles;
	b->core1.miss_penalty = cycles;
}

void board_set_xip_dead(xb_board *b, const char *why, uint64_t until)
{
	xb_cpu *cores[2] = {&b->cpu, &b->core1};
	for (unsigned i = 0; i < 2; i++) {
		xb_cpu *c = cores[i];
		if (why != c->xip_dead)
			c->xip_dead_reported = 0; /* a new period: its first read is reported */
		c->xip_dead = why;
		c->xip_dead_until = why ? until : 0;
	}
}

void board_on_reset(xb_board *b, xb_reset_fn fn, void *ctx)
{
	xb_grow(&b->hooks, &b->hooks_cap, b->nhooks + 1, sizeof *b->hooks);
	b->hooks[b->nhooks++] = (board_hook){fn, ctx};
}

void board_reset(xb_board *b)
{
	xb_cpu *c = &b->cpu;
	xip_reset(&b->xip);
	ppb_reset(c);
	cpu_system_reset(c);
	b->core1_held = 0;
	board_core1_restart(b);
	for (size_t i = 0; i < b->nhooks; i++)
		b->hooks[i].fn(b, b->hooks[i].ctx);
	cpu_irq_changed(c);
}

/* ---- Time and events ---- */

uint64_t board_cycles(const xb_board *b)
{
	return b->cur->cycles;
}

uint32_t board_cpu_hz(const xb_board *b)
{
	return b->target.cpu_hz;
}

static int board_event_before(const board_event *x, const board_event *y)
{
	return x->at < y->at || (x->at == y->at && x->seq < y->seq);
}

static void board_heap_up(board_event *h, size_t i)
{
	while (i) {
		size_t p = (i - 1) / 2;
		if (!board_event_before(&h[i], &h[p]))
			break;
		board_event t = h[i];
		h[i] = h[p];
		h[p] = t;
		i = p;
	}
}

static void board_heap_down(board_event *h, size_t n, size_t i)
{
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < n && board_event_before(&h[l], &h[m]))
			m = l;
		if (r < n && board_event_before(&h[r], &h[m]))
			m = r;
		if (m == i)
			return;
		board_event t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
}

static void board_heap_remove(xb_board *b, size_t i)
{
	b->events[i] = b->events[--b->nevents];
	if (i < b->nevents) {
		board_heap_down(b->events, b->nevents, i);
		board_heap_up(b->events, i);
	}
}

uint64_t board_schedule(xb_board *b, uint64_t at, xb_event_fn fn, void *ctx)
{
	xb_cpu *c = b->cur;
	if (at < c->cycles)
		at = c->cycles;
	xb_grow(&b->events, &b->events_cap, b->nevents + 1, sizeof *b->events);
	board_event *e = &b->events[b->nevents];
	*e = (board_event){.at = at, .seq = b->next_seq++, .id = b->next_id++, .fn = fn, .ctx = ctx};
	uint64_t id = e->id;
	board_heap_up(b->events, b->nevents++);
	if (at < c->stop_at)
		c->stop_at = at; /* end the current stretch of instructions in time */
	return id;
}

int board_cancel(xb_board *b, uint64_t id)
{
	for (size_t i = 0; i < b->nevents; i++) {
		if (b->events[i].id == id) {
			board_heap_remove(b, i);
			return 1;
		}
	}
	return 0;
}

uint64_t board_next_event(const xb_board *b)
{
	return b->nevents ? b->events[0].at : UINT64_MAX;
}

static void board_run_events(xb_board *b)
{
	while (b->nevents && b->events[0].at <= b->cpu.cycles) {
		board_event e = b->events[0];
		board_heap_remove(b, 0);
		e.fn(b, e.ctx);
	}
}

/* ---- Interrupts ---- */

void board_irq_set(xb_board *b, unsigned irq, int level)
{
	if (irq >= 32)
		return;
	xb_cpu *c = &b->cpu;
	uint32_t bit = 1u << irq;
	if (level) {
		if (!(c->irq_line & bit)) {
			c->irq_line |= bit;
			cpu_set_pending(c, XB_EXC_IRQ0 + irq); /* a rising edge latches pending */
		}
	} else {
		c->irq_line &= ~bit;
	}
	board_core1_irq(b, bit, level); /* every line reaches both NVICs */
}

void board_irq_pend(xb_board *b, unsigned irq)
{
	if (irq < 32) {
		cpu_set_pending(&b->cpu, XB_EXC_IRQ0 + irq);
		board_core1_irq(b, 1u << irq, -1);
	}
}

void board_nmi(xb_board *b)
{
	cpu_set_pending(&b->cpu, XB_EXC_NMI);
}

void board_signal_event(xb_board *b)
{
	b->cpu.event_reg = 1;
	if (b->cpu.sleep == XB_SLEEP_WFE)
		b->cpu.stop_at = 0;
}

/* ---- Running ---- */

const char *board_run_result_name(enum xb_run_result r)
{
	switch (r) {
	case XB_RUN_BUDGET:
		return "budget";
	case XB_RUN_HALTED:
		return "halted";
	case XB_RUN_LOCKUP:
		return "lockup";
	case XB_RUN_STOPPED:
		return "stopped";
	}
	return "?";
}

void board_stop(xb_board *b)
{
	b->stop_requested = 1;
	b->cpu.stop_at = 0;
	b->cur->stop_at = 0;
}

static uint64_t board_min(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

/* Lets time pass without executing instructions, up to the next event or end. */
static void board_idle(xb_board *b, uint64_t end, uint64_t *counter)
{
	xb_cpu *c = &b->cpu;
	uint64_t to = board_min(board_next_event(b), end);
	if (b->core1_on)
		to = board_core1_limit(b, to);
	if (to > c->cycles) {
		*counter += to - c->cycles;
		c->cycles = to;
	}
	if (b->core1_on)
		board_core1_catch_up(b);
}

enum xb_run_result board_run(xb_board *b, uint64_t max_cycles)
{
	xb_cpu *c = &b->cpu;
	uint64_t end = c->cycles + max_cycles < c->cycles ? UINT64_MAX : c->cycles + max_cycles;
	int started_stopped = c->halted || c->lockup;
	b->stop_requested = 0;
	for (;;) {
		board_run_events(b);
		if (c->reset_requested || b->core1.reset_requested)
			board_reset(b);
		if (b->stop_requested)
			return XB_RUN_STOPPED;
		if (c->halted || c->lockup) {
			enum xb_run_result r = c->lockup ? XB_RUN_LOCKUP : XB_RUN_HALTED;
			if (!started_stopped || c->cycles >= end)
				return r;
			board_idle(b, end, &c->halted_cycles);
			continue;
		}
		started_stopped = 0;
		if (c->cycles >= end)
			return XB_RUN_BUDGET;
		if (board_core_take(c))
			continue;
		if (c->sleep && !cpu_try_wake(c)) {
			board_idle(b, end, &c->sleep_cycles);
			continue;
		}
		uint32_t pc = c->r[15];
		if (pc == c->until_pc) {
			c->until_pc = ~0u;
			c->dhcsr |= DHCSR_C_DEBUGEN;
			cpu_halt(c, DFSR_HALTED);
			continue;
		}
		if (board_core_bkpt(c, pc))
			continue;
		uint64_t limit = board_min(board_next_event(b), end);
		if (b->core1_on)
			limit = board_core1_limit(b, limit);
		if (c->bp_active || c->until_pc != ~0u || c->halt_pending_step)
			limit = c->cycles + 1; /* one instruction at a time */
		c->stop_at = limit;
		uint64_t before = c->insns;
		cpu_run(c);
		if (b->core1_on)
			board_core1_catch_up(b);
		board_core_retire(c, before);
	}
}

enum xb_run_result board_run_until_pc(xb_board *b, uint32_t pc, uint64_t max_cycles)
{
	b->cpu.until_pc = pc & ~1u;
	enum xb_run_result r = board_run(b, max_cycles);
	b->cpu.until_pc = ~0u;
	return r;
}

/* ---- Core state ---- */

uint32_t board_reg(const xb_board *b, unsigned reg)
{
	return cpu_get_reg(&b->cpu, reg);
}

void board_set_reg(xb_board *b, unsigned reg, uint32_t value)
{
	cpu_set_reg(&b->cpu, reg, value);
}

int board_halted(const xb_board *b)
{
	return b->cpu.halted;
}

int board_sleeping(const xb_board *b)
{
	return b->cpu.sleep != XB_AWAKE;
}

int board_locked_up(const xb_board *b)
{
	return b->cpu.lockup;
}

void board_halt(xb_board *b)
{
	b->cpu.dhcsr |= DHCSR_C_DEBUGEN;
	cpu_halt(&b->cpu, DFSR_HALTED);
}

void board_resume(xb_board *b)
{
	b->cpu.dhcsr &= ~0x6u; /* C_HALT, C_STEP */
	cpu_resume(&b->cpu);
}

/* ---- Debug port ---- */

int board_debug_read(xb_board *b, uint32_t addr, unsigned size, uint32_t *value)
{
	*value = 0;
	if ((size != 1 && size != 2 && size != 4) || (addr & (size - 1)))
		return -1;
	if (ppb_debug_only(addr))
		return ppb_debug_read(&b->cpu, addr, size, value);
	return bus_debug_read(b->bus, addr, size, value);
}

int board_debug_write(xb_board *b, uint32_t addr, unsigned size, uint32_t value)
{
	if ((size != 1 && size != 2 && size != 4) || (addr & (size - 1)))
		return -1;
	if (ppb_debug_only(addr))
		return ppb_debug_write(&b->cpu, addr, size, value);
	return bus_debug_write(b->bus, addr, size, value);
}

uint32_t board_pcsr(const xb_board *b)
{
	if (b->cpu.halted || b->cpu.lockup)
		return 0xFFFFFFFFu;
	return b->cpu.cur_pc;
}

/* ---- Faults ---- */

const char *board_fault_kind_name(enum xb_fault_kind k)
{
	switch (k) {
	case XB_FAULT_NONE: return "none";
	case XB_FAULT_BUS_READ: return "bus error on read";
	case XB_FAULT_BUS_WRITE: return "bus error on write";
	case XB_FAULT_FETCH: return "instruction fetch from no memory";
	case XB_FAULT_XN: return "instruction fetch from an execute-never region";
	case XB_FAULT_UNALIGNED: return "unaligned access";
	case XB_FAULT_UNDEFINED: return "undefined instruction";
	case XB_FAULT_INVSTATE: return "branch to an address without the Thumb bit";
	case XB_FAULT_EXC_RETURN: return "bad exception return";
	case XB_FAULT_SVC: return "SVC at a priority that cannot take it";
	case XB_FAULT_BKPT: return "breakpoint with the debugger off";
	case XB_FAULT_STACKING: return "exception stacking failed";
	case XB_FAULT_VECTOR: return "vector table unreadable";
	}
	return "?";
}

uint64_t board_faults(const xb_board *b, xb_fault *last)
{
	if (last) {
		if (b->cpu.nfaults)
			*last = b->cpu.last_fault;
		else
			memset(last, 0, sizeof *last);
	}
	return b->cpu.nfaults;
}

void board_format_fault(const xb_fault *f, xb_strbuf *out)
{
	sb_printf(out, "%s: %s at 0x%08x, pc 0x%08x (%s", f->lockup ? "lockup" : "HardFault",
		  board_fault_kind_name(f->kind), f->addr, f->pc,
		  f->exception ? "handler" : "thread");
	if (f->exception)
		sb_printf(out, " %u", f->exception);
	sb_printf(out, ", cycle %llu)", (unsigned long long)f->cycle);
	for (int i = 0; i < 13; i++)
		sb_printf(out, " r%d=%08x", i, f->r[i]);
	sb_printf(out, " sp=%08x lr=%08x xpsr=%08x msp=%08x psp=%08x", f->r[13], f->r[14], f->xpsr,
		  f->msp, f->psp);
}

/* ---- Counters and trace ---- */

void board_counters(const xb_board *b, xb_board_counters *out)
{
	const xb_cpu *c = &b->cpu;
	memset(out, 0, sizeof *out);
	out->cycles = c->cycles;
	out->instructions = c->insns;
	out->sleep_cycles = c->sleep_cycles;
	out->halted_cycles = c->halted_cycles;
	out->exceptions = c->exceptions_taken;
	out->xip_accesses = cache_total_accesses(b->cache);
	out->xip_hits = cache_total_hits(b->cache);
	out->xip_misses = cache_total_misses(b->cache);
	out->xip_unanswered = b->cpu.xip_unanswered + b->core1.xip_unanswered;
	out->core1_instructions = b->core1.insns;
	out->core1_sleep_cycles = b->core1.sleep_cycles;
}

void board_trace_mark(xb_board *b, uint32_t mark)
{
	if (b->cpu.trace)
		trace_stream_push(b->cpu.trace, mark);
}

void board_set_trace(xb_board *b, xb_trace_stream *s)
{
	b->cpu.trace = s;
	b->core1.trace = s; /* both cores' fetches, in the order they reach the cache */
}

void board_trace_mark_echo(xb_board *b)
{
	if (b->cpu.trace)
		trace_stream_mark_echo(b->cpu.trace);
}

/* ---- Core 1: public interface ---- */

xb_cpu *board_cur_cpu(xb_board *b)
{
	return b->cur;
}

unsigned board_current_core(const xb_board *b)
{
	return b->cur->core;
}

int board_core1_running(const xb_board *b)
{
	return b->core1_on;
}

void board_core1_enable(xb_board *b)
{
	if (b->core1_enabled)
		return;
	b->core1_enabled = 1;
	board_core1_restart(b);
}

void board_cpu_sev(xb_cpu *c)
{
	xb_board *b = c->board;
	if (c->core == 1) {
		board_signal_event(b);
		return;
	}
	if (!b->core1_on)
		return;
	xb_cpu *k = &b->core1;
	k->event_reg = 1;
	if (k->sleep == XB_SLEEP_WFE)
		c->stop_at = 0; /* core 1 wakes: let the run loop interleave it from now */
}

void board_core1_reset(xb_board *b, int held)
{
	if (!held == !b->core1_held)
		return;
	b->core1_held = held != 0;
	if (held) {
		cpu_system_reset(&b->core1); /* its state is lost; it executes nothing */
		ppb_reset(&b->core1);
		b->core1_on = 0;
	} else {
		board_core1_restart(b);
		b->cur->stop_at = 0; /* interleave core 1 from this instant */
	}
}

static const xb_cpu *board_core_cpu(const xb_board *b, unsigned core)
{
	return core ? &b->core1 : &b->cpu;
}

int board_core_halted(const xb_board *b, unsigned core)
{
	return board_core_cpu(b, core)->halted;
}

int board_core_sleeping(const xb_board *b, unsigned core)
{
	return board_core_cpu(b, core)->sleep != XB_AWAKE;
}

/* A board without core 1 (no board_core1_enable) has no PPB behind core 1's debug port. */
static int board_core_absent(const xb_board *b, unsigned core, uint32_t addr)
{
	return core && !b->core1_enabled && addr >= 0xE0000000u && addr < 0xE0100000u;
}

/* A debug access as core sees the address space (its own PPB): *value is read into (it is 0
 * when the access fails) or written from. */
static int board_core_debug_access(xb_board *b, unsigned core, uint32_t addr, unsigned size,
				   uint32_t *value, int write)
{
	xb_cpu *saved = b->cur;
	b->cur = core ? &b->core1 : &b->cpu;
	int rc;
	if (!write)
		*value = 0;
	if ((size != 1 && size != 2 && size != 4) || (addr & (size - 1)) ||
	    board_core_absent(b, core, addr))
		rc = -1;
	else if (ppb_debug_only(addr))
		rc = write ? ppb_debug_write(b->cur, addr, size, *value)
			   : ppb_debug_read(b->cur, addr, size, value);
	else
		rc = write ? bus_debug_write(b->bus, addr, size, *value)
			   : bus_debug_read(b->bus, addr, size, value);
	b->cur = saved;
	return rc;
}

int board_core_debug_read(xb_board *b, unsigned core, uint32_t addr, unsigned size,
			  uint32_t *value)
{
	return board_core_debug_access(b, core, addr, size, value, 0);
}

int board_core_debug_write(xb_board *b, unsigned core, uint32_t addr, unsigned size,
			   uint32_t value)
{
	return board_core_debug_access(b, core, addr, size, &value, 1);
}

uint32_t board_core_pcsr(const xb_board *b, unsigned core)
{
	if (!core)
		return board_pcsr(b);
	if (!b->core1_on || b->core1.halted || b->core1.lockup)
		return 0xFFFFFFFFu;
	return b->core1.cur_pc;
}

uint32_t board_core_reg(const xb_board *b, unsigned core, unsigned reg)
{
	return cpu_get_reg(board_core_cpu(b, core), reg);
}

const char *board_core_state(const xb_board *b, unsigned core)
{
	if (core && !b->core1_enabled)
		return "absent";
	if (core && !b->core1_on)
		return "reset";
	const xb_cpu *c = board_core_cpu(b, core);
	if (c->lockup)
		return "lockup";
	if (c->halted)
		return "halted";
	return c->sleep != XB_AWAKE ? "asleep" : "running";
}

uint64_t board_core_faults(const xb_board *b, unsigned core, xb_fault *last)
{
	const xb_cpu *c = board_core_cpu(b, core);
	if (last) {
		if (c->nfaults)
			*last = c->last_fault;
		else
			memset(last, 0, sizeof *last);
	}
	return c->nfaults;
}
