/* Timers for NO_SYS: sys_check_timeouts runs the due ones from the main loop. */
#ifndef LWIP_HDR_TIMEOUTS_H
#define LWIP_HDR_TIMEOUTS_H

#include "lwip/opt.h"
#include "lwip/err.h"

typedef void (*sys_timeout_handler)(void *arg);

void sys_timeouts_init(void);
void sys_timeout(u32_t msecs, sys_timeout_handler handler, void *arg);
void sys_untimeout(sys_timeout_handler handler, void *arg);
void sys_check_timeouts(void);
u32_t sys_timeouts_sleeptime(void);

/* from the port */
u32_t sys_now(void);

#endif
