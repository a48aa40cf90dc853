/* usbhost_enum: the virtual host's root port and Linux-style enumeration: debounce, port
 * resets, the standard requests in Linux's order, descriptors and strings, the class
 * driver. */
#include <stdlib.h>
#include <string.h>

#include "usbhost_int.h"

#define CTRL_TIMEOUT_US 5000000u /* Linux USB_CTRL_GET_TIMEOUT / USB_CTRL_SET_TIMEOUT */
#define SET_ADDRESS_WAIT_US 10000u
#define STEP_TRIES 3

enum {
	S_NONE = 0,
	S_DEBOUNCE,
	S_RESET,
	S_RECOVERY,
	S_DESC64,
	S_SET_ADDRESS,
	S_ADDRESS_WAIT,
	S_DESC8,
	S_DESC18,
	S_CONFIG9,
	S_CONFIG_ALL,
	S_LANGID,
	S_STRINGS,
	S_SET_CONFIG,
	S_CONFIG_STRINGS,
	S_DONE,
};

static const char *const state_names[] = {
	[XB_USBHOST_DETACHED] = "detached",
	[XB_USBHOST_DEBOUNCE] = "debounce",
	[XB_USBHOST_RESETTING] = "resetting",
	[XB_USBHOST_ENUMERATING] = "enumerating",
	[XB_USBHOST_CONFIGURED] = "configured",
	[XB_USBHOST_READY] = "ready",
	[XB_USBHOST_FAILED] = "failed",
};

const char *usbhost_state_name(enum xb_usbhost_state s)
{
	return (unsigned)s < sizeof state_names / sizeof *state_names ? state_names[s] : "?";
}

enum xb_usbhost_state usbhost_state(const xb_usbhost *h)
{
	return h->state;
}

static uint16_t le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/* ---- Events ---- */

static void up_port_event(xb_board *b, void *ctx);
static void up_timeout_event(xb_board *b, void *ctx);

static void up_schedule(xb_usbhost *h, int step, uint32_t us)
{
	h->step = step;
	h->port_at = usbhost_bus_now(h) + usbhost_us(h, us);
	h->port_event = usbhost_bus_schedule(h, h->port_at, up_port_event);
}

static void up_cancel(xb_usbhost *h)
{
	if (h->port_event)
		board_cancel(h->board, h->port_event);
	if (h->timeout_event)
		board_cancel(h->board, h->timeout_event);
	h->port_event = h->timeout_event = 0;
}

/* ---- Configuration parsing ---- */

/* The endpoints of configuration h->config, all interfaces at alternate setting 0. */
static void up_parse_config(xb_usbhost *h)
{
	const uint8_t *c = h->config;
	size_t n = h->config_len;
	unsigned intf = 0, alt = 0;
	for (size_t i = 0; i + 2 <= n;) {
		unsigned len = c[i];
		if (len < 2 || i + len > n)
			break;
		if (c[i + 1] == 4 && len >= 9) {
			intf = c[i + 2];
			alt = c[i + 3];
		} else if (c[i + 1] == 5 && len >= 7) {
			uint8_t addr = c[i + 2], attr = c[i + 3] & 3;
			uint8_t type = attr == 2 ? XB_USBMON_BULK : attr == 3 ? XB_USBMON_INTERRUPT : 0;
			uh_ep *e = &h->ep[(addr & 0x0F) * 2 + !!(addr & 0x80)];
			if (type && (addr & 0x0F) && intf < UH_MAX_INTERFACES) {
				if (!e->present) {
					e->present = 1;
					e->type = type;
					e->mps = le16(c + i + 4) & 0x7FF;
					e->interval = c[i + 6] ? c[i + 6] : 1;
					e->intf = (uint8_t)intf;
				}
				if (alt < 32)
					e->alt_mask |= 1u << alt;
			}
		}
		i += len;
	}
}

void usbhost_port_note_control(xb_usbhost *h, const xb_urb *urb)
{
	const uint8_t *s = urb->setup;
	uint16_t value = le16(s + 2), index = le16(s + 4);
	if (s[0] == 0x00 && s[1] == 5) { /* SET_ADDRESS */
		h->address = value & 0x7F;
	} else if (s[0] == 0x00 && s[1] == 9) { /* SET_CONFIGURATION */
		for (unsigned i = 1; i < UH_EPS; i++)
			if (!h->ep[i].head)
				memset(&h->ep[i], 0, sizeof h->ep[i]);
		memset(h->intf_alt, 0, sizeof h->intf_alt);
		for (unsigned i = 0; value && i < h->nconfigs; i++) {
			if (h->configs[i][5] != value)
				continue;
			h->config = h->configs[i];
			h->config_len = h->configs_len[i];
			up_parse_config(h);
			break;
		}
	} else if (s[0] == 0x01 && s[1] == 11 && index < UH_MAX_INTERFACES) { /* SET_INTERFACE */
		h->intf_alt[index] = (uint8_t)value;
		for (unsigned i = 1; i < UH_EPS; i++)
			if (h->ep[i].present && h->ep[i].intf == index)
				h->ep[i].toggle = h->ep[i].halted = 0;
	} else if (s[0] == 0x02 && s[1] == 1 && value == 0) { /* CLEAR_FEATURE(HALT) */
		uh_ep *e = usbhost_bus_ep(h, (uint8_t)index);
		if (e)
			e->toggle = e->halted = 0;
	}
}

/* ---- Enumeration steps ---- */

static void up_step(xb_usbhost *h, int step);

static void up_fail(xb_usbhost *h)
{
	bus_log(board_bus(h->board), "USB host: device not enumerated (gave up in step %d)",
		h->step);
	up_cancel(h);
	h->step = S_NONE;
	h->state = XB_USBHOST_FAILED;
}

static void up_store_string(xb_usbhost *h, unsigned index, const uint8_t *d, uint32_t n)
{
	if (index >= UH_MAX_STRINGS || n < 2 || d[1] != 3)
		return;
	unsigned len = d[0] < n ? d[0] : n;
	unsigned chars = len >= 2 ? (len - 2) / 2 : 0;
	char *s = xmalloc(chars + 1);
	for (unsigned i = 0; i < chars; i++) {
		uint16_t c = le16(d + 2 + 2 * i);
		s[i] = c >= 0x20 && c < 0x7F ? (char)c : '?';
	}
	s[chars] = 0;
	free(h->strings[index]);
	h->strings[index] = s;
}

/* The string read at position pos of step S_STRINGS (product, manufacturer, serial, as
 * Linux's usb_enumerate_device) or S_CONFIG_STRINGS (iConfiguration, then each interface's
 * iInterface at alternate setting 0): its index, 0 when there is none there, -1 past the
 * end. */
static int up_string_index(const xb_usbhost *h, int step, int pos)
{
	if (step == S_STRINGS) {
		static const int at[3] = {15, 14, 16};
		return pos < 3 ? h->dev_desc[at[pos]] : -1;
	}
	if (pos == 0)
		return h->config[6];
	int k = 0;
	for (size_t i = 0; i + 2 <= h->config_len;) {
		unsigned len = h->config[i];
		if (len < 2 || i + len > h->config_len)
			break;
		if (h->config[i + 1] == 4 && len >= 9 && h->config[i + 3] == 0 && ++k == pos)
			return h->config[i + 8];
		i += len;
	}
	return -1;
}

/* Reads the next string of the current string step, or goes to the step after it. */
static void up_next_string(xb_usbhost *h)
{
	for (;;) {
		int idx = up_string_index(h, h->step, h->string_pos);
		if (idx < 0) {
			up_step(h, h->step == S_STRINGS ? S_SET_CONFIG : S_DONE);
			return;
		}
		h->string_pos++;
		if (idx > 0) {
			h->cur_string = (unsigned)idx;
			up_step(h, h->step);
			return;
		}
	}
}

/* bNumConfigurations, at least 1 and at most UH_MAX_CONFIGS (Linux reads that many). */
static unsigned up_num_configs(const xb_usbhost *h)
{
	unsigned n = h->dev_desc[17];
	return n < 1 ? 1 : n > UH_MAX_CONFIGS ? UH_MAX_CONFIGS : n;
}

static void up_done(void *ctx, int status, const uint8_t *d, uint32_t n)
{
	xb_usbhost *h = ctx;
	h->enum_urb = NULL;
	if (h->timeout_event)
		board_cancel(h->board, h->timeout_event);
	h->timeout_event = 0;
	int step = h->step, ok = status == XB_URB_OK;
	switch (step) {
	case S_DESC64:
		ok = ok && n >= 8 && d[1] == 1 &&
		     (d[7] == 8 || d[7] == 16 || d[7] == 32 || d[7] == 64);
		if (ok) {
			h->ep0_mps = d[7];
			h->state = XB_USBHOST_RESETTING;
			up_schedule(h, S_DEBOUNCE, 0); /* the second port reset */
			return;
		}
		break;
	case S_SET_ADDRESS:
		if (ok) {
			up_schedule(h, S_ADDRESS_WAIT, SET_ADDRESS_WAIT_US);
			return;
		}
		break;
	case S_DESC8:
		ok = ok && n == 8 && d[1] == 1 &&
		     (d[7] == 8 || d[7] == 16 || d[7] == 32 || d[7] == 64);
		if (ok) {
			h->ep0_mps = d[7];
			up_step(h, S_DESC18);
			return;
		}
		break;
	case S_DESC18:
		ok = ok && n == 18 && d[1] == 1;
		if (ok) {
			memcpy(h->dev_desc, d, 18);
			h->have_dev_desc = 1;
			h->cur_config = h->nconfigs = 0;
			up_step(h, S_CONFIG9);
			return;
		}
		break;
	case S_CONFIG9:
		ok = ok && n >= 9 && d[1] == 2 && le16(d + 2) >= 9;
		if (ok) {
			h->configs_len[h->cur_config] = le16(d + 2);
			up_step(h, S_CONFIG_ALL);
			return;
		}
		break;
	case S_CONFIG_ALL:
		ok = ok && n == h->configs_len[h->cur_config] && d[1] == 2;
		if (ok) {
			unsigned i = h->cur_config;
			free(h->configs[i]);
			h->configs[i] = xmalloc(n);
			memcpy(h->configs[i], d, n);
			h->nconfigs = i + 1;
			if (h->nconfigs < up_num_configs(h)) { /* usb_get_configuration: the next */
				h->cur_config++;
				up_step(h, S_CONFIG9);
				return;
			}
			int any = h->dev_desc[14] || h->dev_desc[15] || h->dev_desc[16];
			up_step(h, any ? S_LANGID : S_SET_CONFIG);
			return;
		}
		break;
	case S_LANGID:
		/* Strings are not essential: Linux goes on without them. */
		if (ok && n >= 4 && d[1] == 3)
			h->langid = le16(d + 2);
		else
			h->langid = 0;
		h->string_pos = 0;
		h->step = S_STRINGS;
		if (h->langid)
			up_next_string(h);
		else
			up_step(h, S_SET_CONFIG);
		return;
	case S_STRINGS:
	case S_CONFIG_STRINGS:
		if (ok)
			up_store_string(h, h->cur_string, d, n);
		up_next_string(h); /* a string that cannot be read is left out, as Linux does */
		return;
	case S_SET_CONFIG:
		if (ok) {
			h->string_pos = 0;
			h->step = S_CONFIG_STRINGS;
			if (h->langid)
				up_next_string(h);
			else
				up_step(h, S_DONE);
			return;
		}
		break;
	default:
		return; /* the port went away meanwhile */
	}
	if (++h->tries < STEP_TRIES)
		up_step(h, step);
	else
		up_fail(h);
}

static void up_request(xb_usbhost *h, uint8_t rt, uint8_t req, uint16_t value, uint16_t index,
		       uint16_t length)
{
	int unmonitored = req == 5 && h->opt.scheme == XB_USBHOST_XHCI;
	int rc = usbhost_bus_control(h, rt, req, value, index, NULL, length, up_done, h,
				     &h->enum_urb, unmonitored);
	if (rc) {
		up_fail(h);
		return;
	}
	h->timeout_at = usbhost_bus_now(h) + usbhost_us(h, CTRL_TIMEOUT_US);
	h->timeout_event = usbhost_bus_schedule(h, h->timeout_at, up_timeout_event);
}

static void up_step(xb_usbhost *h, int step)
{
	if (step != h->step)
		h->tries = 0;
	h->step = step;
	h->state = XB_USBHOST_ENUMERATING;
	switch (step) {
	case S_DESC64:
		up_request(h, 0x80, 6, 0x0100, 0, 64);
		break;
	case S_SET_ADDRESS:
		up_request(h, 0x00, 5, (uint16_t)h->next_address, 0, 0);
		break;
	case S_DESC8:
		up_request(h, 0x80, 6, 0x0100, 0, 8);
		break;
	case S_DESC18:
		h->ep[0].mps = h->ep0_mps;
		up_request(h, 0x80, 6, 0x0100, 0, 18);
		break;
	case S_CONFIG9:
		up_request(h, 0x80, 6, (uint16_t)(0x0200 | h->cur_config), 0, 9);
		break;
	case S_CONFIG_ALL:
		up_request(h, 0x80, 6, (uint16_t)(0x0200 | h->cur_config), 0,
			   (uint16_t)h->configs_len[h->cur_config]);
		break;
	case S_LANGID:
		up_request(h, 0x80, 6, 0x0300, 0, 255);
		break;
	case S_STRINGS:
	case S_CONFIG_STRINGS:
		up_request(h, 0x80, 6, (uint16_t)(0x0300 | h->cur_string), h->langid, 255);
		break;
	case S_SET_CONFIG:
		h->chosen = usbhost_choose_configuration(h);
		if (h->chosen < 0) {
			bus_log(board_bus(h->board), "USB host: no configuration chosen from %u",
				h->nconfigs);
			up_cancel(h);
			h->step = S_NONE;
			h->state = XB_USBHOST_FAILED;
			return;
		}
		for (unsigned i = 0; i < h->nconfigs; i++)
			if (h->configs[i][5] == h->chosen) {
				h->config = h->configs[i];
				h->config_len = h->configs_len[i];
				break;
			}
		up_request(h, 0x00, 9, (uint16_t)h->chosen, 0, 0);
		break;
	case S_DONE:
		h->state = XB_USBHOST_CONFIGURED;
		h->stats.enumerations++;
		/* Interface drivers are offered the device in the order they were added; the
		 * first that claims it is bound (usb_device_match over the interfaces). */
		for (unsigned i = 0; i < h->ndrivers && !h->driver_bound; i++)
			if (h->driver[i] && h->driver[i]->probe &&
			    h->driver[i]->probe(h->driver_ctx[i], h, h->config, h->config_len) == 1)
				h->driver_bound = (int)i + 1;
		break;
	}
}

static void up_timeout_event(xb_board *b, void *ctx)
{
	(void)b;
	xb_usbhost *h = ctx;
	h->timeout_event = 0;
	int saved = h->in_event;
	uint64_t saved_now = h->now;
	h->in_event = 1;
	h->now = h->timeout_at;
	if (h->enum_urb)
		usbhost_unlink(h, h->enum_urb); /* up_done sees XB_URB_ENOENT */
	h->in_event = saved;
	h->now = saved_now;
}

/* ---- The port ---- */

static void up_port_event(xb_board *b, void *ctx)
{
	(void)b;
	xb_usbhost *h = ctx;
	h->port_event = 0;
	int saved = h->in_event;
	uint64_t saved_now = h->now;
	h->in_event = 1;
	h->now = h->port_at;
	switch (h->step) {
	case S_DEBOUNCE: /* start a port reset: SE0, the port disabled */
		h->state = XB_USBHOST_RESETTING;
		usbhost_bus_enable(h, 0, XB_URB_ESHUTDOWN);
		h->address = 0;
		h->resets++;
		usbctrl_bus_reset(h->dev, 1);
		up_schedule(h, S_RESET, h->opt.reset_us);
		break;
	case S_RESET: /* reset ends: the port is enabled, SOFs from the next frame */
		usbctrl_bus_reset(h->dev, 0);
		usbhost_bus_enable(h, 1, 0);
		up_schedule(h, S_RECOVERY, h->opt.recovery_us);
		break;
	case S_RECOVERY:
		if (h->opt.manual) {
			h->step = S_DONE;
			h->state = XB_USBHOST_READY;
		} else {
			int first = h->resets == 1 && h->opt.scheme == XB_USBHOST_NEW_SCHEME;
			up_step(h, first ? S_DESC64 : S_SET_ADDRESS);
		}
		break;
	case S_ADDRESS_WAIT:
		up_step(h, h->opt.scheme == XB_USBHOST_NEW_SCHEME ? S_DESC18 : S_DESC8);
		break;
	}
	h->in_event = saved;
	h->now = saved_now;
}

static void up_forget_device(xb_usbhost *h)
{
	for (unsigned i = 0; i < UH_MAX_CONFIGS; i++) {
		free(h->configs[i]);
		h->configs[i] = NULL;
		h->configs_len[i] = 0;
	}
	h->nconfigs = h->cur_config = 0;
	h->chosen = -1;
	h->config = NULL;
	h->config_len = 0;
	for (unsigned i = 0; i < UH_MAX_STRINGS; i++) {
		free(h->strings[i]);
		h->strings[i] = NULL;
	}
	memset(h->dev_desc, 0, sizeof h->dev_desc);
	h->have_dev_desc = 0;
	h->langid = 0;
	h->address = 0;
	h->resets = 0;
	h->ep0_mps = 64;
}

void usbhost_port_attach_changed(xb_usbhost *h)
{
	int present = h->vbus && usbctrl_attached(h->dev);
	if (present && h->state == XB_USBHOST_DETACHED) {
		up_forget_device(h);
		h->next_address = h->next_address >= 2 && h->next_address < 127
					  ? h->next_address + 1u
					  : 2u;
		h->state = XB_USBHOST_DEBOUNCE;
		up_schedule(h, S_DEBOUNCE, h->opt.debounce_us);
		return;
	}
	if (present || h->state == XB_USBHOST_DETACHED)
		return;
	/* Gone: every URB completes with -ESHUTDOWN, the driver hears it, the port forgets. */
	up_cancel(h);
	h->step = S_NONE;
	h->enum_urb = NULL;
	h->state = XB_USBHOST_DETACHED;
	usbctrl_bus_reset(h->dev, 0);
	usbhost_bus_enable(h, 0, XB_URB_ESHUTDOWN);
	if (h->driver_bound) {
		unsigned i = (unsigned)h->driver_bound - 1;
		h->driver_bound = 0;
		if (h->driver[i] && h->driver[i]->disconnect)
			h->driver[i]->disconnect(h->driver_ctx[i]);
	}
	up_forget_device(h);
}

void usbhost_set_vbus(xb_usbhost *h, int on)
{
	h->vbus = !!on;
	usbctrl_set_vbus(h->dev, h->vbus);
	usbhost_port_attach_changed(h);
}

void usbhost_port_init(xb_usbhost *h)
{
	h->state = XB_USBHOST_DETACHED;
	h->next_address = 1; /* the first device gets 2: the root hub is 1 */
	h->ep0_mps = 64;
	h->chosen = -1;
}

void usbhost_port_free(xb_usbhost *h)
{
	up_cancel(h);
	h->step = S_NONE;
	up_forget_device(h);
}

void usbhost_set_driver(xb_usbhost *h, const xb_usbhost_driver *d, void *ctx)
{
	h->ndrivers = 0;
	h->driver_bound = 0;
	memset(h->driver, 0, sizeof h->driver);
	if (d)
		usbhost_add_driver(h, d, ctx);
}

int usbhost_add_driver(xb_usbhost *h, const xb_usbhost_driver *d, void *ctx)
{
	if (!d || h->ndrivers >= UH_MAX_DRIVERS)
		return -1;
	h->driver[h->ndrivers] = d;
	h->driver_ctx[h->ndrivers] = ctx;
	h->ndrivers++;
	return 0;
}

void usbhost_remove_driver(xb_usbhost *h, const xb_usbhost_driver *d, void *ctx)
{
	for (unsigned i = 0; i < h->ndrivers; i++) {
		if (h->driver[i] != d || h->driver_ctx[i] != ctx)
			continue;
		if (h->driver_bound == (int)i + 1)
			h->driver_bound = 0;
		else if (h->driver_bound > (int)i + 1)
			h->driver_bound--;
		for (unsigned k = i; k + 1 < h->ndrivers; k++) {
			h->driver[k] = h->driver[k + 1];
			h->driver_ctx[k] = h->driver_ctx[k + 1];
		}
		h->ndrivers--;
		h->driver[h->ndrivers] = NULL;
		h->driver_ctx[h->ndrivers] = NULL;
		return;
	}
}

/* ---- Choosing the configuration ---- */

/* Linux drivers/usb/core/generic.c, usb_choose_configuration (kernel 6.x), for a device
 * without a device-level driver of its own, with CONFIG_USB_NET_RNDIS_HOST set (Debian's and
 * most distributions' kernels). In configuration index order, skipping configurations whose
 * bMaxPower (2 mA units at full speed) is above the port's 500 mA:
 *  - an audio first interface (class 1): a UAC3 one (protocol 0x30) is taken at once; else
 *    the first configuration is remembered and the loop goes on;
 *  - configuration 0 of several whose first interface is RNDIS as generic.c knows it
 *    (is_rndis: class 2, subclass 2, protocol 0xFF) or ActiveSync (class 0xEF, 1, 1) is
 *    remembered, not taken;
 *  - else the first configuration whose first interface is not vendor-specific (0xFF), on
 *    a device whose bDeviceClass is not 0xFF either, is taken;
 *  - else the first configuration seen is remembered.
 * So an RNDIS (2/2/FF) first configuration with CDC-ECM second gets the ECM one; an RNDIS
 * function with the class triple TinyUSB gives it for Windows 7+ (0xE0/1/3, which is_rndis
 * does not know) is an ordinary class configuration and is taken when it comes first. */
static const uint8_t *up_first_interface(const uint8_t *c, size_t n)
{
	if (n < 9 || c[4] == 0)
		return NULL; /* bNumInterfaces 0: no interface */
	for (size_t i = 0; i + 2 <= n;) {
		unsigned len = c[i];
		if (len < 2 || i + len > n)
			break;
		if (c[i + 1] == 4 && len >= 9)
			return c + i; /* interface 0's first altsetting as the cache holds it */
		i += len;
	}
	return NULL;
}

int usbhost_choose_configuration(const xb_usbhost *h)
{
	const uint8_t *best = NULL;
	unsigned n = h->nconfigs;
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *c = h->configs[i];
		const uint8_t *d = up_first_interface(c, h->configs_len[i]);
		if (c[8] * 2u > UH_BUS_MA)
			continue; /* insufficient power */
		if (d && d[5] == 0x01) { /* audio */
			if (d[7] == 0x30) {
				best = c;
				break;
			}
			if (i == 0)
				best = c;
			continue;
		}
		int rndis = d && d[5] == 0x02 && d[6] == 0x02 && d[7] == 0xFF;
		int activesync = d && d[5] == 0xEF && d[6] == 0x01 && d[7] == 0x01;
		if (i == 0 && n > 1 && (rndis || activesync)) {
			best = c;
		} else if (h->dev_desc[4] != 0xFF && d && d[5] != 0xFF) {
			best = c;
			break;
		} else if (!best) {
			best = c;
		}
	}
	return best ? best[5] : -1;
}

int usbhost_chosen_configuration(const xb_usbhost *h)
{
	return h->chosen;
}

unsigned usbhost_num_configs(const xb_usbhost *h)
{
	return h->nconfigs;
}

const uint8_t *usbhost_config_at(const xb_usbhost *h, unsigned index, size_t *len)
{
	if (index >= h->nconfigs) {
		if (len)
			*len = 0;
		return NULL;
	}
	if (len)
		*len = h->configs_len[index];
	return h->configs[index];
}

unsigned usbhost_address(const xb_usbhost *h)
{
	return h->address;
}

const uint8_t *usbhost_device_descriptor(const xb_usbhost *h)
{
	return h->have_dev_desc ? h->dev_desc : NULL;
}

const uint8_t *usbhost_config(const xb_usbhost *h, size_t *len)
{
	if (len)
		*len = h->config ? h->config_len : 0;
	return h->config;
}

const char *usbhost_string(const xb_usbhost *h, unsigned index)
{
	return index < UH_MAX_STRINGS ? h->strings[index] : NULL;
}

uint16_t usbhost_langid(const xb_usbhost *h)
{
	return h->langid;
}
