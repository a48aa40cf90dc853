/* profile: PC samples (DWT_PCSR reads) and their aggregation per function, per library
 * and per cache line, with an idle window subtracted. Sample files are described in
 * docs/formats-samples.md: a binary form ("XIPBSMP1" header, then (pc, flags) records, little
 * endian) and a text form (one hex PC per line, `idle` / `busy` switch the window). */
#ifndef XB_PROFILE_H
#define XB_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "image.h"
#include "target.h"
#include "util.h"

enum {
	XB_SAMPLE_IDLE = 1 << 0,  /* taken in the idle window (no traffic) */
	XB_SAMPLE_SLEEP = 1 << 1, /* the core was sleeping (DHCSR.S_SLEEP) */
};

typedef struct xb_sample {
	uint32_t pc;
	uint32_t flags;           /* XB_SAMPLE_* */
} xb_sample;

typedef struct xb_samples {
	xb_sample *s;
	size_t n, cap;
	/* Lengths of the busy and idle windows in seconds; 0 = unknown (the windows are then
	 * taken to be of equal length, as the study's method prescribes). */
	double busy_seconds, idle_seconds;
} xb_samples;

void samples_init(xb_samples *s);
void samples_free(xb_samples *s);
void samples_push(xb_samples *s, uint32_t pc, uint32_t flags);
/* Reads a sample file (either form, told apart by the binary magic). */
int samples_read_file(xb_samples *s, const char *path, xb_err *err);
/* Parses a sample file held in memory; name is used in messages ("samples.txt:12: bad hex
 * number 'xyz'"). On success the samples and window lengths in s (initialised) are replaced
 * by the file's; on failure s is unchanged. Any bytes are safe input. */
int samples_parse(xb_samples *s, const uint8_t *data, size_t len, const char *name, xb_err *err);
/* Both writers replace path atomically; unknown flag bits are dropped. The text form keeps the
 * order of the samples and writes window lengths with full precision. */
int samples_write_binary(const xb_samples *s, const char *path, xb_err *err);
int samples_write_text(const xb_samples *s, const char *path, xb_err *err);

typedef struct xb_line_count {
	uint32_t line;           /* line address (pc & ~(line_size-1)) */
	double busy, idle, net;
} xb_line_count;

typedef struct xb_func_profile {
	double busy, idle;       /* samples in each window (idle already scaled to the busy window) */
	double net;              /* max(0, busy - idle) */
	double per_byte;         /* net / size */
	uint32_t lines_sampled;  /* distinct cache lines with a busy sample */
	double top2_share;       /* share of busy samples on its two busiest lines */
} xb_func_profile;

typedef struct xb_profile {
	const xb_image *img;
	uint32_t line_size;
	xb_func_profile *func;    /* per image function (aliases: counted on the first) */
	double *lib_net;          /* per image library: sum of its functions' net */
	xb_line_count *lines;     /* sorted by line address; every sampled PC except 0xFFFFFFFF,
				   * inside a function or not */
	size_t nlines;
	double busy_total;        /* all busy samples */
	double idle_total;        /* all idle samples, scaled */
	double net_total;         /* sum of the functions' net (= sum of lib_net) */
	double unattributed;      /* busy samples outside any function (ROM, 0xFFFFFFFF...) */
	double idle_scale;        /* factor applied to idle counts: busy_seconds / idle_seconds
				   * when both are known, else 1 */
} xb_profile;

/* Aggregates samples against an image (functions sorted by address, as image_load_elf leaves
 * them). line_size is the cache line (target); 0 is taken as 1. Sleep samples count like any
 * other at their PC. p keeps a pointer to img. */
void profile_build(xb_profile *p, const xb_image *img, const xb_samples *s, uint32_t line_size);
void profile_free(xb_profile *p);
/* Net samples of a line address, 0 if none (binary search). */
double profile_line_net(const xb_profile *p, uint32_t line);

#endif
