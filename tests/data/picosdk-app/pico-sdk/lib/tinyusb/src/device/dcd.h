/* The device controller driver interface the port implements. */
#ifndef _TUSB_DCD_H_
#define _TUSB_DCD_H_

#include "common/tusb_common.h"

typedef enum {
    DCD_EVENT_INVALID = 0,
    DCD_EVENT_BUS_RESET,
    DCD_EVENT_UNPLUGGED,
    DCD_EVENT_SOF,
    DCD_EVENT_SUSPEND,
    DCD_EVENT_RESUME,
    DCD_EVENT_SETUP_RECEIVED,
    DCD_EVENT_XFER_COMPLETE,
    USBD_EVENT_FUNC_CALL,
} dcd_eventid_t;

typedef struct TU_ATTR_ALIGNED(4) {
    uint8_t rhport;
    uint8_t event_id;
    union {
        tusb_control_request_t setup_received;
        struct {
            uint8_t ep_addr;
            uint8_t result;
            uint32_t len;
        } xfer_complete;
        struct {
            void (*func)(void *);
            void *param;
        } func_call;
    };
} dcd_event_t;

void dcd_init(uint8_t rhport);
void dcd_int_enable(uint8_t rhport);
void dcd_int_disable(uint8_t rhport);
void dcd_set_address(uint8_t rhport, uint8_t dev_addr);
void dcd_remote_wakeup(uint8_t rhport);
void dcd_connect(uint8_t rhport);
void dcd_disconnect(uint8_t rhport);
void dcd_sof_enable(uint8_t rhport, bool en);
void dcd_edpt0_status_complete(uint8_t rhport, tusb_control_request_t const *request);
bool dcd_edpt_open(uint8_t rhport, tusb_desc_endpoint_t const *desc_ep);
void dcd_edpt_close_all(uint8_t rhport);
bool dcd_edpt_xfer(uint8_t rhport, uint8_t ep_addr, uint8_t *buffer, uint16_t total_bytes);
void dcd_edpt_stall(uint8_t rhport, uint8_t ep_addr);
void dcd_edpt_clear_stall(uint8_t rhport, uint8_t ep_addr);

/* called by the port, from its interrupt handler */
void dcd_event_handler(dcd_event_t const *event, bool in_isr);

static inline void dcd_event_bus_signal(uint8_t rhport, dcd_eventid_t eid, bool in_isr)
{
    dcd_event_t event = {.rhport = rhport, .event_id = (uint8_t)eid};
    dcd_event_handler(&event, in_isr);
}

static inline void dcd_event_setup_received(uint8_t rhport, uint8_t const *setup, bool in_isr)
{
    dcd_event_t event = {.rhport = rhport, .event_id = DCD_EVENT_SETUP_RECEIVED};
    memcpy(&event.setup_received, setup, sizeof(tusb_control_request_t));
    dcd_event_handler(&event, in_isr);
}

static inline void dcd_event_xfer_complete(uint8_t rhport, uint8_t ep_addr, uint32_t xferred_bytes, uint8_t result,
                                           bool in_isr)
{
    dcd_event_t event = {.rhport = rhport, .event_id = DCD_EVENT_XFER_COMPLETE};
    event.xfer_complete.ep_addr = ep_addr;
    event.xfer_complete.len = xferred_bytes;
    event.xfer_complete.result = result;
    dcd_event_handler(&event, in_isr);
}

#endif
