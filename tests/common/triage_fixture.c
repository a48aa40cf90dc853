/* triage_fixture: a known triage built in memory (see triage_fixture.h). */
#include "triage_fixture.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void add(xb_triage *t, const char *rule, enum xb_severity sev, const char *summary,
		const char *gain, const char *fix, const char *action, int nevidence)
{
	t->f = xrealloc(t->f, (t->n + 1) * sizeof *t->f);
	xb_finding *f = &t->f[t->n++];
	memset(f, 0, sizeof *f);
	f->rule = rule;
	f->severity = sev;
	f->summary = xstrdup(summary);
	f->gain = gain ? xstrdup(gain) : NULL;
	f->fix = fix ? xstrdup(fix) : NULL;
	f->action = action ? xstrdup(action) : NULL;
	f->nevidence = (size_t)nevidence;
	f->evidence = xcalloc((size_t)nevidence + 1, sizeof *f->evidence);
	for (int k = 0; k < nevidence; k++)
		f->evidence[k] = xasprintf("%s evidence line %d: set %d holds 3 hot lines of "
					   "net_ipv4_input, z_swap and memcpy", rule, k + 1,
					   100 + k);
}

static void skip(xb_triage *t, const char *rule, const char *why)
{
	t->skipped = xrealloc(t->skipped, (t->nskipped + 1) * sizeof *t->skipped);
	t->skipped[t->nskipped].rule = rule;
	t->skipped[t->nskipped].why = xstrdup(why);
	t->nskipped++;
}

void triage_fixture(xb_triage *t, int reversed)
{
	memset(t, 0, sizeof *t);
	t->busy_samples = reversed ? 20480 : 9368;
	if (!reversed)
		add(t, "cache-off", XB_SEV_SEVERE,
		    "the flash cache is off: every fetch from flash waits for the flash", NULL,
		    "set XIP_CTRL.EN and clear POWER_DOWN", NULL, 1);
	add(t, "capacity", XB_SEV_WARNING,
	    reversed ? "one echo touches 2600 cache lines" : "one echo touches 2555 cache lines",
	    NULL, "move at least 4.0 KB of the hot path to SRAM", ":preset sram 4K", 2);
	add(t, "conflicting-sets", XB_SEV_WARNING,
	    "12 cache sets hold more hot lines than the 2 ways", "about 300 misses per echo fewer",
	    "give the hot functions their own cache colours", ":preset colour", 12);
	add(t, "debug-features", XB_SEV_NOTE,
	    "1.1 % of the busy time is in assertions, logging or statistics", NULL,
	    "turn assertions and statistics off for speed measurements", NULL, 3);
	add(t, "idle-and-interrupts", XB_SEV_INFO,
	    "91.6 % of the traffic window asleep, 0.0 % awake in idle code, 0.4 % in interrupt "
	    "handlers; the core waits more than it works: the limit is elsewhere, not the code",
	    NULL, NULL, NULL, 2);
	skip(t, "noalloc-reuse", "no trace (reuse within an echo is counted from a fetch trace)");
	skip(t, "optimisation", "no DWARF producers in the image");
	if (reversed) { /* the same rules, the warnings the other way round */
		xb_finding f = t->f[0];
		t->f[0] = t->f[1];
		t->f[1] = f;
	}
}
