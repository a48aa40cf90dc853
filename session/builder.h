/* builder: how a layout is relinked, behind one ops table: the demo echo firmware's
 * Makefile (builder_make.c) or a command template that any build system fits
 * (builder_command.c). A builder turns a build request into a command (an argv: nothing
 * is ever read by a shell unless the template says `sh -c` itself) and reads the
 * command's output: progress, and the lines worth showing when it fails. build_job.h runs
 * the command without blocking. */
#ifndef XB_SESSION_BUILDER_H
#define XB_SESSION_BUILDER_H

#include "../core/util.h"

/* What to build. Paths may be relative to the caller's working folder. */
typedef struct xb_build_request {
	const char *layout_dir;   /* the layout folder xipbench wrote (xipbench_hot.ld,
				   * xipbench_ramfunc.ld, layout.txt ...) */
	const char *build_dir;    /* the build's own folder (make: BUILD_DIR, where the
				   * objects of each variant are kept) */
	const char *name;         /* the layout's name, a safe file name (builder_safe_name) */
	const char *elf;          /* the ELF the build must produce (make) or will report
				   * (command); NULL: BUILD_DIR/layouts/NAME.elf */
} xb_build_request;

/* Whether n is a safe file name for a layout or a run: letters, digits, '.', '_', '+',
 * '-', not starting with '.' or '-', at most XB_SAFE_NAME_MAX bytes. */
#define XB_SAFE_NAME_MAX 63
int builder_safe_name(const char *n);

/* A builder's settings (each builder reads the fields it documents). */
typedef struct xb_builder_config {
	const char *dir;          /* make: the folder of the Makefile (NULL: the shipped
				   * firmware/); command: the working folder (NULL: the
				   * caller's) */
	const char *command;      /* command: the template (see builder_command) */
	const char *const *args;  /* make: more arguments, NULL-terminated: variant
				   * variables such as LTO=1 or XIP_CACHE=off, -j4 */
} xb_builder_config;

/* The command for one request. */
typedef struct xb_build_cmd {
	char **argv;              /* NULL-terminated */
	char **env;               /* "NAME=VALUE" set for it, NULL-terminated (may be NULL) */
	char *cwd;                /* NULL: the caller's working folder */
	char *elf;                /* the ELF it will produce (absolute when the request's
				   * was, or when the builder needs it so) */
	int writes_elf;           /* the command writes exactly elf (it was told the
				   * path): an old file there is removed before it runs, so
				   * that a stale image can never pass for the new one */
} xb_build_cmd;
void build_cmd_free(xb_build_cmd *c);

typedef struct xb_builder_ops {
	const char *name;         /* "make", "command" */
	const char *summary;
	/* Checks the settings once (a template's syntax ...); err names what is wrong and
	 * where. */
	int (*check)(const xb_builder_config *cfg, xb_err *err);
	/* The command for a request (out is filled; build_cmd_free frees it). */
	int (*prepare)(const xb_builder_config *cfg, const xb_build_request *rq,
		       xb_build_cmd *out, xb_err *err);
	/* How far the build is from one output line: 0..1 when the line tells (ninja's
	 * "[12/345]", CMake's and make's "[ 42%]"), -1 when it says nothing. */
	double (*progress)(const char *line);
	/* Whether a line is one to show when the build fails (a compiler's or the linker's
	 * error, make's "*** ... Error"). */
	int (*error_line)(const char *line);
} xb_builder_ops;

/* A builder: its ops and its settings (borrowed: they must outlive its jobs). */
typedef struct xb_builder {
	const xb_builder_ops *ops;
	xb_builder_config cfg;
} xb_builder;

/* make: `make -C DIR --no-print-directory BUILD_DIR=... LAYOUT=... ELF_OUT=... ARGS`
 * with the firmware Makefile's variables (firmware/Makefile): the objects of the variant
 * are built when missing, then linked with the layout's fragments into the request's ELF
 * (its map beside it, without .elf plus .map). Folder paths that make would split or
 * expand (blanks, $ # : ; % * ? [ ] \ ' " `) are refused, and so are ARGS that set the
 * variables the builder sets. Paths are made absolute (make runs in DIR).
 *
 * command: cfg.command is a command template, split into words as a shell would split
 * it (blanks separate words; '...' keeps everything literally; "..." keeps everything
 * but \" \\ \$ \` which a backslash escapes; a backslash outside quotes keeps the next
 * character) but run without a shell. The placeholders {layout_dir}, {build_dir}, {elf}
 * and {name} are replaced by the request's values inside words, quoted or not, after the
 * split: a value with blanks or quotes stays within its word and nothing in it is ever
 * interpreted. "{{" and "}}" are literal braces. The values are also in the environment
 * as XB_LAYOUT_DIR, XB_BUILD_DIR, XB_ELF and XB_NAME: a template that needs a shell
 * should say so, `sh -c 'ninja -C "$XB_BUILD_DIR" && cp out.elf "$XB_ELF"'`, and quote
 * the variables there (a placeholder inside such a script is pasted into shell code:
 * that is the template author's risk). An unknown placeholder, an unbalanced quote or a
 * trailing backslash is an error naming the column. The command runs in cfg.dir. */
extern const xb_builder_ops builder_make, builder_command;
/* Every builder, ended by NULL; one by name. */
extern const xb_builder_ops *const builders[];
const xb_builder_ops *builder_find(const char *name);
/* The shipped echo firmware's folder (xb_data_path's firmware/, the make builder's default),
 * a new string, or NULL with err. */
char *builder_firmware_dir(xb_err *err);

/* Shared by the builders (build_job.c). */
/* ninja's "[n/m]" at the start of a line, CMake's and make's "[ NN%]": 0..1, else -1. */
double builder_progress_generic(const char *line);
/* Lines holding "error:", "Error:", "undefined reference", "multiple definition", "will
 * not fit in region", "region `X' overflowed", "cannot open linker script file", "No
 * rule to make target", make's "*** ... Error" or "***" stop lines. */
int builder_error_line_generic(const char *line);
/* Checks a request: a layout folder that exists, a build folder, a safe name. */
int builder_check_request(const xb_build_request *rq, xb_err *err);
/* The request's ELF, or BUILD_DIR/layouts/NAME.elf: a new string. */
char *builder_default_elf(const xb_build_request *rq);
/* path made absolute against the working folder (not resolved): a new string. */
char *builder_absolute(const char *path);

#endif
