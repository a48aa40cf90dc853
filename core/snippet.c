/* snippet: GNU ld fragments, Zephyr build files and the name list that place functions as a
 * layout says, written at input-section granularity. */
#include "snippet.h"
#include "buildsys.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define SNIPPET_ZEPHYR_NAME "xipbench-layout"

/* ---- names that reach a script ---- */

/* A name for a one-line message: control bytes become \n, \t or \xNN. */
static char *snippet_escape(const char *s)
{
	xb_strbuf sb = {0};
	sb_puts(&sb, "");
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '\n')
			sb_puts(&sb, "\\n");
		else if (*p == '\t')
			sb_puts(&sb, "\\t");
		else if (*p < 0x20 || *p == 0x7f)
			sb_printf(&sb, "\\x%02x", *p);
		else
			sb_append(&sb, (const char *)p, 1);
	}
	return sb.buf;
}

/* Why c may not appear in a section or file name of a linker script, or NULL if it may.
 * Anything beyond [A-Za-z0-9_.$+-] (and '/' in paths) is refused: ld would read it as a
 * wildcard or as script syntax, or it could end the rule. */
static const char *snippet_char_problem(unsigned char c, bool path)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    c == '_' || c == '.' || c == '$' || c == '+' || c == '-')
		return NULL;
	if (c == '/')
		return path ? NULL : "a path separator";
	if (c == '*' || c == '?' || c == '[' || c == ']')
		return "a wildcard to GNU ld";
	if (c == ' ' || c == '\t')
		return "whitespace";
	if (c == '\n' || c == '\r')
		return "a line break";
	if (c < 0x20 || c == 0x7f)
		return "a control character";
	if (c >= 0x80)
		return "a non-ASCII byte";
	return "linker script syntax";
}

static void snippet_show_char(char *buf, size_t cap, unsigned char c)
{
	if (c == ' ')
		snprintf(buf, cap, "a space");
	else if (c > 0x20 && c < 0x7f)
		snprintf(buf, cap, "'%c'", c);
	else
		snprintf(buf, cap, "byte 0x%02x", c);
}

/* Fails, naming the function, when value is empty or holds a character ld would misread. */
static int snippet_check_name(const xb_function *f, const char *what, const char *value,
			      bool path, xb_err *err)
{
	char *fname = snippet_escape(f->name ? f->name : "?");
	int rc = 0;
	if (!value || !*value) {
		rc = xb_fail(err, "function %s: its %s is empty, so GNU ld cannot select it", fname,
			     what);
		free(fname);
		return rc;
	}
	for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
		const char *why = snippet_char_problem(*p, path);
		if (!why)
			continue;
		char shown[16];
		snippet_show_char(shown, sizeof shown, *p);
		char *v = snippet_escape(value);
		rc = xb_fail(err, "function %s: %s '%s' contains %s (%s); refusing to put it in a "
			     "linker script (leave the function out of the layout)", fname, what, v,
			     shown, why);
		free(v);
		break;
	}
	free(fname);
	return rc;
}

static const char *snippet_basename(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

static const xb_map_input *snippet_input_of(const xb_image *img, const xb_function *f,
					    xb_err *err)
{
	if (f->input < 0 || (size_t)f->input >= img->map.ninputs || !img->map.inputs) {
		char *fname = snippet_escape(f->name ? f->name : "?");
		xb_fail(err, "function %s: no input section known (load the map file)", fname);
		free(fname);
		return NULL;
	}
	return &img->map.inputs[f->input];
}

/* ---- selectors ---- */

enum snippet_file_kind {
	SNIPPET_ANY_FILE,  /* any file: the section name alone is unique */
	SNIPPET_ARCHIVE,   /* archive:member, the archive by base name */
	SNIPPET_OBJECT,    /* a plain object by base name */
};

typedef struct snippet_sel {
	enum snippet_file_kind kind;
	bool folder;         /* the file pattern starts with "*" "/" */
	const char *base;    /* archive or object base name */
	const char *member;  /* SNIPPET_ARCHIVE */
	const char *section;
	int input;
} snippet_sel;

/* "*" "/" BASE matches any path ending in "/BASE" (ld's fnmatch lets '*' match '/'); without the
 * folder the name must be the path itself. */
static bool snippet_path_matches(bool folder, const char *base, const char *path)
{
	if (!path)
		return false;
	if (!folder)
		return strcmp(base, path) == 0;
	size_t lb = strlen(base), lp = strlen(path);
	return lp > lb && path[lp - lb - 1] == '/' && strcmp(path + lp - lb, base) == 0;
}

/* Whether GNU ld would give input `in` to the rule (checked against an ld 2.40 link): an
 * "archive:member" pattern sees archive members only; a plain name without wildcards is the
 * command-line object of that name; a wildcard name is matched against plain objects' paths
 * and archive members' names alike. */
static bool snippet_sel_matches(const snippet_sel *s, const xb_map_input *in)
{
	if (!in->section || strcmp(in->section, s->section) != 0)
		return false;
	switch (s->kind) {
	case SNIPPET_ANY_FILE:
		return true;
	case SNIPPET_ARCHIVE:
		return in->archive && in->member && strcmp(in->member, s->member) == 0 &&
		       snippet_path_matches(s->folder, s->base, in->archive);
	case SNIPPET_OBJECT:
		if (!s->folder)
			return !in->archive && in->member && strcmp(in->member, s->base) == 0;
		return snippet_path_matches(true, s->base, in->member);
	}
	return false;
}

static void snippet_format(const snippet_sel *s, bool quoted, xb_strbuf *out)
{
	const char *q = quoted ? "\"" : "";
	const char *dir = s->folder ? "*/" : "";
	switch (s->kind) {
	case SNIPPET_ANY_FILE:
		sb_printf(out, "*(%s%s%s)", q, s->section, q);
		break;
	case SNIPPET_ARCHIVE:
		sb_printf(out, "%s%s:%s(%s%s%s)", dir, s->base, s->member, q, s->section, q);
		break;
	case SNIPPET_OBJECT:
		sb_printf(out, "%s%s(%s%s%s)", dir, s->base, q, s->section, q);
		break;
	}
}

static int snippet_make_selector(const xb_image *img, const xb_function *f, snippet_sel *sel,
				 xb_err *err)
{
	const xb_map_input *in = snippet_input_of(img, f, err);
	if (!in)
		return -1;
	if (snippet_check_name(f, "section name", in->section, false, err) != 0)
		return -1;
	memset(sel, 0, sizeof *sel);
	sel->section = in->section;
	sel->input = f->input;
	size_t same = in->same_section; /* counted when the map was read */
	if (!same) /* a map built by hand */
		for (size_t i = 0; i < img->map.ninputs; i++)
			if (img->map.inputs[i].section &&
			    strcmp(img->map.inputs[i].section, in->section) == 0)
				same++;
	if (same == 1) {
		sel->kind = SNIPPET_ANY_FILE;
		return 0;
	}
	if (in->archive) {
		/* only the base name and the member enter the rule: a folder may hold anything */
		if (snippet_check_name(f, "archive member", in->member, true, err) != 0)
			return -1;
		sel->kind = SNIPPET_ARCHIVE;
		sel->base = snippet_basename(in->archive);
		sel->folder = sel->base != in->archive;
		sel->member = in->member;
		if (snippet_check_name(f, "archive file name", sel->base, false, err) != 0)
			return -1;
	} else {
		sel->kind = SNIPPET_OBJECT;
		sel->base = snippet_basename(in->member);
		sel->folder = sel->base != in->member;
		if (snippet_check_name(f, "object file name", sel->base, false, err) != 0)
			return -1;
	}
	for (size_t i = 0; i < img->map.ninputs; i++) {
		if ((int)i == f->input || !snippet_sel_matches(sel, &img->map.inputs[i]))
			continue;
		xb_strbuf pat = {0};
		snippet_format(sel, false, &pat);
		char *fname = snippet_escape(f->name ? f->name : "?");
		xb_fail(err, "function %s: cannot select its input section uniquely: '%s' also "
			"matches the input at map line %d (same archive, member and section name)",
			fname, pat.buf, img->map.inputs[i].line);
		free(fname);
		sb_free(&pat);
		return -1;
	}
	return 0;
}

int snippet_selector(const xb_image *img, const xb_function *f, xb_strbuf *out, xb_err *err)
{
	snippet_sel sel;
	if (snippet_make_selector(img, f, &sel, err) != 0)
		return -1;
	snippet_format(&sel, false, out);
	return 0;
}

/* ---- the rules of a layout ---- */

typedef struct snippet_rule {
	int func;
	enum xb_place place;
	uint32_t way_offset;
	snippet_sel sel;
} snippet_rule;

typedef struct snippet_plan {
	snippet_rule *r;
	size_t n, cap;
	uint32_t way_mask;   /* cache way bytes - 1, when the layout colours */
	char strategy[17];   /* safe inside a comment */
} snippet_plan;

static void snippet_plan_free(snippet_plan *p)
{
	free(p->r);
	memset(p, 0, sizeof *p);
}

/* The fragment a placement's rules go in. */
enum snippet_part { PART_HOT, PART_RAM, PART_NOALLOC };

static enum snippet_part snippet_part_of(enum xb_place p)
{
	return p == XB_PLACE_SRAM ? PART_RAM : p == XB_PLACE_NOALLOC ? PART_NOALLOC : PART_HOT;
}

static const char *snippet_place_words(enum xb_place p)
{
	static const char *const words[] = {"in the hot block", "in SRAM",
					    "in the no-allocate section"};
	return words[snippet_part_of(p)];
}

/* The layout's strategy, as a comment may show it: a name like "*" "/" would end the comment. */
static void snippet_strategy(const xb_layout *l, char *out, size_t cap)
{
	size_t n = strnlen(l->strategy, sizeof l->strategy), k = 0;
	for (size_t i = 0; i < n && k + 1 < cap; i++) {
		char c = l->strategy[i];
		out[k++] = snippet_char_problem((unsigned char)c, false) ? '_' : c;
	}
	out[k] = 0;
	if (k == 0)
		snprintf(out, cap, "unnamed");
}

static int snippet_way_mask(const xb_target *tg, const xb_function *f, uint32_t off,
			    uint32_t *mask, xb_err *err)
{
	char *fname = snippet_escape(f->name ? f->name : "?");
	int rc = 0;
	uint32_t way = tg && tg->cache.ways ? tg->cache.size / tg->cache.ways : 0;
	if (!tg)
		rc = xb_fail(err, "function %s: colouring needs a target (cache geometry)", fname);
	else if (way == 0 || (way & (way - 1)) != 0)
		rc = xb_fail(err, "target %s: a cache way of %u bytes (%u bytes, %u ways) is not a "
			     "power of two", tg->name, way, tg->cache.size, tg->cache.ways);
	else if (off >= way)
		rc = xb_fail(err, "function %s: colour offset 0x%x is outside the cache way (0x%x "
			     "bytes)", fname, off, way);
	else
		*mask = way - 1;
	free(fname);
	return rc;
}

/* Turns the layout into rules, one per input section at its first occurrence. Fails for an
 * entry ld could not honour: no input section, a name it would misread, a section shared by
 * functions the layout sends to different places. */
static int snippet_plan_build(const xb_image *img, const xb_target *tg, const xb_layout *l,
			      snippet_plan *p, xb_err *err)
{
	memset(p, 0, sizeof *p);
	snippet_strategy(l, p->strategy, sizeof p->strategy);
	size_t nin = img->map.ninputs;
	int *owner = xmalloc((nin ? nin : 1) * sizeof *owner);
	for (size_t i = 0; i < nin; i++)
		owner[i] = -1;
	int rc = 0;
	for (size_t i = 0; i < l->n && rc == 0; i++) {
		const xb_layout_entry *e = &l->e[i];
		if (e->place == XB_PLACE_DEFAULT)
			continue;
		if (e->place != XB_PLACE_HOT && e->place != XB_PLACE_COLOUR &&
		    e->place != XB_PLACE_SRAM && e->place != XB_PLACE_NOALLOC) {
			rc = xb_fail(err, "layout entry %zu: unknown placement %d", i + 1,
				     (int)e->place);
			break;
		}
		if (e->func < 0 || (size_t)e->func >= img->nfuncs) {
			rc = xb_fail(err, "layout entry %zu: function index %d is not in the image "
				     "(%zu functions)", i + 1, e->func, img->nfuncs);
			break;
		}
		const xb_function *f = &img->funcs[e->func];
		if (!snippet_input_of(img, f, err)) {
			rc = -1;
			break;
		}
		int prev = owner[f->input];
		if (prev >= 0) {
			const snippet_rule *r = &p->r[prev];
			if (snippet_part_of(r->place) != snippet_part_of(e->place)) {
				char *a = snippet_escape(img->funcs[r->func].name);
				char *b = snippet_escape(f->name ? f->name : "?");
				rc = xb_fail(err, "functions %s and %s share the input section '%s' but "
					     "the layout puts %s %s and %s %s; GNU ld moves a section "
					     "only as a whole", a, b, r->sel.section, a,
					     snippet_place_words(r->place), b,
					     snippet_place_words(e->place));
				free(a);
				free(b);
			}
			/* Already placed with its first function; a later colour offset cannot apply. */
			continue;
		}
		snippet_rule r = {.func = e->func, .place = e->place, .way_offset = e->way_offset};
		if (e->place == XB_PLACE_COLOUR &&
		    snippet_way_mask(tg, f, e->way_offset, &p->way_mask, err) != 0) {
			rc = -1;
			break;
		}
		if (snippet_make_selector(img, f, &r.sel, err) != 0) {
			rc = -1;
			break;
		}
		xb_grow(&p->r, &p->cap, p->n + 1, sizeof *p->r);
		owner[f->input] = (int)p->n;
		p->r[p->n++] = r;
	}
	free(owner);
	if (rc != 0)
		snippet_plan_free(p);
	return rc;
}

static void snippet_emit_rules(const snippet_plan *p, enum snippet_part part, bool quoted,
			       xb_strbuf *out)
{
	for (size_t i = 0; i < p->n; i++) {
		const snippet_rule *r = &p->r[i];
		if (snippet_part_of(r->place) != part)
			continue;
		/* Both terms absolute makes the padding a plain number inside an output section;
		 * "0xOFF - ABSOLUTE(.)" would stay an absolute address, and ld would then read
		 * ". + pad" as an offset from the section start (ld manual, "The Section of an
		 * Expression"; checked with ld 2.40 in tests/integration/test_snippet_ld.sh). */
		if (r->place == XB_PLACE_COLOUR)
			sb_printf(out, ". = . + ((ABSOLUTE(0x%04x) - ABSOLUTE(.)) & 0x%x);\n",
				  r->way_offset, p->way_mask);
		snippet_format(&r->sel, quoted, out);
		sb_puts(out, "\n");
	}
}

enum snippet_fragment {
	SNIPPET_HOT_GENERIC,
	SNIPPET_RAM_GENERIC,
	SNIPPET_HOT_ZEPHYR,
	SNIPPET_RAM_ZEPHYR,
	SNIPPET_NOALLOC_GENERIC,
};

/* The Zephyr variants quote section names because Zephyr runs linker scripts through the C
 * preprocessor, which would expand a section name that happens to be a macro. */
static int snippet_fragment(const xb_image *img, const xb_target *tg, const xb_layout *l,
			    enum snippet_fragment which, xb_strbuf *out, xb_err *err)
{
	snippet_plan p;
	if (snippet_plan_build(img, tg, l, &p, err) != 0)
		return -1;
	enum snippet_part part = which == SNIPPET_RAM_GENERIC || which == SNIPPET_RAM_ZEPHYR
		? PART_RAM : which == SNIPPET_NOALLOC_GENERIC ? PART_NOALLOC : PART_HOT;
	bool zephyr = which == SNIPPET_HOT_ZEPHYR || which == SNIPPET_RAM_ZEPHYR;
	switch (which) {
	case SNIPPET_HOT_GENERIC:
		sb_printf(out, "/* xipbench hot text (strategy: %s): INCLUDE in the first output "
			  "section after the vector table. */\n", p.strategy);
		break;
	case SNIPPET_RAM_GENERIC:
		sb_printf(out, "/* xipbench RAM functions (strategy: %s): INCLUDE in a RAM output "
			  "section (AT> flash) that comes before the general text rule. */\n",
			  p.strategy);
		break;
	case SNIPPET_HOT_ZEPHYR:
		sb_printf(out, "/* xipbench hot text (strategy: %s): for "
			  "zephyr_linker_sources(ROM_START ...). */\n", p.strategy);
		break;
	case SNIPPET_RAM_ZEPHYR:
		sb_printf(out, "/* xipbench RAM functions (strategy: %s): for "
			  "zephyr_linker_sources(RAMFUNC_SECTION ...), with .ramfunc placed before "
			  "the text section. */\n", p.strategy);
		break;
	case SNIPPET_NOALLOC_GENERIC:
		sb_printf(out, "/* xipbench no-allocate functions (strategy: %s): INCLUDE in a section "
			  "run through the flash alias that never fills the cache, loaded in flash, "
			  "that comes before the general text rule. */\n", p.strategy);
		break;
	}
	size_t elsewhere = 0;
	for (size_t i = 0; i < p.n; i++)
		elsewhere += snippet_part_of(p.r[i].place) == PART_NOALLOC;
	if (zephyr && elsewhere)
		sb_printf(out, "/* %zu input section%s for the no-allocate section %s not placed: "
			  "Zephyr's scripts have no such section. */\n", elsewhere,
			  elsewhere == 1 ? "" : "s", elsewhere == 1 ? "is" : "are");
	static const char *const markers[] = {"__xipbench_hot", "__xipbench_ramfunc",
					      "__xipbench_noalloc"};
	const char *marker = markers[part];
	sb_printf(out, "%s_start = .;\n", marker);
	snippet_emit_rules(&p, part, zephyr, out);
	sb_printf(out, "%s_end = .;\n", marker);
	snippet_plan_free(&p);
	return 0;
}

static int snippet_write_hot(const xb_image *img, const xb_target *tg, const xb_layout *l,
			     xb_strbuf *out, xb_err *err)
{
	return snippet_fragment(img, tg, l, SNIPPET_HOT_GENERIC, out, err);
}

static int snippet_write_ramfunc(const xb_image *img, const xb_target *tg, const xb_layout *l,
				 xb_strbuf *out, xb_err *err)
{
	return snippet_fragment(img, tg, l, SNIPPET_RAM_GENERIC, out, err);
}

static int snippet_write_noalloc(const xb_image *img, const xb_target *tg, const xb_layout *l,
				 xb_strbuf *out, xb_err *err)
{
	return snippet_fragment(img, tg, l, SNIPPET_NOALLOC_GENERIC, out, err);
}

static int snippet_write_rom_start(const xb_image *img, const xb_target *tg, const xb_layout *l,
				   xb_strbuf *out, xb_err *err)
{
	return snippet_fragment(img, tg, l, SNIPPET_HOT_ZEPHYR, out, err);
}

static int snippet_write_zephyr_ramfunc(const xb_image *img, const xb_target *tg,
					const xb_layout *l, xb_strbuf *out, xb_err *err)
{
	return snippet_fragment(img, tg, l, SNIPPET_RAM_ZEPHYR, out, err);
}

/* ---- zephyr_code_relocate() ---- */

/* A Python regular expression (gen_relocate_app.py uses re.search) matching exactly the
 * section name, written for a quoted CMake argument: "\\." in CMake is "\." to Python. */
static void snippet_filter_regex(const char *section, xb_strbuf *out)
{
	sb_puts(out, "^");
	for (const char *c = section; *c; c++) {
		if (*c == '.' || *c == '$' || *c == '+')
			sb_puts(out, "\\\\");
		sb_append(out, c, 1);
	}
	sb_puts(out, "$");
}

/* The CMake library target behind an archive ("libsubsys__net__ip.a" -> "subsys__net__ip"),
 * or NULL when the archive is not named like one. */
static char *snippet_library_target(const char *archive)
{
	const char *base = snippet_basename(archive);
	size_t n = strlen(base);
	if (n <= 5 || strncmp(base, "lib", 3) != 0 || strcmp(base + n - 2, ".a") != 0)
		return NULL;
	return xstrndup(base + 3, n - 5);
}

/* The source of a plain object of the application target: CMake names its object
 * "CMakeFiles/app.dir/<source relative to the application>.obj". NULL if not derivable. */
static char *snippet_app_source(const char *member)
{
	const char *dir = strstr(member, "CMakeFiles/app.dir/");
	if (!dir || (dir != member && dir[-1] != '/'))
		return NULL;
	const char *rel = dir + strlen("CMakeFiles/app.dir/");
	size_t n = strlen(rel);
	if (n > 4 && strcmp(rel + n - 4, ".obj") == 0)
		n -= 4;
	else if (n > 2 && strcmp(rel + n - 2, ".o") == 0)
		n -= 2;
	else
		return NULL;
	char *src = xstrndup(rel, n);
	/* CMake spells ".." as "__" in object paths: such a source lies outside the application. */
	if (strncmp(src, "__/", 3) == 0 || strstr(src, "/__/")) {
		free(src);
		return NULL;
	}
	return src;
}

static int snippet_relocate(const xb_image *img, const xb_target *tg, const xb_layout *l,
			    xb_strbuf *out, size_t *ncalls, xb_err *err)
{
	snippet_plan p;
	if (snippet_plan_build(img, tg, l, &p, err) != 0)
		return -1;
	size_t calls = 0;
	sb_printf(out, "# xipbench SRAM functions (strategy: %s) for zephyr_code_relocate(); needs "
		  "CONFIG_CODE_DATA_RELOCATION=y.\n", p.strategy);
	sb_puts(out, "# Include it from the application's CMakeLists.txt after find_package(Zephyr):\n"
		"#   include(/path/to/this/relocate.cmake)\n"
		"# Each call moves one input section to SRAM; FILTER matches exactly its name.\n");
	/* the location names the board's RAM region as the map shows it: a region the board
	 * does not declare (SRAM on rpi_pico, whose region is RAM) links the code at 0 */
	char region[64], loc[80];
	if (buildsys_ram_region(img, tg, region, sizeof region) == 0) {
		snprintf(loc, sizeof loc, "%s_TEXT", region);
		sb_printf(out, "# LOCATION %s: the map's memory region %s holds the SRAM.\n", loc, region);
	} else {
		snprintf(loc, sizeof loc, "SRAM_TEXT");
		sb_puts(out, "# LOCATION SRAM_TEXT: the map names no memory region in the SRAM; check "
			     "that the board's RAM region is called SRAM.\n");
	}
	int rc = 0;
	for (size_t i = 0; i < p.n && rc == 0; i++) {
		const snippet_rule *r = &p.r[i];
		if (snippet_part_of(r->place) != PART_RAM)
			continue;
		const xb_function *f = &img->funcs[r->func];
		const xb_map_input *in = &img->map.inputs[r->sel.input];
		xb_strbuf re = {0};
		snippet_filter_regex(in->section, &re);
		if (in->archive) {
			if (in->archive[0] == '/') {
				sb_printf(out, "# skipped %s in %s: an archive given by an absolute path "
					  "is not a library of this Zephyr build (a toolchain "
					  "library?); use the RAMFUNC_SECTION route for it\n",
					  in->section, in->archive);
			} else {
				char *target = snippet_library_target(in->archive);
				xb_err ignored;
				if (target && snippet_check_name(f, "library", target, false, &ignored) != 0) {
					sb_printf(out, "# skipped %s: its library's name '%s' cannot be "
						  "written safely\n", in->section, target);
					free(target);
				} else if (!target) {
					sb_printf(out, "# skipped %s in %s: the archive is not named "
						  "libNAME.a, so its CMake target is unknown\n",
						  in->section, in->archive);
				} else {
					size_t others = 0;
					for (size_t k = 0; k < img->map.ninputs; k++) {
						const xb_map_input *o = &img->map.inputs[k];
						if ((int)k != r->sel.input && o->archive && o->section &&
						    strcmp(o->archive, in->archive) == 0 &&
						    strcmp(o->section, in->section) == 0)
							others++;
					}
					if (others)
						sb_printf(out, "# note: the FILTER also moves %s of %zu "
							  "other member(s) of %s\n", in->section,
							  others, snippet_basename(in->archive));
					sb_printf(out, "zephyr_code_relocate(LIBRARY %s FILTER \"%s\" "
						  "LOCATION %s)\n", target, re.buf, loc);
					calls++;
					free(target);
				}
			}
		} else {
			xb_err ignored;
			char *src = snippet_app_source(in->member);
			if (src && snippet_check_name(f, "source", src, true, &ignored) != 0) {
				sb_printf(out, "# skipped %s: the path of its source cannot be written "
					  "safely\n", in->section);
				free(src);
			} else if (src) {
				/* FILES matches by file name: a same-named source elsewhere moves too */
				const char *base = snippet_basename(in->member);
				for (size_t k = 0; k < img->map.ninputs; k++) {
					const xb_map_input *o = &img->map.inputs[k];
					if (o->member && o->member != in->member &&
					    strcmp(snippet_basename(o->member), base) == 0 &&
					    strcmp(o->member, in->member) != 0) {
						sb_printf(out, "# note: %s of another object named %s "
							  "matches this FILES pattern too\n",
							  o->section ? o->section : "?", base);
						break;
					}
				}
				sb_printf(out, "zephyr_code_relocate(FILES ${APPLICATION_SOURCE_DIR}/%s "
					  "FILTER \"%s\" LOCATION %s)\n", src, re.buf, loc);
				calls++;
				free(src);
			} else {
				sb_printf(out, "# skipped %s in %s: the source of this object cannot be "
					  "told from the map; use the RAMFUNC_SECTION route for it\n",
					  in->section, in->member);
			}
		}
		sb_free(&re);
	}
	if (rc == 0 && calls == 0)
		sb_puts(out, "# (no section to relocate in this layout)\n");
	snippet_plan_free(&p);
	if (ncalls)
		*ncalls = calls;
	return rc;
}

static int snippet_write_relocate(const xb_image *img, const xb_target *tg, const xb_layout *l,
				  xb_strbuf *out, xb_err *err)
{
	return snippet_relocate(img, tg, l, out, NULL, err);
}

/* ---- the Zephyr module that carries the snippet ---- */

/* A snippet.yml can only append configuration and devicetree files, not linker sources, so
 * the snippet comes inside a small module whose CMakeLists.txt adds them when the snippet's
 * Kconfig option is on. */

static int snippet_write_module_yml(const xb_image *img, const xb_target *tg, const xb_layout *l,
				    xb_strbuf *out, xb_err *err)
{
	(void)img, (void)tg, (void)l, (void)err;
	sb_puts(out, "# xipbench layout as a Zephyr module; it also provides the snippet "
		SNIPPET_ZEPHYR_NAME ".\n"
		"name: " SNIPPET_ZEPHYR_NAME "\n"
		"build:\n"
		"  cmake: .\n"
		"  kconfig: Kconfig\n"
		"  settings:\n"
		"    snippet_root: .\n");
	return 0;
}

static int snippet_write_module_cmake(const xb_image *img, const xb_target *tg,
				      const xb_layout *l, xb_strbuf *out, xb_err *err)
{
	(void)img, (void)tg, (void)l, (void)err;
	sb_puts(out,
		"# xipbench layout module: adds the layout's linker rules when the "
		SNIPPET_ZEPHYR_NAME " snippet is on.\n"
		"if(CONFIG_XIPBENCH_LAYOUT)\n"
		"  zephyr_linker_sources(ROM_START \"${CMAKE_CURRENT_LIST_DIR}/rom_start.ld\")\n"
		"  if(CONFIG_XIPBENCH_LAYOUT_SRAM_RAMFUNC)\n"
		"    zephyr_linker_sources(RAMFUNC_SECTION \"${CMAKE_CURRENT_LIST_DIR}/ramfunc.ld\")\n"
		"  else()\n"
		"    include(\"${CMAKE_CURRENT_LIST_DIR}/relocate.cmake\")\n"
		"  endif()\n"
		"endif()\n");
	return 0;
}

static int snippet_write_module_kconfig(const xb_image *img, const xb_target *tg,
					const xb_layout *l, xb_strbuf *out, xb_err *err)
{
	xb_strbuf reloc = {0};
	size_t calls = 0;
	int rc = snippet_relocate(img, tg, l, &reloc, &calls, err);
	sb_free(&reloc);
	if (rc != 0)
		return -1;
	sb_puts(out,
		"# xipbench layout: set by the " SNIPPET_ZEPHYR_NAME " snippet.\n"
		"config XIPBENCH_LAYOUT\n"
		"\tbool \"Place functions as the xipbench layout says\"\n"
		"\thelp\n"
		"\t  Adds the layout's hot and coloured functions to ROM_START and moves its\n"
		"\t  SRAM functions to RAM.\n"
		"\n"
		"if XIPBENCH_LAYOUT\n"
		"\n"
		"choice XIPBENCH_LAYOUT_SRAM\n"
		"\tprompt \"How the layout's SRAM functions are moved\"\n"
		"\tdefault XIPBENCH_LAYOUT_SRAM_RELOCATE\n"
		"\n"
		"config XIPBENCH_LAYOUT_SRAM_RELOCATE\n"
		"\tbool \"zephyr_code_relocate() (works with the stock linker script)\"\n"
		"\tdepends on ARCH_HAS_CODE_DATA_RELOCATION\n");
	/* gen_relocate_app.py stops the build when relocation is on with nothing to move. */
	if (calls)
		sb_puts(out, "\tselect CODE_DATA_RELOCATION\n");
	sb_puts(out,
		"\n"
		"config XIPBENCH_LAYOUT_SRAM_RAMFUNC\n"
		"\tbool \"RAMFUNC_SECTION (needs .ramfunc placed before the text section)\"\n"
		"\n"
		"endchoice\n"
		"\n"
		"endif\n");
	return 0;
}

static int snippet_write_snippet_yml(const xb_image *img, const xb_target *tg,
				     const xb_layout *l, xb_strbuf *out, xb_err *err)
{
	(void)img, (void)tg, (void)l, (void)err;
	sb_puts(out, "# xipbench layout: west build -S " SNIPPET_ZEPHYR_NAME
		" (with this module in EXTRA_ZEPHYR_MODULES).\n"
		"name: " SNIPPET_ZEPHYR_NAME "\n"
		"append:\n"
		"  EXTRA_CONF_FILE: " SNIPPET_ZEPHYR_NAME ".conf\n");
	return 0;
}

static int snippet_write_snippet_conf(const xb_image *img, const xb_target *tg,
				      const xb_layout *l, xb_strbuf *out, xb_err *err)
{
	(void)img, (void)tg, (void)l, (void)err;
	sb_puts(out, "# xipbench layout: turns on the module's linker rules.\n"
		"CONFIG_XIPBENCH_LAYOUT=y\n");
	return 0;
}

static int snippet_write_readme(const xb_image *img, const xb_target *tg, const xb_layout *l,
				xb_strbuf *out, xb_err *err)
{
	(void)img, (void)tg, (void)err;
	char strategy[17];
	snippet_strategy(l, strategy, sizeof strategy);
	sb_printf(out, "xipbench layout for Zephyr (strategy: %s)\n", strategy);
	sb_puts(out,
		"\n"
		"This folder is a Zephyr module that provides the snippet " SNIPPET_ZEPHYR_NAME ".\n"
		"Build with both the module and the snippet:\n"
		"\n"
		"  west build -b rpi_pico APP -S " SNIPPET_ZEPHYR_NAME " -- \\\n"
		"      -DEXTRA_ZEPHYR_MODULES=/absolute/path/to/this/folder\n"
		"\n"
		"Without -S " SNIPPET_ZEPHYR_NAME " the module changes nothing. A snippet alone cannot\n"
		"add linker sources (snippet.yml only appends .conf and devicetree files), so the\n"
		"snippet sets CONFIG_XIPBENCH_LAYOUT=y and the module's CMakeLists.txt does the rest:\n"
		"\n"
		"  rom_start.ld    zephyr_linker_sources(ROM_START ...): the hot and coloured\n"
		"                  functions, in layout order, right after the vector table.\n"
		"  relocate.cmake  zephyr_code_relocate(... LOCATION SRAM_TEXT) for the SRAM\n"
		"                  functions (the default, CONFIG_XIPBENCH_LAYOUT_SRAM_RELOCATE).\n"
		"                  Works with the stock linker script.\n"
		"  ramfunc.ld      zephyr_linker_sources(RAMFUNC_SECTION ...) instead, with\n"
		"                  CONFIG_XIPBENCH_LAYOUT_SRAM_RAMFUNC=y. GNU ld gives each input\n"
		"                  section to the first rule that matches it, so this needs a\n"
		"                  linker script that places .ramfunc before the text section; it\n"
		"                  also moves sections relocate.cmake has to skip (toolchain\n"
		"                  libraries) and works with LTO.\n"
		"\n"
		"The three files are copies of ../rom_start.ld, ../relocate.cmake and ../ramfunc.ld,\n"
		"so this folder can be copied on its own. Colouring depends on exact function sizes\n"
		"and addresses: generate the layout again after every code or build change.\n");
	return 0;
}

/* ---- names.txt ---- */

static int snippet_check_list_name(const xb_function *f, xb_err *err)
{
	const char *name = f->name ? f->name : "";
	bool bad = !*name || name[0] == '#';
	for (const unsigned char *p = (const unsigned char *)name; *p && !bad; p++)
		bad = *p <= 0x20 || *p == 0x7f;
	if (!bad)
		return 0;
	char *e = snippet_escape(name);
	xb_fail(err, "function '%s': a name that is empty, starts with '#' or holds whitespace or "
		"control characters cannot go in a name list", e);
	free(e);
	return -1;
}

static int snippet_write_names(const xb_image *img, const xb_target *tg, const xb_layout *l,
			       xb_strbuf *out, xb_err *err)
{
	(void)tg;
	char strategy[17];
	snippet_strategy(l, strategy, sizeof strategy);
	sb_printf(out, "# xipbench SRAM functions (strategy: %s): one name per line, in placement "
		  "order.\n", strategy);
	sb_puts(out, "# A name that several objects define is written archive:member(section) or "
		"object(section).\n");
	bool *seen = xcalloc(img->nfuncs ? img->nfuncs : 1, sizeof *seen);
	int rc = 0;
	for (size_t i = 0; i < l->n && rc == 0; i++) {
		const xb_layout_entry *e = &l->e[i];
		if (e->place != XB_PLACE_SRAM)
			continue;
		if (e->func < 0 || (size_t)e->func >= img->nfuncs) {
			rc = xb_fail(err, "layout entry %zu: function index %d is not in the image "
				     "(%zu functions)", i + 1, e->func, img->nfuncs);
			break;
		}
		if (seen[e->func])
			continue;
		seen[e->func] = true;
		const xb_function *f = &img->funcs[e->func];
		if (snippet_check_list_name(f, err) != 0) {
			rc = -1;
			break;
		}
		size_t same = 0;
		for (size_t k = 0; k < img->nfuncs; k++)
			if (img->funcs[k].name && strcmp(img->funcs[k].name, f->name) == 0)
				same++;
		if (same <= 1) {
			sb_printf(out, "%s\n", f->name);
			continue;
		}
		const xb_map_input *in = snippet_input_of(img, f, err);
		if (!in || snippet_check_name(f, "section name", in->section, false, err) != 0 ||
		    snippet_check_name(f, in->archive ? "archive member" : "object", in->member,
				       true, err) != 0 ||
		    (in->archive && snippet_check_name(f, "archive", in->archive, true, err) != 0)) {
			rc = -1;
			break;
		}
		if (in->archive)
			sb_printf(out, "%s:%s(%s)\n", snippet_basename(in->archive), in->member,
				  in->section);
		else
			sb_printf(out, "%s(%s)\n", snippet_basename(in->member), in->section);
	}
	free(seen);
	return rc;
}

/* ---- the table and the folder ---- */

const xb_snippet_writer snippet_writers[] = {
	{.name = "hot-ld", .file = "xipbench_hot.ld",
	 .summary = "hot block rules; INCLUDE in the first output section after the vector table",
	 .write = snippet_write_hot},
	{.name = "ramfunc-ld", .file = "xipbench_ramfunc.ld",
	 .summary = "SRAM function rules; INCLUDE in a RAM section placed before the text rule",
	 .write = snippet_write_ramfunc},
	{.name = "noalloc-ld", .file = "xipbench_noalloc.ld",
	 .summary = "no-allocate function rules; INCLUDE in a section run through the "
		    "non-allocating flash alias, placed before the text rule",
	 .write = snippet_write_noalloc},
	{.name = "zephyr-rom-start", .file = "zephyr/rom_start.ld",
	 .summary = "hot block rules for zephyr_linker_sources(ROM_START ...)",
	 .write = snippet_write_rom_start},
	{.name = "zephyr-ramfunc", .file = "zephyr/ramfunc.ld",
	 .summary = "SRAM function rules for zephyr_linker_sources(RAMFUNC_SECTION ...)",
	 .write = snippet_write_zephyr_ramfunc},
	{.name = "zephyr-relocate", .file = "zephyr/relocate.cmake",
	 .summary = "zephyr_code_relocate() calls for the SRAM functions",
	 .write = snippet_write_relocate},
	{.name = "zephyr-module-yml", .file = "zephyr/snippet/zephyr/module.yml",
	 .summary = "module description (also makes the snippet discoverable)",
	 .write = snippet_write_module_yml},
	{.name = "zephyr-module-cmake", .file = "zephyr/snippet/CMakeLists.txt",
	 .summary = "adds the linker sources when the snippet is on",
	 .write = snippet_write_module_cmake},
	{.name = "zephyr-module-kconfig", .file = "zephyr/snippet/Kconfig",
	 .summary = "CONFIG_XIPBENCH_LAYOUT and the SRAM route", .write = snippet_write_module_kconfig},
	{.name = "zephyr-snippet-yml", .file = "zephyr/snippet/snippets/" SNIPPET_ZEPHYR_NAME
	 "/snippet.yml", .summary = "the snippet for west build -S " SNIPPET_ZEPHYR_NAME,
	 .write = snippet_write_snippet_yml},
	{.name = "zephyr-snippet-conf", .file = "zephyr/snippet/snippets/" SNIPPET_ZEPHYR_NAME "/"
	 SNIPPET_ZEPHYR_NAME ".conf", .summary = "the snippet's Kconfig fragment",
	 .write = snippet_write_snippet_conf},
	{.name = "zephyr-snippet-rom-start", .file = "zephyr/snippet/rom_start.ld",
	 .summary = "copy of zephyr/rom_start.ld", .write = snippet_write_rom_start},
	{.name = "zephyr-snippet-ramfunc", .file = "zephyr/snippet/ramfunc.ld",
	 .summary = "copy of zephyr/ramfunc.ld", .write = snippet_write_zephyr_ramfunc},
	{.name = "zephyr-snippet-relocate", .file = "zephyr/snippet/relocate.cmake",
	 .summary = "copy of zephyr/relocate.cmake", .write = snippet_write_relocate},
	{.name = "zephyr-snippet-readme", .file = "zephyr/snippet/README.txt",
	 .summary = "how to use the module and snippet", .write = snippet_write_readme},
	{.name = "names", .file = "names.txt",
	 .summary = "the SRAM functions' names (the reusable form)", .write = snippet_write_names},
	{.name = NULL},
};

/* Creates the folder holding path (dir + "/" + relative file). */
static int snippet_mkdirs_for(const char *path, xb_err *err)
{
	const char *slash = strrchr(path, '/');
	if (!slash || slash == path)
		return 0;
	char *folder = xstrndup(path, (size_t)(slash - path));
	int rc = xb_mkdirs(folder, err);
	free(folder);
	return rc;
}

int snippet_write_all(const xb_image *img, const xb_target *tg, const xb_layout *l,
		      const char *dir, xb_err *err)
{
	size_t n = 0;
	while (snippet_writers[n].name)
		n++;
	/* Everything is generated before anything is written: a refused name leaves the
	 * folder as it was. */
	xb_strbuf *text = xcalloc(n, sizeof *text);
	int rc = 0;
	for (size_t i = 0; i < n && rc == 0; i++) {
		rc = snippet_writers[i].write(img, tg, l, &text[i], err);
		if (rc == 0 && !text[i].buf)
			sb_puts(&text[i], "");
	}
	for (size_t i = 0; i < n && rc == 0; i++) {
		char *path = xasprintf("%s/%s", dir, snippet_writers[i].file);
		rc = snippet_mkdirs_for(path, err);
		if (rc == 0)
			rc = xb_write_file_atomic(path, text[i].buf, text[i].len, err);
		free(path);
	}
	for (size_t i = 0; i < n; i++)
		sb_free(&text[i]);
	free(text);
	return rc;
}

int snippet_write_stock(const char *dir, xb_err *err)
{
	static const char hot[] = "/* xipbench hot text: stock build, no functions moved. */\n"
				  "__xipbench_hot_start = .;\n"
				  "__xipbench_hot_end = .;\n";
	static const char ram[] = "/* xipbench RAM functions: stock build, no functions moved. */\n"
				  "__xipbench_ramfunc_start = .;\n"
				  "__xipbench_ramfunc_end = .;\n";
	static const char noalloc[] = "/* xipbench no-allocate functions: stock build, no "
				      "functions moved. */\n"
				      "__xipbench_noalloc_start = .;\n"
				      "__xipbench_noalloc_end = .;\n";
	if (xb_mkdirs(dir, err) != 0)
		return -1;
	char *path = xasprintf("%s/xipbench_hot.ld", dir);
	int rc = xb_write_file_atomic(path, hot, sizeof hot - 1, err);
	free(path);
	if (rc != 0)
		return -1;
	path = xasprintf("%s/xipbench_ramfunc.ld", dir);
	rc = xb_write_file_atomic(path, ram, sizeof ram - 1, err);
	free(path);
	if (rc != 0)
		return -1;
	path = xasprintf("%s/xipbench_noalloc.ld", dir);
	rc = xb_write_file_atomic(path, noalloc, sizeof noalloc - 1, err);
	free(path);
	return rc;
}
