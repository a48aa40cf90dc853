/* layout: layouts, their files, the addresses GNU ld will give under a layout, and traces
 * moved to those addresses. */
#include "layout.h"
#include "buildsys.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define NO_OFFSET UINT32_MAX

void layout_init(xb_layout *l)
{
	memset(l, 0, sizeof *l);
	strcpy(l->strategy, "stock");
}

void layout_free(xb_layout *l)
{
	free(l->e);
	free(l->refused);
	free(l->pins);
	memset(l, 0, sizeof *l);
}

void layout_add(xb_layout *l, int func, enum xb_place place, uint32_t way_offset)
{
	xb_grow(&l->e, &l->cap, l->n + 1, sizeof *l->e);
	l->e[l->n++] = (xb_layout_entry){.func = func, .place = place, .way_offset = way_offset};
}

void layout_add_pin(xb_layout *l, int func)
{
	for (size_t i = 0; i < l->npins; i++)
		if (l->pins[i] == func)
			return;
	xb_grow(&l->pins, &l->pins_cap, l->npins + 1, sizeof *l->pins);
	l->pins[l->npins++] = func;
}

const char *layout_place_name(enum xb_place p)
{
	switch (p) {
	case XB_PLACE_DEFAULT: return "default";
	case XB_PLACE_HOT: return "hot";
	case XB_PLACE_COLOUR: return "colour";
	case XB_PLACE_SRAM: return "sram";
	case XB_PLACE_NOALLOC: return "noalloc";
	}
	return "?";
}

/* ---- layout.txt ---- */

int layout_write_file(const xb_layout *l, const xb_image *img, const char *path, xb_err *err)
{
	xb_strbuf sb = {0};
	sb_printf(&sb, "# xipbench layout (strategy %s) for %s\n", l->strategy,
		  img->path ? img->path : "?");
	sb_puts(&sb, "# hot NAME | colour NAME WAY_OFFSET | sram NAME | noalloc NAME, in placement "
		"order; pin NAME\n");
	sb_printf(&sb, "strategy %s\n", l->strategy);
	for (size_t i = 0; i < l->nrefused; i++) {
		char *q = image_qualified_name(img, &img->funcs[l->refused[i].func]);
		sb_printf(&sb, "# left in flash: %s: %s\n", q, l->refused[i].why);
		free(q);
	}
	for (size_t i = 0; i < l->n; i++) {
		const xb_layout_entry *e = &l->e[i];
		if (e->func < 0 || (size_t)e->func >= img->nfuncs)
			continue;
		char *q = image_qualified_name(img, &img->funcs[e->func]);
		if (e->place == XB_PLACE_COLOUR)
			sb_printf(&sb, "colour %s 0x%04x\n", q, e->way_offset);
		else
			sb_printf(&sb, "%s %s\n", layout_place_name(e->place), q);
		free(q);
	}
	for (size_t i = 0; i < l->npins; i++) {
		if (l->pins[i] < 0 || (size_t)l->pins[i] >= img->nfuncs)
			continue;
		char *q = image_qualified_name(img, &img->funcs[l->pins[i]]);
		sb_printf(&sb, "pin %s\n", q);
		free(q);
	}
	int rc = xb_write_file_atomic(path, sb.buf, sb.len, err);
	sb_free(&sb);
	return rc;
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int layout_read_file(xb_layout *l, const xb_image *img, const char *path, xb_err *err)
{
	char *text;
	size_t len;
	if (xb_read_file(path, &text, &len, err) != 0)
		return -1;
	int rc = layout_parse(l, img, text, len, path, err);
	free(text);
	return rc;
}

/* The next line of text at *cursor, cut in place and without its '#' comment; counts it in
 * *lineno. NULL after the last. */
static char *next_line(char **cursor, int *lineno)
{
	char *line = *cursor;
	if (!line)
		return NULL;
	char *nl = strchr(line, '\n');
	*cursor = nl ? nl + 1 : NULL;
	if (nl)
		*nl = 0;
	(*lineno)++;
	char *hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	return line;
}

/* Splits one line into at most max words (spaces and tabs); returns the count, or -1 when
 * there are more. */
static int split_words(char *line, char **w, int max)
{
	int n = 0;
	char *save = NULL;
	for (char *t = strtok_r(line, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (n == max)
			return -1;
		w[n++] = t;
	}
	return n;
}

int layout_parse(xb_layout *l, const xb_image *img, const char *data, size_t len,
		 const char *name, xb_err *err)
{
	if (memchr(data, 0, len))
		return xb_fail(err, "%s: not a layout file (binary data)", name);
	char *text = xstrndup(data, len);
	/* "qualified-name\0index" strings, sorted, for a binary search per line */
	char **names = xcalloc(img->nfuncs ? img->nfuncs : 1, sizeof *names);
	for (size_t i = 0; i < img->nfuncs; i++) {
		char *q = image_qualified_name(img, &img->funcs[i]);
		names[i] = xasprintf("%s%c%zu", q, 0, i);
		free(q);
	}
	qsort(names, img->nfuncs, sizeof *names, name_cmp);

	xb_layout tmp;
	layout_init(&tmp);
	int rc = 0, lineno = 0;
	char *cursor = text;
	for (char *line; (line = next_line(&cursor, &lineno)) != NULL;) {
		char *w[3];
		int nw = split_words(line, w, 3);
		if (nw < 0) {
			rc = xb_fail(err, "%s:%d: too many words", name, lineno);
			break;
		}
		if (nw == 0)
			continue;
		if (strcmp(w[0], "strategy") == 0 && nw == 2) {
			snprintf(tmp.strategy, sizeof tmp.strategy, "%s", w[1]);
			continue;
		}
		enum xb_place place = XB_PLACE_DEFAULT;
		uint64_t off = 0;
		int pin = 0;
		if (strcmp(w[0], "pin") == 0 && nw == 2)
			pin = 1;
		else if (strcmp(w[0], "hot") == 0 && nw == 2)
			place = XB_PLACE_HOT;
		else if (strcmp(w[0], "sram") == 0 && nw == 2)
			place = XB_PLACE_SRAM;
		else if (strcmp(w[0], "noalloc") == 0 && nw == 2)
			place = XB_PLACE_NOALLOC;
		else if (strcmp(w[0], "colour") == 0 && nw == 3) {
			place = XB_PLACE_COLOUR;
			if (xb_parse_u64(w[2], &off) != 0 || off > UINT32_MAX) {
				rc = xb_fail(err, "%s:%d: bad way offset '%s'", name, lineno, w[2]);
				break;
			}
		} else {
			rc = xb_fail(err, "%s:%d: expected 'hot NAME', 'colour NAME OFFSET', 'sram NAME', "
				     "'noalloc NAME' or 'pin NAME'", name, lineno);
			break;
		}
		char *key = w[1];
		char **hit = bsearch(&key, names, img->nfuncs, sizeof *names, name_cmp);
		if (!hit) {
			rc = xb_fail(err, "%s:%d: no function '%s' in %s", name, lineno, w[1],
				     img->path ? img->path : "the image");
			break;
		}
		int f = (int)strtoul(*hit + strlen(*hit) + 1, NULL, 10);
		if (img->funcs[f].alias_of >= 0)
			f = img->funcs[f].alias_of;
		if (pin)
			layout_add_pin(&tmp, f);
		else
			layout_add(&tmp, f, place, (uint32_t)off);
	}
	for (size_t i = 0; i < img->nfuncs; i++)
		free(names[i]);
	free(names);
	free(text);
	if (rc != 0) {
		layout_free(&tmp);
		return rc;
	}
	layout_free(l);
	*l = tmp;
	return 0;
}

/* ---- name lists ---- */

void layout_names_free(xb_name_list *nl)
{
	free(nl->func);
	for (size_t i = 0; i < nl->nunknown; i++)
		free(nl->unknown[i]);
	free(nl->unknown);
	for (size_t i = 0; i < nl->nambiguous; i++)
		free(nl->ambiguous[i]);
	free(nl->ambiguous);
	memset(nl, 0, sizeof *nl);
}

static const char *path_base_name(const char *p)
{
	const char *slash = strrchr(p, '/');
	return slash ? slash + 1 : p;
}

/* Whether a file written in a name list (a base name or a full path) is path. */
static int names_file(const char *written, const char *path)
{
	return path && (strcmp(written, path) == 0 || strcmp(written, path_base_name(path)) == 0);
}

static int root_of(const xb_image *img, size_t i)
{
	return img->funcs[i].alias_of >= 0 ? img->funcs[i].alias_of : (int)i;
}

/* The function "archive:member(section)" or "object(section)" names: 0 with *func set, 1
 * when nothing matches, 2 when several input sections do. first_of_input: per map input,
 * its first function (-1 if none). */
static int names_match_qualified(const xb_image *img, const int *first_of_input, char *s,
				 int *func)
{
	char *open = strchr(s, '(');
	size_t len = strlen(s);
	*open = 0;
	s[len - 1] = 0;
	const char *section = open + 1;
	char *colon = strrchr(s, ':');
	const char *archive = colon ? s : NULL, *member = colon ? colon + 1 : s;
	if (colon)
		*colon = 0;
	int found = -1, rc = 1;
	for (size_t i = 0; i < img->map.ninputs && rc != 2; i++) {
		const xb_map_input *in = &img->map.inputs[i];
		if (first_of_input[i] < 0 || !in->section || strcmp(in->section, section) != 0 ||
		    !names_file(member, in->member) ||
		    (archive ? !names_file(archive, in->archive) : in->archive != NULL))
			continue;
		if (found >= 0 && found != first_of_input[i])
			rc = 2;
		else {
			found = first_of_input[i];
			rc = 0;
		}
	}
	*func = found;
	return rc;
}

/* The function a plain name names, by name, else by name without clone/LTO suffixes: 0
 * with *func set, 1 when nothing matches, 2 when several functions do. */
static int names_match_plain(const xb_image *img, const char *s, int *func)
{
	int found = -1;
	for (size_t i = 0; i < img->nfuncs; i++) {
		if (!img->funcs[i].name || strcmp(img->funcs[i].name, s) != 0)
			continue;
		if (found >= 0 && found != root_of(img, i))
			return 2;
		found = root_of(img, i);
	}
	if (found < 0) {
		size_t at;
		char *base = image_base_name(s, &at);
		for (size_t i = 0; i < img->nfuncs; i++) {
			if (!img->funcs[i].base_name || strcmp(img->funcs[i].base_name, base) != 0)
				continue;
			if (found >= 0 && found != root_of(img, i)) {
				free(base);
				return 2;
			}
			found = root_of(img, i);
		}
		free(base);
	}
	*func = found;
	return found < 0;
}

static void names_push(char ***v, size_t *n, size_t *cap, const char *s)
{
	xb_grow(v, cap, *n + 1, sizeof **v);
	(*v)[(*n)++] = xstrdup(s);
}

int layout_names_parse(xb_name_list *out, const xb_image *img, const char *data, size_t len,
		       const char *name, xb_err *err)
{
	memset(out, 0, sizeof *out);
	if (memchr(data, 0, len))
		return xb_fail(err, "%s: not a name list (binary data)", name);
	char *text = xstrndup(data, len);
	int *first_of_input = xmalloc((img->map.ninputs + 1) * sizeof *first_of_input);
	for (size_t i = 0; i < img->map.ninputs; i++)
		first_of_input[i] = -1;
	for (size_t i = img->nfuncs; i-- > 0;)
		if (img->funcs[i].alias_of < 0 && img->funcs[i].input >= 0 &&
		    (size_t)img->funcs[i].input < img->map.ninputs)
			first_of_input[img->funcs[i].input] = (int)i;
	bool *seen = xcalloc(img->nfuncs + 1, sizeof *seen);
	int rc = 0, lineno = 0;
	char *cursor = text;
	for (char *line; (line = next_line(&cursor, &lineno)) != NULL;) {
		char *w[1];
		int nw = split_words(line, w, 1);
		if (nw < 0) {
			rc = xb_fail(err, "%s:%d: one name per line (names hold no spaces)", name,
				     lineno);
			break;
		}
		if (nw == 0)
			continue;
		char *copy = xstrdup(w[0]);
		size_t n = strlen(copy);
		int f = -1;
		int m = n > 2 && copy[n - 1] == ')' && strchr(copy, '(') && img->has_map
				? names_match_qualified(img, first_of_input, copy, &f)
				: names_match_plain(img, w[0], &f);
		free(copy);
		if (m == 1)
			names_push(&out->unknown, &out->nunknown, &out->unknown_cap, w[0]);
		else if (m == 2)
			names_push(&out->ambiguous, &out->nambiguous, &out->ambiguous_cap, w[0]);
		else if (!seen[f]) {
			seen[f] = true;
			xb_grow(&out->func, &out->cap, out->n + 1, sizeof *out->func);
			out->func[out->n++] = f;
		}
	}
	free(seen);
	free(first_of_input);
	free(text);
	if (rc != 0)
		layout_names_free(out);
	return rc;
}

int layout_names_read_file(xb_name_list *out, const xb_image *img, const char *path,
			   xb_err *err)
{
	char *text;
	size_t len;
	memset(out, 0, sizeof *out);
	if (xb_read_file(path, &text, &len, err) != 0)
		return -1;
	int rc = layout_names_parse(out, img, text, len, path, err);
	free(text);
	return rc;
}

/* ---- placement ---- */

static uint32_t align_up(uint32_t v, uint32_t a)
{
	return a > 1 ? (v + a - 1) & ~(a - 1) : v;
}

/* The alignment a script statement such as `. = ALIGN(B)` must have had to put a section
 * at addr right after prev_end, when the section's own alignment does not explain the gap;
 * 0 when no power of two up to 4 KB explains it (a fixed gap). */
static uint32_t barrier_align(uint32_t prev_end, uint32_t addr, uint32_t align)
{
	for (uint32_t b = align ? align : 1; b <= 4096; b <<= 1)
		if (align_up(prev_end, b) == addr)
			return b;
	return 0;
}

/* GNU ld aligns a stub section of long-branch veneers to 8 bytes (elf32-arm.c makes
 * stub sections with alignment power 3). */
#define STUB_ALIGN 8u

/* The load address of the no-allocate section follows the flash before it at this
 * alignment (the script's `__xipbench_noalloc_load = ALIGN(8);`, docs/formats-snippets.md). */
#define NOALLOC_ALIGN 8u

typedef struct place_ctx {
	const xb_image *img;
	const xb_target *tg;
	int8_t *moved;          /* per map input: 1 if a layout entry moves it */
	int8_t *is_code;        /* per map input: holds a function */
	uint32_t *new_in;       /* per map input: new address */
	uint32_t way_mask;
	uint32_t pad_total;
	uint32_t *out_size;     /* per map output: size after the layout */
	uint32_t *out_at;       /* per map output: address after the layout */
	uint32_t *out_load;     /* per map output: load address after the layout */
	uint32_t *stub_size;    /* per map output: bytes of veneers in its stub section */
	uint32_t *stub_at;      /* per map output: where its stub section went */
	/* the no-allocate section: run through a flash alias, loaded in flash (-1: none) */
	int na_out;
	uint32_t na_at;         /* its insertion point (an alias address) */
	const int *na_block;    /* the inputs placed there, in order */
	size_t nna;
	bool empty_ok;          /* count empty output sections (map only) too */
	/* Zephyr's code relocation (zephyr_code_relocate): a new output section, first in
	 * RAM, loaded in flash right after rom_start (-1: not used) */
	int reloc_after;        /* the flash output its load image follows (rom_start) */
	uint32_t reloc_origin;  /* the RAM region's origin: where the section starts */
	uint32_t reloc_end;     /* its end in RAM under the layout */
	uint32_t reloc_load;    /* its load address under the layout */
} place_ctx;

static const xb_section *elf_section_named(const xb_image *img, const char *name)
{
	for (size_t i = 0; i < img->nsections; i++)
		if (strcmp(img->sections[i].name, name) == 0)
			return &img->sections[i];
	return NULL;
}

/* Where an output section sits in a region: by its address, or for a section that runs
 * from RAM but is loaded from flash (.data, RAM functions), by its load image in flash. */
static int output_in_region(const place_ctx *c, int i, enum xb_region_kind region,
			    uint32_t *at, int *load_image)
{
	const xb_map_output *o = &c->img->map.outputs[i];
	if (i == c->na_out) {
		/* runs through an alias of flash, laid out with the flash its load image is in
		 * (the stock build's empty section is in the map only) */
		if (region != XB_REGION_FLASH)
			return 0;
		*at = (uint32_t)o->lma;
		*load_image = 2;
		return 1;
	}
	const xb_section *s = elf_section_named(c->img, o->name);
	/* an empty output section is in the map only (a stock build's empty RAM function
	 * section, where the layout's fragment goes) */
	if (s ? !(s->flags & 2 /* SHF_ALLOC */) : o->size != 0 || !c->empty_ok)
		return 0;
	const xb_region *r = target_region_of(c->tg, (uint32_t)o->addr);
	if (r && r->kind == region) {
		*at = (uint32_t)o->addr;
		*load_image = 0;
		return 1;
	}
	const xb_region *lr = target_region_of(c->tg, (uint32_t)o->lma);
	if (o->lma != o->addr && (!s || s->type != 8 /* SHT_NOBITS */) && lr && lr->kind == region) {
		*at = (uint32_t)o->lma;
		*load_image = 1;
		return 1;
	}
	return 0;
}

typedef struct region_out {
	int out;
	uint32_t at;
	int load_image;
} region_out;

/* Address order; at one address (empty sections), the sections that run there, then the
 * no-allocate section's load image, then other load images: the script puts the
 * no-allocate section's load image after the read-only sections and before .data's. */
static int region_out_before(const region_out *a, const region_out *b)
{
	static const int rank[3] = {0, 2, 1};
	if (a->at != b->at)
		return a->at < b->at;
	return rank[a->load_image] < rank[b->load_image];
}

/* Map outputs that occupy memory of a region in the image, sorted by address. */
static size_t region_outputs(const place_ctx *c, enum xb_region_kind region, region_out *v)
{
	const xb_map *m = &c->img->map;
	size_t n = 0;
	for (size_t i = 0; i < m->noutputs; i++) {
		region_out r = {.out = (int)i};
		if (!output_in_region(c, (int)i, region, &r.at, &r.load_image))
			continue;
		size_t j = n++;
		while (j > 0 && region_out_before(&r, &v[j - 1])) {
			v[j] = v[j - 1];
			j--;
		}
		v[j] = r;
	}
	return n;
}

/* The output of a region that holds the insertion point at (-1 if none). */
static int output_holding(const place_ctx *c, enum xb_region_kind region, uint32_t at)
{
	const xb_map *m = &c->img->map;
	region_out *outs = xmalloc((m->noutputs + 1) * sizeof *outs);
	size_t nouts = region_outputs(c, region, outs);
	int found = -1;
	for (size_t k = 0; k < nouts && found < 0; k++)
		if (!outs[k].load_image && at >= outs[k].at &&
		    at <= outs[k].at + m->outputs[outs[k].out].size)
			found = outs[k].out;
	free(outs);
	return found;
}

static int input_addr_cmp(const void *a, const void *b, void *arg)
{
	const xb_map *m = arg;
	const xb_map_input *x = &m->inputs[*(const int *)a], *y = &m->inputs[*(const int *)b];
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return *(const int *)a - *(const int *)b;
}

static uint32_t place_stub(place_ctx *c, int out, uint32_t cur)
{
	cur = align_up(cur, STUB_ALIGN);
	c->stub_at[out] = cur;
	return cur + c->stub_size[out];
}

/* The input a stub section follows: the last input holding code in the new order (the
 * remaining inputs, then the block); -2 for "where the block starts" when neither holds
 * code; -1 when the output has no stub section. */
static int stub_follows(const place_ctx *c, int out, const int *ins, size_t n,
			uint32_t insert_at, const int *block, size_t nblock)
{
	if (!c->stub_size[out])
		return -1;
	const xb_map *m = &c->img->map;
	for (size_t k = n; k-- > 0;)
		if (m->inputs[ins[k]].addr >= insert_at && !c->moved[ins[k]] && c->is_code[ins[k]])
			return ins[k];
	for (size_t k = nblock; k-- > 0;)
		if (c->is_code[block[k]])
			return block[k];
	return -2;
}

/* Lays out one output section that starts `shift` bytes from where it was: inputs before
 * the insertion point keep their place (shifted), then the block of listed inputs (with
 * colouring padding), then the remaining inputs in their original order with their own
 * alignment and the script's alignment barriers inferred from the original gaps; the stub
 * section of veneers after the last input holding code. Returns the new end of the
 * section. */
static uint32_t relayout_output(place_ctx *c, int out, uint32_t shift, uint32_t insert_at,
				const int *block, const uint32_t *block_off, size_t nblock,
				uint32_t *block_start, uint32_t *block_end)
{
	const xb_map *m = &c->img->map;
	const xb_map_output *o = &m->outputs[out];
	int *ins = xmalloc((m->ninputs + 1) * sizeof *ins);
	size_t n = 0;
	for (size_t i = 0; i < m->ninputs; i++)
		if (m->inputs[i].out_section == out)
			ins[n++] = (int)i;
	size_t sorted = 1;
	while (sorted < n && input_addr_cmp(&ins[sorted - 1], &ins[sorted], (void *)m) < 0)
		sorted++;
	if (sorted < n) /* a map's inputs usually come in address order already */
		qsort_r(ins, n, sizeof *ins, input_addr_cmp, (void *)m);
	int stub = stub_follows(c, out, ins, n, insert_at, block, nblock);

	uint32_t last_orig_end = (uint32_t)o->addr;
	for (size_t k = 0; k < n; k++) {
		const xb_map_input *in = &m->inputs[ins[k]];
		if (in->addr < insert_at && !c->moved[ins[k]])
			c->new_in[ins[k]] = (uint32_t)in->addr + shift;
	}
	uint32_t cur = insert_at + shift;
	if (stub == -2)
		cur = place_stub(c, out, cur);
	if (block_start)
		*block_start = cur;
	if (block_end)
		*block_end = cur;
	for (size_t k = 0; k < nblock; k++) {
		int i = block[k];
		if (block_off && block_off[k] != NO_OFFSET) {
			uint32_t pad = (block_off[k] - cur) & c->way_mask;
			cur += pad;
			c->pad_total += pad;
		}
		cur = align_up(cur, c->img->input_align[i]);
		c->new_in[i] = cur;
		cur += (uint32_t)m->inputs[i].size;
		if (block_end)
			*block_end = cur;
		if (i == stub)
			cur = place_stub(c, out, cur);
	}
	uint32_t prev_orig_end = insert_at;
	for (size_t k = 0; k < n; k++) {
		int i = ins[k];
		const xb_map_input *in = &m->inputs[i];
		uint32_t a = c->img->input_align[i];
		uint32_t addr = (uint32_t)in->addr, end = addr + (uint32_t)in->size;
		if (addr < insert_at) {
			last_orig_end = end > last_orig_end ? end : last_orig_end;
			continue;
		}
		if (!c->moved[i]) {
			uint32_t expected = align_up(prev_orig_end, a);
			if (expected == addr) {
				cur = align_up(cur, a);
			} else {
				uint32_t b = barrier_align(prev_orig_end, addr, a);
				cur = b ? align_up(cur, b) : align_up(cur + (addr - expected), a);
			}
			c->new_in[i] = cur;
			cur += (uint32_t)in->size;
			if (i == stub)
				cur = place_stub(c, out, cur);
		}
		prev_orig_end = end;
		last_orig_end = end;
	}
	free(ins);
	/* whatever the script adds after the last input (symbols, ALIGN) keeps its size */
	uint32_t orig_end = (uint32_t)(o->addr + o->size);
	uint32_t tail = orig_end > last_orig_end ? orig_end - last_orig_end : 0;
	if (last_orig_end < insert_at)
		tail = orig_end > insert_at ? orig_end - insert_at : 0;
	return cur + tail;
}

/* An output section's alignment under the layout: the ELF's, except that one which held a
 * stub section of the stock build (8-byte aligned) and gets none now is aligned as its
 * other inputs are. */
static uint32_t output_align(const place_ctx *c, int out, const xb_section *s)
{
	uint32_t a = s && s->align ? s->align : 1;
	if (a != STUB_ALIGN || c->stub_size[out])
		return a;
	const xb_map *m = &c->img->map;
	uint32_t other = 1;
	bool had_stub = false;
	for (size_t i = 0; i < m->ninputs; i++) {
		if (m->inputs[i].out_section != out)
			continue;
		if (image_input_is_stub(&m->inputs[i]))
			had_stub = true;
		else if (c->img->input_align[i] > other)
			other = c->img->input_align[i];
	}
	return had_stub && other < a ? other : a;
}

/* Lays out every output section of one memory region: the one holding insert_at gets the
 * block; sections that lost inputs are compacted; later sections follow the ones before
 * them when they originally did. */
static int relayout_region(place_ctx *c, enum xb_region_kind region, uint32_t insert_at,
			   int have_insert, const int *block, const uint32_t *block_off,
			   size_t nblock, uint32_t *block_start, uint32_t *block_end, xb_err *err)
{
	const xb_map *m = &c->img->map;
	region_out *outs = xmalloc((m->noutputs + 1) * sizeof *outs);
	size_t nouts = region_outputs(c, region, outs);
	int holder = have_insert ? output_holding(c, region, insert_at) : -1;
	uint32_t prev_orig_end = 0, prev_new_end = 0;
	bool have_prev = false;
	if (region == XB_REGION_SRAM && c->reloc_after >= 0) {
		/* the relocation section comes first in RAM; what followed the region's
		 * origin follows it */
		have_prev = true;
		prev_orig_end = c->reloc_origin;
		prev_new_end = c->reloc_end;
	}
	for (size_t k = 0; k < nouts; k++) {
		const xb_map_output *o = &m->outputs[outs[k].out];
		const xb_section *s = elf_section_named(c->img, o->name);
		/* GNU ld puts the load image of a section with an LMA region (AT> FLASH) at the
		 * region's next free byte, not aligned (unless ALIGN_WITH_INPUT) */
		uint32_t sa = outs[k].load_image == 1 ? 1 : s && s->align ? s->align : 1;
		uint32_t na = outs[k].load_image == 1 ? 1 : output_align(c, outs[k].out, s);
		uint32_t start = outs[k].at, new_start = start;
		if ((k > 0 || have_prev) && start >= prev_orig_end &&
		    align_up(prev_orig_end, sa) == start)
			new_start = align_up(prev_new_end, na);
		uint32_t shift = new_start - start;
		uint32_t new_end;
		if (outs[k].load_image == 2) {
			/* the no-allocate section: loaded where the script's ALIGN puts it after
			 * the flash before it, run at the same offset in its alias */
			if (k > 0 && start >= prev_orig_end &&
			    align_up(prev_orig_end, NOALLOC_ALIGN) == start)
				new_start = align_up(prev_new_end, NOALLOC_ALIGN);
			else
				new_start = start;
			uint32_t delta = (uint32_t)(o->addr - o->lma), vma = new_start + delta;
			int out = outs[k].out;
			uint32_t vend = relayout_output(c, out, vma - (uint32_t)o->addr, c->na_at,
							c->na_block, NULL, c->nna, NULL, NULL);
			c->out_at[out] = vma;
			c->out_load[out] = new_start;
			c->out_size[out] = vend - vma;
			new_end = vend - delta;
		} else if (outs[k].load_image) {
			/* its contents were laid out with the region it runs in */
			new_end = new_start + c->out_size[outs[k].out];
			c->out_load[outs[k].out] = new_start;
		} else {
			int here = outs[k].out == holder;
			new_end = relayout_output(c, outs[k].out, shift, here ? insert_at : start,
						  here ? block : NULL, here ? block_off : NULL,
						  here ? nblock : 0, here ? block_start : NULL,
						  here ? block_end : NULL);
			c->out_size[outs[k].out] = new_end - new_start;
			c->out_at[outs[k].out] = new_start;
			if (o->lma == o->addr)
				c->out_load[outs[k].out] = new_start;
			if (region == XB_REGION_FLASH && outs[k].out == c->reloc_after) {
				/* the relocation section's load image: the flash region's next
				 * free byte (an LMA region does not align it) */
				c->reloc_load = new_end;
				new_end += c->reloc_end - c->reloc_origin;
			}
		}
		prev_orig_end = start + (uint32_t)o->size;
		prev_new_end = new_end;
	}
	free(outs);
	if (have_insert && holder < 0)
		return xb_fail(err, "%s: the insertion point 0x%08x is in no output section of the map",
			       c->img->path ? c->img->path : "image", insert_at);
	return 0;
}

/* The address where the linker script INCLUDEs a fragment, from its marker symbols. The
 * stock build has an empty fragment (start == end); a non-empty one means the image was
 * already linked with a layout and the default order of its sections is lost. */
static int insertion_point(const xb_image *img, const char *what, uint32_t *at, xb_err *err)
{
	char start[64], end[64];
	snprintf(start, sizeof start, "__xipbench_%s_start", what);
	snprintf(end, sizeof end, "__xipbench_%s_end", what);
	int64_t s = image_marker(img, start), e = image_marker(img, end);
	if (s < 0)
		return 1;
	if (e >= 0 && e != s)
		return xb_fail(err,
			       "%s: linked with a non-empty %s fragment (%s..%s); plan and predict "
			       "from the stock build",
			       img->path ? img->path : "image", what, start, end);
	*at = (uint32_t)s;
	return 0;
}

static const char *reloc_base(const char *path)
{
	const char *slash = strrchr(path, '/');
	return slash ? slash + 1 : path;
}

/* Zephyr's zephyr_code_relocate(... LOCATION <RAM>_TEXT) route, for a Zephyr image without
 * xipbench's RAM marker (docs/build-folders.md). gen_relocate_app.py writes one rule per
 * section, KEEP(*<object file name>("<section>")), sorted by object file name and then
 * section name, into a new output section .<ram>_text_reloc that the Cortex-M script puts
 * right after rom_start: first in the RAM region (at its origin), loaded at the flash
 * region's next free byte after rom_start; it ends at ALIGN(_region_min_align). A rule
 * matches by the object's file name, so a same-named section of a same-named object
 * elsewhere moves too: it is placed with them. Writes the inputs that move to *ram (their
 * count to *nram) in section order; 1 when the route does not apply. */
static int reloc_block(place_ctx *c, int8_t *kind, int *ram, size_t *nram, xb_err *err)
{
	const xb_image *img = c->img;
	const xb_map *m = &img->map;
	if (buildsys_detect(img) != XB_BUILD_ZEPHYR)
		return 1;
	int rs = -1;
	for (size_t i = 0; i < m->noutputs && rs < 0; i++)
		if (strcmp(m->outputs[i].name, "rom_start") == 0)
			rs = (int)i;
	char region[64];
	const xb_map_region *mr = NULL;
	if (buildsys_ram_region(img, c->tg, region, sizeof region) == 0)
		for (size_t i = 0; i < m->nregions && !mr; i++)
			if (strcmp(m->regions[i].name, region) == 0)
				mr = &m->regions[i];
	if (rs < 0 || !mr)
		return xb_fail(err, "%s: a Zephyr map without %s: no place for relocated code",
			       img->path ? img->path : "image", rs < 0 ? "rom_start" : "a RAM region");
	/* the inputs each rule captures: the planned ones and their namesakes */
	size_t n = *nram;
	int *all = xmalloc((m->ninputs + 1) * sizeof *all);
	size_t nall = 0;
	for (size_t k = 0; k < n; k++) {
		const xb_map_input *in = &m->inputs[ram[k]];
		if (in->archive && (in->archive[0] == '/' ||
				    strncmp(reloc_base(in->archive), "lib", 3) != 0)) {
			const xb_function *f = NULL;
			for (size_t j = 0; j < img->nfuncs && !f; j++)
				if (img->funcs[j].input == ram[k])
					f = &img->funcs[j];
			free(all);
			return xb_fail(err, "function %s: %s is not a library of this build; "
				       "zephyr_code_relocate() cannot move it",
				       f ? f->name : in->section, in->archive);
		}
		for (size_t j = 0; j < m->ninputs; j++) {
			const xb_map_input *o = &m->inputs[j];
			if ((int)j != ram[k] && (kind[j] || !o->section || !o->member ||
						 strcmp(o->section, in->section) != 0 ||
						 strcmp(reloc_base(o->member),
							reloc_base(in->member)) != 0))
				continue;
			if ((int)j != ram[k]) {
				kind[j] = 2;
				c->moved[j] = 1;
			}
			all[nall++] = (int)j;
		}
	}
	/* rule order, then input (stock address) order within a rule */
	for (size_t a = 1; a < nall; a++) {
		int v = all[a];
		size_t b = a;
		while (b > 0) {
			const xb_map_input *x = &m->inputs[all[b - 1]], *y = &m->inputs[v];
			int d = strcmp(reloc_base(x->member), reloc_base(y->member));
			if (!d)
				d = strcmp(x->section, y->section);
			if (d < 0 || (d == 0 && x->addr <= y->addr))
				break;
			all[b] = all[b - 1];
			b--;
		}
		all[b] = v;
	}
	/* drop repeats (two planned functions of one input section) */
	size_t w = 0;
	for (size_t k = 0; k < nall; k++) {
		bool dup = false;
		for (size_t q = 0; q < w && !dup; q++)
			dup = all[q] == all[k];
		if (!dup)
			all[w++] = all[k];
	}
	nall = w;
	memcpy(ram, all, nall * sizeof *ram);
	*nram = nall;
	free(all);
	c->reloc_after = rs;
	c->reloc_origin = (uint32_t)mr->origin;
	return 0;
}

/* Lays out the relocation section in RAM: its inputs from the region's origin, the stub
 * section of its veneers after the last, the end aligned to _region_min_align. */
static void reloc_layout(place_ctx *c, const int *ram, size_t nram, int vout, uint32_t *start,
			 uint32_t *end)
{
	const xb_image *img = c->img;
	uint32_t align = 1;
	for (size_t k = 0; k < nram; k++)
		if (img->input_align[ram[k]] > align)
			align = img->input_align[ram[k]];
	uint32_t cur = align_up(c->reloc_origin, align);
	*start = cur;
	for (size_t k = 0; k < nram; k++) {
		cur = align_up(cur, img->input_align[ram[k]]);
		c->new_in[ram[k]] = cur;
		cur += (uint32_t)img->map.inputs[ram[k]].size;
	}
	if (c->stub_size[vout])
		cur = place_stub(c, vout, cur);
	int64_t min_align = image_marker(img, "_region_min_align");
	cur = align_up(cur, min_align > 0 && min_align <= 4096 ? (uint32_t)min_align : 4u);
	c->reloc_end = cur;
	*end = cur;
}

void placement_free(xb_placement *p)
{
	free(p->new_addr);
	free(p->input_addr);
	free(p->output_addr);
	free(p->output_load);
	free(p->veneers);
	free(p->vcalls);
	memset(p, 0, sizeof *p);
}

/* Where an input's code runs under the layout, as far as a BL reaches: flash, SRAM, or the
 * no-allocate alias (16 MB away from flash: a call either way goes through a veneer);
 * -1 for anything else. kind: 2 moved to SRAM, 3 to the no-allocate section. */
enum { ZONE_FLASH, ZONE_SRAM, ZONE_NOALLOC };
static int input_zone(const place_ctx *c, const int8_t *kind, long i)
{
	if (kind[i] == 2)
		return ZONE_SRAM;
	if (kind[i] == 3)
		return ZONE_NOALLOC;
	const xb_region *r = target_region_of(c->tg, (uint32_t)c->img->map.inputs[i].addr);
	if (!r)
		return -1;
	return r->kind == XB_REGION_FLASH ? ZONE_FLASH : r->kind == XB_REGION_SRAM ? ZONE_SRAM : -1;
}

static int veneer_cmp(const void *a, const void *b)
{
	const xb_veneer *x = a, *y = b;
	if (x->out != y->out)
		return x->out - y->out;
	return x->target < y->target ? -1 : x->target > y->target;
}

static int vcall_cmp(const void *a, const void *b)
{
	const xb_veneer_call *x = a, *y = b;
	if (x->site != y->site)
		return x->site < y->site ? -1 : 1;
	return x->target < y->target ? -1 : x->target > y->target;
}

/* The veneers the layout makes: one per stub section (the caller's output section) and
 * called address, for every call between flash, SRAM and the no-allocate alias; sizes the
 * stub sections. */
static void find_veneers(place_ctx *c, const xb_calls *calls, const int8_t *kind, int ram_out,
			 int hot_out, xb_placement *p)
{
	const xb_map *m = &c->img->map;
	size_t cap = 0, vcap = 0;
	for (size_t k = 0; calls && k < calls->n; k++) {
		long ci = calls->inputs ? calls->inputs[2 * k] : mapfile_input_at(m, calls->v[k].site);
		long ti = calls->inputs ? calls->inputs[2 * k + 1] : mapfile_input_at(m, calls->v[k].target);
		if (ci < 0 || ti < 0)
			continue;
		int cz = input_zone(c, kind, ci), tz = input_zone(c, kind, ti);
		if (cz == tz || cz < 0 || tz < 0)
			continue;
		int out = kind[ci] == 2   ? ram_out
			  : kind[ci] == 3 ? c->na_out
			  : kind[ci] == 1 && hot_out >= 0 ? hot_out
							  : m->inputs[ci].out_section;
		if (out < 0)
			continue;
		xb_grow(&p->veneers, &cap, p->nveneers + 1, sizeof *p->veneers);
		p->veneers[p->nveneers++] = (xb_veneer){.target = calls->v[k].target, .out = out};
		xb_grow(&p->vcalls, &vcap, p->nvcalls + 1, sizeof *p->vcalls);
		p->vcalls[p->nvcalls++] = (xb_veneer_call){.site = calls->v[k].site,
							   .target = calls->v[k].target,
							   .veneer = (size_t)out};
	}
	if (p->nveneers)
		qsort(p->veneers, p->nveneers, sizeof *p->veneers, veneer_cmp);
	size_t w = 0;
	for (size_t k = 0; k < p->nveneers; k++)
		if (!w || veneer_cmp(&p->veneers[w - 1], &p->veneers[k]) != 0)
			p->veneers[w++] = p->veneers[k];
	p->nveneers = w;
	for (size_t k = 0; k < p->nveneers; k++)
		c->stub_size[p->veneers[k].out] += XB_VENEER_BYTES;
	for (size_t k = 0; k < p->nvcalls; k++) {
		xb_veneer key = {.target = p->vcalls[k].target, .out = (int)p->vcalls[k].veneer};
		const xb_veneer *v = bsearch(&key, p->veneers, p->nveneers, sizeof key, veneer_cmp);
		p->vcalls[k].veneer = (size_t)(v - p->veneers);
	}
	/* the calls come sorted by site, and so do these, mostly */
	size_t k = 1;
	while (k < p->nvcalls && vcall_cmp(&p->vcalls[k - 1], &p->vcalls[k]) <= 0)
		k++;
	if (k < p->nvcalls)
		qsort(p->vcalls, p->nvcalls, sizeof *p->vcalls, vcall_cmp);
}

int layout_place_calls(const xb_image *img, const xb_target *tg, const xb_layout *l,
		       const xb_calls *calls, xb_placement *out, xb_err *err)
{
	memset(out, 0, sizeof *out);
	const char *ipath = img->path ? img->path : "image";
	if (!img->has_map)
		return xb_fail(err, "%s: placing functions needs the map file (--map)", ipath);
	if (!img->input_align)
		return xb_fail(err, "%s: input section alignments are not resolved", ipath);
	const xb_map *m = &img->map;
	place_ctx c = {.img = img, .tg = tg, .way_mask = target_way_bytes(tg) - 1, .na_out = -1,
		       .reloc_after = -1};
	c.moved = xcalloc(m->ninputs + 1, 1);
	c.is_code = xcalloc(m->ninputs + 1, 1);
	c.new_in = xcalloc(m->ninputs + 1, sizeof *c.new_in);
	for (size_t i = 0; i < m->ninputs; i++)
		c.new_in[i] = (uint32_t)m->inputs[i].addr;
	for (size_t i = 0; i < img->nfuncs; i++)
		if (img->funcs[i].input >= 0)
			c.is_code[img->funcs[i].input] = 1;
	/* the stock build's stub sections go: the relink makes the veneers find_veneers
	 * models, each after the last code of its caller's output section */
	for (size_t i = 0; i < m->ninputs; i++)
		if (image_input_is_stub(&m->inputs[i]))
			c.moved[i] = 1;
	c.out_size = xcalloc(m->noutputs + 1, sizeof *c.out_size);
	c.out_at = xcalloc(m->noutputs + 1, sizeof *c.out_at);
	c.out_load = xcalloc(m->noutputs + 1, sizeof *c.out_load);
	c.stub_size = xcalloc(m->noutputs + 1, sizeof *c.stub_size);
	c.stub_at = xcalloc(m->noutputs + 1, sizeof *c.stub_at);
	for (size_t i = 0; i < m->noutputs; i++) {
		c.out_size[i] = (uint32_t)m->outputs[i].size;
		c.out_at[i] = (uint32_t)m->outputs[i].addr;
		c.out_load[i] = (uint32_t)m->outputs[i].lma;
	}
	int *hot = xmalloc((l->n + 1) * sizeof *hot);
	int *ram = xmalloc((l->n + m->ninputs + 1) * sizeof *ram);
	int *na = xmalloc((l->n + 1) * sizeof *na);
	uint32_t *hot_off = xmalloc((l->n + 1) * sizeof *hot_off);
	size_t nhot = 0, nram = 0, nna = 0;
	int8_t *kind = xcalloc(m->ninputs + 1, 1); /* 0 none, 1 hot block, 2 SRAM, 3 no-allocate */
	int rc = -1;

	for (size_t k = 0; k < l->n; k++) {
		const xb_layout_entry *e = &l->e[k];
		if (e->place == XB_PLACE_DEFAULT)
			continue;
		if (e->func < 0 || (size_t)e->func >= img->nfuncs) {
			xb_fail(err, "layout entry %zu: no such function", k + 1);
			goto out;
		}
		const xb_function *f = &img->funcs[e->func];
		if (f->alias_of >= 0)
			f = &img->funcs[f->alias_of];
		if (f->input < 0) {
			xb_fail(err, "function %s: no input section in the map", f->name);
			goto out;
		}
		int want = e->place == XB_PLACE_SRAM ? 2 : e->place == XB_PLACE_NOALLOC ? 3 : 1;
		if (kind[f->input] == want)
			continue; /* another function of the same input section */
		if (kind[f->input]) {
			xb_fail(err, "function %s shares input section %s with a function placed elsewhere",
				f->name, m->inputs[f->input].section);
			goto out;
		}
		kind[f->input] = (int8_t)want;
		c.moved[f->input] = 1;
		if (want == 2) {
			ram[nram++] = f->input;
		} else if (want == 3) {
			na[nna++] = f->input;
		} else {
			hot_off[nhot] = e->place == XB_PLACE_COLOUR ? (e->way_offset & c.way_mask)
								    : NO_OFFSET;
			hot[nhot++] = f->input;
		}
	}

	uint32_t hot_at = 0, ram_at = 0;
	int r = insertion_point(img, "hot", &hot_at, err);
	if (r < 0)
		goto out;
	if (r > 0) {
		/* no markers: where the build system puts the fragment (Zephyr's ROM_START), or
		 * nowhere: a layout that moves nothing is stock */
		hot_at = UINT32_MAX;
		if (nhot && buildsys_hot_insertion(img, &hot_at, err) != 0)
			goto out;
	}
	r = insertion_point(img, "ramfunc", &ram_at, err);
	if (r < 0)
		goto out;
	int vout = -1; /* the relocation section's index: one past the map's outputs */
	if (r > 0 && nram) {
		int rr = reloc_block(&c, kind, ram, &nram, err);
		if (rr < 0)
			goto out;
		if (rr == 0)
			vout = (int)m->noutputs;
	}
	if (r > 0 && nram && vout < 0) {
		char *step = buildsys_integration_step(buildsys_detect(img), "ramfunc");
		xb_fail(err, "%s: no RAM function section: %s", ipath, step);
		free(step);
		goto out;
	}
	int ram_out = r == 0 ? output_holding(&c, XB_REGION_SRAM, ram_at) : vout;
	if (r == 0 && ram_out < 0) {
		/* the stock build's RAM function section is empty: GNU ld left it out of the
		 * ELF, the map still has it */
		c.empty_ok = true;
		ram_out = output_holding(&c, XB_REGION_SRAM, ram_at);
	}
	int rn = insertion_point(img, "noalloc", &c.na_at, err);
	if (rn < 0)
		goto out;
	if (rn == 0) {
		for (size_t i = 0; i < m->noutputs && c.na_out < 0; i++) {
			const xb_map_output *o = &m->outputs[i];
			if (c.na_at >= o->addr && c.na_at <= o->addr + o->size && o->lma != o->addr &&
			    target_decode_xip(tg, (uint32_t)o->addr, NULL, NULL) &&
			    target_decode_xip(tg, (uint32_t)o->lma, NULL, NULL))
				c.na_out = (int)i;
		}
	}
	if (nna && c.na_out < 0) {
		xb_fail(err,
			"%s: no no-allocate section: the linker script must INCLUDE "
			"xipbench_noalloc.ld in a section run through a flash alias and loaded in "
			"flash (symbol __xipbench_noalloc_start is %s)",
			ipath, rn == 0 ? "in no such section" : "missing");
		goto out;
	}
	c.na_block = na;
	c.nna = nna;
	int hot_out = hot_at != UINT32_MAX ? output_holding(&c, XB_REGION_FLASH, hot_at) : -1;
	find_veneers(&c, calls, kind, ram_out, hot_out, out);
	if (vout >= 0)
		reloc_layout(&c, ram, nram, vout, &out->ram_start, &out->ram_end);
	/* RAM first: the load images of RAM sections take room in flash */
	if (relayout_region(&c, XB_REGION_SRAM, ram_at, r == 0, ram, NULL, vout >= 0 ? 0 : nram,
			    vout >= 0 ? NULL : &out->ram_start, vout >= 0 ? NULL : &out->ram_end,
			    err) != 0)
		goto out;
	if (relayout_region(&c, XB_REGION_FLASH, hot_at, hot_at != UINT32_MAX, hot, hot_off, nhot,
			    &out->hot_start, &out->hot_end, err) != 0)
		goto out;

	out->n = img->nfuncs;
	out->new_addr = xmalloc((img->nfuncs + 1) * sizeof *out->new_addr);
	for (size_t i = 0; i < img->nfuncs; i++) {
		const xb_function *f = &img->funcs[i];
		if (f->alias_of >= 0)
			f = &img->funcs[f->alias_of];
		out->new_addr[i] = f->input >= 0
			? c.new_in[f->input] + (f->addr - (uint32_t)m->inputs[f->input].addr)
			: img->funcs[i].addr;
	}
	for (size_t k = 0; k < out->nveneers; k++) {
		xb_veneer *v = &out->veneers[k];
		v->addr = k && out->veneers[k - 1].out == v->out
				  ? out->veneers[k - 1].addr + XB_VENEER_BYTES
				  : c.stub_at[v->out];
		const xb_region *rg = target_region_of(tg, v->addr);
		if (rg && rg->kind == XB_REGION_SRAM)
			out->veneer_bytes_ram += XB_VENEER_BYTES;
		else
			out->veneer_bytes_flash += XB_VENEER_BYTES;
	}
	out->extra_ram = out->ram_end - out->ram_start;
	if (ram_out >= 0 && c.stub_size[ram_out] && c.stub_at[ram_out] >= out->ram_end)
		out->extra_ram = c.stub_at[ram_out] + c.stub_size[ram_out] - out->ram_start;
	out->pad_bytes = c.pad_total;
	out->code_relocation = vout >= 0;
	/* growth of the flash image's code: the end of the last flash input moved */
	uint32_t old_end = 0, new_end = 0;
	for (size_t i = 0; i < m->ninputs; i++) {
		const xb_region *rg = target_region_of(tg, (uint32_t)m->inputs[i].addr);
		if (!rg || rg->kind != XB_REGION_FLASH || kind[i] == 2)
			continue;
		uint32_t oe = (uint32_t)(m->inputs[i].addr + m->inputs[i].size);
		uint32_t ne = c.new_in[i] + (uint32_t)m->inputs[i].size;
		if (kind[i] == 3) /* its load image */
			ne -= c.out_at[c.na_out] - c.out_load[c.na_out];
		old_end = oe > old_end ? oe : old_end;
		new_end = ne > new_end ? ne : new_end;
	}
	out->flash_growth = new_end > old_end ? new_end - old_end : 0;
	out->ninputs = m->ninputs;
	out->input_addr = c.new_in;
	c.new_in = NULL;
	out->code = calls;
	out->noutputs = m->noutputs;
	out->output_addr = c.out_at;
	out->output_load = c.out_load;
	c.out_at = c.out_load = NULL;
	rc = 0;
out:
	if (rc != 0)
		placement_free(out);
	free(kind);
	free(hot);
	free(ram);
	free(na);
	free(hot_off);
	free(c.moved);
	free(c.is_code);
	free(c.new_in);
	free(c.out_size);
	free(c.out_at);
	free(c.out_load);
	free(c.stub_size);
	free(c.stub_at);
	return rc;
}

int layout_place(const xb_image *img, const xb_target *tg, const xb_layout *l,
		 xb_placement *out, xb_err *err)
{
	return layout_place_calls(img, tg, l, NULL, out, err);
}

/* placement_move with a memory of the last input section found (traces stay inside one
 * for long stretches). */
typedef struct mover {
	const xb_image *img;
	const xb_placement *p;
	uint32_t lo, hi, to;  /* [lo, hi) moves to `to` */
} mover;

static uint32_t mover_move(mover *mv, uint32_t a)
{
	if (a - mv->lo < mv->hi - mv->lo)
		return mv->to + (a - mv->lo);
	const xb_map *m = &mv->img->map;
	long i = mapfile_input_at(m, a);
	if (i >= 0) {
		mv->lo = (uint32_t)m->inputs[i].addr;
		mv->hi = mv->lo + (uint32_t)m->inputs[i].size;
		mv->to = mv->p->input_addr[i];
		return mv->to + (a - mv->lo);
	}
	return placement_move(mv->img, mv->p, a);
}

uint32_t placement_move(const xb_image *img, const xb_placement *p, uint32_t a)
{
	const xb_map *m = &img->map;
	if (p->input_addr) {
		long i = mapfile_input_at(m, a);
		if (i >= 0)
			return p->input_addr[i] + (a - (uint32_t)m->inputs[i].addr);
		for (size_t o = 0; o < m->noutputs && o < p->noutputs; o++) {
			const xb_map_output *mo = &m->outputs[o];
			if (a - (uint32_t)mo->addr < (uint32_t)mo->size)
				return p->output_addr[o] + (a - (uint32_t)mo->addr);
			if (mo->lma != mo->addr && a - (uint32_t)mo->lma < (uint32_t)mo->size)
				return p->output_load[o] + (a - (uint32_t)mo->lma);
		}
	}
	const xb_function *f = image_function_at(img, a);
	return f ? p->new_addr[f - img->funcs] + (a - f->addr) : a;
}

uint32_t placement_move_near(const xb_image *img, const xb_placement *p, uint32_t a, long *hint)
{
	if (p->input_addr) {
		long i = mapfile_input_near(&img->map, a, hint);
		if (i >= 0)
			return p->input_addr[i] + (a - (uint32_t)img->map.inputs[i].addr);
	}
	return placement_move(img, p, a);
}

static const uint32_t *sort_addr;
static int by_new_addr(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	if (sort_addr[x] != sort_addr[y])
		return sort_addr[x] < sort_addr[y] ? -1 : 1;
	return x < y ? -1 : x > y;
}

int placement_write_addresses(const xb_image *img, const xb_placement *p, const char *path,
			      xb_err *err)
{
	size_t *order = xmalloc((p->n + 1) * sizeof *order);
	for (size_t i = 0; i < p->n; i++)
		order[i] = i;
	sort_addr = p->new_addr;
	qsort(order, p->n, sizeof *order, by_new_addr);
	sort_addr = NULL;
	xb_strbuf sb = {0};
	sb_puts(&sb, "# predicted address of every function under this layout\n");
	for (size_t k = 0; k < p->n; k++)
		if (!img->funcs[order[k]].is_veneer) /* the stock build's veneers: see below */
			sb_printf(&sb, "0x%08x %s\n", p->new_addr[order[k]], img->funcs[order[k]].name);
	free(order);
	/* the veneers the relink makes, as comments: GNU ld names them after their target */
	for (size_t k = 0; k < p->nveneers; k++) {
		const xb_function *t = image_function_at(img, p->veneers[k].target);
		if (t && t->addr == (p->veneers[k].target & ~1u))
			sb_printf(&sb, "# veneer 0x%08x __%s_veneer\n", p->veneers[k].addr, t->name);
	}
	int rc = xb_write_file_atomic(path, sb.buf ? sb.buf : "", sb.len, err);
	sb_free(&sb);
	return rc;
}

/* ---- traces ---- */

/* Whether a fetch of the word at w, whose second halfword starts another input section
 * than its first (a function that starts at 2 mod 4), is for that second section: the
 * first halfword is in no section, or execution goes on to the next word without having
 * come from the previous one (a call or jump into the second section). */
static int fetch_is_for_next(const xb_map *m, uint32_t w, uint32_t prev, uint32_t next)
{
	long here = mapfile_input_at(m, w), there = mapfile_input_at(m, w + 2);
	if (there < 0 || there == here)
		return 0;
	return here < 0 || (next == w + 4 && prev != w - 4);
}

/* ---- following a trace of word fetches halfword by halfword ---- */

/* The virtual Pico (like the core's prefetch of 32-bit words) records a fetch when
 * execution enters a word: at a branch target, or going on from the word before. A
 * function moved by 2 bytes mod 4 puts the two halfwords of a stock word in two words, so
 * the trace is followed through the stock code: where each run of execution entered its
 * word and where it left it. */
typedef struct flow {
	const xb_code *code;
	bool known;          /* the next run's entry is known: */
	uint32_t entry;      /* ... this halfword */
	bool sequential;     /* the last run went on into the next word without a branch */
	bool wide;           /* ... in the middle of a 32-bit instruction */
	uint32_t last_word;  /* the last word fetched under the layout */
	bool have_last;
	uint32_t prev_word;  /* the last stock word fetched */
	bool have_prev;
} flow;

/* One run: the halfwords [entry, exit] of one fetched stock word. */
typedef struct run {
	uint32_t entry, exit;
	bool call;           /* it ended in a BL at site */
	uint32_t site, target;
} run;

/* Where a return lands in word w: after the call that returns there. */
static bool return_entry(const xb_code *c, uint32_t w, uint32_t *entry)
{
	if (code_is_return_point(c, w))
		*entry = w;
	else if (code_is_return_point(c, w + 2))
		*entry = w + 2;
	else
		return false;
	return true;
}

/* Follows the run of the fetch of stock word w, next the next stock word fetched (or
 * UINT32_MAX); sets what the next run will start with. */
static run flow_run(flow *f, const xb_map *m, uint32_t w, uint32_t next)
{
	run r = {.entry = w};
	if (f->known && (f->entry & ~3u) == w)
		r.entry = f->entry;
	else if (fetch_is_for_next(m, w, f->have_prev ? f->prev_word : w, next))
		r.entry = w + 2;
	bool was_wide = f->wide && r.entry == w && f->known;
	f->known = f->sequential = f->wide = false;
	uint32_t h = r.entry;
	r.exit = h;
	xb_insn in;
	if (was_wide && code_insn(f->code, w - 2, &in)) {
		/* the second half of a 32-bit instruction that started in the word before */
		if (in.flow == XB_FLOW_CALL) {
			r.call = true;
			r.site = w - 2;
			r.target = f->entry = in.target;
			f->known = true;
			return r;
		}
		h = w + 2;
	}
	while (h < w + 4) {
		if (!code_insn(f->code, h, &in))
			return r;
		r.exit = h;
		if (in.size == 4 && h == w + 2) {
			f->wide = f->sequential = f->known = true;
			f->entry = w + 4;
			return r;
		}
		if (in.size == 4)
			r.exit = h + 2;
		switch (in.flow) {
		case XB_FLOW_CALL:
			r.call = true;
			r.site = h;
			r.target = f->entry = in.target;
			f->known = true;
			return r;
		case XB_FLOW_JUMP:
			f->entry = in.target;
			f->known = true;
			return r;
		case XB_FLOW_COND:
			if (next == (in.target & ~3u) && in.target != h + 2) {
				f->entry = in.target;
				f->known = true;
				return r;
			}
			break;
		case XB_FLOW_RETURN:
			f->known = next != UINT32_MAX && return_entry(f->code, next, &f->entry);
			return r;
		case XB_FLOW_INDIRECT:
			return r;
		case XB_FLOW_NEXT:
			break;
		}
		h += in.size;
	}
	f->sequential = f->known = true;
	f->entry = w + 4;
	return r;
}

/* The call through a veneer that a run ending in a BL at site makes. */
static const xb_veneer_call *veneer_call(const xb_placement *p, uint32_t site, uint32_t target)
{
	size_t lo = sorted_lower_bound(p->vcalls, p->nvcalls, sizeof *p->vcalls, site);
	for (; lo < p->nvcalls && p->vcalls[lo].site == site; lo++)
		if (p->vcalls[lo].target == target)
			return &p->vcalls[lo];
	return NULL;
}

/* addr, through the flash alias at alias_base when it is in flash (at its canonical
 * address) and xip is set; code the layout runs through another alias keeps it. */
static uint32_t keep_alias(const xb_target *tg, uint32_t addr, int xip, uint32_t alias_base)
{
	uint32_t off;
	enum xb_alias_mode mode;
	if (xip && target_decode_xip(tg, addr, &off, &mode) && addr - off == tg->flash_base)
		return alias_base + off;
	return addr;
}

/* The flash address behind a trace address (its offset through any flash alias). */
static uint32_t canonical(const xb_target *tg, uint32_t a, int *xip, uint32_t *alias_base)
{
	uint32_t off;
	enum xb_alias_mode mode;
	*xip = target_decode_xip(tg, a, &off, &mode);
	*alias_base = *xip ? a - off : 0;
	return *xip ? tg->flash_base + off : a;
}

/* What a trace address is: a fetch of stock Thumb code, a data read of flash (literal
 * pools, read-only data), or anything else. */
enum event_kind { EV_CODE, EV_DATA, EV_OTHER };

static enum event_kind event_kind(const xb_code *code, uint32_t canon, int xip, uint32_t *lo,
				  uint32_t *hi)
{
	if (code && code_thumb_span(code, canon, lo, hi))
		return EV_CODE;
	return xip ? EV_DATA : EV_OTHER;
}

/* The next stock word fetched after event i (data reads skipped), or UINT32_MAX. */
static uint32_t next_fetch(const xb_target *tg, const xb_trace *in, const uint8_t *kinds,
			   size_t i)
{
	for (size_t j = i + 1; j < in->n && j < i + 64; j++) {
		if (kinds[j] == EV_CODE) {
			int xip;
			uint32_t base;
			return canonical(tg, in->addr[j], &xip, &base) & ~3u;
		}
		if (kinds[j] == EV_OTHER)
			return UINT32_MAX;
	}
	return UINT32_MAX;
}

/* What a call through veneer vc (if not NULL) fetches: push + ldr, the literal (a data
 * read, traced only from flash), mov + pop, bx; through the caller's alias. */
static void push_veneer(xb_trace *out, const xb_target *tg, const xb_placement *p,
			const xb_veneer_call *vc, int xip, uint32_t base)
{
	static const uint32_t veneer_reads[4] = {0, 12, 4, 8};
	for (int k = 0; vc && k < 4; k++) {
		uint32_t v = p->veneers[vc->veneer].addr;
		const xb_region *rg = target_region_of(tg, v);
		if (k == 1 && (!rg || rg->kind != XB_REGION_FLASH))
			continue;
		trace_push(out, keep_alias(tg, v + veneer_reads[k], xip, base));
	}
}

void layout_apply_trace(const xb_image *img, const xb_target *tg, const xb_placement *p,
			const xb_trace *in, xb_trace *out)
{
	trace_init(out);
	mover mv = {.img = img, .p = p};
	flow f = {.code = p->code};
	uint8_t *kinds = xmalloc(in->n + 1);
	uint32_t lo = 0, hi = 0;
	bool halfwords = false; /* a trace of every instruction's address, not of word fetches */
	for (size_t i = 0; i < in->n; i++) {
		int xip;
		uint32_t base, canon = canonical(tg, in->addr[i], &xip, &base);
		/* traces stay in one stretch of code for a while */
		if (canon - lo < hi - lo)
			kinds[i] = EV_CODE;
		else
			kinds[i] = (uint8_t)event_kind(p->code, canon, xip, &lo, &hi);
		halfwords |= kinds[i] == EV_CODE && (canon & 2);
	}
	size_t e = 0;
	for (size_t i = 0; i < in->n; i++) {
		while (e < in->necho && in->echo[e] == i) {
			trace_mark_echo(out);
			e++;
		}
		int xip;
		uint32_t base, canon = canonical(tg, in->addr[i], &xip, &base);
		enum event_kind kind = (enum event_kind)kinds[i];
		if (kind == EV_CODE && halfwords) {
			/* exact addresses: a call is the BL's second halfword, then its target */
			const xb_veneer_call *vc = f.have_prev && p->nvcalls
				? veneer_call(p, f.prev_word - 2, canon) : NULL;
			push_veneer(out, tg, p, vc, xip, base);
			trace_push(out, keep_alias(tg, mover_move(&mv, canon), xip, base));
			f.prev_word = canon;
			f.have_prev = true;
			continue;
		}
		if (kind != EV_CODE || (canon & 3)) {
			if (kind == EV_OTHER)
				f.known = f.sequential = f.have_prev = f.have_last = false;
			trace_push(out, keep_alias(tg, mover_move(&mv, canon), xip, base));
			continue;
		}
		bool sequential = f.sequential;
		run r = flow_run(&f, &img->map, canon, next_fetch(tg, in, kinds, i));
		for (uint32_t h = r.entry; h <= r.exit; h += 2) {
			uint32_t word = mover_move(&mv, h) & ~3u;
			bool again = f.have_last && word == f.last_word &&
				     (h != r.entry || sequential);
			if (!again)
				trace_push(out, keep_alias(tg, word, xip, base));
			f.last_word = word;
			f.have_last = true;
		}
		f.prev_word = canon;
		f.have_prev = true;
		const xb_veneer_call *vc = r.call && p->nvcalls ? veneer_call(p, r.site, r.target) : NULL;
		push_veneer(out, tg, p, vc, xip, base);
		if (vc)
			f.have_last = false; /* the veneer branched: the target is fetched anew */
	}
	free(kinds);
	while (e < in->necho) {
		trace_mark_echo(out);
		e++;
	}
}
