/* rp2040: XIP counters and flush, flash reads through the uncached alias, and flash
 * programming through the bootrom's functions run on the halted core. */
#include "rp2040.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/segments.h"
#include "cortexm.h"

#define ROM_MAGIC_ADDR 0x10u
#define ROM_MAGIC 0x01754Du /* 'M', 'u', 1 */
#define ROM_FUNC_TABLE 0x14u
#define ROM_SIZE 0x4000u
#define ROM_TABLE_WORDS 64u
#define STAT_FLUSH_READY 0x1u
#define FLASH_BLOCK 65536u
#define FLASH_BLOCK_ERASE_CMD 0xD8u
#define MS 1000000ull
#define HALT_TIMEOUT_NS (500 * MS)
#define FLUSH_TRIES 100
#define LIVE_TRANSFERS_MAX 13

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* ---- XIP cache ---- */

int rp2040_xip_counters(xb_adi *a, xb_xip_counters *out, xb_err *err)
{
	xb_mem_access m[2] = {{.addr = RP2040_XIP_CTR_HIT}, {.addr = RP2040_XIP_CTR_ACC}};
	if (adi_mem_access(a, m, 2, err))
		return -1;
	out->hit = m[0].value;
	out->acc = m[1].value;
	return 0;
}

/* The transfers of the live counters' packet: four reads, the optional clear, TAR back. */
static size_t live_transfers(xb_dap_transfer *x, uint32_t restore_tar, int clear)
{
	static const uint32_t reads[4] = {RP2040_XIP_CTR_HIT, RP2040_XIP_CTR_ACC,
					  RP2040_XIP_CTR_HIT, RP2040_TIMERAWL};
	size_t n = 0;
	for (unsigned i = 0; i < 4; i++) {
		x[n++] = (xb_dap_transfer){ADI_REQ_TAR_WRITE, reads[i]};
		x[n++] = (xb_dap_transfer){ADI_REQ_DRW_READ, 0};
	}
	if (clear) {
		x[n++] = (xb_dap_transfer){ADI_REQ_TAR_WRITE, RP2040_XIP_CTR_HIT};
		x[n++] = (xb_dap_transfer){ADI_REQ_DRW_WRITE, 0};
		x[n++] = (xb_dap_transfer){ADI_REQ_TAR_WRITE, RP2040_XIP_CTR_ACC};
		x[n++] = (xb_dap_transfer){ADI_REQ_DRW_WRITE, 0};
	}
	x[n++] = (xb_dap_transfer){ADI_REQ_TAR_WRITE, restore_tar};
	return n;
}

size_t rp2040_live_counters_request(uint8_t *pkt, size_t cap, uint32_t restore_tar, int clear)
{
	xb_dap_transfer x[LIVE_TRANSFERS_MAX];
	size_t n = live_transfers(x, restore_tar, clear);
	return dap_client_build_transfer(x, n, pkt, cap);
}

int rp2040_live_counters_parse(xb_dap_client *c, const uint8_t *resp, size_t len, int clear,
			       xb_xip_live *out, xb_err *err)
{
	xb_dap_transfer x[LIVE_TRANSFERS_MAX];
	size_t n = live_transfers(x, 0, clear), done;
	unsigned ack;
	if (dap_client_parse_transfer(c, resp, len, x, n, &done, &ack, err))
		return -1;
	if (ack != XB_ACK_OK)
		return xb_fail(err, "%s: reading the XIP counters: transfer %zu of %zu answered %s",
			       dap_client_name(c), done + 1, n, dap_client_ack_name(ack));
	out->hit0 = x[1].value;
	out->acc = x[3].value;
	out->hit1 = x[5].value;
	out->timer_us = x[7].value;
	out->cleared = clear != 0;
	return 0;
}

int rp2040_xip_clear(xb_adi *a, xb_err *err)
{
	xb_mem_access m[2] = {{.addr = RP2040_XIP_CTR_HIT, .write = 1},
			      {.addr = RP2040_XIP_CTR_ACC, .write = 1}};
	return adi_mem_access(a, m, 2, err);
}

int rp2040_xip_flush(xb_adi *a, xb_err *err)
{
	/* Reading FLUSH back stalls until the flush is done; STAT confirms it. */
	xb_mem_access m[3] = {{.addr = RP2040_XIP_FLUSH, .value = 1, .write = 1},
			      {.addr = RP2040_XIP_FLUSH},
			      {.addr = RP2040_XIP_STAT}};
	if (adi_mem_access(a, m, 3, err))
		return -1;
	for (int i = 0; !(m[2].value & STAT_FLUSH_READY); i++) {
		if (i == FLUSH_TRIES)
			return xb_fail(err, "%s: the XIP cache flush did not finish (STAT 0x%08x)",
				       adi_name(a), m[2].value);
		if (adi_mem_read32(a, RP2040_XIP_STAT, &m[2].value, err))
			return -1;
	}
	return 0;
}

int rp2040_flash_read(xb_adi *a, uint32_t offset, void *buf, size_t len, xb_err *err)
{
	if (len == 0)
		return 0;
	uint32_t first = offset & ~3u;
	size_t words = (offset - first + len + 3) / 4;
	uint32_t *w = xmalloc(words * 4);
	int rc = adi_mem_read(a, RP2040_FLASH_UNCACHED + first, w, words, err);
	if (rc == 0) {
		uint8_t *out = buf;
		for (size_t i = 0; i < len; i++) {
			size_t at = offset - first + i;
			out[i] = (uint8_t)(w[at / 4] >> (8 * (at % 4)));
		}
	}
	free(w);
	return rc;
}

/* ---- The bootrom ---- */

/* The bootrom's function table up to its end marker: *entries (malloc'd) gets n entries
 * of {u16 code, u16 address}, packed as bytes. */
static int rom_table(xb_adi *a, uint8_t **entries, size_t *n, xb_err *err)
{
	uint32_t head[2];
	*entries = NULL;
	*n = 0;
	if (adi_mem_read(a, ROM_MAGIC_ADDR, head, 2, err))
		return -1;
	if ((head[0] & 0xFFFFFFu) != ROM_MAGIC)
		return xb_fail(err,
			       "%s: no RP2040 bootrom at 0 (magic 0x%06x, expected 0x%06x 'Mu' "
			       "version 1): is this an RP2040?",
			       adi_name(a), head[0] & 0xFFFFFFu, ROM_MAGIC);
	uint32_t table = head[1] & 0xFFFFu;
	uint8_t *out = NULL;
	size_t cap = 0;
	for (uint32_t entry = table; entry + 4 <= ROM_SIZE;) {
		uint32_t at = entry & ~3u, words[ROM_TABLE_WORDS];
		if (adi_mem_read(a, at, words, ROM_TABLE_WORDS, err)) {
			free(out);
			return -1;
		}
		for (; entry + 4 <= at + 4 * ROM_TABLE_WORDS; entry += 4) {
			uint8_t e[4];
			for (unsigned k = 0; k < 4; k++) {
				uint32_t off = entry - at + k;
				e[k] = (uint8_t)(words[off / 4] >> (8 * (off % 4)));
			}
			if (e[0] == 0 && e[1] == 0) {
				*entries = out;
				return 0;
			}
			xb_grow(&out, &cap, 4 * (*n + 1), 1);
			memcpy(out + 4 * (*n)++, e, 4);
		}
	}
	free(out);
	*n = 0;
	return xb_fail(err, "%s: the bootrom's function table at 0x%04x has no end", adi_name(a),
		       table);
}

static uint32_t rom_find(const uint8_t *entries, size_t n, uint32_t code)
{
	for (size_t i = 0; i < n; i++) {
		const uint8_t *e = entries + 4 * i;
		if ((e[0] | (uint32_t)e[1] << 8) == code)
			return e[2] | (uint32_t)e[3] << 8;
	}
	return 0;
}

int rp2040_rom_function(xb_adi *a, uint32_t code, uint32_t *addr, xb_err *err)
{
	uint8_t *entries;
	size_t n;
	*addr = 0;
	if (rom_table(a, &entries, &n, err))
		return -1;
	*addr = rom_find(entries, n, code);
	free(entries);
	return 0;
}

int rp2040_rom_flash_functions(xb_adi *a, xb_rp2040_rom *rom, xb_err *err)
{
	static const struct {
		char c1, c2;
		const char *name;
		size_t off;
	} want[] = {
		{'I', 'F', "connect_internal_flash", offsetof(xb_rp2040_rom, connect_internal_flash)},
		{'E', 'X', "flash_exit_xip", offsetof(xb_rp2040_rom, flash_exit_xip)},
		{'R', 'E', "flash_range_erase", offsetof(xb_rp2040_rom, flash_range_erase)},
		{'R', 'P', "flash_range_program", offsetof(xb_rp2040_rom, flash_range_program)},
		{'F', 'C', "flash_flush_cache", offsetof(xb_rp2040_rom, flash_flush_cache)},
		{'C', 'X', "flash_enter_cmd_xip", offsetof(xb_rp2040_rom, flash_enter_cmd_xip)},
	};
	uint8_t *entries;
	size_t n;
	if (rom_table(a, &entries, &n, err))
		return -1;
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < sizeof want / sizeof want[0]; i++) {
		uint32_t addr = rom_find(entries, n, RP2040_ROM_CODE(want[i].c1, want[i].c2));
		if (!addr)
			rc = xb_fail(err, "%s: the bootrom has no %s ('%c%c')", adi_name(a),
				     want[i].name, want[i].c1, want[i].c2);
		memcpy((char *)rom + want[i].off, &addr, sizeof addr);
	}
	free(entries);
	return rc;
}

/* ---- Flash programming ---- */

typedef struct flasher {
	xb_adi *a;
	xb_rp2040_rom rom;
	xb_flash_report *rep;
} flasher;

static int flasher_call(flasher *f, uint32_t fn, uint32_t a0, uint32_t a1, uint32_t a2,
			uint32_t a3, uint64_t timeout_ns, xb_err *err)
{
	xb_cortexm_call call = {
		.fn = fn,
		.args = {a0, a1, a2, a3},
		.trap = RP2040_PROG_TRAP,
		.sp = RP2040_PROG_STACK,
		.timeout_ns = timeout_ns,
	};
	f->rep->calls++;
	return cortexm_call(f->a, &call, NULL, err);
}

/* Programs one run of whole sectors: image[0..len) at offset (both sector-aligned). */
static int flasher_run(flasher *f, uint32_t offset, const uint8_t *image, size_t len,
		       xb_err *err)
{
	const xb_rp2040_rom *r = &f->rom;
	size_t sectors = len / RP2040_FLASH_SECTOR;
	if (flasher_call(f, r->connect_internal_flash, 0, 0, 0, 0, HALT_TIMEOUT_NS, err) ||
	    flasher_call(f, r->flash_exit_xip, 0, 0, 0, 0, HALT_TIMEOUT_NS, err) ||
	    flasher_call(f, r->flash_range_erase, offset, (uint32_t)len, FLASH_BLOCK,
			 FLASH_BLOCK_ERASE_CMD, 2000 * MS + sectors * 400 * MS, err))
		return -1;
	f->rep->sectors += sectors;
	uint32_t *words = xmalloc(RP2040_PROG_BUFFER_SIZE);
	int rc = 0;
	for (size_t done = 0; rc == 0 && done < len; done += RP2040_PROG_BUFFER_SIZE) {
		size_t n = len - done < RP2040_PROG_BUFFER_SIZE ? len - done : RP2040_PROG_BUFFER_SIZE;
		for (size_t i = 0; i < n / 4; i++)
			words[i] = get_le32(image + done + 4 * i);
		rc = adi_mem_write(f->a, RP2040_PROG_BUFFER, words, n / 4, err);
		if (rc == 0)
			rc = flasher_call(f, r->flash_range_program, offset + (uint32_t)done,
					  RP2040_PROG_BUFFER, (uint32_t)n, 0,
					  2000 * MS + n / RP2040_FLASH_PAGE * 5 * MS, err);
	}
	free(words);
	return rc;
}

/* One byte range of the image. */
typedef struct piece {
	uint32_t offset;
	const uint8_t *bytes;
	size_t len;
} piece;

static int flasher_start(flasher *f, xb_err *err)
{
	/* A locked-up core (a blank or broken image), or one that does not halt, is reset
	 * into a halt before its first instruction: code called in a lockup would lock up. */
	uint32_t dhcsr = 0;
	xb_err first;
	if (cortexm_status(f->a, &dhcsr, err))
		return -1;
	int halted = !(dhcsr & CORTEXM_S_LOCKUP) && cortexm_halt(f->a, HALT_TIMEOUT_NS, &first) == 0;
	if (!halted && cortexm_reset(f->a, 1, HALT_TIMEOUT_NS, err)) {
		if (!(dhcsr & CORTEXM_S_LOCKUP))
			xb_fail(err, "%s; a reset into a halt did not help either", first.msg);
		return -1;
	}
	if (rp2040_rom_flash_functions(f->a, &f->rom, err))
		return -1;
	return adi_mem_write32(f->a, RP2040_PROG_TRAP, 0xBE00BE00u, err); /* BKPT; BKPT */
}

/* Programs pieces (sorted or not; later ones win) into flash, sector run by sector run. */
static int flash_pieces(xb_adi *a, const piece *p, size_t np, uint32_t flash_size,
			xb_flash_report *rep, xb_err *err)
{
	uint64_t t0 = dap_client_now_ns(adi_client(a));
	flasher f = {.a = a, .rep = rep};
	uint32_t nsec = flash_size / RP2040_FLASH_SECTOR;
	/* per sector: 0 untouched, 1 touched */
	uint8_t *touched = xcalloc(nsec, 1);
	rep->lo = UINT32_MAX;
	for (size_t i = 0; i < np; i++) {
		for (uint32_t s = p[i].offset / RP2040_FLASH_SECTOR;
		     s <= (p[i].offset + p[i].len - 1) / RP2040_FLASH_SECTOR; s++)
			touched[s] = 1;
		rep->image_bytes += p[i].len;
		if (p[i].offset < rep->lo)
			rep->lo = p[i].offset;
		if (p[i].offset + p[i].len > rep->hi)
			rep->hi = p[i].offset + (uint32_t)p[i].len;
	}
	int rc = flasher_start(&f, err);
	for (uint32_t s = 0; rc == 0 && s < nsec;) {
		if (!touched[s]) {
			s++;
			continue;
		}
		uint32_t e = s;
		while (e < nsec && touched[e])
			e++;
		uint32_t off = s * RP2040_FLASH_SECTOR;
		size_t len = (size_t)(e - s) * RP2040_FLASH_SECTOR;
		uint8_t *image = xmalloc(len), *covered = xcalloc(len, 1);
		for (size_t i = 0; i < np; i++) {
			if (p[i].offset + p[i].len <= off || p[i].offset >= off + len)
				continue;
			uint32_t from = p[i].offset > off ? p[i].offset : off;
			uint32_t to = p[i].offset + p[i].len < off + len ? p[i].offset + (uint32_t)p[i].len
									  : off + (uint32_t)len;
			memcpy(image + (from - off), p[i].bytes + (from - p[i].offset), to - from);
			memset(covered + (from - off), 1, to - from);
		}
		/* sectors the image only partly covers keep their other bytes */
		for (size_t sec = 0; rc == 0 && sec < len; sec += RP2040_FLASH_SECTOR) {
			size_t hole = 0;
			for (size_t k = 0; k < RP2040_FLASH_SECTOR; k++)
				hole += !covered[sec + k];
			if (hole == 0)
				continue;
			uint8_t old[RP2040_FLASH_SECTOR];
			rc = rp2040_flash_read(a, off + (uint32_t)sec, old, sizeof old, err);
			for (size_t k = 0; rc == 0 && k < RP2040_FLASH_SECTOR; k++)
				if (!covered[sec + k])
					image[sec + k] = old[k];
			rep->preserved += hole;
		}
		if (rc == 0)
			rc = flasher_run(&f, off, image, len, err);
		if (rc == 0)
			rep->programmed += len;
		/* verify through the uncached alias */
		uint8_t *back = rc == 0 ? xmalloc(len) : NULL;
		if (rc == 0)
			rc = rp2040_flash_read(a, off, back, len, err);
		for (size_t k = 0; rc == 0 && k < len; k++)
			if (back[k] != image[k])
				rc = xb_fail(err,
					     "%s: verify failed at flash offset 0x%06zx (address "
					     "0x%08zx): wrote 0x%02x, read back 0x%02x",
					     adi_name(a), off + k, RP2040_FLASH_BASE + off + k,
					     image[k], back[k]);
		free(back);
		free(image);
		free(covered);
		s = e;
	}
	if (rc == 0)
		rc = flasher_call(&f, f.rom.flash_flush_cache, 0, 0, 0, 0, HALT_TIMEOUT_NS, err) ||
		     flasher_call(&f, f.rom.flash_enter_cmd_xip, 0, 0, 0, 0, HALT_TIMEOUT_NS, err);
	free(touched);
	rep->seconds = (double)(dap_client_now_ns(adi_client(a)) - t0) / 1e9;
	return rc ? -1 : 0;
}

static int flash_check_range(xb_adi *a, uint32_t offset, size_t len, uint32_t flash_size,
			     const char *what, xb_err *err)
{
	if (len == 0 || offset >= flash_size || len > flash_size - offset)
		return xb_fail(err, "%s: %s (flash offset 0x%x, %zu bytes) is outside the %u-byte "
				    "flash",
			       adi_name(a), what, offset, len, flash_size);
	return 0;
}

int rp2040_flash_program(xb_adi *a, uint32_t offset, const uint8_t *data, size_t len,
			 uint32_t flash_size, xb_flash_report *rep, xb_err *err)
{
	xb_flash_report local;
	rep = rep ? rep : &local;
	memset(rep, 0, sizeof *rep);
	flash_size = flash_size ? flash_size : RP2040_FLASH_SIZE_DEFAULT;
	if (flash_check_range(a, offset, len, flash_size, "the data", err))
		return -1;
	piece p = {offset, data, len};
	return flash_pieces(a, &p, 1, flash_size, rep, err);
}

int rp2040_flash_elf(xb_adi *a, const uint8_t *elf, size_t len, const char *name,
		     uint32_t flash_size, xb_flash_report *rep, xb_err *err)
{
	xb_flash_report local;
	rep = rep ? rep : &local;
	memset(rep, 0, sizeof *rep);
	flash_size = flash_size ? flash_size : RP2040_FLASH_SIZE_DEFAULT;
	xb_segments segs = {0};
	if (segments_read_elf(&segs, elf, len, name, err))
		return -1;
	piece *p = xcalloc(segs.n, sizeof *p);
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < segs.n; i++) {
		const xb_segment *s = &segs.s[i];
		uint32_t alias = s->paddr >> 24;
		if (alias < 0x10 || alias > 0x13) {
			rc = xb_fail(err,
				     "%s: segment %zu (0x%08x, %u bytes) is not in flash: only "
				     "flash can be programmed (a no-flash build runs from SRAM "
				     "and is loaded, not flashed)",
				     name, s->index, s->paddr, s->filesz);
			break;
		}
		p[i] = (piece){s->paddr & 0x00FFFFFFu, s->bytes, s->filesz};
		char what[48];
		snprintf(what, sizeof what, "segment %zu", s->index);
		rc = flash_check_range(a, p[i].offset, p[i].len, flash_size, what, err);
	}
	if (rc == 0) {
		rep->segments = segs.n;
		rc = flash_pieces(a, p, segs.n, flash_size, rep, err);
		rep->segments = segs.n;
	}
	free(p);
	segments_free(&segs);
	return rc;
}
