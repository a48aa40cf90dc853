/* sim_net: `xipbench sim run`'s network mode: the virtual USB host and the network peer
 * plugged into the virtual Pico, bring-up, idle windows and echo traffic in virtual time,
 * the usbmon capture, and the report's network part (text and JSON). */
#include "sim_net.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/util.h"
#include "../sim/netpeer.h"
#include "../sim/vbench.h"
#include "../sim/realtime.h"
#include "../sim/usbhost.h"
#include "../sim/usbmon.h"
#include "cli.h"

#define NET_LINK_TIMEOUT_MS 5000.0

/* One kind of traffic as asked for, and what vbench_phase_run measured. */
typedef struct net_phase {
	xb_vbench_phase v; /* kind 0: not asked for */
	double interval_ms, seconds;
} net_phase;

struct sim_net {
	const char *cmd;
	const sim_options *o;
	xb_pico *p;
	xb_board *b;
	uint32_t hz;
	xb_vbench *vb;
	xb_netpeer *np;
	FILE *pcap;
	char *pcap_tmp;
	double speed;
	uint64_t budget;       /* without traffic: how long to run */
	uint64_t link_timeout; /* with traffic: how long the bring-up may take */
	int link_failed;
	net_phase ping, udp;
};

int sim_net_wanted(const sim_options *o)
{
	return o->usb || o->pcap || o->ping || o->udp || o->size || o->interval_ms || o->seconds ||
	       o->udp_port || o->udp_size || o->peer_ip || o->device_ip || o->link_timeout;
}

/* ---- Parsing ---- */


int sim_parse_positive(const char *s, double max, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || *end || errno || !(v > 0) || v > max)
		return -1;
	*out = v;
	return 0;
}

int sim_parse_port(const char *s, int zero_ok, uint16_t *out)
{
	uint64_t v;
	if (xb_parse_u64(s, &v) || v > 65535 || (v == 0 && !zero_ok))
		return -1;
	*out = (uint16_t)v;
	return 0;
}

int sim_parse_addresses(const char *cmd, const sim_options *o, xb_netpeer_options *po)
{
	if (o->peer_ip && xb_parse_ipv4(o->peer_ip, po->ip))
		return cli_usage_error(cmd, "--peer-ip needs an IPv4 address (got '%s')", o->peer_ip);
	if (o->device_ip && xb_parse_ipv4(o->device_ip, po->device_ip))
		return cli_usage_error(cmd, "--device-ip needs an IPv4 address (got '%s')",
				       o->device_ip);
	if (memcmp(po->ip, po->device_ip, 4) == 0)
		return cli_usage_error(cmd, "the peer and the device need different addresses");
	po->device_ip_set = o->device_ip != NULL;
	if (o->netmask) {
		uint32_t m;
		if (xb_parse_ipv4(o->netmask, po->netmask) ||
		    ((m = (uint32_t)po->netmask[0] << 24 | (uint32_t)po->netmask[1] << 16 |
			  (uint32_t)po->netmask[2] << 8 | po->netmask[3]),
		     m == 0 || (~m & (~m + 1)) != 0))
			return cli_usage_error(cmd, "--netmask needs a netmask such as 255.255.255.0 "
						    "(got '%s')", o->netmask);
	}
	return XB_EXIT_OK;
}

static int net_count(const char *cmd, const char *opt, const char *s, unsigned lo, unsigned hi,
		     unsigned *out)
{
	uint64_t v;
	if (xb_parse_u64(s, &v) || v < lo || v > hi)
		return cli_usage_error(cmd, "%s needs a number from %u to %u (got '%s')", opt, lo, hi,
				       s);
	*out = (unsigned)v;
	return XB_EXIT_OK;
}

/* Checks and converts the options into n. */
static int net_configure(sim_net *n, xb_netpeer_options *po)
{
	const sim_options *o = n->o;
	const char *cmd = n->cmd;
	int rc;
	netpeer_options_init(po);
	if ((rc = sim_parse_addresses(cmd, o, po)))
		return rc;
	po->dhcp = o->dhcp;
	double ms = NET_LINK_TIMEOUT_MS;
	if (o->link_timeout && sim_parse_positive(o->link_timeout, 3600e3, &ms))
		return cli_usage_error(cmd, "--link-timeout needs milliseconds above 0 (got '%s')",
				       o->link_timeout);
	n->link_timeout = (uint64_t)llround(ms * n->hz / 1000.0);
	if (o->ping) {
		net_phase *ph = &n->ping;
		ph->v.kind = XB_NETPEER_ICMP;
		ph->v.size = 56;
		ph->interval_ms = 20;
		if ((rc = net_count(cmd, "--ping", o->ping, 1, 1000000, &ph->v.count)))
			return rc;
		if (o->size &&
		    (rc = net_count(cmd, "--size", o->size, 0, XB_NETPEER_MAX_PAYLOAD, &ph->v.size)))
			return rc;
		if (o->interval_ms && sim_parse_positive(o->interval_ms, 3600e3, &ph->interval_ms))
			return cli_usage_error(cmd, "--interval-ms needs milliseconds above 0 (got '%s')",
					       o->interval_ms);
		ph->v.interval = (uint64_t)llround(ph->interval_ms * n->hz / 1000.0);
		if (!ph->v.interval)
			return cli_usage_error(cmd, "--interval-ms %s is shorter than a clock cycle",
					       o->interval_ms);
		ph->v.window = ph->v.interval * ph->v.count;
	} else if (o->size || o->interval_ms) {
		return cli_usage_error(cmd, "--size and --interval-ms go with --ping N");
	}
	if (o->udp) {
		net_phase *ph = &n->udp;
		ph->v.kind = XB_NETPEER_UDP;
		ph->v.size = 64;
		ph->v.port = 7;
		ph->seconds = 1;
		unsigned rate = 0;
		if ((rc = net_count(cmd, "--udp", o->udp, 1, 1000000, &rate)))
			return rc;
		ph->v.rate = rate;
		if (o->seconds && sim_parse_positive(o->seconds, 3600, &ph->seconds))
			return cli_usage_error(cmd, "--seconds needs a duration above 0 (got '%s')",
					       o->seconds);
		if (o->udp_port && sim_parse_port(o->udp_port, 0, &ph->v.port))
			return cli_usage_error(cmd, "--udp-port needs a port from 1 to 65535 (got '%s')",
					       o->udp_port);
		if (o->udp_size && (rc = net_count(cmd, "--udp-size", o->udp_size, XB_NETPEER_NONCE,
						   XB_NETPEER_MAX_PAYLOAD, &ph->v.size)))
			return rc;
		double c = floor(ph->v.rate * ph->seconds + 0.5);
		if (c < 1 || c > 10000000)
			return cli_usage_error(cmd, "--udp %u for --seconds %s sends %.0f datagrams "
						    "(1 to 10,000,000 allowed)",
					       ph->v.rate, o->seconds ? o->seconds : "1", c);
		ph->v.count = (unsigned)c;
		ph->v.window = (uint64_t)((unsigned __int128)ph->v.count * n->hz / ph->v.rate);
	} else if (o->seconds || o->udp_port || o->udp_size) {
		return cli_usage_error(cmd, "--seconds, --udp-port and --udp-size go with --udp RATE");
	}
	if ((o->ping || o->udp) && o->cycles)
		return cli_usage_error(cmd, "--cycles does not go with --ping or --udp: the run lasts "
					    "as long as the traffic needs (--link-timeout bounds the "
					    "bring-up)");
	return XB_EXIT_OK;
}

/* ---- Session ---- */

/* The pacing of --realtime. */
static enum xb_pico_stop net_realtime(void *ctx, xb_pico *p, uint64_t cycles)
{
	sim_net *n = ctx;
	return realtime_run(p, cycles, n->speed, realtime_system_clock());
}

int sim_net_open(const char *cmd, const sim_options *o, xb_pico *p, sim_net **out)
{
	sim_net *n = xcalloc(1, sizeof *n);
	n->cmd = cmd;
	n->o = o;
	n->p = p;
	n->b = pico_board(p);
	n->hz = board_cpu_hz(n->b);
	n->speed = 1.0;
	if (o->speed)
		n->speed = strtod(o->speed, NULL); /* checked by the caller */
	uint64_t cycles = n->hz;
	if (o->cycles)
		xb_parse_u64(o->cycles, &cycles); /* checked by the caller */
	n->budget = cycles;
	xb_vbench_options vo;
	vbench_options_init(&vo);
	int rc = net_configure(n, &vo.peer);
	if (rc != XB_EXIT_OK) {
		free(n);
		return rc;
	}
	if (o->pcap) {
		n->pcap_tmp = xasprintf("%s.XXXXXX", o->pcap);
		int fd = mkstemp(n->pcap_tmp);
		if (fd < 0 || !(n->pcap = fdopen(fd, "wb"))) {
			int e = errno;
			if (fd >= 0) {
				close(fd);
				unlink(n->pcap_tmp);
			}
			cli_fail(cmd, "%s: cannot create the capture file: %s", o->pcap, strerror(e));
			free(n->pcap_tmp);
			free(n);
			return XB_EXIT_FAIL;
		}
	}
	vo.pcap = n->pcap;
	if (o->realtime) {
		vo.run = net_realtime;
		vo.run_ctx = n;
	}
	n->vb = vbench_new(p, &vo);
	n->np = vbench_peer(n->vb);
	*out = n;
	return XB_EXIT_OK;
}

static int net_phase_run(sim_net *n, net_phase *ph)
{
	xb_err err;
	if (vbench_phase_run(n->vb, &ph->v, &err) != 0)
		return cli_fail(n->cmd, "%s", err.msg);
	return XB_EXIT_OK;
}

int sim_net_run(sim_net *n)
{
	if (!n->ping.v.kind && !n->udp.v.kind) {
		vbench_run_to(n->vb, board_cycles(n->b) + n->budget);
		return XB_EXIT_OK;
	}
	xb_err err;
	if (vbench_bring_up(n->vb, n->link_timeout, &err) != 0) {
		n->link_failed = 1;
		return cli_fail(n->cmd,
				"the network was not ready within %.0f ms: %s (is the image a CDC-ECM "
				"device at that address?)",
				(double)n->link_timeout * 1000 / n->hz, err.msg);
	}
	int rc = XB_EXIT_OK;
	if (n->ping.v.kind)
		rc = net_phase_run(n, &n->ping);
	if (rc == XB_EXIT_OK && n->udp.v.kind)
		rc = net_phase_run(n, &n->udp);
	return rc;
}

int sim_net_close(sim_net *n, int keep)
{
	if (!n)
		return XB_EXIT_OK;
	int rc = XB_EXIT_OK;
	int failed = usbmon_write_failed(vbench_usbmon(n->vb));
	vbench_free(n->vb);
	if (n->pcap) {
		failed |= fclose(n->pcap) != 0;
		if (keep && !failed && rename(n->pcap_tmp, n->o->pcap) == 0) {
			n->pcap_tmp[0] = 0;
		} else {
			unlink(n->pcap_tmp);
			if (keep)
				rc = cli_fail(n->cmd, "%s: cannot write the capture", n->o->pcap);
		}
		free(n->pcap_tmp);
	}
	free(n);
	return rc;
}

/* ---- Report ---- */

static double net_ms(const sim_net *n, uint64_t cycles)
{
	return (double)cycles * 1000.0 / n->hz;
}

static void net_mac_text(const uint8_t *m, char out[18])
{
	snprintf(out, 18, "%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

static void net_ip_text(const uint8_t *a, char out[16])
{
	snprintf(out, 16, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
}

static const char *net_state_name(uint8_t s)
{
	switch (s) {
	case XB_NETPEER_SCHEDULED: return "scheduled";
	case XB_NETPEER_WAITING: return "waiting";
	case XB_NETPEER_SENT: return "lost";
	case XB_NETPEER_REPLIED: return "replied";
	case XB_NETPEER_FAILED: return "failed";
	}
	return "?";
}

static void net_phase_text(const sim_net *n, const net_phase *ph, FILE *f)
{
	const char *name = ph->v.kind == XB_NETPEER_ICMP ? "ping" : "udp";
	if (ph->v.kind == XB_NETPEER_ICMP)
		fprintf(f, "ping           %u requests of %u data bytes every %.3f ms from %.3f ms\n",
			ph->v.count, ph->v.size, ph->interval_ms, net_ms(n, ph->v.start));
	else
		fprintf(f, "udp            %u datagrams of %u bytes to port %u, %u/s for %.3f s "
			   "from %.3f ms\n",
			ph->v.count, ph->v.size, ph->v.port, ph->v.rate, net_ms(n, ph->v.window) / 1000,
			net_ms(n, ph->v.start));
	if (!ph->v.ran)
		return;
	for (unsigned i = 0; i < ph->v.count; i++) {
		const xb_netpeer_echo *e = netpeer_echo(n->np, (size_t)ph->v.first + i);
		unsigned key = ph->v.kind == XB_NETPEER_ICMP ? e->seq : e->nonce;
		const char *k = ph->v.kind == XB_NETPEER_ICMP ? "seq" : "nonce";
		if (e->state == XB_NETPEER_REPLIED && e->out_done_set) {
			uint64_t acc = e->xip_reply.accesses - e->xip_out.accesses;
			uint64_t miss = acc - (e->xip_reply.hits - e->xip_out.hits);
			fprintf(f, "%-4s echo      %s %u rtt %.6f ms turnaround %.6f ms xip accesses "
				   "%llu misses %llu%s\n",
				name, k, key, net_ms(n, e->reply - e->sent),
				net_ms(n, e->reply - e->out_done), (unsigned long long)acc,
				(unsigned long long)miss, e->duplicates ? " (duplicated)" : "");
		} else {
			fprintf(f, "%-4s echo      %s %u %s\n", name, k, key, net_state_name(e->state));
		}
	}
	const xb_netpeer_summary *s = &ph->v.sum;
	fprintf(f, "%-4s sent      %zu\n", name, s->sent);
	fprintf(f, "%-4s received  %zu (%zu lost, %zu duplicates, %llu unmatched)\n", name,
		s->received, s->lost, s->duplicates, (unsigned long long)ph->v.unmatched);
	if (s->timed) {
		fprintf(f, "%-4s turnaround median %.6f ms, min %.6f ms, max %.6f ms\n", name,
			s->turnaround_median * 1000.0 / n->hz, net_ms(n, s->turnaround_min),
			net_ms(n, s->turnaround_max));
		fprintf(f, "%-4s rtt       median %.6f ms, min %.6f ms, max %.6f ms\n", name,
			s->rtt_median * 1000.0 / n->hz, net_ms(n, s->rtt_min), net_ms(n, s->rtt_max));
	}
	fprintf(f, "%-4s rate      %.2f echoes/s\n", name, vbench_echo_rate(n->vb, &ph->v));
	fprintf(f, "%-4s misses    %.2f per echo (%llu in the traffic window, %llu in the idle "
		   "window of %.3f ms before it)\n",
		name, vbench_misses_per_echo(&ph->v),
		(unsigned long long)vbench_traffic_misses(&ph->v),
		(unsigned long long)vbench_idle_misses(&ph->v),
		net_ms(n, ph->v.window));
}

void sim_net_print_text(const sim_net *n, FILE *f)
{
	if (!n)
		return;
	char mac[18], ip[16];
	uint64_t configured_ns;
	if (vbench_configured(n->vb, &configured_ns))
		fprintf(f, "usb            configured at %.6f ms\n", configured_ns / 1e6);
	else
		fprintf(f, "usb            %s\n", usbhost_state_name(usbhost_state(vbench_host(n->vb))));
	if (netpeer_link(n->np))
		fprintf(f, "link           up at %.6f ms\n", net_ms(n, netpeer_link_cycle(n->np)));
	else
		fprintf(f, "link           down\n");
	net_mac_text(netpeer_mac(n->np), mac);
	net_ip_text(netpeer_ip(n->np), ip);
	fprintf(f, "peer           %s %s\n", ip, mac);
	net_ip_text(netpeer_device_ip(n->np), ip);
	if (netpeer_device_mac(n->np)) {
		net_mac_text(netpeer_device_mac(n->np), mac);
		fprintf(f, "device         %s %s (resolved at %.6f ms)\n", ip, mac,
			net_ms(n, netpeer_resolved_cycle(n->np)));
	} else {
		fprintf(f, "device         %s (not resolved)\n", ip);
	}
	if (n->o->pcap)
		fprintf(f, "pcap           %s (%llu records)\n", n->o->pcap,
			(unsigned long long)usbmon_records(vbench_usbmon(n->vb)));
	if (n->ping.v.kind)
		net_phase_text(n, &n->ping, f);
	if (n->udp.v.kind)
		net_phase_text(n, &n->udp, f);
}

static void json_ms(FILE *f, const sim_net *n, uint64_t cycles, int valid)
{
	if (valid)
		fprintf(f, "%.6f", net_ms(n, cycles));
	else
		fputs("null", f);
}

static void net_phase_json(const sim_net *n, const net_phase *ph, FILE *f)
{
	if (!ph->v.kind) {
		fputs("null", f);
		return;
	}
	if (ph->v.kind == XB_NETPEER_ICMP)
		fprintf(f, "{\"count\": %u, \"size\": %u, \"interval_ms\": %.6f, \"id\": %u", ph->v.count,
			ph->v.size, net_ms(n, ph->v.interval), VBENCH_PING_ID);
	else
		fprintf(f, "{\"count\": %u, \"size\": %u, \"rate\": %u, \"seconds\": %.6f, "
			   "\"port\": %u, \"source_port\": %u",
			ph->v.count, ph->v.size, ph->v.rate, net_ms(n, ph->v.window) / 1000, ph->v.port,
			VBENCH_UDP_SPORT);
	fprintf(f, ", \"ran\": %s", ph->v.ran ? "true" : "false");
	fputs(", \"idle_start_ms\": ", f);
	json_ms(f, n, ph->v.idle_start, ph->v.ran);
	fputs(", \"start_ms\": ", f);
	json_ms(f, n, ph->v.start, ph->v.ran);
	fprintf(f, ", \"window_ms\": %.6f", net_ms(n, ph->v.window));
	const xb_netpeer_summary *s = &ph->v.sum;
	fprintf(f, ", \"sent\": %zu, \"received\": %zu, \"lost\": %zu, \"failed\": %zu, "
		   "\"duplicates\": %zu, \"unmatched\": %llu",
		s->sent, s->received, s->lost, s->failed, s->duplicates,
		(unsigned long long)ph->v.unmatched);
	if (s->timed)
		fprintf(f, ", \"turnaround_ms\": {\"median\": %.6f, \"min\": %.6f, \"max\": %.6f}, "
			   "\"rtt_ms\": {\"median\": %.6f, \"min\": %.6f, \"max\": %.6f}",
			s->turnaround_median * 1000.0 / n->hz, net_ms(n, s->turnaround_min),
			net_ms(n, s->turnaround_max), s->rtt_median * 1000.0 / n->hz,
			net_ms(n, s->rtt_min), net_ms(n, s->rtt_max));
	else
		fputs(", \"turnaround_ms\": null, \"rtt_ms\": null", f);
	fprintf(f, ", \"echo_rate\": %.3f", ph->v.ran ? vbench_echo_rate(n->vb, &ph->v) : 0.0);
	if (ph->v.ran)
		fprintf(f, ", \"misses_per_echo\": %.3f, \"window_xip_accesses\": %llu, "
			   "\"window_xip_misses\": %llu, \"idle_xip_accesses\": %llu, "
			   "\"idle_xip_misses\": %llu",
			vbench_misses_per_echo(&ph->v),
			(unsigned long long)(ph->v.end.xip_accesses - ph->v.traffic.xip_accesses),
			(unsigned long long)vbench_traffic_misses(&ph->v),
			(unsigned long long)(ph->v.traffic.xip_accesses - ph->v.idle.xip_accesses),
			(unsigned long long)vbench_idle_misses(&ph->v));
	else
		fputs(", \"misses_per_echo\": null, \"window_xip_accesses\": null, "
		      "\"window_xip_misses\": null, \"idle_xip_accesses\": null, "
		      "\"idle_xip_misses\": null",
		      f);
	fputs(", \"echoes\": [", f);
	for (unsigned i = 0; ph->v.ran && i < ph->v.count; i++) {
		const xb_netpeer_echo *e = netpeer_echo(n->np, (size_t)ph->v.first + i);
		int replied = e->state == XB_NETPEER_REPLIED && e->out_done_set;
		if (ph->v.kind == XB_NETPEER_ICMP)
			fprintf(f, "%s{\"seq\": %u", i ? ", " : "", e->seq);
		else
			fprintf(f, "%s{\"nonce\": %u", i ? ", " : "", e->nonce);
		fprintf(f, ", \"state\": \"%s\", \"sent_ms\": ", net_state_name(e->state));
		json_ms(f, n, e->sent, e->sent_set);
		fputs(", \"out_done_ms\": ", f);
		json_ms(f, n, e->out_done, e->out_done_set);
		fputs(", \"reply_ms\": ", f);
		json_ms(f, n, e->reply, e->state == XB_NETPEER_REPLIED);
		fputs(", \"rtt_ms\": ", f);
		json_ms(f, n, e->reply - e->sent, e->state == XB_NETPEER_REPLIED);
		fputs(", \"turnaround_ms\": ", f);
		json_ms(f, n, e->reply - e->out_done, replied);
		if (replied) {
			uint64_t acc = e->xip_reply.accesses - e->xip_out.accesses;
			fprintf(f, ", \"xip_accesses\": %llu, \"xip_misses\": %llu",
				(unsigned long long)acc,
				(unsigned long long)(acc - (e->xip_reply.hits - e->xip_out.hits)));
		} else {
			fputs(", \"xip_accesses\": null, \"xip_misses\": null", f);
		}
		fprintf(f, ", \"duplicates\": %u}", e->duplicates);
	}
	fputs("]}", f);
}

void sim_net_print_json(const sim_net *n, FILE *f)
{
	if (!n) {
		fputs(", \"usb\": null, \"ping\": null, \"udp\": null", f);
		return;
	}
	char mac[18], ip[16];
	fputs(", \"usb\": {\"configured_ms\": ", f);
	uint64_t configured_ns;
	if (vbench_configured(n->vb, &configured_ns))
		fprintf(f, "%.6f", configured_ns / 1e6);
	else
		fputs("null", f);
	fprintf(f, ", \"state\": \"%s\", \"link_up_ms\": ", usbhost_state_name(usbhost_state(vbench_host(n->vb))));
	json_ms(f, n, netpeer_link_cycle(n->np), netpeer_link(n->np));
	fputs(", \"resolved_ms\": ", f);
	json_ms(f, n, netpeer_resolved_cycle(n->np), netpeer_device_mac(n->np) != NULL);
	net_mac_text(netpeer_mac(n->np), mac);
	net_ip_text(netpeer_ip(n->np), ip);
	fprintf(f, ", \"peer_mac\": \"%s\", \"peer_ip\": \"%s\"", mac, ip);
	net_ip_text(netpeer_device_ip(n->np), ip);
	fprintf(f, ", \"device_ip\": \"%s\", \"device_mac\": ", ip);
	if (netpeer_device_mac(n->np)) {
		net_mac_text(netpeer_device_mac(n->np), mac);
		fprintf(f, "\"%s\"", mac);
	} else {
		fputs("null", f);
	}
	xb_netpeer_stats s;
	netpeer_stats(n->np, &s);
	fprintf(f, ", \"frames_sent\": %llu, \"frames_received\": %llu, \"arp_requests\": %llu, "
		   "\"arp_replies\": %llu, \"rx_errors\": %llu, \"pcap\": ",
		(unsigned long long)s.tx_frames, (unsigned long long)s.rx_frames,
		(unsigned long long)s.arp_requests, (unsigned long long)s.arp_replies,
		(unsigned long long)s.rx_errors);
	if (n->o->pcap)
		xb_json_string(f, n->o->pcap);
	else
		fputs("null", f);
	fprintf(f, ", \"pcap_records\": %llu}", (unsigned long long)usbmon_records(vbench_usbmon(n->vb)));
	fputs(", \"ping\": ", f);
	net_phase_json(n, &n->ping, f);
	fputs(", \"udp\": ", f);
	net_phase_json(n, &n->udp, f);
}
