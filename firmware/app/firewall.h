/* firewall.h: the echo device's packet filter policy (net/pkt_filter.c rules). */
#ifndef APP_FIREWALL_H
#define APP_FIREWALL_H

#include "net/net_if.h"

/* Installs the rules for the USB interface iface (its MAC and IPv4 subnet). */
void firewall_init(struct net_if *iface);

#endif
