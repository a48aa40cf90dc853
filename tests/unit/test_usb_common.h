/* test_usb_common.h: helpers the tests of the virtual USB host with a program on the
 * virtual Pico share (test_usbhost, test_usbudc, test_usbnet, test_netpeer, test_firmware):
 * the pico with its log collected, the USB device programs of tests/data/usb, the host with
 * its monitor, running with a failure that tells why the program stopped. Header-only;
 * include after cmocka.h and test_sim_common.h. */
#ifndef XB_TEST_USB_COMMON_H
#define XB_TEST_USB_COMMON_H

#include <stdio.h>
#include <stdlib.h>

#include "../../sim/pico.h"
#include "../../sim/usbhost.h"
#include "../../sim/usbmon.h"
#include "test_sim_common.h"

/* A fresh pico on the rp2040 target whose reports go to log. */
static inline xb_pico *usb_rig_pico(sim_log *log)
{
	xb_target t;
	sim_target(&t);
	xb_pico_options o;
	pico_options_init(&o);
	o.log_fn = sim_log_fn;
	o.log_ctx = log;
	xb_err err;
	xb_pico *p = pico_new(&t, &o, &err);
	if (!p)
		fail_msg("%s", err.msg);
	return p;
}

/* Folder of the built USB device programs; builds them the first time. */
static inline const char *usb_programs(void)
{
	static char dir[1024];
	if (dir[0])
		return dir;
	const char *build = getenv("XB_BUILD");
	snprintf(dir, sizeof dir, "%s/usb-progs", build && *build ? build : "build");
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "sh tests/data/usb/build.sh '%s'", dir);
	if (system(cmd) != 0) {
		fprintf(stderr, "building the USB test programs failed: %s\n", cmd);
		abort();
	}
	return dir;
}

/* Loads the ELF at path, then in_len bytes of inputs at SIM_MAILBOX_IN (none when 0). */
static inline void usb_rig_load(xb_pico *p, const char *path, const void *in, size_t in_len)
{
	xb_err err;
	if (pico_load_file(p, path, XB_IMAGE_AUTO, 0, NULL, &err))
		fail_msg("%s", err.msg);
	if (in_len && board_load(pico_board(p), SIM_MAILBOX_IN, in, in_len, &err))
		fail_msg("%s", err.msg);
}

/* Loads NAME.elf of the USB device programs, then the inputs as usb_rig_load. */
static inline void usb_rig_load_program(xb_pico *p, const char *name, const void *in,
					size_t in_len)
{
	char path[1200];
	snprintf(path, sizeof path, "%s/%s.elf", usb_programs(), name);
	usb_rig_load(p, path, in, in_len);
}

/* The host on p's USB controller (o may be NULL), recording to mon when it is not NULL. */
static inline xb_usbhost *usb_rig_host(xb_pico *p, const xb_usbhost_options *o, xb_usbmon *mon)
{
	xb_usbhost *h = usbhost_new(pico_board(p), pico_usb(p), o);
	if (mon)
		usbhost_set_monitor(h, mon);
	return h;
}

/* Runs p for cycles; the program must keep running. */
static inline void usb_rig_run(xb_pico *p, uint64_t cycles, const sim_log *log)
{
	enum xb_pico_stop s = pico_run(p, cycles);
	if (s != XB_PICO_BUDGET)
		fail_msg("the device stopped (%s); log: %s", pico_stop_name(s), log->all);
}

#endif
