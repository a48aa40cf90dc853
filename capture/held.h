/* held: the arrays frames.c, echo.c and tracker.c keep their records in, n items from
 * (*pp)[*off] on: new items come at the end, discarded ones leave from the front. Internal
 * to the capture library. */
#ifndef XB_CAPTURE_HELD_H
#define XB_CAPTURE_HELD_H

#include <string.h>

#include "../core/util.h"

#define HELD_MIN_CAP 64u

/* Moves the items to the front of the array; gives memory back when an eighth of it is
 * in use (after a burst), keeping twice the room the items need. */
static inline void held_trim(void *pp, size_t elem, size_t *off, size_t n, size_t *cap)
{
	void **p = pp;
	int shrink = *cap > HELD_MIN_CAP && n < *cap / 8;
	if (*off && (shrink || *off >= *cap / 2 || !n)) {
		memmove(*p, (char *)*p + *off * elem, n * elem);
		*off = 0;
	}
	if (shrink) {
		*cap /= 4;
		*p = xrealloc(*p, *cap * elem);
	}
}

/* Room for one more item at the end: moves the items to the front once half of the
 * array is free there (each item moves once per as many discarded), else grows it. */
static inline void held_reserve(void *pp, size_t elem, size_t *off, size_t n, size_t *cap)
{
	if (*off + n == *cap)
		held_trim(pp, elem, off, n, cap);
	xb_grow(pp, cap, *off + n + 1, elem);
}

#endif
