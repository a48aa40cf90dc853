/* loader: ELF, UF2 and raw images into the virtual Pico's flash and SRAM, checked whole
 * before anything is written, and the choice of the vector table the core boots from. */
#include "loader.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../core/segments.h"

/* One run of bytes to load: at addr (a canonical address: flash through its normal
 * alias), len bytes from src. */
typedef struct load_piece {
	uint32_t addr, len;
	const uint8_t *src;
} load_piece;

typedef struct load_plan {
	load_piece *p;
	size_t n, cap;
} load_plan;

const char *loader_format_name(enum xb_image_format f)
{
	switch (f) {
	case XB_IMAGE_ELF: return "elf";
	case XB_IMAGE_UF2: return "uf2";
	case XB_IMAGE_BIN: return "bin";
	case XB_IMAGE_AUTO: break;
	}
	return "auto";
}

/* ---- Checking and loading a plan ---- */

/* Accepts [addr, addr + len) when it lies in flash (through any alias) or in one SRAM
 * region; *canon gets the address through the normal flash alias. what names the piece in
 * errors ("segment 2"). */
static int loader_check(const xb_board *b, uint32_t addr, uint64_t len, const char *name,
			const char *what, uint32_t *canon, xb_err *err)
{
	const xb_target *t = board_target(b);
	uint32_t off;
	enum xb_alias_mode mode;
	*canon = addr;
	if (target_decode_xip(t, addr, &off, &mode)) {
		if ((uint64_t)off + len <= t->flash_size) {
			*canon = (t->flash_base ? t->flash_base : t->aliases[0].base) + off;
			return 0;
		}
	} else {
		const xb_region *r = target_region_of(t, addr);
		if (r && r->kind == XB_REGION_SRAM && (uint64_t)(addr - r->base) + len <= r->size)
			return 0;
		if (r && r->kind == XB_REGION_ROM)
			return xb_fail(err,
				       "%s: %s (0x%08x, %llu bytes) is in the bootrom; the virtual "
				       "Pico has its own, images go to flash or SRAM",
				       name, what, addr, (unsigned long long)len);
	}
	return xb_fail(err, "%s: %s (0x%08x, %llu bytes) is outside the board's flash and SRAM",
		       name, what, addr, (unsigned long long)len);
}

static int plan_add(load_plan *pl, const xb_board *b, uint32_t addr, const uint8_t *src,
		    uint64_t len, const char *name, const char *what, xb_err *err)
{
	uint32_t canon;
	if (len == 0)
		return 0;
	if (loader_check(b, addr, len, name, what, &canon, err))
		return -1;
	xb_grow(&pl->p, &pl->cap, pl->n + 1, sizeof *pl->p);
	pl->p[pl->n++] = (load_piece){canon, (uint32_t)len, src};
	return 0;
}

/* The image's word at addr (canonical), from the last piece that covers it. */
static int plan_word(const load_plan *pl, uint32_t addr, uint32_t *w)
{
	for (size_t i = pl->n; i-- > 0;) {
		const load_piece *p = &pl->p[i];
		if (addr >= p->addr && (uint64_t)addr + 4 <= (uint64_t)p->addr + p->len) {
			const uint8_t *s = p->src + (addr - p->addr);
			*w = (uint32_t)s[0] | (uint32_t)s[1] << 8 | (uint32_t)s[2] << 16 |
			     (uint32_t)s[3] << 24;
			return 1;
		}
	}
	return 0;
}

static int plan_covers(const load_plan *pl, uint32_t addr)
{
	uint32_t w;
	return plan_word(pl, addr & ~3u, &w);
}

static int loader_in_sram(const xb_target *t, uint32_t addr)
{
	for (int i = 0; i < t->nregions; i++) {
		const xb_region *r = &t->regions[i];
		if (r->kind == XB_REGION_SRAM && addr >= r->base && addr - r->base <= r->size)
			return 1;
	}
	return 0;
}

/* The reset vector table (see loader.h): the flash default when the image covers it, else
 * the image's first address if a vector table is there. */
static int plan_vtor(const load_plan *pl, const xb_board *b, const char *name, uint32_t *vtor,
		     xb_err *err)
{
	const xb_target *t = board_target(b);
	uint32_t flash_vectors = (t->flash_base ? t->flash_base : t->aliases[0].base) + 0x100;
	uint32_t sp, reset, lo = UINT32_MAX;
	if (plan_word(pl, flash_vectors, &sp) && plan_word(pl, flash_vectors + 4, &reset)) {
		*vtor = flash_vectors;
		return 0;
	}
	for (size_t i = 0; i < pl->n; i++)
		if (pl->p[i].addr < lo)
			lo = pl->p[i].addr;
	int have = plan_word(pl, lo, &sp) && plan_word(pl, lo + 4, &reset);
	uint32_t canon = reset & ~1u, off;
	enum xb_alias_mode mode;
	if (have && target_decode_xip(t, canon, &off, &mode))
		canon = flash_vectors - 0x100 + off;
	if (have && !(sp & 3) && loader_in_sram(t, sp) && (reset & 1) && plan_covers(pl, canon)) {
		*vtor = lo;
		return 0;
	}
	return xb_fail(err,
		       "%s: no vector table: nothing is loaded at 0x%08x, and the image's first "
		       "words at 0x%08x are not an initial stack pointer in SRAM followed by a "
		       "Thumb reset address inside the image",
		       name, flash_vectors, lo);
}

/* Checks the vector table, then writes every piece and sets the reset VTOR. */
static int plan_load(load_plan *pl, xb_board *b, const char *name, enum xb_image_format fmt,
		     unsigned skipped, xb_load_info *info, xb_err *err)
{
	uint32_t vtor = 0;
	if (pl->n == 0)
		return xb_fail(err, "%s: nothing to load", name);
	if (plan_vtor(pl, b, name, &vtor, err))
		return -1;
	xb_load_info li = {.format = fmt, .lo = UINT32_MAX, .skipped = skipped, .reset_vtor = vtor};
	for (size_t i = 0; i < pl->n; i++) {
		const load_piece *p = &pl->p[i];
		if (board_load(b, p->addr, p->src, p->len, err))
			return -1; /* checked above: not expected */
		if (p->addr < li.lo)
			li.lo = p->addr;
		if (p->addr + p->len > li.hi)
			li.hi = p->addr + p->len;
		li.bytes += p->len;
	}
	li.pieces = (unsigned)pl->n;
	board_set_reset_vtor(b, vtor);
	if (info)
		*info = li;
	return 0;
}

/* ---- ELF ---- */

int loader_load_elf(xb_board *b, const uint8_t *data, size_t len, const char *name,
		    xb_load_info *info, xb_err *err)
{
	xb_segments segs = {0};
	load_plan pl = {0};
	int rc = segments_read_elf(&segs, data, len, name, err);
	for (size_t i = 0; rc == 0 && i < segs.n; i++) {
		const xb_segment *sg = &segs.s[i];
		char what[32];
		snprintf(what, sizeof what, "segment %zu", sg->index);
		rc = plan_add(&pl, b, sg->paddr, sg->bytes, sg->filesz, name, what, err);
	}
	if (rc == 0)
		rc = plan_load(&pl, b, name, XB_IMAGE_ELF, 0, info, err);
	segments_free(&segs);
	free(pl.p);
	return rc;
}

/* ---- UF2 ---- */

#define UF2_BLOCK 512u
#define UF2_MAGIC_START0 0x0A324655u
#define UF2_MAGIC_START1 0x9E5D5157u
#define UF2_MAGIC_END 0x0AB16F30u
#define UF2_FLAG_NOT_MAIN_FLASH 0x00000001u
#define UF2_FLAG_FILE_CONTAINER 0x00001000u
#define UF2_FLAG_FAMILY_ID 0x00002000u
#define UF2_PAYLOAD_MAX 476u
#define UF2_FAMILY_RP2040 0xE48BFF56u

static uint32_t uf2_word(const uint8_t *blk, unsigned off)
{
	return (uint32_t)blk[off] | (uint32_t)blk[off + 1] << 8 | (uint32_t)blk[off + 2] << 16 |
	       (uint32_t)blk[off + 3] << 24;
}

int loader_load_uf2(xb_board *b, const uint8_t *data, size_t len, const char *name,
		    xb_load_info *info, xb_err *err)
{
	if (len == 0)
		return xb_fail(err, "%s: empty file", name);
	if (len % UF2_BLOCK)
		return xb_fail(err, "%s: %zu bytes is not a whole number of %u-byte UF2 blocks: "
				    "truncated?",
			       name, len, UF2_BLOCK);
	load_plan pl = {0};
	size_t nblocks = len / UF2_BLOCK;
	uint32_t total = 0;
	uint8_t *seen = NULL;
	unsigned skipped = 0;
	int rc = 0;
	for (size_t i = 0; i < nblocks && rc == 0; i++) {
		const uint8_t *blk = data + i * UF2_BLOCK;
		if (uf2_word(blk, 0) != UF2_MAGIC_START0 || uf2_word(blk, 4) != UF2_MAGIC_START1 ||
		    uf2_word(blk, UF2_BLOCK - 4) != UF2_MAGIC_END) {
			rc = xb_fail(err, "%s: block %zu (byte %zu): bad magic: not a UF2 block",
				     name, i, i * UF2_BLOCK);
			break;
		}
		uint32_t flags = uf2_word(blk, 8), addr = uf2_word(blk, 12);
		uint32_t size = uf2_word(blk, 16), no = uf2_word(blk, 20);
		uint32_t count = uf2_word(blk, 24), family = uf2_word(blk, 28);
		if ((flags & (UF2_FLAG_NOT_MAIN_FLASH | UF2_FLAG_FILE_CONTAINER)) ||
		    ((flags & UF2_FLAG_FAMILY_ID) && family != UF2_FAMILY_RP2040)) {
			skipped++;
			continue;
		}
		if (size > UF2_PAYLOAD_MAX) {
			rc = xb_fail(err,
				     "%s: block %zu (byte %zu): payload of %u bytes, more than %u",
				     name, i, i * UF2_BLOCK, size, UF2_PAYLOAD_MAX);
			break;
		}
		if (count == 0 || no >= count || (total && count != total)) {
			rc = xb_fail(err,
				     "%s: block %zu (byte %zu): block number %u of %u does not fit "
				     "the file's %u blocks",
				     name, i, i * UF2_BLOCK, no, count, total ? total : count);
			break;
		}
		if (!total) {
			if (count > nblocks) {
				rc = xb_fail(err,
					     "%s: the blocks say the file has %u blocks, it "
					     "holds %zu: truncated?",
					     name, count, nblocks);
				break;
			}
			total = count;
			seen = xcalloc(total, 1);
		}
		seen[no] = 1;
		char what[48];
		snprintf(what, sizeof what, "block %zu", i);
		rc = plan_add(&pl, b, addr, blk + 32, size, name, what, err);
	}
	if (rc == 0 && !total)
		rc = xb_fail(err, "%s: no UF2 block for the RP2040 (family 0x%08x) in %zu blocks",
			     name, UF2_FAMILY_RP2040, nblocks);
	for (uint32_t k = 0; rc == 0 && k < total; k++)
		if (!seen[k])
			rc = xb_fail(err, "%s: block number %u of %u is missing", name, k, total);
	if (rc == 0)
		rc = plan_load(&pl, b, name, XB_IMAGE_UF2, skipped, info, err);
	free(seen);
	free(pl.p);
	return rc;
}

/* ---- Raw binary ---- */

int loader_load_bin(xb_board *b, const uint8_t *data, size_t len, uint32_t addr,
		    const char *name, xb_load_info *info, xb_err *err)
{
	if (len == 0)
		return xb_fail(err, "%s: empty file", name);
	load_plan pl = {0};
	int rc = plan_add(&pl, b, addr, data, len, name, "the image", err);
	if (rc == 0)
		rc = plan_load(&pl, b, name, XB_IMAGE_BIN, 0, info, err);
	free(pl.p);
	return rc;
}

/* ---- Files ---- */

enum xb_image_format loader_detect(const uint8_t *data, size_t len)
{
	if (len >= SELFMAG && memcmp(data, ELFMAG, SELFMAG) == 0)
		return XB_IMAGE_ELF;
	if (len >= 8 && uf2_word(data, 0) == UF2_MAGIC_START0 &&
	    uf2_word(data, 4) == UF2_MAGIC_START1)
		return XB_IMAGE_UF2;
	return XB_IMAGE_AUTO;
}

int loader_load_file(xb_board *b, const char *path, enum xb_image_format fmt, uint32_t bin_addr,
		     xb_load_info *info, xb_err *err)
{
	char *buf;
	size_t len;
	if (xb_read_file(path, &buf, &len, err))
		return -1;
	const uint8_t *data = (const uint8_t *)buf;
	if (fmt == XB_IMAGE_AUTO)
		fmt = loader_detect(data, len);
	int rc;
	switch (fmt) {
	case XB_IMAGE_ELF:
		rc = loader_load_elf(b, data, len, path, info, err);
		break;
	case XB_IMAGE_UF2:
		rc = loader_load_uf2(b, data, len, path, info, err);
		break;
	case XB_IMAGE_BIN:
		rc = loader_load_bin(b, data, len, bin_addr, path, info, err);
		break;
	default:
		rc = xb_fail(err, "%s: neither an ELF nor a UF2 file (a raw binary needs its load "
				  "address)",
			     path);
		break;
	}
	free(buf);
	return rc;
}

const char *loader_boot_name(enum xb_boot_mode m)
{
	switch (m) {
	case XB_BOOT_AUTO: return "auto";
	case XB_BOOT_DIRECT: return "direct";
	case XB_BOOT_BOOT2: return "boot2";
	}
	return "?";
}
