/* status: what went wrong in a live session, as a code the UI can react to (tig's
 * STATUS_CODE_INFO style: one table of codes, names and messages) plus the message for the
 * user. A failure never loses the last good state: the session keeps its samples,
 * figures, image and layout, and says what happened. */
#ifndef XB_SESSION_STATUS_H
#define XB_SESSION_STATUS_H

#include <stdarg.h>

#include "../core/util.h"

typedef enum xb_status {
	XB_STATUS_OK = 0,
	XB_STATUS_PROBE_GONE,            /* the probe's link closed or vanished */
	XB_STATUS_PROBE_FAULT,           /* the target answered FAULT */
	XB_STATUS_PROBE_WAIT,            /* the target kept answering WAIT */
	XB_STATUS_TARGET_NOT_RESPONDING, /* no answer from the debug port */
	XB_STATUS_CORE_HALTED,           /* the core is halted (a breakpoint, a debugger) */
	XB_STATUS_CORE_LOCKED_UP,        /* the core locked up (a fault in a fault handler) */
	XB_STATUS_CAPTURE_NOT_PERMITTED, /* usbmon exists but may not be read */
	XB_STATUS_CAPTURE_FAILED,        /* the capture stopped or gave garbage */
	XB_STATUS_NETWORK_DOWN,          /* the device's link is down or it does not answer ARP */
	XB_STATUS_TRAFFIC_FAILED,        /* sending echo traffic failed */
	XB_STATUS_BUILD_FAILED,          /* a build (make, the build command) failed */
	XB_STATUS_FLASH_FAILED,          /* programming the flash failed */
	XB_STATUS_VERIFY_FAILED,         /* a relinked image failed verification */
	XB_STATUS_IMAGE_INVALID,         /* the ELF or map cannot be used */
	XB_STATUS_BENCH_SLOW,            /* the virtual bench falls behind real time */
	XB_STATUS_UNSUPPORTED,           /* this bench cannot do that (speed on a real board) */
	XB_STATUS_BAD_ARGUMENT,          /* a command's argument is out of range */
	XB_STATUS_BUSY,                  /* a job is running */
	XB_STATUS_CANCELLED,             /* the user cancelled a job */
	XB_STATUS_IO,                    /* a file could not be read or written */
	XB_STATUS_INTERNAL,              /* a bug: please report it */
	XB_STATUS_COUNT
} xb_status;

typedef struct xb_status_info {
	xb_status code;
	const char *name;    /* "probe-gone": for scripts, logs, JSON */
	const char *summary; /* "the probe is gone": what the status bar says */
	const char *advice;  /* what to do, or NULL */
} xb_status_info;

const xb_status_info *status_info(xb_status s); /* out of range: XB_STATUS_INTERNAL's */
const char *status_name(xb_status s);

/* A status and its message (one line: what, where, and what to do). */
typedef struct xb_report {
	xb_status status;
	char msg[512];
} xb_report;

/* Fills r (may be NULL) and returns -1, like xb_fail. */
int report_fail(xb_report *r, xb_status s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* The same from an xb_err (its message, with the status). */
int report_err(xb_report *r, xb_status s, const xb_err *e);
void report_clear(xb_report *r);

#endif
