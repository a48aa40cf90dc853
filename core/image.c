/* image: loads the functions, sections and marker symbols of a 32-bit ARM ELF (libelf). */
#include "image.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "image_internal.h"

/* A function while loading: the symbol index keeps the sort deterministic. */
typedef struct loading_func {
	xb_function f;
	size_t symidx;
} loading_func;

static const char *machine_name(unsigned m)
{
	switch (m) {
	case EM_386:
		return "x86";
	case EM_X86_64:
		return "x86-64";
	case EM_AARCH64:
		return "AArch64";
	case EM_RISCV:
		return "RISC-V";
	case EM_XTENSA:
		return "Xtensa";
	case EM_MIPS:
		return "MIPS";
	case EM_PPC:
		return "PowerPC";
	case EM_AVR:
		return "AVR";
	default:
		return "another machine";
	}
}

/* Checks what libelf would otherwise report vaguely: class, byte order, machine, type,
 * and that the section header table lies inside the file. */
static int check_header(const unsigned char *buf, size_t len, const char *name, xb_err *err)
{
	if (len == 0)
		return xb_fail(err, "%s: empty file, not an ELF", name);
	if (len < 4 || memcmp(buf, ELFMAG, SELFMAG) != 0)
		return xb_fail(err, "%s: not an ELF file", name);
	if (len < EI_NIDENT)
		return xb_fail(err, "%s: truncated ELF (%zu bytes)", name, len);
	if (buf[EI_CLASS] == ELFCLASS64)
		return xb_fail(err, "%s: a 64-bit ELF; expected a 32-bit ARM firmware ELF", name);
	if (buf[EI_CLASS] != ELFCLASS32)
		return xb_fail(err, "%s: unknown ELF class %u", name, buf[EI_CLASS]);
	if (buf[EI_DATA] != ELFDATA2LSB)
		return xb_fail(err, "%s: a big-endian ELF; expected little-endian ARM", name);
	if (len < sizeof(Elf32_Ehdr))
		return xb_fail(err, "%s: truncated ELF (%zu bytes, shorter than the ELF header)",
			       name, len);
	Elf32_Ehdr eh;
	memcpy(&eh, buf, sizeof eh);
	if (eh.e_machine != EM_ARM)
		return xb_fail(err, "%s: ELF for %s (machine %u); expected ARM", name,
			       machine_name(eh.e_machine), eh.e_machine);
	if (eh.e_type == ET_REL)
		return xb_fail(err, "%s: a relocatable object, not a linked image", name);
	if (eh.e_type != ET_EXEC && eh.e_type != ET_DYN)
		return xb_fail(err, "%s: ELF type %u is not an executable image", name, eh.e_type);
	if (eh.e_shnum && eh.e_shentsize != sizeof(Elf32_Shdr))
		return xb_fail(err, "%s: corrupt ELF (section header size %u)", name,
			       eh.e_shentsize);
	/* e_shnum 0 with a table present: more than 65279 sections, counted in section 0 */
	uint64_t shnum = eh.e_shnum ? eh.e_shnum : 1;
	uint64_t sh_end = (uint64_t)eh.e_shoff + shnum * sizeof(Elf32_Shdr);
	if (eh.e_shoff == 0)
		return xb_fail(err, "%s: no section headers; xipbench needs the symbol table",
			       name);
	if (sh_end > len)
		return xb_fail(err, "%s: truncated ELF (section headers end at byte %llu, the file "
				    "has %zu)", name, (unsigned long long)sh_end, len);
	return 0;
}

static int add_file_name(xb_image *img, size_t *cap, const char *name)
{
	for (size_t i = img->nfiles; i-- > 0;)
		if (strcmp(img->files[i], name) == 0)
			return (int)i;
	xb_grow(&img->files, cap, img->nfiles + 1, sizeof *img->files);
	img->files[img->nfiles] = xstrdup(name);
	return (int)img->nfiles++;
}

static void add_marker(xb_image *img, size_t *cap, const char *name, uint32_t addr)
{
	xb_grow(&img->markers, cap, img->nmarkers + 1, sizeof *img->markers);
	img->markers[img->nmarkers++] = (xb_marker){.name = xstrdup(name), .addr = addr};
}

static enum xb_region_kind region_of(const xb_target *tg, uint32_t addr)
{
	const xb_region *r = tg ? target_region_of(tg, addr) : NULL;
	return r ? r->kind : XB_REGION_OTHER;
}

static int read_sections(xb_image *img, Elf *e, const xb_target *tg, const char *name,
			 size_t len, xb_err *err)
{
	size_t shnum, shstrndx;
	if (elf_getshdrnum(e, &shnum) != 0 || elf_getshdrstrndx(e, &shstrndx) != 0)
		return xb_fail(err, "%s: corrupt ELF section table (%s)", name, elf_errmsg(-1));
	img->sections = xcalloc(shnum ? shnum : 1, sizeof *img->sections);
	/* image section i is ELF section i + 1 (section 0 is the null entry) */
	for (size_t i = 1; i < shnum; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh))
			return xb_fail(err, "%s: corrupt ELF section header %zu (%s)", name, i,
				       elf_errmsg(-1));
		if (sh.sh_type != SHT_NOBITS && sh.sh_offset + sh.sh_size > len)
			return xb_fail(err, "%s: truncated ELF (section %zu ends at byte %llu, the "
					    "file has %zu)", name, i,
				       (unsigned long long)(sh.sh_offset + sh.sh_size), len);
		const char *sname = elf_strptr(e, shstrndx, sh.sh_name);
		xb_section *s = &img->sections[img->nsections++];
		s->name = xstrdup(sname ? sname : "");
		s->addr = (uint32_t)sh.sh_addr;
		s->size = (uint32_t)sh.sh_size;
		s->align = (uint32_t)sh.sh_addralign;
		s->flags = (uint32_t)sh.sh_flags;
		s->type = sh.sh_type;
		s->region = (sh.sh_flags & SHF_ALLOC) ? region_of(tg, s->addr) : XB_REGION_OTHER;
	}
	return 0;
}

static int cmp_loading(const void *a, const void *b)
{
	const loading_func *x = a, *y = b;
	if (x->f.addr != y->f.addr)
		return x->f.addr < y->f.addr ? -1 : 1;
	int c = strcmp(x->f.name, y->f.name);
	if (c)
		return c;
	return x->symidx < y->symidx ? -1 : x->symidx > y->symidx;
}

static int read_symbols(xb_image *img, Elf *e, const xb_target *tg, const char *name,
			xb_err *err)
{
	Elf_Scn *scn = NULL, *symscn = NULL;
	GElf_Shdr sh, symsh;
	while ((scn = elf_nextscn(e, scn)) != NULL) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_SYMTAB) {
			symscn = scn;
			symsh = sh;
			break;
		}
	}
	if (!symscn)
		return xb_fail(err, "%s: no symbol table (stripped?); xipbench needs the ELF as "
				    "linked, before strip", name);
	if (symsh.sh_entsize != sizeof(Elf32_Sym))
		return xb_fail(err, "%s: corrupt symbol table (entry size %llu)", name,
			       (unsigned long long)symsh.sh_entsize);
	Elf_Data *data = elf_getdata(symscn, NULL);
	if (!data && symsh.sh_size)
		return xb_fail(err, "%s: cannot read the symbol table (%s)", name, elf_errmsg(-1));
	size_t nsyms = data ? data->d_size / sizeof(Elf32_Sym) : 0;
	loading_func *lf = NULL;
	size_t nlf = 0, lfcap = 0, files_cap = 0, markers_cap = 0;
	int cur_file = -1;
	for (size_t i = 1; i < nsyms; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		const char *sname = elf_strptr(e, symsh.sh_link, sym.st_name);
		if (!sname)
			continue;
		int type = GELF_ST_TYPE(sym.st_info);
		if (type == STT_FILE) {
			/* LTO partitions have a nameless file symbol: no attribution */
			cur_file = *sname ? add_file_name(img, &files_cap, sname) : -1;
			continue;
		}
		if (strncmp(sname, "__xipbench_", 11) == 0) {
			uint32_t a = (uint32_t)sym.st_value;
			add_marker(img, &markers_cap, sname, type == STT_FUNC ? a & ~1u : a);
			continue;
		}
		/* ARM mapping symbols ($t, $d, $a) mark code and data inside functions. An
		 * absolute FUNC symbol is a number, not code: picolibc leaves
		 * "vfscanf = __d_vfscanf" as one (value 1) once scanf is collected. */
		if (type != STT_FUNC || sym.st_shndx == SHN_UNDEF || !*sname || sname[0] == '$')
			continue;
		if (sym.st_shndx == SHN_ABS || sym.st_shndx == SHN_COMMON ||
		    (sym.st_shndx >= SHN_LORESERVE && sym.st_shndx != SHN_XINDEX))
			continue;
		xb_grow(&lf, &lfcap, nlf + 1, sizeof *lf);
		loading_func *l = &lf[nlf++];
		memset(l, 0, sizeof *l);
		l->symidx = i;
		xb_function *f = &l->f;
		size_t at;
		f->name = xstrdup(sname);
		f->base_name = image_base_name(sname, &at);
		f->suffix = xstrdup(sname + at);
		f->addr = (uint32_t)sym.st_value & ~1u;
		f->size = (uint32_t)sym.st_size;
		f->is_local = GELF_ST_BIND(sym.st_info) == STB_LOCAL;
		f->region = region_of(tg, f->addr);
		f->out_section = (sym.st_shndx < SHN_LORESERVE && sym.st_shndx >= 1 &&
				  sym.st_shndx <= img->nsections)
					 ? (int)sym.st_shndx - 1
					 : -1;
		f->input = -1;
		f->alias_of = -1;
		f->is_veneer = image_veneer_name(sname, NULL);
		f->file = f->is_local ? cur_file : -1;
	}
	if (nlf)
		qsort(lf, nlf, sizeof *lf, cmp_loading);
	img->funcs = xcalloc(nlf ? nlf : 1, sizeof *img->funcs);
	for (size_t i = 0; i < nlf; i++)
		img->funcs[i] = lf[i].f;
	img->nfuncs = nlf;
	free(lf);
	return 0;
}

static int cmp_name_index(const void *a, const void *b, void *ctx)
{
	const xb_function *f = ctx;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	int c = strcmp(f[x].name, f[y].name);
	return c ? c : (x < y ? -1 : x > y);
}

static void count_same_names(xb_image *img)
{
	size_t n = img->nfuncs;
	if (!n)
		return;
	size_t *idx = xmalloc(n * sizeof *idx);
	for (size_t i = 0; i < n; i++)
		idx[i] = i;
	qsort_r(idx, n, sizeof *idx, cmp_name_index, img->funcs);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && strcmp(img->funcs[idx[j]].name, img->funcs[idx[i]].name) == 0)
			j++;
		for (size_t k = i; k < j; k++)
			img->funcs[idx[k]].same_name = (int)(j - i);
		i = j;
	}
	free(idx);
}

static void find_aliases(xb_image *img)
{
	for (size_t i = 0; i < img->nfuncs;) {
		size_t j = i + 1;
		while (j < img->nfuncs && img->funcs[j].addr == img->funcs[i].addr)
			j++;
		/* within one address, functions of equal size share code */
		for (size_t k = i + 1; k < j; k++) {
			for (size_t q = i; q < k; q++) {
				if (img->funcs[q].size == img->funcs[k].size &&
				    img->funcs[q].alias_of < 0) {
					img->funcs[k].alias_of = (int)q;
					break;
				}
			}
		}
		i = j;
	}
}

/* libelf may write into the memory it reads (elf_memory maps it "private"): buf must be
 * ours to change. */
static int load_owned(xb_image *img, char *buf, size_t len, const char *name,
		      const xb_target *tg, xb_err *err)
{
	memset(img, 0, sizeof *img);
	if (check_header((const unsigned char *)buf, len, name, err) != 0)
		return -1;
	if (elf_version(EV_CURRENT) == EV_NONE)
		return xb_fail(err, "libelf: %s", elf_errmsg(-1));
	Elf *e = elf_memory(buf, len);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		if (e)
			elf_end(e);
		return xb_fail(err, "%s: not an ELF file (%s)", name, elf_errmsg(-1));
	}
	GElf_Ehdr eh;
	if (!gelf_getehdr(e, &eh)) {
		elf_end(e);
		return xb_fail(err, "%s: corrupt ELF header (%s)", name, elf_errmsg(-1));
	}
	img->path = xstrdup(name);
	img->entry = (uint32_t)eh.e_entry & ~1u;
	if (read_sections(img, e, tg, name, len, err) != 0 ||
	    read_symbols(img, e, tg, name, err) != 0) {
		elf_end(e);
		image_free(img);
		return -1;
	}
	elf_end(e);
	count_same_names(img);
	find_aliases(img);
	image_libraries_from_files(img);
	return 0;
}

int image_load_elf_mem(xb_image *img, const void *buf, size_t len, const char *name,
		       const xb_target *tg, xb_err *err)
{
	char *copy = xmalloc(len + 1);
	if (len)
		memcpy(copy, buf, len);
	int r = load_owned(img, copy, len, name, tg, err);
	free(copy);
	return r;
}

int image_load_elf(xb_image *img, const char *path, const xb_target *tg, xb_err *err)
{
	char *buf;
	size_t len;
	memset(img, 0, sizeof *img);
	if (xb_read_file(path, &buf, &len, err) != 0)
		return -1;
	int r = load_owned(img, buf, len, path, tg, err);
	free(buf);
	return r;
}

void image_free(xb_image *img)
{
	for (size_t i = 0; i < img->nfuncs; i++) {
		free(img->funcs[i].name);
		free(img->funcs[i].base_name);
		free(img->funcs[i].suffix);
	}
	free(img->funcs);
	for (size_t i = 0; i < img->nsections; i++)
		free(img->sections[i].name);
	free(img->sections);
	image_free_libraries(img);
	for (size_t i = 0; i < img->nfiles; i++)
		free(img->files[i]);
	free(img->files);
	for (size_t i = 0; i < img->nmarkers; i++)
		free(img->markers[i].name);
	free(img->markers);
	if (img->has_map)
		mapfile_free(&img->map);
	free(img->input_align);
	free(img->input_align_known);
	free(img->path);
	memset(img, 0, sizeof *img);
}

const xb_function *image_function_at(const xb_image *img, uint32_t addr)
{
	size_t lo = 0, hi = img->nfuncs;
	while (lo < hi) { /* first function starting after addr */
		size_t mid = lo + (hi - lo) / 2;
		if (img->funcs[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* walk back over size-0 symbols and functions of the same start to the last real
	 * function that starts at or before addr */
	for (size_t i = lo; i-- > 0;) {
		const xb_function *f = &img->funcs[i];
		if (f->size && addr - f->addr < f->size)
			return f->alias_of >= 0 ? &img->funcs[f->alias_of] : f;
		if (f->size && (i == 0 || img->funcs[i - 1].addr != f->addr))
			break;
	}
	return NULL;
}

long image_find_function(const xb_image *img, const char *name)
{
	for (size_t i = 0; i < img->nfuncs; i++)
		if (strcmp(img->funcs[i].name, name) == 0)
			return (long)i;
	return -1;
}

int64_t image_marker(const xb_image *img, const char *name)
{
	for (size_t i = 0; i < img->nmarkers; i++)
		if (strcmp(img->markers[i].name, name) == 0)
			return img->markers[i].addr;
	return -1;
}

/* Suffixes GCC appends to clones and LTO-privatised statics; "N" is a number. */
static const struct {
	const char *word;
	bool numbered;    /* always followed by ".N" */
} clone_suffixes[] = {
	{"lto_priv", true}, {"isra", true},        {"part", true},  {"constprop", true},
	{"llvm", true},     {"cold", false},       {"localalias", false},
};

static bool all_digits(const char *s, size_t n)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

/* If name[0..end) ends with a recognised suffix, returns where it starts; else end. */
static size_t strip_one_suffix(const char *name, size_t end)
{
	/* the last dot-separated word, and the one before it */
	size_t d1 = end;
	while (d1 > 0 && name[d1 - 1] != '.')
		d1--;
	if (d1 == 0)
		return end;
	size_t dot1 = d1 - 1; /* the dot before the last word */
	const char *last = name + d1;
	size_t lastlen = end - d1;
	if (all_digits(last, lastlen)) {
		size_t d0 = dot1;
		while (d0 > 0 && name[d0 - 1] != '.')
			d0--;
		if (d0 == 0)
			return end;
		for (size_t i = 0; i < sizeof clone_suffixes / sizeof clone_suffixes[0]; i++) {
			const char *w = clone_suffixes[i].word;
			if (strlen(w) == dot1 - d0 && memcmp(name + d0, w, dot1 - d0) == 0)
				return d0 - 1;
		}
		return end;
	}
	for (size_t i = 0; i < sizeof clone_suffixes / sizeof clone_suffixes[0]; i++) {
		const char *w = clone_suffixes[i].word;
		if (!clone_suffixes[i].numbered && strlen(w) == lastlen &&
		    memcmp(last, w, lastlen) == 0)
			return dot1;
	}
	return end;
}

char *image_base_name(const char *name, size_t *suffix_at)
{
	size_t end = strlen(name);
	for (;;) {
		size_t s = strip_one_suffix(name, end);
		if (s == end || s == 0)
			break;
		end = s;
	}
	if (suffix_at)
		*suffix_at = end;
	return xstrndup(name, end);
}

bool image_veneer_name(const char *n, size_t *target_len)
{
	size_t len = strlen(n);
	if (len < 10 || strncmp(n, "__", 2) != 0 || strcmp(n + len - 7, "_veneer") != 0)
		return false;
	if (target_len)
		*target_len = len - 9;
	return true;
}
