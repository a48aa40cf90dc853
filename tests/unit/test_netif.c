/* test_netif: what the real bench finds on the host without a board: the board's network
 * interface walked out of a fake sysfs tree built in a temp folder (USB interfaces bound
 * to cdc_ether, rndis_host and cdc_ncm, others left out, sorted), the board's address by
 * the rule of bench_board_ip (point-to-point peer, the only neighbour, /31, /30, the
 * first or second host of a wider subnet, /32 refused) and the neighbours of a fake
 * /proc/net/arp; the probe bench's pings to 127.0.0.1 through whatever ICMP socket the
 * system allows (a datagram socket, or a raw one as root: its checksum must be right);
 * which ICMP socket it takes (as root, in network namespaces of the test's own with
 * net.ipv4.ping_group_range set each way, as root and as another user: datagram, raw,
 * none with the sysctl that allows them), its sockets bound to the host address asked for;
 * and the messages of a live usbmon capture for each missing piece, checked against fake
 * root folders (module, bus, device node without debugfs, permission, all there); a pcap
 * stream (sim serve --pcap - piped to sim measure --capture -) whose every record is seen
 * by poll on its descriptor, none held back in a read-ahead buffer. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <grp.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../capture/source.h"
#include "../../session/bench.h"
#include "../common/testdir.h"

/* mkdir -p of test_dir/rel */
static void mkdirs(const char *rel)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", test_dir, rel);
	for (char *s = p + strlen(test_dir) + 1; *s; s++)
		if (*s == '/') {
			*s = 0;
			mkdir(p, 0755);
			*s = '/';
		}
	mkdir(p, 0755);
}

static void put(const char *rel, const char *text, mode_t mode)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", test_dir, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(p, mode);
}

static void link_to(const char *target, const char *rel)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", test_dir, rel);
	assert_int_equal(symlink(target, p), 0);
}

/* A USB device at sys/devices/usb1/NAME with an interface NAME:1.0 bound to driver and a
 * network interface ifname on it (linked from sys/class/net as in sysfs). */
static void usb_netif(const char *name, const char *vid, const char *pid, const char *driver,
		      const char *ifname)
{
	char rel[256], tgt[256];
	snprintf(rel, sizeof rel, "sys/devices/usb1/%s/%s:1.0/net/%s", name, name, ifname);
	mkdirs(rel);
	snprintf(rel, sizeof rel, "sys/devices/usb1/%s/idVendor", name);
	put(rel, vid, 0644);
	snprintf(rel, sizeof rel, "sys/devices/usb1/%s/idProduct", name);
	put(rel, pid, 0644);
	snprintf(rel, sizeof rel, "sys/bus/usb/drivers/%s", driver);
	mkdirs(rel);
	snprintf(rel, sizeof rel, "sys/devices/usb1/%s/%s:1.0/driver", name, name);
	snprintf(tgt, sizeof tgt, "../../../../bus/usb/drivers/%s", driver);
	link_to(tgt, rel);
	snprintf(rel, sizeof rel, "sys/devices/usb1/%s/%s:1.0/net/%s/device", name, name, ifname);
	link_to("../..", rel);
	snprintf(rel, sizeof rel, "sys/class/net/%s", ifname);
	snprintf(tgt, sizeof tgt, "../../devices/usb1/%s/%s:1.0/net/%s", name, name, ifname);
	link_to(tgt, rel);
}

static void test_netif_find(void **state)
{
	(void)state;
	mkdirs("sys/class/net");
	usb_netif("1-1", "1209\n", "0001\n", "cdc_ether", "usb0");
	usb_netif("1-2", "1209\n", "0001\n", "rndis_host", "enx020000000001");
	usb_netif("1-3", "2e8a\n", "000a\n", "cdc_ncm", "usb2");   /* another device */
	usb_netif("1-4", "1209\n", "0001\n", "asix", "eth1");      /* not a class driver */
	mkdirs("sys/devices/virtual/net/lo");                      /* no device link */
	link_to("../../devices/virtual/net/lo", "sys/class/net/lo");
	char sys[256];
	snprintf(sys, sizeof sys, "%s/sys", test_dir);
	xb_board_netif m[4];
	assert_int_equal(bench_netif_find(sys, 0x1209, 0x0001, m, 4), 2);
	assert_string_equal(m[0].name, "enx020000000001"); /* sorted */
	assert_string_equal(m[0].driver, "rndis_host");
	assert_string_equal(m[0].usb, "1-2:1.0");
	assert_string_equal(m[1].name, "usb0");
	assert_string_equal(m[1].driver, "cdc_ether");
	assert_int_equal(bench_netif_find(sys, 0x2e8a, 0x000a, m, 4), 1);
	assert_string_equal(m[0].name, "usb2");
	assert_string_equal(m[0].driver, "cdc_ncm");
	assert_int_equal(bench_netif_find(sys, 0x2e8a, 0x000c, m, 4), 0);
	assert_int_equal(bench_netif_find(sys, 0x1209, 0x0001, m, 1), 2); /* counts them all */
	char none[256];
	snprintf(none, sizeof none, "%s/nothing", test_dir);
	assert_int_equal(bench_netif_find(none, 0x1209, 0x0001, m, 4), 0);

	/* the probe bench finds usb0 (the first by name here is the rndis one) and, as the
	 * fake interface has no address on this host, keeps the default address */
	xb_probe_bench_options o = {.sysfs = sys, .udp_target = "127.0.0.1:9"};
	xb_report rep;
	report_clear(&rep);
	xb_bench *b = bench_probe_open(&o, &rep);
	assert_non_null(b);
	xb_bench_state st;
	b->ops->state(b, &st);
	assert_non_null(strstr(st.net, "enx020000000001"));
	assert_non_null(strstr(st.net, "no IPv4 address"));
	assert_non_null(strstr(st.net, "board 192.0.2.1"));
	assert_int_equal(st.net_ready, 0); /* no operstate: not up */
	b->ops->close(b);
	put("sys/devices/usb1/1-2/1-2:1.0/net/enx020000000001/operstate", "up\n", 0644);
	b = bench_probe_open(&o, &rep);
	b->ops->state(b, &st);
	assert_int_equal(st.net_ready, 1);
	b->ops->close(b);
	/* another board's IDs: nothing found, the default address */
	o.usb_vid = 0x2e8a;
	o.usb_pid = 0x000c;
	b = bench_probe_open(&o, &rep);
	b->ops->state(b, &st);
	assert_non_null(strstr(st.net, "no interface of USB 2e8a:000c"));
	assert_int_equal(st.net_ready, 1);
	b->ops->close(b);
}

static void ip4(uint8_t out[4], int a, int b, int c, int d)
{
	out[0] = (uint8_t)a;
	out[1] = (uint8_t)b;
	out[2] = (uint8_t)c;
	out[3] = (uint8_t)d;
}

static void test_board_ip_rule(void **state)
{
	(void)state;
	uint8_t host[4], peer[4], out[4], want[4], neigh[3][4];
	char why[64];
	ip4(host, 192, 0, 2, 2);
	/* (3) the first host of a wider subnet: where the demo firmware is */
	assert_int_equal(bench_board_ip(host, 24, NULL, NULL, 0, out, why, sizeof why), 0);
	ip4(want, 192, 0, 2, 1);
	assert_memory_equal(out, want, 4);
	assert_string_equal(why, "the first host of the /24");
	ip4(host, 192, 0, 2, 1); /* the host has the first: the second */
	assert_int_equal(bench_board_ip(host, 24, NULL, NULL, 0, out, why, sizeof why), 0);
	ip4(want, 192, 0, 2, 2);
	assert_memory_equal(out, want, 4);
	assert_string_equal(why, "the second host of the /24");
	ip4(host, 10, 0, 0, 6); /* /30: 10.0.0.4/30 has the hosts .5 and .6 */
	assert_int_equal(bench_board_ip(host, 30, NULL, NULL, 0, out, why, sizeof why), 0);
	ip4(want, 10, 0, 0, 5);
	assert_memory_equal(out, want, 4);
	ip4(host, 10, 0, 0, 5);
	assert_int_equal(bench_board_ip(host, 30, NULL, NULL, 0, out, why, sizeof why), 0);
	ip4(want, 10, 0, 0, 6);
	assert_memory_equal(out, want, 4);
	assert_string_equal(why, "the other host of the /30");
	ip4(host, 10, 0, 0, 9); /* /31: the other address */
	assert_int_equal(bench_board_ip(host, 31, NULL, NULL, 0, out, why, sizeof why), 0);
	ip4(want, 10, 0, 0, 8);
	assert_memory_equal(out, want, 4);
	assert_int_equal(bench_board_ip(host, 32, NULL, NULL, 0, out, why, sizeof why), -1);
	/* (2) the only neighbour inside the subnet wins over the subnet's rule */
	ip4(host, 192, 0, 2, 2);
	ip4(neigh[0], 192, 0, 2, 77);
	ip4(neigh[1], 10, 1, 1, 1);   /* outside */
	ip4(neigh[2], 192, 0, 2, 2);  /* the host itself */
	assert_int_equal(bench_board_ip(host, 24, NULL, (const uint8_t(*)[4])neigh, 3, out, why,
					 sizeof why), 0);
	assert_memory_equal(out, neigh[0], 4);
	assert_string_equal(why, "the interface's only IPv4 neighbour");
	ip4(neigh[1], 192, 0, 2, 78); /* two inside: the subnet's rule */
	assert_int_equal(bench_board_ip(host, 24, NULL, (const uint8_t(*)[4])neigh, 3, out, why,
					 sizeof why), 0);
	ip4(want, 192, 0, 2, 1);
	assert_memory_equal(out, want, 4);
	/* (1) a point-to-point peer wins over everything */
	ip4(peer, 172, 16, 0, 1);
	assert_int_equal(bench_board_ip(host, 32, peer, (const uint8_t(*)[4])neigh, 3, out, why,
					 sizeof why), 0);
	assert_memory_equal(out, peer, 4);
	assert_string_equal(why, "the interface's point-to-point peer");
}

static void test_neighbours(void **state)
{
	(void)state;
	mkdirs("proc/net");
	put("proc/net/arp",
	    "IP address       HW type     Flags       HW address            Mask     Device\n"
	    "192.0.2.1        0x1         0x2         02:00:00:00:00:01     *        usb0\n"
	    "192.0.2.9        0x1         0x0         00:00:00:00:00:00     *        usb0\n"
	    "10.0.0.1         0x1         0x2         52:54:00:12:34:56     *        eth0\n",
	    0644);
	char proc[256];
	snprintf(proc, sizeof proc, "%s/proc", test_dir);
	uint8_t n[4][4], want[4] = {192, 0, 2, 1};
	assert_int_equal(bench_netif_neighbours(proc, "usb0", n, 4), 1); /* complete only */
	assert_memory_equal(n[0], want, 4);
	assert_int_equal(bench_netif_neighbours(proc, "usb9", n, 4), 0);
}

/* Pings through the probe bench's ICMP socket to this host's loopback. */
static void test_pings_to_loopback(void **state)
{
	(void)state;
	xb_probe_bench_options o = {.device_ip = "127.0.0.1", .usb_vid = 0xffff, .usb_pid = 0xffff};
	xb_report rep;
	report_clear(&rep);
	xb_bench *b = bench_probe_open(&o, &rep);
	assert_non_null(b);
	xb_bench_state st;
	b->ops->state(b, &st);
	if (strstr(st.net, "no pings")) {
		/* neither socket: sending says why, with the sysctl that allows them */
		assert_int_equal(b->ops->send_ping(b, 0, 0x7862, 1, (const uint8_t *)"x", 1, &rep), -1);
		assert_non_null(strstr(rep.msg, "ping_group_range"));
		assert_non_null(strstr(rep.msg, "root"));
		b->ops->close(b);
		skip();
	}
	uint8_t data[56];
	for (int i = 0; i < 56; i++)
		data[i] = (uint8_t)(i + 1);
	assert_int_equal(b->ops->send_ping(b, 0, 0x7862, 5, data, sizeof data, &rep), 0);
	assert_int_equal(b->ops->send_ping(b, 0, 0x7863, 6, data, 17, &rep), 0);
	int got = 0;
	for (int tries = 0; tries < 200 && got < 2; tries++) {
		xb_bench_reply r[8];
		size_t n = b->ops->read_replies(b, r, 8);
		for (size_t i = 0; i < n; i++) {
			assert_int_equal(r[i].kind, 1);
			if (r[i].id == 0x7862) {
				assert_int_equal(r[i].seq, 5);
				assert_int_equal(r[i].len, 56);
				assert_memory_equal(r[i].data, data, 56);
			} else {
				assert_int_equal(r[i].id, 0x7863);
				assert_int_equal(r[i].seq, 6);
				assert_int_equal(r[i].len, 17);
			}
			got++;
		}
		struct timespec t = {0, 5000000};
		nanosleep(&t, NULL);
	}
	assert_int_equal(got, 2);
	b->ops->close(b);
}

/* ---- Which ICMP socket ---- */

enum { CHOICE_DGRAM, CHOICE_RAW, CHOICE_NONE };

/* Opens the probe bench towards 127.0.0.1 (its sockets bound to 127.0.0.1), checks the
 * ICMP socket it took and pings through it. 0, or the number of the step that failed. */
static int choice_check(int want)
{
	static const char *const text[] = {"pings: datagram socket", "pings: raw socket",
					   "no pings"};
	xb_probe_bench_options o = {.device_ip = "127.0.0.1", .host_ip = "127.0.0.1",
				    .usb_vid = 0xffff, .usb_pid = 0xffff};
	xb_report rep;
	report_clear(&rep);
	xb_bench *b = bench_probe_open(&o, &rep);
	if (!b)
		return 10;
	xb_bench_state st;
	b->ops->state(b, &st);
	if (!strstr(st.net, text[want])) {
		fprintf(stderr, "# wanted '%s': %s\n", text[want], st.net);
		b->ops->close(b);
		return 11;
	}
	uint8_t data[32];
	for (int i = 0; i < 32; i++)
		data[i] = (uint8_t)(0xA0 + i);
	int rc = b->ops->send_ping(b, 0, 0x7862, 3, data, sizeof data, &rep);
	if (want == CHOICE_NONE) {
		/* why, and what allows them */
		rc = rc == -1 && strstr(rep.msg, "net.ipv4.ping_group_range") &&
		     strstr(rep.msg, "`sudo sysctl -w net.ipv4.ping_group_range=\"0 2147483647\"`") &&
		     strstr(rep.msg, "root") ? 0 : 12;
		if (rc)
			fprintf(stderr, "# %s\n", rep.msg);
		b->ops->close(b);
		return rc;
	}
	if (rc != 0) {
		fprintf(stderr, "# %s\n", rep.msg);
		b->ops->close(b);
		return 13;
	}
	int got = 0;
	for (int tries = 0; tries < 200 && !got; tries++) {
		xb_bench_reply r[4];
		size_t n = b->ops->read_replies(b, r, 4);
		for (size_t i = 0; i < n; i++)
			got |= r[i].kind == 1 && r[i].id == 0x7862 && r[i].seq == 3 && r[i].len == 32 &&
			       memcmp(r[i].data, data, 32) == 0;
		struct timespec t = {0, 5000000};
		nanosleep(&t, NULL);
	}
	b->ops->close(b);
	return got ? 0 : 14;
}

/* In a network namespace of its own (this process is a child): lo up, the group range,
 * then user uid (-1: stay root). 0, 77 without a namespace, else the failed step. */
static int choice_child(const char *range, int uid, int want)
{
	if (unshare(CLONE_NEWNET) != 0)
		return 77;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq r;
	memset(&r, 0, sizeof r);
	snprintf(r.ifr_name, sizeof r.ifr_name, "lo");
	if (s < 0 || ioctl(s, SIOCGIFFLAGS, &r) != 0)
		return 2;
	r.ifr_flags |= IFF_UP;
	if (ioctl(s, SIOCSIFFLAGS, &r) != 0)
		return 3;
	close(s);
	/* /proc/sys/net is the namespace's of the process that opens it */
	FILE *f = fopen("/proc/sys/net/ipv4/ping_group_range", "w");
	if (!f)
		return 4;
	int bad = fprintf(f, "%s\n", range) < 0;
	if (fclose(f) != 0 || bad)
		return 4;
	if (uid >= 0 && (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 || setuid((uid_t)uid) != 0))
		return 5;
	return choice_check(want);
}

static void choice(const char *range, int uid, int want)
{
	fflush(NULL);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(choice_child(range, uid, want));
	int st = 0;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st));
	if (WEXITSTATUS(st) == 77)
		skip(); /* no network namespaces here */
	if (WEXITSTATUS(st) != 0)
		fail_msg("ping_group_range \"%s\", uid %d: step %d failed", range, uid,
			 WEXITSTATUS(st));
}

static void test_icmp_socket_choice(void **state)
{
	(void)state;
	if (geteuid() != 0) {
		/* a user: a datagram socket when this host's range has the group, else none */
		char line[64] = "";
		FILE *f = fopen("/proc/sys/net/ipv4/ping_group_range", "r");
		long lo = 1, hi = 0;
		if (f && fgets(line, sizeof line, f))
			sscanf(line, "%ld %ld", &lo, &hi);
		if (f)
			fclose(f);
		long g = (long)getgid();
		assert_int_equal(choice_check(g >= lo && g <= hi ? CHOICE_DGRAM : CHOICE_NONE), 0);
		skip(); /* the rest needs root */
	}
	choice("0 2147483647", -1, CHOICE_DGRAM);  /* root, allowed: the datagram socket */
	choice("1 0", -1, CHOICE_RAW);             /* root, none allowed: a raw socket */
	choice("0 2147483647", 65534, CHOICE_DGRAM); /* a user, allowed: datagram */
	choice("65534 65534", 65534, CHOICE_DGRAM);  /* exactly its group */
	choice("1 0", 65534, CHOICE_NONE);         /* a user, not allowed: none, and why */
	choice("0 1000", 65534, CHOICE_NONE);
}

/* ---- usbmon ---- */

static void fresh_root(const char *name, char *root, size_t cap)
{
	snprintf(root, cap, "%s/%s", test_dir, name);
	mkdirs(name);
}

static void test_usbmon_messages(void **state)
{
	(void)state;
	char root[256];
	xb_err err;
	/* nothing: the module */
	fresh_root("r1", root, sizeof root);
	assert_int_equal(capture_live_check("usbmon1", root, -1, &err), -1);
	assert_non_null(strstr(err.msg, "usbmon1: the usbmon module is not loaded"));
	assert_non_null(strstr(err.msg, "`sudo modprobe usbmon`"));
	assert_int_equal(capture_live_check("eth0", root, -1, &err), -1);
	assert_non_null(strstr(err.msg, "not a usbmon interface"));
	/* the module, buses 1 and 2, but bus 3 asked for */
	mkdirs("r1/sys/module/usbmon");
	mkdirs("r1/sys/bus/usb/devices/usb1");
	mkdirs("r1/sys/bus/usb/devices/usb2");
	mkdirs("r1/sys/bus/usb/devices/1-1");
	assert_int_equal(capture_live_check("usbmon3", root, -1, &err), -1);
	assert_non_null(strstr(err.msg, "no USB bus 3"));
	assert_true(strstr(err.msg, "buses here: 1 2") || strstr(err.msg, "buses here: 2 1"));
	/* bus 1, no device node, no debugfs: mount it (or mknod, with the major) */
	mkdirs("r1/proc");
	put("r1/proc/devices", "Character devices:\n  1 mem\n247 usbmon\n\nBlock devices:\n  8 sd\n",
	    0644);
	assert_int_equal(capture_live_check("usbmon1", root, -1, &err), -1);
	assert_non_null(strstr(err.msg, "`sudo mount -t debugfs none /sys/kernel/debug`"));
	assert_non_null(strstr(err.msg, "`sudo mknod /dev/usbmon1 c 247 1`"));
	/* usbmon0 needs no bus */
	assert_int_equal(capture_live_check("usbmon0", root, -1, &err), -1);
	assert_non_null(strstr(err.msg, "mknod /dev/usbmon0 c 247 0"));
	/* debugfs mounted, the text interface there: that will do */
	mkdirs("r1/sys/kernel/debug/usb/usbmon");
	put("r1/sys/kernel/debug/usb/usbmon/1u", "", 0600);
	assert_int_equal(capture_live_check("usbmon1", root, -1, &err), 0);
	/* the device node, root's only: a user may not read it */
	mkdirs("r1/dev");
	put("r1/dev/usbmon1", "", 0600);
	assert_int_equal(capture_live_check("usbmon1", root, 4242, &err), -1);
	assert_non_null(strstr(err.msg, "permission denied"));
	assert_non_null(strstr(err.msg, "(mode 0600)"));
	assert_non_null(strstr(err.msg, "run as root"));
	assert_non_null(strstr(err.msg, "`sudo setfacl -m u:"));
	assert_non_null(strstr(err.msg, ":r /dev/usbmon1`"));
	assert_non_null(strstr(err.msg, "`sudo chmod a+r /dev/usbmon1`"));
	assert_int_equal(capture_live_check("usbmon1", root, 0, &err), 0); /* root may */
	char dev[300];
	snprintf(dev, sizeof dev, "%s/dev/usbmon1", root);
	chmod(dev, 0644);
	assert_int_equal(capture_live_check("usbmon1", root, 4242, &err), 0);
	/* a built-in usbmon: no /sys/module entry, but its major */
	fresh_root("r2", root, sizeof root);
	mkdirs("r2/proc");
	put("r2/proc/devices", "Character devices:\n180 usb\n248 usbmon\n", 0644);
	mkdirs("r2/dev");
	put("r2/dev/usbmon0", "", 0644);
	assert_int_equal(capture_live_check("usbmon0", root, 4242, &err), 0);
}

/* ---- A pcap stream ---- */

static void le(uint8_t *p, uint32_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> 8 * i);
}

/* Record i of a link type 220 stream: at 1 s + i us, 64 bytes. */
static size_t stream_record(uint8_t *p, unsigned i)
{
	le(p, 1, 4);
	le(p + 4, i, 4);
	le(p + 8, 64, 4);
	le(p + 12, 64, 4);
	memset(p + 16, (int)i, 64);
	return 16 + 64;
}

static void test_stream_record_by_record(void **state)
{
	(void)state;
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	uint8_t buf[24 + 3 * 80];
	le(buf, 0xa1b2c3d4u, 4);
	le(buf + 4, 2, 2);
	le(buf + 6, 4, 2);
	le(buf + 8, 0, 4);
	le(buf + 12, 0, 4);
	le(buf + 16, 65535, 4);
	le(buf + 20, 220, 4);
	size_t n = 24;
	n += stream_record(buf + n, 0);
	n += stream_record(buf + n, 1);
	assert_int_equal(write(fds[1], buf, n), (ssize_t)n); /* the header and two records */
	xb_err err;
	xb_capture_source *s = capture_open_stream(fds[0], "pipe", &err);
	assert_non_null(s);
	int fd = capture_fd(s);
	assert_true(fd >= 0);
	xb_capture_record r;
	for (unsigned i = 0; i < 2; i++) {
		/* the record is there for poll: not read ahead into a buffer poll cannot see */
		struct pollfd pf = {.fd = fd, .events = POLLIN};
		assert_int_equal(poll(&pf, 1, 0), 1);
		assert_int_equal(capture_next(s, &r, &err), XB_CAPTURE_RECORD);
		assert_int_equal(r.time_ns, 1000000000u + 1000u * i);
		assert_int_equal(r.caplen, 64);
		assert_int_equal(r.data[0], i);
	}
	struct pollfd pf = {.fd = fd, .events = POLLIN};
	assert_int_equal(poll(&pf, 1, 0), 0); /* nothing more yet */
	n = stream_record(buf, 2);
	assert_int_equal(write(fds[1], buf, n), (ssize_t)n);
	assert_int_equal(poll(&pf, 1, 0), 1);
	assert_int_equal(capture_next(s, &r, &err), XB_CAPTURE_RECORD);
	assert_int_equal(r.data[0], 2);
	close(fds[1]);
	assert_int_equal(capture_next(s, &r, &err), XB_CAPTURE_END);
	capture_close(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_netif_find),
		cmocka_unit_test(test_board_ip_rule),
		cmocka_unit_test(test_neighbours),
		cmocka_unit_test(test_pings_to_loopback),
		cmocka_unit_test(test_icmp_socket_choice),
		cmocka_unit_test(test_usbmon_messages),
		cmocka_unit_test(test_stream_record_by_record),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
