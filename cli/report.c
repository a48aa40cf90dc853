/* report: printing a layout's prediction beside the stock layout's, as text or JSON. */
#include "report.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../core/util.h"
#include "cli.h"

static void cli_report_count(cli_report *r, const xb_layout *l)
{
	for (size_t i = 0; i < l->n; i++) {
		switch (l->e[i].place) {
		case XB_PLACE_HOT: r->functions_hot++; break;
		case XB_PLACE_COLOUR: r->functions_coloured++; break;
		case XB_PLACE_SRAM: r->functions_sram++; break;
		case XB_PLACE_NOALLOC: r->functions_noalloc++; break;
		default: break;
		}
	}
}

int cli_report_predict(cli_report *r, const xb_plan_input *in, const xb_layout *l, xb_err *err)
{
	xb_layout stock;
	layout_init(&stock);
	int rc = plan_predict(in, l, &r->layout, err);
	if (rc == 0)
		rc = plan_predict(in, &stock, &r->stock, err);
	layout_free(&stock);
	if (rc == 0)
		cli_report_count(r, l);
	r->img = in->img;
	r->l = l;
	const char **why = plan_stay_in_flash(in);
	for (size_t i = 0; i < in->img->nfuncs; i++)
		if (why[i]) {
			xb_grow(&r->startup, &r->startup_cap, r->nstartup + 1, sizeof *r->startup);
			r->startup[r->nstartup++] = image_qualified_name(in->img, &in->img->funcs[i]);
		}
	free(why);
	return rc;
}

void cli_report_free(cli_report *r)
{
	for (size_t i = 0; i < r->nstartup; i++)
		free(r->startup[i]);
	free(r->startup);
	r->startup = NULL;
	r->nstartup = r->startup_cap = 0;
}

static void json_num(FILE *f, const char *key, double v, int last)
{
	fprintf(f, "  \"%s\": ", key);
	if (isnan(v))
		fputs("null", f);
	else
		fprintf(f, "%.3f", v);
	fputs(last ? "\n" : ",\n", f);
}

static void json_str(FILE *f, const char *key, const char *v)
{
	fprintf(f, "  \"%s\": ", key);
	if (v)
		xb_json_string(f, v);
	else
		fputs("null", f);
	fputs(",\n", f);
}

static void text_num(FILE *f, const char *label, double v, const char *unit)
{
	if (isnan(v))
		fprintf(f, "  %-28s -\n", label);
	else
		fprintf(f, "  %-28s %.1f%s\n", label, v, unit);
}

void cli_report_print(const cli_report *r, int json, FILE *f)
{
	const xb_prediction *p = &r->layout, *s = &r->stock;
	if (json) {
		fputs("{\n", f);
		json_str(f, "strategy", r->strategy);
		json_str(f, "elf", r->elf);
		json_str(f, "map", r->map);
		json_str(f, "trace", r->trace);
		json_str(f, "samples", r->samples);
		json_str(f, "layout", r->layout_dir);
		json_str(f, "model", p->model);
		fprintf(f, "  \"functions_hot\": %zu,\n  \"functions_coloured\": %zu,\n"
			   "  \"functions_sram\": %zu,\n  \"functions_noalloc\": %zu,\n",
			r->functions_hot, r->functions_coloured, r->functions_sram,
			r->functions_noalloc);
		fprintf(f, "  \"hot_bytes\": %u,\n  \"pad_bytes\": %u,\n  \"extra_ram_bytes\": %u,\n",
			p->hot_bytes, p->pad_bytes, p->extra_ram);
		json_num(f, "predicted_misses_per_echo", p->misses_per_echo, 0);
		json_num(f, "stock_misses_per_echo", s->misses_per_echo, 0);
		json_num(f, "opt_bound_misses_per_echo", p->opt_bound_per_echo, 0);
		json_num(f, "stock_opt_bound_misses_per_echo", s->opt_bound_per_echo, 0);
		json_num(f, "footprint_lines", p->footprint_lines, 0);
		json_num(f, "stock_footprint_lines", s->footprint_lines, 0);
		fprintf(f, "  \"compulsory\": %llu,\n  \"capacity\": %llu,\n  \"conflict\": %lld,\n",
			(unsigned long long)p->compulsory, (unsigned long long)p->capacity,
			(long long)p->conflict);
		fprintf(f, "  \"sets_over_ways\": %u,\n  \"stock_sets_over_ways\": %u,\n",
			p->sets_over_ways, s->sets_over_ways);
		json_num(f, "conflict_score", p->conflict_score, 0);
		json_num(f, "stock_conflict_score", s->conflict_score, 0);
		fputs("  \"veneers\": ", f);
		fprintf(f, "{\"flash_bytes\": %u, \"ram_bytes\": %u},\n", p->veneer_bytes_flash,
			p->veneer_bytes_ram);
		fputs("  \"startup_path\": [", f);
		for (size_t i = 0; i < r->nstartup; i++) {
			if (i)
				fputs(", ", f);
			xb_json_string(f, r->startup[i]);
		}
		fputs("],\n", f);
		fputs("  \"sram_refused\": [", f);
		for (size_t i = 0; r->l && i < r->l->nrefused; i++) {
			char *q = image_qualified_name(r->img, &r->img->funcs[r->l->refused[i].func]);
			fputs(i ? ", {\"function\": " : "{\"function\": ", f);
			xb_json_string(f, q);
			fputs(", \"reason\": ", f);
			xb_json_string(f, r->l->refused[i].why);
			fputs("}", f);
			free(q);
		}
		fputs("]\n}\n", f);
		return;
	}
	fprintf(f, "layout %s for %s (%s)\n", r->strategy ? r->strategy : "?", r->elf,
		p->model ? p->model : "no model");
	fprintf(f, "  functions: %zu hot, %zu coloured, %zu in SRAM", r->functions_hot,
		r->functions_coloured, r->functions_sram);
	if (r->functions_noalloc)
		fprintf(f, ", %zu through the no-allocate alias", r->functions_noalloc);
	fprintf(f, "; hot block %u bytes, padding %u bytes, extra RAM %u bytes\n", p->hot_bytes,
		p->pad_bytes, p->extra_ram);
	text_num(f, "predicted misses per echo", p->misses_per_echo, "");
	text_num(f, "stock misses per echo", s->misses_per_echo, "");
	text_num(f, "OPT bound per echo", p->opt_bound_per_echo, "");
	text_num(f, "footprint (lines per echo)", p->footprint_lines, "");
	if (!isnan(p->misses_per_echo))
		fprintf(f, "  %-28s compulsory %llu, capacity %llu, conflict %lld\n", "3C (whole trace)",
			(unsigned long long)p->compulsory, (unsigned long long)p->capacity,
			(long long)p->conflict);
	fprintf(f, "  %-28s %u (stock %u)\n", "sets over ways", p->sets_over_ways,
		s->sets_over_ways);
	if (p->veneer_bytes_flash || p->veneer_bytes_ram)
		fprintf(f, "  %-28s %u bytes in flash, %u in SRAM (calls a BL cannot reach)\n",
			"veneers", p->veneer_bytes_flash, p->veneer_bytes_ram);
	for (size_t i = 0; r->l && i < r->l->nrefused; i++) {
		char *q = image_qualified_name(r->img, &r->img->funcs[r->l->refused[i].func]);
		fprintf(f, "  %-28s %s: %s\n", i ? "" : "left in flash", q, r->l->refused[i].why);
		free(q);
	}
	if (r->nstartup && (r->functions_sram || r->functions_noalloc || (r->l && r->l->nrefused))) {
		fprintf(f, "  %-28s %zu functions stay in flash:", "start-up path", r->nstartup);
		for (size_t i = 0; i < r->nstartup && i < 12; i++)
			fprintf(f, "%s %s", i ? "," : "", r->startup[i]);
		fputs(r->nstartup > 12 ? ", ...\n" : "\n", f);
	}
	if (!isnan(p->conflict_score))
		fprintf(f, "  %-28s %.1f (stock %.1f; %s)\n", "conflict score", p->conflict_score,
			s->conflict_score, "model: heat of often-executed lines in overfull sets");
}
