/* pkt_filter.c: the network packet filter: rule lists, their evaluation at the three hook
 * points, and the tests rules are made of. Tests see headers through the packet cursor
 * (saved and restored): in place when contiguous, else a copy, so a header split across
 * fragments is read like any other. */
#include "drivers/console.h"
#include "net/net_pkt_filter.h"
#include "net_private.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_pkt_filter, LOG_LEVEL_WRN);

struct npf_rule_list npf_recv_rules = {.name = "recv", .default_result = NET_OK};
struct npf_rule_list npf_ipv4_recv_rules = {.name = "ipv4", .default_result = NET_OK};
struct npf_rule_list npf_send_rules = {.name = "send", .default_result = NET_OK};

/* ---- Rule lists ---- */

void npf_append_rule(struct npf_rule_list *rules, struct npf_rule *rule)
{
	unsigned key = irq_lock();
	rule->node.next = NULL;
	sys_slist_append(&rules->rule_head, &rule->node);
	irq_unlock(key);
}

void npf_insert_rule(struct npf_rule_list *rules, struct npf_rule *rule)
{
	unsigned key = irq_lock();
	sys_slist_prepend(&rules->rule_head, &rule->node);
	irq_unlock(key);
}

bool npf_remove_rule(struct npf_rule_list *rules, struct npf_rule *rule)
{
	unsigned key = irq_lock();
	sys_snode_t *prev = NULL;
	for (sys_snode_t *n = rules->rule_head.head; n; prev = n, n = n->next) {
		if (n != &rule->node)
			continue;
		if (prev)
			prev->next = n->next;
		else
			rules->rule_head.head = n->next;
		if (rules->rule_head.tail == n)
			rules->rule_head.tail = prev;
		n->next = NULL;
		irq_unlock(key);
		return true;
	}
	irq_unlock(key);
	return false;
}

void npf_remove_all_rules(struct npf_rule_list *rules)
{
	unsigned key = irq_lock();
	sys_slist_init(&rules->rule_head);
	irq_unlock(key);
}

void npf_set_default(struct npf_rule_list *rules, enum net_verdict result)
{
	rules->default_result = result;
}

/* ---- Evaluation ---- */

static bool apply_tests(const struct npf_rule *rule, struct net_pkt *pkt)
{
	for (uint32_t i = 0; i < rule->nb_tests; i++) {
		struct npf_test *test = rule->tests[i];
		if (!test->fn(test, pkt))
			return false;
	}
	return true;
}

/* The verdict of the first rule whose tests all pass, else the list's default. Rules run
 * with interrupts locked (short lists of short tests), as Zephyr runs them under a spin
 * lock: a rule cannot go away while it is being applied. */
static enum net_verdict evaluate(struct npf_rule_list *rules, struct net_pkt *pkt)
{
	enum net_verdict result = rules->default_result;
	unsigned key = irq_lock();
	rules->evaluated++;
	for (sys_snode_t *n = rules->rule_head.head; n; n = n->next) {
		struct npf_rule *rule = CONTAINER_OF(n, struct npf_rule, node);
		if (apply_tests(rule, pkt)) {
			rule->hits++;
			result = rule->result;
			break;
		}
	}
	if (result == NET_DROP)
		rules->dropped++;
	irq_unlock(key);
	return result;
}

static bool hook_ok(struct npf_rule_list *rules, struct net_pkt *pkt)
{
	if (sys_slist_is_empty(&rules->rule_head) && rules->default_result == NET_OK)
		return true;
	enum net_verdict result = evaluate(rules, pkt);
	if (result == NET_DROP) {
		LOG_DBG("%s: pkt %p dropped by a rule", rules->name, pkt);
		return false;
	}
	return true;
}

bool net_pkt_filter_recv_ok(struct net_pkt *pkt)
{
	return hook_ok(&npf_recv_rules, pkt);
}

bool net_pkt_filter_ip_recv_ok(struct net_pkt *pkt)
{
	return hook_ok(&npf_ipv4_recv_rules, pkt);
}

bool net_pkt_filter_send_ok(struct net_pkt *pkt)
{
	return hook_ok(&npf_send_rules, pkt);
}

static void print_list(const struct npf_rule_list *rules)
{
	printk("  %s: %u evaluated, %u dropped, default %s\r\n", rules->name,
	       (unsigned)rules->evaluated, (unsigned)rules->dropped,
	       rules->default_result == NET_DROP ? "drop" : "accept");
	for (const sys_snode_t *n = rules->rule_head.head; n; n = n->next) {
		const struct npf_rule *rule = CONTAINER_OF(n, struct npf_rule, node);
		printk("    %-24s %-6s %u tests, %u hits\r\n", rule->name,
		       rule->result == NET_DROP ? "drop" : "accept", (unsigned)rule->nb_tests,
		       (unsigned)rule->hits);
	}
}

void npf_print(void)
{
	printk("packet filter\r\n");
	print_list(&npf_recv_rules);
	print_list(&npf_ipv4_recv_rules);
	print_list(&npf_send_rules);
}

/* ---- Header access for the tests ---- */

/* The len bytes at the start of pkt: where they are when contiguous, else copied to copy;
 * NULL when the packet is shorter. The cursor stays where it was. */
static const void *npf_hdr(struct net_pkt *pkt, void *copy, size_t len)
{
	struct net_pkt_data_access access = {.data = copy, .size = len};
	struct net_pkt_cursor backup;
	bool overwrite = pkt->overwrite;
	net_pkt_cursor_backup(pkt, &backup);
	net_pkt_set_overwrite(pkt, true);
	net_pkt_cursor_init(pkt);
	const void *hdr = net_pkt_get_data(pkt, &access);
	net_pkt_cursor_restore(pkt, &backup);
	net_pkt_set_overwrite(pkt, overwrite);
	return hdr;
}

/* The Ethernet header of a received frame (the recv hook runs before the L2). */
static const struct net_eth_hdr *npf_eth_hdr(struct net_pkt *pkt, struct net_eth_hdr *copy)
{
	return npf_hdr(pkt, copy, sizeof(*copy));
}

/* The IPv4 header of a packet that starts with it (ipv4 and send hooks). */
static const struct net_ipv4_hdr *npf_ipv4_hdr(struct net_pkt *pkt, struct net_ipv4_hdr *copy)
{
	if (pkt->family != AF_INET)
		return NULL;
	return npf_hdr(pkt, copy, sizeof(*copy));
}

/* ---- Tests ---- */

bool npf_iface_match(struct npf_test *test, struct net_pkt *pkt)
{
	struct npf_test_iface *t = CONTAINER_OF(test, struct npf_test_iface, test);
	return pkt->iface == t->iface;
}

bool npf_iface_unmatch(struct npf_test *test, struct net_pkt *pkt)
{
	return !npf_iface_match(test, pkt);
}

bool npf_size_inbounds(struct npf_test *test, struct net_pkt *pkt)
{
	struct npf_test_size_bounds *t = CONTAINER_OF(test, struct npf_test_size_bounds, test);
	size_t len = net_pkt_get_len(pkt);
	return len >= t->min && len <= t->max;
}

static bool eth_addr_in(const struct npf_test_eth_addr *t, const struct net_eth_addr *addr)
{
	for (uint32_t i = 0; i < t->nb_addresses; i++) {
		const uint8_t *want = t->addresses[i].addr;
		int j;
		for (j = 0; j < NET_ETH_ADDR_LEN; j++)
			if ((addr->addr[j] ^ want[j]) & t->mask.addr[j])
				break;
		if (j == NET_ETH_ADDR_LEN)
			return true;
	}
	return false;
}

static bool eth_addr_test(struct npf_test *test, struct net_pkt *pkt, bool src, bool match)
{
	struct npf_test_eth_addr *t = CONTAINER_OF(test, struct npf_test_eth_addr, test);
	struct net_eth_hdr copy;
	const struct net_eth_hdr *hdr = npf_eth_hdr(pkt, &copy);
	if (!hdr)
		return false;
	return eth_addr_in(t, src ? &hdr->src : &hdr->dst) == match;
}

bool npf_eth_src_addr_match(struct npf_test *test, struct net_pkt *pkt)
{
	return eth_addr_test(test, pkt, true, true);
}

bool npf_eth_src_addr_unmatch(struct npf_test *test, struct net_pkt *pkt)
{
	return eth_addr_test(test, pkt, true, false);
}

bool npf_eth_dst_addr_match(struct npf_test *test, struct net_pkt *pkt)
{
	return eth_addr_test(test, pkt, false, true);
}

bool npf_eth_dst_addr_unmatch(struct npf_test *test, struct net_pkt *pkt)
{
	return eth_addr_test(test, pkt, false, false);
}

bool npf_eth_type_match(struct npf_test *test, struct net_pkt *pkt)
{
	struct npf_test_eth_type *t = CONTAINER_OF(test, struct npf_test_eth_type, test);
	struct net_eth_hdr copy;
	const struct net_eth_hdr *hdr = npf_eth_hdr(pkt, &copy);
	return hdr && hdr->type == t->type;
}

bool npf_eth_type_unmatch(struct npf_test *test, struct net_pkt *pkt)
{
	struct npf_test_eth_type *t = CONTAINER_OF(test, struct npf_test_eth_type, test);
	struct net_eth_hdr copy;
	const struct net_eth_hdr *hdr = npf_eth_hdr(pkt, &copy);
	return hdr && hdr->type != t->type;
}

static bool ipv4_in_nets(const struct npf_test_ipv4_net *t, const uint8_t *a)
{
	struct in_addr addr;
	memcpy(&addr, a, sizeof(addr));
	for (uint32_t i = 0; i < t->nb_nets; i++)
		if (net_ipv4_addr_mask_cmp(&addr, &t->nets[i].addr, &t->nets[i].mask))
			return true;
	return false;
}

static bool ipv4_net_test(struct npf_test *test, struct net_pkt *pkt, bool src, bool match)
{
	struct npf_test_ipv4_net *t = CONTAINER_OF(test, struct npf_test_ipv4_net, test);
	struct net_ipv4_hdr copy;
	const struct net_ipv4_hdr *hdr = npf_ipv4_hdr(pkt, &copy);
	if (!hdr)
		return false;
	return ipv4_in_nets(t, src ? hdr->src : hdr->dst) == match;
}

bool npf_ipv4_src_net_match(struct npf_test *test, struct net_pkt *pkt)
{
	return ipv4_net_test(test, pkt, true, true);
}

bool npf_ipv4_src_net_unmatch(struct npf_test *test, struct net_pkt *pkt)
{
	return ipv4_net_test(test, pkt, true, false);
}

bool npf_ipv4_dst_net_match(struct npf_test *test, struct net_pkt *pkt)
{
	return ipv4_net_test(test, pkt, false, true);
}

bool npf_ipv4_dst_net_unmatch(struct npf_test *test, struct net_pkt *pkt)
{
	return ipv4_net_test(test, pkt, false, false);
}

bool npf_ip_proto_match(struct npf_test *test, struct net_pkt *pkt)
{
	struct npf_test_ip_proto *t = CONTAINER_OF(test, struct npf_test_ip_proto, test);
	struct net_ipv4_hdr copy;
	const struct net_ipv4_hdr *hdr = npf_ipv4_hdr(pkt, &copy);
	if (!hdr)
		return false;
	for (uint32_t i = 0; i < t->nb_protos; i++)
		if (t->protos[i] == hdr->proto)
			return true;
	return false;
}
