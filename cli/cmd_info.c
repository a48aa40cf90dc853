/* cmd_info: `xipbench info` (not built yet). */
#include "cli.h"

static int run_info(int argc, char **argv)
{
	(void)argc;
	return cli_fail(argv[0], "not built yet");
}

const xb_command cmd_info = {
	.name = "info",
	.summary = "(not built yet)",
	.usage = "usage: xipbench info\n",
	.run = run_info,
};
