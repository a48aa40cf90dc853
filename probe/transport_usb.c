/* transport_usb: finding CMSIS-DAP probes on USB (libusb), opening one by serial number,
 * claiming its interface, and what libusb errors mean to a user. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "usb_internal.h"

#define CMSIS_DAP_MARK "CMSIS-DAP"

/* Probes known by VID:PID, so that one the user may not open is still reported. */
static const struct known_probe {
	uint16_t vid, pid;
	const char *name;
} known_probes[] = {
	{0x2E8A, 0x000C, "Raspberry Pi Debug Probe"},
};

static const char udev_advice[] =
	"add a udev rule, e.g. /etc/udev/rules.d/60-xipbench-probe.rules with the line "
	"SUBSYSTEM==\"usb\", ATTR{idVendor}==\"%04x\", ATTR{idProduct}==\"%04x\", "
	"MODE=\"0660\", GROUP=\"plugdev\", TAG+=\"uaccess\"; then `sudo udevadm control "
	"--reload && sudo udevadm trigger`, make sure you are in the plugdev group (`groups`; "
	"`sudo usermod -aG plugdev $USER`, then log in again) and replug the probe";

/* One candidate interface of a device. */
typedef struct usb_candidate {
	int iface;
	int hid;
	uint8_t ep_out, ep_in;
	uint16_t in_size;
	uint8_t string_index; /* iInterface */
} usb_candidate;

int transport_usb_fail(const usb_link *u, const char *what, int rc, xb_err *err)
{
	const char *name = u->base.name;
	switch (rc) {
	case LIBUSB_ERROR_NO_DEVICE:
		return xb_fail(err, "%s: the probe disappeared while %s (unplugged?); reconnect it "
				    "and run the command again",
			       name, what);
	case LIBUSB_ERROR_TIMEOUT:
		return xb_fail(err, "%s: no answer within %u ms while %s; unplug and reconnect the "
				    "probe",
			       name, u->base.timeout_ms, what);
	case LIBUSB_ERROR_PIPE:
		return xb_fail(err, "%s: the endpoint stalled while %s", name, what);
	case LIBUSB_ERROR_OVERFLOW:
		return xb_fail(err, "%s: malformed response: more data than a packet while %s",
			       name, what);
	case LIBUSB_ERROR_ACCESS:
		return xb_fail(err, "%s: permission denied while %s", name, what);
	default:
		return xb_fail(err, "%s: %s while %s", name, libusb_strerror(rc), what);
	}
}

void transport_usb_close(xb_transport *t)
{
	usb_link *u = (usb_link *)t;
	usb_async_stop(u); /* before the interface goes */
	if (u->handle) {
		libusb_release_interface(u->handle, u->iface);
		libusb_close(u->handle);
	}
	if (u->ctx)
		libusb_exit(u->ctx);
	free(u);
}

static const struct known_probe *usb_known(uint16_t vid, uint16_t pid)
{
	for (size_t i = 0; i < sizeof known_probes / sizeof known_probes[0]; i++)
		if (known_probes[i].vid == vid && known_probes[i].pid == pid)
			return &known_probes[i];
	return NULL;
}

/* The CMSIS-DAP candidates of a configuration: vendor-class interfaces with a bulk OUT
 * then a bulk IN endpoint (v2), HID interfaces with an interrupt IN endpoint (v1). */
static int usb_candidates(const struct libusb_config_descriptor *cfg, usb_candidate *out, int max)
{
	int n = 0;
	for (int i = 0; i < cfg->bNumInterfaces && n < max; i++) {
		if (cfg->interface[i].num_altsetting < 1)
			continue;
		const struct libusb_interface_descriptor *d = &cfg->interface[i].altsetting[0];
		usb_candidate c = {.iface = d->bInterfaceNumber, .string_index = d->iInterface};
		if (d->bInterfaceClass == LIBUSB_CLASS_VENDOR_SPEC && d->bNumEndpoints >= 2) {
			const struct libusb_endpoint_descriptor *o = &d->endpoint[0], *in = &d->endpoint[1];
			if ((o->bmAttributes & 3) != LIBUSB_TRANSFER_TYPE_BULK ||
			    (in->bmAttributes & 3) != LIBUSB_TRANSFER_TYPE_BULK ||
			    (o->bEndpointAddress & LIBUSB_ENDPOINT_IN) ||
			    !(in->bEndpointAddress & LIBUSB_ENDPOINT_IN))
				continue;
			c.ep_out = o->bEndpointAddress;
			c.ep_in = in->bEndpointAddress;
			c.in_size = in->wMaxPacketSize;
		} else if (d->bInterfaceClass == LIBUSB_CLASS_HID) {
			c.hid = 1;
			for (int e = 0; e < d->bNumEndpoints; e++) {
				const struct libusb_endpoint_descriptor *ep = &d->endpoint[e];
				if ((ep->bmAttributes & 3) != LIBUSB_TRANSFER_TYPE_INTERRUPT)
					continue;
				if (ep->bEndpointAddress & LIBUSB_ENDPOINT_IN) {
					if (!c.ep_in) {
						c.ep_in = ep->bEndpointAddress;
						c.in_size = ep->wMaxPacketSize;
					}
				} else if (!c.ep_out) {
					c.ep_out = ep->bEndpointAddress;
				}
			}
			if (!c.ep_in)
				continue;
		} else {
			continue;
		}
		out[n++] = c;
	}
	return n;
}

static void usb_string(libusb_device_handle *h, uint8_t index, char *out, size_t cap)
{
	out[0] = 0;
	if (!index)
		return;
	unsigned char buf[256];
	int n = libusb_get_string_descriptor_ascii(h, index, buf, sizeof buf);
	if (n > 0)
		xb_quote(out, cap, (const char *)buf, (size_t)n);
}

/* What probe a device is: fills p and the chosen candidate (v2 preferred); 1 when it is a
 * CMSIS-DAP probe (or a known one the user may not open), 0 when not. */
static int usb_examine(libusb_device *dev, xb_usb_probe *p, usb_candidate *chosen)
{
	struct libusb_device_descriptor dd;
	if (libusb_get_device_descriptor(dev, &dd) != 0)
		return 0;
	memset(p, 0, sizeof *p);
	p->vid = dd.idVendor;
	p->pid = dd.idProduct;
	p->bus = libusb_get_bus_number(dev);
	p->address = libusb_get_device_address(dev);
	struct libusb_config_descriptor *cfg;
	if (libusb_get_active_config_descriptor(dev, &cfg) != 0)
		return 0;
	usb_candidate cands[8];
	int n = usb_candidates(cfg, cands, 8);
	libusb_free_config_descriptor(cfg);
	if (n == 0)
		return 0;
	libusb_device_handle *h;
	int rc = libusb_open(dev, &h);
	if (rc != 0) {
		const struct known_probe *k = usb_known(p->vid, p->pid);
		if (!k || rc != LIBUSB_ERROR_ACCESS)
			return 0;
		p->access_denied = 1;
		snprintf(p->product, sizeof p->product, "%s", k->name);
		snprintf(p->version, sizeof p->version, "%s", cands[0].hid ? "v1" : "v2");
		*chosen = cands[0];
		return 1;
	}
	char product[128], text[128];
	usb_string(h, dd.iProduct, product, sizeof product);
	int found = 0;
	for (int pass = 0; pass < 2 && !found; pass++) { /* v2 first, then v1 */
		for (int i = 0; i < n && !found; i++) {
			if (cands[i].hid != pass)
				continue;
			usb_string(h, cands[i].string_index, text, sizeof text);
			const char *s = text[0] && !cands[i].hid ? text : product;
			if (strstr(s, CMSIS_DAP_MARK)) {
				*chosen = cands[i];
				found = 1;
			}
		}
	}
	if (found) {
		snprintf(p->product, sizeof p->product, "%s", product);
		usb_string(h, dd.iSerialNumber, p->serial, sizeof p->serial);
		snprintf(p->version, sizeof p->version, "%s", chosen->hid ? "v1" : "v2");
	}
	libusb_close(h);
	return found;
}

static int usb_start(libusb_context **ctx, xb_err *err)
{
	int rc = libusb_init(ctx);
	if (rc != 0)
		return xb_fail(err,
			       "cannot use USB: libusb_init: %s (no /dev/bus/usb, as in a "
			       "container?); for the virtual Pico use --socket PATH",
			       libusb_strerror(rc));
	return 0;
}

/* Walks the devices; for each probe calls fn (stops when it returns nonzero). */
typedef int (*usb_visit_fn)(void *ctx, libusb_device *dev, const xb_usb_probe *p,
			    const usb_candidate *c);

static int usb_walk(libusb_context *ctx, usb_visit_fn fn, void *arg, xb_err *err)
{
	libusb_device **devs;
	ssize_t n = libusb_get_device_list(ctx, &devs);
	if (n < 0)
		return xb_fail(err, "cannot list USB devices: %s", libusb_strerror((int)n));
	for (ssize_t i = 0; i < n; i++) {
		xb_usb_probe p;
		usb_candidate c;
		if (usb_examine(devs[i], &p, &c) && fn(arg, devs[i], &p, &c))
			break;
	}
	libusb_free_device_list(devs, 1);
	return 0;
}

typedef struct usb_list_ctx {
	xb_usb_probe *list;
	size_t n, cap;
} usb_list_ctx;

static int usb_list_visit(void *ctx, libusb_device *dev, const xb_usb_probe *p,
			  const usb_candidate *c)
{
	(void)dev;
	(void)c;
	usb_list_ctx *l = ctx;
	xb_grow(&l->list, &l->cap, l->n + 1, sizeof *l->list);
	l->list[l->n++] = *p;
	return 0;
}

int transport_usb_list(xb_usb_probe **list, size_t *n, xb_err *err)
{
	libusb_context *ctx;
	*list = NULL;
	*n = 0;
	if (usb_start(&ctx, err))
		return -1;
	usb_list_ctx l = {0};
	int rc = usb_walk(ctx, usb_list_visit, &l, err);
	libusb_exit(ctx);
	*list = l.list;
	*n = l.n;
	return rc;
}

/* Describes p in one line for messages. */
static void usb_describe(const xb_usb_probe *p, char *out, size_t cap)
{
	snprintf(out, cap, "%s %04x:%04x%s%s (bus %u device %u)",
		 p->product[0] ? p->product : "CMSIS-DAP probe", p->vid, p->pid,
		 p->serial[0] ? " serial " : "", p->serial, p->bus, p->address);
}

typedef struct usb_open_ctx {
	const char *serial;
	xb_usb_probe match;
	usb_candidate cand;
	libusb_device *dev;
	unsigned matches, denied;
	xb_usb_probe denied_probe;
	xb_strbuf all;
} usb_open_ctx;

static int usb_open_visit(void *ctx, libusb_device *dev, const xb_usb_probe *p,
			  const usb_candidate *c)
{
	usb_open_ctx *o = ctx;
	char d[300];
	usb_describe(p, d, sizeof d);
	sb_printf(&o->all, "%s%s", o->all.len ? "; " : "", d);
	if (p->access_denied) {
		o->denied++;
		o->denied_probe = *p;
		return 0;
	}
	if (o->serial && strcmp(o->serial, p->serial) != 0)
		return 0;
	if (o->matches++ == 0) {
		o->match = *p;
		o->cand = *c;
		o->dev = libusb_ref_device(dev);
	}
	return 0;
}

/* Opens and claims the interface of the chosen probe. */
static xb_transport *usb_claim(libusb_context *ctx, usb_open_ctx *o, xb_err *err)
{
	usb_link *u = xcalloc(1, sizeof *u);
	char d[300];
	usb_describe(&o->match, d, sizeof d);
	transport_init(&u->base, o->cand.hid ? &transport_usb_hid_ops : &transport_usb_bulk_ops,
		       "%s", d);
	u->ctx = ctx;
	u->iface = o->cand.iface;
	u->hid = o->cand.hid;
	u->ep_out = o->cand.ep_out;
	u->ep_in = o->cand.ep_in;
	u->report = o->cand.in_size ? o->cand.in_size : 64;
	if (u->report > TRANSPORT_PACKET_MAX)
		u->report = TRANSPORT_PACKET_MAX;
	u->base.packet_size = u->report;
	u->base.link_max = o->cand.hid ? u->report : TRANSPORT_PACKET_MAX;
	int rc = libusb_open(o->dev, &u->handle);
	if (rc == 0) {
		libusb_set_auto_detach_kernel_driver(u->handle, 1); /* HID: usbhid owns it */
		rc = libusb_claim_interface(u->handle, u->iface);
		if (rc == LIBUSB_ERROR_BUSY) {
			xb_fail(err, "%s: interface %d is in use by another program (OpenOCD, "
				     "probe-rs, a debugger?); stop it and try again",
				d, u->iface);
			goto fail;
		}
	}
	if (rc == LIBUSB_ERROR_ACCESS) {
		char advice[600];
		snprintf(advice, sizeof advice, udev_advice, o->match.vid, o->match.pid);
		xb_fail(err, "%s: permission denied; %s", d, advice);
		goto fail;
	}
	if (rc) {
		transport_usb_fail(u, "opening it", rc, err);
		goto fail;
	}
	if (usb_async_start(u, err))
		goto fail;
	return &u->base;
fail:
	usb_async_stop(u);
	if (u->handle)
		libusb_close(u->handle);
	u->handle = NULL;
	u->ctx = NULL;
	transport_usb_close(&u->base);
	return NULL;
}

xb_transport *transport_usb_open(const char *serial, xb_err *err)
{
	libusb_context *ctx;
	if (usb_start(&ctx, err))
		return NULL;
	usb_open_ctx o = {.serial = serial};
	xb_transport *t = NULL;
	if (usb_walk(ctx, usb_open_visit, &o, err))
		goto out;
	if (o.matches == 0) {
		if (o.denied) {
			char d[300], advice[600];
			usb_describe(&o.denied_probe, d, sizeof d);
			snprintf(advice, sizeof advice, udev_advice, o.denied_probe.vid,
				 o.denied_probe.pid);
			xb_fail(err, "found %s, but permission denied; %s", d, advice);
		} else if (serial && o.all.len) {
			xb_fail(err, "no CMSIS-DAP probe with serial number '%s'; found: %s", serial,
				o.all.buf);
		} else {
			xb_fail(err, "no CMSIS-DAP probe found on USB: connect one (a Raspberry Pi "
				     "Debug Probe is 2e8a:000c), or use --socket PATH for the "
				     "virtual Pico");
		}
		goto out;
	}
	if (o.matches > 1) {
		xb_fail(err, "%u CMSIS-DAP probes found; choose one with --probe SERIAL: %s",
			o.matches, o.all.buf);
		goto out;
	}
	t = usb_claim(ctx, &o, err);
	ctx = t ? NULL : ctx; /* the link owns the context now */
out:
	if (o.dev)
		libusb_unref_device(o.dev);
	sb_free(&o.all);
	if (ctx)
		libusb_exit(ctx);
	return t;
}
