/* test_image: ELF loading, clone names, aliases, map joins, groups, alignments, bad ELFs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../core/image.h"

static char tmpdir[64];

typedef struct tsec {
	const char *name;
	uint32_t type, flags, addr, size, align;
} tsec;

typedef struct tsym {
	const char *name;
	uint32_t value, size;
	int type, bind, shndx;
} tsym;

static char *tmp_path(const char *name)
{
	return xasprintf("%s/%s", tmpdir, name);
}

static void write_bytes(const char *path, const void *data, size_t len)
{
	xb_err err;
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = 0;
	assert_int_equal(xb_mkdirs(dir, &err), 0);
	free(dir);
	assert_int_equal(xb_write_file_atomic(path, data, len, &err), 0);
}

/* Writes an ELF file with the given sections and (if nsyms) a symbol table. Symbols must
 * list locals first. */
static void write_elf(const char *path, int cls, int machine, int etype, const tsec *secs,
		      size_t nsecs, const tsym *syms, size_t nsyms)
{
	assert_int_not_equal(elf_version(EV_CURRENT), EV_NONE);
	char *dir = xstrdup(path);
	*strrchr(dir, '/') = 0;
	xb_err err;
	assert_int_equal(xb_mkdirs(dir, &err), 0);
	free(dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	assert_true(fd >= 0);
	Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
	assert_non_null(e);
	assert_non_null(gelf_newehdr(e, cls));
	GElf_Ehdr eh;
	gelf_getehdr(e, &eh);
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_machine = (GElf_Half)machine;
	eh.e_type = (GElf_Half)etype;
	eh.e_version = EV_CURRENT;
	eh.e_entry = 0x10000101;

	xb_strbuf shstr = {0}, str = {0};
	sb_append(&shstr, "", 1);
	sb_append(&str, "", 1);
	void *bufs[16] = {0};
	int nbufs = 0;
	for (size_t i = 0; i < nsecs; i++) {
		Elf_Scn *scn = elf_newscn(e);
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		sh.sh_name = (GElf_Word)shstr.len;
		sb_append(&shstr, secs[i].name, strlen(secs[i].name) + 1);
		sh.sh_type = secs[i].type;
		sh.sh_flags = secs[i].flags;
		sh.sh_addr = secs[i].addr;
		sh.sh_addralign = secs[i].align;
		gelf_update_shdr(scn, &sh);
		Elf_Data *d = elf_newdata(scn);
		d->d_type = ELF_T_BYTE;
		d->d_size = secs[i].size;
		d->d_align = 1;
		if (secs[i].type != SHT_NOBITS)
			d->d_buf = bufs[nbufs++] = xcalloc(1, secs[i].size);
	}
	if (nsyms) {
		size_t first_global = nsyms + 1;
		for (size_t i = 0; i < nsyms; i++)
			if (syms[i].bind != STB_LOCAL && first_global > nsyms)
				first_global = i + 1;
		if (first_global > nsyms)
			first_global = nsyms + 1;
		size_t symsize = gelf_fsize(e, ELF_T_SYM, 1, EV_CURRENT);
		Elf_Scn *strscn = elf_newscn(e);
		Elf_Scn *symscn = elf_newscn(e);
		void *symbuf = bufs[nbufs++] = xcalloc(nsyms + 1, symsize);
		Elf_Data *sd = elf_newdata(symscn);
		sd->d_type = ELF_T_SYM;
		sd->d_buf = symbuf;
		sd->d_size = (nsyms + 1) * symsize;
		sd->d_align = 4;
		for (size_t i = 0; i < nsyms; i++) {
			GElf_Sym s = {0};
			s.st_name = (GElf_Word)str.len;
			sb_append(&str, syms[i].name, strlen(syms[i].name) + 1);
			s.st_value = syms[i].value;
			s.st_size = syms[i].size;
			s.st_info = GELF_ST_INFO(syms[i].bind, syms[i].type);
			s.st_shndx = (GElf_Section)syms[i].shndx;
			gelf_update_sym(sd, (int)i + 1, &s);
		}
		GElf_Shdr sh;
		gelf_getshdr(symscn, &sh);
		sh.sh_name = (GElf_Word)shstr.len;
		sb_append(&shstr, ".symtab", 8);
		sh.sh_type = SHT_SYMTAB;
		sh.sh_link = (GElf_Word)elf_ndxscn(strscn);
		sh.sh_info = (GElf_Word)first_global;
		sh.sh_entsize = symsize;
		sh.sh_addralign = 4;
		gelf_update_shdr(symscn, &sh);
		Elf_Data *td = elf_newdata(strscn);
		td->d_type = ELF_T_BYTE;
		td->d_buf = str.buf;
		td->d_size = str.len;
		td->d_align = 1;
		gelf_getshdr(strscn, &sh);
		sh.sh_name = (GElf_Word)shstr.len;
		sb_append(&shstr, ".strtab", 8);
		sh.sh_type = SHT_STRTAB;
		sh.sh_addralign = 1;
		gelf_update_shdr(strscn, &sh);
	}
	Elf_Scn *shscn = elf_newscn(e);
	GElf_Shdr sh;
	gelf_getshdr(shscn, &sh);
	sh.sh_name = (GElf_Word)shstr.len;
	sb_append(&shstr, ".shstrtab", 10);
	sh.sh_type = SHT_STRTAB;
	sh.sh_addralign = 1;
	gelf_update_shdr(shscn, &sh);
	Elf_Data *hd = elf_newdata(shscn);
	hd->d_type = ELF_T_BYTE;
	hd->d_buf = shstr.buf;
	hd->d_size = shstr.len;
	hd->d_align = 1;
	eh.e_shstrndx = (GElf_Half)elf_ndxscn(shscn);
	gelf_update_ehdr(e, &eh);
	if (elf_update(e, ELF_C_WRITE) < 0)
		fail_msg("elf_update: %s", elf_errmsg(-1));
	elf_end(e);
	close(fd);
	for (int i = 0; i < nbufs; i++)
		free(bufs[i]);
	sb_free(&shstr);
	sb_free(&str);
}

static const tsec fw_secs[] = {
	{".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0x10000100, 0x100, 16},
	{".data", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 0x20000000, 0x10, 4},
	{".comment", SHT_PROGBITS, 0, 0, 0x10, 1},
};

/* Two static "helper"s in different objects, clones, an alias pair, mapping symbols,
 * markers, a zero-size label and a RAM function. */
static const tsym fw_syms[] = {
	{"a.c", 0, 0, STT_FILE, STB_LOCAL, SHN_ABS},
	{"$t", 0x10000100, 0, STT_NOTYPE, STB_LOCAL, 1},
	{"helper", 0x10000101, 8, STT_FUNC, STB_LOCAL, 1},
	{"b.c", 0, 0, STT_FILE, STB_LOCAL, SHN_ABS},
	{"helper", 0x10000111, 8, STT_FUNC, STB_LOCAL, 1},
	{"ipv4_hdr_ok.isra.0", 0x10000121, 0x10, STT_FUNC, STB_LOCAL, 1},
	{"$d", 0x10000130, 0, STT_NOTYPE, STB_LOCAL, 1},
	{"route_lookup.part.0.constprop.0", 0x10000181, 0x10, STT_FUNC, STB_LOCAL, 1},
	{"net_chksum_impl", 0x10000141, 0x20, STT_FUNC, STB_GLOBAL, 1},
	{"net_calc_chksum", 0x10000141, 0x20, STT_FUNC, STB_GLOBAL, 1},
	{"main", 0x10000161, 0x20, STT_FUNC, STB_GLOBAL, 1},
	{"__aeabi_label", 0x10000161, 0, STT_FUNC, STB_GLOBAL, 1},
	{"tail", 0x100001a1, 0x60, STT_FUNC, STB_WEAK, 1},
	{"ram_func", 0x20000001, 8, STT_FUNC, STB_GLOBAL, 2},
	{"buffer", 0x20000008, 8, STT_OBJECT, STB_GLOBAL, 2},
	{"external", 0, 0, STT_FUNC, STB_GLOBAL, SHN_UNDEF},
	{"__xipbench_hot_start", 0x10000100, 0, STT_NOTYPE, STB_GLOBAL, 1},
	{"__xipbench_hot_end", 0x10000100, 0, STT_NOTYPE, STB_GLOBAL, 1},
};
#define NSYMS (sizeof fw_syms / sizeof fw_syms[0])

/* The map of that image. */
static const char fw_map[] =
	"Linker script and memory map\n"
	"\n"
	".text           0x10000100      0x100\n"
	" .text.helper   0x10000100       0x10 out/liba.a(a.o)\n"
	" .text.helper   0x10000110       0x10 out/libb.a(b.o)\n"
	" .text.ipv4_hdr_ok.isra.0\n"
	"                0x10000120       0x20 out/libb.a(b.o)\n"
	" .text.net_chksum_impl\n"
	"                0x10000140       0x20 out/libnet.a(chksum.o)\n"
	"                0x10000140                net_chksum_impl\n"
	" .text.main     0x10000160       0x20 obj/app/main.o\n"
	" .text.route_lookup.part.0.constprop.0\n"
	"                0x10000180       0x10 out/libb.a(b.o)\n"
	" *fill*         0x10000190       0x10 \n"
	" .text.tail     0x100001a0       0x60 obj/app/tail.o\n"
	"\n"
	".data           0x20000000       0x10 load address 0x10000200\n"
	" .ramfunc       0x20000000       0x10 obj/app/main.o\n";

static xb_target tg;

static int setup(void **state)
{
	(void)state;
	strcpy(tmpdir, "/tmp/xb-test-image.XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	static const char target_text[] =
		"name = tiny\ncpu_hz = 1000\nflash_size = 64K\ncode_align = 4\n"
		"[region flash]\nkind = flash\nbase = 0x10000000\nsize = 64K\n"
		"[region sram]\nkind = sram\nbase = 0x20000000\nsize = 64K\n"
		"[alias]\nbase = 0x10000000\nmode = cached-alloc\n"
		"[cache]\nsize = 1K\nways = 2\nline = 8\nhit_cycles = 1\nmiss_penalty = 10\n"
		"flush_cycles = 64\n";
	xb_err err;
	if (target_parse(&tg, target_text, strlen(target_text), "tiny.target", &err) != 0) {
		fprintf(stderr, "%s\n", err.msg);
		return -1;
	}
	char *p = tmp_path("fw.elf");
	write_elf(p, ELFCLASS32, EM_ARM, ET_EXEC, fw_secs, 3, fw_syms, NSYMS);
	free(p);
	p = tmp_path("fw.map");
	write_bytes(p, fw_map, strlen(fw_map));
	free(p);
	return 0;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

static int teardown(void **state)
{
	(void)state;
	return nftw(tmpdir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

static void load_fw(xb_image *img, bool with_map)
{
	xb_err err = {{0}};
	char *p = tmp_path("fw.elf");
	if (image_load_elf(img, p, &tg, &err) != 0)
		fail_msg("%s", err.msg);
	free(p);
	if (with_map) {
		p = tmp_path("fw.map");
		if (image_attach_map(img, p, &err) != 0)
			fail_msg("%s", err.msg);
		free(p);
	}
}

static const xb_function *func(const xb_image *img, const char *name, int nth)
{
	for (size_t i = 0; i < img->nfuncs; i++)
		if (strcmp(img->funcs[i].name, name) == 0 && nth-- == 0)
			return &img->funcs[i];
	fail_msg("no function %s", name);
	return NULL;
}

static void check_base(const char *name, const char *base, const char *suffix)
{
	size_t at = 0;
	char *b = image_base_name(name, &at);
	if (strcmp(b, base) != 0 || strcmp(name + at, suffix) != 0)
		fail_msg("%s: got base '%s' suffix '%s', want '%s' '%s'", name, b, name + at, base,
			 suffix);
	free(b);
}

static void test_base_names(void **state)
{
	(void)state;
	check_base("net_buf_alloc", "net_buf_alloc", "");
	check_base("foo.isra.0", "foo", ".isra.0");
	check_base("foo.part.12", "foo", ".part.12");
	check_base("foo.constprop.3", "foo", ".constprop.3");
	check_base("foo.lto_priv.0", "foo", ".lto_priv.0");
	check_base("foo.cold", "foo", ".cold");
	check_base("foo.localalias", "foo", ".localalias");
	check_base("foo.isra.0.lto_priv.3", "foo", ".isra.0.lto_priv.3");
	check_base("route_lookup.part.0.constprop.0", "route_lookup", ".part.0.constprop.0");
	check_base("foo.constprop.0.isra.0.cold", "foo", ".constprop.0.isra.0.cold");
	/* not clone suffixes */
	check_base("foo.isra", "foo.isra", "");
	check_base("foo.0", "foo.0", "");
	check_base("foo.bar.1", "foo.bar.1", "");
	check_base("last_count.0", "last_count.0", "");
	check_base(".isra.0", ".isra.0", "");
	check_base(".udivsi3_skip_div0_test", ".udivsi3_skip_div0_test", "");
	check_base("foo.isra.x", "foo.isra.x", "");
	check_base("", "", "");
	check_base(".", ".", "");
	check_base("a.cold", "a", ".cold");
}

static void test_load_functions(void **state)
{
	(void)state;
	xb_image img;
	load_fw(&img, false);
	/* FUNC symbols only: no $t/$d, no object, no undefined, no markers */
	assert_int_equal(img.nfuncs, 10);
	for (size_t i = 1; i < img.nfuncs; i++) {
		assert_true(img.funcs[i - 1].addr <= img.funcs[i].addr);
		if (img.funcs[i - 1].addr == img.funcs[i].addr)
			assert_true(strcmp(img.funcs[i - 1].name, img.funcs[i].name) <= 0);
	}
	assert_int_equal(img.entry, 0x10000100);
	const xb_function *h0 = func(&img, "helper", 0), *h1 = func(&img, "helper", 1);
	assert_int_equal(h0->addr, 0x10000100);
	assert_int_equal(h1->addr, 0x10000110);
	assert_int_equal(h0->same_name, 2);
	assert_int_equal(h1->same_name, 2);
	assert_true(h0->is_local);
	assert_string_equal(img.files[h0->file], "a.c");
	assert_string_equal(img.files[h1->file], "b.c");
	assert_int_equal(h0->region, XB_REGION_FLASH);
	assert_string_equal(img.sections[h0->out_section].name, ".text");

	const xb_function *isra = func(&img, "ipv4_hdr_ok.isra.0", 0);
	assert_string_equal(isra->base_name, "ipv4_hdr_ok");
	assert_string_equal(isra->suffix, ".isra.0");
	assert_int_equal(isra->same_name, 1);

	/* aliases: sorted by name, the first is the one the others point to */
	const xb_function *calc = func(&img, "net_calc_chksum", 0);
	const xb_function *impl = func(&img, "net_chksum_impl", 0);
	assert_int_equal(calc->alias_of, -1);
	assert_ptr_equal(&img.funcs[impl->alias_of], calc);
	assert_int_equal(func(&img, "main", 0)->alias_of, -1);
	assert_int_equal(func(&img, "__aeabi_label", 0)->alias_of, -1);
	assert_false(impl->is_local);
	assert_int_equal(impl->file, -1);

	const xb_function *ram = func(&img, "ram_func", 0);
	assert_int_equal(ram->addr, 0x20000000);
	assert_int_equal(ram->region, XB_REGION_SRAM);
	assert_string_equal(img.sections[ram->out_section].name, ".data");

	assert_int_equal(img.nmarkers, 2);
	assert_int_equal(image_marker(&img, "__xipbench_hot_start"), 0x10000100);
	assert_int_equal(image_marker(&img, "__xipbench_ramfunc_start"), -1);

	/* without a map: libraries from the source files of static functions */
	assert_string_equal(img.libraries[h0->library].name, "file:a.c");
	assert_string_equal(img.libraries[h1->library].name, "file:b.c");
	assert_string_equal(img.libraries[impl->library].name, "unknown");
	assert_string_equal(img.libraries[impl->library].group, "unknown");
	assert_false(img.has_map);
	assert_int_equal(h0->input, -1);
	image_free(&img);
}

static void test_lookups(void **state)
{
	(void)state;
	xb_image img;
	load_fw(&img, false);
	assert_string_equal(image_function_at(&img, 0x10000100)->name, "helper");
	assert_ptr_equal(image_function_at(&img, 0x10000107), func(&img, "helper", 0));
	assert_null(image_function_at(&img, 0x10000108)); /* between functions */
	assert_ptr_equal(image_function_at(&img, 0x10000110), func(&img, "helper", 1));
	/* an alias answers with the first of its group */
	assert_string_equal(image_function_at(&img, 0x1000015f)->name, "net_calc_chksum");
	/* a zero-size label at the start of main does not hide main */
	assert_string_equal(image_function_at(&img, 0x10000160)->name, "main");
	assert_string_equal(image_function_at(&img, 0x1000017f)->name, "main");
	assert_null(image_function_at(&img, 0x0fffffff));
	assert_null(image_function_at(&img, 0x30000000));
	assert_string_equal(image_function_at(&img, 0x20000007)->name, "ram_func");
	assert_int_equal(image_find_function(&img, "helper"), 0);
	assert_int_equal(image_find_function(&img, "nothing"), -1);
	image_free(&img);
}

static void test_map_join(void **state)
{
	(void)state;
	xb_image img;
	load_fw(&img, true);
	assert_true(img.has_map);
	const xb_function *h0 = func(&img, "helper", 0), *h1 = func(&img, "helper", 1);
	assert_string_equal(img.map.inputs[h0->input].archive, "out/liba.a");
	assert_string_equal(img.libraries[h0->library].name, "a");
	assert_string_equal(img.libraries[h1->library].name, "b");
	assert_string_equal(img.libraries[func(&img, "main", 0)->library].name, "app");
	assert_string_equal(img.libraries[func(&img, "net_chksum_impl", 0)->library].name, "net");
	assert_string_equal(img.map.inputs[func(&img, "ram_func", 0)->input].section, ".ramfunc");

	char *q0 = image_qualified_name(&img, h0), *q1 = image_qualified_name(&img, h1);
	assert_string_equal(q0, "liba.a:a.o(.text.helper)");
	assert_string_equal(q1, "libb.a:b.o(.text.helper)");
	free(q0);
	free(q1);
	char *q = image_qualified_name(&img, func(&img, "main", 0));
	assert_string_equal(q, "main");
	free(q);
	/* every library exists, "unknown" always */
	bool unknown = false;
	for (size_t i = 0; i < img.nlibraries; i++)
		unknown |= strcmp(img.libraries[i].name, "unknown") == 0;
	assert_true(unknown);
	image_free(&img);
}

static void test_qualified_without_map_and_clash(void **state)
{
	(void)state;
	xb_image img;
	load_fw(&img, false);
	char *q = image_qualified_name(&img, func(&img, "helper", 1));
	assert_string_equal(q, "b.c:helper");
	free(q);
	image_free(&img);

	/* two archives with the same base name: the full paths tell them apart */
	char *text = xstrdup(fw_map);
	char *at = strstr(text, "out/libb.a(b.o)");
	memcpy(at, "lib/liba.a(a.o)", 15);
	char *p = tmp_path("clash.map");
	write_bytes(p, text, strlen(text));
	free(text);
	load_fw(&img, false);
	xb_err err;
	assert_int_equal(image_attach_map(&img, p, &err), 0);
	free(p);
	char *q0 = image_qualified_name(&img, func(&img, "helper", 0));
	char *q1 = image_qualified_name(&img, func(&img, "helper", 1));
	assert_string_equal(q0, "out/liba.a:a.o(.text.helper)");
	assert_string_equal(q1, "lib/liba.a:a.o(.text.helper)");
	free(q0);
	free(q1);
	image_free(&img);
}

/* Checks that the map text is rejected, naming both files and what was wrong, with the
 * image left as it was. */
static void expect_text_rejected(const char *text, const char *needle)
{
	char *p = tmp_path("other.map");
	write_bytes(p, text, strlen(text));
	xb_image img;
	load_fw(&img, false);
	xb_err err = {{0}};
	assert_int_equal(image_attach_map(&img, p, &err), -1);
	if (!strstr(err.msg, needle) || !strstr(err.msg, "other.map") || !strstr(err.msg, "fw.elf"))
		fail_msg("message '%s' should name both files and say '%s'", err.msg, needle);
	assert_false(img.has_map);
	assert_int_equal(img.nfuncs, 10);
	assert_string_equal(img.libraries[func(&img, "helper", 0)->library].name, "file:a.c");
	free(p);
	image_free(&img);
}

/* The same for the test map with one substitution. */
static void expect_map_rejected(const char *from, const char *to, const char *needle)
{
	const char *at = strstr(fw_map, from);
	assert_non_null(at);
	xb_strbuf sb = {0};
	sb_append(&sb, fw_map, (size_t)(at - fw_map));
	sb_puts(&sb, to);
	sb_puts(&sb, at + strlen(from));
	expect_text_rejected(sb.buf, needle);
	sb_free(&sb);
}

static void test_map_rejected(void **state)
{
	(void)state;
	expect_map_rejected(".text           0x10000100      0x100",
			    ".text           0x10000100      0x120", "section .text");
	expect_map_rejected(".data           0x20000000       0x10",
			    ".data           0x20000004       0x10", "section .data");
	expect_text_rejected("Linker script and memory map\n\n.other 0x10000100 0x100\n"
			     " .text.a 0x10000100 0x100 a.o\n",
			     "no allocated section");
	expect_map_rejected(" .text.main     0x10000160       0x20",
			    " .text.main     0x10000160       0x10", "runs past the end");
	expect_map_rejected(" .text.tail     0x100001a0       0x60",
			    " .text.tail     0x100001b0       0x50", "tail");
	xb_image img;
	load_fw(&img, false);
	xb_err err = {{0}};
	char *p = tmp_path("missing.map");
	assert_int_equal(image_attach_map(&img, p, &err), -1);
	assert_non_null(strstr(err.msg, "missing.map"));
	free(p);
	image_free(&img);
}

static void test_groups(void **state)
{
	(void)state;
	xb_image img;
	load_fw(&img, true);
	static const char groups[] = "# test groups\n"
				     "\n"
				     "a or b* = letters\n"
				     "ne? = IP stack\n"
				     "net = never reached\n";
	char *p = tmp_path("test.groups");
	write_bytes(p, groups, strlen(groups));
	xb_err err = {{0}};
	if (image_load_groups(&img, p, &err) != 0)
		fail_msg("%s", err.msg);
	free(p);
	assert_string_equal(img.libraries[func(&img, "helper", 0)->library].group, "letters");
	assert_string_equal(img.libraries[func(&img, "helper", 1)->library].group, "letters");
	assert_string_equal(img.libraries[func(&img, "net_chksum_impl", 0)->library].group,
			    "IP stack");
	assert_string_equal(img.libraries[func(&img, "main", 0)->library].group, "app");

	static const char *const bad[] = {"a = \n", "= group\n", "just words\n", "or = x\n"};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		p = tmp_path("bad.groups");
		xb_strbuf sb = {0};
		sb_puts(&sb, "# fine\nkernel = kernel\n");
		sb_puts(&sb, bad[i]);
		write_bytes(p, sb.buf, sb.len);
		sb_free(&sb);
		assert_int_equal(image_load_groups(&img, p, &err), -1);
		if (!strstr(err.msg, "bad.groups:3:"))
			fail_msg("'%s' for '%s'", err.msg, bad[i]);
		free(p);
	}
	p = tmp_path("shipped");
	assert_int_equal(image_load_groups(&img, p, &err), -1);
	free(p);
	image_free(&img);
}

/* A minimal "ar" archive with one member. */
static void write_archive(const char *path, const char *member, const char *obj_path)
{
	char *data;
	size_t len;
	xb_err err;
	assert_int_equal(xb_read_file(obj_path, &data, &len, &err), 0);
	xb_strbuf sb = {0};
	sb_puts(&sb, "!<arch>\n");
	char hdr[61];
	char name[17];
	snprintf(name, sizeof name, "%s/", member);
	snprintf(hdr, sizeof hdr, "%-16s%-12s%-6s%-6s%-8s%-10zu`\n", name, "0", "0", "0", "644",
		 len);
	sb_append(&sb, hdr, 60);
	sb_append(&sb, data, len);
	if (len & 1)
		sb_append(&sb, "\n", 1);
	write_bytes(path, sb.buf, sb.len);
	sb_free(&sb);
	free(data);
}

static void test_alignments(void **state)
{
	(void)state;
	/* obj/app/main.o next to the map, and out/libnet.a(chksum.o); liba/libb missing */
	static const tsec main_secs[] = {
		{".text", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 0, 2},
		{".text.main", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 0x20, 8},
		{".ramfunc", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 0x10, 4},
	};
	static const tsec chk_secs[] = {
		{".text.net_chksum_impl", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 0x1c, 2},
		{".text.net_chksum_impl", SHT_PROGBITS, SHF_ALLOC | SHF_EXECINSTR, 0, 0x20, 16},
	};
	char *p = tmp_path("obj/app/main.o");
	write_elf(p, ELFCLASS32, EM_ARM, ET_REL, main_secs, 3, NULL, 0);
	free(p);
	p = tmp_path("chksum.o");
	write_elf(p, ELFCLASS32, EM_ARM, ET_REL, chk_secs, 2, NULL, 0);
	char *ar = tmp_path("out/libnet.a");
	write_archive(ar, "chksum.o", p);
	free(p);
	free(ar);

	xb_image img;
	load_fw(&img, true);
	xb_err err = {{0}};
	if (image_resolve_alignments(&img, &tg, &err) != 0)
		fail_msg("%s", err.msg);
	const xb_map *m = &img.map;
	assert_int_equal(m->ninputs, 8);
	/* read from the object (relative to the map's folder) and the archive member, the
	 * section of the right size among two of one name */
	int main_in = func(&img, "main", 0)->input;
	assert_int_equal(img.input_align[main_in], 8);
	assert_true(img.input_align_known[main_in]);
	int chk = func(&img, "net_chksum_impl", 0)->input;
	assert_int_equal(img.input_align[chk], 16);
	assert_true(img.input_align_known[chk]);
	assert_int_equal(img.input_align[func(&img, "ram_func", 0)->input], 4);
	/* inferred: code_align 4 where nothing moved the section, 32 after 0x10 of fill */
	int h0 = func(&img, "helper", 0)->input;
	assert_int_equal(img.input_align[h0], 4);
	assert_false(img.input_align_known[h0]);
	int tail = func(&img, "tail", 0)->input;
	assert_int_equal(img.input_align[tail], 32);
	assert_false(img.input_align_known[tail]);

	/* an object that exists but is not an ELF fails, naming it */
	p = tmp_path("obj/app/tail.o");
	write_bytes(p, "garbage", 7);
	assert_int_equal(image_resolve_alignments(&img, &tg, &err), -1);
	if (!strstr(err.msg, "tail.o") || !strstr(err.msg, "not an ELF"))
		fail_msg("%s", err.msg);
	unlink(p);
	free(p);
	/* NULL target: default code alignment 2 */
	assert_int_equal(image_resolve_alignments(&img, NULL, &err), 0);
	assert_int_equal(img.input_align[h0], 2);
	assert_int_equal(img.input_align[tail], 32);
	image_free(&img);

	/* a map one folder below the paths' base (Zephyr's zephyr/zephyr.map); a thin
	 * archive counts as missing */
	p = tmp_path("zephyr/zephyr.map");
	write_bytes(p, fw_map, strlen(fw_map));
	char *thin = tmp_path("out/libb.a");
	write_bytes(thin, "!<thin>\n", 8);
	free(thin);
	load_fw(&img, false);
	assert_int_equal(image_attach_map(&img, p, &err), 0);
	free(p);
	if (image_resolve_alignments(&img, &tg, &err) != 0)
		fail_msg("%s", err.msg);
	chk = func(&img, "net_chksum_impl", 0)->input;
	assert_int_equal(img.input_align[chk], 16);
	assert_true(img.input_align_known[chk]);
	assert_false(img.input_align_known[func(&img, "helper", 1)->input]);
	image_free(&img);

	load_fw(&img, false);
	assert_int_equal(image_resolve_alignments(&img, &tg, &err), -1);
	image_free(&img);
}

static void expect_bad_elf(const char *file, const char *needle)
{
	xb_image img;
	xb_err err = {{0}};
	char *p = tmp_path(file);
	assert_int_equal(image_load_elf(&img, p, &tg, &err), -1);
	if (!strstr(err.msg, needle) || !strstr(err.msg, file))
		fail_msg("%s: message '%s' should name the file and say '%s'", file, err.msg,
			 needle);
	free(p);
}

static void test_bad_elf(void **state)
{
	(void)state;
	char *good = tmp_path("fw.elf");
	char *data;
	size_t len;
	xb_err err;
	assert_int_equal(xb_read_file(good, &data, &len, &err), 0);
	free(good);

	char *p = tmp_path("empty.elf");
	write_bytes(p, "", 0);
	free(p);
	expect_bad_elf("empty.elf", "empty");

	p = tmp_path("text.elf");
	write_bytes(p, "hello, not an ELF\n", 18);
	free(p);
	expect_bad_elf("text.elf", "not an ELF");

	p = tmp_path("short.elf");
	write_bytes(p, data, 30);
	free(p);
	expect_bad_elf("short.elf", "truncated");

	p = tmp_path("truncated.elf");
	write_bytes(p, data, len - 100);
	free(p);
	expect_bad_elf("truncated.elf", "truncated");

	p = tmp_path("half.elf");
	write_bytes(p, data, len / 2);
	free(p);
	expect_bad_elf("half.elf", "truncated");
	free(data);

	p = tmp_path("elf64.elf");
	write_elf(p, ELFCLASS64, EM_AARCH64, ET_EXEC, fw_secs, 1, fw_syms, 3);
	free(p);
	expect_bad_elf("elf64.elf", "64-bit");

	p = tmp_path("x86.elf");
	write_elf(p, ELFCLASS32, EM_386, ET_EXEC, fw_secs, 1, fw_syms, 3);
	free(p);
	expect_bad_elf("x86.elf", "x86");

	p = tmp_path("stripped.elf");
	write_elf(p, ELFCLASS32, EM_ARM, ET_EXEC, fw_secs, 2, NULL, 0);
	free(p);
	expect_bad_elf("stripped.elf", "no symbol table");

	p = tmp_path("object.o");
	write_elf(p, ELFCLASS32, EM_ARM, ET_REL, fw_secs, 1, fw_syms, 3);
	free(p);
	expect_bad_elf("object.o", "relocatable");

	expect_bad_elf("does-not-exist.elf", "No such file");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_base_names),
		cmocka_unit_test(test_load_functions),
		cmocka_unit_test(test_lookups),
		cmocka_unit_test(test_map_join),
		cmocka_unit_test(test_qualified_without_map_and_clash),
		cmocka_unit_test(test_map_rejected),
		cmocka_unit_test(test_groups),
		cmocka_unit_test(test_alignments),
		cmocka_unit_test(test_bad_elf),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
