/* mapfile: reads GNU ld map files into output sections, input sections, fill, symbols. */
#include "mapfile.h"

#include <ctype.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

enum map_part {
	PART_NONE,      /* before the first heading, or a part we skip */
	PART_MEMORY,    /* "Memory Configuration" */
	PART_MAP,       /* "Linker script and memory map" */
	PART_END,       /* "Cross Reference Table": nothing after it matters */
};

static const struct {
	const char *heading;
	enum map_part part;
} map_headings[] = {
	{"Archive member included to satisfy reference by file (symbol)", PART_NONE},
	{"As-needed library included to satisfy reference by file (symbol)", PART_NONE},
	{"Allocating common symbols", PART_NONE},
	{"Discarded input sections", PART_NONE},
	{"Merging program properties", PART_NONE},
	{"Memory Configuration", PART_MEMORY},
	{"Linker script and memory map", PART_MAP},
	{"Cross Reference Table", PART_END},
};

/* One line of the map, split into at most MAX_TOKENS whitespace-separated tokens. */
#define MAX_TOKENS 8
typedef struct map_line {
	const char *s;
	size_t len;
	size_t indent;              /* leading spaces and tabs */
	int ntok;
	const char *tok[MAX_TOKENS];
	size_t toklen[MAX_TOKENS];
} map_line;

typedef struct map_parser {
	xb_map *m;
	const char *name;
	const char *end;
	const char *next;       /* start of the next line */
	int lineno;
	int out;                /* current output section, -1 if none or skipped */
	bool out_nonalloc;      /* current output section holds no code (debug, comments) */
	long cur_input;         /* input that symbol lines belong to, -1 if none */
	uint64_t pending_fill;  /* *fill* bytes waiting for the next input section */
	bool seen_map;
	xb_err *err;
} map_parser;

static void split_line(map_line *l, const char *s, size_t len)
{
	l->s = s;
	l->len = len;
	l->ntok = 0;
	size_t i = 0;
	while (i < len && (s[i] == ' ' || s[i] == '\t'))
		i++;
	l->indent = i;
	while (i < len && l->ntok < MAX_TOKENS) {
		while (i < len && (s[i] == ' ' || s[i] == '\t'))
			i++;
		if (i >= len)
			break;
		size_t start = i;
		while (i < len && s[i] != ' ' && s[i] != '\t')
			i++;
		l->tok[l->ntok] = s + start;
		l->toklen[l->ntok] = i - start;
		l->ntok++;
	}
}

/* Reads the next line (without '\n' or a trailing '\r'); returns false at the end. */
static bool next_line(map_parser *p, const char **s, size_t *len)
{
	if (p->next >= p->end)
		return false;
	const char *start = p->next;
	const char *nl = memchr(start, '\n', (size_t)(p->end - start));
	const char *stop = nl ? nl : p->end;
	p->next = nl ? nl + 1 : p->end;
	*s = start;
	*len = (size_t)(stop - start);
	if (*len && start[*len - 1] == '\r')
		(*len)--;
	p->lineno++;
	return true;
}

static bool peek_line(const map_parser *p, map_line *l)
{
	if (p->next >= p->end)
		return false;
	const char *nl = memchr(p->next, '\n', (size_t)(p->end - p->next));
	size_t len = (size_t)((nl ? nl : p->end) - p->next);
	if (len && p->next[len - 1] == '\r')
		len--;
	split_line(l, p->next, len);
	return true;
}

/* 1: the token is not a number (no 0x); 0: *out holds it; -1: 0x followed by garbage. */
static int parse_hex(const char *t, size_t n, uint64_t *out)
{
	if (n < 2 || t[0] != '0' || (t[1] != 'x' && t[1] != 'X'))
		return 1;
	return xb_parse_hex(t + 2, n - 2, UINT64_MAX, out) == 0 ? 0 : -1;
}

static int bad_number(map_parser *p, const map_line *l, int i)
{
	return xb_fail(p->err, "%s:%d: malformed number '%.*s'", p->name, p->lineno,
		       (int)(l->toklen[i] > 40 ? 40 : l->toklen[i]), l->tok[i]);
}

/* Parses tokens i and i+1 as address and size. 1: they are not numbers; -1: error. */
static int parse_addr_size(map_parser *p, const map_line *l, int i, uint64_t *addr,
			   uint64_t *size)
{
	if (l->ntok < i + 2)
		return 1;
	int a = parse_hex(l->tok[i], l->toklen[i], addr);
	if (a < 0)
		return bad_number(p, l, i);
	if (a > 0)
		return 1;
	int b = parse_hex(l->tok[i + 1], l->toklen[i + 1], size);
	if (b < 0)
		return bad_number(p, l, i + 1);
	return b;
}

static bool tok_is(const map_line *l, int i, const char *s)
{
	return i < l->ntok && l->toklen[i] == strlen(s) && memcmp(l->tok[i], s, l->toklen[i]) == 0;
}

static bool starts_with(const char *s, size_t n, const char *prefix)
{
	size_t k = strlen(prefix);
	return n >= k && memcmp(s, prefix, k) == 0;
}

/* Output sections that never hold code: their inputs all sit at address 0 and would
 * overlap real code on chips with flash at 0. */
static bool section_is_nonalloc(const char *name)
{
	static const char *const prefixes[] = {
		".debug", ".zdebug", ".comment", ".ARM.attributes", ".stab", ".gnu.attributes",
		".note.GNU-stack", ".line", ".gnu_debuglink", ".riscv.attributes",
	};
	for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
		if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* A token of the next line continues a wrapped name when the line is indented and
 * starts with an address and a size. */
static bool is_continuation(const map_line *l)
{
	uint64_t a, b;
	return l->indent > 0 && l->ntok >= 2 && parse_hex(l->tok[0], l->toklen[0], &a) == 0 &&
	       parse_hex(l->tok[1], l->toklen[1], &b) == 0;
}

/* Joins a line holding only a name with the indented line after it that holds the
 * numbers ("name too long" wrapping). Returns true and fills *joined if it did. */
static bool join_wrapped(map_parser *p, const map_line *l, map_line *joined)
{
	map_line n;
	/* a section name never holds '(' or '=': such a lone token is a script statement */
	if (l->ntok != 1 || memchr(l->tok[0], '(', l->toklen[0]) ||
	    memchr(l->tok[0], '=', l->toklen[0]) || !peek_line(p, &n) || !is_continuation(&n))
		return false;
	const char *s;
	size_t len;
	next_line(p, &s, &len);
	*joined = n;
	/* shift the tokens right by one and put the name first */
	int keep = n.ntok < MAX_TOKENS ? n.ntok : MAX_TOKENS - 1;
	for (int i = keep; i > 0; i--) {
		joined->tok[i] = n.tok[i - 1];
		joined->toklen[i] = n.toklen[i - 1];
	}
	joined->tok[0] = l->tok[0];
	joined->toklen[0] = l->toklen[0];
	joined->ntok = keep + 1;
	joined->indent = l->indent;
	return true;
}

static int add_output(map_parser *p, const map_line *l)
{
	uint64_t addr, size;
	int r = parse_addr_size(p, l, 1, &addr, &size);
	if (r < 0)
		return -1;
	p->cur_input = -1;
	p->pending_fill = 0;
	if (r > 0) {
		/* not an output section we understand: do not attach inputs to the last one */
		p->out = -1;
		return 0;
	}
	uint64_t lma = addr;
	if (tok_is(l, 3, "load") && tok_is(l, 4, "address") && l->ntok >= 6) {
		int h = parse_hex(l->tok[5], l->toklen[5], &lma);
		if (h < 0)
			return bad_number(p, l, 5);
		if (h > 0)
			lma = addr;
	}
	xb_map *m = p->m;
	xb_grow(&m->outputs, &m->outputs_cap, m->noutputs + 1, sizeof *m->outputs);
	xb_map_output *o = &m->outputs[m->noutputs];
	o->name = xstrndup(l->tok[0], l->toklen[0]);
	o->addr = addr;
	o->size = size;
	o->lma = lma;
	p->out = (int)m->noutputs++;
	p->out_nonalloc = section_is_nonalloc(o->name);
	return 0;
}

/* "archive(member)" or an object path. */
static void split_file(const char *s, size_t n, char **archive, char **member)
{
	if (n >= 3 && s[n - 1] == ')') {
		const char *open = NULL;
		for (size_t i = n - 1; i > 0; i--) {
			if (s[i - 1] == '(') {
				open = s + i - 1;
				break;
			}
		}
		if (open && open > s) {
			*archive = xstrndup(s, (size_t)(open - s));
			*member = xstrndup(open + 1, (size_t)(s + n - 1 - open - 1));
			return;
		}
	}
	*archive = NULL;
	*member = xstrndup(s, n);
}

static int add_input(map_parser *p, const map_line *l)
{
	uint64_t addr, size;
	int r = parse_addr_size(p, l, 1, &addr, &size);
	if (r != 0)
		return r < 0 ? -1 : 0;
	p->cur_input = -1;
	if (p->out < 0 || p->out_nonalloc || size == 0)
		return 0;
	const char *file;
	size_t flen;
	if (l->ntok >= 4) {
		file = l->tok[3];
		const char *end = l->tok[l->ntok - 1] + l->toklen[l->ntok - 1];
		/* the file name may hold spaces ("linker stubs"): take the rest of its line */
		const char *line_end = file;
		while (line_end < p->end && *line_end != '\n' && *line_end != '\r')
			line_end++;
		if (line_end > end)
			end = line_end;
		while (end > file && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		flen = (size_t)(end - file);
	} else {
		file = "";
		flen = 0;
	}
	xb_map *m = p->m;
	xb_grow(&m->inputs, &m->inputs_cap, m->ninputs + 1, sizeof *m->inputs);
	xb_map_input *in = &m->inputs[m->ninputs];
	memset(in, 0, sizeof *in);
	in->section = xstrndup(l->tok[0], l->toklen[0]);
	split_file(file, flen, &in->archive, &in->member);
	in->addr = addr;
	in->size = size;
	in->fill_before = p->pending_fill > UINT32_MAX ? UINT32_MAX : (uint32_t)p->pending_fill;
	in->out_section = p->out;
	in->line = p->lineno;
	p->pending_fill = 0;
	p->cur_input = (long)m->ninputs++;
	return 0;
}

static int add_fill(map_parser *p, const map_line *l)
{
	uint64_t addr, size;
	int r = parse_addr_size(p, l, 1, &addr, &size);
	if (r != 0)
		return r < 0 ? -1 : 0;
	if (p->out < 0 || p->out_nonalloc)
		return 0;
	p->pending_fill += size;
	p->m->total_fill += size;
	return 0;
}

/* An indented line: a symbol ("0xADDR  name"), or a statement to skip. */
static int add_symbol(map_parser *p, const map_line *l)
{
	uint64_t addr;
	int h = parse_hex(l->tok[0], l->toklen[0], &addr);
	if (h < 0)
		return bad_number(p, l, 0);
	/* statements ("0xADDR  . = ALIGN (0x4)", "0xADDR 0x4 LONG ...", "(size before
	 * relaxing)") have more than one token after the address */
	if (h > 0 || l->ntok != 2 || p->cur_input < 0)
		return 0;
	char c = l->tok[1][0];
	if (c == '(' || c == '[' || c == '*' || memchr(l->tok[1], '=', l->toklen[1]))
		return 0;
	xb_map *m = p->m;
	xb_grow(&m->symbols, &m->symbols_cap, m->nsymbols + 1, sizeof *m->symbols);
	m->symbols[m->nsymbols++] = (xb_map_symbol){
		.name = xstrndup(l->tok[1], l->toklen[1]),
		.addr = addr,
		.input = (int)p->cur_input,
	};
	return 0;
}

static int parse_map_line(map_parser *p, const map_line *line)
{
	map_line joined;
	const map_line *l = line;
	if (l->ntok == 0)
		return 0;
	if (l->indent == 0) {
		static const char *const skip[] = {"LOAD", "START", "END", "OUTPUT(", "TARGET(",
						   "INSERT", "SEARCH_DIR(", "INPUT(", "GROUP("};
		for (size_t i = 0; i < sizeof skip / sizeof skip[0]; i++)
			if (starts_with(l->tok[0], l->toklen[0], skip[i]))
				return 0;
		if (join_wrapped(p, l, &joined))
			l = &joined;
		if (tok_is(l, 0, "/DISCARD/")) {
			p->out = -1;
			p->cur_input = -1;
			return 0;
		}
		return add_output(p, l);
	}
	if (l->indent == 1 && l->tok[0][0] != '*') {
		if (join_wrapped(p, l, &joined))
			l = &joined;
		return add_input(p, l);
	}
	if (l->indent == 1 && starts_with(l->tok[0], l->toklen[0], "*fill*"))
		return add_fill(p, l);
	if (l->indent == 1) /* input-section rules: " *(.text*)" */
		return 0;
	return add_symbol(p, l);
}

static int parse_memory_line(map_parser *p, const map_line *l)
{
	if (l->ntok < 3 || tok_is(l, 0, "Name") || l->tok[0][0] == '*')
		return 0;
	uint64_t origin, length;
	int r = parse_addr_size(p, l, 1, &origin, &length);
	if (r != 0)
		return r < 0 ? -1 : 0;
	xb_map *m = p->m;
	xb_grow(&m->regions, &m->regions_cap, m->nregions + 1, sizeof *m->regions);
	xb_map_region *g = &m->regions[m->nregions++];
	memset(g, 0, sizeof *g);
	g->name = xstrndup(l->tok[0], l->toklen[0]);
	g->origin = origin;
	g->length = length;
	if (l->ntok >= 4) {
		size_t n = l->toklen[3] < sizeof g->attributes - 1 ? l->toklen[3]
								   : sizeof g->attributes - 1;
		memcpy(g->attributes, l->tok[3], n);
	}
	return 0;
}

static bool heading_of(const char *s, size_t len, enum map_part *part)
{
	for (size_t i = 0; i < sizeof map_headings / sizeof map_headings[0]; i++) {
		size_t k = strlen(map_headings[i].heading);
		if (len >= k && memcmp(s, map_headings[i].heading, k) == 0) {
			*part = map_headings[i].part;
			return true;
		}
	}
	return false;
}

/* An LLVM lld map starts with a "VMA LMA Size Align Out In Symbol" header. */
static bool looks_like_lld(const char *text, size_t len)
{
	size_t i = 0;
	while (i < len && (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
		i++;
	return len - i >= 7 && memcmp(text + i, "VMA", 3) == 0 &&
	       memmem(text + i, len - i < 80 ? len - i : 80, "LMA", 3) != NULL;
}

int mapfile_parse(xb_map *m, const char *text, size_t len, const char *name, xb_err *err)
{
	memset(m, 0, sizeof *m);
	const char *nul = len ? memchr(text, 0, len) : NULL;
	if (nul) {
		int line = 1;
		for (const char *c = text; c < nul; c++)
			line += *c == '\n';
		return xb_fail(err, "%s:%d: binary data (a NUL byte); not a GNU ld map file", name, line);
	}
	m->path = xstrdup(name);
	map_parser p = {
		.m = m, .name = name, .end = text + len, .next = text,
		.out = -1, .cur_input = -1, .err = err,
	};
	enum map_part part = PART_NONE;
	const char *s;
	size_t n;
	while (part != PART_END && next_line(&p, &s, &n)) {
		enum map_part h;
		if (n && s[0] != ' ' && s[0] != '\t' && heading_of(s, n, &h)) {
			part = h;
			if (part == PART_MAP)
				p.seen_map = true;
			continue;
		}
		map_line l;
		split_line(&l, s, n);
		int r = 0;
		if (part == PART_MEMORY)
			r = parse_memory_line(&p, &l);
		else if (part == PART_MAP)
			r = parse_map_line(&p, &l);
		if (r < 0) {
			mapfile_free(m);
			return -1;
		}
	}
	if (!p.seen_map) {
		bool lld = looks_like_lld(text, len);
		mapfile_free(m);
		if (lld)
			return xb_fail(err, "%s: an LLVM lld map; xipbench reads GNU ld maps "
					    "(link with -fuse-ld=bfd)", name);
		return xb_fail(err, "%s: not a GNU ld map file (no \"Linker script and memory "
				    "map\" part)", name);
	}
	if (m->noutputs == 0) {
		mapfile_free(m);
		return xb_fail(err, "%s: the memory map lists no output sections", name);
	}
	mapfile_count_sections(m);
	return 0;
}

static const xb_map *count_map; /* qsort has no context argument */

static int by_section_eq(const xb_map *m, size_t a, size_t b)
{
	const char *x = m->inputs[a].section, *y = m->inputs[b].section;
	return strcmp(x ? x : "", y ? y : "") == 0;
}

static int by_section(const void *a, const void *b)
{
	const char *x = count_map->inputs[*(const size_t *)a].section;
	const char *y = count_map->inputs[*(const size_t *)b].section;
	return strcmp(x ? x : "", y ? y : "");
}

void mapfile_count_sections(xb_map *m)
{
	size_t *ix = xmalloc((m->ninputs + 1) * sizeof *ix);
	for (size_t i = 0; i < m->ninputs; i++)
		ix[i] = i;
	count_map = m;
	qsort(ix, m->ninputs, sizeof *ix, by_section);
	count_map = NULL;
	for (size_t i = 0; i < m->ninputs;) {
		size_t j = i + 1;
		while (j < m->ninputs && by_section_eq(m, ix[i], ix[j]))
			j++;
		for (size_t k = i; k < j; k++)
			m->inputs[ix[k]].same_section = (unsigned)(j - i);
		i = j;
	}
	free(ix);
}

int mapfile_load(xb_map *m, const char *path, xb_err *err)
{
	char *text;
	size_t len;
	memset(m, 0, sizeof *m);
	if (xb_read_file(path, &text, &len, err) != 0)
		return -1;
	int r = mapfile_parse(m, text, len, path, err);
	free(text);
	return r;
}

void mapfile_free(xb_map *m)
{
	for (size_t i = 0; i < m->ninputs; i++) {
		free(m->inputs[i].section);
		free(m->inputs[i].archive);
		free(m->inputs[i].member);
	}
	for (size_t i = 0; i < m->noutputs; i++)
		free(m->outputs[i].name);
	for (size_t i = 0; i < m->nsymbols; i++)
		free(m->symbols[i].name);
	for (size_t i = 0; i < m->nregions; i++)
		free(m->regions[i].name);
	free(m->inputs);
	free(m->outputs);
	free(m->symbols);
	free(m->regions);
	free(m->path);
	memset(m, 0, sizeof *m);
}

/* Inputs appear grouped by output section (out_section never decreases in map order)
 * and ascending in address within one: two binary searches per candidate output. */
long mapfile_input_at(const xb_map *m, uint64_t addr)
{
	for (size_t o = 0; o < m->noutputs; o++) {
		const xb_map_output *out = &m->outputs[o];
		if (addr < out->addr || addr - out->addr >= out->size)
			continue;
		size_t lo = 0, hi = m->ninputs;
		while (lo < hi) { /* first input of output o */
			size_t mid = lo + (hi - lo) / 2;
			if (m->inputs[mid].out_section < (int)o)
				lo = mid + 1;
			else
				hi = mid;
		}
		size_t first = lo;
		hi = m->ninputs;
		while (lo < hi) { /* first input past addr within output o */
			size_t mid = lo + (hi - lo) / 2;
			if (m->inputs[mid].out_section == (int)o && m->inputs[mid].addr <= addr)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > first) {
			const xb_map_input *in = &m->inputs[lo - 1];
			if (addr - in->addr < in->size)
				return (long)(lo - 1);
		}
	}
	return -1;
}

long mapfile_input_near(const xb_map *m, uint64_t addr, long *hint)
{
	for (long k = *hint; k >= 0 && k < *hint + 2 && (size_t)k < m->ninputs; k++) {
		const xb_map_input *in = &m->inputs[k];
		if (addr >= in->addr && addr - in->addr < in->size)
			return *hint = k;
	}
	long i = mapfile_input_at(m, addr);
	if (i >= 0)
		*hint = i;
	return i;
}

/* ---- library names ---------------------------------------------------------------
 * The rule, in order (docs/formats-groups.md, "Library names"):
 *  - an archive member is in the archive's library: the toolchain's archives by their
 *    usual name (toolchain_libs), a few Zephyr archives split by member (archive_members),
 *    any other archive by its base name without "lib" and ".a", "__" read as "/" and
 *    leading "../" dropped (Zephyr: lib..__modules__hal__nordic.a -> modules/hal/nordic);
 *  - a plain object: "lto" (LTO partition), "linker" (linker stubs), "crt" (the
 *    toolchain's startup objects, so its multilib folders never name a library); then
 *    the last known source tree in its path (pico-sdk components, TinyUSB, lwIP,
 *    CherryUSB, FreeRTOS ..., source_trees); then a CMake target's object
 *    (CMakeFiles/TARGET.dir/...) is "app", or "zephyr" for Zephyr's own link stages;
 *    then the nearest folder that names something (not src, build, obj ...), else
 *    "app". */

/* Toolchain archives keep their usual names whatever the build calls its own. */
static const struct {
	const char *archive; /* base name */
	const char *library;
} toolchain_libs[] = {
	{"libc.a", "libc"},
	{"libc_nano.a", "libc"},
	{"libg.a", "libc"},
	{"libg_nano.a", "libc"},
	{"libnosys.a", "libc"},
	{"librdimon.a", "libc"},
	{"librdimon_nano.a", "libc"},
	{"librdpmon.a", "libc"},
	{"libsemihost.a", "libc"},   /* picolibc */
	{"libdummyhost.a", "libc"},  /* picolibc */
	{"libm.a", "libm"},
	{"libm_nano.a", "libm"},
	{"libgcc.a", "libgcc"},
	{"libgcc_eh.a", "libgcc"},
	{"libgcov.a", "libgcc"},
	{"libatomic.a", "libgcc"},
	{"libssp.a", "libgcc"},
	{"libssp_nonshared.a", "libgcc"},
	{"libstdc++.a", "libstdc++"},
	{"libstdc++_nano.a", "libstdc++"},
	{"libsupc++.a", "libstdc++"},
	{"libsupc++_nano.a", "libstdc++"},
};

/* Zephyr builds some subsystems into one archive with others (zephyr_sources() into
 * libzephyr.a); their members name the folder they come from. */
static const struct {
	const char *archive;       /* base name */
	const char *member_prefix; /* of the member's base name */
	const char *library;
} archive_members[] = {
	{"libzephyr.a", "log_", "subsys/logging"}, /* log_core.c, log_backend_uart.c ... */
	{"libzephyr.a", "shell", "subsys/shell"},  /* shell.c, shell_uart.c ... */
	/* the USB device stack before device_next (its classes are libraries of their own) */
	{"libzephyr.a", "usb_device.", "subsys/usb/device"},
	{"libzephyr.a", "usb_descriptor.", "subsys/usb/device"},
	{"libzephyr.a", "usb_transfer.", "subsys/usb/device"},
	{"libzephyr.a", "usb_work_q.", "subsys/usb/device"},
	{"libzephyr.a", "cdc_acm.", "subsys/usb/device/class"},
	{"libsubsys__net.a", "buf", "subsys/net/buf"}, /* net_buf before Zephyr 4 */
};

/* Source trees that name their layers: a folder called SEGMENT (any case, optionally
 * with a version: lwip-2.1.3, FreeRTOS-Kernel-V11.1.0), followed by one of NEXT (any
 * folder if NULL). The library is NAME, plus "/" and the folder below it when layers is
 * set, "src" and "Source" skipped: .../lib/tinyusb/src/device/usbd.c -> tinyusb/device. */
static const struct {
	const char *segment, *name, *next;
	bool layers;
} source_trees[] = {
	{"tinyusb", "tinyusb", " src hw lib ", true},
	{"lwip", "lwip", " src contrib ", true},
	{"lwip-contrib", "lwip", NULL, true},
	{"cherryusb", "cherryusb", " core class port common osal platform third_party ", true},
	{"freertos-kernel", "freertos", NULL, true},
	{"freertos_kernel", "freertos", NULL, true},
	{"freertos", "freertos", " source ", true}, /* FreeRTOS/Source/tasks.c */
	{"cyw43-driver", "cyw43-driver", NULL, false},
	{"btstack", "btstack", NULL, false},
	{"mbedtls", "mbedtls", NULL, false},
};

/* pico-sdk (and pico-extras): src/PLATFORM/COMPONENT/..., COMPONENT with one of these
 * prefixes, so that an application's own src/common/util/ is not taken for one. */
static const char *const pico_platforms[] = {"rp2_common", "common", "rp2040", "rp2350",
					     "host"};
static const char *const pico_component_prefixes[] = {"hardware_", "pico_", "boot_", "cmsis",
						      "cyw43"};

/* Folders that say where a file is built or kept, not what it belongs to. */
static const char *const build_folders[] = {"build", "_build", "builds", "obj", "objs", "out",
					    "output", "bin", "debug", "release", "tmp"};
static const char *const source_folders[] = {".", "..", "__", "src", "source", "sources"};

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const char *base_of(const char *path)
{
	const char *b = path;
	for (const char *c = path; *c; c++)
		if (*c == '/' || *c == '\\')
			b = c + 1;
	return b;
}

static bool in_list(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcasecmp(s, list[i]) == 0)
			return true;
	return false;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static bool has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && strcasecmp(s + n - k, suffix) == 0;
}

/* seg is name in any case, or name, "-" or "_" and a version: a digit, "v" and a digit,
 * "master" or "main" (TinyUSB, tinyusb-0.17.0, FreeRTOS-Kernel-V11.1.0, lwip-master). */
static bool segment_is(const char *seg, const char *name)
{
	size_t n = strlen(name);
	if (strncasecmp(seg, name, n) != 0)
		return false;
	const char *v = seg + n;
	if (!*v)
		return true;
	if (*v != '-' && *v != '_')
		return false;
	v++;
	if ((*v == 'v' || *v == 'V') && isdigit((unsigned char)v[1]))
		v++;
	return isdigit((unsigned char)*v) || strcasecmp(v, "master") == 0 ||
	       strcasecmp(v, "main") == 0;
}

/* " a b c " holds word (any case). */
static bool word_in(const char *words, const char *word)
{
	size_t n = strlen(word);
	for (const char *w = strchr(words, ' '); w && w[1]; w = strchr(w + 1, ' '))
		if (strncasecmp(w + 1, word, n) == 0 && w[1 + n] == ' ')
			return true;
	return false;
}

static char *archive_library(const char *archive, const char *member)
{
	const char *base = base_of(archive);
	for (size_t i = 0; i < NELEMS(toolchain_libs); i++)
		if (strcmp(base, toolchain_libs[i].archive) == 0)
			return xstrdup(toolchain_libs[i].library);
	const char *mbase = member ? base_of(member) : "";
	for (size_t i = 0; i < NELEMS(archive_members); i++)
		if (strcmp(base, archive_members[i].archive) == 0 &&
		    has_prefix(mbase, archive_members[i].member_prefix))
			return xstrdup(archive_members[i].library);
	size_t n = strlen(base);
	if (n > 2 && strcmp(base + n - 2, ".a") == 0)
		n -= 2;
	else if (n > 4 && strcmp(base + n - 4, ".lib") == 0)
		n -= 4;
	if (n > 3 && strncmp(base, "lib", 3) == 0) {
		base += 3;
		n -= 3;
	}
	/* Zephyr names an archive after its folder relative to ZEPHYR_BASE, "__" for "/":
	 * libsubsys__net__ip.a, lib..__modules__hal__stm32__stm32cube.a */
	xb_strbuf sb = {0};
	for (size_t i = 0; i < n; i++) {
		if (base[i] == '_' && i + 1 < n && base[i + 1] == '_') {
			sb_append(&sb, "/", 1);
			i++;
		} else {
			sb_append(&sb, base + i, 1);
		}
	}
	if (!sb.buf)
		return xstrdup("unknown");
	const char *name = sb.buf;
	while (has_prefix(name, "../") || has_prefix(name, "./"))
		name = strchr(name, '/') + 1;
	char *lib = xstrdup(*name ? name : sb.buf);
	sb_free(&sb);
	return lib;
}

/* A path split at "/" and "\" into its folders and file, empty parts dropped. */
typedef struct path_parts {
	char *buf;
	char **seg;
	size_t n; /* seg[n - 1] is the file */
} path_parts;

static void split_path(path_parts *pp, const char *path)
{
	pp->buf = xstrdup(path);
	pp->seg = xmalloc((strlen(path) / 2 + 2) * sizeof *pp->seg);
	pp->n = 0;
	char *s = pp->buf;
	for (char *c = pp->buf;; c++) {
		bool end = !*c;
		if (end || *c == '/' || *c == '\\') {
			*c = 0;
			if (*s)
				pp->seg[pp->n++] = s;
			s = c + 1;
		}
		if (end)
			break;
	}
}

/* GCC's crti.o, crtbegin.o ... anywhere; any object in the toolchain's own folders
 * (.../lib/gcc/..., arm-none-eabi/lib/..., picolibc/..., newlib/...): newlib's and
 * picolibc's crt0.o, rdimon-crt0.o, cpu-init/rdimon-aem.o. */
static bool toolchain_object(const path_parts *pp)
{
	const char *file = pp->seg[pp->n - 1];
	const char *dot = strchr(file, '.');
	if (has_prefix(file, "crt") && dot && strcmp(dot, ".o") == 0 &&
	    (strcmp(file, "crti.o") == 0 || strcmp(file, "crtn.o") == 0 ||
	     has_prefix(file, "crtbegin") || has_prefix(file, "crtend") ||
	     has_prefix(file, "crtfastmath") || has_prefix(file, "crtprec")))
		return true;
	bool triple = false;
	for (size_t i = 0; i + 1 < pp->n; i++) {
		const char *s = pp->seg[i];
		if (strcmp(s, "lib") == 0 && i + 2 < pp->n && strcmp(pp->seg[i + 1], "gcc") == 0)
			return true;
		if (strcmp(s, "picolibc") == 0 || strcmp(s, "newlib") == 0)
			return true;
		if (triple && strcmp(s, "lib") == 0)
			return true;
		if (strchr(s, '-') &&
		    (has_suffix(s, "-eabi") || has_suffix(s, "-eabihf") || has_suffix(s, "-elf")))
			triple = true;
	}
	return false;
}

/* pico-sdk's src/rp2_common/hardware_gpio/gpio.c at folder i ("src"): hardware_gpio. */
static const char *pico_component(const path_parts *pp, size_t i)
{
	if (i + 3 >= pp->n || strcasecmp(pp->seg[i], "src") != 0 ||
	    !in_list(pp->seg[i + 1], pico_platforms, NELEMS(pico_platforms)))
		return NULL;
	const char *comp = pp->seg[i + 2];
	for (size_t k = 0; k < NELEMS(pico_component_prefixes); k++)
		if (has_prefix(comp, pico_component_prefixes[k]))
			return comp;
	return NULL;
}

/* A source tree at folder i: its library, a new string, or NULL. */
static char *source_tree(const path_parts *pp, size_t i)
{
	for (size_t t = 0; t < NELEMS(source_trees); t++) {
		if (!segment_is(pp->seg[i], source_trees[t].segment))
			continue;
		size_t j = i + 1; /* the folder below, if j + 1 < n */
		if (source_trees[t].next &&
		    (j + 1 >= pp->n || !word_in(source_trees[t].next, pp->seg[j])))
			continue;
		if (j + 1 < pp->n && (strcasecmp(pp->seg[j], "src") == 0 ||
				      strcasecmp(pp->seg[j], "source") == 0))
			j++;
		if (source_trees[t].layers && j + 1 < pp->n)
			return xasprintf("%s/%s", source_trees[t].name, pp->seg[j]);
		return xstrdup(source_trees[t].name);
	}
	return NULL;
}

/* The known source tree nearest the file (a pico-sdk component inside FreeRTOS's CMake
 * folder is the component), or NULL. */
static char *known_source(const path_parts *pp)
{
	for (size_t i = pp->n - 1; i-- > 0;) {
		const char *comp = pico_component(pp, i);
		if (comp)
			return xstrdup(comp);
		char *lib = source_tree(pp, i);
		if (lib)
			return lib;
	}
	return NULL;
}

/* CMake's [BINDIR/]CMakeFiles/TARGET.dir/SOURCE.obj: the target's own sources are the
 * application, except in Zephyr's link stages (zephyr/CMakeFiles/zephyr_final.dir). */
static char *cmake_target(const path_parts *pp)
{
	for (size_t i = pp->n - 1; i-- > 1;) {
		if (strcmp(pp->seg[i - 1], "CMakeFiles") != 0 || !has_suffix(pp->seg[i], ".dir"))
			continue;
		const char *t = pp->seg[i];
		if ((i >= 2 && strcmp(pp->seg[i - 2], "zephyr") == 0) ||
		    has_prefix(t, "zephyr_pre") || strcmp(t, "zephyr_final.dir") == 0)
			return xstrdup("zephyr");
		return xstrdup("app");
	}
	return NULL;
}

/* Multilib folders (thumb/v6-m/nofp, arm/v5te/hard, thumb/v7e-m+fp/softfp) name no
 * library. */
static bool multilib_folder(const char *s)
{
	static const char *const names[] = {"thumb", "arm", "nofp", "hard", "soft", "softfp"};
	return in_list(s, names, NELEMS(names)) ||
	       ((s[0] == 'v' || s[0] == 'V') && isdigit((unsigned char)s[1])) || strchr(s, '+');
}

/* The nearest folder that names something; at a build folder or the top, "app". */
static char *folder_library(const path_parts *pp)
{
	for (size_t i = pp->n - 1; i-- > 0;) {
		const char *s = pp->seg[i];
		if (in_list(s, build_folders, NELEMS(build_folders)) || has_suffix(s, ":"))
			break;
		if (in_list(s, source_folders, NELEMS(source_folders)) || multilib_folder(s))
			continue;
		return xstrdup(s);
	}
	return xstrdup("app");
}

static char *object_library(const char *member)
{
	if (strstr(member, ".ltrans"))
		return xstrdup("lto"); /* LTO's partitions mix every library */
	if (strcmp(member, "linker stubs") == 0)
		return xstrdup("linker");
	path_parts pp;
	split_path(&pp, member);
	char *lib = NULL;
	if (pp.n == 0)
		lib = xstrdup("unknown");
	else if (toolchain_object(&pp))
		lib = xstrdup("crt");
	else if (!(lib = known_source(&pp)) && !(lib = cmake_target(&pp)))
		lib = folder_library(&pp);
	free(pp.seg);
	free(pp.buf);
	return lib;
}

char *mapfile_library_name(const char *archive, const char *member)
{
	if (archive && *archive)
		return archive_library(archive, member);
	if (member && *member)
		return object_library(member);
	return xstrdup("unknown");
}
