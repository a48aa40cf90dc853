/* fuzz_triage: the triage rules on arbitrary bytes taken as an ELF (its code scanned for
 * byte loops, its DWARF read for compiler options) and as a build configuration, with
 * samples on every function of the image: no crash, no leak, every finding complete. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/image.h"
#include "../../core/triage.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The RP2040's geometry and aliases (targets/rp2040.target), without the file. */
static void rp2040(xb_target *t)
{
	memset(t, 0, sizeof *t);
	strcpy(t->name, "rp2040");
	t->flash_size = 16u << 20;
	t->flash_base = 0x10000000u;
	for (int i = 0; i < 4; i++)
		t->aliases[i] = (xb_alias){0x10000000u + 0x01000000u * (uint32_t)i,
					   (enum xb_alias_mode)i};
	t->naliases = 4;
	t->regions[0] = (xb_region){"flash", 0x10000000u, 0x04000000u, XB_REGION_FLASH};
	t->regions[1] = (xb_region){"sram", 0x20000000u, 0x00042000u, XB_REGION_SRAM};
	t->nregions = 2;
	t->cache = (xb_cache_config){16384, 2, 8, 8, XB_POLICY_LRU, 0};
	t->reg_ctrl = 0x14000000u;
	t->code_align = 2;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_target tg;
	rp2040(&tg);
	xb_image img;
	xb_err err;
	if (image_load_elf_mem(&img, data, size, "fuzz.elf", &tg, &err) != 0)
		return 0;
	xb_samples s;
	samples_init(&s);
	for (size_t i = 0; i < img.nfuncs && i < 256; i++) /* busy, awake; idle; asleep */
		for (uint32_t k = 0; k < 3; k++)
			samples_push(&s, img.funcs[i].addr + 2 * k, k == 1 ? XB_SAMPLE_IDLE
								  : k == 2 ? XB_SAMPLE_SLEEP : 0);
	samples_push(&s, 0x13000100u, 0);
	char *cfg = xmalloc(size + 1); /* the input as configuration text too */
	memcpy(cfg, data, size);
	cfg[size] = 0;
	xb_triage_in in = {.img = &img, .tg = &tg, .samples = &s, .elf = data, .elf_len = size,
			   .have_xip_ctrl = 1, .xip_ctrl = size ? data[0] : 0, .config = cfg,
			   .config_name = "fuzz"};
	xb_triage t;
	if (triage_run(&in, &t, &err) == 0) {
		for (size_t i = 0; i < t.n; i++)
			if (!t.f[i].rule || !t.f[i].summary || !t.f[i].fix ||
			    (i && t.f[i - 1].severity < t.f[i].severity))
				abort(); /* incomplete, or not most severe first */
		for (size_t i = 0; i < t.nskipped; i++)
			if (!t.skipped[i].why || !t.skipped[i].why[0])
				abort();
		triage_free(&t);
	}
	free(cfg);
	samples_free(&s);
	image_free(&img);
	return 0;
}
