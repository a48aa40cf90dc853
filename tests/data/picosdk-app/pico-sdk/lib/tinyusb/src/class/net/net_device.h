/* The CDC-ECM / RNDIS network device class: frames between the host and the application's
 * network stack. */
#ifndef _TUSB_NET_DEVICE_H_
#define _TUSB_NET_DEVICE_H_

#include "common/tusb_common.h"

#ifndef CFG_TUD_NET_MTU
#define CFG_TUD_NET_MTU 1514
#endif

/* the host's MAC address, set by the application (used in the descriptors) */
extern uint8_t tud_network_mac_address[6];

/* application callbacks */
bool tud_network_recv_cb(const uint8_t *src, uint16_t size);
uint16_t tud_network_xmit_cb(uint8_t *dst, void *ref, uint16_t arg);
void tud_network_init_cb(void);

/* the application's side */
void tud_network_recv_renew(void);
bool tud_network_can_xmit(uint16_t size);
void tud_network_xmit(void *ref, uint16_t arg);

#endif
