/* Interface between the device stack and its class drivers. */
#ifndef _TUSB_USBD_PVT_H_
#define _TUSB_USBD_PVT_H_

#include "device/dcd.h"

typedef enum {
    CONTROL_STAGE_IDLE,
    CONTROL_STAGE_SETUP,
    CONTROL_STAGE_DATA,
    CONTROL_STAGE_ACK,
} control_stage_t;

typedef struct {
    char const *name;
    void (*init)(void);
    void (*reset)(uint8_t rhport);
    uint16_t (*open)(uint8_t rhport, tusb_desc_interface_t const *desc_intf, uint16_t max_len);
    bool (*control_xfer_cb)(uint8_t rhport, uint8_t stage, tusb_control_request_t const *request);
    bool (*xfer_cb)(uint8_t rhport, uint8_t ep_addr, xfer_result_t result, uint32_t xferred_bytes);
    void (*sof)(uint8_t rhport, uint32_t frame_count);
} usbd_class_driver_t;

typedef bool (*usbd_control_xfer_cb_t)(uint8_t rhport, uint8_t stage, tusb_control_request_t const *request);

bool usbd_edpt_open(uint8_t rhport, tusb_desc_endpoint_t const *desc_ep);
void usbd_edpt_close(uint8_t rhport, uint8_t ep_addr);
bool usbd_edpt_claim(uint8_t rhport, uint8_t ep_addr);
bool usbd_edpt_release(uint8_t rhport, uint8_t ep_addr);
bool usbd_edpt_xfer(uint8_t rhport, uint8_t ep_addr, uint8_t *buffer, uint16_t total_bytes);
bool usbd_edpt_busy(uint8_t rhport, uint8_t ep_addr);
void usbd_edpt_stall(uint8_t rhport, uint8_t ep_addr);
void usbd_edpt_clear_stall(uint8_t rhport, uint8_t ep_addr);
bool usbd_edpt_stalled(uint8_t rhport, uint8_t ep_addr);
bool usbd_open_edpt_pair(uint8_t rhport, uint8_t const *p_desc, uint8_t ep_count, uint8_t xfer_type, uint8_t *ep_out,
                         uint8_t *ep_in);
void usbd_defer_func(void (*func)(void *), void *param, bool in_isr);

void usbd_control_reset(void);
void usbd_control_set_request(tusb_control_request_t const *request);
void usbd_control_set_complete_callback(usbd_control_xfer_cb_t fp);
bool usbd_control_xfer_cb(uint8_t rhport, uint8_t ep_addr, xfer_result_t event, uint32_t xferred_bytes);

/* the network class driver */
void netd_init(void);
void netd_reset(uint8_t rhport);
uint16_t netd_open(uint8_t rhport, tusb_desc_interface_t const *itf_desc, uint16_t max_len);
bool netd_control_xfer_cb(uint8_t rhport, uint8_t stage, tusb_control_request_t const *request);
bool netd_xfer_cb(uint8_t rhport, uint8_t ep_addr, xfer_result_t result, uint32_t xferred_bytes);

#endif
