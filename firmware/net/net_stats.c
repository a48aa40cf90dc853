/* net_stats.c: printing the statistics counters, and address formatting. */
#include "drivers/console.h"
#include "net/net_core.h"
#include "net_private.h"
#include "sys/format.h"

char *net_addr_ntop(const struct in_addr *a, char *buf)
{
	snprintk(buf, 16, "%u.%u.%u.%u", a->s4_addr[0], a->s4_addr[1], a->s4_addr[2],
		 a->s4_addr[3]);
	return buf;
}

#define P(label, v) printk("  %-22s %u\r\n", label, (unsigned)(v))

void net_stats_print(const struct net_if *iface)
{
	const struct net_stats *s = &iface->stats;
	struct net_pkt_pool_stats pools;
	struct net_core_stats core;
	net_pkt_pool_stats(&pools);
	net_core_stats_get(&core);

	printk("network statistics (%s)\r\n", iface->name);
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
}
