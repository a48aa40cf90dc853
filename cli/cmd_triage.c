/* cmd_triage: `xipbench triage`: why is this build slow? The rules of core/triage on an
 * image, its samples, its build configuration and (given) XIP_CTRL. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/mpu.h"
#include "../core/opt.h"
#include "../core/trace.h"
#include "../core/triage.h"
#include "cli.h"
#include "experiment.h"
#include "load.h"

static const char usage[] =
	"usage: xipbench triage ELF [--map MAP] [--samples FILE] [--trace FILE]\n"
	"                       [--config FILE] [--xip-ctrl VALUE] [--mpu FILE] [--target NAME]\n"
	"                       [--groups FILE] [--json]\n"
	"       xipbench triage NEW.elf --compare OLD.elf [--old-map MAP] [--old-samples FILE]\n"
	"                       [--old-trace FILE] [the options above]\n"
	"       xipbench triage --zephyr BUILD_DIR | --pico-sdk BUILD_DIR [...]\n"
	"       xipbench triage ELF --bench virtual|probe[:SERIAL] [--pings N] [--ping-size N]\n"
	"                       [--udp-rate N --udp-seconds S] [probe bench options]\n"
	"\n"
	"Why is this build slow? Rules look at the image, its PC samples, its build\n"
	"configuration and the cache's control register, and each finding says how severe\n"
	"it is, the evidence it rests on (numbers, registers, functions, flags) and a fix:\n"
	"the flash cache off or bypassed, hot lines that evict each other, byte-at-a-time\n"
	"copy and checksum loops, the optimisation level, debug features on the hot path,\n"
	"and how the traffic window is spent; with a trace, one echo's footprint against\n"
	"the cache and code reused in the non-allocating alias. docs/triage.md describes\n"
	"every rule.\n"
	"\n"
	"  ELF              the linked firmware (--elf ELF, the same)\n"
	"  --zephyr DIR     a Zephyr build folder: its image, map and .config\n"
	"  --pico-sdk DIR   a pico-sdk build folder: its image, map and CMakeCache.txt\n"
	"  --map MAP        its GNU ld map (default: next to the ELF, if present)\n"
	"  --samples FILE   PC samples taken during traffic (docs/formats-samples.md), as\n"
	"                   the workbench, `probe sample` and `experiment` record them\n"
	"  --trace FILE     a fetch trace with echo boundaries (docs/formats-target-trace.md),\n"
	"                   as `xipbench experiment` (profiles/ping.trace) records it\n"
	"  --config FILE    the build's configuration: a Zephyr .config or a CMakeCache.txt\n"
	"  --xip-ctrl VALUE XIP_CTRL as read from the board (e.g. with `xipbench probe`)\n"
	"  --mpu FILE       the MPU's registers as read from an ARMv7-M/ARMv8-M board\n"
	"                   (docs/formats-mpu.md), for a target whose MPU sets the\n"
	"                   flash's cacheability (imxrt1062, rp2350)\n"
	"  --target NAME    target name or file (default rp2040)\n"
	"  --groups FILE    grouping file (default: the shipped groups/default.groups)\n"
	"  --compare OLD    the build before: which findings changed, which functions grew,\n"
	"                   moved or changed library, the code in flash and (with both\n"
	"                   traces) the predicted misses per echo, old against new\n"
	"  --old-map, --old-samples, --old-trace FILE\n"
	"                   the old build's map, samples and trace\n"
	"  --bench virtual  run the image on the virtual Pico first: XIP_CTRL read over\n"
	"                   SWD, PC samples during pings (and UDP echoes) and the fetch\n"
	"                   trace of the run are the triage's inputs\n"
	"  --bench probe[:SERIAL]\n"
	"                   the same on a real board behind a CMSIS-DAP probe, which runs\n"
	"                   ELF already (no trace); its traffic goes to --device-ip (or\n"
	"                   --udp-target), --probe-socket PATH for `sim serve`'s probe,\n"
	"                   --capture SRC for its usbmon records\n"
	"  --pings N        pings during the sampling (default 200, 20 ms apart; 0 with\n"
	"                   --udp-target, whose forwarder carries no ICMP)\n"
	"  --ping-size N    their ICMP data bytes (default 56; up to 1472)\n"
	"  --udp-rate N, --udp-seconds S\n"
	"                   a UDP echo stream after the pings (default none)\n"
	"  --json           print one JSON object (keys in docs/cli.md)\n"
	"\n"
	"Exit status: 0 the triage ran (whatever it found); 1 an input could not be used;\n"
	"2 usage error.\n";

static void print_text(const xb_triage_in *in, const xb_triage *t, const char *samples)
{
	printf("triage of %s%s%s\n", in->img->path, in->img->has_map ? " with its map" : "",
	       samples ? "" : " (no samples: the rules that need them were not checked)");
	if (samples)
		printf("samples   %s: %.0f busy and awake in the traffic window\n", samples,
		       t->busy_samples);
	if (in->have_xip_ctrl)
		printf("XIP_CTRL  0x%08x\n", in->xip_ctrl);
	if (!t->n)
		printf("\nnothing found\n");
	for (size_t i = 0; i < t->n; i++) {
		const xb_finding *f = &t->f[i];
		printf("\n%-8s %s: %s\n", triage_severity_name(f->severity), f->rule, f->summary);
		for (size_t k = 0; k < f->nevidence; k++)
			printf("  evidence  %s\n", f->evidence[k]);
		if (f->gain)
			printf("  gain      %s\n", f->gain);
		if (f->fix)
			printf("  fix       %s\n", f->fix);
		if (f->action)
			printf("  try it    %s (in the workbench)\n", f->action);
	}
	if (t->nskipped)
		printf("\n");
	for (size_t i = 0; i < t->nskipped; i++)
		printf("not checked  %s: %s\n", t->skipped[i].rule, t->skipped[i].why);
}

static void json_or_null(const char *key, const char *v)
{
	printf(", \"%s\": ", key);
	if (v)
		xb_json_string(stdout, v);
	else
		printf("null");
}

static void print_json(const xb_triage_in *in, const xb_triage *t, const char *samples,
		       const char *trace)
{
	printf("{\"elf\": ");
	xb_json_string(stdout, in->img->path);
	json_or_null("map", in->img->has_map ? in->img->map.path : NULL);
	json_or_null("samples", samples);
	json_or_null("trace", trace);
	json_or_null("config", in->config_name);
	printf(", \"target\": ");
	xb_json_string(stdout, in->tg->name);
	if (in->have_xip_ctrl)
		printf(", \"xip_ctrl\": \"0x%08x\"", in->xip_ctrl);
	else
		printf(", \"xip_ctrl\": null");
	printf(", \"busy_samples\": %.0f, \"findings\": [", t->busy_samples);
	for (size_t i = 0; i < t->n; i++) {
		const xb_finding *f = &t->f[i];
		printf("%s{\"rule\": ", i ? ", " : "");
		xb_json_string(stdout, f->rule);
		printf(", \"severity\": \"%s\", \"summary\": ", triage_severity_name(f->severity));
		xb_json_string(stdout, f->summary);
		printf(", \"evidence\": [");
		for (size_t k = 0; k < f->nevidence; k++) {
			printf("%s", k ? ", " : "");
			xb_json_string(stdout, f->evidence[k]);
		}
		printf("]");
		json_or_null("gain", f->gain);
		json_or_null("fix", f->fix);
		json_or_null("action", f->action);
		printf("}");
	}
	printf("], \"not_checked\": [");
	for (size_t i = 0; i < t->nskipped; i++) {
		printf("%s{\"rule\": ", i ? ", " : "");
		xb_json_string(stdout, t->skipped[i].rule);
		printf(", \"why\": ");
		xb_json_string(stdout, t->skipped[i].why);
		printf("}");
	}
	printf("]}\n");
}

/* One build: its image, bytes, samples, trace, configuration and triage. */
typedef struct tbuild {
	const char *samples, *trace, *config;
	int config_given;  /* --config: a missing file is an error, not a folder without one */
	int loaded, ran;
	xb_target tg;
	xb_image img;
	char *elf, *cfg;
	size_t elf_len, cfg_len;
	xb_samples smp;
	xb_trace tr;
	xb_triage_in in;
	xb_triage t;
} tbuild;

static int tbuild_load(tbuild *b, const cli_load_opts *lo)
{
	samples_init(&b->smp);
	trace_init(&b->tr);
	if (cli_load("triage", lo, &b->tg, &b->img) != 0)
		return XB_EXIT_FAIL;
	b->loaded = 1;
	xb_err err;
	if (xb_read_file(lo->elf, &b->elf, &b->elf_len, &err) != 0 ||
	    (b->samples && samples_read_file(&b->smp, b->samples, &err) != 0) ||
	    (b->trace && trace_read_file(&b->tr, b->trace, &err) != 0))
		return cli_fail("triage", "%s", err.msg);
	if (b->config && xb_read_file(b->config, &b->cfg, &b->cfg_len, &err) != 0) {
		if (b->config_given)
			return cli_fail("triage", "%s", err.msg);
		b->config = NULL; /* a build folder without its configuration file */
	}
	b->in = (xb_triage_in){.img = &b->img, .tg = &b->tg,
			       .samples = b->samples ? &b->smp : NULL,
			       .trace = b->trace ? &b->tr : NULL,
			       .elf = (const uint8_t *)b->elf, .elf_len = b->elf_len,
			       .config = b->cfg,
			       .config_name = b->config};
	return XB_EXIT_OK;
}

static int tbuild_run(tbuild *b)
{
	xb_err err;
	if (triage_run(&b->in, &b->t, &err) != 0)
		return cli_fail("triage", "%s", err.msg);
	b->ran = 1;
	return XB_EXIT_OK;
}

static void tbuild_free(tbuild *b)
{
	if (b->ran)
		triage_free(&b->t);
	if (b->loaded)
		image_free(&b->img);
	samples_free(&b->smp);
	trace_free(&b->tr);
	free(b->elf);
	free(b->cfg);
}

/* Predicted misses per echo of a build's own trace through the target's cache, or -1. */
static double predicted(const tbuild *b, const xb_target *tg)
{
	xb_replay r;
	xb_err err;
	if (!b->trace || replay_trace(tg, &b->tr, &r, &err) != 0)
		return -1;
	return r.misses_per_echo;
}

static const char *sev_or_none(int s)
{
	return s < 0 ? "none" : triage_severity_name((enum xb_severity)s);
}

static int print_compare(const tbuild *o, const tbuild *n, const xb_target *tg, int json)
{
	xb_triage_compare c;
	triage_compare(&o->img, &n->img, tg, &o->t, &n->t, &c);
	double po = predicted(o, tg), pn = predicted(n, tg);
	uint32_t line = tg->cache.line ? tg->cache.line : 1;
	if (json) {
		printf("{\"old\": ");
		xb_json_string(stdout, o->img.path);
		printf(", \"new\": ");
		xb_json_string(stdout, n->img.path);
		printf(", \"findings\": [");
		for (size_t i = 0; i < c.nchanges; i++) {
			const xb_triage_change *ch = &c.changes[i];
			printf("%s{\"rule\": \"%s\", \"change\": \"%s\", \"old_severity\": \"%s\", "
			       "\"new_severity\": \"%s\"",
			       i ? ", " : "", ch->rule,
			       ch->old_severity < 0 ? "new" : ch->new_severity < 0 ? "gone" : "changed",
			       sev_or_none(ch->old_severity), sev_or_none(ch->new_severity));
			printf(", \"old_summary\": ");
			ch->old_summary ? xb_json_string(stdout, ch->old_summary) : (void)printf("null");
			printf(", \"new_summary\": ");
			ch->new_summary ? xb_json_string(stdout, ch->new_summary) : (void)printf("null");
			printf("}");
		}
		printf("], \"functions\": {\"both\": %zu, \"added\": %zu, \"removed\": %zu, "
		       "\"shrank\": %zu, \"moved\": %zu, \"moved_sets\": %zu, \"grew\": [",
		       c.both, c.added, c.removed, c.shrank, c.moved, c.moved_sets);
		for (size_t i = 0; i < c.ngrew; i++) {
			printf("%s{\"name\": ", i ? ", " : "");
			xb_json_string(stdout, c.grew[i].name);
			printf(", \"old_size\": %u, \"new_size\": %u}", c.grew[i].old_size,
			       c.grew[i].new_size);
		}
		printf("], \"library_changed\": [");
		for (size_t i = 0; i < c.nrelibbed; i++) {
			printf("%s{\"name\": ", i ? ", " : "");
			xb_json_string(stdout, c.relibbed[i].name);
			printf(", \"old_library\": ");
			xb_json_string(stdout, c.relibbed[i].old_library);
			printf(", \"new_library\": ");
			xb_json_string(stdout, c.relibbed[i].new_library);
			printf("}");
		}
		printf("]}, \"flash_bytes\": {\"old\": %llu, \"new\": %llu}",
		       (unsigned long long)c.old_flash, (unsigned long long)c.new_flash);
		if (po >= 0 && pn >= 0)
			printf(", \"predicted_misses_per_echo\": {\"old\": %.1f, \"new\": %.1f}}\n",
			       po, pn);
		else
			printf(", \"predicted_misses_per_echo\": null}\n");
		triage_compare_free(&c);
		return XB_EXIT_OK;
	}
	printf("triage of %s against %s\n", n->img.path, o->img.path);
	printf("\nfindings  %zu changed\n", c.nchanges);
	for (size_t i = 0; i < c.nchanges; i++) {
		const xb_triage_change *ch = &c.changes[i];
		printf("  %-8s %s: %s -> %s: %s\n",
		       ch->old_severity < 0 ? "new" : ch->new_severity < 0 ? "gone" : "changed",
		       ch->rule, sev_or_none(ch->old_severity), sev_or_none(ch->new_severity),
		       ch->new_summary ? ch->new_summary : ch->old_summary);
	}
	printf("\nfunctions %zu in both, %zu added, %zu removed; %zu grew, %zu shrank, %zu moved "
	       "(%zu to other cache sets)\n",
	       c.both, c.added, c.removed, c.ngrew, c.shrank, c.moved, c.moved_sets);
	for (size_t i = 0; i < c.ngrew && i < 10; i++)
		printf("  grew     %s: %u -> %u bytes (+%u)\n", c.grew[i].name, c.grew[i].old_size,
		       c.grew[i].new_size, c.grew[i].new_size - c.grew[i].old_size);
	for (size_t i = 0; i < c.nrelibbed && i < 10; i++)
		printf("  library  %s: %s -> %s\n", c.relibbed[i].name, c.relibbed[i].old_library,
		       c.relibbed[i].new_library);
	printf("\ncode in flash %llu -> %llu bytes (%+lld, %+.0f cache lines)\n",
	       (unsigned long long)c.old_flash, (unsigned long long)c.new_flash,
	       (long long)c.new_flash - (long long)c.old_flash,
	       ((double)c.new_flash - (double)c.old_flash) / line);
	if (po >= 0 && pn >= 0)
		printf("predicted misses per echo (each build's trace through the cache model): "
		       "%.1f -> %.1f (%+.1f)\n", po, pn, pn - po);
	else
		printf("predicted misses per echo: not computed (give --trace and --old-trace)\n");
	triage_compare_free(&c);
	return XB_EXIT_OK;
}

/* ---- On a bench: the board's registers over SWD, samples and a trace from a run ---- */

typedef struct tbench {
	const char *kind;           /* "virtual", "probe" or "probe:SERIAL" */
	xb_probe_bench_options probe;
	unsigned pings, ping_size;
	double udp_rate, udp_seconds;
	const xb_target *tg;
	int have_ctrl;
	uint32_t ctrl;
	int have_mpu;
	xb_mpu mpu;
	char label[160];            /* what the samples came from, for the output */
} tbench;

/* XIP_CTRL over SWD, at the target's address (a target without it: not read), and the MPU
 * where the target's flash cacheability is the MPU's. */
static int bench_ready(xb_session *s, void *ctx, xb_err *err)
{
	tbench *b = ctx;
	xb_report rep;
	if (b->tg->mpu != XB_MPU_NONE) {
		if (session_read_mpu(s, &b->mpu, &rep) != 0)
			return xb_fail(err, "%s", rep.msg);
		b->have_mpu = 1;
	}
	if (!b->tg->reg_ctrl)
		return 0;
	xb_mem_access a = {.addr = b->tg->reg_ctrl};
	if (session_swd_access(s, &a, 1, &rep) != 0)
		return xb_fail(err, "reading XIP_CTRL (0x%08x) over SWD: %s", b->tg->reg_ctrl, rep.msg);
	b->have_ctrl = 1;
	b->ctrl = a.value;
	return 0;
}

/* Runs the bench: b's samples and (virtual) trace replace the build's. */
static int bench_run(tbench *bn, tbuild *b, const char *elf, const char *map)
{
	char trace[] = "/tmp/xipbench-triage-XXXXXX";
	int virt = strcmp(bn->kind, "virtual") == 0;
	if (virt) {
		int fd = mkstemp(trace);
		if (fd < 0)
			return cli_fail("triage", "cannot create a trace file: %s", strerror(errno));
		close(fd);
	}
	bn->tg = &b->tg;
	exp_board board = {.map = map};
	exp_profile_req req = {.board = &board, .pings = bn->pings, .ping_size = bn->ping_size,
			       .interval_ms = 20,
			       .udp_rate = (uint32_t)bn->udp_rate, .udp_seconds = bn->udp_seconds,
			       .trace_path = virt ? trace : NULL, .samples_out = &b->smp,
			       .probe = virt ? NULL : &bn->probe, .ready = bench_ready,
			       .ready_ctx = bn};
	if (!virt && bn->kind[5] == ':')
		bn->probe.serial = bn->kind + 6;
	bn->probe.tg = &b->tg;
	xb_err err;
	int rc = exp_profile(&b->tg, elf, &req, &err);
	if (rc == 0 && virt)
		rc = trace_read_file(&b->tr, trace, &err);
	if (virt)
		unlink(trace);
	if (rc != 0)
		return cli_fail("triage", "the %s bench: %s", virt ? "virtual" : "probe", err.msg);
	if (bn->pings)
		snprintf(bn->label, sizeof bn->label, "the %s bench: %llu PC samples during %u pings "
			 "of %u bytes%s",
			 virt ? "virtual" : "probe", (unsigned long long)req.samples, bn->pings,
			 bn->ping_size, bn->udp_rate > 0 ? " and UDP echoes" : "");
	else
		snprintf(bn->label, sizeof bn->label, "the %s bench: %llu PC samples during UDP "
			 "echoes", virt ? "virtual" : "probe", (unsigned long long)req.samples);
	b->in.samples = &b->smp;
	b->in.trace = virt ? &b->tr : NULL;
	b->in.have_xip_ctrl = bn->have_ctrl;
	b->in.xip_ctrl = bn->ctrl;
	if (bn->have_mpu)
		b->in.mpu = &bn->mpu;
	return XB_EXIT_OK;
}

static int parse_number(const char *text, double *v)
{
	char *end;
	errno = 0;
	*v = strtod(text, &end);
	return !*text || *end || errno || *v != *v ? -1 : 0;
}

static int run_triage(int argc, char **argv)
{
	enum { O_GROUPS = 1, O_SAMPLES, O_TRACE, O_CONFIG, O_XIP, O_JSON, O_COMPARE, O_OLD_MAP,
	       O_OLD_SAMPLES, O_OLD_TRACE, O_BENCH, O_PINGS, O_PING_SIZE, O_UDP_RATE, O_UDP_SECONDS,
	       O_PROBE_SOCKET, O_CAPTURE, O_DEVICE_IP, O_UDP_TARGET, O_NETIF, O_MPU };
	static const struct option opts[] = {
		CLI_LOAD_LONGOPTS,
		{"groups", required_argument, 0, O_GROUPS},
		{"samples", required_argument, 0, O_SAMPLES},
		{"trace", required_argument, 0, O_TRACE},
		{"config", required_argument, 0, O_CONFIG},
		{"xip-ctrl", required_argument, 0, O_XIP},
		{"json", no_argument, 0, O_JSON},
		{"compare", required_argument, 0, O_COMPARE},
		{"old-map", required_argument, 0, O_OLD_MAP},
		{"old-samples", required_argument, 0, O_OLD_SAMPLES},
		{"old-trace", required_argument, 0, O_OLD_TRACE},
		{"bench", required_argument, 0, O_BENCH},
		{"pings", required_argument, 0, O_PINGS},
		{"ping-size", required_argument, 0, O_PING_SIZE},
		{"udp-rate", required_argument, 0, O_UDP_RATE},
		{"udp-seconds", required_argument, 0, O_UDP_SECONDS},
		{"probe-socket", required_argument, 0, O_PROBE_SOCKET},
		{"capture", required_argument, 0, O_CAPTURE},
		{"device-ip", required_argument, 0, O_DEVICE_IP},
		{"udp-target", required_argument, 0, O_UDP_TARGET},
		{"netif", required_argument, 0, O_NETIF},
		{"mpu", required_argument, 0, O_MPU},
		{0, 0, 0, 0},
	};
	cli_load_opts lo = {0};
	const char *samples = NULL, *trace = NULL, *config = NULL, *xip = NULL, *mpu = NULL;
	const char *compare = NULL, *old_map = NULL, *old_samples = NULL, *old_trace = NULL;
	int json = 0, c, probe_opts = 0;
	tbench bn = {.pings = 200, .ping_size = 56};
	const char *pings = NULL, *ping_size = NULL, *udp_rate = NULL, *udp_seconds = NULL;
	cli_build_arg ba = {NULL, XB_BUILD_OTHER, 0};
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (cli_load_option(c, optarg, &lo, &ba))
			continue;
		switch (c) {
		case O_GROUPS: lo.groups = optarg; break;
		case O_SAMPLES: samples = optarg; break;
		case O_TRACE: trace = optarg; break;
		case O_CONFIG: config = optarg; break;
		case O_XIP: xip = optarg; break;
		case O_JSON: json = 1; break;
		case O_COMPARE: compare = optarg; break;
		case O_OLD_MAP: old_map = optarg; break;
		case O_OLD_SAMPLES: old_samples = optarg; break;
		case O_OLD_TRACE: old_trace = optarg; break;
		case O_BENCH: bn.kind = optarg; break;
		case O_PINGS: pings = optarg; break;
		case O_PING_SIZE: ping_size = optarg; break;
		case O_UDP_RATE: udp_rate = optarg; break;
		case O_UDP_SECONDS: udp_seconds = optarg; break;
		case O_PROBE_SOCKET: bn.probe.socket = optarg; probe_opts = 1; break;
		case O_CAPTURE: bn.probe.capture = optarg; probe_opts = 1; break;
		case O_DEVICE_IP: bn.probe.device_ip = optarg; probe_opts = 1; break;
		case O_UDP_TARGET: bn.probe.udp_target = optarg; probe_opts = 1; break;
		case O_NETIF: bn.probe.netif = optarg; probe_opts = 1; break;
		case O_MPU: mpu = optarg; break;
		default:
			return cli_usage_error("triage", "unknown or incomplete option '%s'",
					       argv[optind - 1]);
		}
	}
	if (optind < argc && !lo.elf)
		lo.elf = argv[optind++];
	if (optind < argc)
		return cli_usage_error("triage", "unexpected argument '%s'", argv[optind]);
	uint32_t xip_value = 0;
	if (xip) {
		char *end;
		unsigned long v = strtoul(xip, &end, 0);
		if (!*xip || *end || v > 0xFFFFFFFFul)
			return cli_usage_error("triage", "--xip-ctrl needs a 32-bit value (got '%s')",
					       xip);
		xip_value = (uint32_t)v;
	}
	if (bn.kind) {
		if (strcmp(bn.kind, "virtual") != 0 && strcmp(bn.kind, "probe") != 0 &&
		    !(strncmp(bn.kind, "probe:", 6) == 0 && bn.kind[6]))
			return cli_usage_error("triage", "--bench %s: virtual, probe or probe:SERIAL",
					       bn.kind);
		if (samples || trace || xip || mpu)
			return cli_usage_error("triage", "--bench measures the samples, the trace, "
						       "XIP_CTRL and the MPU itself: no --samples, "
						       "--trace, --xip-ctrl or --mpu");
		if (compare)
			return cli_usage_error("triage", "--bench triages one build: compare two "
						       "with their recorded samples and traces");
		if (probe_opts && strcmp(bn.kind, "virtual") == 0)
			return cli_usage_error("triage", "--probe-socket, --capture, --device-ip, "
						       "--udp-target and --netif go with --bench probe");
		uint64_t v = 0;
		if (pings && (xb_parse_u64(pings, &v) != 0 || v > 100000))
			return cli_usage_error("triage", "--pings needs a count from 0 to 100000 "
						       "(got '%s')", pings);
		if (pings)
			bn.pings = (unsigned)v;
		else if (bn.probe.udp_target)
			bn.pings = 0; /* ICMP goes nowhere through a UDP forwarder */
		if (ping_size && (xb_parse_u64(ping_size, &v) != 0 || v > 1472))
			return cli_usage_error("triage", "--ping-size needs ICMP data bytes from 0 to "
						       "1472 (got '%s')", ping_size);
		if (ping_size)
			bn.ping_size = (unsigned)v;
		if (udp_rate && (parse_number(udp_rate, &bn.udp_rate) != 0 || bn.udp_rate < 1 ||
				 bn.udp_rate > 100000))
			return cli_usage_error("triage", "--udp-rate needs datagrams per second from "
						       "1 to 100000 (got '%s')", udp_rate);
		if (!bn.pings && !udp_rate)
			return cli_usage_error("triage", "no traffic: give --udp-rate (with --udp-target "
						       "or --pings 0 there are no pings)");
		bn.udp_seconds = 2;
		if (udp_seconds && (parse_number(udp_seconds, &bn.udp_seconds) != 0 ||
				    bn.udp_seconds <= 0 || bn.udp_seconds > 600))
			return cli_usage_error("triage", "--udp-seconds needs seconds up to 600 "
						       "(got '%s')", udp_seconds);
	} else if (pings || ping_size || udp_rate || udp_seconds || probe_opts) {
		return cli_usage_error("triage", "--pings, --ping-size, --udp-rate, --udp-seconds and the probe "
					       "bench's options go with --bench");
	}
	if (!compare && (old_map || old_samples || old_trace))
		return cli_usage_error("triage", "--old-map, --old-samples and --old-trace go with "
					       "--compare OLD");
	const xb_build_folder *build;
	int brc = cli_load_build("triage", ba.kind, ba.dir, ba.n, &lo, &build);
	if (brc != XB_EXIT_OK)
		return brc;
	if (!lo.elf)
		return cli_usage_error("triage", "no ELF given");
	char *cfg_path = NULL;
	if (!config && build) /* the folder's own configuration */
		cfg_path = xasprintf(build->kind == XB_BUILD_ZEPHYR ? "%s/zephyr/.config"
								    : "%s/CMakeCache.txt",
				     build->dir);
	tbuild nb = {.samples = samples, .trace = trace,
		     .config = config ? config : cfg_path, .config_given = config != NULL};
	tbuild ob = {.samples = old_samples, .trace = old_trace};
	int rc = tbuild_load(&nb, &lo);
	xb_mpu mpu_regs;
	if (rc == XB_EXIT_OK && mpu) {
		xb_err merr;
		if (mpu_load_file(&mpu_regs, mpu, &merr) != 0)
			rc = cli_fail("triage", "%s", merr.msg);
		else if (nb.tg.mpu == XB_MPU_NONE)
			rc = cli_fail("triage", "--mpu: the target %s has no MPU that sets the flash's "
					      "cacheability (its target file says mpu = none)",
				      nb.tg.name);
		else if (mpu_regs.arch != nb.tg.mpu)
			rc = cli_fail("triage", "--mpu %s: the dump is %s, the target %s is %s", mpu,
				      target_mpu_name(mpu_regs.arch), nb.tg.name,
				      target_mpu_name(nb.tg.mpu));
		else
			nb.in.mpu = &mpu_regs;
	}
	if (rc == XB_EXIT_OK) {
		nb.in.have_xip_ctrl = xip != NULL;
		nb.in.xip_ctrl = xip_value;
		if (bn.kind)
			rc = bench_run(&bn, &nb, lo.elf, nb.img.has_map ? nb.img.map.path : NULL);
		if (rc == XB_EXIT_OK)
			rc = tbuild_run(&nb);
	}
	if (bn.kind) {
		samples = bn.label;
		trace = strcmp(bn.kind, "virtual") == 0 ? "recorded on the virtual bench" : NULL;
	}
	if (rc == XB_EXIT_OK && compare) {
		cli_load_opts olo = lo;
		olo.elf = compare;
		olo.map = old_map;
		rc = tbuild_load(&ob, &olo);
		if (rc == XB_EXIT_OK)
			rc = tbuild_run(&ob);
	}
	if (rc == XB_EXIT_OK) {
		if (compare)
			rc = print_compare(&ob, &nb, &nb.tg, json);
		else if (json)
			print_json(&nb.in, &nb.t, samples, trace);
		else
			print_text(&nb.in, &nb.t, samples);
		if (fflush(stdout) != 0)
			rc = cli_fail("triage", "cannot write the output");
	}
	tbuild_free(&nb);
	tbuild_free(&ob);
	free(cfg_path);
	return rc;
}

const xb_command cmd_triage = {
	.name = "triage",
	.summary = "why is this build slow: findings with evidence and fixes",
	.usage = usage,
	.run = run_triage,
};
