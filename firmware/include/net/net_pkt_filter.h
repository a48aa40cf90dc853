/* net_pkt_filter.h: the network packet filter (Zephyr's NPF): ordered lists of rules, each
 * a set of tests on a packet and a verdict. Three lists, three hook points:
 *   recv     frames from a driver, Ethernet header included, before the RX queue
 *   ipv4     IPv4 datagrams for this host, after the header checks, before delivery
 *   send     packets the stack sends, before the TX queue (no link header yet)
 * The first rule whose tests all pass decides: NET_OK accepts, NET_DROP drops. A packet no
 * rule matches gets the list's default verdict (NET_OK unless set otherwise). Rules are
 * kept by the caller (static storage); lists may change at any time. */
#ifndef NET_NET_PKT_FILTER_H
#define NET_NET_PKT_FILTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "net/ethernet.h"
#include "net/net_if.h"
#include "net/net_pkt.h"

struct npf_test {
	bool (*fn)(struct npf_test *test, struct net_pkt *pkt);
};

struct npf_rule {
	sys_snode_t node;
	const char *name;
	enum net_verdict result; /* NET_OK or NET_DROP */
	uint32_t hits;           /* packets this rule decided */
	uint32_t nb_tests;
	struct npf_test *const *tests;
};

struct npf_rule_list {
	const char *name;
	sys_slist_t rule_head;
	enum net_verdict default_result;
	uint32_t evaluated, dropped;
};

extern struct npf_rule_list npf_recv_rules;
extern struct npf_rule_list npf_ipv4_recv_rules;
extern struct npf_rule_list npf_send_rules;

#define NPF_RULE(_name, _result, ...)                                                 \
	static struct npf_test *const _name##_tests[] = {__VA_ARGS__};                 \
	static struct npf_rule _name = {.name = #_name, .result = (_result),           \
					.nb_tests = ARRAY_SIZE(_name##_tests),         \
					.tests = _name##_tests}

/* Appends / inserts (at the front) / removes a rule. */
void npf_append_rule(struct npf_rule_list *rules, struct npf_rule *rule);
void npf_insert_rule(struct npf_rule_list *rules, struct npf_rule *rule);
bool npf_remove_rule(struct npf_rule_list *rules, struct npf_rule *rule);
void npf_remove_all_rules(struct npf_rule_list *rules);
void npf_set_default(struct npf_rule_list *rules, enum net_verdict result);

/* The hooks (false: the caller drops the packet). */
bool net_pkt_filter_recv_ok(struct net_pkt *pkt);
bool net_pkt_filter_ip_recv_ok(struct net_pkt *pkt);
bool net_pkt_filter_send_ok(struct net_pkt *pkt);

/* Every rule with its hit count, to the console. */
void npf_print(void);

/* ---- Tests ---- */

/* The packet's interface is (not) iface. */
struct npf_test_iface {
	struct npf_test test;
	struct net_if *iface;
};
bool npf_iface_match(struct npf_test *test, struct net_pkt *pkt);
bool npf_iface_unmatch(struct npf_test *test, struct net_pkt *pkt);
#define NPF_IFACE_MATCH(_name, _iface) \
	struct npf_test_iface _name = {.test.fn = npf_iface_match, .iface = (_iface)}
#define NPF_IFACE_UNMATCH(_name, _iface) \
	struct npf_test_iface _name = {.test.fn = npf_iface_unmatch, .iface = (_iface)}

/* The packet's length is within [min, max] (the link header counts on recv). */
struct npf_test_size_bounds {
	struct npf_test test;
	size_t min, max;
};
bool npf_size_inbounds(struct npf_test *test, struct net_pkt *pkt);
#define NPF_SIZE_BOUNDS(_name, _min, _max) \
	struct npf_test_size_bounds _name = {.test.fn = npf_size_inbounds, .min = (_min), .max = (_max)}

/* The Ethernet source / destination is (not) one of the addresses, compared under mask
 * (recv only: the frame still has its Ethernet header). */
struct npf_test_eth_addr {
	struct npf_test test;
	uint32_t nb_addresses;
	const struct net_eth_addr *addresses;
	struct net_eth_addr mask;
};
bool npf_eth_src_addr_match(struct npf_test *test, struct net_pkt *pkt);
bool npf_eth_src_addr_unmatch(struct npf_test *test, struct net_pkt *pkt);
bool npf_eth_dst_addr_match(struct npf_test *test, struct net_pkt *pkt);
bool npf_eth_dst_addr_unmatch(struct npf_test *test, struct net_pkt *pkt);

/* The Ethertype is (not) type (recv only). */
struct npf_test_eth_type {
	struct npf_test test;
	uint16_t type; /* network order */
};
bool npf_eth_type_match(struct npf_test *test, struct net_pkt *pkt);
bool npf_eth_type_unmatch(struct npf_test *test, struct net_pkt *pkt);
#define NPF_ETH_TYPE_MATCH(_name, _type) \
	struct npf_test_eth_type _name = {.test.fn = npf_eth_type_match, .type = NPF_BE16(_type)}
#define NPF_ETH_TYPE_UNMATCH(_name, _type) \
	struct npf_test_eth_type _name = {.test.fn = npf_eth_type_unmatch, .type = NPF_BE16(_type)}
/* A constant in network order, for static initialisers. */
#define NPF_BE16(x) ((uint16_t)((((x) & 0xFFu) << 8) | (((x) >> 8) & 0xFFu)))

/* The IPv4 source / destination is (not) in one of the networks (address and mask); on
 * ipv4 and send, where the packet starts with its IPv4 header. */
struct npf_ipv4_net {
	struct in_addr addr, mask;
};
struct npf_test_ipv4_net {
	struct npf_test test;
	uint32_t nb_nets;
	const struct npf_ipv4_net *nets;
};
bool npf_ipv4_src_net_match(struct npf_test *test, struct net_pkt *pkt);
bool npf_ipv4_src_net_unmatch(struct npf_test *test, struct net_pkt *pkt);
bool npf_ipv4_dst_net_match(struct npf_test *test, struct net_pkt *pkt);
bool npf_ipv4_dst_net_unmatch(struct npf_test *test, struct net_pkt *pkt);

/* The IP protocol is one of the listed (ipv4 and send). */
struct npf_test_ip_proto {
	struct npf_test test;
	uint32_t nb_protos;
	const uint8_t *protos;
};
bool npf_ip_proto_match(struct npf_test *test, struct net_pkt *pkt);

#endif
