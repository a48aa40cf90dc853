/* netpeer_dhcp: the network peer's DHCP client (RFC 2131, see netpeer.h): DISCOVER, OFFER,
 * REQUEST, ACK in virtual time, the lease's addresses taken over by the peer. */
#include <string.h>

#include "netpeer_int.h"

#define BOOTP_LEN 300u     /* RFC 1542 3.2: BOOTP messages are at least 300 bytes */
#define MAGIC 0x63825363u  /* RFC 2131 3: the options' magic cookie */
#define FIRST_RETRY_S 4u   /* RFC 2131 4.1 */
#define CLIENT_PORT 68u
#define SERVER_PORT 67u

enum { DHCPDISCOVER = 1, DHCPOFFER = 2, DHCPREQUEST = 3, DHCPACK = 5, DHCPNAK = 6 };

static const uint8_t broadcast_mac[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

static void put32be(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t get32be(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void dhcp_event(xb_board *b, void *ctx);

/* Sends a DISCOVER or a REQUEST (for the offer in np->dhcp_offer from np->dhcp_server). */
static void dhcp_send(xb_netpeer *np, int type)
{
	uint8_t m[BOOTP_LEN];
	memset(m, 0, sizeof m);
	m[0] = 1; /* BOOTREQUEST */
	m[1] = 1; /* Ethernet */
	m[2] = 6;
	put32be(m + 4, np->dhcp_xid);
	memcpy(m + 28, np->mac, 6); /* chaddr */
	put32be(m + 236, MAGIC);
	uint8_t *o = m + 240;
	*o++ = 53, *o++ = 1, *o++ = (uint8_t)type;
	*o++ = 61, *o++ = 7, *o++ = 1; /* client identifier: hardware type 1, the MAC */
	memcpy(o, np->mac, 6), o += 6;
	if (type == DHCPREQUEST) {
		*o++ = 50, *o++ = 4;
		memcpy(o, np->dhcp_offer, 4), o += 4;
		*o++ = 54, *o++ = 4;
		memcpy(o, np->dhcp_server, 4), o += 4;
	}
	*o++ = 55, *o++ = 3, *o++ = 1, *o++ = 3, *o++ = 6; /* mask, router, DNS */
	*o++ = 255;
	xb_netpeer_addr src = {{0}, {0, 0, 0, 0}}, dst = {{0}, {255, 255, 255, 255}};
	memcpy(src.mac, np->mac, 6);
	memcpy(dst.mac, broadcast_mac, 6);
	uint8_t f[XB_NETPEER_MAX_FRAME];
	size_t n = netpeer_build_udp(f, sizeof f, &src, &dst, ++np->ip_id, CLIENT_PORT, SERVER_PORT,
				     m, sizeof m);
	if (netpeer_send_frame(np, f, n) == 0) {
		np->stats.dhcp_sent++;
		np->stats.tx_frames++;
	} else {
		np->stats.tx_refused++;
	}
	/* The retransmission: 4 s after the first, then doubling. */
	uint64_t wait_s = (uint64_t)FIRST_RETRY_S << (np->dhcp_tries < 4 ? np->dhcp_tries : 4);
	np->dhcp_tries++;
	if (np->dhcp_event)
		board_cancel(np->b, np->dhcp_event);
	np->dhcp_event = board_schedule(np->b, board_cycles(np->b) + wait_s * board_cpu_hz(np->b),
					dhcp_event, np);
}

static void dhcp_start(xb_netpeer *np)
{
	np->dhcp_state = XB_NETPEER_DHCP_SELECTING;
	np->dhcp_tries = 0;
	np->dhcp_xid++;
	dhcp_send(np, DHCPDISCOVER);
}

static void dhcp_event(xb_board *b, void *ctx)
{
	(void)b;
	xb_netpeer *np = ctx;
	np->dhcp_event = 0;
	if (!np->link || (np->dhcp_state != XB_NETPEER_DHCP_SELECTING &&
			  np->dhcp_state != XB_NETPEER_DHCP_REQUESTING))
		return;
	if (np->dhcp_tries >= np->opt.dhcp_tries) {
		np->dhcp_state = XB_NETPEER_DHCP_FAILED; /* the configured addresses stay */
		netpeer_resolve(np);
		return;
	}
	dhcp_send(np, np->dhcp_state == XB_NETPEER_DHCP_SELECTING ? DHCPDISCOVER : DHCPREQUEST);
}

int netpeer_dhcp_link_up(xb_netpeer *np)
{
	if (!np->opt.dhcp)
		return 0;
	if (np->dhcp_state == XB_NETPEER_DHCP_BOUND)
		return 0; /* the lease still holds */
	/* The transaction ID: fixed per peer (its MAC), one more per start. */
	if (!np->dhcp_xid)
		np->dhcp_xid = get32be(np->mac + 2) ^ 0x78620000u;
	dhcp_start(np);
	return 1;
}

void netpeer_dhcp_stop(xb_netpeer *np)
{
	if (np->dhcp_event)
		board_cancel(np->b, np->dhcp_event);
	np->dhcp_event = 0;
	if (np->dhcp_state == XB_NETPEER_DHCP_SELECTING ||
	    np->dhcp_state == XB_NETPEER_DHCP_REQUESTING)
		np->dhcp_state = XB_NETPEER_DHCP_OFF;
}

void netpeer_dhcp_input(xb_netpeer *np, const xb_netpeer_packet *p)
{
	const uint8_t *m = p->payload;
	size_t n = p->payload_len;
	if (!np->opt.dhcp || n < 240 || m[0] != 2 || get32be(m + 4) != np->dhcp_xid ||
	    memcmp(m + 28, np->mac, 6) != 0 || get32be(m + 236) != MAGIC) {
		np->stats.dhcp_ignored++;
		return;
	}
	int type = 0;
	uint8_t server[4] = {0}, mask[4] = {0};
	int have_server = 0, have_mask = 0;
	uint32_t lease = 0;
	for (size_t i = 240; i < n;) {
		uint8_t code = m[i];
		if (code == 255)
			break;
		if (code == 0) {
			i++;
			continue;
		}
		if (i + 2 > n || i + 2 + m[i + 1] > n)
			break;
		const uint8_t *v = m + i + 2;
		uint8_t len = m[i + 1];
		if (code == 53 && len == 1)
			type = v[0];
		else if (code == 54 && len == 4)
			memcpy(server, v, 4), have_server = 1;
		else if (code == 1 && len == 4)
			memcpy(mask, v, 4), have_mask = 1;
		else if (code == 51 && len == 4)
			lease = get32be(v);
		i += 2u + len;
	}
	if (type == DHCPOFFER && np->dhcp_state == XB_NETPEER_DHCP_SELECTING && have_server) {
		np->stats.dhcp_offers++;
		memcpy(np->dhcp_offer, m + 16, 4); /* yiaddr */
		memcpy(np->dhcp_server, server, 4);
		np->dhcp_state = XB_NETPEER_DHCP_REQUESTING;
		np->dhcp_tries = 0;
		dhcp_send(np, DHCPREQUEST);
		return;
	}
	if (type == DHCPACK && np->dhcp_state == XB_NETPEER_DHCP_REQUESTING &&
	    memcmp(m + 16, np->dhcp_offer, 4) == 0) {
		np->stats.dhcp_acks++;
		if (np->dhcp_event)
			board_cancel(np->b, np->dhcp_event);
		np->dhcp_event = 0;
		np->dhcp_state = XB_NETPEER_DHCP_BOUND;
		np->dhcp_lease = lease;
		memcpy(np->opt.ip, np->dhcp_offer, 4);
		if (have_mask) {
			memcpy(np->dhcp_mask, mask, 4);
			memcpy(np->opt.netmask, mask, 4);
		}
		if (!np->opt.device_ip_set)
			memcpy(np->opt.device_ip, np->dhcp_server, 4);
		netpeer_resolve(np);
		return;
	}
	if (type == DHCPNAK && np->dhcp_state == XB_NETPEER_DHCP_REQUESTING) {
		np->stats.dhcp_naks++;
		dhcp_start(np);
		return;
	}
	np->stats.dhcp_ignored++;
}

enum xb_netpeer_dhcp_state netpeer_dhcp_state(const xb_netpeer *np)
{
	return (enum xb_netpeer_dhcp_state)np->dhcp_state;
}

int netpeer_dhcp_lease(const xb_netpeer *np, uint8_t ip[4], uint8_t server[4],
		       uint8_t mask[4], uint32_t *lease_s)
{
	if (np->dhcp_state != XB_NETPEER_DHCP_BOUND)
		return -1;
	if (ip)
		memcpy(ip, np->dhcp_offer, 4);
	if (server)
		memcpy(server, np->dhcp_server, 4);
	if (mask)
		memcpy(mask, np->opt.netmask, 4);
	if (lease_s)
		*lease_s = np->dhcp_lease;
	return 0;
}

const uint8_t *netpeer_netmask(const xb_netpeer *np)
{
	return np->opt.netmask;
}
