/* plan_sram: which functions go to SRAM: the densest within a budget, or whole libraries;
 * never one that runs before the start-up code has copied the RAM sections. */
#include <stdlib.h>
#include <string.h>

#include "plan_internal.h"
#include "startup.h"

/* A function that runs without doing the work (an idle or busy-wait loop) gains nothing in
 * SRAM: it is hot in the idle window, or nearly all its samples sit on two lines. */
int plan_is_busy_wait(const xb_plan_input *in, int f)
{
	if (!in->prof)
		return 0;
	const xb_func_profile *fp = &in->prof->func[f];
	if (fp->busy <= 0)
		return 0;
	if (fp->idle >= 0.5 * fp->busy)
		return 1;
	return fp->lines_sampled <= 2 && fp->top2_share >= 0.9 &&
	       fp->busy >= 0.005 * in->prof->busy_total;
}

/* ---- what must stay in flash ---- */

static const char why_traced[] = "runs before the start-up code has copied the RAM sections "
				 "(the trace fetches it before the last read of their load image)";

static int flash_region(const xb_target *tg, uint32_t a)
{
	const xb_region *r = target_region_of(tg, a);
	return r && r->kind == XB_REGION_FLASH;
}

/* Index of the trace's last read of a load image in flash (a RAM section's contents the
 * start-up code copies), or SIZE_MAX when it has none. */
static size_t last_load_image_read(const xb_plan_input *in)
{
	const xb_map *m = &in->img->map;
	size_t last = SIZE_MAX;
	for (size_t o = 0; o < m->noutputs; o++) {
		const xb_map_output *mo = &m->outputs[o];
		if (mo->lma == mo->addr || !mo->size || !flash_region(in->tg, (uint32_t)mo->lma))
			continue;
		for (size_t i = in->trace->n; i-- > 0 && (last == SIZE_MAX || i > last);) {
			uint32_t off;
			enum xb_alias_mode mode;
			if (!target_decode_xip(in->tg, in->trace->addr[i], &off, &mode))
				continue;
			if (in->tg->flash_base + off - (uint32_t)mo->lma < (uint32_t)mo->size) {
				last = i;
				break;
			}
		}
	}
	return last;
}

/* Why each function must stay in flash (NULL: it may move): the reset handler and what
 * runs before the RAM sections are copied: from the trace when it starts at reset, else
 * from the code (core/startup.h). */
const char **plan_stay_in_flash(const xb_plan_input *in)
{
	const xb_image *img = in->img;
	size_t last = in->trace ? last_load_image_read(in) : SIZE_MAX;
	if (last == SIZE_MAX) {
		xb_startup su;
		startup_find(&su, img, in->calls, in->tg);
		const xb_function *entry = image_function_at(img, img->entry);
		if (entry && !su.why[entry - img->funcs])
			su.why[entry - img->funcs] = startup_why_reset;
		return su.why;
	}
	const char **why = xcalloc(img->nfuncs + 1, sizeof *why);
	const xb_function *entry = image_function_at(img, img->entry);
	if (entry)
		why[entry - img->funcs] = startup_why_reset;
	const xb_function *f = NULL;
	for (size_t i = 0; i < last; i++) {
		uint32_t off;
		enum xb_alias_mode mode;
		if (!target_decode_xip(in->tg, in->trace->addr[i], &off, &mode))
			continue;
		uint32_t a = in->tg->flash_base + off;
		if (!f || a - f->addr >= f->size)
			f = image_function_at(img, a);
		if (f && !why[f - img->funcs])
			why[f - img->funcs] = why_traced;
	}
	return why;
}

/* Why no function of input section `input` may move (NULL if none). */
static const char *input_stays(const xb_image *img, const char **why, int input, int *func)
{
	for (size_t i = 0; i < img->nfuncs; i++)
		if (img->funcs[i].input == input && why[i]) {
			*func = (int)i;
			return why[i];
		}
	return NULL;
}

/* ---- choosing ---- */

static const xb_heat *density_heat;
static const xb_image *density_img;
static int denser_first(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	double dx = density_heat->func[x] / (density_img->funcs[x].size ? density_img->funcs[x].size : 1);
	double dy = density_heat->func[y] / (density_img->funcs[y].size ? density_img->funcs[y].size : 1);
	if (dx != dy)
		return dx > dy ? -1 : 1;
	return x - y;
}

/* Whether library name lib is in the comma-separated list. */
static int listed(const char *list, const char *lib)
{
	size_t n = strlen(lib);
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == n && strncmp(p, lib, n) == 0)
			return 1;
		p += len + (comma != NULL);
	}
	return 0;
}

/* Checks that every name in the list is a library of the image. */
static int check_libraries(const xb_image *img, const char *list, xb_err *err)
{
	for (const char *p = list; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int found = 0;
		for (size_t i = 0; i < img->nlibraries && !found; i++)
			found = strlen(img->libraries[i].name) == len &&
				strncmp(img->libraries[i].name, p, len) == 0;
		if (!found) {
			xb_strbuf names = {0};
			for (size_t i = 0; i < img->nlibraries; i++)
				sb_printf(&names, "%s%s", i ? ", " : "", img->libraries[i].name);
			int rc = xb_fail(err, "--sram-libraries: no library '%.*s' in %s (its libraries: %s)",
					 (int)len, p, img->path ? img->path : "the image",
					 names.buf ? names.buf : "none");
			sb_free(&names);
			return rc;
		}
		p += len + (comma != NULL);
	}
	return 0;
}

/* The flash functions that functions in SRAM call (BL), each needing a veneer in SRAM. */
typedef struct ram_veneers {
	uint32_t *target;
	size_t n, cap;
} ram_veneers;

static int has_target(const ram_veneers *v, uint32_t t)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->target[i] == t)
			return 1;
	return 0;
}

/* The veneers in SRAM once input section `input` is there too: it adds one for each
 * function in flash it calls, and the calls from SRAM to it need none any more. Writes the
 * new set to *out (which may be v itself). */
static void veneers_with(const xb_plan_input *in, const int8_t *in_sram, const ram_veneers *v,
			 int input, ram_veneers *out)
{
	const xb_map *m = &in->img->map;
	uint32_t lo = (uint32_t)m->inputs[input].addr, hi = lo + (uint32_t)m->inputs[input].size;
	ram_veneers r = {0};
	xb_grow(&r.target, &r.cap, v->n + 1, sizeof *r.target);
	for (size_t i = 0; i < v->n; i++)
		if (v->target[i] - lo >= hi - lo)
			r.target[r.n++] = v->target[i];
	for (size_t k = in->calls ? calls_lower_bound(in->calls, lo) : 0;
	     in->calls && k < in->calls->n && in->calls->v[k].site < hi; k++) {
		uint32_t t = in->calls->v[k].target;
		long ti = mapfile_input_at(m, t);
		if (ti < 0 || ti == input || in_sram[ti] || !flash_region(in->tg, t) ||
		    has_target(&r, t))
			continue;
		xb_grow(&r.target, &r.cap, r.n + 1, sizeof *r.target);
		r.target[r.n++] = t;
	}
	if (out == v)
		free(out->target);
	*out = r;
}

void layout_refuse(xb_layout *out, int func, const char *why)
{
	for (size_t i = 0; i < out->nrefused; i++)
		if (out->refused[i].func == func)
			return;
	xb_grow(&out->refused, &out->refused_cap, out->nrefused + 1, sizeof *out->refused);
	out->refused[out->nrefused++] = (xb_refusal){.func = func, .why = why};
}

int plan_select_sram(const xb_plan_input *in, const xb_heat *h, const int *hot, size_t n,
		     xb_layout *out, int8_t *in_sram, xb_err *err)
{
	const xb_image *img = in->img;
	if (in->sram_libraries && check_libraries(img, in->sram_libraries, err) != 0)
		return -1;
	const char **why = plan_stay_in_flash(in);
	int *v = xmalloc((img->nfuncs + 1) * sizeof *v);
	size_t nv = 0;
	if (in->sram_libraries) {
		/* every function of the libraries, in address order */
		for (size_t i = 0; i < img->nfuncs; i++) {
			const xb_function *f = &img->funcs[i];
			if (f->alias_of < 0 && f->input >= 0 && f->region == XB_REGION_FLASH && !f->is_veneer &&
			    listed(in->sram_libraries, img->libraries[f->library].name)) {
				if (plan_nameable(img, f))
					v[nv++] = (int)i;
				else
					layout_refuse(out, (int)i, plan_why_unnamed);
			}
		}
	} else {
		memcpy(v, hot, n * sizeof *v);
		nv = n;
		density_heat = h;
		density_img = img;
		qsort(v, nv, sizeof *v, denser_first);
		density_heat = NULL;
		density_img = NULL;
	}
	uint32_t used = 0;
	ram_veneers ven = {0}, next = {0};
	for (size_t k = 0; k < nv; k++) {
		const xb_function *f = &img->funcs[v[k]];
		if (in_sram[f->input] || (!in->sram_libraries && plan_is_busy_wait(in, v[k])))
			continue;
		int culprit = v[k];
		const char *stay = input_stays(img, why, f->input, &culprit);
		if (stay) {
			layout_refuse(out, culprit, stay);
			continue;
		}
		/* the budget holds the functions and the veneers of their calls to flash */
		const xb_map_input *mi = &img->map.inputs[f->input];
		uint32_t end = plan_align_up(used, img->input_align[f->input]) + (uint32_t)mi->size;
		veneers_with(in, in_sram, &ven, f->input, &next);
		uint64_t total = plan_align_up(end, 4) + (uint64_t)next.n * XB_VENEER_BYTES;
		if (!in->sram_libraries && total > in->sram_budget) {
			free(next.target);
			next.target = NULL;
			continue;
		}
		free(ven.target);
		ven = next;
		next.target = NULL;
		used = end;
		in_sram[f->input] = 1;
		layout_add(out, v[k], XB_PLACE_SRAM, 0);
	}
	free(ven.target);
	free(v);
	free(why);
	return 0;
}
