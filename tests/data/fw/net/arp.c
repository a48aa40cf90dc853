/* arp.c: ARP for IPv4 over Ethernet: a small cache, answering requests. */
#include "fw.h"

#define ARP_ENTRIES 4
#define ARP_MAX_AGE_MS 60000u

struct arp_entry {
	uint32_t ip;
	uint8_t mac[6];
	uint32_t stamp;
};

struct arp_pkt {
	uint8_t htype[2], ptype[2], hlen, plen, oper[2];
	uint8_t sha[6], spa[4], tha[6], tpa[4];
};

static struct arp_entry cache[ARP_ENTRIES];
static uint32_t last_seen_ms;

static uint32_t get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

void arp_update(uint32_t ip, const uint8_t mac[6])
{
	if (ip == 0)
		return;
	struct arp_entry *oldest = &cache[0];
	for (int i = 0; i < ARP_ENTRIES; i++) {
		if (cache[i].ip == ip) {
			oldest = &cache[i];
			break;
		}
		if (cache[i].stamp < oldest->stamp)
			oldest = &cache[i];
	}
	oldest->ip = ip;
	memcpy(oldest->mac, mac, 6);
	oldest->stamp = last_seen_ms;
}

int arp_resolve(struct net_if *iface, uint32_t ip, uint8_t mac[6])
{
	(void)iface;
	for (int i = 0; i < ARP_ENTRIES; i++) {
		if (cache[i].ip == ip) {
			memcpy(mac, cache[i].mac, 6);
			return 0;
		}
	}
	return -1;
}

int arp_input(struct net_if *iface, struct net_buf *b)
{
	if (b->len < sizeof(struct arp_pkt))
		return -1;
	struct arp_pkt *a = (struct arp_pkt *)b->data;
	uint32_t spa = get_be32(a->spa), tpa = get_be32(a->tpa);
	arp_update(spa, a->sha);
	if (a->oper[1] != 1 || tpa != iface->ipaddr) {
		net_buf_unref(b);
		return 0;
	}
	a->oper[1] = 2;
	memcpy(a->tha, a->sha, 6);
	put_be32(a->tpa, spa);
	memcpy(a->sha, iface->mac, 6);
	put_be32(a->spa, iface->ipaddr);
	return ethernet_output(iface, b, a->tha, 0x0806);
}

void arp_timer(uint32_t now_ms)
{
	last_seen_ms = now_ms;
	for (int i = 0; i < ARP_ENTRIES; i++)
		if (cache[i].ip && now_ms - cache[i].stamp > ARP_MAX_AGE_MS)
			cache[i].ip = 0;
}
