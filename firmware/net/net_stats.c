/* net_stats.c: printing the statistics counters, and address formatting. */
#include "drivers/console.h"
#include "net/net_core.h"
#include "net_private.h"
#include "sys/format.h"

struct net_stats net_stats_global;

void net_pkt_add_stats_tick(struct net_pkt *pkt)
{
	if (pkt->stats_tick_count < NET_STATS_TIME_STAGES) {
		uint32_t us = k_cycle_get_32() - pkt->timestamp;
		pkt->stats_tick[pkt->stats_tick_count++] = (uint16_t)MIN(us, 0xFFFFu);
	}
}

/* One packet's time (since its timestamp), with the stages it marked. */
static void stats_time_update(struct net_stats_time *t, const struct net_pkt *pkt, uint32_t us)
{
	if (t->count == 0 || us < t->min_us)
		t->min_us = us;
	if (us > t->max_us)
		t->max_us = us;
	t->count++;
	t->sum_us += us;
	uint32_t prev = 0;
	for (int i = 0; i < pkt->stats_tick_count; i++) {
		t->stage_sum_us[i] += pkt->stats_tick[i] - prev;
		prev = pkt->stats_tick[i];
	}
}

void net_stats_update_rx_time(struct net_if *iface, struct net_pkt *pkt)
{
	uint32_t us = k_cycle_get_32() - pkt->timestamp;
	stats_time_update(&iface->stats.rx_time, pkt, us);
	stats_time_update(&net_stats_global.rx_time, pkt, us);
}

void net_stats_update_tx_time(struct net_if *iface, struct net_pkt *pkt)
{
	uint32_t us = k_cycle_get_32() - pkt->timestamp;
	stats_time_update(&iface->stats.tx_time, pkt, us);
	stats_time_update(&net_stats_global.tx_time, pkt, us);
}

char *net_addr_ntop(const struct in_addr *a, char *buf)
{
	snprintk(buf, 16, "%u.%u.%u.%u", a->s4_addr[0], a->s4_addr[1], a->s4_addr[2],
		 a->s4_addr[3]);
	return buf;
}

#define P(label, v) printk("  %-22s %u\r\n", label, (unsigned)(v))

static void print_time(const char *label, const struct net_stats_time *t)
{
	if (!t->count) {
		printk("  %-22s -\r\n", label);
		return;
	}
	printk("  %-22s %u packets, us min %u avg %u max %u; stages", label, (unsigned)t->count,
	       (unsigned)t->min_us, (unsigned)(t->sum_us / t->count), (unsigned)t->max_us);
	for (int i = 0; i < NET_STATS_TIME_STAGES; i++)
		printk(" %u", (unsigned)(t->stage_sum_us[i] / t->count));
	printk("\r\n");
}

void net_stats_print(const struct net_if *iface)
{
	const struct net_stats *s = iface ? &iface->stats : &net_stats_global;
	struct net_pkt_pool_stats pools;
	struct net_core_stats core;
	net_pkt_pool_stats(&pools);
	net_core_stats_get(&core);

	printk("network statistics (%s)\r\n", iface ? iface->name : "all interfaces");
	P("bytes received", s->bytes.received);
	P("bytes sent", s->bytes.sent);
	P("eth rx frames", s->eth.rx_pkts);
	P("eth tx frames", s->eth.tx_pkts);
	P("eth rx filtered", s->eth.rx_filtered);
	P("eth rx unknown type", s->eth.rx_unknown_type);
	P("eth tx errors", s->eth.tx_errors);
	P("arp recv", s->arp.recv);
	P("arp requests sent", s->arp.req_sent);
	P("arp replies sent", s->arp.reply_sent);
	P("arp cache misses", s->arp.cache_miss);
	P("ipv4 recv", s->ipv4.recv);
	P("ipv4 sent", s->ipv4.sent);
	P("ipv4 drop", s->ipv4.drop);
	P("ipv4 checksum errors", s->ip_errors.chkerr);
	P("ipv4 length errors", s->ip_errors.hblenerr + s->ip_errors.lblenerr);
	P("ipv4 version errors", s->ip_errors.vhlerr);
	P("ipv4 fragments", s->ip_errors.fragerr);
	P("ipv4 not for us", s->ip_errors.addrerr);
	P("icmp recv", s->icmp.recv);
	P("icmp sent", s->icmp.sent);
	P("icmp drop", s->icmp.drop);
	P("icmp checksum errors", s->icmp.chkerr);
	P("udp recv", s->udp.recv);
	P("udp sent", s->udp.sent);
	P("udp drop", s->udp.drop);
	P("udp checksum errors", s->udp.chkerr);
	P("udp no port", s->udp.noport);
	P("rx queued", core.rx_queued);
	P("rx queue max", core.rx_queue_max);
	P("packets free", pools.pkts_free);
	P("rx buffers free (min)", pools.rx_bufs_min);
	P("tx buffers free (min)", pools.tx_bufs_min);
	P("allocation failures", pools.alloc_failures);
	P("igmp recv", s->igmp.recv);
	P("igmp sent", s->igmp.sent);
	print_time("rx time", &s->rx_time);
	print_time("tx time", &s->tx_time);
}
