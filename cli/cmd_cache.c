/* cmd_cache: `xipbench cache` (not built yet). */
#include "cli.h"

static int run_cache(int argc, char **argv)
{
	(void)argc;
	return cli_fail(argv[0], "not built yet");
}

const xb_command cmd_cache = {
	.name = "cache",
	.summary = "(not built yet)",
	.usage = "usage: xipbench cache\n",
	.run = run_cache,
};
