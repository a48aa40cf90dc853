/* probe: opening a transport, its CMSIS-DAP client and a core's debug port in one go. */
#include "probe.h"

#include <string.h>

uint32_t probe_targetsel(unsigned core)
{
	switch (core) {
	case 0: return ADI_TARGETSEL_RP2040_CORE0;
	case 1: return ADI_TARGETSEL_RP2040_CORE1;
	default: return ADI_TARGETSEL_RP2040_RESCUE;
	}
}

static int probe_client(xb_probe *p, xb_transport *t, xb_err *err)
{
	memset(p, 0, sizeof *p);
	if (!t)
		return -1;
	p->dap = dap_client_new(t, err);
	return p->dap ? 0 : -1;
}

int probe_open_client(xb_probe *p, const xb_probe_options *o, xb_err *err)
{
	xb_transport *t = o->socket ? transport_socket_open(o->socket, err)
				    : transport_usb_open(o->serial, err);
	return probe_client(p, t, err);
}

int probe_connect(xb_probe *p, const xb_probe_options *o, xb_err *err)
{
	if (dap_client_swj_clock(p->dap, o->swclk_hz ? o->swclk_hz : PROBE_SWCLK_DEFAULT, err))
		return -1;
	if (!p->adi)
		p->adi = adi_new(p->dap);
	return adi_connect(p->adi, probe_targetsel(o->core), err);
}

int probe_attach(xb_probe *p, xb_transport *t, const xb_probe_options *o, xb_err *err)
{
	if (probe_client(p, t, err))
		return -1;
	if (probe_connect(p, o, err)) {
		probe_close(p);
		return -1;
	}
	return 0;
}

int probe_open(xb_probe *p, const xb_probe_options *o, xb_err *err)
{
	if (probe_open_client(p, o, err))
		return -1;
	if (probe_connect(p, o, err)) {
		probe_close(p);
		return -1;
	}
	return 0;
}

void probe_close(xb_probe *p)
{
	adi_free(p->adi);
	dap_client_free(p->dap);
	memset(p, 0, sizeof *p);
}
