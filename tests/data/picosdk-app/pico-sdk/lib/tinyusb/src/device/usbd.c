/* The USB device stack: events from the controller's interrupt go through a FIFO to
 * tud_task_ext, which runs enumeration (standard requests) and hands class requests and
 * transfer completions to the class drivers. */
#include "tusb.h"
#include "device/usbd_pvt.h"
#include "hardware/sync.h"

#define CFG_TUD_ENDPPOINT_MAX 16

typedef struct {
    struct {
        volatile uint8_t connected : 1;
        volatile uint8_t addressed : 1;
        volatile uint8_t suspended : 1;
        uint8_t remote_wakeup_en : 1;
        uint8_t remote_wakeup_support : 1;
        uint8_t self_powered : 1;
    };
    volatile uint8_t cfg_num;
    uint8_t itf2drv[8];
    uint8_t ep2drv[CFG_TUD_ENDPPOINT_MAX][2];
    tu_edpt_state_t ep_status[CFG_TUD_ENDPPOINT_MAX][2];
} usbd_device_t;

static usbd_device_t _usbd_dev;
static int8_t _usbd_rhport = -1;

static usbd_class_driver_t const _usbd_driver[] = {
    {
        .name = "NET",
        .init = netd_init,
        .reset = netd_reset,
        .open = netd_open,
        .control_xfer_cb = netd_control_xfer_cb,
        .xfer_cb = netd_xfer_cb,
        .sof = NULL,
    },
};
enum { BUILTIN_DRIVER_COUNT = TU_ARRAY_SIZE(_usbd_driver) };
#define DRVID_INVALID 0xffu

static uint8_t _usbd_q_buf[CFG_TUD_TASK_QUEUE_SZ * sizeof(dcd_event_t)];
static tu_fifo_t _usbd_q = {_usbd_q_buf, CFG_TUD_TASK_QUEUE_SZ, sizeof(dcd_event_t), 0, 0, false};

static usbd_class_driver_t const *get_driver(uint8_t drvid)
{
    return drvid < BUILTIN_DRIVER_COUNT ? &_usbd_driver[drvid] : NULL;
}

TU_ATTR_WEAK void tud_mount_cb(void) {}
TU_ATTR_WEAK void tud_umount_cb(void) {}
TU_ATTR_WEAK void tud_suspend_cb(bool remote_wakeup_en) { (void)remote_wakeup_en; }
TU_ATTR_WEAK void tud_resume_cb(void) {}

bool tud_mounted(void)
{
    return _usbd_dev.cfg_num != 0;
}

bool tud_suspended(void)
{
    return _usbd_dev.suspended;
}

bool tud_inited(void)
{
    return _usbd_rhport >= 0;
}

bool tud_remote_wakeup(void)
{
    TU_VERIFY(_usbd_dev.suspended && _usbd_dev.remote_wakeup_support && _usbd_dev.remote_wakeup_en);
    dcd_remote_wakeup((uint8_t)_usbd_rhport);
    return true;
}

bool tud_disconnect(void)
{
    dcd_disconnect((uint8_t)_usbd_rhport);
    return true;
}

bool tud_connect(void)
{
    dcd_connect((uint8_t)_usbd_rhport);
    return true;
}

bool tud_init(uint8_t rhport)
{
    if (tud_inited())
        return true;
    memset(&_usbd_dev, 0, sizeof(_usbd_dev));
    tu_fifo_clear(&_usbd_q);
    for (uint8_t i = 0; i < BUILTIN_DRIVER_COUNT; i++)
        get_driver(i)->init();
    _usbd_rhport = (int8_t)rhport;
    dcd_init(rhport);
    dcd_int_enable(rhport);
    return true;
}

static void configuration_reset(uint8_t rhport)
{
    for (uint8_t i = 0; i < BUILTIN_DRIVER_COUNT; i++)
        get_driver(i)->reset(rhport);
    memset(&_usbd_dev, 0, sizeof(_usbd_dev));
    memset(_usbd_dev.itf2drv, DRVID_INVALID, sizeof(_usbd_dev.itf2drv));
    memset(_usbd_dev.ep2drv, DRVID_INVALID, sizeof(_usbd_dev.ep2drv));
}

static void usbd_reset(uint8_t rhport)
{
    configuration_reset(rhport);
    usbd_control_reset();
}

bool tud_task_event_ready(void)
{
    return !tu_fifo_empty(&_usbd_q);
}

static bool invoke_class_control(uint8_t rhport, usbd_class_driver_t const *driver, tusb_control_request_t const *request)
{
    usbd_control_set_complete_callback(driver->control_xfer_cb);
    return driver->control_xfer_cb(rhport, CONTROL_STAGE_SETUP, request);
}

/* opens the class drivers for each interface of configuration cfg_num */
static bool process_set_config(uint8_t rhport, uint8_t cfg_num)
{
    tusb_desc_configuration_t const *desc_cfg = (tusb_desc_configuration_t const *)tud_descriptor_configuration_cb(cfg_num - 1);
    TU_ASSERT(desc_cfg != NULL && desc_cfg->bDescriptorType == TUSB_DESC_CONFIGURATION);
    _usbd_dev.remote_wakeup_support = (desc_cfg->bmAttributes & 0x20u) ? 1 : 0;
    _usbd_dev.self_powered = (desc_cfg->bmAttributes & 0x40u) ? 1 : 0;

    uint8_t const *p_desc = ((uint8_t const *)desc_cfg) + sizeof(tusb_desc_configuration_t);
    uint8_t const *desc_end = ((uint8_t const *)desc_cfg) + desc_cfg->wTotalLength;
    while (p_desc < desc_end) {
        if (tu_desc_type(p_desc) != TUSB_DESC_INTERFACE) {
            p_desc = tu_desc_next(p_desc);
            continue;
        }
        tusb_desc_interface_t const *desc_itf = (tusb_desc_interface_t const *)p_desc;
        uint16_t const remaining_len = (uint16_t)(desc_end - p_desc);
        uint8_t drv_id;
        for (drv_id = 0; drv_id < BUILTIN_DRIVER_COUNT; drv_id++) {
            usbd_class_driver_t const *driver = get_driver(drv_id);
            uint16_t const drv_len = driver->open(rhport, desc_itf, remaining_len);
            if (drv_len >= sizeof(tusb_desc_interface_t) && drv_len <= remaining_len) {
                _usbd_dev.itf2drv[desc_itf->bInterfaceNumber] = drv_id;
                if (desc_itf->bInterfaceNumber + 1u < sizeof(_usbd_dev.itf2drv))
                    _usbd_dev.itf2drv[desc_itf->bInterfaceNumber + 1] = drv_id; /* data interface */
                p_desc += drv_len;
                break;
            }
        }
        TU_ASSERT(drv_id < BUILTIN_DRIVER_COUNT);
    }
    tud_mount_cb();
    return true;
}

static bool process_get_descriptor(uint8_t rhport, tusb_control_request_t const *p_request)
{
    uint8_t const desc_type = TU_U16_HIGH(p_request->wValue);
    uint8_t const desc_index = TU_U16_LOW(p_request->wValue);
    switch (desc_type) {
    case TUSB_DESC_DEVICE:
        return tud_control_xfer(rhport, p_request, (void *)(uintptr_t)tud_descriptor_device_cb(), 18);
    case TUSB_DESC_CONFIGURATION: {
        tusb_desc_configuration_t const *desc_config = (tusb_desc_configuration_t const *)tud_descriptor_configuration_cb(desc_index);
        TU_ASSERT(desc_config);
        return tud_control_xfer(rhport, p_request, (void *)(uintptr_t)desc_config, desc_config->wTotalLength);
    }
    case TUSB_DESC_STRING: {
        uint8_t const *desc_str = (uint8_t const *)tud_descriptor_string_cb(desc_index, p_request->wIndex);
        TU_VERIFY(desc_str);
        return tud_control_xfer(rhport, p_request, (void *)(uintptr_t)desc_str, desc_str[0]);
    }
    default:
        return false;
    }
}

static bool process_control_request(uint8_t rhport, tusb_control_request_t const *p_request)
{
    usbd_control_set_complete_callback(NULL);
    if (p_request->bmRequestType_bit.type == TUSB_REQ_TYPE_VENDOR)
        return false;

    switch (p_request->bmRequestType_bit.recipient) {
    case TUSB_REQ_RCPT_DEVICE:
        if (p_request->bmRequestType_bit.type == TUSB_REQ_TYPE_CLASS)
            return false;
        switch (p_request->bRequest) {
        case TUSB_REQ_SET_ADDRESS:
            dcd_set_address(rhport, (uint8_t)p_request->wValue);
            _usbd_dev.addressed = 1;
            return true;
        case TUSB_REQ_GET_CONFIGURATION: {
            uint8_t cfg_num = _usbd_dev.cfg_num;
            return tud_control_xfer(rhport, p_request, &cfg_num, 1);
        }
        case TUSB_REQ_SET_CONFIGURATION: {
            uint8_t const cfg_num = (uint8_t)p_request->wValue;
            if (_usbd_dev.cfg_num != cfg_num) {
                if (_usbd_dev.cfg_num) {
                    dcd_edpt_close_all(rhport);
                    configuration_reset(rhport);
                }
                _usbd_dev.cfg_num = cfg_num;
                if (cfg_num)
                    TU_ASSERT(process_set_config(rhport, cfg_num));
            }
            return tud_control_status(rhport, p_request);
        }
        case TUSB_REQ_GET_DESCRIPTOR:
            return process_get_descriptor(rhport, p_request);
        case TUSB_REQ_SET_FEATURE:
            _usbd_dev.remote_wakeup_en = 1;
            return tud_control_status(rhport, p_request);
        case TUSB_REQ_CLEAR_FEATURE:
            _usbd_dev.remote_wakeup_en = 0;
            return tud_control_status(rhport, p_request);
        case TUSB_REQ_GET_STATUS: {
            uint16_t status = (uint16_t)((_usbd_dev.self_powered ? 1u : 0u) | (_usbd_dev.remote_wakeup_en ? 2u : 0u));
            return tud_control_xfer(rhport, p_request, &status, 2);
        }
        default:
            return false;
        }
    case TUSB_REQ_RCPT_INTERFACE: {
        uint8_t const itf = (uint8_t)p_request->wIndex;
        TU_VERIFY(itf < sizeof(_usbd_dev.itf2drv));
        usbd_class_driver_t const *driver = get_driver(_usbd_dev.itf2drv[itf]);
        TU_VERIFY(driver);
        return invoke_class_control(rhport, driver, p_request);
    }
    case TUSB_REQ_RCPT_ENDPOINT: {
        uint8_t const ep_addr = (uint8_t)p_request->wIndex;
        uint8_t const ep_num = tu_edpt_number(ep_addr);
        uint8_t const ep_dir = tu_edpt_dir(ep_addr);
        TU_VERIFY(ep_num < CFG_TUD_ENDPPOINT_MAX);
        if (p_request->bRequest == TUSB_REQ_CLEAR_FEATURE)
            usbd_edpt_clear_stall(rhport, ep_addr);
        else if (p_request->bRequest == TUSB_REQ_SET_FEATURE)
            usbd_edpt_stall(rhport, ep_addr);
        else if (p_request->bRequest == TUSB_REQ_GET_STATUS) {
            uint16_t status = _usbd_dev.ep_status[ep_num][ep_dir].stalled ? 1u : 0u;
            return tud_control_xfer(rhport, p_request, &status, 2);
        } else
            return false;
        return tud_control_status(rhport, p_request);
    }
    default:
        return false;
    }
}

void tud_task_ext(uint32_t timeout_ms, bool in_isr)
{
    (void)timeout_ms;
    (void)in_isr;
    if (!tud_inited())
        return;

    for (;;) {
        dcd_event_t event;
        uint32_t save = save_and_disable_interrupts();
        bool got = tu_fifo_read(&_usbd_q, &event);
        restore_interrupts(save);
        if (!got)
            return;

        switch (event.event_id) {
        case DCD_EVENT_BUS_RESET:
            usbd_reset(event.rhport);
            break;
        case DCD_EVENT_UNPLUGGED:
            usbd_reset(event.rhport);
            tud_umount_cb();
            break;
        case DCD_EVENT_SETUP_RECEIVED:
            usbd_control_set_request(&event.setup_received);
            _usbd_dev.ep_status[0][TUSB_DIR_OUT].busy = 0;
            _usbd_dev.ep_status[0][TUSB_DIR_IN].busy = 0;
            if (!process_control_request(event.rhport, &event.setup_received)) {
                dcd_edpt_stall(event.rhport, 0);
                dcd_edpt_stall(event.rhport, 0x80);
            }
            break;
        case DCD_EVENT_XFER_COMPLETE: {
            uint8_t const ep_addr = event.xfer_complete.ep_addr;
            uint8_t const epnum = tu_edpt_number(ep_addr);
            uint8_t const ep_dir = tu_edpt_dir(ep_addr);
            _usbd_dev.ep_status[epnum][ep_dir].busy = 0;
            _usbd_dev.ep_status[epnum][ep_dir].claimed = 0;
            if (epnum == 0) {
                usbd_control_xfer_cb(event.rhport, ep_addr, (xfer_result_t)event.xfer_complete.result,
                                     event.xfer_complete.len);
            } else {
                usbd_class_driver_t const *driver = get_driver(_usbd_dev.ep2drv[epnum][ep_dir]);
                if (driver)
                    driver->xfer_cb(event.rhport, ep_addr, (xfer_result_t)event.xfer_complete.result,
                                    event.xfer_complete.len);
            }
            break;
        }
        case DCD_EVENT_SUSPEND:
            if (_usbd_dev.connected)
                tud_suspend_cb(_usbd_dev.remote_wakeup_en);
            break;
        case DCD_EVENT_RESUME:
            if (_usbd_dev.connected)
                tud_resume_cb();
            break;
        case USBD_EVENT_FUNC_CALL:
            if (event.func_call.func)
                event.func_call.func(event.func_call.param);
            break;
        default:
            break;
        }
    }
}

/* from the port's interrupt handler: bus state changes now, everything else via the queue */
void dcd_event_handler(dcd_event_t const *event, bool in_isr)
{
    (void)in_isr;
    switch (event->event_id) {
    case DCD_EVENT_UNPLUGGED:
        _usbd_dev.connected = 0;
        _usbd_dev.addressed = 0;
        _usbd_dev.cfg_num = 0;
        _usbd_dev.suspended = 0;
        tu_fifo_write(&_usbd_q, event);
        break;
    case DCD_EVENT_SOF:
        break;
    case DCD_EVENT_SUSPEND:
        if (_usbd_dev.connected) {
            _usbd_dev.suspended = 1;
            tu_fifo_write(&_usbd_q, event);
        }
        break;
    case DCD_EVENT_RESUME:
        if (_usbd_dev.connected) {
            _usbd_dev.suspended = 0;
            tu_fifo_write(&_usbd_q, event);
        }
        break;
    case DCD_EVENT_SETUP_RECEIVED:
        _usbd_dev.connected = 1;
        tu_fifo_write(&_usbd_q, event);
        break;
    default:
        tu_fifo_write(&_usbd_q, event);
        break;
    }
}

void usbd_defer_func(void (*func)(void *), void *param, bool in_isr)
{
    dcd_event_t event = {.rhport = 0, .event_id = USBD_EVENT_FUNC_CALL};
    event.func_call.func = func;
    event.func_call.param = param;
    uint32_t save = save_and_disable_interrupts();
    tu_fifo_write(&_usbd_q, &event);
    restore_interrupts(save);
    (void)in_isr;
}

bool usbd_edpt_open(uint8_t rhport, tusb_desc_endpoint_t const *desc_ep)
{
    TU_ASSERT(tu_edpt_number(desc_ep->bEndpointAddress) < CFG_TUD_ENDPPOINT_MAX);
    TU_ASSERT(tu_edpt_validate(desc_ep));
    return dcd_edpt_open(rhport, desc_ep);
}

bool usbd_open_edpt_pair(uint8_t rhport, uint8_t const *p_desc, uint8_t ep_count, uint8_t xfer_type, uint8_t *ep_out,
                         uint8_t *ep_in)
{
    for (int i = 0; i < ep_count; i++) {
        tusb_desc_endpoint_t const *desc_ep = (tusb_desc_endpoint_t const *)p_desc;
        TU_ASSERT(TUSB_DESC_ENDPOINT == desc_ep->bDescriptorType && xfer_type == (desc_ep->bmAttributes & 3u));
        TU_ASSERT(usbd_edpt_open(rhport, desc_ep));
        uint8_t const addr = desc_ep->bEndpointAddress;
        _usbd_dev.ep2drv[tu_edpt_number(addr)][tu_edpt_dir(addr)] = 0;
        if (tu_edpt_dir(addr) == TUSB_DIR_IN)
            *ep_in = addr;
        else
            *ep_out = addr;
        p_desc = tu_desc_next(p_desc);
    }
    return true;
}

bool usbd_edpt_claim(uint8_t rhport, uint8_t ep_addr)
{
    (void)rhport;
    return tu_edpt_claim(&_usbd_dev.ep_status[tu_edpt_number(ep_addr)][tu_edpt_dir(ep_addr)]);
}

bool usbd_edpt_release(uint8_t rhport, uint8_t ep_addr)
{
    (void)rhport;
    return tu_edpt_release(&_usbd_dev.ep_status[tu_edpt_number(ep_addr)][tu_edpt_dir(ep_addr)]);
}

bool usbd_edpt_xfer(uint8_t rhport, uint8_t ep_addr, uint8_t *buffer, uint16_t total_bytes)
{
    uint8_t const epnum = tu_edpt_number(ep_addr);
    uint8_t const dir = tu_edpt_dir(ep_addr);
    TU_VERIFY(!_usbd_dev.ep_status[epnum][dir].busy);
    _usbd_dev.ep_status[epnum][dir].busy = 1;
    if (dcd_edpt_xfer(rhport, ep_addr, buffer, total_bytes))
        return true;
    _usbd_dev.ep_status[epnum][dir].busy = 0;
    _usbd_dev.ep_status[epnum][dir].claimed = 0;
    return false;
}

bool usbd_edpt_busy(uint8_t rhport, uint8_t ep_addr)
{
    (void)rhport;
    return _usbd_dev.ep_status[tu_edpt_number(ep_addr)][tu_edpt_dir(ep_addr)].busy;
}

void usbd_edpt_stall(uint8_t rhport, uint8_t ep_addr)
{
    uint8_t const epnum = tu_edpt_number(ep_addr);
    uint8_t const dir = tu_edpt_dir(ep_addr);
    if (!_usbd_dev.ep_status[epnum][dir].stalled) {
        dcd_edpt_stall(rhport, ep_addr);
        _usbd_dev.ep_status[epnum][dir].stalled = 1;
        _usbd_dev.ep_status[epnum][dir].busy = 1;
    }
}

void usbd_edpt_clear_stall(uint8_t rhport, uint8_t ep_addr)
{
    uint8_t const epnum = tu_edpt_number(ep_addr);
    uint8_t const dir = tu_edpt_dir(ep_addr);
    if (_usbd_dev.ep_status[epnum][dir].stalled) {
        dcd_edpt_clear_stall(rhport, ep_addr);
        _usbd_dev.ep_status[epnum][dir].stalled = 0;
        _usbd_dev.ep_status[epnum][dir].busy = 0;
    }
}

bool usbd_edpt_stalled(uint8_t rhport, uint8_t ep_addr)
{
    (void)rhport;
    return _usbd_dev.ep_status[tu_edpt_number(ep_addr)][tu_edpt_dir(ep_addr)].stalled;
}

void usbd_edpt_close(uint8_t rhport, uint8_t ep_addr)
{
    (void)rhport;
    uint8_t const epnum = tu_edpt_number(ep_addr);
    uint8_t const dir = tu_edpt_dir(ep_addr);
    _usbd_dev.ep_status[epnum][dir].stalled = 0;
    _usbd_dev.ep_status[epnum][dir].busy = 0;
    _usbd_dev.ep_status[epnum][dir].claimed = 0;
}
