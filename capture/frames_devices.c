/* frames_devices: recognises USB network devices (CDC-ECM, CDC-NCM, RNDIS) and their data
 * endpoints from configuration descriptors found in a capture, and decides which bulk
 * transfers carry frames and how. */
#include <string.h>

#include "frames_internal.h"

#define FRAMES_FULL_SPEED_PACKET 64u
#define FRAMES_MAX_CONFIGS 8u /* configurations remembered per device */

#define USB_DESC_INTERFACE 4
#define USB_DESC_ENDPOINT 5
#define USB_DESC_CS_INTERFACE 0x24
#define CDC_UNION 0x06          /* CS_INTERFACE subtype: the union functional descriptor */
#define USB_CLASS_CDC_DATA 0x0A

/* xb_frames_options.proto names a protocol for every device. */
static int frames_proto_forced(const xb_frames *fs)
{
	return fs->opt.proto > XB_FRAMES_PROTO_AUTO && fs->opt.proto < XB_FRAMES_PROTO_NONE;
}

xb_frames_device *frames_device_find(xb_frames *fs, uint16_t bus, uint8_t device, int create)
{
	for (size_t i = 0; i < fs->ndev; i++)
		if (fs->dev[i].bus == bus && fs->dev[i].device == device)
			return &fs->dev[i];
	if (!create)
		return NULL;
	xb_grow(&fs->dev, &fs->capdev, fs->ndev + 1, sizeof *fs->dev);
	xb_frames_device *d = &fs->dev[fs->ndev++];
	memset(d, 0, sizeof *d);
	d->bus = bus;
	d->device = device;
	d->ecm = -1;
	if (frames_proto_forced(fs)) {
		d->proto = (uint8_t)fs->opt.proto;
		d->proto_from = XB_FRAMES_FROM_OPTION;
	}
	return d;
}

/* The network protocol of a communications interface's class triple, or XB_FRAMES_PROTO_NONE:
 * CDC (2) with the Ethernet (6) or NCM (0x0D) subclass; RNDIS as Microsoft defines it
 * (wireless controller 0xE0/1/3, or CDC ACM with the vendor protocol 2/2/0xFF) or as the
 * USB-IF does (miscellaneous 0xEF/4/1, the class Linux's rndis_host also takes). */
static uint8_t function_proto(uint8_t cls, uint8_t sub, uint8_t prot)
{
	if (cls == 0x02 && sub == 0x06)
		return XB_FRAMES_PROTO_ECM;
	if (cls == 0x02 && sub == 0x0D)
		return XB_FRAMES_PROTO_NCM;
	if ((cls == 0xE0 && sub == 0x01 && prot == 0x03) ||
	    (cls == 0x02 && sub == 0x02 && prot == 0xFF) ||
	    (cls == 0xEF && sub == 0x04 && prot == 0x01))
		return XB_FRAMES_PROTO_RNDIS;
	return XB_FRAMES_PROTO_NONE;
}

/* Walks one configuration's descriptors: the first communications interface of a network
 * protocol, then its data interface (class 10: the union descriptor's first subordinate
 * interface, else the next data interface) and that interface's bulk endpoints. */
static frames_function config_function(const uint8_t *d, size_t total)
{
	frames_function fn = {.proto = XB_FRAMES_PROTO_NONE};
	uint8_t proto = XB_FRAMES_PROTO_NONE;
	int data_if = -1;     /* the data interface's number, once the union names it */
	int where = 0;        /* 1: in the control interface, 2: in the data interface */
	uint8_t in = 0, out = 0;
	uint16_t in_mps = 0, out_mps = 0;
	for (size_t i = 0; i + 2 <= total;) {
		uint8_t len = d[i], type = d[i + 1];
		if (len < 2 || i + len > total)
			break;
		const uint8_t *x = d + i;
		i += len;
		if (type == USB_DESC_INTERFACE && len >= 9) {
			if (where == 2 && in && out)
				break; /* the data interface's setting with endpoints is done */
			if (proto == XB_FRAMES_PROTO_NONE) {
				proto = function_proto(x[5], x[6], x[7]);
				where = proto == XB_FRAMES_PROTO_NONE ? 0 : 1;
			} else if (x[5] == USB_CLASS_CDC_DATA &&
				   (data_if < 0 || x[2] == data_if)) {
				data_if = x[2];
				where = 2;
				in = out = 0; /* an alternate setting starts over */
			} else {
				where = 0;
			}
		} else if (type == USB_DESC_CS_INTERFACE && len >= 5 && where == 1 &&
			   x[2] == CDC_UNION && data_if < 0) {
			data_if = x[4];
		} else if (type == USB_DESC_ENDPOINT && len >= 7 && where == 2 &&
			   (x[3] & 3) == 2) {
			uint16_t mps = (uint16_t)((x[4] | x[5] << 8) & 0x7FF);
			if (x[2] & 0x80) {
				in = x[2];
				in_mps = mps;
			} else {
				out = x[2];
				out_mps = mps;
			}
		}
	}
	if (proto != XB_FRAMES_PROTO_NONE && in && out)
		fn = (frames_function){proto, in, out, in_mps, out_mps};
	return fn;
}

/* The device takes on a configuration's function. */
static void device_use(xb_frames *fs, uint16_t bus, uint8_t device, const frames_function *fn)
{
	xb_frames_device *dev = frames_device_find(fs, bus, device, 1);
	dev->ecm = (int8_t)(fn->proto == XB_FRAMES_PROTO_ECM);
	if (!frames_proto_forced(fs)) {
		dev->proto = fn->proto;
		dev->proto_from = XB_FRAMES_FROM_DESCRIPTOR;
	}
	dev->in_endpoint = fn->in;
	dev->out_endpoint = fn->out;
	dev->in_max_packet = fn->in_mps;
	dev->out_max_packet = fn->out_mps;
}

void frames_device_config(xb_frames *fs, uint16_t bus, uint8_t device, const uint8_t *d, size_t n)
{
	if (n < 9 || d[1] != 2)
		return;
	size_t total = (size_t)(d[2] | d[3] << 8);
	if (total > n || total < 9)
		return; /* the 9-byte first read, or a cut one */
	frames_function fn = config_function(d, total);
	uint8_t value = d[5];
	size_t mine = 0, slot = fs->ncfg;
	for (size_t i = 0; i < fs->ncfg; i++)
		if (fs->cfg[i].bus == bus && fs->cfg[i].device == device) {
			mine++;
			if (fs->cfg[i].value == value)
				slot = i;
		}
	if (slot == fs->ncfg && mine < FRAMES_MAX_CONFIGS) {
		xb_grow(&fs->cfg, &fs->capcfg, fs->ncfg + 1, sizeof *fs->cfg);
		fs->ncfg++;
	}
	if (slot < fs->ncfg)
		fs->cfg[slot] = (frames_config){bus, device, value, fn};
	/* the last one read, until SET_CONFIGURATION says which is in use */
	device_use(fs, bus, device, &fn);
}

void frames_device_set_config(xb_frames *fs, uint16_t bus, uint8_t device, uint8_t value)
{
	for (size_t i = 0; i < fs->ncfg; i++)
		if (fs->cfg[i].bus == bus && fs->cfg[i].device == device &&
		    fs->cfg[i].value == value) {
			device_use(fs, bus, device, &fs->cfg[i].fn);
			return;
		}
}

int frames_device_wants(xb_frames *fs, const xb_usbrec *r, uint32_t *max_packet,
			uint8_t *proto)
{
	if (fs->opt.bus >= 0 && r->bus != fs->opt.bus)
		return 0;
	if (fs->opt.device >= 0 && r->device != fs->opt.device)
		return 0;
	const xb_frames_device *d = frames_device_find(fs, r->bus, r->device, 0);
	uint32_t mps = 0;
	if (d && d->in_endpoint && d->out_endpoint) { /* a network function's */
		if (r->endpoint == d->in_endpoint)
			mps = d->in_max_packet;
		else if (r->endpoint == d->out_endpoint)
			mps = d->out_max_packet;
		else
			return 0; /* another function of a composite device */
	} else if (d && d->ecm == 0 && fs->opt.device < 0) {
		return 0; /* descriptors without a network function */
	}
	*proto = d && d->proto != XB_FRAMES_PROTO_NONE ? d->proto : XB_FRAMES_PROTO_AUTO;
	if (frames_proto_forced(fs))
		*proto = (uint8_t)fs->opt.proto;
	if (fs->opt.max_packet)
		mps = fs->opt.max_packet;
	*max_packet = mps ? mps : FRAMES_FULL_SPEED_PACKET;
	return 1;
}
