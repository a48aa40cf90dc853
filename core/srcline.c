/* srcline: source file and line of a code address from the DWARF line tables (libdw). */
#include "srcline.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct srcline_row {
	uint32_t addr;
	uint32_t line;
	uint32_t file;  /* index into files */
	uint32_t end;   /* 1: the end of a sequence (covers nothing from addr on) */
	uint32_t order; /* position in the line tables, for a stable sort */
} srcline_row;

struct xb_srclines {
	srcline_row *rows;
	size_t n, cap;
	char **files;
	size_t nfiles, files_cap;
	/* open addressing over files, by name: slot holds index + 1, 0 empty */
	uint32_t *slots;
	size_t nslots;
};

static uint32_t srcline_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

static void srcline_rehash(xb_srclines *s, size_t nslots)
{
	free(s->slots);
	s->slots = xcalloc(nslots, sizeof *s->slots);
	s->nslots = nslots;
	for (size_t i = 0; i < s->nfiles; i++) {
		size_t k = srcline_hash(s->files[i]) & (nslots - 1);
		while (s->slots[k])
			k = (k + 1) & (nslots - 1);
		s->slots[k] = (uint32_t)i + 1;
	}
}

static uint32_t srcline_intern(xb_srclines *s, const char *name)
{
	if (2 * (s->nfiles + 1) > s->nslots)
		srcline_rehash(s, s->nslots ? 2 * s->nslots : 64);
	size_t k = srcline_hash(name) & (s->nslots - 1);
	while (s->slots[k]) {
		uint32_t i = s->slots[k] - 1;
		if (strcmp(s->files[i], name) == 0)
			return i;
		k = (k + 1) & (s->nslots - 1);
	}
	xb_grow(&s->files, &s->files_cap, s->nfiles + 1, sizeof *s->files);
	s->files[s->nfiles] = xstrdup(name);
	s->slots[k] = (uint32_t)s->nfiles + 1;
	return (uint32_t)s->nfiles++;
}

void srclines_free(xb_srclines *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++)
		free(s->files[i]);
	free(s->files);
	free(s->slots);
	free(s->rows);
	free(s);
}

/* Where sequences meet, the end of one comes before the start of the next; rows at one
 * address otherwise keep their order, and the last of them is the one that counts (as in
 * GNU addr2line). */
static int srcline_row_cmp(const void *a, const void *b)
{
	const srcline_row *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end != y->end)
		return x->end ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* The ELF has DWARF when it has a .debug_info section (compressed or not): returns 1 and
 * its size in *size, 0 without one. */
static int srcline_has_debug_info(Elf *e, const char *name, uint64_t *size, xb_err *err)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(e, &shstrndx) != 0)
		return xb_fail(err, "%s: corrupt ELF section headers (%s)", name, elf_errmsg(-1));
	for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh))
			return xb_fail(err, "%s: corrupt ELF section header (%s)", name,
				       elf_errmsg(-1));
		const char *sn = elf_strptr(e, shstrndx, sh.sh_name);
		if (sn && (strcmp(sn, ".debug_info") == 0 || strcmp(sn, ".zdebug_info") == 0)) {
			*size = sh.sh_type == SHT_NOBITS ? 0 : sh.sh_size;
			return 1;
		}
	}
	return 0;
}

static int srcline_dwarf_fail(xb_err *err, const char *name, const char *what)
{
	return xb_fail(err, "%s: corrupt DWARF %s (%s)", name, what, dwarf_errmsg(-1));
}

/* A file name as a reader can open it: names relative to the compilation folder get it
 * in front, as GNU addr2line shows them. */
static uint32_t srcline_file(xb_srclines *s, const char *src, const char *comp_dir)
{
	if (src[0] == '/' || !comp_dir || !comp_dir[0])
		return srcline_intern(s, src);
	char *full = xasprintf("%s/%s", comp_dir, src);
	uint32_t i = srcline_intern(s, full);
	free(full);
	return i;
}

/* Appends the rows of one CU's line table. */
static int srcline_read_cu(xb_srclines *s, Dwarf_Die *cudie, const char *name, xb_err *err)
{
	Dwarf_Lines *lines;
	size_t n;
	if (dwarf_getsrclines(cudie, &lines, &n) != 0)
		return srcline_dwarf_fail(err, name, "line table");
	Dwarf_Attribute at;
	const char *comp_dir = dwarf_formstring(dwarf_attr(cudie, DW_AT_comp_dir, &at));
	const char *last_src = NULL;
	uint32_t last_file = 0;
	for (size_t i = 0; i < n; i++) {
		Dwarf_Line *l = dwarf_onesrcline(lines, i);
		Dwarf_Addr addr;
		int lineno;
		bool end;
		if (!l || dwarf_lineaddr(l, &addr) != 0 || dwarf_lineno(l, &lineno) != 0 ||
		    dwarf_lineendsequence(l, &end) != 0)
			return srcline_dwarf_fail(err, name, "line table row");
		if (addr > UINT32_MAX)
			continue; /* not a 32-bit target's code */
		const char *src = dwarf_linesrc(l, NULL, NULL);
		if (!src)
			src = "??";
		if (src != last_src) {
			last_file = srcline_file(s, src, comp_dir);
			last_src = src;
		}
		xb_grow(&s->rows, &s->cap, s->n + 1, sizeof *s->rows);
		s->rows[s->n] = (srcline_row){
			.addr = (uint32_t)addr,
			.line = lineno > 0 ? (uint32_t)lineno : 0,
			.file = last_file,
			.end = end,
			.order = (uint32_t)s->n,
		};
		s->n++;
	}
	return 0;
}

/* Reads every compile unit's line table; *units gets the number of units read. */
static int srcline_read_units(xb_srclines *s, Dwarf *dw, const char *name, size_t *units,
			      xb_err *err)
{
	Dwarf_CU *cu = NULL, *next;
	Dwarf_Die cudie;
	uint8_t type;
	Dwarf_Word *seen = NULL;
	size_t nseen = 0, seen_cap = 0;
	int rc;
	*units = 0;
	while ((rc = dwarf_get_units(dw, cu, &next, NULL, &type, &cudie, NULL)) == 0) {
		cu = next;
		++*units;
		if (type != DW_UT_compile && type != DW_UT_partial)
			continue;
		Dwarf_Attribute at;
		Dwarf_Word off;
		if (!dwarf_attr(&cudie, DW_AT_stmt_list, &at))
			continue;
		if (dwarf_formudata(&at, &off) != 0) {
			free(seen);
			return srcline_dwarf_fail(err, name, "compile unit");
		}
		/* units that share a line table (partial units) add its rows once */
		size_t k = 0;
		while (k < nseen && seen[k] != off)
			k++;
		if (k < nseen)
			continue;
		xb_grow(&seen, &seen_cap, nseen + 1, sizeof *seen);
		seen[nseen++] = off;
		if (srcline_read_cu(s, &cudie, name, err) != 0) {
			free(seen);
			return -1;
		}
	}
	free(seen);
	if (rc < 0)
		return srcline_dwarf_fail(err, name, "compile unit header");
	return 0;
}

/* buf is ours: libelf may write into the memory it reads. */
static int srcline_load_owned(xb_srclines **out, char *buf, size_t len, const char *name,
			      xb_err *err)
{
	*out = NULL;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return xb_fail(err, "libelf: %s", elf_errmsg(-1));
	Elf *e = elf_memory(buf, len);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		return xb_fail(err, "%s: not an ELF file (%s)", name, elf_errmsg(-1));
	}
	uint64_t info_size = 0;
	int has = srcline_has_debug_info(e, name, &info_size, err);
	if (has <= 0) {
		elf_end(e);
		return has;
	}
	Dwarf *dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	if (!dw) {
		elf_end(e);
		return srcline_dwarf_fail(err, name, "sections");
	}
	xb_srclines *s = xcalloc(1, sizeof *s);
	size_t units;
	int rc = srcline_read_units(s, dw, name, &units, err);
	/* libdw ends the walk quietly at a unit header that runs past the section */
	if (rc == 0 && units == 0 && info_size > 0)
		rc = xb_fail(err, "%s: corrupt DWARF: no readable compile unit in %llu bytes of "
			     ".debug_info", name, (unsigned long long)info_size);
	dwarf_end(dw);
	elf_end(e);
	if (rc != 0 || s->n == 0) {
		srclines_free(s);
		return rc;
	}
	qsort(s->rows, s->n, sizeof *s->rows, srcline_row_cmp);
	free(s->slots);
	s->slots = NULL;
	s->nslots = 0;
	*out = s;
	return 0;
}

int srclines_load_mem(xb_srclines **out, const void *buf, size_t len, const char *name,
		      xb_err *err)
{
	char *copy = xmalloc(len + 1);
	if (len)
		memcpy(copy, buf, len);
	int rc = srcline_load_owned(out, copy, len, name ? name : "elf", err);
	free(copy);
	return rc;
}

int srclines_load(xb_srclines **out, const char *path, xb_err *err)
{
	char *buf;
	size_t len;
	*out = NULL;
	if (xb_read_file(path, &buf, &len, err) != 0)
		return -1;
	int rc = srcline_load_owned(out, buf, len, path, err);
	free(buf);
	return rc;
}

int srclines_find(const xb_srclines *s, uint32_t addr, const char **file, unsigned *line)
{
	if (!s)
		return -1;
	addr &= ~1u;
	size_t lo = 0, hi = s->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->rows[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0 || s->rows[lo - 1].end)
		return -1;
	const srcline_row *r = &s->rows[lo - 1];
	if (file)
		*file = s->files[r->file];
	if (line)
		*line = r->line;
	return 0;
}

size_t srclines_count(const xb_srclines *s)
{
	return s ? s->n : 0;
}
