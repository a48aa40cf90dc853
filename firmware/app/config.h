/* config.h: the echo device's network identity. 192.0.2.0/24 is TEST-NET-1 (RFC 5737),
 * reserved for documentation: it can never clash with a real network. The MAC addresses
 * are locally administered (bit 1 of the first byte set). */
#ifndef APP_CONFIG_H
#define APP_CONFIG_H

#define ECHO_IPV4_ADDR {192, 0, 2, 1}
#define ECHO_IPV4_NETMASK {255, 255, 255, 0}
#define ECHO_HOST_IPV4_ADDR {192, 0, 2, 2} /* what the host side is expected to use */
#define ECHO_DEVICE_MAC {0x02, 0x00, 0x00, 0x00, 0x00, 0x01}
#define ECHO_HOST_MAC {0x02, 0x00, 0x00, 0x00, 0x00, 0x02} /* announced as iMACAddress */
#define ECHO_UDP_PORT 7 /* the echo service (RFC 862) */

#endif
