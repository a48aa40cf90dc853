/* status: the session's status codes and their messages (see status.h). */
#include "status.h"

#include <stdio.h>
#include <string.h>

static const xb_status_info table[XB_STATUS_COUNT] = {
	{XB_STATUS_OK, "ok", "ok", NULL},
	{XB_STATUS_PROBE_GONE, "probe-gone", "the probe is gone",
	 "check the probe's USB cable; xipbench reconnects when it is back"},
	{XB_STATUS_PROBE_FAULT, "probe-fault", "the target answers FAULT",
	 "the core may be in a bad state: reset the board"},
	{XB_STATUS_PROBE_WAIT, "probe-wait", "the target keeps answering WAIT",
	 "the target's bus is busy or its clocks stopped: reset the board"},
	{XB_STATUS_TARGET_NOT_RESPONDING, "target-not-responding", "the target does not respond",
	 "check the SWD wires, the target's power and that the probe speaks to the right core"},
	{XB_STATUS_CORE_HALTED, "core-halted", "the core is halted",
	 "a breakpoint or another debugger halted it: resume or reset"},
	{XB_STATUS_CORE_LOCKED_UP, "core-locked-up", "the core locked up",
	 "a fault in a fault handler: reset the board; the log has the fault"},
	{XB_STATUS_CAPTURE_NOT_PERMITTED, "capture-not-permitted", "usbmon may not be read",
	 "run as root or give the user read access to /dev/usbmonN (turnaround needs it)"},
	{XB_STATUS_CAPTURE_FAILED, "capture-failed", "the USB capture failed", NULL},
	{XB_STATUS_NETWORK_DOWN, "network-down", "the board's network is down",
	 "the link is down or the device does not answer ARP: is it a CDC-ECM device?"},
	{XB_STATUS_TRAFFIC_FAILED, "traffic-failed", "echo traffic could not be sent", NULL},
	{XB_STATUS_BUILD_FAILED, "build-failed", "the build failed", "the log has the build output"},
	{XB_STATUS_FLASH_FAILED, "flash-failed", "flashing failed",
	 "the board keeps the image it had; check the probe and retry"},
	{XB_STATUS_VERIFY_FAILED, "verify-failed", "the image failed verification",
	 "it was not flashed; the board keeps the last good image"},
	{XB_STATUS_IMAGE_INVALID, "image-invalid", "the image cannot be used", NULL},
	{XB_STATUS_BENCH_SLOW, "bench-slow", "the virtual bench is slower than real time",
	 "lower the traffic or the speed; figures are still right, in virtual time"},
	{XB_STATUS_UNSUPPORTED, "unsupported", "this bench cannot do that", NULL},
	{XB_STATUS_BAD_ARGUMENT, "bad-argument", "bad argument", NULL},
	{XB_STATUS_BUSY, "busy", "busy with another job", "wait for it or cancel it"},
	{XB_STATUS_CANCELLED, "cancelled", "the job was cancelled",
	 "the board keeps the last good image; nothing of the job was recorded"},
	{XB_STATUS_IO, "io", "a file could not be used", NULL},
	{XB_STATUS_INTERNAL, "internal", "internal error", "please report it"},
};

const xb_status_info *status_info(xb_status s)
{
	if ((unsigned)s >= XB_STATUS_COUNT)
		s = XB_STATUS_INTERNAL;
	return &table[s];
}

const char *status_name(xb_status s)
{
	return status_info(s)->name;
}

int report_fail(xb_report *r, xb_status s, const char *fmt, ...)
{
	if (!r)
		return -1;
	r->status = s;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof r->msg, fmt, ap);
	va_end(ap);
	return -1;
}

int report_err(xb_report *r, xb_status s, const xb_err *e)
{
	return report_fail(r, s, "%s", e ? e->msg : status_info(s)->summary);
}

void report_clear(xb_report *r)
{
	if (!r)
		return;
	r->status = XB_STATUS_OK;
	r->msg[0] = 0;
}
