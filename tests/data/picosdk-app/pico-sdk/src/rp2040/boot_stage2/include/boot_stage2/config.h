/* Picks the boot2 implementation from the board header (PICO_BOOT_STAGE2_CHOOSE_*). */
#ifndef _BOOT_STAGE2_CONFIG_H_
#define _BOOT_STAGE2_CONFIG_H_

#include "pico/config.h"

#if PICO_BOOT_STAGE2_CHOOSE_GENERIC_03H || !defined(PICO_BOOT_STAGE2_ASM)
#define PICO_BOOT_STAGE2_NAME "boot2_generic_03h"
#define PICO_BOOT_STAGE2_ASM "boot2_generic_03h.S"
#endif

#endif
