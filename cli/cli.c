/* cli: dispatches `xipbench NAME ...` to the subcommand table. */
#include "cli.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/util.h"


static const xb_command *const commands[] = {
	&cmd_info, &cmd_plan, &cmd_predict, &cmd_verify, &cmd_integrate, &cmd_cache, &cmd_sim, &cmd_capture, &cmd_probe,
	&cmd_experiment, &cmd_report, &cmd_triage, &cmd_workbench, &cmd_demo,
	NULL,
};

/* The command a name starts with: "sim serve" is sim's mode serve. */
static const xb_command *find_command(const char *name)
{
	size_t n = strcspn(name, " ");
	for (int i = 0; commands[i]; i++)
		if (strlen(commands[i]->name) == n && strncmp(commands[i]->name, name, n) == 0)
			return commands[i];
	return NULL;
}

/* The synopsis of cmd: the usage text's first line, or for "COMMAND MODE" the line (and
 * its continuation lines) that names that mode. */
static void print_synopsis(const xb_command *c, const char *cmd, FILE *f)
{
	const char *u = c->usage, *from = u;
	if (strchr(cmd, ' ')) {
		char want[64];
		snprintf(want, sizeof want, "xipbench %s ", cmd);
		for (const char *l = u; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
			const char *w = l + strspn(l, " ");
			if (strncmp(w, "usage: ", 7) == 0)
				w += 7;
			if (strncmp(w, want, strlen(want)) == 0) {
				from = l;
				break;
			}
		}
	}
	/* continuation lines: indented, going on with options ("   [--pcap FILE]") */
	const char *end = strchr(from, '\n');
	while (end && end[1] == ' ' && end[1 + strspn(end + 1, " ")] == '[')
		end = strchr(end + 1, '\n');
	int len = end ? (int)(end - from) : (int)strlen(from);
	const char *w = from + strspn(from, " ");
	if (from != u && strncmp(w, "xipbench", 8) == 0)
		fprintf(f, "usage: %.*s\n", len - (int)(w - from), w);
	else
		fprintf(f, "%.*s\n", len, from);
}

static void print_overview(FILE *f)
{
	fprintf(f, "usage: xipbench COMMAND [options]\n\n"
		   "xipbench: the code-layout workbench for firmware that runs from cached flash.\n\n"
		   "commands:\n");
	for (int i = 0; commands[i]; i++)
		fprintf(f, "  %-10s %s\n", commands[i]->name, commands[i]->summary);
	fprintf(f, "\n`xipbench COMMAND --help` describes one command; `xipbench --version` prints "
		   "the version.\n");
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "xipbench %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return XB_EXIT_FAIL;
}

void cli_print_usage(const char *cmd, FILE *f)
{
	const xb_command *c = find_command(cmd);
	if (c && c->help)
		c->help(f);
	else if (c)
		fputs(c->usage, f);
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;
	fprintf(stderr, "xipbench %s: ", cmd);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	const xb_command *c = find_command(cmd);
	if (c)
		print_synopsis(c, cmd, stderr);
	return XB_EXIT_USAGE;
}

int cli_wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return 0;
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
			return 1;
	}
	return 0;
}

int cli_main(int argc, char **argv)
{
	if (argc < 2) {
		if (isatty(0) && isatty(1)) /* the workbench on the virtual Pico */
			return cmd_workbench.run(argc, argv);
		print_overview(stderr);
		fprintf(stderr, "\n(`xipbench` alone opens the workbench when it runs in a terminal.)\n");
		return XB_EXIT_USAGE;
	}
	if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "-V") == 0) {
		printf("xipbench %s\n", XB_VERSION);
		return XB_EXIT_OK;
	}
	if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 ||
	    strcmp(argv[1], "help") == 0) {
		if (argc > 2 && find_command(argv[2])) {
			cli_print_usage(argv[2], stdout);
			return XB_EXIT_OK;
		}
		print_overview(stdout);
		return XB_EXIT_OK;
	}
	/* `xipbench --zephyr DIR ...`: the workbench with those options */
	if (strncmp(argv[1], "--", 2) == 0 && argv[1][2])
		return cmd_workbench.run(argc, argv);
	const xb_command *c = find_command(argv[1]);
	if (!c) {
		fprintf(stderr, "xipbench: unknown command '%s'\n", argv[1]);
		print_overview(stderr);
		return XB_EXIT_USAGE;
	}
	if (cli_wants_help(argc - 1, argv + 1)) {
		cli_print_usage(c->name, stdout);
		return XB_EXIT_OK;
	}
	return c->run(argc - 1, argv + 1);
}
