#ifndef _PICO_CONFIG_H
#define _PICO_CONFIG_H

/* the generated header: the board header and the application's config headers */
#include "pico/config_autogen.h"

#ifndef PICO_CONFIG_RTOS_ADAPTER_HEADER
#define PICO_CONFIG_RTOS_ADAPTER_HEADER_NONE 1
#endif

#ifndef PICO_STACK_SIZE
#define PICO_STACK_SIZE 0x800
#endif

#ifndef PICO_HEAP_SIZE
#define PICO_HEAP_SIZE 0x800
#endif

#ifndef PICO_NO_RAM_VECTOR_TABLE
#define PICO_NO_RAM_VECTOR_TABLE 0
#endif

#endif
