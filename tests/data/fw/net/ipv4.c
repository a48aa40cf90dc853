/* ipv4.c: IPv4 input and output. */
/* Built at -O2 (see build-fixture.sh), where GCC clones some of its static functions
 * (.isra, .constprop, .part), as it does in real stacks. */
#include "fw.h"

#define IPV4_HDR_LEN 20
#define PROTO_ICMP 1
#define PROTO_UDP 17

struct ipv4_hdr {
	uint8_t vhl, tos;
	uint8_t len[2], id[2], off[2];
	uint8_t ttl, proto;
	uint8_t sum[2];
	uint8_t src[4], dst[4];
};

struct route {
	uint32_t net, mask, gw;
	int metric;
};

struct route_table {
	uint32_t cached_dst;
	int cached_idx;
	struct route routes[8];
	int nroutes;
	uint32_t hits[8];
};

static struct route_table routes = {
	.cached_dst = 0xffffffff,
	.routes = {{0xc0a80700, 0xffffff00, 0, 1}, {0, 0, 0xc0a80701, 10}},
	.nroutes = 2,
};
static uint16_t next_id = 1;
static uint32_t stats[6];

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
	put_be16(p, (uint16_t)(v >> 16));
	put_be16(p + 2, (uint16_t)v);
}

/* Reads two fields of the header unconditionally: GCC passes them by value (.isra). */
static __attribute__((noinline)) int header_ok(const struct ipv4_hdr *h, unsigned avail)
{
	unsigned vhl = h->vhl, ttl = h->ttl;
	return (vhl >> 4) == 4 && (vhl & 15u) * 4u <= avail && ttl != 0;
}

/* Always called with mode 1 (fold and complement): GCC specialises it (.constprop). */
static __attribute__((noinline)) uint16_t header_sum(uint32_t sum, int mode, const uint8_t *p,
						     unsigned n)
{
	for (unsigned i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)p[i] << 8 | p[i + 1];
	if (mode == 1) {
		while (sum >> 16)
			sum = (sum & 0xffff) + (sum >> 16);
		return (uint16_t)~sum;
	}
	if (mode == 2)
		return (uint16_t)(sum ^ 0x5555);
	return (uint16_t)sum;
}

/* A cheap cached test inlined into callers, an expensive search split out (.part). */
static int route_lookup(struct route_table *t, uint32_t dst)
{
	if (dst == t->cached_dst)
		return t->cached_idx;
	int best = -1;
	uint32_t best_mask = 0;
	for (int i = 0; i < t->nroutes; i++) {
		struct route *r = &t->routes[i];
		if ((dst & r->mask) == r->net && r->mask >= best_mask) {
			best = i;
			best_mask = r->mask;
			t->hits[i & 7]++;
		}
	}
	if (best < 0) {
		t->hits[7]++;
		k_fatal("no route", dst);
	}
	t->cached_dst = dst;
	t->cached_idx = best;
	t->hits[6] += best_mask >> 24;
	return best;
}

int ipv4_input(struct net_if *iface, struct net_buf *b)
{
	struct ipv4_hdr *h = (struct ipv4_hdr *)b->data;
	stats[0]++;
	if (b->len < IPV4_HDR_LEN || !header_ok(h, b->len)) {
		stats[1]++;
		return -1;
	}
	unsigned hlen = (h->vhl & 15u) * 4u;
	if (header_sum(0, 1, b->data, hlen) != 0) {
		stats[2]++;
		return -1;
	}
	uint32_t src = be32(h->src), dst = be32(h->dst);
	if (dst != iface->ipaddr && dst != 0xffffffff) {
		stats[3]++;
		return -1;
	}
	unsigned total = (unsigned)h->len[0] << 8 | h->len[1];
	if (total < b->len)
		b->len = (uint16_t)total;
	route_lookup(&routes, src);
	net_buf_pull(b, hlen);
	switch (h->proto) {
	case PROTO_ICMP:
		return icmp_input(iface, b, src, dst);
	case PROTO_UDP:
		return udp_input(iface, b, src, dst);
	default:
		stats[4]++;
		return -1;
	}
}

int ipv4_output(struct net_if *iface, struct net_buf *b, uint32_t dst, uint8_t proto)
{
	struct ipv4_hdr *h = (struct ipv4_hdr *)net_buf_push(b, IPV4_HDR_LEN);
	h->vhl = 0x45;
	h->tos = 0;
	put_be16(h->len, b->len);
	put_be16(h->id, next_id++);
	put_be16(h->off, 0x4000);
	h->ttl = 64;
	h->proto = proto;
	put_be32(h->src, iface->ipaddr);
	put_be32(h->dst, dst);
	h->sum[0] = h->sum[1] = 0;
	put_be16(h->sum, header_sum(0, 1, b->data, IPV4_HDR_LEN));
	if (!header_ok(h, IPV4_HDR_LEN))
		return -1;
	int r = route_lookup(&routes, dst);
	uint32_t next_hop = routes.routes[r].gw ? routes.routes[r].gw : dst;
	uint8_t mac[6];
	if (arp_resolve(iface, next_hop, mac) != 0)
		memset(mac, 0xff, sizeof mac);
	stats[5]++;
	return ethernet_output(iface, b, mac, 0x0800);
}

int ipv4_forward(struct net_if *iface, struct net_buf *b);
int ipv4_forward(struct net_if *iface, struct net_buf *b)
{
	struct ipv4_hdr *h = (struct ipv4_hdr *)b->data;
	if (--h->ttl == 0)
		return -1;
	h->sum[0] = h->sum[1] = 0;
	put_be16(h->sum, header_sum(0, 1, b->data, IPV4_HDR_LEN));
	return route_lookup(&routes, be32(h->dst)) + (int)iface->tx_packets;
}

void ipv4_stats_dump(void)
{
	for (unsigned i = 0; i < ARRAY_SIZE(stats); i++)
		stats[i] = 0;
	routes.cached_dst = 0xffffffff;
}
