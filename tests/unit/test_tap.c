/* test_tap: the TAP side of the virtual host (sim/tap.h) without a TAP: a datagram
 * socketpair stands for /dev/net/tun (one frame per datagram, both ways) beside the
 * network peer of a virtual bench running the test device of tests/data/netdev: frames
 * dropped while the link is down, the link callback with the peer's MAC, the device's own
 * ARP request coming out, ARP, ICMP and UDP from "the kernel" answered through it, the
 * peer's own pings measured as before meanwhile; the one-shot vbench hook and the free
 * hook; namespace names and the refusals of tap_netns_open (a missing namespace, a file
 * that is not one, the initial namespace). The TAP itself, in a namespace, is
 * tests/integration/test_tap.sh's. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "../../sim/tap.h"
#include "../../sim/vbench.h"
#include "../common/testdir.h"
#include "test_pico_common.h"

#define MS 125000u

static const uint8_t HOST_IP[4] = {192, 0, 2, 2};
static const uint8_t DEV_IP[4] = {192, 0, 2, 1};
static const uint8_t BCAST[6] = {0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF};

typedef struct rig {
	xb_pico *p;
	xb_vbench *v;
	int sv[2]; /* [0] the port's, [1] "the kernel's" */
	xb_tap_port *port;
	xb_tap_stats stats;
	int links, link_up;
	uint8_t link_mac[6];
} rig;

static void on_link(void *ctx, int up, const uint8_t mac[6])
{
	rig *g = ctx;
	g->links++;
	g->link_up = up;
	memcpy(g->link_mac, mac, 6);
}

static void rig_open(rig *g)
{
	memset(g, 0, sizeof *g);
	g->p = tp_pico(NULL, 0);
	xb_err err;
	assert_int_equal(pico_load_file(g->p, tp_netdev_elf(), XB_IMAGE_AUTO, 0, NULL, &err), 0);
	g->v = vbench_new(g->p, NULL);
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, g->sv), 0);
	xb_tap_port_options o = {.poll_us = 100, .link = on_link, .link_ctx = g, .stats = &g->stats};
	g->port = tap_port_new(g->sv[0], vbench_peer(g->v), vbench_board(g->v), &o);
}

static void rig_close(rig *g)
{
	tap_port_free(g->port);
	vbench_free(g->v);
	pico_free(g->p);
	close(g->sv[0]);
	close(g->sv[1]);
}

/* The next frame out of the port of the given EtherType (others are skipped), or 0. */
static size_t next_frame(rig *g, uint16_t type, uint8_t *buf, size_t cap)
{
	for (;;) {
		ssize_t n = recv(g->sv[1], buf, cap, MSG_DONTWAIT);
		if (n < 0)
			return 0;
		if (n >= 14 && (buf[12] << 8 | buf[13]) == type)
			return (size_t)n;
	}
}

static void host_addr(const rig *g, xb_netpeer_addr *host, xb_netpeer_addr *dev)
{
	memcpy(host->mac, netpeer_mac(vbench_peer(g->v)), 6);
	memcpy(host->ip, HOST_IP, 4);
	memcpy(dev->mac, netpeer_device_mac(vbench_peer(g->v)), 6);
	memcpy(dev->ip, DEV_IP, 4);
}

static void test_frames_through_a_port(void **state)
{
	(void)state;
	rig g;
	rig_open(&g);
	uint8_t f[1600];
	/* before the link: what "the kernel" writes is dropped */
	memset(f, 0, 60);
	assert_int_equal(send(g.sv[1], f, 60, 0), 60);
	assert_int_equal(vbench_run_to(g.v, board_cycles(vbench_board(g.v)) + MS), 0);
	assert_int_equal(g.stats.dropped, 1);
	assert_int_equal(g.stats.to_device, 0);

	xb_err err;
	assert_int_equal(vbench_bring_up(g.v, 5000 * MS, &err), 0);
	assert_int_equal(vbench_run_to(g.v, board_cycles(vbench_board(g.v)) + MS), 0);
	assert_int_equal(g.links, 1);
	assert_int_equal(g.link_up, 1);
	assert_memory_equal(g.link_mac, netpeer_mac(vbench_peer(g.v)), 6);
	/* the device's frames came out: its answer to the peer's ARP request */
	assert_true(g.stats.from_device >= 1);
	size_t n = next_frame(&g, 0x0806, f, sizeof f);
	assert_true(n >= 42);

	/* "the kernel" asks for the device's MAC and pings it */
	xb_netpeer_addr host, dev, unknown;
	host_addr(&g, &host, &dev);
	unknown = dev;
	memset(unknown.mac, 0, 6);
	while (next_frame(&g, 0x0806, f, sizeof f) || next_frame(&g, 0x0800, f, sizeof f))
		; /* drain */
	n = netpeer_build_arp(f, sizeof f, 1, &host, &unknown, BCAST);
	assert_int_equal(send(g.sv[1], f, n, 0), (ssize_t)n);
	uint8_t data[56];
	for (int i = 0; i < 56; i++)
		data[i] = (uint8_t)(i * 3);
	n = netpeer_build_icmp_echo(f, sizeof f, &host, &dev, 77, 8, 0x4242, 9, data, sizeof data);
	assert_int_equal(send(g.sv[1], f, n, 0), (ssize_t)n);
	n = netpeer_build_udp(f, sizeof f, &host, &dev, 78, 41000, 7, data, 20);
	assert_int_equal(send(g.sv[1], f, n, 0), (ssize_t)n);
	/* meanwhile, the peer's own pings */
	xb_vbench_phase ph;
	memset(&ph, 0, sizeof ph);
	ph.kind = XB_NETPEER_ICMP;
	ph.count = 5;
	ph.size = 56;
	ph.interval = 5 * MS;
	vbench_phase_window(&ph, 125000000u);
	ph.no_idle = 1;
	assert_int_equal(vbench_phase_run(g.v, &ph, &err), 0);
	assert_int_equal(ph.sum.received, 5);
	assert_int_equal(ph.sum.failed, 0);
	xb_netpeer_stats ps;
	netpeer_stats(vbench_peer(g.v), &ps);
	assert_int_equal(ps.tx_errors, 0);
	assert_int_equal(g.stats.to_device, 3);

	/* the answers came out of the port */
	int arp = 0, icmp = 0, udp = 0;
	uint8_t r[1600];
	ssize_t k;
	while ((k = recv(g.sv[1], r, sizeof r, MSG_DONTWAIT)) > 0) {
		xb_netpeer_packet p;
		if (netpeer_parse(r, (size_t)k, &p) != XB_NETPEER_PARSE_OK)
			continue;
		if (p.kind == XB_NETPEER_ARP && p.arp_op == 2 && memcmp(p.arp_spa, DEV_IP, 4) == 0)
			arp++;
		if (p.kind == XB_NETPEER_ICMP && p.icmp_type == 0 && p.icmp_id == 0x4242 &&
		    p.icmp_seq == 9) {
			assert_int_equal(p.payload_len, 56);
			assert_memory_equal(p.payload, data, 56);
			icmp++;
		}
		if (p.kind == XB_NETPEER_UDP && p.udp_sport == 7 && p.udp_dport == 41000) {
			assert_int_equal(p.payload_len, 20);
			udp++;
		}
	}
	assert_true(arp >= 1);
	assert_int_equal(icmp, 1);
	assert_int_equal(udp, 1);
	assert_int_equal(g.stats.write_errors, 0);
	rig_close(&g);
}

/* ---- Hooks ---- */

static int hooked, freed;

static void hook(void *ctx, xb_vbench *v)
{
	(void)ctx;
	hooked++;
	vbench_on_free(v, (void (*)(void *))free, xmalloc(16));
	freed = 0;
}

static void count_free(void *ctx)
{
	(void)ctx;
	freed++;
}

static void test_vbench_hooks(void **state)
{
	(void)state;
	xb_pico *p = tp_pico(NULL, 0);
	hooked = 0;
	vbench_hook_next(hook, NULL);
	xb_vbench *a = vbench_new(p, NULL);
	assert_int_equal(hooked, 1);
	vbench_free(a); /* frees the hook's allocation (ASan would see a leak otherwise) */
	xb_vbench *b = vbench_new(p, NULL);
	assert_int_equal(hooked, 1); /* one shot */
	vbench_on_free(b, count_free, NULL);
	vbench_free(b);
	assert_int_equal(freed, 1);
	pico_free(p);
}

/* ---- Namespaces ---- */

static void test_netns_refusals(void **state)
{
	(void)state;
	char path[64];
	assert_int_equal(tap_netns_path("lab", path, sizeof path), 0);
	assert_string_equal(path, "/run/netns/lab");
	assert_int_equal(tap_netns_path("/proc/123/ns/net", path, sizeof path), 0);
	assert_string_equal(path, "/proc/123/ns/net");
	assert_int_equal(tap_netns_path("a-rather-long-name-for-such-a-small-buffer-here", path, 16),
			 -1);

	xb_err err;
	int fd = -1;
	assert_int_equal(tap_netns_open("xipbench-no-such-ns", &fd, &err), -1);
	assert_non_null(strstr(err.msg, "does not exist"));
	assert_non_null(strstr(err.msg, "ip netns add xipbench-no-such-ns"));
	char file[128];
	snprintf(file, sizeof file, "%s/plain", test_dir);
	int f = open(file, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_true(f >= 0);
	close(f);
	assert_int_equal(tap_netns_open(file, &fd, &err), -1);
	assert_non_null(strstr(err.msg, "is not a network namespace"));
	/* the host's own namespace is never one for a TAP, nor (when the initial one cannot be
	 * told) the one xipbench runs in */
	assert_int_equal(tap_netns_open("/proc/self/ns/net", &fd, &err), -1);
	assert_true(strstr(err.msg, "initial network namespace") ||
		    strstr(err.msg, "the network namespace xipbench runs in"));
	if (tap_netns_open("/proc/1/ns/net", &fd, &err) == 0)
		fail_msg("PID 1's namespace was taken");
	assert_int_equal(tap_netns_create("a/b", &err), -1);
	assert_non_null(strstr(err.msg, "not a network namespace name"));
	xb_tap_options o = {.name = "this-name-is-too-long", .netns = "x", .prefix = 24};
	assert_null(tap_open(&o, &err));
	assert_non_null(strstr(err.msg, "not an interface name"));
	o.name = "xbt0";
	o.prefix = 31;
	assert_null(tap_open(&o, &err));
	assert_non_null(strstr(err.msg, "prefix length /31"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_frames_through_a_port),
		cmocka_unit_test(test_vbench_hooks),
		cmocka_unit_test(test_netns_refusals),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
