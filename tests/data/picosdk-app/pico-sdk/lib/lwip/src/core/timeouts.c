/* One-shot timers kept in a list sorted by expiry; the stack's cyclic timers re-arm
 * themselves. */
#include "lwip/timeouts.h"
#include "lwip/memp.h"
#include "lwip/etharp.h"

struct sys_timeo {
    struct sys_timeo *next;
    u32_t time;
    sys_timeout_handler h;
    void *arg;
};

static struct sys_timeo *next_timeout;
static u32_t current_timeout_due_time;

static void cyclic_arp_timer(void *arg)
{
    (void)arg;
    etharp_tmr();
    sys_timeout(ARP_TMR_INTERVAL, cyclic_arp_timer, NULL);
}

void sys_timeouts_init(void)
{
    sys_timeout(ARP_TMR_INTERVAL, cyclic_arp_timer, NULL);
}

static void sys_timeout_abs(u32_t abs_time, sys_timeout_handler handler, void *arg)
{
    struct sys_timeo *timeout = (struct sys_timeo *)memp_malloc(MEMP_SYS_TIMEOUT);
    if (timeout == NULL)
        return;
    timeout->next = NULL;
    timeout->h = handler;
    timeout->arg = arg;
    timeout->time = abs_time;

    if (next_timeout == NULL) {
        next_timeout = timeout;
        return;
    }
    if ((s32_t)(timeout->time - next_timeout->time) < 0) {
        timeout->next = next_timeout;
        next_timeout = timeout;
        return;
    }
    for (struct sys_timeo *t = next_timeout; t != NULL; t = t->next) {
        if (t->next == NULL || (s32_t)(timeout->time - t->next->time) < 0) {
            timeout->next = t->next;
            t->next = timeout;
            break;
        }
    }
}

void sys_timeout(u32_t msecs, sys_timeout_handler handler, void *arg)
{
    sys_timeout_abs(sys_now() + msecs, handler, arg);
}

void sys_untimeout(sys_timeout_handler handler, void *arg)
{
    struct sys_timeo *prev_t = NULL;
    for (struct sys_timeo *t = next_timeout; t != NULL; prev_t = t, t = t->next) {
        if (t->h == handler && t->arg == arg) {
            if (prev_t == NULL)
                next_timeout = t->next;
            else
                prev_t->next = t->next;
            memp_free(MEMP_SYS_TIMEOUT, t);
            return;
        }
    }
}

void sys_check_timeouts(void)
{
    u32_t now = sys_now();
    for (;;) {
        struct sys_timeo *tmptimeout = next_timeout;
        if (tmptimeout == NULL || (s32_t)(now - tmptimeout->time) < 0)
            return;
        next_timeout = tmptimeout->next;
        sys_timeout_handler handler = tmptimeout->h;
        void *arg = tmptimeout->arg;
        current_timeout_due_time = tmptimeout->time;
        memp_free(MEMP_SYS_TIMEOUT, tmptimeout);
        if (handler != NULL)
            handler(arg);
    }
}

u32_t sys_timeouts_sleeptime(void)
{
    if (next_timeout == NULL)
        return 0xffffffff;
    u32_t now = sys_now();
    if ((s32_t)(next_timeout->time - now) < 0)
        return 0;
    return next_timeout->time - now;
}
