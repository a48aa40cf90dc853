/* The start-up steps runtime_init runs, with their priorities (lower runs first). */
#ifndef _PICO_RUNTIME_INIT_H
#define _PICO_RUNTIME_INIT_H

#include "pico.h"
#include "pico/runtime.h"

#define PICO_RUNTIME_INIT_EARLIEST "00001"
#define PICO_RUNTIME_INIT_EARLY_RESETS "00100"
#define PICO_RUNTIME_INIT_CLOCKS "00500"
#define PICO_RUNTIME_INIT_POST_CLOCK_RESETS "00600"
#define PICO_RUNTIME_INIT_SPIN_LOCKS_RESET "01000"
#define PICO_RUNTIME_INIT_MUTEX "01100"
#define PICO_RUNTIME_INIT_INSTALL_RAM_VECTOR_TABLE "01200"
#define PICO_RUNTIME_INIT_DEFAULT_ALARM_POOL "01300"

void runtime_init_early_resets(void);
void runtime_init_clocks(void);
void runtime_init_post_clock_resets(void);
void runtime_init_spin_locks_reset(void);
void runtime_init_mutex(void);
void runtime_init_install_ram_vector_table(void);
void runtime_init_default_alarm_pool(void);

#endif
