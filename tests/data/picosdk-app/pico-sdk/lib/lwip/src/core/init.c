/* Initialises every module of the stack. */
#include "lwip/opt.h"
#include "lwip/init.h"
#include "lwip/mem.h"
#include "lwip/memp.h"
#include "lwip/netif.h"
#include "lwip/udp.h"
#include "lwip/timeouts.h"

void lwip_init(void)
{
    mem_init();
    memp_init();
    netif_init();
#if LWIP_UDP
    udp_init();
#endif
    sys_timeouts_init();
}
