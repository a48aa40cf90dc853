#ifndef _TUSB_H_
#define _TUSB_H_

#include "common/tusb_common.h"
#include "common/tusb_fifo.h"
#include "device/usbd.h"
#if CFG_TUD_ECM_RNDIS || CFG_TUD_NCM
#include "class/net/net_device.h"
#endif

bool tusb_init(void);
bool tusb_inited(void);

#endif
