/* cli: the xipbench command line: one table of subcommands, each in cli/cmd_NAME.c. */
#ifndef XB_CLI_H
#define XB_CLI_H

#include <stdio.h>

typedef struct xb_command {
	const char *name;
	const char *summary;   /* one line for `xipbench --help` */
	const char *usage;     /* full text for `xipbench NAME --help` */
	int (*run)(int argc, char **argv); /* argv[0] is the command name; returns exit code */
	void (*help)(FILE *f); /* prints the full help when it is made at run time (NULL: usage) */
} xb_command;

/* Exit codes: 0 success, 1 the work failed (bad input, failed build ...), 2 usage error. */
enum { XB_EXIT_OK = 0, XB_EXIT_FAIL = 1, XB_EXIT_USAGE = 2 };

int cli_main(int argc, char **argv);

/* For commands: print "xipbench NAME: message" to stderr and return XB_EXIT_FAIL. */
int cli_fail(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Print a usage error and the command's usage line; returns XB_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Prints the command's usage text to f. */
void cli_print_usage(const char *cmd, FILE *f);
/* True if argv has --help or -h: the caller prints usage and returns 0. */
int cli_wants_help(int argc, char **argv);


extern const xb_command cmd_info, cmd_plan, cmd_predict, cmd_cache;
extern const xb_command cmd_sim;
extern const xb_command cmd_capture;
extern const xb_command cmd_probe;
extern const xb_command cmd_experiment;
extern const xb_command cmd_report;
extern const xb_command cmd_demo;
extern const xb_command cmd_verify, cmd_integrate;
extern const xb_command cmd_workbench;
extern const xb_command cmd_triage;

#endif
