/* Endpoint 0: data stage in packets through a bounce buffer, then the status stage. */
#include "tusb.h"
#include "device/usbd_pvt.h"

typedef struct {
    tusb_control_request_t request;
    uint8_t *buffer;
    uint16_t data_len;
    uint16_t total_xferred;
    usbd_control_xfer_cb_t complete_cb;
} usbd_control_xfer_t;

static usbd_control_xfer_t _ctrl_xfer;
static uint8_t _usbd_ctrl_buf[CFG_TUD_ENDPOINT0_SIZE] TU_ATTR_ALIGNED(4);

static bool _status_stage_xact(uint8_t rhport, tusb_control_request_t const *request)
{
    uint8_t const ep_addr = request->bmRequestType_bit.direction ? 0x00 : 0x80;
    return usbd_edpt_xfer(rhport, ep_addr, NULL, 0);
}

bool tud_control_status(uint8_t rhport, tusb_control_request_t const *request)
{
    _ctrl_xfer.request = *request;
    _ctrl_xfer.buffer = NULL;
    _ctrl_xfer.total_xferred = 0;
    _ctrl_xfer.data_len = 0;
    return _status_stage_xact(rhport, request);
}

/* the next data packet of the control transfer, through the bounce buffer */
static bool _data_stage_xact(uint8_t rhport)
{
    uint16_t const xact_len = TU_MIN((uint16_t)(_ctrl_xfer.data_len - _ctrl_xfer.total_xferred), CFG_TUD_ENDPOINT0_SIZE);
    uint8_t ep_addr = 0x00;
    if (_ctrl_xfer.request.bmRequestType_bit.direction == TUSB_DIR_IN) {
        ep_addr = 0x80;
        if (xact_len)
            memcpy(_usbd_ctrl_buf, _ctrl_xfer.buffer, xact_len);
    }
    return usbd_edpt_xfer(rhport, ep_addr, xact_len ? _usbd_ctrl_buf : NULL, xact_len);
}

bool tud_control_xfer(uint8_t rhport, tusb_control_request_t const *request, void *buffer, uint16_t len)
{
    _ctrl_xfer.request = *request;
    _ctrl_xfer.buffer = (uint8_t *)buffer;
    _ctrl_xfer.total_xferred = 0u;
    _ctrl_xfer.data_len = TU_MIN(len, request->wLength);
    if (request->wLength > 0u) {
        if (_ctrl_xfer.data_len > 0u)
            TU_ASSERT(buffer);
        TU_ASSERT(_data_stage_xact(rhport));
    } else {
        TU_ASSERT(_status_stage_xact(rhport, request));
    }
    return true;
}

void usbd_control_reset(void)
{
    memset(&_ctrl_xfer, 0, sizeof(_ctrl_xfer));
}

void usbd_control_set_complete_callback(usbd_control_xfer_cb_t fp)
{
    _ctrl_xfer.complete_cb = fp;
}

void usbd_control_set_request(tusb_control_request_t const *request)
{
    _ctrl_xfer.request = *request;
    _ctrl_xfer.buffer = NULL;
    _ctrl_xfer.total_xferred = 0;
    _ctrl_xfer.data_len = 0;
}

bool usbd_control_xfer_cb(uint8_t rhport, uint8_t ep_addr, xfer_result_t result, uint32_t xferred_bytes)
{
    (void)result;
    if (tu_edpt_dir(ep_addr) != _ctrl_xfer.request.bmRequestType_bit.direction) {
        /* the status stage is done */
        dcd_edpt0_status_complete(rhport, &_ctrl_xfer.request);
        if (_ctrl_xfer.complete_cb)
            _ctrl_xfer.complete_cb(rhport, CONTROL_STAGE_ACK, &_ctrl_xfer.request);
        return true;
    }

    if (_ctrl_xfer.request.bmRequestType_bit.direction == TUSB_DIR_OUT)
        memcpy(_ctrl_xfer.buffer, _usbd_ctrl_buf, xferred_bytes);

    _ctrl_xfer.total_xferred = (uint16_t)(_ctrl_xfer.total_xferred + xferred_bytes);
    _ctrl_xfer.buffer += xferred_bytes;

    if (_ctrl_xfer.request.wLength == _ctrl_xfer.total_xferred || xferred_bytes < CFG_TUD_ENDPOINT0_SIZE) {
        bool is_ok = true;
        if (_ctrl_xfer.complete_cb)
            is_ok = _ctrl_xfer.complete_cb(rhport, CONTROL_STAGE_DATA, &_ctrl_xfer.request);
        if (is_ok) {
            TU_ASSERT(_status_stage_xact(rhport, &_ctrl_xfer.request));
        } else {
            dcd_edpt_stall(rhport, 0);
            dcd_edpt_stall(rhport, 0x80);
        }
    } else {
        TU_ASSERT(_data_stage_xact(rhport));
    }
    return true;
}
