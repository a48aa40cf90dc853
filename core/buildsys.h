/* buildsys: the build systems xipbench knows (Zephyr, pico-sdk): their build folders (where
 * the ELF and the map are, the board, the RAM region, how to relink and flash), how to tell
 * an image of one from its map, and the one-time integration step each needs before a
 * layout can move functions (docs/build-folders.md). */
#ifndef XB_BUILDSYS_H
#define XB_BUILDSYS_H

#include <stdbool.h>
#include <stddef.h>

#include "image.h"
#include "target.h"
#include "util.h"

enum xb_build_kind { XB_BUILD_OTHER, XB_BUILD_ZEPHYR, XB_BUILD_PICO_SDK };

typedef struct xb_build_folder {
	enum xb_build_kind kind;
	char *dir;          /* the build folder as given */
	char *elf, *map;    /* found in it */
	char *board;        /* "rpi_pico", "pico" (NULL: not found) */
	char *platform;     /* pico-sdk: PICO_PLATFORM ("rp2040"); NULL otherwise */
	char *sdk;          /* pico-sdk: PICO_SDK_PATH; Zephyr: ZEPHYR_BASE (NULL: not found) */
	char *app_dir;      /* the application's source folder (CMAKE_HOME_DIRECTORY or
			     * APPLICATION_SOURCE_DIR) */
	char *name;         /* pico-sdk: the executable's name; Zephyr: "zephyr" */
	char *relink;       /* the command that relinks: "west build -d DIR" where west is on
			     * PATH, else "cmake --build DIR" (shell-quoted) */
	char *flash;        /* "west flash -d DIR" (Zephyr, for --west-flash), else NULL */
	bool code_relocation; /* Zephyr: CONFIG_CODE_DATA_RELOCATION=y in .config */
} xb_build_folder;

const char *buildsys_kind_name(enum xb_build_kind k);
/* The value of KEY in a Kconfig .config ("KEY=VALUE", quotes removed) or a CMakeCache.txt
 * ("KEY:TYPE=VALUE"), text NUL-terminated: a new string, or NULL. */
char *buildsys_config_value(const char *text, const char *key);
/* The workbench's build command template for the folder (session/builder.h): the relink
 * command, then the folder's ELF and map copied to {elf} and {elf}.map, where the layout
 * loop keeps each image. A new string. */
char *buildsys_workbench_command(const xb_build_folder *b);

/* Finds what a build folder of that kind holds. Fails naming the folder and what is
 * missing ("BUILD/zephyr/zephyr.elf: no such file; is BUILD a Zephyr build folder (west
 * build -d BUILD)?"). */
int buildsys_find(xb_build_folder *b, enum xb_build_kind kind, const char *dir, xb_err *err);
void buildsys_free(xb_build_folder *b);

/* The build system an image comes from, from its map and functions (Zephyr: the rom_start
 * output section; pico-sdk: _reset_handler with runtime_init, or the .boot2 and
 * .flash_begin outputs). */
enum xb_build_kind buildsys_detect(const xb_image *img);

/* The map's memory region holding the target's SRAM ("RAM" on Zephyr's rpi_pico, "RAM" on
 * pico-sdk), written to out; 0, or -1 when the map has no such region. */
int buildsys_ram_region(const xb_image *img, const xb_target *tg, char *out, size_t n);

/* Where the hot block goes in an image linked without xipbench's marker symbols: Zephyr's
 * ROM_START sources go at the end of the rom_start output section (0 with *at set). Fails
 * with the exact one-time integration step for the image's build system otherwise. */
int buildsys_hot_insertion(const xb_image *img, uint32_t *at, xb_err *err);

/* The one-time integration step for fragment `what` ("hot", "ramfunc", "noalloc") on an
 * image of kind k: a new string of one or more lines. */
char *buildsys_integration_step(enum xb_build_kind k, const char *what);

/* pico-sdk's memmap_default.ld made ready for xipbench layouts (docs/build-folders.md):
 *   - `INCLUDE xipbench_hot.ld` right after `KEEP (*(.reset))` in .text, so the hot block
 *     follows the vector table and the reset code;
 *   - `INCLUDE xipbench_ramfunc.ld` in .data right after `*(.time_critical*)`, which the
 *     SDK's crt0 copies to RAM at start-up (its data_cpy_table), so no code changes;
 *   - for those RAM rules to see the functions first, the general text rule
 *     `*(EXCLUDE_FILE(...) .text*)` leaves .text for a new output section .xipbench_text
 *     placed after .tdata (in flash, after .data's load image), and .data's `*(.text*)`
 *     (meant for the libraries the EXCLUDE_FILE list keeps out of flash) names those
 *     libraries instead.
 * Fails naming the line it could not find (another SDK's script: edit it by hand as the
 * doc shows). */
int buildsys_pico_memmap(const char *text, const char *name, xb_strbuf *out, xb_err *err);

/* The memmap_default.ld of a pico-sdk (PICO_SDK_PATH) for a platform ("rp2040",
 * "rp2350"; NULL: rp2040): pico-sdk 2.x's pico_crt0/PLATFORM/, else 1.x's
 * pico_standard_link/. A new string, or NULL when there is none. */
char *buildsys_pico_memmap_path(const char *sdk, const char *platform);

#endif
