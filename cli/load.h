/* load: what plan, predict and info share: target, image, map, grouping, alignments. */
#ifndef XB_CLI_LOAD_H
#define XB_CLI_LOAD_H

#include "../core/buildsys.h"
#include "../core/image.h"
#include "../core/target.h"

typedef struct cli_load_opts {
	const char *elf;
	const char *map;     /* NULL: ELF.map or ELF-without-.elf.map next to it, if it exists */
	const char *target;  /* name or path; NULL: rp2040 */
	const char *groups;  /* NULL: the shipped groups/default.groups */
	int need_map;        /* fail when no map is found; also resolve alignments */
} cli_load_opts;

/* --zephyr DIR / --pico-sdk DIR, given nbuild times in all (dir NULL: neither): finds the
 * build folder's ELF and map (o->elf, o->map must not be given too); *b (b may be NULL)
 * gets the folder, kept until the program exits, or NULL. Prints errors; returns
 * XB_EXIT_OK, XB_EXIT_FAIL for a folder without them, XB_EXIT_USAGE for a usage error
 * (both options, or one with --elf or --map). */
int cli_load_build(const char *cmd, enum xb_build_kind kind, const char *dir, int nbuild,
		   cli_load_opts *o, const xb_build_folder **b);

/* The image options info, plan, predict, verify and triage share (--elf, --zephyr,
 * --pico-sdk, --map, --target): CLI_LOAD_LONGOPTS goes into a command's getopt table,
 * cli_load_option takes the values (1 when c was one of them), and the build folder they
 * name goes to cli_load_build. */
enum { CLI_O_ELF = 1000, CLI_O_ZEPHYR, CLI_O_PICO, CLI_O_MAP, CLI_O_TARGET };
#define CLI_LOAD_LONGOPTS                                                                   \
	{"elf", required_argument, 0, CLI_O_ELF}, {"zephyr", required_argument, 0, CLI_O_ZEPHYR}, \
	{"pico-sdk", required_argument, 0, CLI_O_PICO}, {"map", required_argument, 0, CLI_O_MAP}, \
	{"target", required_argument, 0, CLI_O_TARGET}
typedef struct cli_build_arg {
	const char *dir;        /* --zephyr or --pico-sdk DIR (the last one given) */
	enum xb_build_kind kind;
	int n;                  /* how many of them were given */
} cli_build_arg;
int cli_load_option(int c, const char *arg, cli_load_opts *lo, cli_build_arg *b);

/* Loads everything; on failure prints "xipbench CMD: problem" and returns -1 with nothing
 * left to free. */
int cli_load(const char *cmd, const cli_load_opts *o, xb_target *tg, xb_image *img);

/* Loads a target by name (shipped targets folder) or path; prints errors. */
int cli_load_target(const char *cmd, const char *name, xb_target *tg);

#endif
