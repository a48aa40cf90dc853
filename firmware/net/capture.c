/* capture.c: the packet flight recorder: a ring of the first bytes of recent frames. */
#include "drivers/console.h"
#include "net/capture.h"
#include "net/net_if.h"
#include "net/net_pkt.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_capture, LOG_LEVEL_WRN);

struct net_capture_ring net_capture_ring;

void net_capture_init(void)
{
	net_capture_ring.magic = NET_CAPTURE_MAGIC;
	net_capture_ring.enabled = true;
}

static uint8_t iface_index(const struct net_if *iface)
{
	for (int i = 0; i < net_if_count(); i++)
		if (net_if_get(i) == iface)
			return (uint8_t)i;
	return 0xFF;
}

void net_capture_pkt(struct net_if *iface, struct net_pkt *pkt, enum net_capture_dir dir)
{
	struct net_capture_ring *r = &net_capture_ring;
	if (!r->enabled)
		return;
	unsigned key = irq_lock();
	struct net_capture_record *rec = &r->rec[r->head % NET_CAPTURE_RECORDS];
	r->head++;
	irq_unlock(key);

	size_t len = net_pkt_get_len(pkt);
	size_t snap = MIN(len, (size_t)NET_CAPTURE_SNAPLEN);
	struct net_pkt_cursor backup;
	bool overwrite = pkt->overwrite;
	net_pkt_cursor_backup(pkt, &backup);
	if (net_pkt_seek(pkt, 0) || net_pkt_read(pkt, rec->data, snap))
		r->dropped++;
	net_pkt_cursor_restore(pkt, &backup);
	net_pkt_set_overwrite(pkt, overwrite);
	rec->timestamp_us = k_cycle_get_32();
	rec->len = (uint16_t)len;
	rec->dir = (uint8_t)dir;
	rec->iface = iface_index(iface);
}

void net_capture_enable(bool on)
{
	net_capture_ring.enabled = on;
}

void net_capture_dump(void)
{
	struct net_capture_ring *r = &net_capture_ring;
	uint32_t n = MIN(r->head, (uint32_t)NET_CAPTURE_RECORDS);
	printk("capture: %u frames seen, last %u:\r\n", (unsigned)r->head, (unsigned)n);
	for (uint32_t i = r->head - n; i != r->head; i++) {
		const struct net_capture_record *rec = &r->rec[i % NET_CAPTURE_RECORDS];
		printk("  %10u us %s if%u %4u bytes:", (unsigned)rec->timestamp_us,
		       rec->dir == NET_CAPTURE_RX ? "rx" : "tx", rec->iface, rec->len);
		for (unsigned j = 0; j < MIN(rec->len, (uint16_t)24); j++)
			printk(" %02x", rec->data[j]);
		printk("\r\n");
	}
}
