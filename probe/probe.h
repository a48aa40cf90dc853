/* probe: a debug session in one handle: a transport (USB probe, the virtual probe behind
 * a socket or in this process), its CMSIS-DAP client and the debug port of one core. */
#ifndef XB_PROBE_PROBE_H
#define XB_PROBE_PROBE_H

#include <stdint.h>

#include "../core/util.h"
#include "adiv5.h"
#include "dap_client.h"
#include "transport.h"

#define PROBE_SWCLK_DEFAULT 10000000u

typedef struct xb_probe {
	xb_dap_client *dap; /* owns the transport */
	xb_adi *adi;
} xb_probe;

typedef struct xb_probe_options {
	const char *serial;   /* USB probe by serial number (NULL: the only one) */
	const char *socket;   /* the virtual probe behind this Unix socket instead of USB */
	uint32_t swclk_hz;    /* 0: PROBE_SWCLK_DEFAULT */
	unsigned core;        /* 0 or 1 (RP2040 TARGETSEL); 2: the rescue DP */
} xb_probe_options;

/* Opens the transport the options name (socket, else USB), asks DAP_Info, sets SWCLK and
 * connects to the core's debug port. On failure p is empty and err says which step. */
int probe_open(xb_probe *p, const xb_probe_options *o, xb_err *err);
/* The same on a transport of the caller's (owned from now on, closed on failure too). */
int probe_attach(xb_probe *p, xb_transport *t, const xb_probe_options *o, xb_err *err);
/* The client alone, without touching the target (for `probe info` of an unconnected
 * probe). */
int probe_open_client(xb_probe *p, const xb_probe_options *o, xb_err *err);
/* Connects p's client to the debug port of o->core. */
int probe_connect(xb_probe *p, const xb_probe_options *o, xb_err *err);
void probe_close(xb_probe *p);

/* TARGETSEL of an RP2040 core number (0, 1; 2 the rescue DP). */
uint32_t probe_targetsel(unsigned core);

#endif
