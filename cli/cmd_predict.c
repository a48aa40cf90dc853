/* cmd_predict: `xipbench predict` (not built yet). */
#include "cli.h"

static int run_predict(int argc, char **argv)
{
	(void)argc;
	return cli_fail(argv[0], "not built yet");
}

const xb_command cmd_predict = {
	.name = "predict",
	.summary = "(not built yet)",
	.usage = "usage: xipbench predict\n",
	.run = run_predict,
};
