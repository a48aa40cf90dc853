#ifndef _PICO_SYNC_H
#define _PICO_SYNC_H

#include "pico/sem.h"
#include "pico/mutex.h"
#include "pico/critical_section.h"

#endif
