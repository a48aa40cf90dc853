/* test_probe_common.h: a virtual Pico with its virtual CMSIS-DAP probe for the tests of
 * probe/ (the host side): the board, the port, the probe (in process, or behind a
 * socketpair served in the test's own thread), and the test programs of tests/data/dap.
 * Header-only (static functions). */
#ifndef XB_TEST_PROBE_COMMON_H
#define XB_TEST_PROBE_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

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

/* ---- The probe behind a socketpair, served in the caller's thread ---- */

/* The client's socket transport, wrapped so that a transfer or a collect that would wait
 * serves the server instead (no thread needed); submit and ready go straight to the socket
 * transport, so a test driving a pipe calls dap_socket_service itself. */
typedef struct tp_served {
	xb_transport base;
	xb_transport *inner; /* transport_socket_adopt on the client's end */
	xb_dap_server *srv;  /* dap_socket_adopt on the other end (the caller closes it) */
} tp_served;

static inline int tp_served_submit(xb_transport *t, const uint8_t *req, size_t len,
				   xb_err *err)
{
	return transport_submit(((tp_served *)t)->inner, req, len, err);
}

/* Serves the server until the oldest response has come (bounded). */
static inline int tp_served_wait(tp_served *s, xb_err *err)
{
	for (int i = 0; i < 100000; i++) {
		int r = transport_ready(s->inner, err);
		if (r != 0)
			return r < 0 ? -1 : 0;
		if (dap_socket_service(s->srv, err) < 0)
			return -1;
	}
	return xb_fail(err, "%s: no response", s->base.name);
}

static inline int tp_served_collect(xb_transport *t, uint8_t *resp, size_t cap, size_t *rlen,
				    xb_err *err)
{
	tp_served *s = (tp_served *)t;
	if (tp_served_wait(s, err))
		return -1;
	return transport_collect(s->inner, resp, cap, rlen, err);
}

static inline int tp_served_ready(xb_transport *t, xb_err *err)
{
	return transport_ready(((tp_served *)t)->inner, err);
}

static inline int tp_served_fd(xb_transport *t)
{
	return transport_fd(((tp_served *)t)->inner);
}

static inline int tp_served_xfer(xb_transport *t, const uint8_t *req, size_t len,
				 uint8_t *resp, size_t cap, size_t *rlen, xb_err *err)
{
	tp_served *s = (tp_served *)t;
	if (transport_submit(s->inner, req, len, err) || tp_served_wait(s, err))
		return -1;
	return transport_collect(s->inner, resp, cap, rlen, err);
}

static inline void tp_served_close(xb_transport *t)
{
	transport_close(((tp_served *)t)->inner);
	free(t);
}

static inline const xb_transport_ops *tp_served_ops(void)
{
	static const xb_transport_ops ops = {
		.kind = "served",
		.xfer = tp_served_xfer,
		.submit = tp_served_submit,
		.collect = tp_served_collect,
		.ready = tp_served_ready,
		.fd = tp_served_fd,
		.close = tp_served_close,
	};
	return &ops;
}

/* A socketpair: v's probe served on one end (*srv, unpaced), the returned transport on the
 * other (for probe_attach). */
static inline xb_transport *tp_socketpair(vpico *v, xb_dap_server **srv)
{
	int sv[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
		abort();
	tp_served *s = xcalloc(1, sizeof *s);
	transport_init(&s->base, tp_served_ops(), "the virtual probe on a socketpair");
	s->inner = transport_socket_adopt(sv[0], "the virtual probe on a socketpair");
	s->base.packet_size = s->inner->packet_size;
	s->base.link_max = s->inner->link_max;
	s->srv = *srv = dap_socket_adopt(sv[1], v->dap);
	return &s->base;
}

/* ---- Packets for pipes ---- */

/* DAP_Transfer: TAR = addr, then a DRW write of value (write) or a DRW read. */
static inline size_t tp_mem_packet(uint8_t *pkt, size_t cap, uint32_t addr, int write,
				   uint32_t value)
{
	xb_dap_transfer x[2] = {{ADI_REQ_TAR_WRITE, addr},
				{write ? ADI_REQ_DRW_WRITE : ADI_REQ_DRW_READ, value}};
	return dap_client_build_transfer(x, 2, pkt, cap);
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
