/* experiment: `xipbench experiment`, the study's layout study end to end on the virtual Pico
 * (cli/cmd_experiment.c: the steps and the tables; cli/exp_bench.c: one image on the
 * virtual bench; cli/exp_build.c: building, planning and relinking the firmware). */
#ifndef XB_CLI_EXPERIMENT_H
#define XB_CLI_EXPERIMENT_H

#include <stdint.h>
#include <stdio.h>

#include "../core/plan.h"
#include "../core/target.h"
#include "../core/util.h"
#include "../session/builder.h"
#include "../session/session.h"

/* ---- The virtual bench (exp_bench.c) ---- */

/* How an image is measured and what it gave: the session's measurement job
 * (session/session.h: xb_measure_plan, xb_measure_result). */
/* How an image runs on the virtual bench: its map and the virtual host's network (all
 * zero: the echo firmware's, 192.0.2.2 and 192.0.2.1 with UDP echoes to port 7). */
typedef struct exp_board {
	const char *map;              /* NULL: next to the ELF */
	const uint8_t *peer_ip;       /* 4 bytes each; NULL: the bench's defaults */
	const uint8_t *device_ip;
	const uint8_t *netmask;
	int dhcp;                     /* the virtual host asks the device's DHCP server */
	unsigned udp_port;            /* the image's UDP echo port (0: 7) */
} exp_board;

/* A profile run: the image flashed through the virtual probe, pings (and, when udp_rate is
 * set, a UDP stream after them), PC samples through the probe during the traffic, and the
 * fetch trace of the whole run. */
typedef struct exp_profile_req {
	const exp_board *board; /* NULL: the echo firmware's */
	unsigned pings;
	unsigned ping_size;     /* ICMP data bytes (0: 56) */
	double interval_ms;
	uint32_t udp_rate;      /* 0: pings only */
	double udp_seconds;
	const char *trace_path; /* written (NULL: none; a real bench has none) */
	const char *samples_path; /* written, unless samples_out is given */
	xb_samples *samples_out; /* NULL, or gets the samples (samples_init'ed by the caller) */
	uint64_t samples;       /* out: samples taken */
	/* A real bench instead of a new virtual Pico: the board runs its image already (it is
	 * not flashed). NULL: the virtual Pico. */
	const xb_probe_bench_options *probe;
	/* Called once the board's network is up, before the traffic (NULL: none): reads
	 * registers over SWD (session_swd_access) and the like. 0, or -1 with err to stop. */
	int (*ready)(xb_session *s, void *ctx, xb_err *err);
	void *ready_ctx;
} exp_profile_req;

/* Measures the ELF at path on a new virtual Pico: flashed through the virtual CMSIS-DAP
 * probe, reset through it, the USB host and the network peer plugged in. pcap, when not
 * NULL, gets the usbmon records. 0, or -1 with err. */
int exp_measure(const xb_target *tg, const char *elf, const xb_measure_plan *m, const char *pcap,
		xb_measure_result *out, xb_err *err);
/* The same on a board of its own (b NULL: exp_measure). */
int exp_measure_on(const xb_target *tg, const char *elf, const exp_board *b,
		   const xb_measure_plan *m, const char *pcap, xb_measure_result *out, xb_err *err);
/* A result with nothing measured: every figure NAN, every count 0 (what exp_measure_on
 * starts from). */
void exp_no_measurement(xb_measure_result *out);
int exp_profile(const xb_target *tg, const char *elf, exp_profile_req *req, xb_err *err);

/* ---- Building (exp_build.c) ---- */

/* Runs make in the firmware folder with the arguments (no shell), its output appended to
 * log. 0, or -1 with err naming the log. */
int exp_make(const char *fwdir, const char *const *args, const char *log, xb_err *err);
/* Relinks the firmware (the variant of make argument variant_arg, or the default) with
 * layout_dir's fragments through the Makefile's builder (session/builder.h) into elf, the
 * output appended to log, and verifies the image against layout_dir's plan (core/verify.h)
 * before anything measures it: a function elsewhere than the plan said fails, naming it.
 * With pred (predict_trace: the measured workload's trace), the image's prediction as
 * linked (verify_relink_predict: its veneers where GNU ld put them). 0, or -1 with err. */
int exp_relink(const xb_target *tg, const char *stock_elf, const char *build_dir,
	       const char *variant_arg, const char *layout_dir, const char *name, const char *elf,
	       const char *log, const char *predict_trace, xb_prediction *pred, xb_err *err);
/* The same through any builder (session/builder.h: the command builder's template for
 * another image's build) with the stock image's map (NULL: next to it); *map_out (may be
 * NULL) gets the relinked image's map as the build left it (a new string, NULL: none). */
typedef struct exp_relink_req {
	const xb_builder *builder;
	const char *stock_elf, *stock_map;
	const char *build_dir, *layout_dir, *name, *elf;
	const char *log;
	const char *predict_trace; /* with pred */
	xb_prediction *pred;    /* NULL, or gets the image's prediction as linked */
	char *map_out;          /* out */
} exp_relink_req;
int exp_relink_with(const xb_target *tg, exp_relink_req *rq, xb_err *err);
/* Builds its default variant into build_dir (make decides what is out of date; the output
 * goes to log); *elf gets the image's path (a new string). 0, or -1 with err. */
int exp_build_firmware(const char *fwdir, const char *build_dir, const char *log, char **elf,
		       xb_err *err);

/* Plans a layout of elf (its map: req->map, else the one next to it) with the planner name from the samples and
 * trace files, writes layout.txt, addresses.txt and the linker fragments to dir, and
 * predicts it with predict_trace (another trace of the same image: the workload measured).
 * sram_libs: the libraries to put in SRAM whole (comma-separated; NULL none). */
typedef struct exp_plan_req {
	const char *elf, *samples, *trace, *predict_trace;
	const char *map;        /* NULL: next to the ELF */
	const char *strategy;
	uint32_t sram_budget, pad_budget;
	const char *sram_libs;
	const char *dir;
	uint32_t search_moves;  /* the colouring's local search (xb_plan_input) */
	double search_seconds;
	uint64_t search_seed;
	/* out */
	xb_prediction pred;
	xb_plan_search_stats search;
	double plan_seconds;    /* planning alone (wall clock) */
} exp_plan_req;
int exp_plan(const xb_target *tg, exp_plan_req *req, xb_err *err);
/* The stock layout's prediction from a trace (the measured workload); map NULL: next to
 * the ELF. */
int exp_predict_stock(const xb_target *tg, const char *elf, const char *map, const char *trace,
		      xb_prediction *out, xb_err *err);

#endif
