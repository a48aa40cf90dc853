/* bus: the virtual Pico's memory map: devices at addresses, the RP2040's atomic register
 * aliases and narrow-write rule, and reports of accesses that nothing answers. */
#ifndef XB_BUS_H
#define XB_BUS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Address decoding (RP2040 datasheet 2.1, reference/rp2040-peripherals.md section 0):
 *
 *  - A device mapped in the peripheral space 0x40000000-0x5FFFFFFF is a register block of
 *    at most 4 KB at a 16 KB boundary, and it also answers at base + 0x1000 (XOR),
 *    + 0x2000 (SET) and + 0x3000 (CLR): address bits 13:12 select the atomic alias. The device receives the raw written value plus the op and decides what
 *    the op means for each register (bus_alias_apply gives the result for a plain RW
 *    register; write-1-to-clear registers use the raw value under every op, as firmware
 *    expects). Reads through an alias address read the register normally.
 *  - Everywhere else (SIO at 0xD0000000, XIP_CTRL, the PPB ...) there are no aliases: the
 *    op is always XB_OP_RW.
 *  - Register blocks ignore the width of an access (datasheet 2.1.4, "narrow IO register
 *    writes"): a read returns the whole 32-bit register and the bus picks the byte lanes;
 *    a byte or halfword write reaches the register with the data replicated across the 32
 *    bits (a byte 0xA5 arrives as 0xA5A5A5A5, a halfword 0x1234 as 0x12341234), at the
 *    word-aligned offset. Devices that are memories rather than registers (the USB DPRAM)
 *    set XB_DEV_BYTES and see every access as it is.
 *  - An access that no device answers (or that a device declares a hole with
 *    bus_report_hole) is reported once per address to the log callback, with the address,
 *    the PC of the instruction and the direction, and reads as zero (writes are dropped);
 *    in strict mode it is a bus error instead, which the CPU turns into a HardFault.
 *
 * Access timing (CPU cycles of a single load or store; the CPU uses bus_timing):
 *    SRAM, ROM, XIP, PPB, AHB peripherals (0x5...)  2
 *    SIO (0xD...)                                    1
 *    APB peripherals (0x4...)                        3 read, 4 write
 *
 * Ownership: the bus owns its mapping table and copies names; it does not own device
 * contexts (their owners free them after bus_free). A bus is used by one thread.
 */

typedef struct xb_bus xb_bus;

/* The atomic alias an access went through (address bits 13:12 in the peripheral space). */
enum xb_alias_op {
	XB_OP_RW = 0,  /* normal read/write */
	XB_OP_XOR = 1, /* +0x1000: flip the bits written as 1 */
	XB_OP_SET = 2, /* +0x2000: set the bits written as 1 */
	XB_OP_CLR = 3, /* +0x3000: clear the bits written as 1 */
};

/* The new value of a plain read/write register after a write of value through op. */
static inline uint32_t bus_alias_apply(uint32_t old, uint32_t value, enum xb_alias_op op)
{
	switch (op) {
	case XB_OP_XOR:
		return old ^ value;
	case XB_OP_SET:
		return old | value;
	case XB_OP_CLR:
		return old & ~value;
	case XB_OP_RW:
	default:
		return value;
	}
}

/* Device flags. */
#define XB_DEV_BYTES 1u /* a memory, not registers: exact offsets and sizes, no replication */

/* A device. offset is relative to the base it was mapped at (alias bits removed). For a
 * register block (flags without XB_DEV_BYTES) offsets are word aligned, reads must return
 * the whole register, and writes carry the replicated value with the original size
 * (1, 2 or 4). With XB_DEV_BYTES, read returns the size bytes at offset in the low bits
 * and write stores the low size bytes of value. Either callback may be NULL (reads as
 * zero / writes ignored, and neither is reported). Callbacks may call bus_stall,
 * bus_report_hole and bus_access_is_debug on the bus the device was mapped on. */
typedef struct xb_device_ops {
	uint32_t (*read)(void *ctx, uint32_t offset, unsigned size);
	void (*write)(void *ctx, uint32_t offset, uint32_t value, unsigned size,
		      enum xb_alias_op op);
	unsigned flags;
} xb_device_ops;

/* A log line (no trailing newline). */
typedef void (*xb_log_fn)(void *ctx, const char *msg);

xb_bus *bus_new(void);
void bus_free(xb_bus *bus);

/* Maps a device at [base, base + size). base and size must be multiples of 4 (in the
 * peripheral space: base a multiple of 0x4000, size at most 0x1000). name is copied and
 * appears in reports. ops must outlive the bus (a static const table). Returns 0, or -1 (after logging why) when the range is malformed or overlaps a
 * mapping already made. */
int bus_map(xb_bus *bus, uint32_t base, uint32_t size, const char *name,
	    const xb_device_ops *ops, void *ctx);

/* Maps plain memory that the bus reads and writes itself (mem must hold size bytes and
 * outlive the bus; writable = 0 makes writes bus errors in strict mode and reported
 * otherwise). Same rules and result as bus_map. */
int bus_map_memory(xb_bus *bus, uint32_t base, uint32_t size, const char *name, uint8_t *mem,
		   int writable);

/* Removes the mapping that starts at base (returns -1 if none). */
int bus_unmap(xb_bus *bus, uint32_t base);

/* Name of the mapping containing addr (alias addresses included), or NULL. */
const char *bus_name_of(const xb_bus *bus, uint32_t addr);

/* The generic access path (the CPU uses it for everything but SRAM and flash fast paths;
 * the debug port for everything). size is 1, 2 or 4 and addr must be aligned to it
 * (alignment faults are the CPU's business). Returns 0, or -1 for a bus error (strict
 * mode, read-only memory, or a device that refused). A read that fails stores 0. */
int bus_read(xb_bus *bus, uint32_t addr, unsigned size, uint32_t *value);
int bus_write(xb_bus *bus, uint32_t addr, unsigned size, uint32_t value);

/* The same through the debug port (SWD): reports name the debugger instead of a PC, and
 * devices can tell (bus_access_is_debug). */
int bus_debug_read(xb_bus *bus, uint32_t addr, unsigned size, uint32_t *value);
int bus_debug_write(xb_bus *bus, uint32_t addr, unsigned size, uint32_t value);

/* CPU cycles of a single load (write = 0) or store (write = 1) at addr, per the table
 * above. */
unsigned bus_timing(uint32_t addr, int write);

/* For device callbacks: */
/* Extra wait cycles for the access in progress (a flash miss, a stall until a flush
 * ends). The CPU charges them; debug accesses ignore them. */
void bus_stall(xb_bus *bus, uint32_t cycles);
/* The access in progress hit a hole in the device's block: report it like an unmapped
 * access and, in strict mode, answer with a bus error. */
void bus_report_hole(xb_bus *bus);
/* The access in progress is a bus error whatever the mode (a write to read-only flash
 * with ERR_BADWRITE, cache-as-SRAM while the cache is on ...). */
void bus_error(xb_bus *bus);
/* 1 while the access in progress comes from the debug port. */
int bus_access_is_debug(const xb_bus *bus);

/* Wait cycles charged by devices since the last call; resets the count. (CPU side.) */
uint32_t bus_take_stall(xb_bus *bus);

/* Strict mode: unmapped accesses are bus errors (default off: read as zero). */
void bus_set_strict(xb_bus *bus, int strict);
int bus_strict(const xb_bus *bus);

/* Where reports go (default: stderr, prefixed "sim: "). fn NULL silences them. */
void bus_set_log(xb_bus *bus, xb_log_fn fn, void *ctx);
/* Writes one report line through the log callback (printf style). */
void bus_log(xb_bus *bus, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The PC that reports name (set by the CPU before it uses the generic path). */
void bus_set_pc(xb_bus *bus, uint32_t pc);

/* Unmapped accesses seen so far (every one, not only the reported first per address). */
uint64_t bus_unmapped_count(const xb_bus *bus);

/* Called for every access the log reports about (unmapped addresses, holes in a device's
 * block, writes to read-only memory), each time, before the once-per-address filter: addr,
 * size, write, whether the debug port made it and the PC of the instruction. One hook per
 * bus; fn NULL removes it. */
typedef void (*xb_unmapped_fn)(void *ctx, uint32_t addr, unsigned size, int write, int debug,
			       uint32_t pc);
void bus_set_unmapped_hook(xb_bus *bus, xb_unmapped_fn fn, void *ctx);

#endif
