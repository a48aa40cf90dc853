/* cmd_cache: `xipbench cache`: replay a fetch trace through a target's cache model, with OPT and 3C. */
#include "cli.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../core/opt.h"
#include "../core/target.h"
#include "../core/trace.h"

typedef struct cache_options {
	const char *target, *trace;
	const char *policy;
	const char *seed, *fill;
	int json, no_opt;
} cache_options;

static int cache_apply_overrides(const char *cmd, const cache_options *o, xb_target *t)
{
	uint64_t v;
	if (o->policy && target_policy_parse(o->policy, &t->cache.policy))
		return cli_usage_error(cmd, "--policy must be lru, fifo or random (got '%s')",
				       o->policy);
	if (o->seed) {
		if (xb_parse_u64(o->seed, &v))
			return cli_usage_error(cmd, "--seed needs a number (got '%s')", o->seed);
		t->cache.seed = v ? v : 1;
	}
	if (o->fill) {
		if (xb_parse_u64(o->fill, &v) || v == 0 || v > t->cache.line)
			return cli_usage_error(cmd, "--fill needs a byte count from 1 to the line "
						    "size %u (got '%s')",
					       t->cache.line, o->fill);
		t->cache.fill = (uint32_t)v;
	}
	xb_err err;
	if (target_cache_config_check(&t->cache, &err))
		return cli_usage_error(cmd, "with these options, %s: %s", t->name, err.msg);
	return XB_EXIT_OK;
}

static void cache_print_text(const cache_options *o, const xb_target *t, const xb_trace *tr,
			     const xb_miss_classes *mc)
{
	const xb_replay *r = &mc->replay;
	const xb_cache_config *c = &t->cache;
	printf("target           %s: %u bytes, %u ways, %u-byte lines, %u sets, fill %u, %s\n",
	       t->name, c->size, c->ways, c->line, target_sets(t), c->fill,
	       target_policy_name(c->policy));
	printf("trace            %s: %zu fetches, %zu before the first echo (warm-up, not "
	       "counted)\n",
	       o->trace, tr->n, trace_counted_from(tr));
	printf("fetches          %llu\n", (unsigned long long)r->fetches);
	printf("accesses         %llu (through a flash alias)\n",
	       (unsigned long long)r->accesses);
	printf("hits             %llu", (unsigned long long)r->hits);
	if (r->accesses)
		printf(" (%.2f %%)", 100.0 * (double)r->hits / (double)r->accesses);
	printf("\nmisses           %llu\n", (unsigned long long)r->misses);
	printf("echoes           %zu\n", r->echoes);
	printf("misses per echo  %.2f\n", r->misses_per_echo);
	if (o->no_opt)
		return;
	printf("OPT misses       %llu (%.2f per echo; Belady, fully associative, %u blocks "
	       "of %u bytes)\n",
	       (unsigned long long)mc->opt_misses, mc->opt_misses_per_echo, c->size / c->fill,
	       c->fill);
	printf("FA LRU misses    %llu\n", (unsigned long long)mc->fa_lru_misses);
	printf("compulsory       %llu\n", (unsigned long long)mc->compulsory);
	printf("capacity         %llu\n", (unsigned long long)mc->capacity);
	printf("conflict         %lld\n", (long long)mc->conflict);
}

static void cache_print_json(const cache_options *o, const xb_target *t, const xb_trace *tr,
			     const xb_miss_classes *mc)
{
	const xb_replay *r = &mc->replay;
	const xb_cache_config *c = &t->cache;
	printf("{\"target\": ");
	xb_json_string(stdout, t->name);
	printf(", \"trace\": ");
	xb_json_string(stdout, o->trace);
	printf(", \"cache\": {\"size\": %u, \"ways\": %u, \"line\": %u, \"fill\": %u, "
	       "\"sets\": %u, \"policy\": \"%s\", \"seed\": %llu}",
	       c->size, c->ways, c->line, c->fill, target_sets(t), target_policy_name(c->policy),
	       (unsigned long long)c->seed);
	printf(", \"trace_fetches\": %zu, \"warmup_fetches\": %zu", tr->n, trace_counted_from(tr));
	printf(", \"fetches\": %llu, \"accesses\": %llu, \"hits\": %llu, \"misses\": %llu",
	       (unsigned long long)r->fetches, (unsigned long long)r->accesses,
	       (unsigned long long)r->hits, (unsigned long long)r->misses);
	printf(", \"echoes\": %zu, \"misses_per_echo\": %.6f", r->echoes, r->misses_per_echo);
	if (!o->no_opt)
		printf(", \"opt_misses\": %llu, \"opt_misses_per_echo\": %.6f, \"fa_lru_misses\": "
		       "%llu, \"compulsory\": %llu, \"capacity\": %llu, \"conflict\": %lld",
		       (unsigned long long)mc->opt_misses, mc->opt_misses_per_echo,
		       (unsigned long long)mc->fa_lru_misses, (unsigned long long)mc->compulsory,
		       (unsigned long long)mc->capacity, (long long)mc->conflict);
	printf("}\n");
}

static int run_cache(int argc, char **argv)
{
	const char *cmd = argv[0];
	enum { OPT_POLICY = 256, OPT_SEED, OPT_FILL, OPT_NO_OPT };
	static const struct option longopts[] = {
		{"target", required_argument, NULL, 't'},
		{"trace", required_argument, NULL, 'r'},
		{"json", no_argument, NULL, 'j'},
		{"policy", required_argument, NULL, OPT_POLICY},
		{"seed", required_argument, NULL, OPT_SEED},
		{"fill", required_argument, NULL, OPT_FILL},
		{"no-opt", no_argument, NULL, OPT_NO_OPT},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	cache_options o = {.target = "rp2040"};
	optind = 1;
	opterr = 0;
	int ch;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 't': o.target = optarg; break;
		case 'r': o.trace = optarg; break;
		case 'j': o.json = 1; break;
		case OPT_POLICY: o.policy = optarg; break;
		case OPT_SEED: o.seed = optarg; break;
		case OPT_FILL: o.fill = optarg; break;
		case OPT_NO_OPT: o.no_opt = 1; break;
		case 'h': cli_print_usage(cmd, stdout); return XB_EXIT_OK;
		case ':': return cli_usage_error(cmd, "%s needs a value", argv[optind - 1]);
		default: return cli_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return cli_usage_error(cmd, "unexpected argument '%s'", argv[optind]);
	if (!o.trace)
		return cli_usage_error(cmd, "--trace FILE is required");

	xb_target t;
	xb_err err;
	if (target_load(&t, o.target, &err))
		return cli_fail(cmd, "%s", err.msg);
	int rc = cache_apply_overrides(cmd, &o, &t);
	if (rc != XB_EXIT_OK)
		return rc;

	xb_trace tr;
	if (trace_read_file(&tr, o.trace, &err))
		return cli_fail(cmd, "%s", err.msg);
	xb_miss_classes mc;
	memset(&mc, 0, sizeof mc);
	rc = o.no_opt ? replay_trace(&t, &tr, &mc.replay, &err) : classify_misses(&t, &tr, &mc, &err);
	if (rc) {
		trace_free(&tr);
		return cli_fail(cmd, "%s", err.msg);
	}
	if (o.json)
		cache_print_json(&o, &t, &tr, &mc);
	else
		cache_print_text(&o, &t, &tr, &mc);
	trace_free(&tr);
	return fflush(stdout) == 0 ? XB_EXIT_OK : cli_fail(cmd, "cannot write the output");
}

const xb_command cmd_cache = {
	.name = "cache",
	.summary = "replay a fetch trace through a target's cache: misses, OPT bound, 3C",
	.usage =
		"usage: xipbench cache --trace FILE [--target NAME] [--json] [options]\n"
		"\n"
		"Replays a fetch trace through the target's XIP cache model and prints accesses,\n"
		"hits, misses, echoes and misses per echo, then the OPT bound (Belady, a fully\n"
		"associative cache of the same size: no layout of the same code misses less) and\n"
		"the 3C split of the misses into compulsory, capacity and conflict.\n"
		"Fetches before the trace's first echo boundary warm the cache and are not\n"
		"counted; only fetches through a flash alias reach the cache.\n"
		"\n"
		"options:\n"
		"  --target NAME   target name (targets/NAME.target) or path to a .target file\n"
		"                  (default rp2040)\n"
		"  --trace FILE    the trace, binary or text (docs/formats-target-trace.md)\n"
		"  --policy P      use replacement policy P instead of the target's: lru, fifo,\n"
		"                  random\n"
		"  --seed N        seed for --policy random\n"
		"  --fill BYTES    bytes filled per miss instead of the target's (a power of two\n"
		"                  up to the line size; 4 models the RP2040's half-line fills)\n"
		"  --no-opt        skip OPT and the 3C split\n"
		"  --json          print one JSON object (keys in docs/cli.md)\n"
		"  -h, --help      print this text\n"
		"\n"
		"exit status: 0 done, 1 bad target or trace, 2 usage error\n",
	.run = run_cache,
};
