/* route.c: the IPv4 routing table: connected subnets (added with interface addresses) and
 * gateways; lookups take the longest matching prefix, then the lowest metric. */
#include "net/net_core.h"
#include "net_private.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_route, LOG_LEVEL_WRN);

#define NET_ROUTE_MAX 6

static struct net_route routes[NET_ROUTE_MAX];
static struct k_mutex route_lock;
static bool route_lock_ready;

static void route_lock_init(void)
{
	unsigned key = irq_lock();
	if (!route_lock_ready) {
		k_mutex_init(&route_lock);
		route_lock_ready = true;
	}
	irq_unlock(key);
}

/* Bits set in a netmask (a contiguous mask in network order). */
static int prefix_len(const struct in_addr *mask)
{
	uint32_t m = ntohl(mask->s_addr);
	int n = 0;
	while (m & 0x80000000u) {
		n++;
		m <<= 1;
	}
	return n;
}

int net_route_add(struct net_if *iface, const struct in_addr *prefix, const struct in_addr *mask,
		  const struct in_addr *gw, uint8_t metric)
{
	route_lock_init();
	k_mutex_lock(&route_lock, K_FOREVER);
	struct net_route *free_slot = NULL;
	for (int i = 0; i < NET_ROUTE_MAX; i++) {
		struct net_route *r = &routes[i];
		if (!r->used) {
			if (!free_slot)
				free_slot = r;
			continue;
		}
		if (r->iface == iface && net_ipv4_addr_cmp(&r->mask, mask) &&
		    net_ipv4_addr_mask_cmp(&r->prefix, prefix, mask)) {
			/* The same destination: the new gateway and metric replace the old. */
			r->gw = gw ? *gw : (struct in_addr){0};
			r->metric = metric;
			k_mutex_unlock(&route_lock);
			return 0;
		}
	}
	if (!free_slot) {
		k_mutex_unlock(&route_lock);
		return -ENOMEM;
	}
	free_slot->used = true;
	free_slot->iface = iface;
	free_slot->prefix.s_addr = prefix->s_addr & mask->s_addr;
	free_slot->mask = *mask;
	free_slot->gw = gw ? *gw : (struct in_addr){0};
	free_slot->metric = metric;
	free_slot->prefix_len = (uint8_t)prefix_len(mask);
	free_slot->uses = 0;
	k_mutex_unlock(&route_lock);
	char p[16];
	LOG_DBG("%s/%u via %s", net_addr_ntop(prefix, p), free_slot->prefix_len, iface->name);
	return 0;
}

int net_route_del_iface(struct net_if *iface)
{
	route_lock_init();
	k_mutex_lock(&route_lock, K_FOREVER);
	int n = 0;
	for (int i = 0; i < NET_ROUTE_MAX; i++) {
		if (routes[i].used && routes[i].iface == iface) {
			routes[i].used = false;
			n++;
		}
	}
	k_mutex_unlock(&route_lock);
	return n;
}

struct net_route *net_route_lookup(const struct in_addr *dst)
{
	struct net_route *best = NULL;
	route_lock_init();
	k_mutex_lock(&route_lock, K_FOREVER);
	for (int i = 0; i < NET_ROUTE_MAX; i++) {
		struct net_route *r = &routes[i];
		if (!r->used || !net_ipv4_addr_mask_cmp(dst, &r->prefix, &r->mask))
			continue;
		if (!best || r->prefix_len > best->prefix_len ||
		    (r->prefix_len == best->prefix_len && r->metric < best->metric))
			best = r;
	}
	if (best)
		best->uses++;
	k_mutex_unlock(&route_lock);
	return best;
}

const struct in_addr *net_route_next_hop(const struct net_route *r, const struct in_addr *dst)
{
	return net_ipv4_is_addr_unspecified(&r->gw) ? dst : &r->gw;
}
