/* xip.h: the XIP cache in front of the external flash: the boot-time setting (the
 * XIP_CACHE=off build variant disables it) and its hit and access counters. */
#ifndef DRIVERS_XIP_H
#define DRIVERS_XIP_H

#include <stdbool.h>
#include <stdint.h>

/* Applies the build's cache setting. XIP_CACHE=off writes XIP_CTRL.EN = 0: every
 * instruction fetch from flash then goes to the flash, which is the mistake this variant
 * exists to show. */
void xip_cache_config(void);
bool xip_cache_enabled(void);
/* The XIP_CTRL counters since boot or the last xip_counters_clear. */
void xip_counters_get(uint32_t *hits, uint32_t *accesses);
void xip_counters_clear(void);

#endif
