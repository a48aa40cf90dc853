/* ipv4.c: IPv4 input (header checks, delivery to ICMP and UDP) and output (header creation
 * and finalisation). A host: nothing is forwarded, fragments are dropped. */
#include "net/net_core.h"
#include "net/checksum.h"
#include "net/net_pkt_filter.h"
#include "net_private.h"
#include "sys/log.h"
#include "sys/rand.h"

LOG_MODULE_REGISTER(net_ipv4, LOG_LEVEL_WRN);

#define IPV4_DEFAULT_TTL 64

/* IP identification (RFC 6864 4.1, as Linux's ip_idents): a counter per bucket of a keyed
 * hash of source, destination and protocol, so that a host only ever sees the identifiers
 * of its own traffic with us (no idle scan through a global counter). A bucket that was
 * idle also jumps ahead by a random amount below its idle time (in 1.024 ms units). */
#define IP_IDENTS 64 /* a power of two */

struct ip_ident {
	uint16_t id;
	uint32_t stamp; /* its last use, in 1.024 ms units (0: never) */
};

static struct ip_ident ip_idents[IP_IDENTS];
static uint32_t ip_ident_secret;

static uint32_t rol32(uint32_t v, unsigned n)
{
	return (v << n) | (v >> (32u - n));
}

/* Bob Jenkins' final mix of three words (Linux's jhash_3words), keyed with the secret. */
static uint32_t ipv4_ident_hash(const struct in_addr *src, const struct in_addr *dst,
				uint8_t proto)
{
	uint32_t a = dst->s_addr, b = src->s_addr, c = ip_ident_secret ^ proto;
	c ^= b;
	c -= rol32(b, 14);
	a ^= c;
	a -= rol32(c, 11);
	b ^= a;
	b -= rol32(a, 25);
	c ^= b;
	c -= rol32(b, 16);
	a ^= c;
	a -= rol32(c, 4);
	b ^= a;
	b -= rol32(a, 14);
	c ^= b;
	c -= rol32(b, 24);
	return c;
}

static uint16_t ipv4_select_ident(const struct in_addr *src, const struct in_addr *dst,
				  uint8_t proto)
{
	uint32_t now = k_cycle_get_32() >> 10; /* about a millisecond: 1.024 ms */
	unsigned key = irq_lock();
	if (!ip_ident_secret)
		ip_ident_secret = sys_rand32_get() | 1u;
	struct ip_ident *b = &ip_idents[ipv4_ident_hash(src, dst, proto) & (IP_IDENTS - 1)];
	uint32_t delta = 0;
	if (b->stamp == 0)
		delta = sys_rand32_get(); /* a random start */
	else if (now != b->stamp)
		delta = sys_rand32_below(now - b->stamp);
	b->stamp = now ? now : 1;
	b->id = (uint16_t)(b->id + delta + 1);
	uint16_t id = b->id;
	irq_unlock(key);
	return id;
}

/* Whether a datagram to dst is for this host on iface: one of its addresses, a group it
 * belongs to, or a broadcast. The limited broadcast is for UDP only (RFC 1122 3.3.6: other
 * protocols have nothing to say to everyone). */
static bool ipv4_is_for_us(struct net_if *iface, const struct in_addr *dst, uint8_t proto)
{
	if (net_ipv4_is_addr_mcast(dst)) {
		struct net_if *found = iface;
		return net_if_ipv4_maddr_lookup(dst, &found) != NULL;
	}
	if (net_ipv4_is_addr_bcast_all(dst))
		return proto == IPPROTO_UDP || proto == IPPROTO_IGMP;
	if (net_if_ipv4_is_addr_bcast(iface, dst))
		return true;
	struct net_if *owner = NULL;
	if (!net_if_ipv4_addr_lookup(dst, &owner))
		return false;
	/* Loopback addresses only ever arrive through the loopback interface (RFC 1122
	 * 3.2.1.3); the host's other addresses arrive on any interface. */
	return !net_ipv4_is_addr_loopback(dst) || owner == iface;
}

/* A source address no host may use here (RFC 1122 3.2.1.3, RFC 1812 5.3.7): a group, a
 * broadcast, "this network" (0/8; 0.0.0.0 itself only for IGMP, from hosts that do not
 * know their address yet), a loopback address from outside, or one of our own addresses
 * coming back from the link (a loop, or someone using our address). */
static bool ipv4_is_martian_src(struct net_if *iface, const struct in_addr *src, uint8_t proto)
{
	if (net_ipv4_is_addr_mcast(src) || net_ipv4_is_addr_bcast_all(src))
		return true;
	if (src->s4_addr[0] == 0)
		return !(net_ipv4_is_addr_unspecified(src) && proto == IPPROTO_IGMP);
	if (iface->flags & NET_IF_LOOPBACK)
		return false;
	if (net_ipv4_is_addr_loopback(src))
		return true;
	if (net_if_ipv4_is_addr_bcast(iface, src))
		return true;
	return net_if_ipv4_addr_lookup(src, NULL) != NULL;
}

/* Strict reverse path filtering (RFC 3704 3.2, Linux rp_filter=1): the route back to the
 * source must leave through the interface the datagram came in on. */
static bool ipv4_reverse_path_ok(struct net_if *iface, const struct in_addr *src)
{
	if (net_ipv4_is_addr_unspecified(src))
		return true;
	struct net_route *r = net_route_lookup(src);
	return r && r->iface == iface;
}

/* The options between the fixed header and hdr_len (RFC 791 3.1): each is End of List,
 * No Operation, or a type, a length of at least 2 and its data, all inside the header.
 * Their meaning is not acted upon. 0, or -EINVAL for a malformed list. */
static int ipv4_check_options(struct net_pkt *pkt, uint8_t hdr_len)
{
	uint8_t opts[40];
	size_t n = (size_t)hdr_len - NET_IPV4_HDR_LEN;
	net_pkt_cursor_init(pkt);
	if (net_pkt_skip(pkt, NET_IPV4_HDR_LEN) || net_pkt_read(pkt, opts, n))
		return -EINVAL;
	for (size_t i = 0; i < n;) {
		uint8_t type = opts[i];
		if (type == 0) /* End of Option List */
			break;
		if (type == 1) { /* No Operation */
			i++;
			continue;
		}
		if (i + 1 >= n || opts[i + 1] < 2 || i + opts[i + 1] > n)
			return -EINVAL;
		LOG_DBG("option 0x%02x, %u bytes", type, opts[i + 1]);
		i += opts[i + 1];
	}
	return 0;
}

/* Version, lengths, checksum, fragments and TTL of the header at the start of pkt; the
 * statistics say what was wrong. Link-layer padding after the datagram goes. 0 or -EINVAL. */
static int ipv4_check_header(struct net_pkt *pkt, const struct net_ipv4_hdr *hdr,
			     size_t pkt_len)
{
	struct net_if *iface = pkt->iface;
	if ((hdr->vhl & 0xF0) != 0x40) {
		NET_STATS_INC(iface, ip_errors.vhlerr);
		return -EINVAL;
	}
	uint8_t hdr_len = (uint8_t)((hdr->vhl & 0x0F) * 4);
	if (hdr_len < NET_IPV4_HDR_LEN) {
		NET_STATS_INC(iface, ip_errors.vhlerr);
		return -EINVAL;
	}
	if (hdr_len > pkt_len || hdr_len > pkt->buffer->len) {
		NET_STATS_INC(iface, ip_errors.hblenerr);
		return -EINVAL;
	}
	uint16_t total_len = sys_get_be16(hdr->len);
	if (total_len < hdr_len || total_len > pkt_len) {
		LOG_DBG("total length %u, packet %u", total_len, (unsigned)pkt_len);
		NET_STATS_INC(iface, ip_errors.lblenerr);
		return -EINVAL;
	}
	if (total_len < pkt_len && net_pkt_update_length(pkt, total_len)) {
		NET_STATS_INC(iface, ip_errors.lblenerr);
		return -EINVAL;
	}
	pkt->ip_hdr_len = hdr_len;
	if (net_if_need_calc_rx_checksum(iface, NET_IF_CHECKSUM_IPV4_HEADER) &&
	    net_calc_chksum_ipv4(pkt) != 0) {
		LOG_DBG("header checksum error");
		NET_STATS_INC(iface, ip_errors.chkerr);
		return -EINVAL;
	}
	uint16_t frag = sys_get_be16(hdr->offset);
	if ((frag & NET_IPV4_MF) || (frag & NET_IPV4_FRAGH_OFFSET_MASK)) {
		LOG_DBG("fragment dropped (no reassembly)");
		NET_STATS_INC(iface, ip_errors.fragerr);
		return -EINVAL;
	}
	if (hdr->ttl == 0) {
		NET_STATS_INC(iface, ip_errors.ttlerr);
		return -EINVAL;
	}
	if (hdr_len > NET_IPV4_HDR_LEN && ipv4_check_options(pkt, hdr_len)) {
		LOG_DBG("malformed options");
		NET_STATS_INC(iface, ip_errors.opterr);
		return -EINVAL;
	}
	return 0;
}

/* Source and destination: a source a host may use, reachable back through iface, and a
 * destination that is this host. 0 or -EINVAL. */
static int ipv4_check_addresses(struct net_if *iface, const struct net_ipv4_hdr *hdr,
				struct in_addr *src, struct in_addr *dst)
{
	memcpy(src, hdr->src, sizeof(*src));
	memcpy(dst, hdr->dst, sizeof(*dst));
	if (ipv4_is_martian_src(iface, src, hdr->proto)) {
		LOG_DBG("martian source");
		NET_STATS_INC(iface, ip_errors.martian);
		return -EINVAL;
	}
	if (!ipv4_is_for_us(iface, dst, hdr->proto)) {
		LOG_DBG("not for us");
		NET_STATS_INC(iface, ip_errors.addrerr);
		return -EINVAL;
	}
	if (!ipv4_reverse_path_ok(iface, src)) {
		LOG_DBG("no route back through %s", iface->name);
		NET_STATS_INC(iface, ip_errors.rpferr);
		return -EINVAL;
	}
	return 0;
}

enum net_verdict net_ipv4_input(struct net_pkt *pkt)
{
	NET_PKT_DATA_ACCESS_DEFINE(ipv4_access, struct net_ipv4_hdr);
	struct net_if *iface = pkt->iface;
	size_t pkt_len = net_pkt_get_len(pkt);
	enum net_verdict verdict = NET_DROP;

	NET_STATS_INC(iface, ipv4.recv);
	net_pkt_set_overwrite(pkt, true);
	net_pkt_cursor_init(pkt);

	struct net_ipv4_hdr *hdr = net_pkt_get_data(pkt, &ipv4_access);
	if (!hdr || ipv4_access.ptr != pkt->buffer->data) {
		LOG_DBG("no IPv4 header in the first fragment (%u bytes)", (unsigned)pkt_len);
		NET_STATS_INC(iface, ip_errors.hblenerr);
		goto drop;
	}
	if (ipv4_check_header(pkt, hdr, pkt_len))
		goto drop;
	struct in_addr src, dst;
	if (ipv4_check_addresses(iface, hdr, &src, &dst))
		goto drop;

	if (log_current->level >= LOG_LEVEL_DBG) {
		char s[16], d[16];
		LOG_DBG("%s -> %s proto %u len %u ttl %u", net_addr_ntop(&src, s),
			net_addr_ntop(&dst, d), hdr->proto, sys_get_be16(hdr->len), hdr->ttl);
	}
	pkt->family = AF_INET;
	if (!net_pkt_filter_ip_recv_ok(pkt)) {
		NET_STATS_INC(iface, pkt_filter.drop_ipv4);
		goto drop;
	}
	pkt->ipv4_ttl = hdr->ttl;
	pkt->ip_proto = hdr->proto;
	/* The DSCP class selector (top 3 bits of TOS) is the packet's priority. */
	pkt->priority = (uint8_t)(hdr->tos >> 5);
	/* A datagram from a neighbour is news the link layer can use (its address cache). */
	if (pkt->lladdr_src.addr && iface->l2->reachable && net_if_ipv4_addr_mask_cmp(iface, &src))
		iface->l2->reachable(iface, &src, &pkt->lladdr_src);
	/* Options are accepted and skipped. */
	net_pkt_cursor_init(pkt);
	if (net_pkt_skip(pkt, pkt->ip_hdr_len))
		goto drop;
	net_pkt_add_stats_tick(pkt);
	/* Raw sockets see the datagram as it came, before its protocol does. */
	net_conn_raw_ip_input(pkt, hdr, hdr->proto);

	switch (hdr->proto) {
	case IPPROTO_ICMP:
		verdict = net_icmpv4_input(pkt, hdr);
		break;
	case IPPROTO_UDP:
		verdict = net_udp_input(pkt, hdr);
		break;
	case IPPROTO_IGMP:
		verdict = net_ipv4_igmp_input(pkt, hdr);
		break;
	default:
		LOG_DBG("protocol %u not supported", hdr->proto);
		NET_STATS_INC(iface, ip_errors.protoerr);
		net_icmpv4_send_error(pkt, NET_ICMPV4_DST_UNREACH, 2 /* protocol unreachable */);
		break;
	}
	if (verdict != NET_DROP)
		return verdict;
drop:
	NET_STATS_INC(iface, ipv4.drop);
	return NET_DROP;
}

int net_ipv4_create_full(struct net_pkt *pkt, const struct in_addr *src,
			 const struct in_addr *dst, const uint8_t *opts, uint8_t opts_len)
{
	NET_PKT_DATA_ACCESS_DEFINE(ipv4_access, struct net_ipv4_hdr);
	if (opts_len % 4 || opts_len > 40)
		return -EINVAL;
	struct net_ipv4_hdr *hdr = net_pkt_get_data(pkt, &ipv4_access);
	if (!hdr)
		return -ENOBUFS;
	hdr->vhl = (uint8_t)(0x40 | ((NET_IPV4_HDR_LEN + opts_len) / 4));
	hdr->tos = (uint8_t)(pkt->priority << 5);
	sys_put_be16(0, hdr->len);
	sys_put_be16(ipv4_select_ident(src, dst, pkt->ip_proto), hdr->id);
	sys_put_be16(0, hdr->offset);
	hdr->ttl = pkt->ipv4_ttl ? pkt->ipv4_ttl : IPV4_DEFAULT_TTL;
	if (net_ipv4_is_addr_mcast(dst) && !pkt->ipv4_ttl)
		hdr->ttl = pkt->iface ? pkt->iface->ipv4.mcast_ttl : 1;
	hdr->proto = pkt->ip_proto;
	hdr->chksum = 0;
	memcpy(hdr->src, src, sizeof(*src));
	memcpy(hdr->dst, dst, sizeof(*dst));
	pkt->ip_hdr_len = (uint8_t)(NET_IPV4_HDR_LEN + opts_len);
	pkt->family = AF_INET;
	int ret = net_pkt_set_data(pkt, &ipv4_access);
	if (!ret && opts_len)
		ret = net_pkt_write(pkt, opts, opts_len);
	return ret;
}

int net_ipv4_create(struct net_pkt *pkt, const struct in_addr *src, const struct in_addr *dst)
{
	return net_ipv4_create_full(pkt, src, dst, NULL, 0);
}

/* Total length, protocol and header checksum of the header net_ipv4_create wrote at the
 * start of the first fragment. */
static int ipv4_finalize_header(struct net_pkt *pkt, uint8_t next_header_proto)
{
	struct net_ipv4_hdr *hdr = net_pkt_ip_hdr(pkt);
	size_t len = net_pkt_get_len(pkt);
	if (len > 0xFFFF)
		return -EMSGSIZE;
	sys_put_be16((uint16_t)len, hdr->len);
	hdr->proto = next_header_proto;
	LOG_DBG("pkt %p: %u bytes, proto %u, ttl %u", pkt, (unsigned)len, next_header_proto,
		hdr->ttl);
	hdr->chksum = 0;
	if (net_if_need_calc_tx_checksum(pkt->iface, NET_IF_CHECKSUM_IPV4_HEADER))
		hdr->chksum = htons(net_calc_chksum_ipv4(pkt));
	return 0;
}

int net_ipv4_finalize(struct net_pkt *pkt, uint8_t next_header_proto)
{
	int ret = ipv4_finalize_header(pkt, next_header_proto);
	if (ret)
		return ret;

	switch (next_header_proto) {
	case IPPROTO_UDP:
		return net_udp_finalize(pkt);
	case IPPROTO_ICMP:
	case IPPROTO_IGMP: {
		/* Both start with type, code, checksum; neither has a pseudo header. */
		NET_PKT_DATA_ACCESS_DEFINE(icmp_access, struct net_icmp_hdr);
		if (net_pkt_seek(pkt, pkt->ip_hdr_len))
			return -ENOBUFS;
		struct net_icmp_hdr *icmp_hdr = net_pkt_get_data(pkt, &icmp_access);
		if (!icmp_hdr)
			return -ENOBUFS;
		icmp_hdr->chksum = 0;
		net_pkt_set_data(pkt, &icmp_access);
		if (!net_if_need_calc_tx_checksum(pkt->iface, NET_IF_CHECKSUM_IPV4_ICMP))
			return 0;
		uint16_t chksum = net_calc_chksum(pkt, next_header_proto);
		net_pkt_seek(pkt, pkt->ip_hdr_len);
		icmp_hdr = net_pkt_get_data(pkt, &icmp_access);
		icmp_hdr->chksum = htons(chksum);
		return net_pkt_set_data(pkt, &icmp_access);
	}
	default:
		return 0;
	}
}

/* ---- The datagram builder ---- */

/* The payload, piece by piece into the room the packet has, each piece summed as it is
 * copied; the pieces' sums combined as one (a piece after an odd number of bytes has its
 * words straddling: its sum is byte-swapped). */
static int ipv4_build_payload(struct net_pkt *pkt, const struct net_ipv4_datagram *d,
			      uint32_t *sum)
{
	size_t off = 0;
	while (off < d->payload_len) {
		uint8_t *to;
		size_t room = net_pkt_write_window(pkt, &to);
		if (!room)
			return -ENOBUFS;
		size_t n = MIN(room, d->payload_len - off);
		uint32_t part;
		int ret = d->getfrag(d->from, to, off, n, &part);
		if (ret)
			return ret;
		part = csum_fold(part);
		if (off & 1)
			part = ((part & 0xFFu) << 8) | (part >> 8);
		*sum += part;
		net_pkt_skip(pkt, n); /* appending: the bytes are there, the cursor moves on */
		off += n;
	}
	return 0;
}

struct net_pkt *net_ipv4_build(const struct net_ipv4_datagram *d, k_timeout_t timeout,
			       int *err)
{
	struct net_if *iface = d->iface;
	size_t l4_len = d->l4_hdr_len + d->payload_len;
	*err = -ENOBUFS;
	struct net_pkt *pkt = net_pkt_alloc_with_buffer(iface, l4_len, AF_INET, 0, timeout);
	if (!pkt)
		return NULL;
	pkt->ip_proto = d->proto;
	pkt->priority = d->priority;
	pkt->context = d->context;
	if (d->ttl)
		pkt->ipv4_ttl = d->ttl;

	int ret = net_ipv4_create(pkt, d->src, d->dst);
	if (!ret)
		ret = net_pkt_write(pkt, d->l4_hdr, d->l4_hdr_len);
	uint32_t sum = 0;
	if (!ret)
		ret = ipv4_build_payload(pkt, d, &sum);
	if (!ret && net_pkt_get_len(pkt) != pkt->ip_hdr_len + l4_len)
		ret = -EMSGSIZE; /* the MTU cut the packet short */
	if (ret)
		goto fail;

	/* The transport checksum: its header (checksum field 0) and the payload's sums, with
	 * the pseudo header when the protocol has one. */
	if (d->l4_csum_offset != NET_IPV4_BUILD_NO_CSUM &&
	    net_if_need_calc_tx_checksum(iface, d->proto == IPPROTO_UDP ? NET_IF_CHECKSUM_UDP
									 : NET_IF_CHECKSUM_IPV4_ICMP)) {
		sum += csum_fold(csum_partial(d->l4_hdr, d->l4_hdr_len, 0));
		if (d->pseudo_hdr) {
			sum += csum_fold(csum_partial(d->src, sizeof(*d->src), 0));
			sum += csum_fold(csum_partial(d->dst, sizeof(*d->dst), 0));
			sum += (uint32_t)d->proto + (uint32_t)l4_len;
		}
		uint16_t chksum = csum_finish(sum);
		/* UDP: 0 would mean "no checksum"; its ones' complement twin goes instead. */
		if (chksum == 0 && d->proto == IPPROTO_UDP)
			chksum = 0xFFFF;
		ret = net_pkt_seek(pkt, pkt->ip_hdr_len + d->l4_csum_offset);
		if (!ret)
			ret = net_pkt_write_be16(pkt, chksum);
		if (ret)
			goto fail;
	}
	ret = ipv4_finalize_header(pkt, d->proto);
	if (ret)
		goto fail;
	net_pkt_cursor_init(pkt);
	*err = 0;
	return pkt;
fail:
	net_pkt_unref(pkt);
	*err = ret;
	return NULL;
}

int net_ipv4_getfrag_pkt(void *from, uint8_t *to, size_t offset, size_t len, uint32_t *csum)
{
	UNUSED(offset); /* the source's cursor keeps the place */
	if (net_pkt_read(from, to, len))
		return -ENOBUFS;
	*csum = csum_partial(to, len, 0);
	return 0;
}

/* Frames of Ethertype IPv4 from the Ethernet L2. */
static enum net_verdict ipv4_l3_input(struct net_if *iface, uint16_t ptype, struct net_pkt *pkt)
{
	UNUSED(iface);
	UNUSED(ptype);
	pkt->family = AF_INET;
	return net_ipv4_input(pkt);
}

static struct net_l3_register ipv4_l3 = {
	.name = "ipv4",
	.ptype = NET_ETH_PTYPE_IP,
	.handler = ipv4_l3_input,
};

void net_ipv4_init(void)
{
	net_l3_register(&ipv4_l3);
}
