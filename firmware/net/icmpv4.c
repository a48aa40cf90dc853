/* icmpv4.c: ICMPv4 (RFC 792): input with a table of handlers, echo replies, and error
 * messages (destination unreachable). */
#include "net/net_core.h"
#include "net_private.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_icmpv4, LOG_LEVEL_WRN);

/* An error quotes the offending IP header and the first 8 bytes of its data. */
#define ICMPV4_ERROR_QUOTE 8
/* Errors are rate limited as Linux limits them (icmp_ratelimit): a bucket of 10 tokens,
 * one back every 10 ms, so floods of bad traffic cannot turn into floods of errors. */
#define ICMPV4_ERROR_BURST 10
#define ICMPV4_ERROR_TOKEN_MS 10

static uint32_t error_tokens = ICMPV4_ERROR_BURST;
static uint32_t error_refill_ms;

/* Takes a token for one error message; false when the bucket is empty. */
static bool icmpv4_error_allowed(void)
{
	uint32_t now = k_uptime_get_32();
	uint32_t earned = (now - error_refill_ms) / ICMPV4_ERROR_TOKEN_MS;
	if (earned) {
		error_tokens = MIN(error_tokens + earned, (uint32_t)ICMPV4_ERROR_BURST);
		error_refill_ms += earned * ICMPV4_ERROR_TOKEN_MS;
	}
	if (!error_tokens)
		return false;
	error_tokens--;
	return true;
}

static sys_slist_t handlers;

void net_icmpv4_register_handler(struct net_icmpv4_handler *h)
{
	sys_slist_append(&handlers, &h->node);
}

/* Writes the ICMP header (checksum 0: finalize computes it) at the cursor. */
static int icmpv4_create(struct net_pkt *pkt, uint8_t type, uint8_t code)
{
	NET_PKT_DATA_ACCESS_DEFINE(icmp_access, struct net_icmp_hdr);
	struct net_icmp_hdr *icmp_hdr = net_pkt_get_data(pkt, &icmp_access);
	if (!icmp_hdr)
		return -ENOBUFS;
	icmp_hdr->type = type;
	icmp_hdr->code = code;
	icmp_hdr->chksum = 0;
	return net_pkt_set_data(pkt, &icmp_access);
}

static enum net_verdict icmpv4_handle_echo_request(struct net_pkt *pkt,
						   struct net_ipv4_hdr *ip_hdr,
						   struct net_icmp_hdr *icmp_hdr)
{
	struct net_if *iface = pkt->iface;
	UNUSED(icmp_hdr);

	struct in_addr req_src, req_dst;
	memcpy(&req_src, ip_hdr->src, sizeof(req_src));
	memcpy(&req_dst, ip_hdr->dst, sizeof(req_dst));
	if (!net_if_ipv4_addr_lookup(&req_dst, NULL)) {
		/* An echo request to a broadcast address: not answered (RFC 1122 allows
		 * silence, and it keeps the device out of amplification). */
		LOG_DBG("echo request to a broadcast address ignored");
		return NET_DROP;
	}

	net_stats_update_rx_time(iface, pkt);
	/* identifier, sequence number and data, copied unchanged */
	size_t payload_len = net_pkt_remaining_data(pkt);
	LOG_DBG("echo request from %u.%u.%u.%u, %u bytes", req_src.s4_addr[0], req_src.s4_addr[1],
		req_src.s4_addr[2], req_src.s4_addr[3], (unsigned)payload_len);

	struct net_pkt *reply = net_pkt_alloc_with_buffer(iface, payload_len, AF_INET,
							  IPPROTO_ICMP, NET_BUF_TIMEOUT);
	if (!reply) {
		LOG_DBG("no buffer for the echo reply");
		return NET_DROP;
	}
	reply->priority = pkt->priority;
	if (net_ipv4_create(reply, &req_dst, &req_src) ||
	    icmpv4_create(reply, NET_ICMPV4_ECHO_REPLY, 0) ||
	    net_pkt_copy(reply, pkt, payload_len))
		goto fail;
	net_pkt_cursor_init(reply);
	if (net_ipv4_finalize(reply, IPPROTO_ICMP))
		goto fail;
	if (net_send_data(reply) < 0)
		goto fail;

	NET_STATS_INC(iface, icmp.sent);
	net_pkt_unref(pkt);
	return NET_OK;

fail:
	NET_STATS_INC(iface, icmp.drop);
	net_pkt_unref(reply);
	return NET_DROP;
}

enum net_verdict net_icmpv4_input(struct net_pkt *pkt, struct net_ipv4_hdr *ip_hdr)
{
	NET_PKT_DATA_ACCESS_DEFINE(icmp_access, struct net_icmp_hdr);
	struct net_if *iface = pkt->iface;

	struct net_icmp_hdr *icmp_hdr = net_pkt_get_data(pkt, &icmp_access);
	if (!icmp_hdr) {
		LOG_DBG("no ICMP header");
		goto drop;
	}
	if (net_if_need_calc_rx_checksum(iface, NET_IF_CHECKSUM_IPV4_ICMP) &&
	    net_calc_chksum(pkt, IPPROTO_ICMP) != 0) {
		LOG_DBG("checksum error");
		NET_STATS_INC(iface, icmp.chkerr);
		goto drop;
	}
	/* The header may be a copy: keep it, the cursor moves on to the body. */
	struct net_icmp_hdr hdr = *icmp_hdr;
	net_pkt_acknowledge_data(pkt, &icmp_access);
	NET_STATS_INC(iface, icmp.recv);
	LOG_DBG("type %u code %u", hdr.type, hdr.code);

	for (sys_snode_t *n = handlers.head; n; n = n->next) {
		struct net_icmpv4_handler *h = CONTAINER_OF(n, struct net_icmpv4_handler, node);
		if (h->type == hdr.type && (h->code == hdr.code || h->code == 0xFF)) {
			enum net_verdict v = h->handler(pkt, ip_hdr, &hdr);
			if (v == NET_DROP)
				goto drop;
			return v;
		}
	}
	NET_STATS_INC(iface, icmp.typeerr);
drop:
	NET_STATS_INC(iface, icmp.drop);
	return NET_DROP;
}

int net_icmpv4_send_error(struct net_pkt *orig, uint8_t type, uint8_t code)
{
	struct net_if *iface = orig->iface;
	struct net_ipv4_hdr *ip_hdr = net_pkt_ip_hdr(orig);
	struct in_addr src, dst;
	memcpy(&src, ip_hdr->src, sizeof(src));
	memcpy(&dst, ip_hdr->dst, sizeof(dst));

	/* Never about broadcasts or multicasts, never about ICMP errors (RFC 1122 3.2.2). */
	if (!net_if_ipv4_addr_lookup(&dst, NULL) || net_ipv4_is_addr_unspecified(&src))
		return -EINVAL;
	if (ip_hdr->proto == IPPROTO_ICMP)
		return -EINVAL;
	if (!icmpv4_error_allowed()) {
		NET_STATS_INC(iface, icmp.ratelimited);
		return -EBUSY;
	}

	size_t quote = MIN(net_pkt_get_len(orig), (size_t)orig->ip_hdr_len + ICMPV4_ERROR_QUOTE);
	struct net_pkt *pkt = net_pkt_alloc_with_buffer(iface, 4 + quote, AF_INET, IPPROTO_ICMP,
							NET_BUF_TIMEOUT);
	if (!pkt)
		return -ENOMEM;
	int ret = -ENOBUFS;
	if (net_ipv4_create(pkt, &dst, &src) || icmpv4_create(pkt, type, code) ||
	    net_pkt_memset(pkt, 0, 4) /* unused */)
		goto fail;
	if (net_pkt_seek(orig, 0) || net_pkt_copy(pkt, orig, quote))
		goto fail;
	net_pkt_cursor_init(pkt);
	if (net_ipv4_finalize(pkt, IPPROTO_ICMP))
		goto fail;
	ret = net_send_data(pkt);
	if (ret < 0)
		goto fail;
	NET_STATS_INC(iface, icmp.sent);
	LOG_DBG("sent error type %u code %u", type, code);
	return 0;
fail:
	net_pkt_unref(pkt);
	return ret;
}

static struct net_icmpv4_handler echo_request_handler = {
	.handler = icmpv4_handle_echo_request,
	.type = NET_ICMPV4_ECHO_REQUEST,
	.code = 0,
};

void net_icmpv4_init(void)
{
	sys_slist_init(&handlers);
	net_icmpv4_register_handler(&echo_request_handler);
}
