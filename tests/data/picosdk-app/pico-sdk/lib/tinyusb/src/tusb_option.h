/* TinyUSB build options: MCU and OS selection, role defaults. */
#ifndef _TUSB_OPTION_H_
#define _TUSB_OPTION_H_

#define TUSB_VERSION_MAJOR 0
#define TUSB_VERSION_MINOR 17

#define OPT_MCU_RP2040 1100
#define OPT_OS_NONE 1
#define OPT_OS_FREERTOS 2
#define OPT_OS_PICO 5

#include "tusb_config.h"

#ifndef CFG_TUSB_OS
#define CFG_TUSB_OS OPT_OS_NONE
#endif

#ifndef CFG_TUD_ENDPOINT0_SIZE
#define CFG_TUD_ENDPOINT0_SIZE 64
#endif

#ifndef CFG_TUD_ECM_RNDIS
#define CFG_TUD_ECM_RNDIS 0
#endif

#ifndef CFG_TUD_NCM
#define CFG_TUD_NCM 0
#endif

#ifndef CFG_TUD_TASK_QUEUE_SZ
#define CFG_TUD_TASK_QUEUE_SZ 16
#endif

/* the IRQ path of the RP2040 port runs from SRAM when pico-sdk's uframe fix is on */
#if defined(PICO_RP2040_USB_DEVICE_UFRAME_FIX) && PICO_RP2040_USB_DEVICE_UFRAME_FIX
#define TUD_OPT_RP2040_USB_DEVICE_UFRAME_FIX 1
#else
#define TUD_OPT_RP2040_USB_DEVICE_UFRAME_FIX 0
#endif

#endif
