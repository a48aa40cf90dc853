/* Transfers on one RP2040 hardware endpoint: the user buffer is moved through the
 * endpoint's DPRAM buffer one packet at a time. The per-packet path runs in the USB
 * interrupt, from SRAM. */
#include "tusb.h"
#include "rp2040_usb.h"
#include "hardware/resets.h"

void rp2040_usb_init(void)
{
    reset_block(1u << RESET_USBCTRL);
    unreset_block_wait(1u << RESET_USBCTRL);
    memset((void *)USBCTRL_REGS_BASE, 0, 0x9cu);
    memset((void *)USBCTRL_DPRAM_BASE, 0, USB_DPRAM_SIZE);
    USB_REG(USB_MUXING_OFFSET) = 0x9u;  /* to PHY, softcon */
    USB_REG(USB_PWR_OFFSET) = 0xcu;     /* VBUS detect override */
}

void hw_endpoint_reset_transfer(struct hw_endpoint *ep)
{
    ep->active = false;
    ep->remaining_len = 0;
    ep->xferred_len = 0;
    ep->user_buf = 0;
}

void __tusb_irq_path_func(_hw_endpoint_buffer_control_update32)(struct hw_endpoint *ep, uint32_t and_mask, uint32_t or_mask)
{
    uint32_t value = 0;
    if (and_mask)
        value = *ep->buffer_control & and_mask;
    if (or_mask) {
        value |= or_mask;
        if (or_mask & USB_BUF_CTRL_AVAIL) {
            /* the controller must see the buffer complete before AVAIL: write it twice */
            *ep->buffer_control = value & ~USB_BUF_CTRL_AVAIL;
            busy_wait_at_least_cycles(12);
        }
    }
    *ep->buffer_control = value;
}

/* fills (IN) or arms (OUT) the DPRAM buffer for the next packet; returns its control bits */
static uint32_t __tusb_irq_path_func(prepare_ep_buffer)(struct hw_endpoint *ep)
{
    uint16_t const buflen = TU_MIN(ep->remaining_len, ep->wMaxPacketSize);
    ep->remaining_len = (uint16_t)(ep->remaining_len - buflen);
    uint32_t buf_ctrl = buflen | USB_BUF_CTRL_AVAIL;
    buf_ctrl |= ep->next_pid ? USB_BUF_CTRL_DATA1_PID : 0;
    ep->next_pid ^= 1u;
    if (!ep->rx) {
        memcpy(ep->hw_data_buf, ep->user_buf, buflen);
        ep->user_buf += buflen;
        buf_ctrl |= USB_BUF_CTRL_FULL;
    }
    if (ep->remaining_len == 0)
        buf_ctrl |= USB_BUF_CTRL_LAST;
    return buf_ctrl;
}

static void __tusb_irq_path_func(hw_endpoint_start_next_buffer)(struct hw_endpoint *ep)
{
    uint32_t buf_ctrl = prepare_ep_buffer(ep);
    _hw_endpoint_buffer_control_set_value32(ep, buf_ctrl);
}

void hw_endpoint_xfer_start(struct hw_endpoint *ep, uint8_t *buffer, uint16_t total_len)
{
    if (ep->active)
        hw_endpoint_reset_transfer(ep);
    ep->remaining_len = total_len;
    ep->xferred_len = 0;
    ep->active = true;
    ep->user_buf = buffer;
    hw_endpoint_start_next_buffer(ep);
}

/* copies out what a finished buffer received; returns the bytes it held */
static uint16_t __tusb_irq_path_func(sync_ep_buffer)(struct hw_endpoint *ep)
{
    uint32_t buf_ctrl = *ep->buffer_control;
    uint16_t xferred_bytes = (uint16_t)(buf_ctrl & USB_BUF_CTRL_LEN_MASK);
    if (ep->rx) {
        memcpy(ep->user_buf, ep->hw_data_buf, xferred_bytes);
        ep->user_buf += xferred_bytes;
    }
    ep->xferred_len = (uint16_t)(ep->xferred_len + xferred_bytes);
    /* a short packet ends an OUT transfer */
    if (ep->rx && xferred_bytes < ep->wMaxPacketSize)
        ep->remaining_len = 0;
    return xferred_bytes;
}

/* after a buffer completes: true when the whole transfer is done */
bool __tusb_irq_path_func(hw_endpoint_xfer_continue)(struct hw_endpoint *ep)
{
    if (!ep->active)
        return false;
    sync_ep_buffer(ep);
    if (ep->remaining_len == 0)
        return true;
    hw_endpoint_start_next_buffer(ep);
    return false;
}
