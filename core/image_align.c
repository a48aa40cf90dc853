/* image_align: input-section alignments, read from the objects or inferred from placement. */
#include "image.h"
#include "layout_calls.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One section of an object: what the map's input lines are matched against. */
typedef struct obj_section {
	char *name;
	uint64_t size;
	uint32_t align;
} obj_section;

/* One object: a plain file, or a member of an archive. */
typedef struct obj_member {
	char *name;          /* archive member name, NULL for a plain object */
	obj_section *secs;
	size_t nsecs, cap;
} obj_member;

/* One file the map names, opened once. */
typedef struct obj_file {
	char *key;           /* the path as the map writes it */
	bool missing;        /* not found: alignments are inferred */
	obj_member *members;
	size_t nmembers, cap;
} obj_file;

typedef struct obj_cache {
	obj_file *files;
	size_t nfiles, cap;
} obj_cache;

static void free_cache(obj_cache *c)
{
	for (size_t i = 0; i < c->nfiles; i++) {
		obj_file *f = &c->files[i];
		for (size_t k = 0; k < f->nmembers; k++) {
			for (size_t s = 0; s < f->members[k].nsecs; s++)
				free(f->members[k].secs[s].name);
			free(f->members[k].secs);
			free(f->members[k].name);
		}
		free(f->members);
		free(f->key);
	}
	free(c->files);
}

/* Reads the section names, sizes and alignments of one ELF object. */
static void read_object(Elf *e, obj_member *m)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		if (!name || !*name)
			continue;
		xb_grow(&m->secs, &m->cap, m->nsecs + 1, sizeof *m->secs);
		m->secs[m->nsecs++] = (obj_section){
			.name = xstrdup(name),
			.size = sh.sh_size,
			.align = sh.sh_addralign > 1 && sh.sh_addralign <= UINT32_MAX
					 ? (uint32_t)sh.sh_addralign
					 : 1,
		};
	}
}

static obj_member *add_member(obj_file *f, const char *name)
{
	xb_grow(&f->members, &f->cap, f->nmembers + 1, sizeof *f->members);
	obj_member *m = &f->members[f->nmembers++];
	memset(m, 0, sizeof *m);
	m->name = name ? xstrdup(name) : NULL;
	return m;
}

/* Opens path (an object or an archive) and records its sections. Returns 0, 1 if the
 * file does not exist, -1 with err set if it exists but cannot be read or parsed. */
static int read_file(obj_file *f, const char *path, const char *map_path, int line,
		     xb_err *err)
{
	char *buf;
	size_t len;
	xb_err e2;
	if (access(path, F_OK) != 0)
		return 1;
	if (xb_read_file(path, &buf, &len, &e2) != 0)
		return xb_fail(err, "%s (named by %s:%d): %s", path, map_path, line, e2.msg);
	/* a thin archive only names its members' files: treat it as absent and infer */
	if (len >= 8 && memcmp(buf, "!<thin>\n", 8) == 0) {
		free(buf);
		return 1;
	}
	Elf *e = elf_memory(buf, len);
	Elf_Kind kind = e ? elf_kind(e) : ELF_K_NONE;
	if (kind == ELF_K_ELF) {
		read_object(e, add_member(f, NULL));
	} else if (kind == ELF_K_AR) {
		Elf_Cmd cmd = ELF_C_READ_MMAP;
		Elf *sub;
		while ((sub = elf_begin(-1, cmd, e)) != NULL) {
			Elf_Arhdr *ah = elf_getarhdr(sub);
			if (ah && ah->ar_name && ah->ar_name[0] != '/' && elf_kind(sub) == ELF_K_ELF)
				read_object(sub, add_member(f, ah->ar_name));
			cmd = elf_next(sub);
			elf_end(sub);
		}
	}
	if (e)
		elf_end(e);
	free(buf);
	if (kind != ELF_K_ELF && kind != ELF_K_AR)
		return xb_fail(err, "%s (named by %s:%d): not an ELF object or archive", path,
			       map_path, line);
	return 0;
}

static char *map_folder(const char *map_path)
{
	const char *slash = strrchr(map_path, '/');
	return slash ? xstrndup(map_path, (size_t)(slash - map_path)) : xstrdup(".");
}

static obj_file *open_cached(obj_cache *c, const char *key, const xb_map *m, int line,
			     xb_err *err)
{
	for (size_t i = 0; i < c->nfiles; i++)
		if (strcmp(c->files[i].key, key) == 0)
			return &c->files[i];
	xb_grow(&c->files, &c->cap, c->nfiles + 1, sizeof *c->files);
	obj_file *f = &c->files[c->nfiles++];
	memset(f, 0, sizeof *f);
	f->key = xstrdup(key);
	int r = read_file(f, key, m->path, line, err);
	if (r == 1 && key[0] != '/') {
		/* relative to the map's folder (pico-sdk), then to its parent (Zephyr writes
		 * paths relative to the build folder, one above zephyr/zephyr.map) */
		char *dir = map_folder(m->path);
		const char *fmt[] = {"%s/%s", "%s/../%s"};
		for (size_t k = 0; r == 1 && k < 2; k++) {
			char *alt = xasprintf(fmt[k], dir, key);
			r = read_file(f, alt, m->path, line, err);
			free(alt);
		}
		free(dir);
	}
	if (r < 0)
		return NULL;
	f->missing = r == 1;
	return f;
}

/* The alignment of the section for one map input, or 0 when the object does not have it. */
static uint32_t lookup_align(const obj_file *f, const xb_map_input *in)
{
	for (size_t k = 0; k < f->nmembers; k++) {
		const obj_member *mb = &f->members[k];
		if (in->archive && (!mb->name || strcmp(mb->name, in->member) != 0))
			continue;
		/* with several sections of one name, the one of the same size is ours */
		const obj_section *first = NULL;
		for (size_t s = 0; s < mb->nsecs; s++) {
			if (strcmp(mb->secs[s].name, in->section) != 0)
				continue;
			if (mb->secs[s].size == in->size)
				return mb->secs[s].align;
			if (!first)
				first = &mb->secs[s];
		}
		if (first)
			return first->align;
	}
	return 0;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* The smallest power of two >= base that moves prev_end to addr; without one, the
 * largest power of two dividing addr, at most base. */
static uint32_t infer_align(uint64_t prev_end, uint64_t addr, uint32_t base)
{
	if (addr >= prev_end)
		for (uint64_t a = base; a <= 4096; a <<= 1)
			if (align_up(prev_end, a) == addr)
				return (uint32_t)a;
	uint32_t a = base;
	while (a > 1 && (addr & (a - 1)))
		a >>= 1;
	return a;
}

/* Whether [addr, addr + size) holds a literal pool: data that starts on a 4-byte boundary
 * after the section's start. The assembler aligns such a pool with `.align 2`, which makes
 * the whole section 4-byte aligned. */
static bool holds_literal_pool(const uint32_t *marks, size_t n, uint64_t addr, uint64_t size)
{
	size_t lo = sorted_lower_bound(marks, n, sizeof *marks, (uint32_t)addr + 1);
	for (; lo < n && marks[lo] < addr + size; lo++)
		if (!(marks[lo] & 3))
			return true;
	return false;
}

int image_resolve_alignments(xb_image *img, const xb_target *tg, xb_err *err)
{
	if (!img->has_map)
		return xb_fail(err, "%s: alignments need the map file", img->path);
	const xb_map *m = &img->map;
	uint32_t base = tg && tg->code_align ? tg->code_align : 2;
	while (base & (base - 1)) /* not a power of two: use the one below */
		base &= base - 1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return xb_fail(err, "libelf: %s", elf_errmsg(-1));
	uint32_t *align = xcalloc(m->ninputs + 1, sizeof *align);
	bool *known = xcalloc(m->ninputs + 1, sizeof *known);
	obj_cache cache = {0};
	/* the image's data marks, for sections whose object is gone (LTO partitions) */
	xb_code code;
	xb_err ignored;
	if (!img->path || calls_load_elf(&code, img->path, &ignored) != 0)
		calls_init(&code);
	int prev_out = -1;
	uint64_t prev_end = 0;
	for (size_t i = 0; i < m->ninputs; i++) {
		const xb_map_input *in = &m->inputs[i];
		if (in->out_section != prev_out) {
			prev_out = in->out_section;
			prev_end = in->out_section >= 0 && (size_t)in->out_section < m->noutputs
					   ? m->outputs[in->out_section].addr
					   : in->addr;
		}
		const char *key = in->archive ? in->archive : in->member;
		uint32_t a = 0;
		if (key && *key) {
			obj_file *f = open_cached(&cache, key, m, in->line, err);
			if (!f) {
				free_cache(&cache);
				calls_free(&code);
				free(align);
				free(known);
				return -1;
			}
			if (!f->missing)
				a = lookup_align(f, in);
		}
		if (a) {
			align[i] = a;
			known[i] = true;
		} else {
			align[i] = infer_align(prev_end, in->addr, base);
			if (align[i] < 4 && !(in->addr & 3) &&
			    holds_literal_pool(code.data, code.ndata, in->addr, in->size))
				align[i] = 4;
		}
		prev_end = in->addr + in->size;
	}
	free_cache(&cache);
	calls_free(&code);
	free(img->input_align);
	free(img->input_align_known);
	img->input_align = align;
	img->input_align_known = known;
	return 0;
}
