/* synth: synthetic firmware images and samples built in memory. */
#include "synth.h"

#include <stdlib.h>
#include <string.h>

static uint64_t next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static void add_input(xb_map *m, const char *sec, const char *member, uint64_t addr,
		      uint64_t size, int out)
{
	xb_grow(&m->inputs, &m->inputs_cap, m->ninputs + 1, sizeof *m->inputs);
	m->inputs[m->ninputs++] = (xb_map_input){
		.section = xstrdup(sec),
		.archive = xstrdup("out/libsynth.a"),
		.member = xstrdup(member),
		.addr = addr,
		.size = size,
		.out_section = out,
	};
}

void synth_image(xb_image *img, size_t n, uint64_t seed)
{
	memset(img, 0, sizeof *img);
	uint64_t s = seed | 1;
	img->path = xstrdup("synthetic.elf");
	img->has_map = true;
	xb_map *m = &img->map;
	m->path = xstrdup("synthetic.map");
	m->outputs = xcalloc(3, sizeof *m->outputs);
	m->noutputs = m->outputs_cap = 3;
	img->funcs = xcalloc(n + 1, sizeof *img->funcs);
	img->nfuncs = n;
	uint32_t cur = 0x10000100;
	add_input(m, ".vectors", "start.o", cur, 0xC0, 0);
	cur += 0xC0;
	uint32_t *aligns = xmalloc((n + 2) * sizeof *aligns);
	aligns[0] = 4;
	for (size_t i = 0; i < n; i++) {
		uint32_t a = i % 16 == 15 ? 8 : 2;
		cur = (cur + a - 1) & ~(a - 1);
		uint32_t size = (uint32_t)(20 + next(&s) % 581) & ~1u;
		char sec[32], mem[32];
		snprintf(sec, sizeof sec, ".text.f%zu", i);
		snprintf(mem, sizeof mem, "f%zu.o", i);
		add_input(m, sec, mem, cur, size, 0);
		aligns[i + 1] = a;
		xb_function *f = &img->funcs[i];
		f->name = xasprintf("f%zu", i);
		f->base_name = xstrdup(f->name);
		f->suffix = xstrdup("");
		f->addr = cur;
		f->size = size;
		f->region = XB_REGION_FLASH;
		f->out_section = 0;
		f->input = (int)i + 1;
		f->alias_of = -1;
		f->library = 0;
		f->file = -1;
		f->same_name = 1;
		cur += size;
	}
	m->outputs[0] = (xb_map_output){.name = xstrdup(".text"), .addr = 0x10000100,
					 .size = cur - 0x10000100, .lma = 0x10000100};
	/* the empty no-allocate section (a script of docs/formats-snippets.md's shape): its
	 * load image at ALIGN(8) after the text, run at the same offset in the 0x11 alias */
	uint32_t na_load = (cur + 7) & ~7u, na_at = na_load + 0x01000000;
	m->outputs[1] = (xb_map_output){.name = xstrdup(".data"), .addr = 0x20000000,
					 .size = 0x100, .lma = na_load};
	m->outputs[2] = (xb_map_output){.name = xstrdup(".xipbench_noalloc"), .addr = na_at,
					 .size = 0, .lma = na_load};
	add_input(m, ".data", "data.o", 0x20000000, 0x100, 1);
	mapfile_count_sections(m);
	aligns[n + 1] = 4;
	img->input_align = aligns;
	img->input_align_known = xcalloc(m->ninputs, sizeof *img->input_align_known);
	img->sections = xcalloc(2, sizeof *img->sections);
	img->nsections = 2;
	img->sections[0] = (xb_section){.name = xstrdup(".text"), .addr = 0x10000100,
					.size = cur - 0x10000100, .align = 8, .flags = 6,
					.type = 1, .region = XB_REGION_FLASH};
	img->sections[1] = (xb_section){.name = xstrdup(".data"), .addr = 0x20000000, .size = 0x100,
					.align = 4, .flags = 3, .type = 1, .region = XB_REGION_SRAM};
	img->libraries = xcalloc(1, sizeof *img->libraries);
	img->nlibraries = 1;
	img->libraries[0] = (xb_library){.name = xstrdup("synth"), .group = xstrdup("synth")};
	img->markers = xcalloc(6, sizeof *img->markers);
	img->nmarkers = 6;
	img->markers[0] = (xb_marker){xstrdup("__xipbench_hot_start"), 0x100001C0};
	img->markers[1] = (xb_marker){xstrdup("__xipbench_hot_end"), 0x100001C0};
	img->markers[2] = (xb_marker){xstrdup("__xipbench_ramfunc_start"), 0x20000000};
	img->markers[3] = (xb_marker){xstrdup("__xipbench_ramfunc_end"), 0x20000000};
	img->markers[4] = (xb_marker){xstrdup("__xipbench_noalloc_start"), na_at};
	img->markers[5] = (xb_marker){xstrdup("__xipbench_noalloc_end"), na_at};
}

void synth_image_free(xb_image *img)
{
	for (size_t i = 0; i < img->nfuncs; i++) {
		free(img->funcs[i].name);
		free(img->funcs[i].base_name);
		free(img->funcs[i].suffix);
	}
	free(img->funcs);
	for (size_t i = 0; i < img->map.ninputs; i++) {
		free(img->map.inputs[i].section);
		free(img->map.inputs[i].archive);
		free(img->map.inputs[i].member);
	}
	free(img->map.inputs);
	for (size_t i = 0; i < img->map.noutputs; i++)
		free(img->map.outputs[i].name);
	free(img->map.outputs);
	free(img->map.path);
	for (size_t i = 0; i < img->nsections; i++)
		free(img->sections[i].name);
	free(img->sections);
	free(img->libraries[0].name);
	free(img->libraries[0].group);
	free(img->libraries);
	for (size_t i = 0; i < img->nmarkers; i++)
		free(img->markers[i].name);
	free(img->markers);
	free(img->input_align);
	free(img->input_align_known);
	free(img->path);
	memset(img, 0, sizeof *img);
}

void synth_samples(xb_samples *s, const xb_image *img, size_t nhot, size_t nsamples,
		   uint64_t seed)
{
	uint64_t r = seed | 1;
	if (nhot > img->nfuncs)
		nhot = img->nfuncs;
	for (size_t k = 0; k < nsamples; k++) {
		/* index biased towards small numbers: the minimum of two uniform draws */
		size_t a = next(&r) % nhot, b = next(&r) % nhot;
		const xb_function *f = &img->funcs[a < b ? a : b];
		uint32_t pc = (f->addr + (uint32_t)(next(&r) % f->size)) & ~1u;
		samples_push(s, pc, 0);
	}
	for (size_t k = 0; k < nsamples / 10; k++)
		samples_push(s, img->funcs[0].addr + 4, XB_SAMPLE_IDLE);
}
