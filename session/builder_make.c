/* builder_make: relinks the demo echo firmware with its Makefile (firmware/Makefile):
 * `make -C DIR BUILD_DIR=... LAYOUT=... ELF_OUT=...` plus the variant's variables; the
 * builder, not a folder convention, decides where the image goes. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "builder.h"

/* Variables the builder sets itself; ARGS may not set them (nor OUT, which ELF_OUT
 * overrides anyway and would only confuse). */
static const char *const owned[] = {"BUILD_DIR", "LAYOUT", "ELF_OUT", "OUT", NULL};

/* The value goes to make as VAR=PATH: characters that make splits or expands there would
 * build somewhere else. */
static int make_safe(const char *what, const char *path, xb_err *err)
{
	if (!strpbrk(path, " \t\n$#:;%*?[]\\'\"`"))
		return 0;
	return xb_fail(err, "%s %s: make cannot take a path with blanks or any of "
			    "$ # : ; %% * ? [ ] \\ ' \" `; choose another",
		       what, path);
}

static char *makefile_dir(const xb_builder_config *cfg, xb_err *err)
{
	if (cfg->dir) {
		char *mk = xasprintf("%s/Makefile", cfg->dir);
		int ok = access(mk, R_OK) == 0;
		free(mk);
		if (!ok) {
			xb_fail(err, "%s: no Makefile there (the make builder's folder is the "
				     "firmware's, with its Makefile)", cfg->dir);
			return NULL;
		}
		return xstrdup(cfg->dir);
	}
	char *dir = builder_firmware_dir(NULL);
	if (!dir)
		xb_fail(err, "the echo firmware's sources (firmware/Makefile) were not found; "
			     "give the make builder the firmware's folder");
	return dir;
}

char *builder_firmware_dir(xb_err *err)
{
	char *mk = xb_data_path("firmware/Makefile");
	if (!mk) {
		xb_fail(err, "the echo firmware's sources (firmware/Makefile) were not found");
		return NULL;
	}
	*strrchr(mk, '/') = 0;
	return mk;
}

static int make_check(const xb_builder_config *cfg, xb_err *err)
{
	for (size_t i = 0; cfg->args && cfg->args[i]; i++) {
		const char *a = cfg->args[i];
		for (size_t k = 0; owned[k]; k++) {
			size_t n = strlen(owned[k]);
			if (strncmp(a, owned[k], n) == 0 && a[n] == '=')
				return xb_fail(err, "make argument '%s': the make builder sets %s "
						    "itself (from the build request)",
					       a, owned[k]);
		}
	}
	char *dir = makefile_dir(cfg, err);
	free(dir);
	return dir ? 0 : -1;
}

static int make_prepare(const xb_builder_config *cfg, const xb_build_request *rq,
			xb_build_cmd *out, xb_err *err)
{
	memset(out, 0, sizeof *out);
	char *dir = makefile_dir(cfg, err);
	if (!dir)
		return -1;
	char *elf = builder_default_elf(rq);
	char *bd = builder_absolute(rq->build_dir), *ld = builder_absolute(rq->layout_dir);
	out->elf = builder_absolute(elf);
	free(elf);
	int rc = 0;
	if (make_safe("build folder", bd, err) || make_safe("layout folder", ld, err) ||
	    make_safe("ELF", out->elf, err))
		rc = -1;
	size_t nargs = 0;
	while (cfg->args && cfg->args[nargs])
		nargs++;
	if (rc == 0) {
		char **argv = xcalloc(nargs + 8, sizeof *argv);
		size_t k = 0;
		argv[k++] = xstrdup("make");
		argv[k++] = xstrdup("-C");
		argv[k++] = xstrdup(dir);
		argv[k++] = xstrdup("--no-print-directory");
		argv[k++] = xasprintf("BUILD_DIR=%s", bd);
		argv[k++] = xasprintf("LAYOUT=%s", ld);
		argv[k++] = xasprintf("ELF_OUT=%s", out->elf);
		for (size_t i = 0; i < nargs; i++)
			argv[k++] = xstrdup(cfg->args[i]);
		argv[k] = NULL;
		out->argv = argv;
		out->writes_elf = 1;
	}
	free(dir);
	free(bd);
	free(ld);
	if (rc != 0)
		build_cmd_free(out);
	return rc;
}

const xb_builder_ops builder_make = {
	.name = "make",
	.summary = "the demo echo firmware's Makefile (make -C firmware LAYOUT=... ELF_OUT=...)",
	.check = make_check,
	.prepare = make_prepare,
	.progress = builder_progress_generic,
	.error_line = builder_error_line_generic,
};
