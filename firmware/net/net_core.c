/* net_core.c: the network stack's start-up, its receive entry (driver to RX thread) and
 * send entry (stack to TX thread), and the per-packet work of both threads. */
#include "net/capture.h"
#include "net/net_core.h"
#include "net/net_pkt_filter.h"
#include "net/socket_service.h"
#include "net_private.h"
#include "net_tc.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_core, LOG_LEVEL_INF);

static struct net_core_stats core_stats;

/* The RX thread's work on one packet: link layer, then the network layer. */
static void process_rx_packet(struct net_pkt *pkt)
{
	net_process_rx_packet(pkt);
}

void net_process_rx_packet(struct net_pkt *pkt)
{
	struct net_if *iface = pkt->iface;
	size_t len = net_pkt_get_len(pkt);
	NET_STATS_ADD(iface, bytes.received, len);
	LOG_DBG("rx pkt %p on %s, %u bytes", pkt, iface->name, (unsigned)len);

	enum net_verdict verdict = net_if_recv_data(iface, pkt);
	if (verdict == NET_CONTINUE) {
		switch (pkt->family) {
		case AF_INET:
			verdict = net_ipv4_input(pkt);
			break;
		default:
			verdict = NET_DROP;
			break;
		}
	}
	if (verdict == NET_DROP) {
		LOG_DBG("dropped pkt %p", pkt);
		net_pkt_unref(pkt);
	}
	core_stats.rx_processed++;
}

/* The TX thread's work on one packet. */
static void process_tx_packet(struct net_pkt *pkt)
{
	LOG_DBG("tx pkt %p on %s", pkt, pkt->iface->name);
	net_if_tx(pkt->iface, pkt);
}

int net_recv_data(struct net_if *iface, struct net_pkt *pkt)
{
	if (!pkt->buffer || !iface)
		return -ENODATA;
	if (!(iface->flags & NET_IF_UP))
		return -ENETDOWN;
	pkt->iface = iface;
	pkt->overwrite = true;
	net_pkt_cursor_init(pkt);
	if (!net_pkt_filter_recv_ok(pkt)) {
		/* Dropped by a rule: silently, as a filter does (the packet is freed here). */
		NET_STATS_INC(iface, pkt_filter.drop_recv);
		net_pkt_unref(pkt);
		return 0;
	}
	net_pkt_add_stats_tick(pkt);
	LOG_DBG("pkt %p from %s (%u bytes) queued", pkt, iface->name,
		(unsigned)net_pkt_get_len(pkt));
	if (net_tc_submit_to_rx_queue(net_rx_priority2tc(pkt->priority), pkt)) {
		core_stats.rx_queue_full++;
		return -ENOBUFS;
	}
	core_stats.rx_queued++;
	return 0;
}

/* Refuses what must never leave: unspecified destinations, and loopback destinations on
 * an interface that is not the loopback. */
static int check_ip_dst(struct net_pkt *pkt)
{
	if (pkt->family != AF_INET)
		return 0;
	struct net_ipv4_hdr *hdr = net_pkt_ip_hdr(pkt);
	struct in_addr dst;
	memcpy(&dst, hdr->dst, sizeof(dst));
	if (net_ipv4_is_addr_unspecified(&dst) ||
	    (net_ipv4_is_addr_loopback(&dst) && !(pkt->iface->flags & NET_IF_LOOPBACK))) {
		LOG_DBG("bad destination: dropped");
		return -EINVAL;
	}
	return 0;
}

int net_send_data(struct net_pkt *pkt)
{
	struct net_if *iface = pkt->iface;
	if (!iface || !pkt->buffer)
		return -EINVAL;
	if (!net_if_is_up(iface))
		return -ENETDOWN;
	int ret = check_ip_dst(pkt);
	if (ret)
		return ret;
	if (!net_pkt_filter_send_ok(pkt)) {
		/* Dropped by a rule: as good as sent for the caller, who no longer owns it. */
		NET_STATS_INC(iface, pkt_filter.drop_send);
		net_pkt_unref(pkt);
		return 0;
	}
	if (pkt->family == AF_INET)
		NET_STATS_INC(iface, ipv4.sent);
	NET_STATS_ADD(iface, bytes.sent, net_pkt_get_len(pkt));
	net_pkt_add_stats_tick(pkt);
	LOG_DBG("pkt %p to %s, %u bytes, priority %u", pkt, iface->name,
		(unsigned)net_pkt_get_len(pkt), pkt->priority);
	if (net_if_send_data(iface, pkt) == NET_DROP)
		return -EIO;
	return 0;
}

void net_core_stats_get(struct net_core_stats *s)
{
	struct net_tc_stats tc;
	*s = core_stats;
	net_tc_stats_get(0, 0, &tc);
	s->rx_queue_max = tc.max_depth;
}

void net_init(void)
{
	net_capture_init();
	net_pkt_init();
	net_ipv4_init();
	net_icmpv4_init();
	net_ipv4_igmp_init();
	net_arp_init();
	net_context_init();
	net_tc_tx_init(process_tx_packet);
	net_tc_rx_init(process_rx_packet);
	net_loopback_init();
	net_socket_service_init();
	LOG_INF("network stack up");
}
