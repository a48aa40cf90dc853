/* triage: why is this build slow? Rules from one table look at an image, its PC samples, the
 * chip's registers when a bench gives them, and the build's configuration, and each says what
 * it found: a severity, the evidence (numbers, registers, functions, flags), the gain the model
 * can predict where it can, and a fix. docs/triage.md describes every rule and its thresholds;
 * the method follows the hand triage of a slow build and the study's list of what did not work
 * (../shared/seeds/003_d2d5e588f6f98de6.txt, ../shared/seeds/000_3922d7c312d3ad89.txt). */
#ifndef XB_TRIAGE_H
#define XB_TRIAGE_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "profile.h"
#include "target.h"
#include "util.h"

enum xb_severity {
	XB_SEV_INFO = 0,   /* how the time is spent; nothing to fix */
	XB_SEV_NOTE,       /* worth a look; a small or uncertain cost */
	XB_SEV_WARNING,    /* a measurable cost with a known fix */
	XB_SEV_SEVERE,     /* a large share of the time, or the cache not working at all */
};
const char *triage_severity_name(enum xb_severity s);

/* What the rules look at; every pointer but img and tg may be NULL (the rules that need it
 * say they were not checked). */
typedef struct xb_triage_in {
	const xb_image *img;
	const xb_target *tg;
	const xb_samples *samples; /* as read: sleeping and idle-window samples included */
	const struct xb_trace *trace; /* a fetch trace with echo boundaries (core/trace.h) */
	const uint8_t *elf;        /* the ELF's bytes (code for the code scan, DWARF) */
	size_t elf_len;
	int have_xip_ctrl;         /* read over SWD from a bench: XIP_CTRL's value */
	uint32_t xip_ctrl;
	const struct xb_mpu *mpu;  /* the MPU's registers (core/mpu.h), from a bench or a dump,
				    * for a target whose flash cacheability the MPU sets */
	const char *config;        /* a Zephyr .config or a CMakeCache.txt, NUL-terminated text */
	const char *config_name;   /* its path, for the evidence */
} xb_triage_in;

typedef struct xb_finding {
	const char *rule;          /* the rule's id ("cache-off") */
	enum xb_severity severity;
	char *summary;             /* one line */
	char **evidence;           /* lines: the numbers, registers, functions, flags */
	size_t nevidence;
	char *gain;                /* what the model predicts the fix gains, or NULL */
	char *fix;                 /* what to do */
	char *action;              /* the workbench command that tries the fix (":preset colour"),
				    * or NULL */
} xb_finding;

/* A rule that could not look (no samples, no DWARF ...) and why. */
typedef struct xb_triage_skip {
	const char *rule;
	char *why;
} xb_triage_skip;

typedef struct xb_triage {
	xb_finding *f;             /* most severe first, then in rule order */
	size_t n;
	xb_triage_skip *skipped;
	size_t nskipped;
	double busy_samples;       /* busy, awake samples the shares are of (0: no samples) */
} xb_triage;

typedef struct xb_triage_rule {
	const char *id;
	const char *title;
} xb_triage_rule;
/* The rules, in the order they run. */
const xb_triage_rule *triage_rules(size_t *n);

/* Runs every rule. Never fails on an image without samples, map or DWARF: those rules are
 * skipped with a reason. Returns 0, or -1 with err when an input is unusable (a corrupt
 * DWARF section is a skip, not an error). */
int triage_run(const xb_triage_in *in, xb_triage *out, xb_err *err);
void triage_free(xb_triage *t);

/* ---- Two builds side by side: why is this build slower than the last one ---- */

typedef struct xb_triage_change {
	const char *rule;
	int old_severity, new_severity; /* enum xb_severity, or -1: no such finding */
	const char *old_summary, *new_summary; /* the findings' (owned by the triages), or NULL */
} xb_triage_change;

typedef struct xb_func_change {
	const char *name;           /* the new image's qualified name (owned by the compare) */
	uint32_t old_addr, new_addr, old_size, new_size;
	const char *old_library, *new_library; /* owned by the images */
} xb_func_change;

typedef struct xb_triage_compare {
	xb_triage_change *changes;  /* per rule with a finding in either: new, gone or changed
				     * findings (same severity: left out) */
	size_t nchanges;
	size_t both, added, removed; /* functions matched by qualified name */
	xb_func_change *grew;       /* bigger in the new build, the most grown first */
	size_t ngrew;
	size_t shrank;
	size_t moved, moved_sets;   /* functions at another address; of those, in other cache
				     * sets (their first line's set changed) */
	xb_func_change *relibbed;   /* in another library */
	size_t nrelibbed;
	uint64_t old_flash, new_flash; /* bytes of functions in flash */
	char **names;               /* the qualified names the changes point to */
	size_t nnames;
} xb_triage_compare;

void triage_compare(const xb_image *old_img, const xb_image *new_img, const xb_target *tg,
		    const xb_triage *old_t, const xb_triage *new_t, xb_triage_compare *out);
void triage_compare_free(xb_triage_compare *c);

#endif
