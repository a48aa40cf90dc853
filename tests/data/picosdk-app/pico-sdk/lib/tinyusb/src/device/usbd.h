/* The device stack's application interface. */
#ifndef _TUSB_USBD_H_
#define _TUSB_USBD_H_

#include "common/tusb_common.h"

bool tud_init(uint8_t rhport);
bool tud_inited(void);
void tud_task_ext(uint32_t timeout_ms, bool in_isr);
static inline void tud_task(void) { tud_task_ext(UINT32_MAX, false); }
bool tud_task_event_ready(void);
bool tud_mounted(void);
bool tud_suspended(void);
bool tud_connect(void);
bool tud_disconnect(void);
bool tud_remote_wakeup(void);

bool tud_control_xfer(uint8_t rhport, tusb_control_request_t const *request, void *buffer, uint16_t len);
bool tud_control_status(uint8_t rhport, tusb_control_request_t const *request);

/* descriptors, from the application */
uint8_t const *tud_descriptor_device_cb(void);
uint8_t const *tud_descriptor_configuration_cb(uint8_t index);
uint16_t const *tud_descriptor_string_cb(uint8_t index, uint16_t langid);

/* events, for the application (weak defaults) */
void tud_mount_cb(void);
void tud_umount_cb(void);
void tud_suspend_cb(bool remote_wakeup_en);
void tud_resume_cb(void);

#endif
