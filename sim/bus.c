/* bus: address decoding for the virtual Pico: a two-level page table of mappings, atomic
 * aliases, narrow-write replication, and once-per-address reports of unmapped accesses. */
#include "bus.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"

#define BUS_PAGE_SHIFT 12
#define BUS_PAGES_PER_TOP (1u << (24 - BUS_PAGE_SHIFT)) /* 4 KB pages in a 16 MB window */
#define BUS_SEEN_MAX 65536u /* addresses remembered for once-per-address reports */

typedef struct bus_mapping {
	uint32_t base, size;
	char name[32];
	const xb_device_ops *ops;
	void *ctx;
	uint8_t *mem; /* plain memory when not NULL */
	int writable;
	int aliased;  /* peripheral space: 4 pages (RW, XOR, SET, CLR) */
	int live;
} bus_mapping;

struct xb_bus {
	uint16_t *pages[256]; /* per 16 MB window: page -> mapping index + 1 */
	bus_mapping *maps;
	size_t nmaps, cap;
	int strict;
	xb_log_fn log;
	void *log_ctx;
	uint32_t pc;
	/* the access in progress, for device callbacks */
	int debug, hole, error;
	uint32_t cur_addr;
	unsigned cur_size;
	int cur_write;
	uint32_t stall;
	uint64_t unmapped;
	xb_unmapped_fn unmapped_fn;
	void *unmapped_ctx;
	/* reported addresses (open addressing; 0 marks a free slot, so address 0 is kept
	 * apart) */
	uint32_t *seen;
	size_t seen_cap, seen_n;
	int seen_zero, seen_full;
};

static void bus_default_log(void *ctx, const char *msg)
{
	(void)ctx;
	fprintf(stderr, "sim: %s\n", msg);
}

xb_bus *bus_new(void)
{
	xb_bus *bus = xcalloc(1, sizeof *bus);
	bus->log = bus_default_log;
	return bus;
}

void bus_free(xb_bus *bus)
{
	if (!bus)
		return;
	for (int i = 0; i < 256; i++)
		free(bus->pages[i]);
	free(bus->maps);
	free(bus->seen);
	free(bus);
}

void bus_set_log(xb_bus *bus, xb_log_fn fn, void *ctx)
{
	bus->log = fn;
	bus->log_ctx = ctx;
}

void bus_log(xb_bus *bus, const char *fmt, ...)
{
	if (!bus->log)
		return;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	bus->log(bus->log_ctx, msg);
}

void bus_set_strict(xb_bus *bus, int strict)
{
	bus->strict = strict != 0;
}

int bus_strict(const xb_bus *bus)
{
	return bus->strict;
}

void bus_set_pc(xb_bus *bus, uint32_t pc)
{
	bus->pc = pc;
}

uint64_t bus_unmapped_count(const xb_bus *bus)
{
	return bus->unmapped;
}

void bus_set_unmapped_hook(xb_bus *bus, xb_unmapped_fn fn, void *ctx)
{
	bus->unmapped_fn = fn;
	bus->unmapped_ctx = ctx;
}

static int bus_in_peripheral_space(uint32_t addr)
{
	return addr >= 0x40000000u && addr < 0x60000000u;
}

static uint16_t bus_page_get(const xb_bus *bus, uint32_t addr)
{
	const uint16_t *t = bus->pages[addr >> 24];
	return t ? t[(addr >> BUS_PAGE_SHIFT) & (BUS_PAGES_PER_TOP - 1)] : 0;
}

static void bus_page_set(xb_bus *bus, uint32_t page, uint16_t v)
{
	uint32_t top = page >> (24 - BUS_PAGE_SHIFT);
	if (!bus->pages[top])
		bus->pages[top] = xcalloc(BUS_PAGES_PER_TOP, sizeof(uint16_t));
	bus->pages[top][page & (BUS_PAGES_PER_TOP - 1)] = v;
}

/* The pages a mapping occupies: [*first, *first + *count). */
static void bus_pages_of(const bus_mapping *m, uint32_t *first, uint32_t *count)
{
	*first = m->base >> BUS_PAGE_SHIFT;
	if (m->aliased) {
		*count = 4;
		return;
	}
	uint64_t end = (uint64_t)m->base + m->size;
	*count = (uint32_t)(((end + (1u << BUS_PAGE_SHIFT) - 1) >> BUS_PAGE_SHIFT) - *first);
}

static int bus_add(xb_bus *bus, const bus_mapping *proto)
{
	bus_mapping m = *proto;
	if (m.size == 0 || (m.base & 3) || (m.size & 3) ||
	    (uint64_t)m.base + m.size > 0x100000000ull) {
		bus_log(bus, "bus: bad mapping '%s' at 0x%08x size 0x%x", m.name, m.base, m.size);
		return -1;
	}
	m.aliased = bus_in_peripheral_space(m.base);
	if (m.aliased && ((m.base & 0x3FFF) || m.size > 0x1000)) {
		bus_log(bus,
			"bus: '%s' at 0x%08x: a peripheral block must start on a 16 KB boundary "
			"and span at most 4 KB (its atomic aliases use the next 12 KB)",
			m.name, m.base);
		return -1;
	}
	if (bus->nmaps >= 0xFFFF) {
		bus_log(bus, "bus: too many mappings");
		return -1;
	}
	uint32_t first, count;
	bus_pages_of(&m, &first, &count);
	for (uint32_t i = 0; i < count; i++) {
		uint16_t other = bus_page_get(bus, (first + i) << BUS_PAGE_SHIFT);
		if (other) {
			const bus_mapping *o = &bus->maps[other - 1];
			bus_log(bus, "bus: '%s' at 0x%08x overlaps '%s' at 0x%08x", m.name, m.base,
				o->name, o->base);
			return -1;
		}
	}
	m.live = 1;
	xb_grow(&bus->maps, &bus->cap, bus->nmaps + 1, sizeof *bus->maps);
	bus->maps[bus->nmaps] = m;
	uint16_t idx = (uint16_t)(++bus->nmaps);
	for (uint32_t i = 0; i < count; i++)
		bus_page_set(bus, first + i, idx);
	return 0;
}

int bus_map(xb_bus *bus, uint32_t base, uint32_t size, const char *name,
	    const xb_device_ops *ops, void *ctx)
{
	bus_mapping m = {.base = base, .size = size, .ops = ops, .ctx = ctx};
	snprintf(m.name, sizeof m.name, "%s", name ? name : "?");
	if (!ops) {
		bus_log(bus, "bus: '%s' has no ops", m.name);
		return -1;
	}
	return bus_add(bus, &m);
}

int bus_map_memory(xb_bus *bus, uint32_t base, uint32_t size, const char *name, uint8_t *mem,
		   int writable)
{
	bus_mapping m = {.base = base, .size = size, .mem = mem, .writable = writable};
	snprintf(m.name, sizeof m.name, "%s", name ? name : "?");
	if (!mem) {
		bus_log(bus, "bus: '%s' has no memory", m.name);
		return -1;
	}
	return bus_add(bus, &m);
}

int bus_unmap(xb_bus *bus, uint32_t base)
{
	for (size_t i = 0; i < bus->nmaps; i++) {
		bus_mapping *m = &bus->maps[i];
		if (!m->live || m->base != base)
			continue;
		uint32_t first, count;
		bus_pages_of(m, &first, &count);
		for (uint32_t p = 0; p < count; p++)
			bus_page_set(bus, first + p, 0);
		m->live = 0;
		return 0;
	}
	return -1;
}

const char *bus_name_of(const xb_bus *bus, uint32_t addr)
{
	uint16_t idx = bus_page_get(bus, addr);
	return idx ? bus->maps[idx - 1].name : NULL;
}

unsigned bus_timing(uint32_t addr, int write)
{
	switch (addr >> 28) {
	case 0x4:
		return write ? 4 : 3;
	case 0xD:
		return 1;
	default:
		return 2;
	}
}

/* 1 the first time addr is seen (so it should be reported). */
static int bus_first_time(xb_bus *bus, uint32_t addr)
{
	if (addr == 0) {
		int first = !bus->seen_zero;
		bus->seen_zero = 1;
		return first;
	}
	if (bus->seen_n * 2 >= bus->seen_cap) {
		if (bus->seen_n >= BUS_SEEN_MAX) {
			if (!bus->seen_full) {
				bus->seen_full = 1;
				bus_log(bus, "further unmapped accesses are not reported");
			}
			return 0;
		}
		size_t ncap = bus->seen_cap ? bus->seen_cap * 2 : 256;
		uint32_t *n = xcalloc(ncap, sizeof *n);
		for (size_t i = 0; i < bus->seen_cap; i++) {
			uint32_t a = bus->seen[i];
			if (!a)
				continue;
			size_t h = (a * 2654435761u) & (ncap - 1);
			while (n[h])
				h = (h + 1) & (ncap - 1);
			n[h] = a;
		}
		free(bus->seen);
		bus->seen = n;
		bus->seen_cap = ncap;
	}
	size_t h = (addr * 2654435761u) & (bus->seen_cap - 1);
	while (bus->seen[h]) {
		if (bus->seen[h] == addr)
			return 0;
		h = (h + 1) & (bus->seen_cap - 1);
	}
	bus->seen[h] = addr;
	bus->seen_n++;
	return 1;
}

static void bus_report(xb_bus *bus, uint32_t addr, unsigned size, int write, const char *where)
{
	bus->unmapped++;
	if (bus->unmapped_fn)
		bus->unmapped_fn(bus->unmapped_ctx, addr, size, write, bus->debug, bus->pc);
	if (!bus_first_time(bus, addr))
		return;
	char who[32];
	if (bus->debug)
		snprintf(who, sizeof who, "debugger");
	else
		snprintf(who, sizeof who, "pc 0x%08x", bus->pc);
	if (where)
		bus_log(bus, "%s of %u byte%s at 0x%08x hits no register of %s (%s)%s",
			write ? "write" : "read", size, size == 1 ? "" : "s", addr, where, who,
			bus->strict ? ": bus error" : "");
	else
		bus_log(bus, "unmapped %s of %u byte%s at 0x%08x (%s)%s", write ? "write" : "read",
			size, size == 1 ? "" : "s", addr, who, bus->strict ? ": bus error" : "");
}

void bus_stall(xb_bus *bus, uint32_t cycles)
{
	bus->stall += cycles;
}

uint32_t bus_take_stall(xb_bus *bus)
{
	uint32_t s = bus->stall;
	bus->stall = 0;
	return s;
}

void bus_report_hole(xb_bus *bus)
{
	if (bus->hole)
		return;
	bus->hole = 1;
	uint16_t idx = bus_page_get(bus, bus->cur_addr);
	bus_report(bus, bus->cur_addr, bus->cur_size, bus->cur_write,
		   idx ? bus->maps[idx - 1].name : "?");
}

void bus_error(xb_bus *bus)
{
	bus->error = 1;
}

int bus_access_is_debug(const xb_bus *bus)
{
	return bus->debug;
}

static uint32_t bus_size_mask(unsigned size)
{
	return size >= 4 ? 0xFFFFFFFFu : (1u << (size * 8)) - 1;
}

static uint32_t bus_replicate(uint32_t value, unsigned size)
{
	if (size == 1)
		return (value & 0xFF) * 0x01010101u;
	if (size == 2)
		return (value & 0xFFFF) * 0x00010001u;
	return value;
}

static int bus_access(xb_bus *bus, uint32_t addr, unsigned size, uint32_t *value, int write,
		      int debug)
{
	if (!write)
		*value = 0;
	bus->debug = debug;
	bus->cur_addr = addr;
	bus->cur_size = size;
	bus->cur_write = write;
	uint16_t idx = bus_page_get(bus, addr);
	const bus_mapping *m = idx ? &bus->maps[idx - 1] : NULL;
	uint32_t off = 0;
	enum xb_alias_op op = XB_OP_RW;
	if (m) {
		if (m->aliased) {
			op = (enum xb_alias_op)((addr >> 12) & 3);
			off = addr & 0xFFF;
		} else {
			off = addr - m->base;
		}
		if (off >= m->size || m->size - off < size)
			m = NULL;
	}
	if (!m) {
		bus_report(bus, addr, size, write, NULL);
		return bus->strict ? -1 : 0;
	}
	if (m->mem) {
		if (write) {
			if (!m->writable) {
				bus_report(bus, addr, size, write, m->name);
				return bus->strict ? -1 : 0;
			}
			memcpy(m->mem + off, value, size); /* little-endian host: low bytes */
		} else {
			uint32_t v = 0;
			memcpy(&v, m->mem + off, size);
			*value = v;
		}
		return 0;
	}
	bus->hole = 0;
	bus->error = 0;
	const xb_device_ops *ops = m->ops;
	if (ops->flags & XB_DEV_BYTES) {
		if (write) {
			if (ops->write)
				ops->write(m->ctx, off, *value & bus_size_mask(size), size, op);
		} else if (ops->read) {
			*value = ops->read(m->ctx, off, size) & bus_size_mask(size);
		}
	} else {
		uint32_t word = off & ~3u;
		if (write) {
			if (ops->write)
				ops->write(m->ctx, word, bus_replicate(*value, size), size, op);
		} else if (ops->read) {
			uint32_t w = ops->read(m->ctx, word, size);
			*value = (w >> ((off & 3) * 8)) & bus_size_mask(size);
		}
	}
	if (bus->error) {
		if (!write)
			*value = 0;
		return -1;
	}
	if (bus->hole) {
		if (!write)
			*value = 0;
		return bus->strict ? -1 : 0;
	}
	return 0;
}

int bus_read(xb_bus *bus, uint32_t addr, unsigned size, uint32_t *value)
{
	return bus_access(bus, addr, size, value, 0, 0);
}

int bus_write(xb_bus *bus, uint32_t addr, unsigned size, uint32_t value)
{
	return bus_access(bus, addr, size, &value, 1, 0);
}

int bus_debug_read(xb_bus *bus, uint32_t addr, unsigned size, uint32_t *value)
{
	uint32_t stall = bus->stall;
	int rc = bus_access(bus, addr, size, value, 0, 1);
	bus->stall = stall;
	bus->debug = 0;
	return rc;
}

int bus_debug_write(xb_bus *bus, uint32_t addr, unsigned size, uint32_t value)
{
	uint32_t stall = bus->stall;
	int rc = bus_access(bus, addr, size, &value, 1, 1);
	bus->stall = stall;
	bus->debug = 0;
	return rc;
}
