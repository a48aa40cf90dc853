/* TinyUSB configuration of the application: a CDC-ECM network device. */
#ifndef _TUSB_CONFIG_H_
#define _TUSB_CONFIG_H_

#define CFG_TUSB_RHPORT0_MODE 1
#define CFG_TUD_ECM_RNDIS 1
#define CFG_TUD_NET_MTU 1514

#endif
