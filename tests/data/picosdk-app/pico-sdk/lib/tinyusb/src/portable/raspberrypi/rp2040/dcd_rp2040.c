/* RP2040 device controller port: endpoint set-up and the USB interrupt, which runs from
 * SRAM and turns controller status into stack events. */
#include "tusb.h"
#include "device/dcd.h"
#include "rp2040_usb.h"
#include "hardware/irq.h"
#include "hardware/regs/intctrl.h"

#define USB_MAX_ENDPOINTS 16

static struct hw_endpoint hw_endpoints[USB_MAX_ENDPOINTS][2];
static uint8_t *next_buffer_ptr;

static inline struct hw_endpoint *hw_endpoint_get_by_num(uint8_t num, tusb_dir_t dir)
{
    return &hw_endpoints[num][dir];
}

static struct hw_endpoint *hw_endpoint_get_by_addr(uint8_t ep_addr)
{
    return hw_endpoint_get_by_num(tu_edpt_number(ep_addr), tu_edpt_dir(ep_addr));
}

static void _hw_endpoint_alloc(struct hw_endpoint *ep, uint8_t transfer_type)
{
    uint16_t size = (uint16_t)TU_MIN(64, ep->wMaxPacketSize);
    ep->hw_data_buf = next_buffer_ptr;
    next_buffer_ptr += (size + 63u) & ~63u;
    uint32_t dpram_offset = (uint32_t)hw_data_offset(ep->hw_data_buf);
    uint32_t reg = EP_CTRL_ENABLE_BITS | EP_CTRL_INTERRUPT_PER_BUFFER | ((uint32_t)transfer_type << 26) | dpram_offset;
    *ep->endpoint_control = reg;
}

static void _hw_endpoint_init(struct hw_endpoint *ep, uint8_t ep_addr, uint16_t wMaxPacketSize, uint8_t transfer_type)
{
    uint8_t const num = tu_edpt_number(ep_addr);
    tusb_dir_t const dir = tu_edpt_dir(ep_addr);
    ep->ep_addr = ep_addr;
    ep->rx = (dir == TUSB_DIR_OUT);
    ep->next_pid = 0u;
    ep->wMaxPacketSize = wMaxPacketSize;
    ep->transfer_type = transfer_type;
    ep->buffer_control = &USB_DPRAM_EP_BUF_CTRL(num, dir == TUSB_DIR_IN);
    if (num == 0) {
        ep->hw_data_buf = USB_DPRAM_EP0_BUF;
        ep->endpoint_control = NULL;
    } else {
        ep->endpoint_control = &USB_DPRAM_EP_CTRL(num - 1u, dir == TUSB_DIR_IN);
        _hw_endpoint_alloc(ep, transfer_type);
    }
    ep->configured = true;
}

static void hw_endpoint_init(uint8_t ep_addr, uint16_t wMaxPacketSize, uint8_t transfer_type)
{
    _hw_endpoint_init(hw_endpoint_get_by_addr(ep_addr), ep_addr, wMaxPacketSize, transfer_type);
}

static void hw_endpoint_xfer(uint8_t ep_addr, uint8_t *buffer, uint16_t total_bytes)
{
    hw_endpoint_xfer_start(hw_endpoint_get_by_addr(ep_addr), buffer, total_bytes);
}

static void __tusb_irq_path_func(hw_handle_buff_status)(void)
{
    uint32_t remaining_buffers = USB_REG(USB_BUFF_STATUS_OFFSET);
    uint bit = 1u;
    for (uint8_t i = 0; remaining_buffers && i < USB_MAX_ENDPOINTS * 2; i++) {
        if (remaining_buffers & bit) {
            USB_REG(USB_BUFF_STATUS_OFFSET) = bit; /* write 1 to clear */
            struct hw_endpoint *ep = hw_endpoint_get_by_num(i >> 1u, (i & 1u) ? TUSB_DIR_OUT : TUSB_DIR_IN);
            if (hw_endpoint_xfer_continue(ep)) {
                dcd_event_xfer_complete(0, ep->ep_addr, ep->xferred_len, XFER_RESULT_SUCCESS, true);
                hw_endpoint_reset_transfer(ep);
            }
            remaining_buffers &= ~bit;
        }
        bit <<= 1u;
    }
}

static void reset_non_control_endpoints(void)
{
    memset((void *)&USB_DPRAM_EP_CTRL(0, 1), 0, 0x78u);
    memset(hw_endpoints[1], 0, sizeof(hw_endpoints) - sizeof(hw_endpoints[0]));
    next_buffer_ptr = USB_DPRAM_DATA_BUF;
}

static void __tusb_irq_path_func(dcd_rp2040_irq)(void)
{
    uint32_t const status = USB_REG(USB_INTS_OFFSET);
    uint32_t handled = 0;

    if (status & USB_INTS_SETUP_REQ_BITS) {
        handled |= USB_INTS_SETUP_REQ_BITS;
        uint8_t const *setup = USB_DPRAM_SETUP_PACKET;
        /* the next packets of endpoint 0 are DATA1 */
        hw_endpoint_get_by_num(0, TUSB_DIR_IN)->next_pid = 1u;
        hw_endpoint_get_by_num(0, TUSB_DIR_OUT)->next_pid = 1u;
        dcd_event_setup_received(0, setup, true);
        USB_REG(USB_SIE_STATUS_OFFSET) = USB_SIE_STATUS_SETUP_REC_BITS;
    }

    if (status & USB_INTS_BUFF_STATUS_BITS) {
        handled |= USB_INTS_BUFF_STATUS_BITS;
        hw_handle_buff_status();
    }

    if (status & USB_INTS_DEV_SUSPEND_BITS) {
        handled |= USB_INTS_DEV_SUSPEND_BITS;
        dcd_event_bus_signal(0, DCD_EVENT_SUSPEND, true);
        USB_REG(USB_SIE_STATUS_OFFSET) = USB_SIE_STATUS_SUSPENDED_BITS;
    }

    if (status & USB_INTS_DEV_RESUME_FROM_HOST_BITS) {
        handled |= USB_INTS_DEV_RESUME_FROM_HOST_BITS;
        dcd_event_bus_signal(0, DCD_EVENT_RESUME, true);
        USB_REG(USB_SIE_STATUS_OFFSET) = USB_SIE_STATUS_RESUME_BITS;
    }

    if (status & USB_INTS_BUS_RESET_BITS) {
        handled |= USB_INTS_BUS_RESET_BITS;
        USB_REG(USB_ADDR_ENDP_OFFSET) = 0;
        reset_non_control_endpoints();
        dcd_event_bus_signal(0, DCD_EVENT_BUS_RESET, true);
        USB_REG(USB_SIE_STATUS_OFFSET) = USB_SIE_STATUS_BUS_RESET_BITS;
    }

    if (status & USB_INTS_DEV_CONN_DIS_BITS) {
        handled |= USB_INTS_DEV_CONN_DIS_BITS;
        if (!(USB_REG(USB_SIE_STATUS_OFFSET) & USB_SIE_STATUS_CONNECTED_BITS))
            dcd_event_bus_signal(0, DCD_EVENT_UNPLUGGED, true);
        USB_REG(USB_SIE_STATUS_OFFSET) = USB_SIE_STATUS_CONNECTED_BITS;
    }

    if (status ^ handled)
        panic("Unhandled USB IRQ 0x%x\n", (uint)(status ^ handled));
}

void dcd_init(uint8_t rhport)
{
    rp2040_usb_init();
    irq_add_shared_handler(USBCTRL_IRQ, dcd_rp2040_irq, PICO_SHARED_IRQ_HANDLER_DEFAULT_ORDER_PRIORITY);
    memset(hw_endpoints, 0, sizeof(hw_endpoints));
    next_buffer_ptr = USB_DPRAM_DATA_BUF;
    hw_endpoint_init(0x0, 64, TUSB_XFER_CONTROL);
    hw_endpoint_init(0x80, 64, TUSB_XFER_CONTROL);
    USB_REG(USB_MAIN_CTRL_OFFSET) = 1u; /* controller on, device mode */
    USB_REG(USB_SIE_CTRL_OFFSET) = 0x20000000u; /* interrupt on every EP0 buffer */
    USB_REG(USB_INTE_OFFSET) = USB_INTS_BUFF_STATUS_BITS | USB_INTS_BUS_RESET_BITS | USB_INTS_SETUP_REQ_BITS |
                               USB_INTS_DEV_SUSPEND_BITS | USB_INTS_DEV_RESUME_FROM_HOST_BITS |
                               USB_INTS_DEV_CONN_DIS_BITS;
    dcd_connect(rhport);
}

void dcd_int_enable(uint8_t rhport)
{
    (void)rhport;
    irq_set_enabled(USBCTRL_IRQ, true);
}

void dcd_int_disable(uint8_t rhport)
{
    (void)rhport;
    irq_set_enabled(USBCTRL_IRQ, false);
}

void dcd_set_address(uint8_t rhport, uint8_t dev_addr)
{
    (void)dev_addr;
    /* the address takes effect after the status stage (dcd_edpt0_status_complete) */
    hw_endpoint_xfer(0x80, NULL, 0);
    (void)rhport;
}

void dcd_remote_wakeup(uint8_t rhport)
{
    (void)rhport;
    hw_set_bits(&USB_REG(USB_SIE_CTRL_OFFSET), 1u << 12);
}

void dcd_disconnect(uint8_t rhport)
{
    (void)rhport;
    hw_clear_bits(&USB_REG(USB_SIE_CTRL_OFFSET), 1u << 16);
}

void dcd_connect(uint8_t rhport)
{
    (void)rhport;
    hw_set_bits(&USB_REG(USB_SIE_CTRL_OFFSET), 1u << 16);
}

void dcd_sof_enable(uint8_t rhport, bool en)
{
    (void)rhport;
    if (en)
        hw_set_bits(&USB_REG(USB_INTE_OFFSET), 1u << 17);
    else
        hw_clear_bits(&USB_REG(USB_INTE_OFFSET), 1u << 17);
}

void dcd_edpt0_status_complete(uint8_t rhport, tusb_control_request_t const *request)
{
    (void)rhport;
    if (request->bmRequestType_bit.recipient == TUSB_REQ_RCPT_DEVICE &&
        request->bmRequestType_bit.type == TUSB_REQ_TYPE_STANDARD && request->bRequest == TUSB_REQ_SET_ADDRESS) {
        USB_REG(USB_ADDR_ENDP_OFFSET) = (uint8_t)request->wValue;
    }
}

bool dcd_edpt_open(uint8_t rhport, tusb_desc_endpoint_t const *desc_edpt)
{
    (void)rhport;
    hw_endpoint_init(desc_edpt->bEndpointAddress, tu_edpt_packet_size(desc_edpt), desc_edpt->bmAttributes & 3u);
    return true;
}

void dcd_edpt_close_all(uint8_t rhport)
{
    (void)rhport;
    reset_non_control_endpoints();
}

bool dcd_edpt_xfer(uint8_t rhport, uint8_t ep_addr, uint8_t *buffer, uint16_t total_bytes)
{
    (void)rhport;
    hw_endpoint_xfer(ep_addr, buffer, total_bytes);
    return true;
}

void dcd_edpt_stall(uint8_t rhport, uint8_t ep_addr)
{
    (void)rhport;
    if (tu_edpt_number(ep_addr) == 0)
        hw_set_bits(&USB_REG(USB_EP_STALL_ARM_OFFSET), tu_edpt_dir(ep_addr) == TUSB_DIR_IN ? 1u : 2u);
    struct hw_endpoint *ep = hw_endpoint_get_by_addr(ep_addr);
    _hw_endpoint_buffer_control_set_value32(ep, USB_BUF_CTRL_STALL);
}

void dcd_edpt_clear_stall(uint8_t rhport, uint8_t ep_addr)
{
    (void)rhport;
    if (tu_edpt_number(ep_addr)) {
        struct hw_endpoint *ep = hw_endpoint_get_by_addr(ep_addr);
        ep->next_pid = 0;
        _hw_endpoint_buffer_control_update32(ep, ~USB_BUF_CTRL_STALL, 0);
    }
}
