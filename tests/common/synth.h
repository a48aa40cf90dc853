/* synth: synthetic firmware images and samples built in memory, for planner tests and
 * benchmarks that need thousands of functions without a toolchain. */
#ifndef XB_TEST_SYNTH_H
#define XB_TEST_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "../../core/image.h"
#include "../../core/profile.h"

/* n functions of 20..600 bytes (2-byte aligned; every 16th 8-byte aligned), each in its own
 * input section .text.fN of object libsynth.a(fN.o), after a 0xC0-byte vector table at
 * 0x10000100; a RAM .data section at 0x20000000 with the ramfunc markers; the hot markers
 * right after the vector table. Deterministic for a seed. */
void synth_image(xb_image *img, size_t n, uint64_t seed);
void synth_image_free(xb_image *img);

/* nsamples busy samples spread over the first nhot functions (weights falling with the
 * index), plus idle samples on function 0 (an idle loop). */
void synth_samples(xb_samples *s, const xb_image *img, size_t nhot, size_t nsamples,
		   uint64_t seed);

#endif
