/* igmp.c: IGMPv2 (RFC 2236), the host side: membership reports when a group is joined and
 * in answer to queries (delayed at random, suppressed by other hosts' reports), leave
 * messages. 224.0.0.1 (all systems) is joined on every interface and never reported. */
#include "net/net_core.h"
#include "net_private.h"
#include "sys/log.h"
#include "sys/rand.h"

LOG_MODULE_REGISTER(net_igmp, LOG_LEVEL_WRN);

#define IGMP_MEMBERSHIP_QUERY 0x11
#define IGMP_V1_MEMBERSHIP_REPORT 0x12
#define IGMP_V2_MEMBERSHIP_REPORT 0x16
#define IGMP_LEAVE_GROUP 0x17
#define IGMP_V1_MAX_RESP_DS 100 /* a v1 query's implied delay: 10 s */
#define IGMP_UNSOLICITED_REPORT_MS 10000 /* the repeat of a join's report */

static const struct in_addr all_systems = {.s4_addr = {224, 0, 0, 1}};
static const struct in_addr all_routers = {.s4_addr = {224, 0, 0, 2}};

/* When each pending report is due (parallel to the interface's group table). */
struct igmp_timers {
	struct net_if *iface;
	uint32_t due_ms[NET_IF_MAX_IPV4_MADDR];
};

static struct igmp_timers timers[NET_IF_MAX];
static struct k_work_delayable report_work;
static struct k_mutex igmp_lock;

static struct igmp_timers *timers_of(struct net_if *iface)
{
	for (int i = 0; i < NET_IF_MAX; i++)
		if (timers[i].iface == iface)
			return &timers[i];
	for (int i = 0; i < NET_IF_MAX; i++) {
		if (!timers[i].iface) {
			timers[i].iface = iface;
			return &timers[i];
		}
	}
	return &timers[0];
}

static int igmp_send(struct net_if *iface, uint8_t type, const struct in_addr *group,
		     const struct in_addr *dst)
{
	/* IGMP goes with TTL 1 and the Router Alert option (RFC 2236 section 2). */
	static const uint8_t router_alert[4] = {NET_IPV4_OPT_ROUTER_ALERT, 4, 0, 0};
	NET_PKT_DATA_ACCESS_DEFINE(igmp_access, struct net_igmp_hdr);
	const struct in_addr *src = net_if_ipv4_select_src_addr(iface, dst);
	if (!src)
		return -EADDRNOTAVAIL;
	struct net_pkt *pkt = net_pkt_alloc_with_buffer(iface, NET_IGMPH_LEN + sizeof(router_alert),
							AF_INET, IPPROTO_IGMP, NET_BUF_TIMEOUT);
	if (!pkt)
		return -ENOMEM;
	pkt->ipv4_ttl = 1;
	int ret = net_ipv4_create_full(pkt, src, dst, router_alert, sizeof(router_alert));
	struct net_igmp_hdr *hdr = ret ? NULL : net_pkt_get_data(pkt, &igmp_access);
	if (!hdr) {
		net_pkt_unref(pkt);
		return -ENOBUFS;
	}
	hdr->type = type;
	hdr->max_rsp = 0;
	hdr->chksum = 0;
	memcpy(hdr->group, group, sizeof(*group));
	net_pkt_set_data(pkt, &igmp_access);
	net_pkt_cursor_init(pkt);
	if (net_ipv4_finalize(pkt, IPPROTO_IGMP) || net_send_data(pkt) < 0) {
		net_pkt_unref(pkt);
		return -EIO;
	}
	NET_STATS_INC(iface, igmp.sent);
	return 0;
}

static void igmp_report(struct net_if *iface, const struct in_addr *group)
{
	if (!net_if_is_up(iface) || (iface->flags & NET_IF_LOOPBACK))
		return;
	int ret = igmp_send(iface, IGMP_V2_MEMBERSHIP_REPORT, group, group);
	if (ret)
		LOG_DBG("report not sent (%d)", ret);
}

/* (Re)arms the work for the earliest pending report. igmp_lock held. */
static void igmp_reschedule(void)
{
	uint32_t now = k_uptime_get_32();
	int32_t next = INT32_MAX;
	for (int i = 0; i < NET_IF_MAX; i++) {
		struct net_if *iface = timers[i].iface;
		if (!iface)
			continue;
		for (int j = 0; j < NET_IF_MAX_IPV4_MADDR; j++) {
			const struct net_if_mcast_addr *m = &iface->ipv4.mcast[j];
			if (!m->is_used || !m->report_pending)
				continue;
			int32_t left = (int32_t)(timers[i].due_ms[j] - now);
			next = MIN(next, MAX(left, 0));
		}
	}
	if (next != INT32_MAX)
		k_work_schedule(&report_work, K_MSEC(next));
}

static void igmp_report_due(struct k_work *w)
{
	UNUSED(w);
	uint32_t now = k_uptime_get_32();
	k_mutex_lock(&igmp_lock, K_FOREVER);
	for (int i = 0; i < NET_IF_MAX; i++) {
		struct net_if *iface = timers[i].iface;
		if (!iface)
			continue;
		for (int j = 0; j < NET_IF_MAX_IPV4_MADDR; j++) {
			struct net_if_mcast_addr *m = &iface->ipv4.mcast[j];
			if (m->is_used && m->report_pending &&
			    (int32_t)(timers[i].due_ms[j] - now) <= 0) {
				m->report_pending = false;
				igmp_report(iface, &m->address);
			}
		}
	}
	igmp_reschedule();
	k_mutex_unlock(&igmp_lock);
}

/* A report for m is due within delay_ms (the earlier of the old and the new deadline). */
static void igmp_arm(struct net_if *iface, struct net_if_mcast_addr *m, uint32_t delay_ms)
{
	struct igmp_timers *t = timers_of(iface);
	int j = (int)(m - iface->ipv4.mcast);
	uint32_t due = k_uptime_get_32() + delay_ms;
	if (!m->report_pending || (int32_t)(due - t->due_ms[j]) < 0)
		t->due_ms[j] = due;
	m->report_pending = true;
}

int net_ipv4_igmp_join(struct net_if *iface, const struct in_addr *group)
{
	k_mutex_lock(&igmp_lock, K_FOREVER);
	struct net_if_mcast_addr *m = net_if_ipv4_maddr_add(iface, group);
	if (!m) {
		k_mutex_unlock(&igmp_lock);
		return net_ipv4_is_addr_mcast(group) ? -ENOMEM : -EINVAL;
	}
	if (!m->is_joined && !net_ipv4_addr_cmp(group, &all_systems)) {
		m->is_joined = true;
		/* An unsolicited report now, and once more later in case it was lost. */
		igmp_report(iface, group);
		igmp_arm(iface, m, IGMP_UNSOLICITED_REPORT_MS);
		igmp_reschedule();
	}
	k_mutex_unlock(&igmp_lock);
	return 0;
}

int net_ipv4_igmp_leave(struct net_if *iface, const struct in_addr *group)
{
	k_mutex_lock(&igmp_lock, K_FOREVER);
	struct net_if *found = iface;
	struct net_if_mcast_addr *m = net_if_ipv4_maddr_lookup(group, &found);
	if (!m || net_ipv4_addr_cmp(group, &all_systems)) {
		k_mutex_unlock(&igmp_lock);
		return -ENOENT;
	}
	if (m->is_joined && net_if_is_up(iface))
		igmp_send(iface, IGMP_LEAVE_GROUP, group, &all_routers);
	net_if_ipv4_maddr_rm(iface, group);
	k_mutex_unlock(&igmp_lock);
	return 0;
}

void net_ipv4_igmp_iface_up(struct net_if *iface)
{
	net_if_ipv4_maddr_add(iface, &all_systems);
	k_mutex_lock(&igmp_lock, K_FOREVER);
	for (int j = 0; j < NET_IF_MAX_IPV4_MADDR; j++) {
		struct net_if_mcast_addr *m = &iface->ipv4.mcast[j];
		if (m->is_used && m->is_joined) {
			igmp_report(iface, &m->address);
			igmp_arm(iface, m, IGMP_UNSOLICITED_REPORT_MS);
		}
	}
	igmp_reschedule();
	k_mutex_unlock(&igmp_lock);
}

static void igmp_query(struct net_if *iface, const struct in_addr *group, uint8_t max_rsp)
{
	uint32_t max_ms = (max_rsp ? max_rsp : IGMP_V1_MAX_RESP_DS) * 100u;
	NET_STATS_INC(iface, igmp.queries);
	k_mutex_lock(&igmp_lock, K_FOREVER);
	for (int j = 0; j < NET_IF_MAX_IPV4_MADDR; j++) {
		struct net_if_mcast_addr *m = &iface->ipv4.mcast[j];
		if (!m->is_used || !m->is_joined)
			continue;
		if (!net_ipv4_is_addr_unspecified(group) && !net_ipv4_addr_cmp(group, &m->address))
			continue;
		igmp_arm(iface, m, sys_rand32_below(max_ms + 1));
	}
	igmp_reschedule();
	k_mutex_unlock(&igmp_lock);
}

/* Another member reported the group: our pending report would add nothing. */
static void igmp_suppress(struct net_if *iface, const struct in_addr *group)
{
	k_mutex_lock(&igmp_lock, K_FOREVER);
	struct net_if *found = iface;
	struct net_if_mcast_addr *m = net_if_ipv4_maddr_lookup(group, &found);
	if (m && m->report_pending) {
		m->report_pending = false;
		NET_STATS_INC(iface, igmp.reports_suppressed);
	}
	k_mutex_unlock(&igmp_lock);
}

enum net_verdict net_ipv4_igmp_input(struct net_pkt *pkt, struct net_ipv4_hdr *ip_hdr)
{
	NET_PKT_DATA_ACCESS_DEFINE(igmp_access, struct net_igmp_hdr);
	struct net_if *iface = pkt->iface;
	UNUSED(ip_hdr);
	NET_STATS_INC(iface, igmp.recv);

	struct net_igmp_hdr *hdr = net_pkt_get_data(pkt, &igmp_access);
	if (!hdr || net_pkt_remaining_data(pkt) < NET_IGMPH_LEN) {
		NET_STATS_INC(iface, igmp.drop);
		return NET_DROP;
	}
	if (net_if_need_calc_rx_checksum(iface, NET_IF_CHECKSUM_IPV4_ICMP) &&
	    net_calc_chksum(pkt, IPPROTO_IGMP) != 0) {
		LOG_DBG("checksum error");
		NET_STATS_INC(iface, igmp.drop);
		return NET_DROP;
	}
	struct in_addr group;
	memcpy(&group, hdr->group, sizeof(group));
	switch (hdr->type) {
	case IGMP_MEMBERSHIP_QUERY:
		igmp_query(iface, &group, hdr->max_rsp);
		break;
	case IGMP_V1_MEMBERSHIP_REPORT:
	case IGMP_V2_MEMBERSHIP_REPORT:
		igmp_suppress(iface, &group);
		break;
	default:
		break; /* leaves and unknown types concern routers */
	}
	net_pkt_unref(pkt);
	return NET_OK;
}

void net_ipv4_igmp_init(void)
{
	k_mutex_init(&igmp_lock);
	k_work_init_delayable(&report_work, igmp_report_due);
}
