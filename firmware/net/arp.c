/* arp.c: ARP for IPv4 over Ethernet (RFC 826): a small cache, requests and replies, packets
 * waiting for a resolution, ageing, gratuitous announcements. */
#include "net/net_core.h"
#include "net_private.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_arp, LOG_LEVEL_WRN);

#define ARP_CACHE_SIZE 4
#define ARP_PENDING_MAX 2           /* packets that may wait for one resolution */
#define ARP_REQUEST_TIMEOUT_MS 2000 /* unanswered requests give up after this */
#define ARP_ENTRY_LIFETIME_MS (300 * 1000)
/* A used entry is confirmed with a unicast request this long before it would expire, so
 * that traffic never stalls on a new resolution. */
#define ARP_REFRESH_MS (ARP_ENTRY_LIFETIME_MS - 60 * 1000)
#define ARP_AGE_PERIOD K_SECONDS(1)

#define ARP_HWTYPE_ETH 1
#define ARP_OP_REQUEST 1
#define ARP_OP_REPLY 2

struct net_arp_hdr {
	uint16_t hwtype;
	uint16_t protocol;
	uint8_t hwlen;
	uint8_t protolen;
	uint16_t opcode;
	struct net_eth_addr src_hwaddr;
	uint8_t src_ipaddr[4];
	struct net_eth_addr dst_hwaddr;
	uint8_t dst_ipaddr[4];
} __packed;

enum arp_state { ARP_FREE, ARP_PENDING, ARP_VALID };

struct arp_entry {
	sys_snode_t node; /* in arp_table (most recently used first) or arp_free */
	struct net_if *iface;
	struct in_addr ip;
	struct net_eth_addr eth;
	uint32_t stamp_ms; /* last update (valid) or request time (pending) */
	uint8_t state;
	uint8_t n_pending;
	bool refreshing; /* a unicast request is out to confirm the entry */
	struct net_pkt *pending[ARP_PENDING_MAX];
};

#define ARP_DEFEND_INTERVAL_MS 10000 /* RFC 5227: defend an address at most this often */

static struct arp_entry arp_cache[ARP_CACHE_SIZE];
static sys_slist_t arp_table; /* entries in use, most recently used first */
static sys_slist_t arp_free;
static struct k_work_delayable arp_age_work;
static struct k_mutex arp_lock;
static uint32_t last_defence_ms;
static bool defended;

static struct arp_entry *arp_entry(sys_snode_t *n)
{
	return n ? CONTAINER_OF(n, struct arp_entry, node) : NULL;
}

/* Unlinks e from arp_table (prev: the entry before it, NULL at the head). */
static void arp_unlink(struct arp_entry *prev, struct arp_entry *e)
{
	if (prev)
		prev->node.next = e->node.next;
	else
		arp_table.head = e->node.next;
	if (arp_table.tail == &e->node)
		arp_table.tail = prev ? &prev->node : NULL;
	e->node.next = NULL;
}

/* The entry for ip on iface, moved to the front: lookups favour recent peers. */
static struct arp_entry *arp_find(struct net_if *iface, const struct in_addr *ip)
{
	struct arp_entry *prev = NULL;
	for (struct arp_entry *e = arp_entry(arp_table.head); e;
	     prev = e, e = arp_entry(e->node.next)) {
		if (e->iface != iface || !net_ipv4_addr_cmp(&e->ip, ip))
			continue;
		if (prev) {
			arp_unlink(prev, e);
			sys_slist_prepend(&arp_table, &e->node);
		}
		return e;
	}
	return NULL;
}

static void arp_release(struct arp_entry *prev, struct arp_entry *e)
{
	arp_unlink(prev, e);
	e->state = ARP_FREE;
	sys_slist_append(&arp_free, &e->node);
}

static void arp_drop_pending(struct arp_entry *e)
{
	for (int i = 0; i < e->n_pending; i++) {
		NET_STATS_INC(e->iface, arp.pending_drop);
		net_pkt_unref(e->pending[i]);
	}
	e->n_pending = 0;
}

/* A free entry, else the least recently used one (its waiting packets are dropped); it
 * goes to the front of the table. */
static struct arp_entry *arp_alloc(void)
{
	struct arp_entry *e = arp_entry(sys_slist_get(&arp_free));
	if (!e) {
		struct arp_entry *prev = NULL;
		for (e = arp_entry(arp_table.head); e->node.next; e = arp_entry(e->node.next))
			prev = e;
		LOG_DBG("cache full: evicting the least recently used entry");
		arp_drop_pending(e);
		arp_unlink(prev, e);
	}
	sys_slist_prepend(&arp_table, &e->node);
	return e;
}

static void arp_schedule_ageing(void)
{
	k_work_schedule(&arp_age_work, ARP_AGE_PERIOD);
}

/* An ARP packet for iface: header fields and the link destination. */
static struct net_pkt *arp_prepare_pkt(struct net_if *iface, uint16_t op,
				       const struct net_eth_addr *dst_hw,
				       const struct in_addr *dst_ip, const struct in_addr *src_ip)
{
	NET_PKT_DATA_ACCESS_DEFINE(arp_access, struct net_arp_hdr);
	struct net_pkt *pkt = net_pkt_alloc_with_buffer(iface, sizeof(struct net_arp_hdr),
							AF_UNSPEC, 0, NET_BUF_TIMEOUT);
	if (!pkt)
		return NULL;
	pkt->ll_proto_type = NET_ETH_PTYPE_ARP;
	struct net_arp_hdr *hdr = net_pkt_get_data(pkt, &arp_access);
	if (!hdr) {
		net_pkt_unref(pkt);
		return NULL;
	}
	hdr->hwtype = htons(ARP_HWTYPE_ETH);
	hdr->protocol = htons(NET_ETH_PTYPE_IP);
	hdr->hwlen = NET_ETH_ADDR_LEN;
	hdr->protolen = sizeof(struct in_addr);
	hdr->opcode = htons(op);
	memcpy(hdr->src_hwaddr.addr, iface->mac, NET_ETH_ADDR_LEN);
	memcpy(hdr->src_ipaddr, src_ip, sizeof(*src_ip));
	if (op == ARP_OP_REQUEST)
		memset(&hdr->dst_hwaddr, 0, sizeof(hdr->dst_hwaddr));
	else
		hdr->dst_hwaddr = *dst_hw;
	memcpy(hdr->dst_ipaddr, dst_ip, sizeof(*dst_ip));
	net_pkt_set_data(pkt, &arp_access);

	/* The link destination: everyone for a request, the asker for a reply (its address
	 * is in the packet: a fresh fragment holds the whole ARP header). */
	hdr = (struct net_arp_hdr *)pkt->buffer->data;
	pkt->lladdr_dst.addr = op == ARP_OP_REQUEST ? (uint8_t *)net_eth_broadcast_addr.addr
						     : hdr->dst_hwaddr.addr;
	pkt->lladdr_dst.len = NET_ETH_ADDR_LEN;
	return pkt;
}

/* A valid entry in use that is getting old: a unicast request to its owner confirms it
 * (lwIP's "stable, re-requesting"). Returns that request, NULL when none is due.
 * arp_lock held. */
static struct net_pkt *arp_refresh_check(struct net_if *iface, struct arp_entry *e,
					 const struct in_addr *ip)
{
	if (e->refreshing || k_uptime_get_32() - e->stamp_ms < ARP_REFRESH_MS)
		return NULL;
	const struct in_addr *src = net_if_ipv4_select_src_addr(iface, ip);
	struct net_pkt *req = src ? arp_prepare_pkt(iface, ARP_OP_REQUEST, NULL, ip, src) : NULL;
	if (!req)
		return NULL;
	/* Unicast to the address the entry holds, not broadcast. */
	static struct net_eth_addr refresh_dst;
	refresh_dst = e->eth;
	req->lladdr_dst.addr = refresh_dst.addr;
	e->refreshing = true;
	NET_STATS_INC(iface, arp.req_sent);
	LOG_DBG("refreshing an entry");
	return req;
}

/* The IPv4 destination of pkt's next hop (the gateway when off-link). */
static int arp_next_hop(struct net_pkt *pkt, struct in_addr *next)
{
	struct net_ipv4_hdr *ip_hdr = net_pkt_ip_hdr(pkt);
	struct in_addr dst;
	memcpy(&dst, ip_hdr->dst, sizeof(dst));
	struct net_route *r = net_route_lookup(&dst);
	if (!r || r->iface != pkt->iface)
		return -ENETUNREACH;
	*next = *net_route_next_hop(r, &dst);
	return 0;
}

int net_arp_prepare(struct net_pkt *pkt, struct net_pkt **out)
{
	struct net_if *iface = pkt->iface;
	struct net_ipv4_hdr *ip_hdr = net_pkt_ip_hdr(pkt);
	struct in_addr dst, next;
	memcpy(&dst, ip_hdr->dst, sizeof(dst));

	/* Broadcasts and multicasts need no resolution. */
	if (net_ipv4_is_addr_bcast_all(&dst) || net_if_ipv4_is_addr_bcast(iface, &dst)) {
		pkt->lladdr_dst.addr = (uint8_t *)net_eth_broadcast_addr.addr;
		pkt->lladdr_dst.len = NET_ETH_ADDR_LEN;
		*out = pkt;
		return 0;
	}
	if (net_ipv4_is_addr_mcast(&dst)) {
		static uint8_t group_mac[NET_ETH_ADDR_LEN];
		net_ipv4_mcast_to_mac(&dst, group_mac);
		pkt->lladdr_dst.addr = group_mac; /* copied into the header before the next call */
		pkt->lladdr_dst.len = NET_ETH_ADDR_LEN;
		*out = pkt;
		return 0;
	}

	int ret = arp_next_hop(pkt, &next);
	if (ret) {
		LOG_DBG("no route");
		return ret;
	}

	k_mutex_lock(&arp_lock, K_FOREVER);
	struct arp_entry *e = arp_find(iface, &next);
	if (likely(e && e->state == ARP_VALID)) {
		struct net_pkt *refresh = arp_refresh_check(iface, e, &next);
		LOG_DBG("%u.%u.%u.%u is at %02x:%02x:%02x:%02x:%02x:%02x", next.s4_addr[0],
			next.s4_addr[1], next.s4_addr[2], next.s4_addr[3], e->eth.addr[0],
			e->eth.addr[1], e->eth.addr[2], e->eth.addr[3], e->eth.addr[4],
			e->eth.addr[5]);
		pkt->lladdr_dst.addr = e->eth.addr;
		pkt->lladdr_dst.len = NET_ETH_ADDR_LEN;
		k_mutex_unlock(&arp_lock);
		if (refresh && net_if_send_data(iface, refresh) == NET_DROP)
			net_pkt_unref(refresh);
		*out = pkt;
		return 0;
	}

	NET_STATS_INC(iface, arp.cache_miss);
	bool new_request = false;
	if (!e) {
		e = arp_alloc();
		e->iface = iface;
		e->ip = next;
		e->state = ARP_PENDING;
		e->stamp_ms = k_uptime_get_32();
		e->n_pending = 0;
		new_request = true;
	}
	if (e->n_pending == ARP_PENDING_MAX) {
		k_mutex_unlock(&arp_lock);
		return -ENOMEM;
	}
	e->pending[e->n_pending++] = pkt;
	k_mutex_unlock(&arp_lock);
	arp_schedule_ageing();

	*out = NULL;
	if (new_request) {
		const struct in_addr *src = net_if_ipv4_select_src_addr(iface, &next);
		*out = arp_prepare_pkt(iface, ARP_OP_REQUEST, NULL, &next, src);
		if (*out) {
			NET_STATS_INC(iface, arp.req_sent);
			LOG_DBG("request for %u.%u.%u.%u", next.s4_addr[0], next.s4_addr[1],
				next.s4_addr[2], next.s4_addr[3]);
		}
	}
	return 0;
}

/* Learns (or refreshes) ip -> hw; sends what waited for it. create: add a new entry
 * (RFC 826: only when the packet was for us). */
static void arp_update(struct net_if *iface, const struct in_addr *ip,
		       const struct net_eth_addr *hw, bool create)
{
	struct net_pkt *send[ARP_PENDING_MAX];
	int n_send = 0;

	k_mutex_lock(&arp_lock, K_FOREVER);
	struct arp_entry *e = arp_find(iface, ip);
	if (!e && create) {
		e = arp_alloc();
		e->iface = iface;
		e->ip = *ip;
		e->n_pending = 0;
	}
	if (e) {
		e->eth = *hw;
		e->state = ARP_VALID;
		e->refreshing = false;
		e->stamp_ms = k_uptime_get_32();
		for (int i = 0; i < e->n_pending; i++)
			send[n_send++] = e->pending[i];
		e->n_pending = 0;
	}
	k_mutex_unlock(&arp_lock);

	for (int i = 0; i < n_send; i++) {
		if (net_if_send_data(iface, send[i]) == NET_DROP)
			net_pkt_unref(send[i]);
	}
	if (e)
		arp_schedule_ageing();
}

void net_arp_confirm(struct net_if *iface, const struct in_addr *ip,
		     const struct net_eth_addr *hw)
{
	k_mutex_lock(&arp_lock, K_FOREVER);
	struct arp_entry *e = arp_find(iface, ip);
	/* Only what the cache already holds is confirmed: a frame never changes an entry. */
	if (e && e->state == ARP_VALID && net_eth_addr_cmp(&e->eth, hw->addr)) {
		e->stamp_ms = k_uptime_get_32();
		e->refreshing = false;
		NET_STATS_INC(iface, arp.confirmed);
	}
	k_mutex_unlock(&arp_lock);
}

/* Another host claims one of our addresses (RFC 5227 2.4): say so, and defend the address
 * with an announcement, at most once per defence interval. */
static void arp_conflict(struct net_if *iface, const struct in_addr *ip,
			 const struct net_eth_addr *hw)
{
	char buf[16];
	NET_STATS_INC(iface, arp.drop);
	LOG_WRN("address conflict: %s is also at %02x:%02x:%02x:%02x:%02x:%02x",
		net_addr_ntop(ip, buf), hw->addr[0], hw->addr[1], hw->addr[2], hw->addr[3],
		hw->addr[4], hw->addr[5]);
	uint32_t now = k_uptime_get_32();
	if (defended && now - last_defence_ms < ARP_DEFEND_INTERVAL_MS)
		return;
	defended = true;
	last_defence_ms = now;
	net_arp_announce(iface);
}

enum net_verdict net_arp_input(struct net_if *iface, uint16_t ptype, struct net_pkt *pkt)
{
	NET_PKT_DATA_ACCESS_DEFINE(arp_access, struct net_arp_hdr);
	UNUSED(ptype);

	NET_STATS_INC(iface, arp.recv);
	if (net_pkt_seek(pkt, 0))
		goto drop;
	struct net_arp_hdr *hdr = net_pkt_get_data(pkt, &arp_access);
	if (!hdr || ntohs(hdr->hwtype) != ARP_HWTYPE_ETH ||
	    ntohs(hdr->protocol) != NET_ETH_PTYPE_IP || hdr->hwlen != NET_ETH_ADDR_LEN ||
	    hdr->protolen != sizeof(struct in_addr)) {
		LOG_DBG("invalid ARP header");
		goto drop;
	}
	struct in_addr src_ip, dst_ip;
	memcpy(&src_ip, hdr->src_ipaddr, sizeof(src_ip));
	memcpy(&dst_ip, hdr->dst_ipaddr, sizeof(dst_ip));
	struct net_eth_addr src_hw = hdr->src_hwaddr;
	bool for_us = net_if_ipv4_addr_lookup(&dst_ip, NULL) != NULL;
	if (net_if_ipv4_addr_lookup(&src_ip, NULL) && !net_eth_addr_cmp(&src_hw, iface->mac)) {
		arp_conflict(iface, &src_ip, &src_hw);
		goto drop;
	}

	switch (ntohs(hdr->opcode)) {
	case ARP_OP_REQUEST:
		arp_update(iface, &src_ip, &src_hw, for_us);
		if (for_us && !net_ipv4_is_addr_unspecified(&src_ip)) {
			struct net_pkt *reply =
				arp_prepare_pkt(iface, ARP_OP_REPLY, &src_hw, &src_ip, &dst_ip);
			if (reply) {
				if (net_if_send_data(iface, reply) == NET_DROP)
					net_pkt_unref(reply);
				else
					NET_STATS_INC(iface, arp.reply_sent);
			}
		}
		break;
	case ARP_OP_REPLY:
		if (for_us)
			arp_update(iface, &src_ip, &src_hw, false);
		break;
	default:
		goto drop;
	}
	/* The ARP packet itself is done with: the caller frees it. */
	return NET_DROP;
drop:
	NET_STATS_INC(iface, arp.drop);
	return NET_DROP;
}

/* Gives up unanswered requests and forgets old entries, once a second while any exist. */
static void arp_age(struct k_work *w)
{
	UNUSED(w);
	uint32_t now = k_uptime_get_32();
	k_mutex_lock(&arp_lock, K_FOREVER);
	struct arp_entry *prev = NULL, *e = arp_entry(arp_table.head);
	while (e) {
		struct arp_entry *next = arp_entry(e->node.next);
		uint32_t age = now - e->stamp_ms;
		if ((e->state == ARP_PENDING && age >= ARP_REQUEST_TIMEOUT_MS) ||
		    (e->state == ARP_VALID && age >= ARP_ENTRY_LIFETIME_MS)) {
			if (e->state == ARP_PENDING)
				LOG_DBG("request timed out");
			arp_drop_pending(e);
			arp_release(prev, e);
		} else {
			prev = e;
		}
		e = next;
	}
	bool busy = !sys_slist_is_empty(&arp_table);
	k_mutex_unlock(&arp_lock);
	if (busy)
		arp_schedule_ageing();
}

void net_arp_announce(struct net_if *iface)
{
	const struct in_addr *own = &iface->ipv4.unicast[0].address;
	if (!iface->ipv4.unicast[0].is_used)
		return;
	struct net_pkt *pkt = arp_prepare_pkt(iface, ARP_OP_REQUEST, NULL, own, own);
	if (!pkt)
		return;
	if (net_if_send_data(iface, pkt) == NET_DROP)
		net_pkt_unref(pkt);
	else
		NET_STATS_INC(iface, arp.req_sent);
}

void net_arp_clear_cache(struct net_if *iface)
{
	k_mutex_lock(&arp_lock, K_FOREVER);
	struct arp_entry *prev = NULL, *e = arp_entry(arp_table.head);
	while (e) {
		struct arp_entry *next = arp_entry(e->node.next);
		if (e->iface == iface) {
			arp_drop_pending(e);
			arp_release(prev, e);
		} else {
			prev = e;
		}
		e = next;
	}
	k_mutex_unlock(&arp_lock);
}

static struct net_l3_register arp_l3 = {
	.name = "arp",
	.ptype = NET_ETH_PTYPE_ARP,
	.handler = net_arp_input,
};

void net_arp_init(void)
{
	net_l3_register(&arp_l3);
	k_mutex_init(&arp_lock);
	k_work_init_delayable(&arp_age_work, arp_age);
	sys_slist_init(&arp_table);
	sys_slist_init(&arp_free);
	for (int i = 0; i < ARP_CACHE_SIZE; i++)
		sys_slist_append(&arp_free, &arp_cache[i].node);
}
