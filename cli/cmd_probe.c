/* cmd_probe: `xipbench probe list|info|sample|counters|flash`: a CMSIS-DAP probe on USB, or
 * the virtual Pico's probe behind a socket: probe and target identity, PC samples to a
 * sample file, the XIP cache counters, flash programming. */
#include "cli.h"

#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "../probe/cortexm.h"
#include "../probe/probe.h"
#include "../probe/rp2040.h"
#include "../probe/sampler.h"

typedef struct probe_cli {
	const char *cmd;        /* "probe" */
	const char *sub;
	xb_probe_options o;
	const char *swclk, *core, *seconds, *idle_seconds, *out, *elf, *in_flight;
	int json, clear, no_run;
} probe_cli;

/* ---- list ---- */

static int probe_list(const probe_cli *c)
{
	xb_usb_probe *list;
	size_t n;
	xb_err err;
	if (transport_usb_list(&list, &n, &err))
		return cli_fail(c->cmd, "%s", err.msg);
	if (c->json) {
		printf("{\"probes\": [");
		for (size_t i = 0; i < n; i++) {
			const xb_usb_probe *p = &list[i];
			printf("%s{\"vid\": \"%04x\", \"pid\": \"%04x\", \"product\": ", i ? ", " : "",
			       p->vid, p->pid);
			xb_json_string(stdout, p->product);
			printf(", \"serial\": ");
			xb_json_string(stdout, p->serial);
			printf(", \"version\": \"%s\", \"bus\": %u, \"address\": %u, "
			       "\"access_denied\": %s}",
			       p->version, p->bus, p->address, p->access_denied ? "true" : "false");
		}
		printf("]}\n");
	} else if (n == 0) {
		printf("none\n");
	} else {
		for (size_t i = 0; i < n; i++) {
			const xb_usb_probe *p = &list[i];
			printf("%04x:%04x  %s  serial %s  CMSIS-DAP %s  bus %u device %u%s\n", p->vid,
			       p->pid, p->product[0] ? p->product : "?", p->serial[0] ? p->serial : "?",
			       p->version, p->bus, p->address,
			       p->access_denied ? "  (permission denied: see docs/cli.md)" : "");
		}
	}
	free(list);
	return XB_EXIT_OK;
}

/* ---- info ---- */

/* What `probe info` found: ids once connected, core once CPUID and DHCSR were read. */
typedef struct info_found {
	const xb_adi_ids *ids;
	int core_read;
	uint32_t cpuid, dhcsr;
	const char *error;
} info_found;

static void info_json(const probe_cli *c, const xb_probe *p, const info_found *f)
{
	const xb_dap_info *i = dap_client_info(p->dap);
	xb_transport *t = dap_client_transport(p->dap);
	printf("{\"transport\": \"%s\", \"probe\": ", t->ops->kind);
	xb_json_string(stdout, t->name);
	printf(", \"vendor\": ");
	xb_json_string(stdout, i->vendor);
	printf(", \"product\": ");
	xb_json_string(stdout, i->product);
	printf(", \"serial\": ");
	xb_json_string(stdout, i->serial);
	printf(", \"protocol\": ");
	xb_json_string(stdout, i->protocol);
	printf(", \"firmware\": ");
	xb_json_string(stdout, i->firmware);
	printf(", \"capabilities\": %u, \"packet_count\": %u, \"packet_size\": %u, \"core\": %u",
	       i->capabilities, i->packet_count, i->packet_size, c->o.core);
	if (f->ids)
		printf(", \"dpidr\": \"0x%08x\", \"targetid\": \"0x%08x\", \"dlpidr\": \"0x%08x\", "
		       "\"ap_idr\": \"0x%08x\"",
		       f->ids->dpidr, f->ids->targetid, f->ids->dlpidr, f->ids->ap_idr);
	if (f->core_read)
		printf(", \"cpuid\": \"0x%08x\", \"state\": \"%s\"", f->cpuid,
		       cortexm_state_name(f->dhcsr));
	printf(", \"error\": ");
	if (f->error)
		xb_json_string(stdout, f->error);
	else
		printf("null");
	printf("}\n");
}

static void info_text(const probe_cli *c, const xb_probe *p, const info_found *f)
{
	const xb_dap_info *i = dap_client_info(p->dap);
	xb_transport *t = dap_client_transport(p->dap);
	printf("probe          %s\n", t->name);
	printf("transport      %s\n", t->ops->kind);
	printf("vendor         %s\n", i->vendor);
	printf("product        %s\n", i->product);
	printf("serial         %s\n", i->serial);
	printf("protocol       %s%s%s\n", i->protocol, i->firmware[0] ? ", firmware " : "",
	       i->firmware);
	printf("capabilities   0x%02x%s\n", i->capabilities,
	       (i->capabilities & XB_DAP_CAP_SWD) ? " (SWD)" : "");
	printf("packets        %u of %u bytes\n", i->packet_count, i->packet_size);
	if (!f->ids)
		return;
	printf("core           %u\n", c->o.core);
	printf("DPIDR          0x%08x\n", f->ids->dpidr);
	printf("TARGETID       0x%08x\n", f->ids->targetid);
	printf("DLPIDR         0x%08x\n", f->ids->dlpidr);
	printf("AP IDR         0x%08x\n", f->ids->ap_idr);
	if (!f->core_read)
		return;
	printf("CPUID          0x%08x\n", f->cpuid);
	printf("state          %s\n", cortexm_state_name(f->dhcsr));
}

static int probe_info(const probe_cli *c)
{
	xb_probe p;
	xb_err err;
	if (probe_open_client(&p, &c->o, &err))
		return cli_fail(c->cmd, "%s", err.msg);
	info_found f = {0};
	int rc = probe_connect(&p, &c->o, &err);
	if (rc == 0) {
		f.ids = adi_ids(p.adi);
		rc = adi_mem_read32(p.adi, CORTEXM_CPUID, &f.cpuid, &err) ||
		     cortexm_status(p.adi, &f.dhcsr, &err);
		f.core_read = rc == 0;
	}
	f.error = rc ? err.msg : NULL;
	if (c->json)
		info_json(c, &p, &f);
	else
		info_text(c, &p, &f);
	probe_close(&p);
	return rc ? cli_fail(c->cmd, "%s", err.msg) : XB_EXIT_OK;
}

/* ---- counters ---- */

static int probe_counters(const probe_cli *c, xb_probe *p)
{
	xb_xip_counters x;
	xb_err err;
	if (rp2040_xip_counters(p->adi, &x, &err) || (c->clear && rp2040_xip_clear(p->adi, &err)))
		return cli_fail(c->cmd, "%s", err.msg);
	uint32_t misses = x.acc - x.hit;
	double rate = x.acc ? (double)x.hit / x.acc : 0;
	if (c->json) {
		printf("{\"ctr_hit\": %u, \"ctr_acc\": %u, \"misses\": %u, \"hit_rate\": %.6f, "
		       "\"cleared\": %s}\n",
		       x.hit, x.acc, misses, rate, c->clear ? "true" : "false");
	} else {
		printf("CTR_HIT   %u\nCTR_ACC   %u\nmisses    %u\nhit rate  %.2f %%\n", x.hit, x.acc,
		       misses, 100 * rate);
		if (c->clear)
			printf("cleared   yes\n");
	}
	return XB_EXIT_OK;
}

/* ---- sample ---- */

static volatile sig_atomic_t sample_stop;

static void sample_signal(int sig)
{
	(void)sig;
	sample_stop = 1;
}

static void sample_window(void *ctx, int idle)
{
	const probe_cli *c = ctx;
	if (idle)
		fprintf(stderr, "xipbench probe sample: busy window done; idle window of %s s "
				"now (stop the traffic)\n",
			c->idle_seconds);
}

static void sample_print(const probe_cli *c, const xb_sampler_stats *st)
{
	if (c->json) {
		printf("{\"out\": ");
		xb_json_string(stdout, c->out);
		printf(", \"samples\": %llu, \"busy_samples\": %llu, \"idle_samples\": %llu, "
		       "\"busy_seconds\": %.6f, \"idle_seconds\": %.6f, \"rate\": %.1f, "
		       "\"virtual_time\": %s, \"per_block\": %u, \"blocks\": %llu, \"in_flight\": "
		       "%u, \"status_reads\": %llu, \"status_sleeping\": %llu, \"sleep_samples\": "
		       "%llu, \"halted_samples\": %llu, \"sleep_pcs\": [",
		       (unsigned long long)st->samples, (unsigned long long)st->busy_samples,
		       (unsigned long long)st->idle_samples, st->busy_seconds, st->idle_seconds,
		       st->rate, st->virtual_time ? "true" : "false", st->per_block,
		       (unsigned long long)st->blocks, st->in_flight,
		       (unsigned long long)st->status_reads, (unsigned long long)st->status_sleeping,
		       (unsigned long long)st->sleep_samples, (unsigned long long)st->halted_samples);
		for (unsigned i = 0; i < st->nsleep_pcs; i++)
			printf("%s\"0x%08x\"", i ? ", " : "", st->sleep_pcs[i]);
		printf("]}\n");
		return;
	}
	printf("samples        %llu (%u per packet, %u packets in flight)\n",
	       (unsigned long long)st->samples, st->per_block, st->in_flight);
	printf("busy window    %llu samples in %.3f s\n", (unsigned long long)st->busy_samples,
	       st->busy_seconds);
	if (st->idle_seconds > 0)
		printf("idle window    %llu samples in %.3f s\n",
		       (unsigned long long)st->idle_samples, st->idle_seconds);
	printf("rate           %.0f samples/s%s\n", st->rate,
	       st->virtual_time ? " (virtual time)" : "");
	printf("sleeping       %llu samples; DHCSR.S_SLEEP in %llu of %llu status reads\n",
	       (unsigned long long)st->sleep_samples, (unsigned long long)st->status_sleeping,
	       (unsigned long long)st->status_reads);
	printf("halted         %llu samples (0xffffffff)\n", (unsigned long long)st->halted_samples);
	printf("written to     %s\n", c->out);
}

static int parse_seconds(const char *cmd, const char *opt, const char *s, double *out)
{
	char *end;
	*out = s ? strtod(s, &end) : 0;
	if (s && (*end || !(*out >= 0) || *out > 86400))
		return cli_usage_error(cmd, "%s needs seconds from 0 to 86400 (got '%s')", opt, s);
	return XB_EXIT_OK;
}

static int probe_sample(probe_cli *c, xb_probe *p)
{
	xb_sampler_config cfg = {.window = sample_window, .ctx = c, .stop = &sample_stop};
	if (parse_seconds(c->cmd, "--seconds", c->seconds, &cfg.busy_seconds) ||
	    parse_seconds(c->cmd, "--idle-seconds", c->idle_seconds, &cfg.idle_seconds))
		return XB_EXIT_USAGE;
	uint64_t v;
	if (c->in_flight) {
		if (xb_parse_u64(c->in_flight, &v) || v == 0 || v > 255)
			return cli_usage_error(c->cmd, "--in-flight needs 1 to 255 (got '%s')",
					       c->in_flight);
		cfg.in_flight = (unsigned)v;
	}
	xb_samples s;
	samples_init(&s);
	xb_sampler_stats st;
	xb_err err, werr;
	sample_stop = 0;
	void (*old_int)(int) = signal(SIGINT, sample_signal);
	int rc = sampler_run(p->adi, &cfg, &s, &st, &err);
	signal(SIGINT, old_int);
	/* What was sampled before a failure is kept. */
	int wrc = s.n || rc == 0 ? samples_write_binary(&s, c->out, &werr) : 0;
	samples_free(&s);
	if (wrc)
		return cli_fail(c->cmd, "%s", werr.msg);
	if (rc) {
		if (st.samples)
			fprintf(stderr, "xipbench probe sample: kept %llu samples in %s\n",
				(unsigned long long)st.samples, c->out);
		return cli_fail(c->cmd, "%s", err.msg);
	}
	sample_print(c, &st);
	return XB_EXIT_OK;
}

/* ---- flash ---- */

static int probe_flash(const probe_cli *c, xb_probe *p)
{
	char *data;
	size_t len;
	xb_err err;
	if (xb_read_file(c->elf, &data, &len, &err))
		return cli_fail(c->cmd, "%s", err.msg);
	xb_flash_report rep;
	int rc = rp2040_flash_elf(p->adi, (const uint8_t *)data, len, c->elf, 0, &rep, &err);
	free(data);
	if (rc)
		return cli_fail(c->cmd, "%s", err.msg);
	uint32_t dhcsr = 0;
	if (!c->no_run && (cortexm_reset(p->adi, 0, 500000000u, &err) ||
			   cortexm_status(p->adi, &dhcsr, &err)))
		return cli_fail(c->cmd, "flashed and verified, but the reset failed: %s", err.msg);
	const char *state = c->no_run ? "halted" : cortexm_state_name(dhcsr);
	if (c->json) {
		printf("{\"elf\": ");
		xb_json_string(stdout, c->elf);
		printf(", \"segments\": %zu, \"image_bytes\": %zu, \"programmed\": %zu, "
		       "\"preserved\": %zu, \"sectors\": %zu, \"lo\": \"0x%08x\", \"hi\": \"0x%08x\", "
		       "\"seconds\": %.3f, \"verified\": true, \"state\": \"%s\"}\n",
		       rep.segments, rep.image_bytes, rep.programmed, rep.preserved, rep.sectors,
		       RP2040_FLASH_BASE + rep.lo, RP2040_FLASH_BASE + rep.hi, rep.seconds, state);
	} else {
		printf("flashed        %s: %zu bytes in %zu segment%s at 0x%08x-0x%08x\n", c->elf,
		       rep.image_bytes, rep.segments, rep.segments == 1 ? "" : "s",
		       RP2040_FLASH_BASE + rep.lo,
		       RP2040_FLASH_BASE + rep.hi);
		printf("erased         %zu sectors (%zu bytes programmed, %zu kept from before)\n",
		       rep.sectors, rep.programmed, rep.preserved);
		printf("verified       yes (read back through 0x13000000)\n");
		printf("time           %.3f s\n", rep.seconds);
		printf("core           %s%s\n", state, c->no_run ? "" : " after reset");
	}
	return XB_EXIT_OK;
}

/* ---- Options and dispatch ---- */

static int probe_parse(probe_cli *c, int argc, char **argv)
{
	enum { OPT_PROBE = 256, OPT_SOCKET, OPT_SWCLK, OPT_CORE, OPT_SECONDS, OPT_IDLE, OPT_OUT,
	       OPT_ELF, OPT_CLEAR, OPT_JSON, OPT_NO_RUN, OPT_IN_FLIGHT };
	static const struct option longopts[] = {
		{"probe", required_argument, NULL, OPT_PROBE},
		{"socket", required_argument, NULL, OPT_SOCKET},
		{"swclk", required_argument, NULL, OPT_SWCLK},
		{"core", required_argument, NULL, OPT_CORE},
		{"seconds", required_argument, NULL, OPT_SECONDS},
		{"idle-seconds", required_argument, NULL, OPT_IDLE},
		{"out", required_argument, NULL, OPT_OUT},
		{"in-flight", required_argument, NULL, OPT_IN_FLIGHT},
		{"elf", required_argument, NULL, OPT_ELF},
		{"clear", no_argument, NULL, OPT_CLEAR},
		{"no-run", no_argument, NULL, OPT_NO_RUN},
		{"json", no_argument, NULL, OPT_JSON},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	optind = 2; /* after the subcommand */
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_PROBE: c->o.serial = optarg; break;
		case OPT_SOCKET: c->o.socket = optarg; break;
		case OPT_SWCLK: c->swclk = optarg; break;
		case OPT_CORE: c->core = optarg; break;
		case OPT_SECONDS: c->seconds = optarg; break;
		case OPT_IDLE: c->idle_seconds = optarg; break;
		case OPT_OUT: c->out = optarg; break;
		case OPT_IN_FLIGHT: c->in_flight = optarg; break;
		case OPT_ELF: c->elf = optarg; break;
		case OPT_CLEAR: c->clear = 1; break;
		case OPT_NO_RUN: c->no_run = 1; break;
		case OPT_JSON: c->json = 1; break;
		case 'h': cli_print_usage(c->cmd, stdout); return -1;
		case ':': return cli_usage_error(c->cmd, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error(c->cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error(c->cmd, "unexpected argument '%s'", argv[optind]);
	if (c->o.serial && c->o.socket)
		return cli_usage_error(c->cmd, "give --probe SERIAL or --socket PATH, not both");
	uint64_t v;
	if (c->swclk) {
		if (xb_parse_u64(c->swclk, &v) || v < 1000 || v > 100000000)
			return cli_usage_error(c->cmd, "--swclk needs a frequency in Hz from 1000 to "
						       "100000000 (got '%s')",
					       c->swclk);
		c->o.swclk_hz = (uint32_t)v;
	}
	if (c->core) {
		if (xb_parse_u64(c->core, &v) || v > 1)
			return cli_usage_error(c->cmd, "--core needs 0 or 1 (got '%s')", c->core);
		c->o.core = (unsigned)v;
	}
	int is_sample = strcmp(c->sub, "sample") == 0, is_flash = strcmp(c->sub, "flash") == 0;
	int is_counters = strcmp(c->sub, "counters") == 0;
	if (is_sample && (!c->seconds || !c->out))
		return cli_usage_error(c->cmd, "probe sample needs --seconds S and --out FILE");
	if (is_sample && strtod(c->seconds, NULL) <= 0)
		return cli_usage_error(c->cmd, "--seconds needs a duration above 0 (got '%s')",
				       c->seconds);
	if (!is_sample && (c->seconds || c->idle_seconds || c->out || c->in_flight))
		return cli_usage_error(c->cmd, "--seconds, --idle-seconds, --out and --in-flight "
						"go with 'probe sample'");
	if (is_flash != (c->elf != NULL))
		return cli_usage_error(c->cmd, is_flash ? "probe flash needs --elf FILE"
							: "--elf goes with 'probe flash'");
	if (c->no_run && !is_flash)
		return cli_usage_error(c->cmd, "--no-run goes with 'probe flash'");
	if (c->clear && !is_counters)
		return cli_usage_error(c->cmd, "--clear goes with 'probe counters'");
	if (strcmp(c->sub, "list") == 0 &&
	    (c->o.serial || c->o.socket || c->swclk || c->core))
		return cli_usage_error(c->cmd, "probe list takes only --json");
	return XB_EXIT_OK;
}

static int run_probe(int argc, char **argv)
{
	probe_cli c = {.cmd = argv[0]};
	static const char *const subs[] = {"list", "info", "sample", "counters", "flash", NULL};
	if (argc < 2)
		return cli_usage_error(c.cmd, "which one: list, info, sample, counters or flash?");
	for (int i = 0; subs[i]; i++)
		if (strcmp(argv[1], subs[i]) == 0)
			c.sub = subs[i];
	if (!c.sub)
		return cli_usage_error(c.cmd, "unknown subcommand '%s' (list, info, sample, "
					      "counters, flash)",
				       argv[1]);
	int rc = probe_parse(&c, argc, argv);
	if (rc)
		return rc < 0 ? XB_EXIT_OK : rc;
	if (strcmp(c.sub, "list") == 0)
		return probe_list(&c);
	if (strcmp(c.sub, "info") == 0)
		return probe_info(&c);
	xb_probe p;
	xb_err err;
	if (probe_open(&p, &c.o, &err))
		return cli_fail(c.cmd, "%s", err.msg);
	if (strcmp(c.sub, "sample") == 0)
		rc = probe_sample(&c, &p);
	else if (strcmp(c.sub, "counters") == 0)
		rc = probe_counters(&c, &p);
	else
		rc = probe_flash(&c, &p);
	probe_close(&p);
	if (fflush(stdout) != 0)
		return cli_fail(c.cmd, "cannot write the output");
	return rc;
}

const xb_command cmd_probe = {
	.name = "probe",
	.summary = "a CMSIS-DAP probe or the virtual one: PC samples, XIP counters, flashing",
	.usage =
		"usage: xipbench probe list|info|sample|counters|flash [options]\n"
		"\n"
		"  xipbench probe list [--json]\n"
		"  xipbench probe info [PROBE] [--json]\n"
		"  xipbench probe sample [PROBE] --seconds S [--idle-seconds S] --out FILE [--json]\n"
		"  xipbench probe counters [PROBE] [--clear] [--json]\n"
		"  xipbench probe flash [PROBE] --elf FILE [--no-run] [--json]\n"
		"\n"
		"The host side of debugging an RP2040 over SWD: a CMSIS-DAP probe on USB (v2 bulk\n"
		"or v1 HID; a Raspberry Pi Debug Probe is 2e8a:000c), or the virtual Pico's probe\n"
		"behind a Unix socket (`xipbench sim serve --probe-socket PATH`). Every command\n"
		"but list connects to core 0's debug port (multidrop SWD).\n"
		"\n"
		"  list      CMSIS-DAP probes on USB: VID:PID, product, serial (\"none\")\n"
		"  info      the probe (DAP_Info) and the target (DPIDR, TARGETID, DLPIDR, AP,\n"
		"            CPUID, whether the core runs, sleeps or is halted)\n"
		"  sample    PC samples (DWT_PCSR) to a sample file, without stopping the core:\n"
		"            a busy window of --seconds, then an idle window of --idle-seconds\n"
		"            (stop the traffic when told); sleeping and idle samples are flagged\n"
		"  counters  the XIP cache's CTR_HIT and CTR_ACC; --clear zeroes them after\n"
		"  flash     program an ELF's loadable segments into flash through the bootrom,\n"
		"            verify them, then reset and run (--no-run: leave the core halted)\n"
		"\n"
		"PROBE options:\n"
		"  --probe SERIAL   the USB probe with this serial number (default: the only one)\n"
		"  --socket PATH    the virtual probe behind this Unix socket instead of USB\n"
		"  --swclk HZ       SWD clock (default 10000000)\n"
		"  --core N         0 or 1: which core's debug port (default 0)\n"
		"other options:\n"
		"  --seconds S      sample: the busy window (required)\n"
		"  --idle-seconds S sample: the idle window after it (default 0: none)\n"
		"  --out FILE       sample: the sample file to write (binary, docs/formats-samples.md)\n"
		"  --in-flight N    sample: packets in flight (default: the probe's packet count)\n"
		"  --clear          counters: clear them after reading\n"
		"  --elf FILE       flash: the image\n"
		"  --no-run         flash: do not reset and run afterwards\n"
		"  --json           print one JSON object (keys in docs/cli.md)\n"
		"  -h, --help       print this text\n"
		"\n"
		"exit status: 0 done, 1 no probe, a probe or target error (the message says which),\n"
		"2 usage error\n",
	.run = run_probe,
};
