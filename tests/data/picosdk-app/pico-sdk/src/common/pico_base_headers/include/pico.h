/* The base header of the SDK-shaped tree: types, configuration, platform macros. Safe to
 * include from assembly. */
#ifndef _PICO_H
#define _PICO_H

#ifndef __ASSEMBLER__
#include "pico/types.h"
#endif
#include "pico/version.h"
#include "pico/config.h"
#include "pico/platform.h"
#ifndef __ASSEMBLER__
#include "pico/error.h"
#include "pico/assert.h"
#endif

#endif
