/* RP2040 USB controller: DPRAM layout, registers, and the hardware endpoint state shared
 * by the device port. */
#ifndef _RP2040_USB_H_
#define _RP2040_USB_H_

#include "common/tusb_common.h"
#include "pico.h"
#include "hardware/address_mapped.h"

#if TUD_OPT_RP2040_USB_DEVICE_UFRAME_FIX
#define __tusb_irq_path_func(x) __not_in_flash_func(x)
#else
#define __tusb_irq_path_func(x) x
#endif

#define USB_REG(off) (*(io_rw_32 *)(USBCTRL_REGS_BASE + (off)))
#define USB_ADDR_ENDP_OFFSET 0x00
#define USB_MAIN_CTRL_OFFSET 0x40
#define USB_SIE_CTRL_OFFSET 0x4c
#define USB_SIE_STATUS_OFFSET 0x50
#define USB_BUFF_STATUS_OFFSET 0x58
#define USB_EP_STALL_ARM_OFFSET 0x68
#define USB_MUXING_OFFSET 0x74
#define USB_PWR_OFFSET 0x78
#define USB_INTE_OFFSET 0x90
#define USB_INTS_OFFSET 0x98

#define USB_INTS_BUFF_STATUS_BITS 0x00000010u
#define USB_INTS_BUS_RESET_BITS 0x00001000u
#define USB_INTS_SETUP_REQ_BITS 0x00010000u
#define USB_INTS_DEV_SUSPEND_BITS 0x00004000u
#define USB_INTS_DEV_RESUME_FROM_HOST_BITS 0x00008000u
#define USB_INTS_DEV_CONN_DIS_BITS 0x00002000u

#define USB_SIE_STATUS_SETUP_REC_BITS 0x00020000u
#define USB_SIE_STATUS_BUS_RESET_BITS 0x00080000u
#define USB_SIE_STATUS_SUSPENDED_BITS 0x00000010u
#define USB_SIE_STATUS_RESUME_BITS 0x00000800u
#define USB_SIE_STATUS_CONNECTED_BITS 0x00010000u

#define USB_BUF_CTRL_FULL 0x00008000u
#define USB_BUF_CTRL_LAST 0x00004000u
#define USB_BUF_CTRL_DATA1_PID 0x00002000u
#define USB_BUF_CTRL_STALL 0x00000800u
#define USB_BUF_CTRL_AVAIL 0x00000400u
#define USB_BUF_CTRL_LEN_MASK 0x000003ffu

#define EP_CTRL_ENABLE_BITS 0x80000000u
#define EP_CTRL_INTERRUPT_PER_BUFFER 0x20000000u

#define USB_DPRAM_SETUP_PACKET ((uint8_t *)USBCTRL_DPRAM_BASE)
#define USB_DPRAM_EP_CTRL(num, in) (*(io_rw_32 *)(USBCTRL_DPRAM_BASE + 8u * (num) + ((in) ? 0u : 4u)))
#define USB_DPRAM_EP_BUF_CTRL(num, in) (*(io_rw_32 *)(USBCTRL_DPRAM_BASE + 0x80u + 8u * (num) + ((in) ? 0u : 4u)))
#define USB_DPRAM_EP0_BUF ((uint8_t *)(USBCTRL_DPRAM_BASE + 0x100u))
#define USB_DPRAM_DATA_BUF ((uint8_t *)(USBCTRL_DPRAM_BASE + 0x180u))
#define USB_DPRAM_SIZE 4096u

struct hw_endpoint {
    bool configured;
    bool rx;
    uint8_t ep_addr;
    uint8_t next_pid;
    io_rw_32 *endpoint_control;
    io_rw_32 *buffer_control;
    uint8_t *hw_data_buf;
    uint8_t *user_buf;
    uint16_t remaining_len;
    uint16_t xferred_len;
    uint16_t wMaxPacketSize;
    uint8_t transfer_type;
    bool active;
};

void rp2040_usb_init(void);
void hw_endpoint_reset_transfer(struct hw_endpoint *ep);
void hw_endpoint_xfer_start(struct hw_endpoint *ep, uint8_t *buffer, uint16_t total_len);
bool hw_endpoint_xfer_continue(struct hw_endpoint *ep);
void _hw_endpoint_buffer_control_update32(struct hw_endpoint *ep, uint32_t and_mask, uint32_t or_mask);

static inline void _hw_endpoint_buffer_control_set_value32(struct hw_endpoint *ep, uint32_t value)
{
    _hw_endpoint_buffer_control_update32(ep, 0, value);
}

static inline uintptr_t hw_data_offset(uint8_t *buf)
{
    return (uintptr_t)buf ^ (uintptr_t)USBCTRL_DPRAM_BASE;
}

#endif
