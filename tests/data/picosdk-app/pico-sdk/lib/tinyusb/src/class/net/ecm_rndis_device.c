/* CDC-ECM network device (the RNDIS control path answers the minimum a host asks):
 * one frame buffer each way; a received frame goes to the application, which renews the
 * OUT transfer once it has taken the frame. */
#include "tusb.h"
#include "device/usbd_pvt.h"
#include "class/net/net_device.h"

#define CDC_REQUEST_SEND_ENCAPSULATED_COMMAND 0x00
#define CDC_REQUEST_GET_ENCAPSULATED_RESPONSE 0x01
#define CDC_REQUEST_SET_ETHERNET_PACKET_FILTER 0x43
#define CDC_NOTIF_NETWORK_CONNECTION 0x00
#define TUSB_CLASS_CDC 0x02
#define TUSB_CLASS_CDC_DATA 0x0a
#define CDC_COMM_SUBCLASS_ETHERNET_CONTROL_MODEL 0x06

typedef struct {
    uint8_t itf_num;
    uint8_t ep_notif;
    uint8_t ep_in;
    uint8_t ep_out;
    bool ecm_mode;
    uint8_t itf_data_alt;
    bool can_xmit;
} netd_interface_t;

static netd_interface_t _netd_itf;

static uint8_t received[CFG_TUD_NET_MTU + 44] TU_ATTR_ALIGNED(4);
static uint8_t transmitted[CFG_TUD_NET_MTU + 44] TU_ATTR_ALIGNED(4);
static uint8_t rndis_buf[120] TU_ATTR_ALIGNED(4);

static tusb_control_request_t notify_request;
static const uint8_t ecm_notify_connected[8] = {0xa1, CDC_NOTIF_NETWORK_CONNECTION, 1, 0, 0, 0, 0, 0};

static void netd_report(uint8_t *buf, uint16_t len)
{
    uint8_t const rhport = 0;
    if (!usbd_edpt_claim(rhport, _netd_itf.ep_notif))
        return;
    usbd_edpt_xfer(rhport, _netd_itf.ep_notif, buf, len);
}

static void ecm_report(bool connected)
{
    static uint8_t notification[8] TU_ATTR_ALIGNED(4);
    memcpy(notification, ecm_notify_connected, sizeof(notification));
    notification[2] = connected ? 1 : 0;
    notification[4] = _netd_itf.itf_num;
    netd_report(notification, sizeof(notification));
}

void netd_init(void)
{
    memset(&_netd_itf, 0, sizeof(_netd_itf));
}

void netd_reset(uint8_t rhport)
{
    (void)rhport;
    netd_init();
}

uint16_t netd_open(uint8_t rhport, tusb_desc_interface_t const *itf_desc, uint16_t max_len)
{
    bool const is_ecm = TUSB_CLASS_CDC == itf_desc->bInterfaceClass &&
                        CDC_COMM_SUBCLASS_ETHERNET_CONTROL_MODEL == itf_desc->bInterfaceSubClass;
    bool const is_rndis = itf_desc->bInterfaceClass == 0xe0 || itf_desc->bInterfaceClass == TUSB_CLASS_CDC;
    TU_VERIFY(is_ecm || is_rndis, 0);
    TU_VERIFY(_netd_itf.ep_in == 0, 0);

    _netd_itf.itf_num = itf_desc->bInterfaceNumber;
    _netd_itf.ecm_mode = is_ecm;

    uint16_t drv_len = sizeof(tusb_desc_interface_t);
    uint8_t const *p_desc = tu_desc_next(itf_desc);

    /* functional descriptors, then the notification endpoint */
    while (TUSB_DESC_CS_INTERFACE == tu_desc_type(p_desc) && drv_len <= max_len) {
        drv_len = (uint16_t)(drv_len + p_desc[0]);
        p_desc = tu_desc_next(p_desc);
    }
    if (TUSB_DESC_ENDPOINT == tu_desc_type(p_desc)) {
        tusb_desc_endpoint_t const *desc_ep = (tusb_desc_endpoint_t const *)p_desc;
        TU_ASSERT(usbd_edpt_open(rhport, desc_ep));
        _netd_itf.ep_notif = desc_ep->bEndpointAddress;
        drv_len = (uint16_t)(drv_len + p_desc[0]);
        p_desc = tu_desc_next(p_desc);
    }

    /* the data interface (alternate setting 1 for ECM) and its bulk endpoint pair */
    TU_ASSERT(TUSB_DESC_INTERFACE == tu_desc_type(p_desc), 0);
    drv_len = (uint16_t)(drv_len + p_desc[0]);
    if (_netd_itf.ecm_mode) {
        p_desc = tu_desc_next(p_desc);
        drv_len = (uint16_t)(drv_len + p_desc[0]);
    }
    p_desc = tu_desc_next(p_desc);
    TU_ASSERT(usbd_open_edpt_pair(rhport, p_desc, 2, TUSB_XFER_BULK, &_netd_itf.ep_out, &_netd_itf.ep_in));
    drv_len = (uint16_t)(drv_len + 2 * sizeof(tusb_desc_endpoint_t));

    _netd_itf.can_xmit = true;
    tud_network_init_cb();
    tud_network_recv_renew();
    return drv_len;
}

static void handle_incoming_packet(uint32_t len)
{
    uint8_t *pnt = received;
    uint32_t size = 0;
    if (_netd_itf.ecm_mode) {
        size = len;
    } else {
        /* RNDIS data header: message length at 4, data offset at 8, data length at 12 */
        uint32_t data_offset, data_length;
        memcpy(&data_offset, received + 8, 4);
        memcpy(&data_length, received + 12, 4);
        if (len >= 44 && data_offset + data_length + 8 <= len) {
            pnt = received + 8 + data_offset;
            size = data_length;
        }
    }
    if (!size || !tud_network_recv_cb(pnt, (uint16_t)size))
        tud_network_recv_renew();
}

bool netd_control_xfer_cb(uint8_t rhport, uint8_t stage, tusb_control_request_t const *request)
{
    if (stage == CONTROL_STAGE_SETUP) {
        switch (request->bmRequestType_bit.type) {
        case TUSB_REQ_TYPE_STANDARD:
            if (request->bRequest == TUSB_REQ_SET_INTERFACE) {
                uint8_t const req_itfnum = (uint8_t)request->wIndex;
                TU_VERIFY(_netd_itf.itf_num + 1 == req_itfnum);
                _netd_itf.itf_data_alt = (uint8_t)request->wValue;
                if (_netd_itf.itf_data_alt == 1) {
                    tud_network_recv_renew();
                    notify_request = *request;
                    ecm_report(true);
                }
                return tud_control_status(rhport, request);
            }
            if (request->bRequest == TUSB_REQ_GET_INTERFACE) {
                uint8_t alt = _netd_itf.itf_data_alt;
                return tud_control_xfer(rhport, request, &alt, 1);
            }
            return false;
        case TUSB_REQ_TYPE_CLASS:
            if (_netd_itf.ecm_mode) {
                /* SET_ETHERNET_PACKET_FILTER and friends: accept */
                return tud_control_status(rhport, request);
            }
            if (request->bRequest == CDC_REQUEST_GET_ENCAPSULATED_RESPONSE)
                return tud_control_xfer(rhport, request, rndis_buf, sizeof(rndis_buf));
            return tud_control_xfer(rhport, request, rndis_buf, sizeof(rndis_buf));
        default:
            return false;
        }
    }
    if (stage == CONTROL_STAGE_DATA && !_netd_itf.ecm_mode &&
        request->bRequest == CDC_REQUEST_SEND_ENCAPSULATED_COMMAND) {
        /* answer every RNDIS command with "response available" */
        static uint8_t response_available[8] TU_ATTR_ALIGNED(4) = {1, 0, 0, 0, 0, 0, 0, 0};
        netd_report(response_available, sizeof(response_available));
    }
    return true;
}

static void do_in_xfer(uint8_t *buf, uint16_t len)
{
    _netd_itf.can_xmit = false;
    usbd_edpt_xfer(0, _netd_itf.ep_in, buf, len);
}

bool netd_xfer_cb(uint8_t rhport, uint8_t ep_addr, xfer_result_t result, uint32_t xferred_bytes)
{
    (void)rhport;
    (void)result;
    if (ep_addr == _netd_itf.ep_out)
        handle_incoming_packet(xferred_bytes);
    if (ep_addr == _netd_itf.ep_in) {
        _netd_itf.can_xmit = true;
        /* a transfer that is a multiple of the packet size ends with a zero-length packet */
        if (xferred_bytes && !(xferred_bytes % 64u))
            do_in_xfer(NULL, 0);
    }
    if (ep_addr == _netd_itf.ep_notif) {
        /* notification sent */
    }
    return true;
}

void tud_network_recv_renew(void)
{
    usbd_edpt_xfer(0, _netd_itf.ep_out, received, sizeof(received));
}

bool tud_network_can_xmit(uint16_t size)
{
    (void)size;
    return _netd_itf.can_xmit;
}

void tud_network_xmit(void *ref, uint16_t arg)
{
    if (!_netd_itf.can_xmit)
        return;
    uint16_t len = _netd_itf.ecm_mode ? 0 : 44;
    uint8_t *data = transmitted + len;
    len = (uint16_t)(len + tud_network_xmit_cb(data, ref, arg));
    if (!_netd_itf.ecm_mode) {
        uint32_t hdr[3] = {1u, len, 36u};
        memcpy(transmitted, hdr, sizeof(hdr));
        uint32_t data_len = (uint32_t)len - 44u;
        memcpy(transmitted + 12, &data_len, 4);
    }
    do_in_xfer(transmitted, len);
}
