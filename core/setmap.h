/* setmap: the cache sets of the current layout: for each set, the hot lines that map to it
 * (lines with samples, from the live profile and the functions' addresses), and where
 * known the misses a trace replay predicts per set, the misses the virtual bench counts
 * per set and what its cache holds. The model of the cache-sets panel. */
#ifndef XB_SETMAP_H
#define XB_SETMAP_H

#include <stddef.h>
#include <stdint.h>

#include "layout.h"
#include "liveprof.h"
#include "profile.h"
#include "target.h"

typedef struct xb_setmap_line {
	uint32_t line;  /* line address (normal flash alias) */
	long func;      /* function index in the image, -1 none */
	double value;   /* its samples in the window (the profile's figure) */
} xb_setmap_line;

typedef struct xb_setmap {
	uint32_t nsets, ways, line_size;
	/* per set (nsets entries) */
	uint32_t *hot;        /* hot lines in the set (distinct line addresses: a line two
			       * functions share is one line of the cache) */
	double *heat;         /* their samples (all functions') */
	uint32_t hot_max;     /* the largest hot count of any set */
	uint32_t sets_over;   /* sets with more hot lines than ways */
	size_t hot_lines;     /* hot lines in all sets */
	/* the hot lines, one entry per (line, function), by set, then address, then function:
	 * set s has lines[first[s] .. first[s + 1]) */
	xb_setmap_line *lines;
	size_t nlines, cap;
	size_t *first;        /* nsets + 1 entries */
	/* optional per-set figures (NULL when not known) */
	double *predicted;    /* misses per echo a trace replay gives each set */
	char predicted_from[64]; /* what predicted comes from: "trace echo.trace, 300 echoes" */
	double *live;         /* misses per second the virtual bench counts in each set */
	int64_t *contents;    /* nsets * ways: the line address in (set, way), -1 empty; way 0 is
			       * the most recently used under LRU */
} xb_setmap;

/* An empty map for the target's cache (nsets = size / line / ways). */
void setmap_init(xb_setmap *m, const xb_target *tg);
void setmap_free(xb_setmap *m);
/* Recomputes the hot lines from the profile: every line with a figure above 0 in the
 * window whose address lies in a flash alias that uses the cache (cached-alloc,
 * cached-noalloc, uncached-alloc: a look-up or a fill takes a way; the bypassing
 * uncached-noalloc alias, SRAM, the cache-as-SRAM window and ROM hold no set). Lines are
 * given in the normal alias (flash_base + offset), in the target's line size. The
 * optional per-set figures are kept. */
void setmap_update(xb_setmap *m, const xb_target *tg, const xb_liveprof *p, int window);
/* The same from a profile of samples (its lines with a net figure above 0) moved to where
 * a placement puts them (pl NULL: where they are): the sets a layout would give the hot
 * code before it is relinked. A line moves with the byte that starts it (placement_move),
 * so a function moved to a start that is not line-aligned keeps its lines' starts. */
void setmap_update_moved(xb_setmap *m, const xb_target *tg, const xb_profile *p,
			 const xb_placement *pl);
/* Copies per-set figures in (nsets values, contents nsets * ways at [set * ways + way];
 * NULL clears them; from is copied, bounded). */
void setmap_set_predicted(xb_setmap *m, const double *per_set, const char *from);
void setmap_set_live(xb_setmap *m, const double *misses_per_s);
void setmap_set_contents(xb_setmap *m, const int64_t *tags);
/* The set of a line address for the map's geometry. */
uint32_t setmap_set_of(const xb_setmap *m, uint32_t addr);

#endif
