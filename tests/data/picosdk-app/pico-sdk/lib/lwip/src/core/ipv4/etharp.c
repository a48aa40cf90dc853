/* ARP: a small table of IPv4 to Ethernet address mappings, requests and replies. */
#include "lwip/etharp.h"
#include "lwip/def.h"
#include "lwip/ip4.h"

#define ARP_HWTYPE_ETH 1
#define ARP_REQUEST 1
#define ARP_REPLY 2

struct etharp_hdr {
    u16_t hwtype;
    u16_t proto;
    u8_t hwlen;
    u8_t protolen;
    u16_t opcode;
    struct eth_addr shwaddr;
    ip4_addr_t sipaddr;
    struct eth_addr dhwaddr;
    ip4_addr_t dipaddr;
} PACK_STRUCT_STRUCT;

enum etharp_state { ETHARP_STATE_EMPTY = 0, ETHARP_STATE_PENDING, ETHARP_STATE_STABLE };

struct etharp_entry {
    struct pbuf *q;
    ip4_addr_t ipaddr;
    struct netif *netif;
    struct eth_addr ethaddr;
    u16_t ctime;
    u8_t state;
};

static struct etharp_entry arp_table[ARP_TABLE_SIZE];

static void etharp_free_entry(int i)
{
    if (arp_table[i].q != NULL) {
        pbuf_free(arp_table[i].q);
        arp_table[i].q = NULL;
    }
    arp_table[i].state = ETHARP_STATE_EMPTY;
}

void etharp_tmr(void)
{
    for (int i = 0; i < ARP_TABLE_SIZE; ++i) {
        if (arp_table[i].state != ETHARP_STATE_EMPTY) {
            arp_table[i].ctime++;
            if (arp_table[i].ctime >= ARP_MAXAGE ||
                (arp_table[i].state == ETHARP_STATE_PENDING && arp_table[i].ctime >= 5))
                etharp_free_entry(i);
        }
    }
}

void etharp_cleanup_netif(struct netif *netif)
{
    for (int i = 0; i < ARP_TABLE_SIZE; ++i) {
        if (arp_table[i].state != ETHARP_STATE_EMPTY && arp_table[i].netif == netif)
            etharp_free_entry(i);
    }
}

/* the entry for ipaddr, or a free (or the oldest) one to take it */
static int etharp_find_entry(const ip4_addr_t *ipaddr, struct netif *netif)
{
    int empty = ARP_TABLE_SIZE, oldest = 0;
    u16_t age = 0;
    for (int i = 0; i < ARP_TABLE_SIZE; ++i) {
        if (arp_table[i].state == ETHARP_STATE_EMPTY) {
            if (empty == ARP_TABLE_SIZE)
                empty = i;
        } else if (ip4_addr_cmp(ipaddr, &arp_table[i].ipaddr) && arp_table[i].netif == netif) {
            return i;
        } else if (arp_table[i].ctime >= age) {
            oldest = i;
            age = arp_table[i].ctime;
        }
    }
    int i = empty < ARP_TABLE_SIZE ? empty : oldest;
    if (empty == ARP_TABLE_SIZE)
        etharp_free_entry(i);
    arp_table[i].ipaddr = *ipaddr;
    arp_table[i].netif = netif;
    arp_table[i].ctime = 0;
    return i;
}

static void etharp_update_arp_entry(struct netif *netif, const ip4_addr_t *ipaddr, const struct eth_addr *ethaddr)
{
    if (ip4_addr_isany(ipaddr) || ip4_addr_isbroadcast(ipaddr, netif) || ip4_addr_ismulticast(ipaddr))
        return;
    int i = etharp_find_entry(ipaddr, netif);
    arp_table[i].state = ETHARP_STATE_STABLE;
    arp_table[i].ethaddr = *ethaddr;
    arp_table[i].ctime = 0;
    if (arp_table[i].q != NULL) {
        struct pbuf *p = arp_table[i].q;
        arp_table[i].q = NULL;
        ethernet_output(netif, p, (const struct eth_addr *)netif->hwaddr, ethaddr, ETHTYPE_IP);
        pbuf_free(p);
    }
}

static err_t etharp_raw(struct netif *netif, const struct eth_addr *ethsrc_addr, const struct eth_addr *ethdst_addr,
                        const struct eth_addr *hwsrc_addr, const ip4_addr_t *ipsrc_addr,
                        const struct eth_addr *hwdst_addr, const ip4_addr_t *ipdst_addr, const u16_t opcode)
{
    struct pbuf *p = pbuf_alloc(PBUF_LINK, sizeof(struct etharp_hdr), PBUF_RAM);
    if (p == NULL)
        return ERR_MEM;
    struct etharp_hdr *hdr = (struct etharp_hdr *)p->payload;
    hdr->opcode = lwip_htons(opcode);
    hdr->shwaddr = *hwsrc_addr;
    hdr->dhwaddr = *hwdst_addr;
    hdr->sipaddr = *ipsrc_addr;
    hdr->dipaddr = *ipdst_addr;
    hdr->hwtype = PP_HTONS(ARP_HWTYPE_ETH);
    hdr->proto = PP_HTONS(ETHTYPE_IP);
    hdr->hwlen = ETH_HWADDR_LEN;
    hdr->protolen = sizeof(ip4_addr_t);
    err_t result = ethernet_output(netif, p, ethsrc_addr, ethdst_addr, ETHTYPE_ARP);
    pbuf_free(p);
    return result;
}

err_t etharp_request(struct netif *netif, const ip4_addr_t *ipaddr)
{
    return etharp_raw(netif, (const struct eth_addr *)netif->hwaddr, &ethbroadcast,
                      (const struct eth_addr *)netif->hwaddr, netif_ip4_addr(netif), &ethzero, ipaddr, ARP_REQUEST);
}

void etharp_input(struct pbuf *p, struct netif *netif)
{
    struct etharp_hdr *hdr = (struct etharp_hdr *)p->payload;
    if (p->len < sizeof(struct etharp_hdr) || hdr->hwtype != PP_HTONS(ARP_HWTYPE_ETH) || hdr->hwlen != ETH_HWADDR_LEN ||
        hdr->protolen != sizeof(ip4_addr_t) || hdr->proto != PP_HTONS(ETHTYPE_IP)) {
        pbuf_free(p);
        return;
    }
    ip4_addr_t sipaddr = hdr->sipaddr, dipaddr = hdr->dipaddr;
    u8_t for_us = ip4_addr_isany_val(netif->ip_addr) ? 0 : ip4_addr_cmp(&dipaddr, netif_ip4_addr(netif));
    etharp_update_arp_entry(netif, &sipaddr, &hdr->shwaddr);
    if (hdr->opcode == PP_HTONS(ARP_REQUEST) && for_us) {
        etharp_raw(netif, (struct eth_addr *)netif->hwaddr, &hdr->shwaddr, (struct eth_addr *)netif->hwaddr,
                   netif_ip4_addr(netif), &hdr->shwaddr, &sipaddr, ARP_REPLY);
    }
    pbuf_free(p);
}

err_t etharp_query(struct netif *netif, const ip4_addr_t *ipaddr, struct pbuf *q)
{
    int i = etharp_find_entry(ipaddr, netif);
    if (arp_table[i].state == ETHARP_STATE_STABLE)
        return ethernet_output(netif, q, (const struct eth_addr *)netif->hwaddr, &arp_table[i].ethaddr, ETHTYPE_IP);
    if (arp_table[i].state == ETHARP_STATE_EMPTY)
        arp_table[i].state = ETHARP_STATE_PENDING;
    if (arp_table[i].q != NULL)
        pbuf_free(arp_table[i].q);
    pbuf_ref(q);
    arp_table[i].q = q;
    return etharp_request(netif, ipaddr);
}

err_t etharp_output(struct netif *netif, struct pbuf *q, const ip4_addr_t *ipaddr)
{
    if (ip4_addr_isbroadcast(ipaddr, netif))
        return ethernet_output(netif, q, (const struct eth_addr *)netif->hwaddr, &ethbroadcast, ETHTYPE_IP);
    const ip4_addr_t *dst_addr = ipaddr;
    if (!ip4_addr_netcmp(ipaddr, netif_ip4_addr(netif), netif_ip4_netmask(netif)))
        dst_addr = &netif->gw;
    return etharp_query(netif, dst_addr, q);
}
