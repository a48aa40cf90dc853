/* fw.h: shared declarations of the xipbench test firmware, a USB CDC-ECM network device. */
#ifndef FW_H
#define FW_H

#include <stddef.h>
#include <stdint.h>

#define REG32(a) (*(volatile uint32_t *)(uintptr_t)(a))
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* libc-like helpers (app/string.c) */
void *memcpy(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);

/* kernel */
struct k_thread {
	struct k_thread *next;
	uint32_t *sp;
	uint8_t prio, state;
	uint32_t wake_at;
	const char *name;
};
struct k_sem {
	uint32_t count, limit;
	struct k_thread *waitq;
};
struct k_timeout {
	struct k_timeout *next;
	uint32_t expires;
	void (*fn)(struct k_timeout *t);
};
struct k_work {
	struct k_work *next;
	void (*handler)(struct k_work *w);
	uint8_t pending;
};
enum { K_READY = 0, K_PENDING = 1, K_SLEEPING = 2 };
#define K_FOREVER (-1)
#define K_NO_WAIT 0

void k_sched_init(void);
void k_sched_add(struct k_thread *t);
struct k_thread *k_sched_next(void);
struct k_thread *k_current(void);
void k_sched_ready(struct k_thread *t);
void k_sched_pend(struct k_thread *t, struct k_thread **waitq);
void k_yield(void);
void k_sem_init(struct k_sem *s, uint32_t initial, uint32_t limit);
int k_sem_take(struct k_sem *s, int32_t timeout_ms);
void k_sem_give(struct k_sem *s);
uint32_t k_sem_count(const struct k_sem *s);
void k_timeout_add(struct k_timeout *t, uint32_t delay_ms, void (*fn)(struct k_timeout *t));
void k_timeout_abort(struct k_timeout *t);
void k_timeout_tick(uint32_t now_ms);
uint32_t k_uptime_ms(void);
void k_work_submit(struct k_work *w);
void k_work_run(void);
void k_fatal(const char *what, uint32_t value) __attribute__((cold, noreturn));

/* drivers: RP2040 USB device controller and timer */
typedef void (*udc_ep_cb)(uint8_t ep, const uint8_t *data, uint16_t len);
void udc_init(void);
int udc_ep_configure(uint8_t ep, uint8_t type, uint16_t mps, udc_ep_cb cb);
int udc_ep_write(uint8_t ep, const uint8_t *data, uint16_t len);
void udc_ep_stall(uint8_t ep);
void udc_set_address(uint8_t addr);
void udc_isr(void);
void udc_setup_handler(void (*fn)(const uint8_t *setup));
uint32_t timer_now_us(void);
void timer_isr(void);
void timer_arm(uint32_t at_us);

/* net */
#define NET_BUF_SIZE 1536
struct net_buf {
	struct net_buf *next;
	uint8_t *data;
	uint16_t len, size;
	uint8_t ref, flags;
	uint8_t storage[NET_BUF_SIZE];
};
struct net_buf *net_buf_alloc(int32_t timeout_ms);
void net_buf_unref(struct net_buf *b);
struct net_buf *net_buf_ref(struct net_buf *b);
void net_buf_reserve(struct net_buf *b, size_t headroom);
uint8_t *net_buf_add(struct net_buf *b, size_t n);
uint8_t *net_buf_push(struct net_buf *b, size_t n);
uint8_t *net_buf_pull(struct net_buf *b, size_t n);
size_t net_buf_headroom(const struct net_buf *b);
void net_buf_put(struct net_buf **fifo, struct net_buf *b);
struct net_buf *net_buf_get(struct net_buf **fifo);

struct net_if {
	uint8_t mac[6];
	uint32_t ipaddr, netmask, gateway;
	uint32_t rx_packets, tx_packets, rx_dropped, tx_dropped;
	int (*send)(struct net_if *iface, struct net_buf *b);
};
extern struct net_if net_default_if;
uint32_t net_chksum_impl(const uint8_t *p, size_t n, uint32_t sum);
uint32_t net_calc_chksum(const uint8_t *p, size_t n, uint32_t sum);
uint16_t net_chksum_finish(uint32_t sum);
uint32_t net_pseudo_hdr_sum(uint32_t src, uint32_t dst, uint8_t proto, uint16_t len);
void net_if_init(struct net_if *iface, const uint8_t mac[6], uint32_t ip, uint32_t mask);
void net_recv_data(struct net_if *iface, struct net_buf *b);
void net_process(void);
int ethernet_input(struct net_if *iface, struct net_buf *b);
int ethernet_output(struct net_if *iface, struct net_buf *b, const uint8_t dst[6], uint16_t type);
int arp_input(struct net_if *iface, struct net_buf *b);
int arp_resolve(struct net_if *iface, uint32_t ip, uint8_t mac[6]);
void arp_update(uint32_t ip, const uint8_t mac[6]);
void arp_timer(uint32_t now_ms);
int ipv4_input(struct net_if *iface, struct net_buf *b);
int ipv4_output(struct net_if *iface, struct net_buf *b, uint32_t dst, uint8_t proto);
void ipv4_stats_dump(void);
int icmp_input(struct net_if *iface, struct net_buf *b, uint32_t src, uint32_t dst);
int udp_input(struct net_if *iface, struct net_buf *b, uint32_t src, uint32_t dst);
typedef void (*udp_handler)(struct net_if *iface, struct net_buf *b, uint32_t src, uint16_t sport);
int udp_bind(uint16_t port, udp_handler fn);
int udp_sendto(struct net_if *iface, struct net_buf *b, uint32_t dst, uint16_t sport, uint16_t dport);
uint32_t net_stats_get(int which);

/* usb device stack */
struct usb_setup {
	uint8_t bmRequestType, bRequest;
	uint16_t wValue, wIndex, wLength;
};
const uint8_t *usb_get_descriptor(uint8_t type, uint8_t index, uint16_t *len);
void usb_init(void);
void usb_handle_setup(const uint8_t *raw);
int usb_is_configured(void);
void cdc_ecm_init(struct net_if *iface);
void cdc_ecm_bulk_out(uint8_t ep, const uint8_t *data, uint16_t len);
int cdc_ecm_send(struct net_if *iface, struct net_buf *b);
void cdc_ecm_notify(int connected);

/* generated filler code, one chain per library (tests/data/gen-filler.awk) */
uint32_t app_gen_00(uint32_t x);
uint32_t kernel_gen_00(uint32_t x);
uint32_t drivers_gen_00(uint32_t x);
uint32_t net_gen_00(uint32_t x);
uint32_t usb_gen_00(uint32_t x);

#endif
