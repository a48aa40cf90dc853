/* test_usbnet: the virtual host as a Linux host meets USB network devices. With the device
 * program tests/data/usb/usbnet_dev.c: usb_choose_configuration's pick between an RNDIS first
 * configuration and CDC-ECM second (with TinyUSB's RNDIS class triple and with the CDC one),
 * the RNDIS and CDC-NCM drivers' bring-up and framing, pings and UDP echoes over ECM, RNDIS
 * and NCM, the DHCP client taking a lease from the device's server and using it, IPv6 from
 * the device dropped without errors, and the usbmon captures of each decoded by
 * `xipbench capture frames`. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../sim/ncmhost.h"
#include "../../sim/netpeer.h"
#include "../../sim/pico.h"
#include "../../sim/rndishost.h"
#include "../../sim/usbhost.h"
#include "../../sim/usbmon.h"
#include "test_sim_common.h"
#include "test_usb_common.h"

#define MS 125000u

enum { IN_MODE = 0, IN_RNDIS_CLASS, IN_DHCP, IN_IPV6 };
enum { MB_CONFIG = 1, MB_PROTO, MB_FRAMES, MB_ARP, MB_ICMP, MB_UDP, MB_DHCP_OFFERS,
       MB_DHCP_ACKS, MB_IPV6, MB_RNDIS_MSGS, MB_BAD, MB_NTB_IN_SIZE, MB_STALLS, MB_LINK,
       MB_RNDIS_FILTER };
enum { PROTO_ECM = 1, PROTO_RNDIS, PROTO_NCM };

typedef struct rig {
	xb_pico *pico;
	xb_usbhost *h;
	xb_netpeer *np;
	xb_usbmon *mon;
	FILE *pcap;
	char path[1200];
	sim_log log;
} rig;

/* in: IN_MODE, IN_RNDIS_CLASS, IN_DHCP, IN_IPV6; dhcp: the peer runs its client. */
static void rig_open(rig *r, const char *name, const uint32_t in[4], int dhcp)
{
	memset(r, 0, sizeof *r);
	r->pico = usb_rig_pico(&r->log);
	const char *build = getenv("XB_BUILD");
	snprintf(r->path, sizeof r->path, "%s/usbnet-%s.pcap", build && *build ? build : "build",
		 name);
	r->pcap = fopen(r->path, "wb");
	assert_non_null(r->pcap);
	r->mon = usbmon_new(r->pcap, NULL);
	r->h = usb_rig_host(r->pico, NULL, r->mon);
	xb_netpeer_options po;
	netpeer_options_init(&po);
	po.dhcp = dhcp;
	r->np = netpeer_new_ecm(pico_board(r->pico), r->h, NULL, &po);
	usb_rig_load_program(r->pico, "usbnet_dev", in, 16);
}

static void rig_close(rig *r)
{
	netpeer_free(r->np);
	usbhost_free(r->h);
	pico_free(r->pico);
	assert_false(usbmon_write_failed(r->mon));
	usbmon_free(r->mon);
	fclose(r->pcap);
}

static uint32_t mb(rig *r, unsigned i)
{
	return sim_mailbox(pico_board(r->pico), i);
}

static void run(rig *r, uint64_t cycles)
{
	usb_rig_run(r->pico, cycles, &r->log);
}

static void ready(rig *r)
{
	for (unsigned ms = 0; ms < 3000; ms++) {
		if (netpeer_link(r->np) && netpeer_device_mac(r->np))
			return;
		run(r, MS);
	}
	fail_msg("not ready: USB %s, class %s, link %d; log: %s",
		 usbhost_state_name(usbhost_state(r->h)),
		 netpeer_usb_class(r->np) ? netpeer_usb_class(r->np) : "none", netpeer_link(r->np),
		 r->log.all);
}

/* count pings of 56 bytes and count UDP echoes of 64 bytes, all must be answered. */
static void echo_all(rig *r, unsigned count)
{
	/* the UDP datagrams go half-way between the pings (no NTB holds two) */
	xb_err err;
	uint64_t now = board_cycles(pico_board(r->pico));
	xb_netpeer_ping pg = {.start = now + MS, .interval = 20 * MS, .count = count, .size = 56,
			      .id = 0x7862};
	long first = netpeer_ping(r->np, &pg, &err);
	assert_true(first >= 0);
	xb_netpeer_stream st = {.start = now + 11 * MS, .rate = 50, .count = count, .size = 64,
				.sport = 50000, .dport = 7};
	assert_true(netpeer_udp_stream(r->np, &st, &err) >= 0);
	for (unsigned ms = 0; ms < 40 * count + 500; ms++) {
		if (netpeer_traffic_done(r->np) && !netpeer_outstanding(r->np))
			break;
		run(r, MS);
	}
	xb_netpeer_summary s;
	netpeer_summarize(r->np, (size_t)first, 2 * count, &s);
	assert_int_equal(s.echoes, 2 * count);
	assert_int_equal(s.received, 2 * count);
	assert_int_equal(s.duplicates, 0);
	assert_int_equal(mb(r, MB_ICMP), count);
	assert_int_equal(mb(r, MB_UDP), count);
	assert_int_equal(mb(r, MB_BAD), 0);
	xb_netpeer_stats ps;
	netpeer_stats(r->np, &ps);
	assert_int_equal(ps.rx_errors, 0);
	assert_int_equal(ps.unmatched, 0);
}

/* `xipbench capture frames` on the rig's capture: it must decode cleanly, name the framing
 * and find every frame the peer and the device exchanged, both ways. */
static void capture_decodes(rig *r, const char *proto, unsigned min_frames)
{
	fflush(r->pcap);
	const char *bin = getenv("XIPBENCH");
	char cmd[2600], out[1300];
	snprintf(out, sizeof out, "%s.txt", r->path);
	snprintf(cmd, sizeof cmd, "'%s' capture frames --pcap '%s' > '%s' 2>&1",
		 bin && *bin ? bin : "build/xipbench", r->path, out);
	int rc = system(cmd);
	FILE *f = fopen(out, "r");
	assert_non_null(f);
	static char text[1 << 20];
	size_t n = fread(text, 1, sizeof text - 1, f);
	text[n] = 0;
	fclose(f);
	if (rc != 0)
		fail_msg("capture frames failed: %s", text);
	char want[64];
	snprintf(want, sizeof want, ": %s (from its descriptors)", proto);
	if (!strstr(text, want))
		fail_msg("capture frames did not find %s: %.400s", want, text);
	const char *p = strstr(text, "\nframes ");
	unsigned out_n = 0, in_n = 0, failed = 1;
	assert_non_null(p);
	assert_int_equal(sscanf(p, "\nframes %u out (%*u bytes), %u in (%*u bytes); %*u padded, "
				   "%*u pending, %u failed", &out_n, &in_n, &failed), 3);
	assert_int_equal(failed, 0);
	xb_netpeer_stats ps;
	netpeer_stats(r->np, &ps);
	/* every frame the peer handed over and every frame it received is in the capture */
	assert_int_equal(out_n, ps.tx_frames);
	assert_int_equal(in_n, ps.rx_frames);
	assert_true(out_n >= min_frames && in_n >= min_frames);
}

/* TinyUSB's net_lwip_webserver (ECM/RNDIS build): RNDIS with class 0xE0/1/3 first, ECM
 * second, a DHCP server on 192.168.7.1. Linux's is_rndis does not know that class, so the
 * first configuration is an ordinary class configuration and is chosen: RNDIS. */
static void test_tinyusb_rndis_ecm_dhcp(void **state)
{
	(void)state;
	rig r;
	uint32_t in[4] = {0, 0, 1, 0};
	rig_open(&r, "rndis-dhcp", in, 1);
	ready(&r);
	assert_int_equal(usbhost_num_configs(r.h), 2);
	assert_int_equal(usbhost_choose_configuration(r.h), 1);
	assert_int_equal(usbhost_chosen_configuration(r.h), 1);
	assert_int_equal(mb(&r, MB_CONFIG), 1);
	assert_int_equal(mb(&r, MB_PROTO), PROTO_RNDIS);
	assert_string_equal(netpeer_usb_class(r.np), "RNDIS");
	/* the lease */
	assert_int_equal(netpeer_dhcp_state(r.np), XB_NETPEER_DHCP_BOUND);
	uint8_t ip[4], server[4], mask[4];
	uint32_t lease;
	assert_int_equal(netpeer_dhcp_lease(r.np, ip, server, mask, &lease), 0);
	static const uint8_t want_ip[4] = {192, 168, 7, 2}, want_dev[4] = {192, 168, 7, 1};
	static const uint8_t want_mask[4] = {255, 255, 255, 0};
	assert_memory_equal(ip, want_ip, 4);
	assert_memory_equal(server, want_dev, 4);
	assert_memory_equal(mask, want_mask, 4);
	assert_int_equal(lease, 86400);
	assert_memory_equal(netpeer_ip(r.np), want_ip, 4);
	assert_memory_equal(netpeer_device_ip(r.np), want_dev, 4);
	assert_int_equal(mb(&r, MB_DHCP_OFFERS), 1);
	assert_int_equal(mb(&r, MB_DHCP_ACKS), 1);
	xb_netpeer_stats ps;
	netpeer_stats(r.np, &ps);
	assert_int_equal(ps.dhcp_sent, 2);
	assert_int_equal(ps.dhcp_offers, 1);
	assert_int_equal(ps.dhcp_acks, 1);
	/* the RNDIS bring-up: INITIALIZE, two QUERYs, SET */
	xb_rndishost_info ri;
	rndishost_info(netpeer_rndis(r.np), &ri);
	assert_int_equal(ri.commands, 4);
	assert_int_equal(ri.init_max_transfer, 1580);
	assert_int_equal(ri.medium, 0);
	assert_false(ri.failed);
	assert_int_equal(mb(&r, MB_RNDIS_MSGS), 4);
	assert_int_equal(mb(&r, MB_RNDIS_FILTER), 0x2D);
	/* a locally administered address: Linux picks a random one, the peer its default */
	assert_null(rndishost_mac(netpeer_rndis(r.np)));
	echo_all(&r, 5);
	capture_decodes(&r, "RNDIS", 12);
	rig_close(&r);
}

/* The same two configurations with RNDIS as class 2/2/0xFF: generic.c passes over it. */
static void test_cdc_rndis_first_gets_ecm(void **state)
{
	(void)state;
	rig r;
	uint32_t in[4] = {0, 1, 0, 0};
	rig_open(&r, "ecm", in, 0);
	ready(&r);
	assert_int_equal(usbhost_num_configs(r.h), 2);
	assert_int_equal(usbhost_chosen_configuration(r.h), 2);
	assert_int_equal(mb(&r, MB_CONFIG), 2);
	assert_int_equal(mb(&r, MB_PROTO), PROTO_ECM);
	assert_string_equal(netpeer_usb_class(r.np), "CDC-ECM");
	assert_int_equal(netpeer_dhcp_state(r.np), XB_NETPEER_DHCP_OFF);
	echo_all(&r, 5);
	capture_decodes(&r, "CDC-ECM", 11);
	rig_close(&r);
}

/* A CDC-ECM function that never notifies (Zephyr's legacy one): cdc_ether's carrier is on
 * once the interface is open, so it is reached all the same. */
static void test_ecm_without_notifications(void **state)
{
	(void)state;
	rig r;
	uint32_t in[4] = {0x203, 0, 0, 0};
	rig_open(&r, "ecm-silent", in, 0);
	ready(&r);
	assert_string_equal(netpeer_usb_class(r.np), "CDC-ECM");
	echo_all(&r, 3);
	xb_ecmhost_stats es;
	ecmhost_stats(netpeer_ecm(r.np), &es);
	assert_int_equal(es.notifications, 0);
	rig_close(&r);
}

/* An RNDIS-only device with the CDC class triple: the only configuration is taken. */
static void test_rndis_only(void **state)
{
	(void)state;
	rig r;
	uint32_t in[4] = {1, 1, 0, 0};
	rig_open(&r, "rndis", in, 0);
	ready(&r);
	assert_int_equal(usbhost_num_configs(r.h), 1);
	assert_int_equal(usbhost_chosen_configuration(r.h), 1);
	assert_int_equal(mb(&r, MB_PROTO), PROTO_RNDIS);
	assert_string_equal(netpeer_usb_class(r.np), "RNDIS");
	echo_all(&r, 4);
	xb_ecmhost_stats es;
	rndishost_stats(netpeer_rndis(r.np), &es);
	assert_int_equal(es.rx_errors, 0);
	assert_true(es.tx_frames >= 8);
	rig_close(&r);
}

/* An RNDIS function that refuses the packet filter: rndis_host halts it and gives up, and
 * the peer says which message failed. */
static void test_rndis_refused(void **state)
{
	(void)state;
	rig r;
	uint32_t in[4] = {0x101, 1, 0, 0};
	rig_open(&r, "rndis-refused", in, 0);
	for (unsigned ms = 0; ms < 1500; ms++)
		run(&r, MS);
	xb_rndishost_info ri;
	rndishost_info(netpeer_rndis(r.np), &ri);
	assert_true(ri.failed);
	assert_int_equal(ri.commands, 5); /* INITIALIZE, two QUERYs, SET, HALT */
	assert_null(netpeer_usb_class(r.np));
	char why[256];
	assert_int_equal(netpeer_usb_trouble(r.np, why, sizeof why), 1);
	assert_string_equal(why, "rndis_host: REMOTE_NDIS_SET_MSG (OID_GEN_CURRENT_PACKET_FILTER) "
				 "was answered with an error status");
	rig_close(&r);
}

/* CDC-NCM: NTB parameters taken, no SET_NTB_INPUT_SIZE (2048 stays 2048), a lone frame
 * waits for cdc_ncm's timer: 3 x 400 us. */
static void test_ncm(void **state)
{
	(void)state;
	rig r;
	uint32_t in[4] = {2, 0, 0, 0};
	rig_open(&r, "ncm", in, 0);
	ready(&r);
	assert_int_equal(usbhost_chosen_configuration(r.h), 1);
	assert_int_equal(mb(&r, MB_PROTO), PROTO_NCM);
	assert_string_equal(netpeer_usb_class(r.np), "CDC-NCM");
	xb_ncmhost_info ni;
	ncmhost_info(netpeer_ncm(r.np), &ni);
	assert_int_equal(ni.rx_max, 2048);
	assert_int_equal(ni.tx_max, 2048);
	assert_int_equal(ni.set_input_size, 0);
	assert_int_equal(mb(&r, MB_NTB_IN_SIZE), 0);
	echo_all(&r, 5);
	/* each request was handed over 1.2 ms before its OUT transfer could even start */
	size_t n = netpeer_echoes(r.np);
	for (size_t i = 0; i < n; i++) {
		const xb_netpeer_echo *e = netpeer_echo(r.np, i);
		assert_true(e->out_done_set);
		if (e->out_done - e->sent < 1200u * (MS / 1000u))
			fail_msg("echo %zu: out %llu sent %llu", i, (unsigned long long)e->out_done,
				 (unsigned long long)e->sent);
	}
	ncmhost_info(netpeer_ncm(r.np), &ni);
	assert_true(ni.ntbs_out >= 10);
	assert_true(ni.ntbs_in >= 10);
	assert_int_equal(ni.ntb_errors, 0);
	capture_decodes(&r, "CDC-NCM", 11);
	rig_close(&r);
}

/* IPv6 from the device (RS, DAD NS, MLDv2 report): counted, no errors, pings still fine. */
static void test_ipv6_dropped(void **state)
{
	(void)state;
	rig r;
	uint32_t in[4] = {3, 0, 0, 1};
	rig_open(&r, "ipv6", in, 0);
	ready(&r);
	run(&r, 50 * MS);
	assert_int_equal(mb(&r, MB_IPV6), 3);
	xb_netpeer_stats ps;
	netpeer_stats(r.np, &ps);
	assert_int_equal(ps.rx_ipv6, 3);
	assert_int_equal(ps.ipv6_rs, 1);
	assert_int_equal(ps.ipv6_ns, 1);
	assert_int_equal(ps.ipv6_mld, 1);
	assert_int_equal(ps.ipv6_other, 0);
	assert_int_equal(ps.rx_errors, 0);
	echo_all(&r, 3);
	rig_close(&r);
}

/* The rule itself, on descriptors: power above 500 mA skips a configuration. */
static void test_choose_power(void **state)
{
	(void)state;
	rig r;
	uint32_t in[4] = {0, 1, 0, 0};
	rig_open(&r, "power", in, 0);
	ready(&r);
	/* both ask for 100 mA: the ECM one (value 2) is chosen; see the rule with 2/2/FF */
	size_t len;
	const uint8_t *c0 = usbhost_config_at(r.h, 0, &len);
	assert_non_null(c0);
	assert_int_equal(c0[8], 50);
	assert_null(usbhost_config_at(r.h, 2, &len));
	assert_int_equal(len, 0);
	rig_close(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tinyusb_rndis_ecm_dhcp),
		cmocka_unit_test(test_cdc_rndis_first_gets_ecm),
		cmocka_unit_test(test_ecm_without_notifications),
		cmocka_unit_test(test_rndis_only),
		cmocka_unit_test(test_rndis_refused),
		cmocka_unit_test(test_ncm),
		cmocka_unit_test(test_ipv6_dropped),
		cmocka_unit_test(test_choose_power),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
