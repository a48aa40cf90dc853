/* mapfile: reads GNU ld map files into output sections, input sections, fill, symbols. */
#include "mapfile.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

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
	return 0;
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

/* Toolchain libraries keep their usual names whatever the build calls its own. */
static const struct {
	const char *archive; /* base name */
	const char *library;
} toolchain_libs[] = {
	{"libc.a", "libc"},      {"libc_nano.a", "libc"}, {"libg.a", "libc"},
	{"libg_nano.a", "libc"}, {"libnosys.a", "libc"},  {"libsemihost.a", "libc"},
	{"libm.a", "libm"},      {"libgcc.a", "libgcc"},  {"libgcc_eh.a", "libgcc"},
	{"libstdc++.a", "libstdc++"}, {"libstdc++_nano.a", "libstdc++"},
	{"libsupc++.a", "libstdc++"}, {"libsupc++_nano.a", "libstdc++"},
};

/* pico-sdk source folders whose next folder names a component (hardware_gpio ...). */
static const char *const sdk_component_roots[] = {
	"/src/rp2_common/", "/src/common/", "/src/rp2040/", "/src/rp2350/", "/src/host/",
	"/src/boards/", "/pico-sdk/lib/",
};

static const char *base_of(const char *path)
{
	const char *b = path;
	for (const char *c = path; *c; c++)
		if (*c == '/' || *c == '\\')
			b = c + 1;
	return b;
}

static char *archive_library(const char *archive)
{
	const char *base = base_of(archive);
	for (size_t i = 0; i < sizeof toolchain_libs / sizeof toolchain_libs[0]; i++)
		if (strcmp(base, toolchain_libs[i].archive) == 0)
			return xstrdup(toolchain_libs[i].library);
	size_t n = strlen(base);
	if (n > 2 && strcmp(base + n - 2, ".a") == 0)
		n -= 2;
	else if (n > 4 && strcmp(base + n - 4, ".lib") == 0)
		n -= 4;
	if (n > 3 && strncmp(base, "lib", 3) == 0) {
		base += 3;
		n -= 3;
	}
	/* Zephyr names an archive after its folder with "__" for "/" */
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
	return sb.buf;
}

static char *object_library(const char *member)
{
	if (strstr(member, ".ltrans"))
		return xstrdup("lto"); /* LTO's partitions mix every library */
	if (strcmp(member, "linker stubs") == 0)
		return xstrdup("linker");
	char *path = xstrdup(member);
	for (char *c = path; *c; c++)
		if (*c == '\\')
			*c = '/';
	char *lib = NULL;
	for (size_t i = 0; !lib && i < sizeof sdk_component_roots / sizeof sdk_component_roots[0];
	     i++) {
		char *at = strstr(path, sdk_component_roots[i]);
		if (!at)
			continue;
		char *comp = at + strlen(sdk_component_roots[i]);
		char *slash = strchr(comp, '/');
		if (slash && slash > comp)
			lib = xstrndup(comp, (size_t)(slash - comp));
	}
	if (!lib) {
		char *slash = strrchr(path, '/');
		if (slash && slash > path) {
			*slash = 0;
			const char *folder = base_of(path);
			size_t n = strlen(folder);
			/* CMake: CMakeFiles/TARGET.dir/file.c.obj belongs to TARGET */
			if (n > 4 && strcmp(folder + n - 4, ".dir") == 0)
				n -= 4;
			if (n > 0 && strcmp(folder, ".") != 0 && strcmp(folder, "..") != 0)
				lib = xstrndup(folder, n);
		}
	}
	if (!lib) {
		const char *b = base_of(member);
		const char *dot = strchr(b, '.');
		size_t n = dot ? (size_t)(dot - b) : strlen(b);
		lib = n ? xstrndup(b, n) : xstrdup("unknown");
	}
	free(path);
	return lib;
}

char *mapfile_library_name(const char *archive, const char *member)
{
	if (archive && *archive)
		return archive_library(archive);
	if (member && *member)
		return object_library(member);
	return xstrdup("unknown");
}
