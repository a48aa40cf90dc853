/* image_map: joins an image to its map (inputs, libraries), display groups, unique names. */
#include "image.h"

#include <ctype.h>
#include <fnmatch.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "image_internal.h"

void image_free_libraries(xb_image *img)
{
	for (size_t i = 0; i < img->nlibraries; i++) {
		free(img->libraries[i].name);
		free(img->libraries[i].group);
	}
	free(img->libraries);
	img->libraries = NULL;
	img->nlibraries = 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static long find_library(const xb_image *img, const char *name)
{
	size_t lo = 0, hi = img->nlibraries;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(img->libraries[mid].name, name);
		if (c == 0)
			return (long)mid;
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

/* Replaces the libraries with the sorted distinct names[] (one per function, taken over)
 * plus "unknown", and points every function at its library. */
static void set_libraries(xb_image *img, char **names)
{
	image_free_libraries(img);
	size_t n = img->nfuncs;
	char **sorted = xmalloc((n + 1) * sizeof *sorted);
	for (size_t i = 0; i < n; i++)
		sorted[i] = names[i];
	sorted[n] = "unknown";
	qsort(sorted, n + 1, sizeof *sorted, cmp_str);
	img->libraries = xcalloc(n + 1, sizeof *img->libraries);
	for (size_t i = 0; i <= n; i++) {
		if (img->nlibraries && strcmp(img->libraries[img->nlibraries - 1].name, sorted[i]) == 0)
			continue;
		xb_library *l = &img->libraries[img->nlibraries++];
		l->name = xstrdup(sorted[i]);
		l->group = xstrdup(sorted[i]);
	}
	for (size_t i = 0; i < n; i++) {
		img->funcs[i].library = (int)find_library(img, names[i]);
		free(names[i]);
	}
	free(sorted);
}

void image_libraries_from_files(xb_image *img)
{
	char **names = xmalloc((img->nfuncs + 1) * sizeof *names);
	for (size_t i = 0; i < img->nfuncs; i++) {
		const xb_function *f = &img->funcs[i];
		names[i] = f->file >= 0 ? xasprintf("file:%s", img->files[f->file])
					: xstrdup("unknown");
	}
	set_libraries(img, names);
	free(names);
}

static const xb_section *elf_alloc_section(const xb_image *img, const char *name)
{
	for (size_t i = 0; i < img->nsections; i++)
		if ((img->sections[i].flags & SHF_ALLOC) && strcmp(img->sections[i].name, name) == 0)
			return &img->sections[i];
	return NULL;
}

/* The map belongs to the ELF when every allocated section they share has the same place
 * and size, and every function lies inside one input section. */
static int check_map_matches(const xb_image *img, const xb_map *m, long *inputs, xb_err *err)
{
	size_t shared = 0;
	for (size_t i = 0; i < m->noutputs; i++) {
		const xb_map_output *o = &m->outputs[i];
		const xb_section *s = elf_alloc_section(img, o->name);
		if (!s)
			continue;
		shared++;
		if (s->addr != o->addr || s->size != o->size)
			return xb_fail(err, "%s does not belong to %s: section %s is 0x%llx bytes at "
					    "0x%llx in the map but 0x%x bytes at 0x%08x in the ELF",
				       m->path, img->path, o->name, (unsigned long long)o->size,
				       (unsigned long long)o->addr, s->size, s->addr);
	}
	if (!shared)
		return xb_fail(err, "%s does not belong to %s: they have no allocated section in "
				    "common", m->path, img->path);
	for (size_t i = 0; i < img->nfuncs; i++) {
		const xb_function *f = &img->funcs[i];
		inputs[i] = mapfile_input_at(m, f->addr);
		if (!f->size)
			continue;
		if (inputs[i] < 0)
			return xb_fail(err, "%s does not belong to %s: function %s (0x%08x) is in no "
					    "input section of the map", m->path, img->path, f->name,
				       f->addr);
		const xb_map_input *in = &m->inputs[inputs[i]];
		if ((uint64_t)f->addr + f->size > in->addr + in->size)
			return xb_fail(err, "%s does not belong to %s: function %s (0x%08x, %u bytes) "
					    "runs past the end of input section %s (line %d)",
				       m->path, img->path, f->name, f->addr, f->size, in->section,
				       in->line);
	}
	return 0;
}

int image_attach_map(xb_image *img, const char *map_path, xb_err *err)
{
	xb_map m;
	if (mapfile_load(&m, map_path, err) != 0)
		return -1;
	long *inputs = xmalloc((img->nfuncs + 1) * sizeof *inputs);
	if (check_map_matches(img, &m, inputs, err) != 0) {
		free(inputs);
		mapfile_free(&m);
		return -1;
	}
	char **names = xmalloc((img->nfuncs + 1) * sizeof *names);
	for (size_t i = 0; i < img->nfuncs; i++) {
		const xb_map_input *in = inputs[i] >= 0 ? &m.inputs[inputs[i]] : NULL;
		names[i] = in ? mapfile_library_name(in->archive, in->member) : xstrdup("unknown");
		img->funcs[i].input = (int)inputs[i];
		if (in && !in->archive && in->member && strcmp(in->member, "linker stubs") == 0)
			img->funcs[i].is_veneer = true;
	}
	set_libraries(img, names);
	free(names);
	free(inputs);
	if (img->has_map)
		mapfile_free(&img->map);
	img->map = m;
	img->has_map = true;
	free(img->input_align);
	free(img->input_align_known);
	img->input_align = NULL;
	img->input_align_known = NULL;
	return 0;
}

/* One rule of a grouping file: library-name globs and the group they map to. */
typedef struct group_rule {
	char **patterns;
	size_t npatterns;
	char *group;
} group_rule;

static void free_rules(group_rule *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		for (size_t k = 0; k < r[i].npatterns; k++)
			free(r[i].patterns[k]);
		free(r[i].patterns);
		free(r[i].group);
	}
	free(r);
}

static char *trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	char *e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = 0;
	return s;
}

/* "PATTERN [or PATTERN ...] = GROUP" */
static int parse_rule(char *line, group_rule *r)
{
	char *eq = strchr(line, '=');
	if (!eq)
		return -1;
	*eq = 0;
	char *group = trim(eq + 1);
	if (!*group)
		return -1;
	size_t cap = 0;
	r->patterns = NULL;
	r->npatterns = 0;
	char *save = NULL;
	for (char *w = strtok_r(line, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
		if (strcmp(w, "or") == 0)
			continue;
		xb_grow(&r->patterns, &cap, r->npatterns + 1, sizeof *r->patterns);
		r->patterns[r->npatterns++] = xstrdup(w);
	}
	if (!r->npatterns)
		return -1;
	r->group = xstrdup(group);
	return 0;
}

int image_load_groups(xb_image *img, const char *groups_path, xb_err *err)
{
	char *text;
	size_t len;
	if (xb_read_file(groups_path, &text, &len, err) != 0)
		return -1;
	if (memchr(text, 0, len)) {
		free(text);
		return xb_fail(err, "%s: binary data in a grouping file", groups_path);
	}
	group_rule *rules = NULL;
	size_t nrules = 0, cap = 0;
	int lineno = 0;
	char *save = NULL;
	/* strtok_r would merge empty lines and lose the line count: split by hand */
	for (char *line = text; line; line = save) {
		char *nl = strchr(line, '\n');
		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = 0;
		lineno++;
		char *s = trim(line);
		if (!*s || *s == '#')
			continue;
		xb_grow(&rules, &cap, nrules + 1, sizeof *rules);
		memset(&rules[nrules], 0, sizeof rules[nrules]);
		if (parse_rule(s, &rules[nrules]) != 0) {
			free_rules(rules, nrules + 1);
			free(text);
			return xb_fail(err, "%s:%d: expected 'PATTERN [or PATTERN ...] = GROUP'",
				       groups_path, lineno);
		}
		nrules++;
	}
	free(text);
	for (size_t i = 0; i < img->nlibraries; i++) {
		xb_library *l = &img->libraries[i];
		const char *group = l->name;
		for (size_t r = 0; r < nrules && group == l->name; r++)
			for (size_t k = 0; k < rules[r].npatterns; k++)
				if (fnmatch(rules[r].patterns[k], l->name, 0) == 0) {
					group = rules[r].group;
					break;
				}
		free(l->group);
		l->group = xstrdup(group);
	}
	free_rules(rules, nrules);
	return 0;
}

static const char *path_base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* "libnet.a:ipv4.o(.text.foo)" with base names, or with full paths when base names do
 * not tell two objects apart. Without a map: "file.c:name", or "name@0xADDR". */
static char *qualify(const xb_image *img, const xb_function *f, bool full)
{
	if (img->has_map && f->input >= 0 && (size_t)f->input < img->map.ninputs) {
		const xb_map_input *in = &img->map.inputs[f->input];
		const char *member = in->member ? in->member : "";
		if (in->archive)
			return xasprintf("%s:%s(%s)", full ? in->archive : path_base(in->archive),
					 member, in->section);
		return xasprintf("%s(%s)", full ? member : path_base(member), in->section);
	}
	if (!full && f->file >= 0 && (size_t)f->file < img->nfiles)
		return xasprintf("%s:%s", img->files[f->file], f->name);
	return xasprintf("%s@0x%08x", f->name, f->addr);
}

char *image_qualified_name(const xb_image *img, const xb_function *f)
{
	if (f->same_name <= 1)
		return xstrdup(f->name);
	char *q = qualify(img, f, false);
	for (size_t i = 0; i < img->nfuncs; i++) {
		const xb_function *g = &img->funcs[i];
		if (g == f || strcmp(g->name, f->name) != 0 ||
		    (g->alias_of >= 0 && &img->funcs[g->alias_of] == f) ||
		    (f->alias_of >= 0 && &img->funcs[f->alias_of] == g))
			continue;
		char *other = qualify(img, g, false);
		int clash = strcmp(q, other) == 0;
		free(other);
		if (clash) {
			free(q);
			return qualify(img, f, true);
		}
	}
	return q;
}

bool image_input_is_stub(const xb_map_input *in)
{
	size_t n = in->section ? strlen(in->section) : 0;
	return !in->archive && in->member && strcmp(in->member, "linker stubs") == 0 && n >= 7 &&
	       strcmp(in->section + n - 7, ".__stub") == 0;
}
