/* frames_devices: recognises CDC-ECM devices and their data endpoints from configuration
 * descriptors found in a capture, and decides which bulk transfers carry frames. */
#include <string.h>

#include "frames_internal.h"

#define FRAMES_FULL_SPEED_PACKET 64u

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
	return d;
}

/* Walks the descriptors: a communications interface (class 2) of subclass 6 (Ethernet
 * networking control model) makes the device CDC-ECM; the bulk endpoints of its data
 * interfaces (class 10) carry the frames. */
void frames_device_config(xb_frames *fs, uint16_t bus, uint8_t device, const uint8_t *d, size_t n)
{
	if (n < 9 || d[1] != 2)
		return;
	size_t total = (size_t)(d[2] | d[3] << 8);
	if (total > n || total < 9)
		return; /* the 9-byte first read, or a cut one */
	int ecm = 0, cls = -1;
	uint8_t in = 0, out = 0;
	uint16_t in_mps = 0, out_mps = 0;
	for (size_t i = 0; i + 2 <= total;) {
		uint8_t len = d[i], type = d[i + 1];
		if (len < 2 || i + len > total)
			break;
		if (type == 4 && len >= 9) { /* interface */
			cls = d[i + 5];
			if (cls == 2 && d[i + 6] == 6)
				ecm = 1;
		} else if (type == 5 && len >= 7 && cls == 10 && (d[i + 3] & 3) == 2) {
			uint16_t mps = (uint16_t)((d[i + 4] | d[i + 5] << 8) & 0x7FF);
			if (d[i + 2] & 0x80) {
				in = d[i + 2];
				in_mps = mps;
			} else {
				out = d[i + 2];
				out_mps = mps;
			}
		}
		i += len;
	}
	xb_frames_device *dev = frames_device_find(fs, bus, device, 1);
	dev->ecm = (int8_t)(ecm && in && out);
	dev->in_endpoint = dev->ecm ? in : 0;
	dev->out_endpoint = dev->ecm ? out : 0;
	dev->in_max_packet = dev->ecm ? in_mps : 0;
	dev->out_max_packet = dev->ecm ? out_mps : 0;
}

int frames_device_wants(xb_frames *fs, const xb_usbrec *r, uint32_t *max_packet)
{
	if (fs->opt.bus >= 0 && r->bus != fs->opt.bus)
		return 0;
	if (fs->opt.device >= 0 && r->device != fs->opt.device)
		return 0;
	const xb_frames_device *d = frames_device_find(fs, r->bus, r->device, 0);
	uint32_t mps = 0;
	if (d && d->ecm == 1) {
		if (r->endpoint == d->in_endpoint)
			mps = d->in_max_packet;
		else if (r->endpoint == d->out_endpoint)
			mps = d->out_max_packet;
		else
			return 0; /* another function of a composite device */
	} else if (d && d->ecm == 0 && fs->opt.device < 0) {
		return 0;
	}
	if (fs->opt.max_packet)
		mps = fs->opt.max_packet;
	*max_packet = mps ? mps : FRAMES_FULL_SPEED_PACKET;
	return 1;
}
