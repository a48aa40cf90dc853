/* rp2040: what the host does to an RP2040 through its debug port: the XIP cache's counters
 * and flush, reading flash without disturbing the cache, and programming flash the way
 * OpenOCD's rp2040 driver does (the bootrom's own flash functions, called on the core). */
#ifndef XB_PROBE_RP2040_H
#define XB_PROBE_RP2040_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"
#include "adiv5.h"
#include "dap_client.h"

#define RP2040_XIP_CTRL 0x14000000u
#define RP2040_XIP_FLUSH 0x14000004u
#define RP2040_XIP_STAT 0x14000008u
#define RP2040_XIP_CTR_HIT 0x1400000Cu
#define RP2040_XIP_CTR_ACC 0x14000010u
#define RP2040_TIMERAWL 0x40054028u /* the TIMER's raw microseconds, low word */
#define RP2040_FLASH_BASE 0x10000000u
#define RP2040_FLASH_UNCACHED 0x13000000u /* uncached, non-allocating: leaves the cache be */
#define RP2040_FLASH_SECTOR 4096u
#define RP2040_FLASH_PAGE 256u
#define RP2040_FLASH_SIZE_DEFAULT (2u << 20) /* the Pico's 2 MB */

/* ---- XIP cache ---- */

/* CTR_HIT and CTR_ACC (32-bit, saturating; every XIP access counts in CTR_ACC, cached or
 * not), read in one packet. */
typedef struct xb_xip_counters {
	uint32_t hit, acc;
} xb_xip_counters;
int rp2040_xip_counters(xb_adi *a, xb_xip_counters *out, xb_err *err);
/* The counters for a live session, in one DAP_Transfer packet for a dap_pipe: CTR_HIT,
 * CTR_ACC, CTR_HIT again and the TIMER's raw microseconds (TIMERAWL, 0x40054028), then TAR
 * back to restore_tar (DWT_PCSR while the sampler streams), and when clear is set both
 * counters cleared after the reads. The two CTR_HIT reads bracket CTR_ACC: their mean
 * estimates the hits at the moment CTR_ACC was read, so misses are not skewed by the
 * accesses between two reads. Never reads flash. Returns the packet's length, or 0 when
 * cap is too small. */
size_t rp2040_live_counters_request(uint8_t *pkt, size_t cap, uint32_t restore_tar, int clear);
typedef struct xb_xip_live {
	uint32_t hit0, acc, hit1; /* CTR_HIT, CTR_ACC, CTR_HIT */
	uint32_t timer_us;        /* TIMERAWL */
	int cleared;              /* the counters were cleared after the reads */
} xb_xip_live;
/* Parses the response to that request (the same clear flag). -1 with err when malformed
 * or when the target answered anything but OK (the message names the answer). */
int rp2040_live_counters_parse(xb_dap_client *c, const uint8_t *resp, size_t len, int clear,
			       xb_xip_live *out, xb_err *err);

/* Clears both counters (any write clears one). */
int rp2040_xip_clear(xb_adi *a, xb_err *err);
/* Flushes the cache (FLUSH = 1) and waits for STAT.FLUSH_READY. */
int rp2040_xip_flush(xb_adi *a, xb_err *err);

/* Reads len bytes of flash from offset through the 0x13 alias: no cache line is filled,
 * though the read counts in CTR_ACC like every XIP access. */
int rp2040_flash_read(xb_adi *a, uint32_t offset, void *buf, size_t len, xb_err *err);

/* ---- The bootrom ---- */

/* The bootrom's flash functions (addresses from its function table). */
typedef struct xb_rp2040_rom {
	uint32_t connect_internal_flash; /* 'I','F' */
	uint32_t flash_exit_xip;         /* 'E','X' */
	uint32_t flash_range_erase;      /* 'R','E' (offset, count, block_size, block_cmd) */
	uint32_t flash_range_program;    /* 'R','P' (offset, data, count) */
	uint32_t flash_flush_cache;      /* 'F','C' */
	uint32_t flash_enter_cmd_xip;    /* 'C','X' */
} xb_rp2040_rom;

/* The code of a two-letter ROM table entry. */
#define RP2040_ROM_CODE(c1, c2) ((uint32_t)(uint8_t)(c1) | (uint32_t)(uint8_t)(c2) << 8)

/* Checks the bootrom's magic at 0x10 ('M', 'u', version 1) and walks its function table
 * (u16 pointer at 0x14; entries {u16 code, u16 address}, ended by code 0): *addr gets the
 * function of code, 0 when the table has none. */
int rp2040_rom_function(xb_adi *a, uint32_t code, uint32_t *addr, xb_err *err);
/* All six flash functions; fails naming the first one missing. */
int rp2040_rom_flash_functions(xb_adi *a, xb_rp2040_rom *rom, xb_err *err);

/* ---- Flash programming ---- */

/* Where the core's SRAM is used while programming (the image is reset afterwards). */
#define RP2040_PROG_TRAP 0x20000000u      /* BKPT the called functions return to */
#define RP2040_PROG_STACK 0x20001000u     /* initial SP (the stack grows below) */
#define RP2040_PROG_BUFFER 0x20001000u    /* data staged for flash_range_program */
#define RP2040_PROG_BUFFER_SIZE 0x10000u

typedef struct xb_flash_report {
	size_t segments;       /* ELF segments written (rp2040_flash_elf) */
	size_t image_bytes;    /* bytes of the image */
	size_t programmed;     /* bytes erased and programmed (whole sectors) */
	size_t preserved;      /* of those, bytes kept from the old contents (sector parts the
				* image does not cover) */
	size_t sectors;        /* 4 KB sectors erased */
	size_t calls;          /* bootrom functions called */
	uint32_t lo, hi;       /* flash offsets covered: [lo, hi) */
	double seconds;        /* on the transport's clock (virtual time for the virtual probe) */
} xb_flash_report;

/*
 * Programs data[0..len) at flash offset: halts the core (a core that will not halt, e.g.
 * locked up on a blank image, is reset into a halt), finds the bootrom functions,
 * writes a BKPT trap to SRAM, reads the parts of the touched 4 KB sectors that data does
 * not cover (through the 0x13 alias) so they survive, then, as OpenOCD does:
 * connect_internal_flash, flash_exit_xip, flash_range_erase(sectors, 64 KB blocks with
 * command 0xD8 where aligned), and per 64 KB staged in SRAM flash_range_program, then
 * flash_flush_cache and flash_enter_cmd_xip; finally verifies every programmed byte by
 * reading it back through 0x13. The core stays halted (reset it to run the new image).
 * flash_size bounds the offsets (0: RP2040_FLASH_SIZE_DEFAULT). rep may be NULL.
 */
int rp2040_flash_program(xb_adi *a, uint32_t offset, const uint8_t *data, size_t len,
			 uint32_t flash_size, xb_flash_report *rep, xb_err *err);

/* Programs the PT_LOAD segments of an ELF held in elf[0..len) (named name in messages) by
 * their physical addresses, with the rules of the virtual Pico's loader (core/segments.h):
 * every segment must lie in flash (any XIP alias); one outside it (a no-flash build's SRAM
 * segment) is refused before anything is written. Segments that share sectors are
 * programmed together; later segments win where they overlap. */
int rp2040_flash_elf(xb_adi *a, const uint8_t *elf, size_t len, const char *name,
		     uint32_t flash_size, xb_flash_report *rep, xb_err *err);

#endif
