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

static sys_slist_t handlers; /* struct net_icmp_ctx, in set-up order */
static struct k_mutex handlers_lock;

int net_icmp_init_ctx(struct net_icmp_ctx *ctx, uint8_t type, uint8_t code,
		      net_icmp_handler_t handler, void *user_data)
{
	if (!handler)
		return -EINVAL;
	ctx->handler = handler;
	ctx->user_data = user_data;
	ctx->type = type;
	ctx->code = code;
	ctx->calls = 0;
	ctx->node.next = NULL;
	k_mutex_lock(&handlers_lock, K_FOREVER);
	sys_slist_append(&handlers, &ctx->node);
	k_mutex_unlock(&handlers_lock);
	return 0;
}

int net_icmp_cleanup_ctx(struct net_icmp_ctx *ctx)
{
	int ret = -ENOENT;
	k_mutex_lock(&handlers_lock, K_FOREVER);
	sys_snode_t *prev = NULL;
	for (sys_snode_t *n = handlers.head; n; prev = n, n = n->next) {
		if (n != &ctx->node)
			continue;
		if (prev)
			prev->next = n->next;
		else
			handlers.head = n->next;
		if (handlers.tail == n)
			handlers.tail = prev;
		ret = 0;
		break;
	}
	k_mutex_unlock(&handlers_lock);
	return ret;
}

/* Every context interested in the message: -ENOENT when there is none, else the first
 * error a handler reported (0 when all succeeded). */
static int icmp_call_ipv4_handlers(struct net_pkt *pkt, struct net_ipv4_hdr *ip_hdr,
				   struct net_icmp_hdr *icmp_hdr)
{
	int ret = -ENOENT;
	struct net_pkt_cursor backup;
	net_pkt_cursor_backup(pkt, &backup);
	k_mutex_lock(&handlers_lock, K_FOREVER);
	for (sys_snode_t *n = handlers.head; n; n = n->next) {
		struct net_icmp_ctx *ctx = CONTAINER_OF(n, struct net_icmp_ctx, node);
		if (ctx->type != icmp_hdr->type ||
		    (ctx->code != icmp_hdr->code && ctx->code != 0xFF))
			continue;
		ctx->calls++;
		/* Each handler reads the message from where the header ends. */
		net_pkt_cursor_restore(pkt, &backup);
		int r = ctx->handler(ctx, pkt, ip_hdr, icmp_hdr, ctx->user_data);
		if (ret == -ENOENT || (ret == 0 && r < 0))
			ret = r;
	}
	k_mutex_unlock(&handlers_lock);
	return ret;
}

static void icmp_count_out(struct net_if *iface, uint8_t type)
{
	NET_STATS_INC(iface, icmp.sent);
	if (type < NET_STATS_ICMP_TYPES)
		NET_STATS_INC(iface, icmp.out_types[type]);
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

static int icmpv4_handle_echo_request(struct net_icmp_ctx *ctx, struct net_pkt *pkt,
				      struct net_ipv4_hdr *ip_hdr, struct net_icmp_hdr *icmp_hdr,
				      void *user_data)
{
	struct net_if *iface = pkt->iface;
	UNUSED(ctx);
	UNUSED(icmp_hdr);
	UNUSED(user_data);

	struct in_addr req_src, req_dst;
	memcpy(&req_src, ip_hdr->src, sizeof(req_src));
	memcpy(&req_dst, ip_hdr->dst, sizeof(req_dst));
	if (!net_if_ipv4_addr_lookup(&req_dst, NULL)) {
		/* An echo request to a broadcast address: not answered (RFC 1122 allows
		 * silence, and it keeps the device out of amplification). */
		LOG_DBG("echo request to a broadcast address ignored");
		return -EINVAL;
	}

	net_stats_update_rx_time(iface, pkt);
	/* identifier, sequence number and data, copied unchanged */
	size_t payload_len = net_pkt_remaining_data(pkt);
	LOG_DBG("echo request from %u.%u.%u.%u, %u bytes", req_src.s4_addr[0], req_src.s4_addr[1],
		req_src.s4_addr[2], req_src.s4_addr[3], (unsigned)payload_len);

	/* The reply is built in one go: its header, then the request's data copied and summed
	 * piece by piece (the checksum needs no second pass over the packet). */
	const uint8_t icmp_hdr_out[NET_ICMPH_LEN] = {NET_ICMPV4_ECHO_REPLY, 0, 0, 0};
	const struct net_ipv4_datagram d = {
		.iface = iface,
		.src = &req_dst,
		.dst = &req_src,
		.proto = IPPROTO_ICMP,
		.priority = pkt->priority,
		.l4_hdr = icmp_hdr_out,
		.l4_hdr_len = sizeof(icmp_hdr_out),
		.l4_csum_offset = offsetof(struct net_icmp_hdr, chksum),
		.payload_len = payload_len,
		.getfrag = net_ipv4_getfrag_pkt,
		.from = pkt,
	};
	int err;
	struct net_pkt *reply = net_ipv4_build(&d, NET_BUF_TIMEOUT, &err);
	if (!reply) {
		LOG_DBG("echo reply not built (%d)", err);
		return err;
	}
	if (net_send_data(reply) < 0) {
		net_pkt_unref(reply);
		return -EIO;
	}
	icmp_count_out(iface, NET_ICMPV4_ECHO_REPLY);
	return 0;
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
	if (hdr.type < NET_STATS_ICMP_TYPES)
		NET_STATS_INC(iface, icmp.in_types[hdr.type]);
	LOG_DBG("type %u code %u", hdr.type, hdr.code);

	int ret = icmp_call_ipv4_handlers(pkt, ip_hdr, &hdr);
	if (ret == -ENOENT) {
		NET_STATS_INC(iface, icmp.typeerr);
		goto drop;
	}
	if (ret < 0)
		NET_STATS_INC(iface, icmp.drop);
	/* Handled (well or not): the message is done with here. */
	net_pkt_unref(pkt);
	return NET_OK;
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
	icmp_count_out(iface, type);
	LOG_DBG("sent error type %u code %u", type, code);
	return 0;
fail:
	net_pkt_unref(pkt);
	return ret;
}

static struct net_icmp_ctx echo_request_ctx;

void net_icmpv4_init(void)
{
	sys_slist_init(&handlers);
	k_mutex_init(&handlers_lock);
	net_icmp_init_ctx(&echo_request_ctx, NET_ICMPV4_ECHO_REQUEST, 0,
			  icmpv4_handle_echo_request, NULL);
}
