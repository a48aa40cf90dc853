/* firewall.c: what the echo device accepts and sends on its USB link, as packet filter
 * rules (net/net_pkt_filter.h). A bench instrument serves its own link only:
 *   frames in:   not from our own MAC (a loop) or a group address (IEEE 802: a source is
 *                never a group), and only IPv4 or ARP of a sane length; nothing else
 *   IPv4 in:     only from the link's subnet (there is no gateway to answer through)
 *   IPv4 out:    only to the link's subnet, its multicast groups or the broadcast
 * The loopback interface is not filtered. */
#include "config.h"
#include "firewall.h"
#include "net/net_pkt_filter.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(firewall, LOG_LEVEL_INF);

#define FRAME_MIN_IPV4 (NET_ETH_HDR_LEN + NET_IPV4_HDR_LEN)
#define FRAME_MIN_ARP (NET_ETH_HDR_LEN + 28)

static struct net_eth_addr own_mac;
static const struct net_eth_addr group_bit = {{0x01, 0, 0, 0, 0, 0}};

static NPF_IFACE_MATCH(on_usb, NULL);
static struct npf_test_eth_addr src_is_own = {
	.test.fn = npf_eth_src_addr_match,
	.nb_addresses = 1,
	.addresses = &own_mac,
	.mask = {{0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF}},
};
static struct npf_test_eth_addr src_is_group = {
	.test.fn = npf_eth_src_addr_match,
	.nb_addresses = 1,
	.addresses = &group_bit,
	.mask = {{0x01, 0, 0, 0, 0, 0}},
};
static NPF_ETH_TYPE_MATCH(type_ipv4, NET_ETH_PTYPE_IP);
static NPF_ETH_TYPE_MATCH(type_arp, NET_ETH_PTYPE_ARP);
static NPF_SIZE_BOUNDS(size_ipv4, FRAME_MIN_IPV4, NET_ETH_MAX_FRAME);
static NPF_SIZE_BOUNDS(size_arp, FRAME_MIN_ARP, NET_ETH_MAX_FRAME);

static struct npf_ipv4_net link_net[1];
static struct npf_ipv4_net link_dsts[3];
static struct npf_test_ipv4_net src_off_link = {
	.test.fn = npf_ipv4_src_net_unmatch,
	.nb_nets = ARRAY_SIZE(link_net),
	.nets = link_net,
};
static struct npf_test_ipv4_net dst_off_link = {
	.test.fn = npf_ipv4_dst_net_unmatch,
	.nb_nets = ARRAY_SIZE(link_dsts),
	.nets = link_dsts,
};

NPF_RULE(rx_looped, NET_DROP, &on_usb.test, &src_is_own.test);
NPF_RULE(rx_group_source, NET_DROP, &on_usb.test, &src_is_group.test);
NPF_RULE(rx_ipv4, NET_OK, &on_usb.test, &type_ipv4.test, &size_ipv4.test);
NPF_RULE(rx_arp, NET_OK, &on_usb.test, &type_arp.test, &size_arp.test);
NPF_RULE(rx_other, NET_DROP, &on_usb.test);
NPF_RULE(ip_off_link_source, NET_DROP, &on_usb.test, &src_off_link.test);
NPF_RULE(tx_off_link, NET_DROP, &on_usb.test, &dst_off_link.test);

void firewall_init(struct net_if *iface)
{
	static const struct in_addr addr = {.s4_addr = ECHO_IPV4_ADDR};
	static const struct in_addr mask = {.s4_addr = ECHO_IPV4_NETMASK};

	on_usb.iface = iface;
	memcpy(own_mac.addr, iface->mac, NET_ETH_ADDR_LEN);
	link_net[0].addr = addr;
	link_net[0].mask = mask;
	link_dsts[0] = link_net[0];
	link_dsts[1].addr = NET_IPV4_ADDR(224, 0, 0, 0); /* multicast */
	link_dsts[1].mask = NET_IPV4_ADDR(240, 0, 0, 0);
	link_dsts[2].addr = NET_IPV4_ADDR(255, 255, 255, 255); /* limited broadcast */
	link_dsts[2].mask = NET_IPV4_ADDR(255, 255, 255, 255);

	npf_append_rule(&npf_recv_rules, &rx_looped);
	npf_append_rule(&npf_recv_rules, &rx_group_source);
	npf_append_rule(&npf_recv_rules, &rx_ipv4);
	npf_append_rule(&npf_recv_rules, &rx_arp);
	npf_append_rule(&npf_recv_rules, &rx_other);
	npf_append_rule(&npf_ipv4_recv_rules, &ip_off_link_source);
	npf_append_rule(&npf_send_rules, &tx_off_link);
	LOG_INF("%s: packet filter on (7 rules)", iface->name);
}
