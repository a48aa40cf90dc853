/* transport_virtual: the virtual CMSIS-DAP probe (sim/dap.h) in this process; its clock is
 * the board's virtual time. */
#include <stdlib.h>

#include "../sim/dap.h"
#include "transport.h"

static const xb_transport_ops transport_virtual_ops;

typedef struct virtual_link {
	xb_transport base;
	xb_dap *dap;
	uint32_t cpu_hz;
} virtual_link;

static int virtual_xfer(xb_transport *t, const uint8_t *req, size_t len, uint8_t *resp,
			size_t cap, size_t *rlen, xb_err *err)
{
	virtual_link *v = (virtual_link *)t;
	return dap_transact(v->dap, req, len, resp, cap, rlen, err);
}

static int virtual_submit(xb_transport *t, const uint8_t *req, size_t len, xb_err *err)
{
	virtual_link *v = (virtual_link *)t;
	return dap_submit(v->dap, req, len, err);
}

static int virtual_collect(xb_transport *t, uint8_t *resp, size_t cap, size_t *rlen,
			   xb_err *err)
{
	virtual_link *v = (virtual_link *)t;
	if (dap_collect(v->dap, resp, cap, rlen, NULL) != 1)
		return xb_fail(err, "%s: no response waiting (a packet without one was sent?)",
			       t->name);
	return 0;
}

/* The virtual probe works eagerly: a packet's response exists as soon as it is sent. */
static int virtual_ready(xb_transport *t, xb_err *err)
{
	(void)t;
	(void)err;
	return 1;
}

static uint64_t virtual_now_ns(xb_transport *t)
{
	virtual_link *v = (virtual_link *)t;
	return (uint64_t)((unsigned __int128)dap_host_time(v->dap) * 1000000000u / v->cpu_hz);
}

static void virtual_wait(xb_transport *t, uint64_t ns)
{
	virtual_link *v = (virtual_link *)t;
	dap_host_wait(v->dap, (uint64_t)((unsigned __int128)ns * v->cpu_hz / 1000000000u));
}

static void virtual_close(xb_transport *t)
{
	free(t);
}

xb_transport *transport_virtual_new(struct xb_dap *d, uint32_t cpu_hz)
{
	virtual_link *v = xcalloc(1, sizeof *v);
	transport_init(&v->base, &transport_virtual_ops, "the virtual probe (in process)");
	v->base.packet_size = dap_config(d)->packet_size;
	v->base.link_max = v->base.packet_size;
	v->base.virtual_time = 1;
	v->dap = d;
	v->cpu_hz = cpu_hz ? cpu_hz : 125000000u;
	return &v->base;
}

static const xb_transport_ops transport_virtual_ops = {
	.kind = "virtual",
	.xfer = virtual_xfer,
	.submit = virtual_submit,
	.collect = virtual_collect,
	.ready = virtual_ready,
	.now_ns = virtual_now_ns,
	.wait = virtual_wait,
	.close = virtual_close,
};
