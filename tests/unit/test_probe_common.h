/* test_probe_common.h: a virtual Pico with its virtual CMSIS-DAP probe for the tests of
 * probe/ (the host side): the board, the port, the probe, and the test programs of
 * tests/data/dap. Header-only (static functions). */
#ifndef XB_TEST_PROBE_COMMON_H
#define XB_TEST_PROBE_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/image.h"
#include "../../probe/cortexm.h"
#include "../../probe/probe.h"
#include "../../probe/rp2040.h"
#include "../../probe/sampler.h"
#include "../../sim/pico.h"
#include "test_dap_common.h"

#define TP_SWCLK 24000000u
#define TP_MS 1000000ull

typedef struct vpico {
	xb_pico *pico;
	xb_board *b;
	xb_swd *swd;
	xb_dap *dap;
} vpico;

/* A virtual Pico (strict: unmapped accesses are bus errors) with a probe on its port. */
static inline void vpico_init(vpico *v, int strict, const xb_dap_config *c)
{
	xb_target t;
	sim_target(&t);
	xb_pico_options o;
	pico_options_init(&o);
	o.quiet = 1;
	o.strict = strict;
	xb_err err;
	v->pico = pico_new(&t, &o, &err);
	if (!v->pico) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
	v->b = pico_board(v->pico);
	v->swd = swd_new(v->b);
	v->dap = dap_new(v->swd, c);
}

static inline void vpico_free(vpico *v)
{
	dap_free(v->dap);
	swd_free(v->swd);
	pico_free(v->pico);
}

/* The in-process transport to v's probe. */
static inline xb_transport *vpico_transport(vpico *v)
{
	return transport_virtual_new(v->dap, board_cpu_hz(v->b));
}

/* A session on core's debug port at 24 MHz SWCLK; aborts on failure. */
/* A virtual Pico and a probe session on it: the cmocka state of the probe tests. */
typedef struct vprobe {
	vpico v;
	xb_probe p;
} vprobe;

static inline int vprobe_setup_strict(void **state, int strict)
{
	vprobe *f = calloc(1, sizeof *f);
	vpico_init(&f->v, strict, NULL);
	*state = f;
	return 0;
}

static inline int vprobe_setup(void **state)
{
	return vprobe_setup_strict(state, 0);
}

static inline int vprobe_teardown(void **state)
{
	vprobe *f = *state;
	probe_close(&f->p);
	vpico_free(&f->v);
	free(f);
	return 0;
}

static inline void vpico_attach(vpico *v, xb_probe *p, unsigned core)
{
	xb_probe_options o = {.swclk_hz = TP_SWCLK, .core = core};
	xb_err err;
	if (probe_attach(p, vpico_transport(v), &o, &err)) {
		fprintf(stderr, "probe_attach: %s\n", err.msg);
		abort();
	}
}

/* Loads tests/data/dap/NAME into flash, resets, and lets it run for cycles. */
static inline void vpico_run_program(vpico *v, const char *name, uint64_t cycles)
{
	dh_load_program(v->b, name);
	pico_run(v->pico, cycles);
}

/* The functions of tests/data/dap/NAME.elf (core/image). */
static inline void tp_image(xb_image *img, const char *name)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s.elf", dh_programs(), name);
	xb_target t;
	sim_target(&t);
	xb_err err;
	if (image_load_elf(img, path, &t, &err)) {
		fprintf(stderr, "%s\n", err.msg);
		abort();
	}
}

#endif
