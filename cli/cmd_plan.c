/* cmd_plan: `xipbench plan` (not built yet). */
#include "cli.h"

static int run_plan(int argc, char **argv)
{
	(void)argc;
	return cli_fail(argv[0], "not built yet");
}

const xb_command cmd_plan = {
	.name = "plan",
	.summary = "(not built yet)",
	.usage = "usage: xipbench plan\n",
	.run = run_plan,
};
