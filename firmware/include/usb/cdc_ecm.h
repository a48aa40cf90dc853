/* cdc_ecm.h: the USB CDC-ECM function (Ethernet Control Model, CDC ECM 1.2): an Ethernet
 * interface for the network stack, one frame per bulk transfer. */
#ifndef USB_CDC_ECM_H
#define USB_CDC_ECM_H

#include <stdint.h>

struct net_if;

/* Registers the function with the USB device stack (before usbd_enable) and its interface
 * with the network stack. mac is the device's own address; host_mac is announced to the
 * host as iMACAddress, the address of its end of the link. */
struct net_if *cdc_ecm_init(const uint8_t mac[6], const uint8_t host_mac[6]);

struct cdc_ecm_stats {
	uint32_t rx_frames, rx_bytes, rx_no_buffer, rx_errors;
	uint32_t tx_frames, tx_bytes, tx_busy, tx_errors, tx_filtered;
	uint32_t notifications;
	uint16_t packet_filter;
	uint8_t data_alt;
};
void cdc_ecm_stats_get(struct cdc_ecm_stats *s);

#endif
