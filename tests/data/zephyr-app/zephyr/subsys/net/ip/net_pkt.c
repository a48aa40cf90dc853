/* Network packets (subsys/net/ip/net_pkt.c). */
#include <stdint.h>
#include <stddef.h>
struct net_pkt { uint8_t data[128]; uint16_t len, pos; uint8_t ref; };
static struct net_pkt pool[4];

struct net_pkt *net_pkt_alloc(void)
{
	for (int i = 0; i < 4; i++)
		if (!pool[i].ref) {
			pool[i].ref = 1;
			pool[i].len = pool[i].pos = 0;
			return &pool[i];
		}
	return NULL;
}

void net_pkt_unref(struct net_pkt *pkt) { if (pkt && pkt->ref) pkt->ref--; }

int net_pkt_read(struct net_pkt *pkt, void *buf, size_t n)
{
	uint8_t *b = buf;
	if (pkt->pos + n > pkt->len)
		return -1;
	for (size_t i = 0; i < n; i++)
		b[i] = pkt->data[pkt->pos++];
	return 0;
}

int net_pkt_write(struct net_pkt *pkt, const void *buf, size_t n)
{
	const uint8_t *b = buf;
	if (pkt->len + n > sizeof pkt->data)
		return -1;
	for (size_t i = 0; i < n; i++)
		pkt->data[pkt->len++] = b[i];
	return 0;
}
