#ifndef LWIP_HDR_INIT_H
#define LWIP_HDR_INIT_H

#define LWIP_VERSION_MAJOR 2
#define LWIP_VERSION_MINOR 2
#define LWIP_VERSION_REVISION 0

void lwip_init(void);

#endif
