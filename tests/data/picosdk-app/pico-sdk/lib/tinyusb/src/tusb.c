/* Stack initialisation and endpoint claim helpers. */
#include "tusb.h"
#include "pico/mutex.h"

static mutex_t ep_claim_mutex;

bool tusb_init(void)
{
    mutex_init(&ep_claim_mutex);
    return tud_init(0);
}

bool tusb_inited(void)
{
    return tud_inited();
}

bool tu_edpt_claim(tu_edpt_state_t *ep_state)
{
    mutex_enter_blocking(&ep_claim_mutex);
    bool available = !ep_state->busy && !ep_state->claimed;
    if (available)
        ep_state->claimed = 1;
    mutex_exit(&ep_claim_mutex);
    return available;
}

bool tu_edpt_release(tu_edpt_state_t *ep_state)
{
    mutex_enter_blocking(&ep_claim_mutex);
    bool was_claimed = ep_state->claimed && !ep_state->busy;
    if (was_claimed)
        ep_state->claimed = 0;
    mutex_exit(&ep_claim_mutex);
    return was_claimed;
}

bool tu_edpt_validate(tusb_desc_endpoint_t const *desc_ep)
{
    uint16_t const max_packet_size = tu_edpt_packet_size(desc_ep);
    switch (desc_ep->bmAttributes & 3u) {
    case TUSB_XFER_ISOCHRONOUS:
        TU_ASSERT(max_packet_size <= 1023);
        break;
    case TUSB_XFER_BULK:
    case TUSB_XFER_INTERRUPT:
        TU_ASSERT(max_packet_size <= 64);
        break;
    default:
        return false;
    }
    return true;
}

uint16_t tu_desc_get_interface_total_len(tusb_desc_interface_t const *desc_itf, uint8_t itf_count, uint16_t max_len)
{
    uint8_t const *p_desc = (uint8_t const *)desc_itf;
    uint16_t len = 0;
    while (itf_count--) {
        len += p_desc[0];
        p_desc = tu_desc_next(p_desc);
        while (len < max_len) {
            if (tu_desc_type(p_desc) == TUSB_DESC_INTERFACE && ((tusb_desc_interface_t const *)p_desc)->bAlternateSetting == 0)
                break;
            len += p_desc[0];
            p_desc = tu_desc_next(p_desc);
        }
    }
    return len;
}
