/* capture_print: what `xipbench capture` prints: frames, echoes and turnaround, echo-rate
 * steps, as text or JSON (keys in docs/cli.md). */
#ifndef XB_CLI_CAPTURE_PRINT_H
#define XB_CLI_CAPTURE_PRINT_H

#include <stdio.h>

#include "../capture/echo.h"
#include "../capture/frames.h"
#include "../capture/source.h"

/* A capture read (completely, or up to an error). */
typedef struct capture_result {
	const xb_capture_source *src;
	const xb_frames *fs;
	const xb_echoes *echoes; /* turnaround and rate */
	const xb_echo_options *eopt;
	const xb_rate_plan *plan; /* rate */
	const xb_rate_result *rate;
	const char *error; /* why reading stopped early, or NULL */
} capture_result;

void capture_print_frames(const capture_result *c, int json, FILE *f);
void capture_print_turnaround(const capture_result *c, int json, FILE *f);
void capture_print_rate(const capture_result *c, int json, FILE *f);

#endif
