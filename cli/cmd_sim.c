/* cmd_sim: `xipbench sim run`: run a firmware image on the virtual Pico and report cycles,
 * instructions, XIP cache counters, faults and where the core stopped; with the USB host and
 * the network peer, echo traffic and its metrics (cli/sim_net.c); `xipbench sim serve`
 * (cli/sim_serve.c). */
#include "cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../sim/pico.h"
#include "../sim/realtime.h"
#include "../sim/unmodelled.h"
#include "load.h"
#include "sim_net.h"

/* Where UART0's bytes go while the firmware runs. */
typedef struct sim_uart {
	FILE *f;
	int last; /* the last byte written, -1 before the first */
} sim_uart;

static void sim_uart_byte(void *ctx, uint8_t byte)
{
	sim_uart *u = ctx;
	fputc(byte, u->f);
	fflush(u->f);
	u->last = byte;
}

/* The fetch trace goes to a temporary file renamed over --trace FILE once complete. */
typedef struct sim_trace {
	char *tmp;
	FILE *f;
	xb_trace_stream s;
} sim_trace;

static int sim_trace_open(const char *cmd, const char *path, sim_trace *t)
{
	t->tmp = xasprintf("%s.XXXXXX", path);
	int fd = mkstemp(t->tmp);
	if (fd < 0 || !(t->f = fdopen(fd, "wb"))) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		cli_fail(cmd, "%s: cannot create the trace file: %s", path, strerror(e));
		free(t->tmp);
		t->tmp = NULL;
		return -1;
	}
	trace_stream_open(&t->s, t->f);
	return 0;
}

static int sim_trace_close(const char *cmd, const char *path, sim_trace *t, int keep)
{
	int bad = trace_stream_close(&t->s) != 0;
	bad |= fclose(t->f) != 0;
	if (keep && !bad && rename(t->tmp, path) == 0) {
		free(t->tmp);
		return 0;
	}
	unlink(t->tmp);
	free(t->tmp);
	if (keep)
		return cli_fail(cmd, "%s: cannot write the trace file", path);
	return 0;
}

/* How the last run's image booted (sim run). */
static xb_boot_info boot_info;

/* A fault as the report's "NAME  text" line, or as a JSON string (null without one). */
static void sim_print_fault_text(const char *name, const xb_fault *f)
{
	xb_strbuf sb = {0};
	board_format_fault(f, &sb);
	printf("%-14s %s\n", name, sb.buf);
	sb_free(&sb);
}

static void sim_print_fault_json(const xb_fault *f)
{
	if (!f) {
		printf("null");
		return;
	}
	xb_strbuf sb = {0};
	board_format_fault(f, &sb);
	xb_json_string(stdout, sb.buf);
	sb_free(&sb);
}

static void sim_print_text(const sim_options *o, const xb_load_info *li,
			   const xb_pico_summary *s, const sim_net *net)
{
	printf("image          %s (%s, %zu bytes in 0x%08x-0x%08x)\n", o->image,
	       loader_format_name(li->format), li->bytes, li->lo, li->hi);
	printf("boot           %s", boot_info.used == XB_BOOT_BOOT2 ? "through boot2" : "direct start");
	if (boot_info.used == XB_BOOT_BOOT2 || boot_info.requested == XB_BOOT_BOOT2)
		printf(" (boot2 CRC 0x%08x, image 0x%08x: %s)", boot_info.crc_computed,
		       boot_info.crc_image, boot_info.boot2_valid ? "valid" : "mismatch");
	if (boot_info.usb_boot)
		printf("; the chip would enter USB boot");
	printf("\n");
	printf("result         %s\n", pico_stop_name(s->stop));
	if (s->usb_boot)
		printf("usb boot       the firmware asked for USB boot (reset_to_usb_boot, "
		       "activity gpio mask 0x%x, disable interface mask 0x%x)\n",
		       s->usb_boot_gpio_mask, s->usb_boot_disable_mask);
	printf("cycles         %llu (%.6f s at %u Hz)\n", (unsigned long long)s->cycles,
	       (double)s->cycles / s->cpu_hz, s->cpu_hz);
	printf("instructions   %llu\n", (unsigned long long)s->instructions);
	printf("sleep cycles   %llu\n", (unsigned long long)s->sleep_cycles);
	printf("exceptions     %llu\n", (unsigned long long)s->exceptions);
	printf("xip accesses   %llu\n", (unsigned long long)s->xip_accesses);
	printf("xip hits       %llu", (unsigned long long)s->xip_hits);
	if (s->xip_accesses)
		printf(" (%.2f %%)", 100.0 * (double)s->xip_hits / (double)s->xip_accesses);
	printf("\nxip misses     %llu\n", (unsigned long long)s->xip_misses);
	if (s->xip_unanswered)
		printf("xip unanswered %llu (flash reads while the flash could not answer: on the "
		       "chip they return garbage; the log says when and why)\n",
		       (unsigned long long)s->xip_unanswered);
	printf("faults         %llu\n", (unsigned long long)s->faults);
	if (s->faults)
		sim_print_fault_text("last fault", &s->last_fault);
	printf("final pc       0x%08x\n", s->pc);
	if (strcmp(s->core1_state, "absent") != 0) {
		printf("core 1         %s, pc 0x%08x, %llu instructions, %llu faults\n",
		       s->core1_state, s->core1_pc, (unsigned long long)s->core1_instructions,
		       (unsigned long long)s->core1_faults);
		if (s->core1_faults)
			sim_print_fault_text("core 1 fault", &s->core1_last_fault);
	}
	printf("uart bytes     %llu\n", (unsigned long long)s->uart_bytes);
	printf("unmapped       %llu\n", (unsigned long long)s->unmapped);
	printf("timer          %llu us\n", (unsigned long long)s->timer_us);
	sim_net_print_text(net, stdout);
}

/* --peripherals: the registers the firmware touched that nothing models, as a table. */
static void sim_print_unmodelled_text(xb_unmodelled *u)
{
	size_t n;
	const xb_unmod_reg *r = unmodelled_list(u, &n);
	if (n == 0) {
		printf("unmodelled     none (every register the firmware touched is modelled)\n");
		return;
	}
	printf("unmodelled     %zu register%s the board does not model:\n", n, n == 1 ? "" : "s");
	printf("  %-20s %-7s %-10s %10s %10s  %s\n", "block", "offset", "address", "reads",
	       "writes", "first pc");
	for (size_t i = 0; i < n; i++) {
		char off[16] = "-"; /* no offset outside the address map's blocks */
		if (strcmp(r[i].block, "-") != 0)
			snprintf(off, sizeof off, "0x%03x", r[i].offset);
		printf("  %-20s %-7s 0x%08x %10llu %10llu  0x%08x\n", r[i].block, off, r[i].addr,
		       (unsigned long long)r[i].reads, (unsigned long long)r[i].writes,
		       r[i].first_pc);
	}
	if (unmodelled_dropped(u))
		printf("  (%llu more accesses to registers beyond the first %u)\n",
		       (unsigned long long)unmodelled_dropped(u), XB_UNMOD_MAX);
}

static void sim_print_unmodelled_json(xb_unmodelled *u)
{
	size_t n;
	const xb_unmod_reg *r = unmodelled_list(u, &n);
	printf(", \"unmodelled\": [");
	for (size_t i = 0; i < n; i++) {
		printf("%s{\"block\": ", i ? ", " : "");
		xb_json_string(stdout, r[i].block);
		printf(", \"offset\": \"0x%03x\", \"address\": \"0x%08x\", \"reads\": %llu, "
		       "\"writes\": %llu, \"first_pc\": \"0x%08x\"}",
		       r[i].offset, r[i].addr, (unsigned long long)r[i].reads,
		       (unsigned long long)r[i].writes, r[i].first_pc);
	}
	printf("], \"unmodelled_dropped\": %llu", (unsigned long long)unmodelled_dropped(u));
}

static void sim_print_json(const sim_options *o, const xb_load_info *li,
			   const xb_pico_summary *s, const sim_net *net, xb_unmodelled *u)
{
	printf("{\"image\": ");
	xb_json_string(stdout, o->image);
	printf(", \"format\": \"%s\", \"loaded_bytes\": %zu", loader_format_name(li->format),
	       li->bytes);
	printf(", \"result\": \"%s\", \"cycles\": %llu, \"cpu_hz\": %u, \"seconds\": %.9f",
	       pico_stop_name(s->stop), (unsigned long long)s->cycles, s->cpu_hz,
	       (double)s->cycles / s->cpu_hz);
	printf(", \"instructions\": %llu, \"sleep_cycles\": %llu, \"exceptions\": %llu",
	       (unsigned long long)s->instructions, (unsigned long long)s->sleep_cycles,
	       (unsigned long long)s->exceptions);
	printf(", \"xip_accesses\": %llu, \"xip_hits\": %llu, \"xip_misses\": %llu",
	       (unsigned long long)s->xip_accesses, (unsigned long long)s->xip_hits,
	       (unsigned long long)s->xip_misses);
	printf(", \"xip_unanswered\": %llu", (unsigned long long)s->xip_unanswered);
	printf(", \"faults\": %llu, \"last_fault\": ", (unsigned long long)s->faults);
	sim_print_fault_json(s->faults ? &s->last_fault : NULL);
	printf(", \"final_pc\": \"0x%08x\", \"uart_bytes\": %llu, \"unmapped_accesses\": %llu, "
	       "\"timer_us\": %llu",
	       s->pc, (unsigned long long)s->uart_bytes, (unsigned long long)s->unmapped,
	       (unsigned long long)s->timer_us);
	printf(", \"boot\": {\"requested\": \"%s\", \"used\": \"%s\", \"boot2_valid\": %s, "
	       "\"crc_computed\": \"0x%08x\", \"crc_image\": \"0x%08x\", \"bad_crc_usb_boot\": %s}",
	       loader_boot_name(boot_info.requested), loader_boot_name(boot_info.used),
	       boot_info.boot2_valid ? "true" : "false", boot_info.crc_computed, boot_info.crc_image,
	       boot_info.usb_boot ? "true" : "false");
	printf(", \"core1\": {\"state\": \"%s\", \"pc\": \"0x%08x\", \"instructions\": %llu, "
	       "\"faults\": %llu, \"last_fault\": ",
	       s->core1_state, s->core1_pc, (unsigned long long)s->core1_instructions,
	       (unsigned long long)s->core1_faults);
	sim_print_fault_json(s->core1_faults ? &s->core1_last_fault : NULL);
	printf("}");
	if (s->usb_boot)
		printf(", \"usb_boot\": {\"activity_gpio_mask\": %u, \"disable_interface_mask\": %u}",
		       s->usb_boot_gpio_mask, s->usb_boot_disable_mask);
	else
		printf(", \"usb_boot\": null");
	sim_net_print_json(net, stdout);
	if (u)
		sim_print_unmodelled_json(u);
	printf("}\n");
}

static int sim_set_image(const char *cmd, sim_options *o, const char *path,
			 enum xb_image_format f)
{
	if (o->image)
		return cli_usage_error(cmd, "give one image: --elf, --uf2 or --bin");
	o->image = path;
	o->format = f;
	return XB_EXIT_OK;
}

enum { SIM_RUN = 1, SIM_SERVE = 2, SIM_MEASURE = 4 };

static const char *const sim_mode_name[] = {"run", "serve", "measure"};

/* "'sim run' or 'sim measure'": the subcommands of modes. */
static void sim_modes_text(int modes, char *out, size_t cap)
{
	size_t len = 0;
	*out = 0;
	for (int i = 0; i < 3; i++)
		if (modes & 1 << i) {
			int n = snprintf(out + len, cap - len, "%s'sim %s'", len ? " or " : "",
					 sim_mode_name[i]);
			if (n < 0 || (size_t)n >= cap - len)
				return;
			len += (size_t)n;
		}
}

/* Every option given belongs to the subcommand (mode). */
static int sim_check_modes(const char *cmd, int mode, const sim_options *o)
{
	enum { ALL = SIM_RUN | SIM_SERVE | SIM_MEASURE, RS = SIM_RUN | SIM_SERVE,
	       RM = SIM_RUN | SIM_MEASURE };
	const struct {
		int given;
		const char *name;
		int modes;
	} opts[] = {
		{o->format == XB_IMAGE_UF2, "--uf2", RS}, {o->format == XB_IMAGE_BIN, "--bin", RS},
		{o->cycles != NULL, "--cycles", SIM_RUN}, {o->until != NULL, "--until", SIM_RUN},
		{o->trace != NULL, "--trace", SIM_RUN}, {o->json, "--json", RM},
		{o->peripherals, "--peripherals", SIM_RUN}, {o->boot != NULL, "--boot", SIM_RUN},
		{o->netmask != NULL, "--netmask", RS}, {o->dhcp, "--dhcp", RS},
		{o->uart != NULL, "--uart", RS}, {o->strict, "--strict", RS},
		{o->realtime && !o->speed, "--realtime", SIM_RUN}, {o->speed != NULL, "--speed", RS},
		{o->ping != NULL, "--ping", RM}, {o->udp != NULL, "--udp", RM},
		{o->size != NULL, "--size", RM}, {o->interval_ms != NULL, "--interval-ms", RM},
		{o->udp_size != NULL, "--udp-size", RM}, {o->usb, "--usb", SIM_RUN},
		{o->link_timeout != NULL, "--link-timeout", RM}, {o->pcap != NULL, "--pcap", RS},
		{o->peer_ip != NULL, "--peer-ip", ALL}, {o->device_ip != NULL, "--device-ip", ALL},
		{o->seconds != NULL, "--seconds", ALL}, {o->udp_port != NULL, "--udp-port", ALL},
		{o->probe_socket != NULL, "--probe-socket", SIM_SERVE},
		{o->tap != NULL, "--tap", SIM_SERVE}, {o->netns != NULL, "--netns", SIM_SERVE},
		{o->netns_create, "--netns-create", SIM_SERVE},
		{o->tap_ip != NULL, "--tap-ip", SIM_SERVE},
		{o->socket != NULL, "--socket", SIM_MEASURE}, {o->probe != NULL, "--probe", SIM_MEASURE},
		{o->capture != NULL, "--capture", SIM_MEASURE},
		{o->netif != NULL, "--netif", SIM_MEASURE},
		{o->usb_id != NULL, "--usb-id", SIM_MEASURE},
	};
	for (size_t i = 0; i < sizeof opts / sizeof *opts; i++) {
		if (!opts[i].given || (opts[i].modes & mode))
			continue;
		char where[64];
		sim_modes_text(opts[i].modes, where, sizeof where);
		return cli_usage_error(cmd, "%s is a %s option, not a 'sim %s' one", opts[i].name,
				       where, sim_mode_name[mode == SIM_RUN ? 0 : mode == SIM_SERVE ? 1 : 2]);
	}
	return XB_EXIT_OK;
}

static int sim_parse(const char *cmd, int mode, int argc, char **argv, sim_options *o)
{
	enum { OPT_ELF = 256, OPT_UF2, OPT_BIN, OPT_AT, OPT_CYCLES, OPT_UART, OPT_TRACE,
	       OPT_STRICT, OPT_JSON, OPT_UNTIL, OPT_TARGET, OPT_REALTIME, OPT_SPEED, OPT_PING,
	       OPT_INTERVAL, OPT_SIZE, OPT_UDP, OPT_SECONDS, OPT_UDP_PORT, OPT_UDP_SIZE, OPT_PCAP,
	       OPT_USB, OPT_PEER_IP, OPT_DEVICE_IP, OPT_LINK_TIMEOUT, OPT_PROBE_SOCKET, OPT_TAP,
	       OPT_NETNS, OPT_NETNS_CREATE, OPT_TAP_IP, OPT_SOCKET, OPT_PROBE, OPT_CAPTURE,
	       OPT_NETIF, OPT_USB_ID, OPT_PERIPHERALS, OPT_BOOT, OPT_NETMASK, OPT_DHCP };
	static const struct option longopts[] = {
		{"elf", required_argument, NULL, OPT_ELF},
		{"uf2", required_argument, NULL, OPT_UF2},
		{"bin", required_argument, NULL, OPT_BIN},
		{"at", required_argument, NULL, OPT_AT},
		{"cycles", required_argument, NULL, OPT_CYCLES},
		{"uart", required_argument, NULL, OPT_UART},
		{"trace", required_argument, NULL, OPT_TRACE},
		{"strict", no_argument, NULL, OPT_STRICT},
		{"json", no_argument, NULL, OPT_JSON},
		{"until", required_argument, NULL, OPT_UNTIL},
		{"target", required_argument, NULL, OPT_TARGET},
		{"realtime", no_argument, NULL, OPT_REALTIME},
		{"speed", required_argument, NULL, OPT_SPEED},
		{"ping", required_argument, NULL, OPT_PING},
		{"interval-ms", required_argument, NULL, OPT_INTERVAL},
		{"size", required_argument, NULL, OPT_SIZE},
		{"udp", required_argument, NULL, OPT_UDP},
		{"seconds", required_argument, NULL, OPT_SECONDS},
		{"udp-port", required_argument, NULL, OPT_UDP_PORT},
		{"udp-size", required_argument, NULL, OPT_UDP_SIZE},
		{"pcap", required_argument, NULL, OPT_PCAP},
		{"usb", no_argument, NULL, OPT_USB},
		{"peer-ip", required_argument, NULL, OPT_PEER_IP},
		{"device-ip", required_argument, NULL, OPT_DEVICE_IP},
		{"link-timeout", required_argument, NULL, OPT_LINK_TIMEOUT},
		{"probe-socket", required_argument, NULL, OPT_PROBE_SOCKET},
		{"tap", required_argument, NULL, OPT_TAP},
		{"netns", required_argument, NULL, OPT_NETNS},
		{"netns-create", no_argument, NULL, OPT_NETNS_CREATE},
		{"tap-ip", required_argument, NULL, OPT_TAP_IP},
		{"socket", required_argument, NULL, OPT_SOCKET},
		{"probe", required_argument, NULL, OPT_PROBE},
		{"capture", required_argument, NULL, OPT_CAPTURE},
		{"netif", required_argument, NULL, OPT_NETIF},
		{"usb-id", required_argument, NULL, OPT_USB_ID},
		{"peripherals", no_argument, NULL, OPT_PERIPHERALS},
		{"boot", required_argument, NULL, OPT_BOOT},
		{"netmask", required_argument, NULL, OPT_NETMASK},
		{"dhcp", no_argument, NULL, OPT_DHCP},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	optind = 1;
	opterr = 0;
	int ch, rc = XB_EXIT_OK;
	while (rc == XB_EXIT_OK && (ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case OPT_ELF: rc = sim_set_image(cmd, o, optarg, XB_IMAGE_ELF); break;
		case OPT_UF2: rc = sim_set_image(cmd, o, optarg, XB_IMAGE_UF2); break;
		case OPT_BIN: rc = sim_set_image(cmd, o, optarg, XB_IMAGE_BIN); break;
		case OPT_AT: o->at = optarg; break;
		case OPT_CYCLES: o->cycles = optarg; break;
		case OPT_UART: o->uart = optarg; break;
		case OPT_TRACE: o->trace = optarg; break;
		case OPT_STRICT: o->strict = 1; break;
		case OPT_JSON: o->json = 1; break;
		case OPT_UNTIL: o->until = optarg; break;
		case OPT_TARGET: o->target = optarg; break;
		case OPT_REALTIME: o->realtime = 1; break;
		case OPT_SPEED: o->speed = optarg; o->realtime = 1; break;
		case OPT_PING: o->ping = optarg; break;
		case OPT_INTERVAL: o->interval_ms = optarg; break;
		case OPT_SIZE: o->size = optarg; break;
		case OPT_UDP: o->udp = optarg; break;
		case OPT_SECONDS: o->seconds = optarg; break;
		case OPT_UDP_PORT: o->udp_port = optarg; break;
		case OPT_UDP_SIZE: o->udp_size = optarg; break;
		case OPT_PCAP: o->pcap = optarg; break;
		case OPT_USB: o->usb = 1; break;
		case OPT_PEER_IP: o->peer_ip = optarg; break;
		case OPT_DEVICE_IP: o->device_ip = optarg; break;
		case OPT_LINK_TIMEOUT: o->link_timeout = optarg; break;
		case OPT_PROBE_SOCKET: o->probe_socket = optarg; break;
		case OPT_TAP: o->tap = optarg; break;
		case OPT_NETNS: o->netns = optarg; break;
		case OPT_NETNS_CREATE: o->netns_create = 1; break;
		case OPT_TAP_IP: o->tap_ip = optarg; break;
		case OPT_SOCKET: o->socket = optarg; break;
		case OPT_PROBE: o->probe = optarg; break;
		case OPT_CAPTURE: o->capture = optarg; break;
		case OPT_NETIF: o->netif = optarg; break;
		case OPT_USB_ID: o->usb_id = optarg; break;
		case OPT_PERIPHERALS: o->peripherals = 1; break;
		case OPT_BOOT: o->boot = optarg; break;
		case OPT_NETMASK: o->netmask = optarg; break;
		case OPT_DHCP: o->dhcp = 1; break;
		case 'h': cli_print_usage(cmd, stdout); return -1;
		case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (rc != XB_EXIT_OK)
		return rc;
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (!o->image)
		return cli_usage_error(cmd, mode == SIM_MEASURE
				       ? "an image is required: --elf FILE (the one the board runs)"
				       : "an image is required: --elf, --uf2 or --bin FILE --at ADDR");
	if ((o->format == XB_IMAGE_BIN) != (o->at != NULL))
		return cli_usage_error(cmd, "--at ADDR goes with --bin, and --bin needs it");
	if (o->until && !*o->until)
		return cli_usage_error(cmd, "--until needs a non-empty text");
	if (o->until && o->realtime)
		return cli_usage_error(cmd, "--until runs in virtual time; it does not go with --realtime");
	if ((rc = sim_check_modes(cmd, mode, o)) != XB_EXIT_OK)
		return rc;
	if (mode == SIM_RUN && o->until && sim_net_wanted(o))
		return cli_usage_error(cmd, "--until does not go with the network options");
	return XB_EXIT_OK;
}

static int sim_run(const char *cmd, const sim_options *o)
{
	uint64_t at = 0, cycles = 0;
	if (o->at && (xb_parse_u64(o->at, &at) || at > UINT32_MAX))
		return cli_usage_error(cmd, "--at needs a 32-bit address (got '%s')", o->at);
	if (o->cycles && xb_parse_u64(o->cycles, &cycles))
		return cli_usage_error(cmd, "--cycles needs a number (got '%s')", o->cycles);
	double speed = 1.0;
	if (o->speed) {
		char *end;
		speed = strtod(o->speed, &end);
		if (*end || !(speed > 0 && speed <= 1000))
			return cli_usage_error(cmd, "--speed needs a factor above 0 (got '%s')", o->speed);
	}
	xb_target t;
	if (cli_load_target(cmd, o->target, &t))
		return XB_EXIT_FAIL;
	if (!o->cycles)
		cycles = t.cpu_hz; /* one second of virtual time */

	sim_uart uart = {NULL, -1};
	if (o->uart && strcmp(o->uart, "-") == 0) {
		uart.f = stdout;
	} else if (o->uart && !(uart.f = fopen(o->uart, "wb"))) {
		return cli_fail(cmd, "%s: cannot write the UART output: %s", o->uart,
				strerror(errno));
	}
	sim_trace tr = {0};
	if (o->trace && sim_trace_open(cmd, o->trace, &tr)) {
		if (uart.f && uart.f != stdout)
			fclose(uart.f);
		return XB_EXIT_FAIL;
	}

	xb_pico_options po;
	pico_options_init(&po);
	po.strict = o->strict;
	if (o->boot) {
		if (strcmp(o->boot, "auto") == 0)
			po.boot = XB_BOOT_AUTO;
		else if (strcmp(o->boot, "direct") == 0)
			po.boot = XB_BOOT_DIRECT;
		else if (strcmp(o->boot, "boot2") == 0)
			po.boot = XB_BOOT_BOOT2;
		else {
			if (uart.f && uart.f != stdout)
				fclose(uart.f);
			if (o->trace)
				sim_trace_close(cmd, o->trace, &tr, 0);
			return cli_usage_error(cmd, "--boot: '%s' is not auto, direct or boot2", o->boot);
		}
	}
	if (uart.f) {
		po.uart_fn = sim_uart_byte;
		po.uart_ctx = &uart;
	}
	po.trace = o->trace ? &tr.s : NULL;
	xb_err err;
	xb_load_info li;
	int rc = XB_EXIT_OK;
	xb_pico *p = pico_new(&t, &po, &err);
	memset(&boot_info, 0, sizeof boot_info);
	if (!p)
		rc = cli_fail(cmd, "%s", err.msg);
	else if (pico_load_file(p, o->image, o->format, (uint32_t)at, &li, &err))
		rc = cli_fail(cmd, "%s", err.msg);
	xb_unmodelled *unmod = NULL;
	if (rc == XB_EXIT_OK && o->peripherals)
		unmod = unmodelled_new(board_bus(pico_board(p)));
	sim_net *net = NULL;
	if (rc == XB_EXIT_OK && sim_net_wanted(o))
		rc = sim_net_open(cmd, o, p, &net);
	int ran = rc == XB_EXIT_OK;
	if (ran) {
		if (net)
			rc = sim_net_run(net);
		else if (o->until)
			pico_run_until_uart(p, o->until, cycles);
		else if (o->realtime)
			realtime_run(p, cycles, speed, realtime_system_clock());
		else
			pico_run(p, cycles);
		xb_pico_summary s;
		pico_summary(p, &s);
		pico_boot_info(p, &boot_info);
		if (uart.f == stdout && uart.last >= 0 && uart.last != '\n')
			putchar('\n'); /* the report starts on its own line */
		if (o->json)
			sim_print_json(o, &li, &s, net, unmod);
		else
			sim_print_text(o, &li, &s, net);
		if (unmod && !o->json)
			sim_print_unmodelled_text(unmod);
	}
	int nrc = sim_net_close(net, ran);
	if (rc == XB_EXIT_OK)
		rc = nrc;
	unmodelled_free(unmod, p ? board_bus(pico_board(p)) : NULL);
	pico_free(p);
	if (o->trace && sim_trace_close(cmd, o->trace, &tr, rc == XB_EXIT_OK))
		rc = XB_EXIT_FAIL;
	if (uart.f && uart.f != stdout && fclose(uart.f) != 0)
		rc = cli_fail(cmd, "%s: cannot write the UART output", o->uart);
	if (fflush(stdout) != 0)
		rc = cli_fail(cmd, "cannot write the output");
	return rc;
}

static int run_sim(int argc, char **argv)
{
	const char *cmd = argv[0];
	if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
		cli_print_usage(cmd, stdout);
		return XB_EXIT_OK;
	}
	int mode = 0;
	for (int i = 0; argc >= 2 && i < 3; i++)
		if (strcmp(argv[1], sim_mode_name[i]) == 0)
			mode = 1 << i;
	if (!mode)
		return cli_usage_error(cmd, "expected 'run', 'serve' or 'measure'");
	/* errors and usage name the mode: "xipbench sim serve: ..." */
	cmd = mode == SIM_SERVE ? "sim serve" : mode == SIM_MEASURE ? "sim measure" : "sim run";
	sim_options o = {0};
	int rc = sim_parse(cmd, mode, argc - 1, argv + 1, &o);
	if (rc < 0)
		return XB_EXIT_OK; /* --help */
	if (rc != XB_EXIT_OK)
		return rc;
	return mode == SIM_SERVE ? sim_serve(cmd, &o)
	       : mode == SIM_MEASURE ? sim_measure(cmd, &o) : sim_run(cmd, &o);
}

const xb_command cmd_sim = {
	.name = "sim",
	.summary = "run firmware on the virtual Pico: XIP counters, faults, UART; echo traffic; serve; measure",
	.usage =
		"usage: xipbench sim run (--elf FILE | --uf2 FILE | --bin FILE --at ADDR) "
		"[options]\n"
		"       xipbench sim serve (--elf FILE | ...) [--probe-socket PATH] [--udp-port PORT]\n"
		"                          [--pcap FILE|-] [--seconds S]\n"
		"                          [--tap NAME (--netns NS | --netns-create) [--tap-ip ADDR/LEN]]\n"
		"       xipbench sim measure --elf FILE (--socket PATH | --probe SERIAL) [--capture SRC]\n"
		"                          [--device-ip ADDR] [--peer-ip ADDR] [--netif NAME]\n"
		"                          [--usb-id VID:PID] [--ping N] [--udp RATE]\n"
		"\n"
		"sim run runs a firmware image on the virtual Pico (an RP2040 with its XIP cache,\n"
		"timers, UART0, USB controller and a small bootrom of its own) in virtual time, then\n"
		"reports cycles, instructions, XIP cache accesses and hits, faults and the final PC.\n"
		"The run ends when the budget is spent, the core halts (a BKPT: the virtual debugger\n"
		"is attached) or locks up, or --until's text appears on UART0. The same image and\n"
		"options always give the same numbers.\n"
		"\n"
		"With --ping or --udp the virtual USB host and the network peer (192.0.2.2, the\n"
		"Linux host's side of the CDC-ECM link) are plugged in: after enumeration, link and\n"
		"ARP, an idle window, then the traffic window of the same length; per echo the round\n"
		"trip, the turnaround (end of the reply's IN transfer - end of the request's OUT\n"
		"transfer) and the XIP accesses and misses in between; then sent, received, lost,\n"
		"median/min/max turnaround, echo rate and misses per echo (traffic window minus idle\n"
		"window, per request).\n"
		"\n"
		"options:\n"
		"  --elf FILE        an ELF executable (segments at their load addresses)\n"
		"  --uf2 FILE        a UF2 file (RP2040 family blocks)\n"
		"  --bin FILE        a raw image, loaded at --at ADDR (e.g. 0x10000000)\n"
		"  --cycles N        budget of CPU cycles (default: one second of virtual time)\n"
		"  --uart -|FILE     copy UART0's output to standard output or FILE as it happens\n"
		"  --until TEXT      stop as soon as TEXT appears on UART0\n"
		"  --trace FILE      write the binary fetch trace (for xipbench cache --trace)\n"
		"  --strict          unmapped accesses are bus errors (HardFault), not reads of 0\n"
		"  --boot MODE       auto (default: through boot2 when the image has a valid one,\n"
		"                    else a direct start), direct, or boot2 (as the chip boots)\n"
		"  --netmask MASK    the virtual host's netmask (default 255.255.255.0)\n"
		"  --dhcp            the virtual host takes its address from the device's DHCP\n"
		"                    server (the server becomes the device address unless\n"
		"                    --device-ip is given)\n"
		"  --peripherals     after the run, a table of the registers the firmware touched\n"
		"                    that the board does not model (block, offset, reads, writes,\n"
		"                    first PC)\n"
		"  --realtime        pace the run to the wall clock (virtual time never runs ahead)\n"
		"  --speed X         with --realtime: X times real time (implies --realtime)\n"
		"  --target NAME     target name or path (default rp2040)\n"
		"  --json            print one JSON object on one line instead of the report\n"
		"  -h, --help        print this text\n"
		"network options (sim run):\n"
		"  --ping N          N ICMP echo requests\n"
		"  --interval-ms MS  between requests (default 20)\n"
		"  --size BYTES      echo data bytes (default 56)\n"
		"  --udp RATE        UDP datagrams per second to the device's echo service\n"
		"  --seconds S       for S seconds (default 1)\n"
		"  --udp-port PORT   the device's port (default 7)\n"
		"  --udp-size BYTES  payload bytes, the first 8 a nonce (default 64)\n"
		"  --pcap FILE       write the usbmon capture of the whole run (link type 220)\n"
		"  --usb             plug in the USB host and the peer without traffic\n"
		"  --peer-ip ADDR    the peer's IPv4 address (default 192.0.2.2)\n"
		"  --device-ip ADDR  the device's IPv4 address (default 192.0.2.1)\n"
		"  --link-timeout MS how long the bring-up may take (default 5000)\n"
		"sim serve: the board in real time for host tools (only loopback and Unix sockets):\n"
		"  --probe-socket PATH  the virtual CMSIS-DAP probe on a Unix socket (2-byte LE\n"
		"                    length before each packet, both ways)\n"
		"  --udp-port PORT   a UDP socket on 127.0.0.1 (0: any free port, printed) whose\n"
		"                    datagrams go to the board's echo service and back\n"
		"  --pcap FILE|-     the usbmon stream to FILE or standard output\n"
		"  --seconds S       stop after S seconds (default: at SIGINT or SIGTERM)\n"
		"  --tap NAME        the virtual host's Ethernet also on a TAP interface NAME, made\n"
		"                    inside network namespace --netns NS (it must exist and not be\n"
		"                    the host's own) or --netns-create (xipbench-PID, removed at the\n"
		"                    end); root only. Tools in the namespace reach the board:\n"
		"                    ip netns exec NS ping 192.0.2.1\n"
		"  --tap-ip ADDR/LEN the TAP's address (default: the peer's, /24)\n"
		"  also --uart, --strict, --target, --speed, --peer-ip, --device-ip\n"
		"sim measure: the study's measurement from outside, as the real bench measures a\n"
		"real board (sockets, usbmon records, XIP counters over SWD): the board of sim serve\n"
		"(its probe socket, its --pcap stream, its TAP) or a real Pico:\n"
		"  --socket PATH     the probe socket of sim serve (or --probe SERIAL: a USB probe)\n"
		"  --capture SRC     the usbmon records: usbmonN, a pcap fifo, - (standard input)\n"
		"  --device-ip ADDR  the board's address (default: found on the board's interface,\n"
		"                    else 192.0.2.1)\n"
		"  --peer-ip ADDR    the host's address the traffic leaves from (default: the\n"
		"                    kernel's choice)\n"
		"  --netif NAME      the board's interface (default: found in sysfs by USB IDs)\n"
		"  --usb-id VID:PID  the board's USB IDs, in hex (default 1209:0001)\n"
		"  --ping N          pings (default 300; 0 with --udp: none), --interval-ms, --size\n"
		"  --udp RATE        then UDP echoes at RATE/s for --seconds S (--udp-size, --udp-port)\n"
		"  --link-timeout MS how long to wait for the probe and the network (default 10000)\n"
		"  also --json, --target\n"
		"\n"
		"Exit status: 0 the image ran (whatever it did: see result and faults); 1 the\n"
		"image, target or an output file could not be used, or the network was not ready;\n"
		"2 usage error. Details and every --json key: docs/cli.md.\n",
	.run = run_sim,
};
