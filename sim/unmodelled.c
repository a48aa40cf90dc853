/* unmodelled: per-register counts of the accesses nothing modelled answered, fed by the bus's
 * unmapped-access hook, bounded in memory, and the RP2040 address map that names them. */
#include "unmodelled.h"

#include <stdlib.h>

#include "../core/util.h"

/* The RP2040 address map (datasheet 2.2; pico-sdk hardware/regs/addressmap.h). span covers
 * a peripheral's atomic aliases (+0x1000 XOR, +0x2000 SET, +0x3000 CLR), which only the APB
 * and AHB-Lite peripherals (0x4..., 0x5...) have (datasheet 2.1.2). */
typedef struct unmod_block {
	uint32_t base, span;
	const char *name;
} unmod_block;

static const unmod_block unmod_map[] = {
	{0x00000000u, 0x00004000u, "ROM"},
	{0x10000000u, 0x01000000u, "XIP"},
	{0x11000000u, 0x01000000u, "XIP_NOALLOC"},
	{0x12000000u, 0x01000000u, "XIP_NOCACHE"},
	{0x13000000u, 0x01000000u, "XIP_NOCACHE_NOALLOC"},
	{0x14000000u, 0x01000000u, "XIP_CTRL"},
	{0x15000000u, 0x01000000u, "XIP_SRAM"},
	{0x18000000u, 0x01000000u, "XIP_SSI"},
	{0x20000000u, 0x00040000u, "SRAM"},
	{0x20040000u, 0x00001000u, "SRAM4"},
	{0x20041000u, 0x00001000u, "SRAM5"},
	{0x21000000u, 0x00010000u, "SRAM0"},
	{0x21010000u, 0x00010000u, "SRAM1"},
	{0x21020000u, 0x00010000u, "SRAM2"},
	{0x21030000u, 0x00010000u, "SRAM3"},
	{0x40000000u, 0x4000u, "SYSINFO"},
	{0x40004000u, 0x4000u, "SYSCFG"},
	{0x40008000u, 0x4000u, "CLOCKS"},
	{0x4000C000u, 0x4000u, "RESETS"},
	{0x40010000u, 0x4000u, "PSM"},
	{0x40014000u, 0x4000u, "IO_BANK0"},
	{0x40018000u, 0x4000u, "IO_QSPI"},
	{0x4001C000u, 0x4000u, "PADS_BANK0"},
	{0x40020000u, 0x4000u, "PADS_QSPI"},
	{0x40024000u, 0x4000u, "XOSC"},
	{0x40028000u, 0x4000u, "PLL_SYS"},
	{0x4002C000u, 0x4000u, "PLL_USB"},
	{0x40030000u, 0x4000u, "BUSCTRL"},
	{0x40034000u, 0x4000u, "UART0"},
	{0x40038000u, 0x4000u, "UART1"},
	{0x4003C000u, 0x4000u, "SPI0"},
	{0x40040000u, 0x4000u, "SPI1"},
	{0x40044000u, 0x4000u, "I2C0"},
	{0x40048000u, 0x4000u, "I2C1"},
	{0x4004C000u, 0x4000u, "ADC"},
	{0x40050000u, 0x4000u, "PWM"},
	{0x40054000u, 0x4000u, "TIMER"},
	{0x40058000u, 0x4000u, "WATCHDOG"},
	{0x4005C000u, 0x4000u, "RTC"},
	{0x40060000u, 0x4000u, "ROSC"},
	{0x40064000u, 0x4000u, "VREG_AND_CHIP_RESET"},
	{0x4006C000u, 0x4000u, "TBMAN"},
	{0x4007C000u, 0x4000u, "HOSTCALL"}, /* the virtual board's own (docs/sim-peripherals.md) */
	{0x50000000u, 0x4000u, "DMA"},
	{0x50100000u, 0x4000u, "USBCTRL_DPRAM"},
	{0x50110000u, 0x4000u, "USBCTRL_REGS"},
	{0x50200000u, 0x4000u, "PIO0"},
	{0x50300000u, 0x4000u, "PIO1"},
	{0x50400000u, 0x4000u, "XIP_AUX"},
	{0xD0000000u, 0x00001000u, "SIO"},
	{0xE0000000u, 0x10000000u, "PPB"},
};

const char *unmodelled_block(uint32_t addr, uint32_t *offset)
{
	for (size_t i = 0; i < sizeof unmod_map / sizeof unmod_map[0]; i++) {
		const unmod_block *m = &unmod_map[i];
		if (addr - m->base >= m->span)
			continue;
		uint32_t off = addr - m->base;
		if (m->base >= 0x40000000u && m->base < 0x60000000u)
			off &= 0xFFFu; /* the atomic alias bits 13:12 */
		*offset = off;
		return m->name;
	}
	*offset = addr;
	return "-";
}

struct xb_unmodelled {
	xb_unmod_reg *regs;   /* in order of discovery */
	size_t n, cap;
	uint32_t *slots;      /* open addressing on addr: index + 1, 0 free */
	size_t nslots;
	xb_unmod_reg *sorted; /* unmodelled_list's copy */
	uint64_t dropped;
};

static size_t unmod_hash(uint32_t addr, size_t nslots)
{
	return (size_t)(addr * 2654435761u) & (nslots - 1);
}

static xb_unmod_reg *unmod_find(xb_unmodelled *u, uint32_t addr, uint32_t pc)
{
	size_t h = unmod_hash(addr, u->nslots);
	for (; u->slots[h]; h = (h + 1) & (u->nslots - 1))
		if (u->regs[u->slots[h] - 1].addr == addr)
			return &u->regs[u->slots[h] - 1];
	if (u->n >= XB_UNMOD_MAX)
		return NULL;
	xb_grow(&u->regs, &u->cap, u->n + 1, sizeof *u->regs);
	xb_unmod_reg *r = &u->regs[u->n];
	uint32_t off;
	r->block = unmodelled_block(addr, &off);
	r->offset = off;
	r->addr = addr;
	r->reads = r->writes = 0;
	r->first_pc = pc;
	u->slots[h] = (uint32_t)++u->n;
	return r;
}

static void unmod_hook(void *ctx, uint32_t addr, unsigned size, int write, int debug,
		       uint32_t pc)
{
	(void)size;
	xb_unmodelled *u = ctx;
	if (debug)
		return;
	uint32_t off;
	const char *block = unmodelled_block(addr, &off);
	if (block[0] != '-' && addr >= 0x40000000u && addr < 0x60000000u)
		addr = (addr & ~0x3FFFu) + off; /* every alias counts for the RW address */
	else
		addr &= ~3u; /* a register is a word */
	xb_unmod_reg *r = unmod_find(u, addr, pc);
	if (!r) {
		u->dropped++;
		return;
	}
	if (write)
		r->writes++;
	else
		r->reads++;
}

xb_unmodelled *unmodelled_new(xb_bus *bus)
{
	xb_unmodelled *u = xcalloc(1, sizeof *u);
	u->nslots = 2 * XB_UNMOD_MAX; /* at most half full: no rehashing */
	u->slots = xcalloc(u->nslots, sizeof *u->slots);
	bus_set_unmapped_hook(bus, unmod_hook, u);
	return u;
}

void unmodelled_free(xb_unmodelled *u, xb_bus *bus)
{
	if (!u)
		return;
	if (bus)
		bus_set_unmapped_hook(bus, NULL, NULL);
	free(u->regs);
	free(u->slots);
	free(u->sorted);
	free(u);
}

static int unmod_by_addr(const void *a, const void *b)
{
	uint32_t x = ((const xb_unmod_reg *)a)->addr, y = ((const xb_unmod_reg *)b)->addr;
	return x < y ? -1 : x > y;
}

const xb_unmod_reg *unmodelled_list(xb_unmodelled *u, size_t *count)
{
	free(u->sorted);
	u->sorted = xcalloc(u->n ? u->n : 1, sizeof *u->sorted);
	for (size_t i = 0; i < u->n; i++)
		u->sorted[i] = u->regs[i];
	qsort(u->sorted, u->n, sizeof *u->sorted, unmod_by_addr);
	*count = u->n;
	return u->sorted;
}

uint64_t unmodelled_dropped(const xb_unmodelled *u)
{
	return u->dropped;
}
