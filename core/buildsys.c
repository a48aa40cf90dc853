/* buildsys: Zephyr and pico-sdk build folders and images (buildsys.h). */
#include "buildsys.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *buildsys_kind_name(enum xb_build_kind k)
{
	switch (k) {
	case XB_BUILD_ZEPHYR: return "zephyr";
	case XB_BUILD_PICO_SDK: return "pico-sdk";
	default: return "other";
	}
}

static bool is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISREG(st.st_mode);
}

static bool is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The value of KEY in a CMakeCache.txt ("KEY:TYPE=VALUE"), a new string, or NULL. */
static char *cache_value(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (strncmp(l, key, kl) != 0 || (l[kl] != ':' && l[kl] != '='))
			continue;
		const char *eq = strchr(l + kl, '=');
		const char *nl = strchr(l, '\n');
		if (!eq || (nl && eq > nl))
			continue;
		size_t n = nl ? (size_t)(nl - eq - 1) : strlen(eq + 1);
		while (n && (eq[n] == '\r'))
			n--;
		return n ? xstrndup(eq + 1, n) : NULL;
	}
	return NULL;
}

char *buildsys_config_value(const char *text, const char *key)
{
	char *v = cache_value(text, key); /* "KEY=VALUE": the same shape without a type */
	if (v && v[0] == '"') {
		size_t n = strlen(v);
		char *u = xstrndup(v + 1, n >= 2 && v[n - 1] == '"' ? n - 2 : n - 1);
		free(v);
		v = u;
	}
	return v;
}

static char *read_text(const char *path)
{
	char *buf;
	size_t len;
	xb_err ignored;
	if (xb_read_file(path, &buf, &len, &ignored) != 0)
		return NULL;
	return buf;
}

/* s quoted for a build command template (session/builder.h): single quotes, a quote
 * inside as '\'', braces doubled so that no folder name reads as a placeholder. */
static void quote(xb_strbuf *sb, const char *s)
{
	sb_puts(sb, "'");
	for (; *s; s++) {
		if (*s == '\'')
			sb_puts(sb, "'\\''");
		else if (*s == '{' || *s == '}')
			sb_printf(sb, "%c%c", *s, *s);
		else
			sb_append(sb, s, 1);
	}
	sb_puts(sb, "'");
}

static int find_zephyr(xb_build_folder *b, const char *dir, xb_err *err)
{
	b->elf = xasprintf("%s/zephyr/zephyr.elf", dir);
	if (!is_file(b->elf))
		return xb_fail(err, "%s: no such file; is %s a Zephyr build folder (west build -d "
				    "%s)?", b->elf, dir, dir);
	const char *maps[] = {"zephyr_final.map", "zephyr.map"};
	for (size_t i = 0; i < 2 && !b->map; i++) {
		char *m = xasprintf("%s/zephyr/%s", dir, maps[i]);
		if (is_file(m))
			b->map = m;
		else
			free(m);
	}
	if (!b->map)
		return xb_fail(err, "%s/zephyr: no zephyr_final.map or zephyr.map (the build writes "
				    "one unless CONFIG_OUTPUT_MAP=n)", dir);
	char *cache_path = xasprintf("%s/CMakeCache.txt", dir);
	char *cache = read_text(cache_path);
	free(cache_path);
	char *cfg_path = xasprintf("%s/zephyr/.config", dir);
	char *cfg = read_text(cfg_path);
	free(cfg_path);
	if (cfg) {
		b->board = buildsys_config_value(cfg, "CONFIG_BOARD_TARGET");
		if (!b->board)
			b->board = buildsys_config_value(cfg, "CONFIG_BOARD");
		char *reloc = buildsys_config_value(cfg, "CONFIG_CODE_DATA_RELOCATION");
		b->code_relocation = reloc && strcmp(reloc, "y") == 0;
		free(reloc);
	}
	if (cache) {
		if (!b->board)
			b->board = cache_value(cache, "CACHED_BOARD");
		if (!b->board)
			b->board = cache_value(cache, "BOARD");
		b->sdk = cache_value(cache, "ZEPHYR_BASE");
		b->app_dir = cache_value(cache, "APPLICATION_SOURCE_DIR");
		if (!b->app_dir)
			b->app_dir = cache_value(cache, "CMAKE_HOME_DIRECTORY");
	}
	free(cache);
	free(cfg);
	b->name = xstrdup("zephyr");
	xb_strbuf sb = {0};
	if (xb_on_path("west")) {
		sb_puts(&sb, "west build -d ");
		quote(&sb, dir);
		sb_puts(&sb, " -- -DSNIPPET=xipbench-layout "
			     "-DEXTRA_ZEPHYR_MODULES={layout_dir}/zephyr/snippet");
		xb_strbuf fl = {0};
		sb_puts(&fl, "west flash -d ");
		quote(&fl, dir);
		b->flash = fl.buf;
	} else {
		/* cmake alone: configure with the snippet and the module, then build; the
		 * folders reach the shell as arguments, never as script text */
		sb_puts(&sb, "sh -c 'cmake -DSNIPPET=xipbench-layout \"-DEXTRA_ZEPHYR_MODULES=$1/"
			     "zephyr/snippet\" \"$2\" && cmake --build \"$2\"' sh {layout_dir} ");
		quote(&sb, dir);
	}
	b->relink = sb.buf;
	return 0;
}

static int find_pico_sdk(xb_build_folder *b, const char *dir, xb_err *err)
{
	char *cache_path = xasprintf("%s/CMakeCache.txt", dir);
	char *cache = read_text(cache_path);
	if (!cache) {
		int rc = xb_fail(err, "%s: no such file; is %s a pico-sdk build folder (cmake -B %s)?",
				 cache_path, dir, dir);
		free(cache_path);
		return rc;
	}
	free(cache_path);
	b->sdk = cache_value(cache, "PICO_SDK_PATH");
	b->board = cache_value(cache, "PICO_BOARD");
	b->platform = cache_value(cache, "PICO_PLATFORM");
	b->app_dir = cache_value(cache, "CMAKE_HOME_DIRECTORY");
	char *project = cache_value(cache, "CMAKE_PROJECT_NAME");
	free(cache);
	if (!b->sdk) {
		free(project);
		return xb_fail(err, "%s/CMakeCache.txt has no PICO_SDK_PATH: not a pico-sdk build",
			       dir);
	}
	/* NAME.elf with NAME.elf.map beside it (pico_add_extra_outputs), the project's first */
	char *found = NULL;
	size_t nfound = 0;
	xb_strbuf names = {0};
	DIR *d = opendir(dir);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		size_t n = strlen(de->d_name);
		if (n < 5 || strcmp(de->d_name + n - 4, ".elf") != 0)
			continue;
		char *map = xasprintf("%s/%s.map", dir, de->d_name);
		if (is_file(map)) {
			char *name = xstrndup(de->d_name, n - 4);
			sb_printf(&names, "%s%s", nfound ? ", " : "", de->d_name);
			nfound++;
			if (!found || (project && strcmp(name, project) == 0) ||
			    (!(project && strcmp(found, project) == 0) && strcmp(name, found) < 0)) {
				free(found);
				found = name;
			} else {
				free(name);
			}
		}
		free(map);
	}
	if (d)
		closedir(d);
	free(project);
	if (!found) {
		sb_free(&names);
		return xb_fail(err, "%s: no NAME.elf with NAME.elf.map beside it (pico-sdk writes the "
				    "map with pico_add_extra_outputs(NAME))", dir);
	}
	b->name = found;
	b->elf = xasprintf("%s/%s.elf", dir, found);
	b->map = xasprintf("%s/%s.elf.map", dir, found);
	sb_free(&names);
	xb_strbuf sb = {0};
	char *integ = b->app_dir ? xasprintf("%s/xipbench", b->app_dir) : NULL;
	if (integ && is_dir(integ)) {
		/* the folder of `xipbench integrate`: the layout's fragments go there, and the
		 * script's time changes so that CMake relinks */
		sb_puts(&sb, "sh -c 'cp \"$1\"/xipbench_hot.ld \"$1\"/xipbench_ramfunc.ld \"$2\"/ && "
			     "touch \"$2\"/memmap_xipbench.ld && cmake --build \"$3\" --target \"$4\"' "
			     "sh {layout_dir} ");
		quote(&sb, integ);
		sb_puts(&sb, " ");
		quote(&sb, dir);
		sb_puts(&sb, " ");
		quote(&sb, found);
	} else {
		sb_puts(&sb, "cmake --build ");
		quote(&sb, dir);
		sb_puts(&sb, " --target ");
		quote(&sb, found);
	}
	free(integ);
	b->relink = sb.buf;
	return 0;
}

int buildsys_find(xb_build_folder *b, enum xb_build_kind kind, const char *dir, xb_err *err)
{
	memset(b, 0, sizeof *b);
	b->kind = kind;
	if (!is_dir(dir))
		return xb_fail(err, "%s: no such folder", dir);
	b->dir = xstrdup(dir);
	int rc = kind == XB_BUILD_ZEPHYR	 ? find_zephyr(b, dir, err)
		 : kind == XB_BUILD_PICO_SDK ? find_pico_sdk(b, dir, err)
					     : xb_fail(err, "unknown build system");
	if (rc != 0)
		buildsys_free(b);
	return rc;
}

void buildsys_free(xb_build_folder *b)
{
	free(b->dir);
	free(b->elf);
	free(b->map);
	free(b->board);
	free(b->platform);
	free(b->sdk);
	free(b->app_dir);
	free(b->name);
	free(b->relink);
	free(b->flash);
	memset(b, 0, sizeof *b);
}

char *buildsys_workbench_command(const xb_build_folder *b)
{
	/* sh gets the built ELF and map as $1 and $2, the relink command's words after them */
	xb_strbuf sb = {0};
	sb_puts(&sb, "sh -c 'e=$1 m=$2; shift 2; \"$@\" && cp -- \"$e\" \"$XB_ELF\" && "
		     "cp -- \"$m\" \"$XB_ELF.map\"' sh ");
	quote(&sb, b->elf);
	sb_puts(&sb, " ");
	quote(&sb, b->map);
	sb_printf(&sb, " %s", b->relink);
	return sb.buf;
}

static long map_output(const xb_image *img, const char *name)
{
	for (size_t i = 0; img->has_map && i < img->map.noutputs; i++)
		if (strcmp(img->map.outputs[i].name, name) == 0)
			return (long)i;
	return -1;
}

enum xb_build_kind buildsys_detect(const xb_image *img)
{
	if (map_output(img, "rom_start") >= 0 ||
	    (image_find_function(img, "z_cstart") >= 0 && image_find_function(img, "z_prep_c") >= 0))
		return XB_BUILD_ZEPHYR;
	if ((image_find_function(img, "_reset_handler") >= 0 &&
	     image_find_function(img, "runtime_init") >= 0) ||
	    (map_output(img, ".boot2") >= 0 && map_output(img, ".flash_begin") >= 0))
		return XB_BUILD_PICO_SDK;
	return XB_BUILD_OTHER;
}

int buildsys_ram_region(const xb_image *img, const xb_target *tg, char *out, size_t n)
{
	if (!img->has_map)
		return -1;
	const xb_map *m = &img->map;
	for (size_t i = 0; i < m->nregions; i++) {
		const xb_region *r = target_region_of(tg, (uint32_t)m->regions[i].origin);
		if (r && r->kind == XB_REGION_SRAM && m->regions[i].length) {
			snprintf(out, n, "%s", m->regions[i].name);
			return 0;
		}
	}
	return -1;
}

char *buildsys_integration_step(enum xb_build_kind k, const char *what)
{
	switch (k) {
	case XB_BUILD_ZEPHYR:
		if (strcmp(what, "hot") == 0)
			return xstrdup("Zephyr needs no change to its linker script for the hot block: "
				       "build with the plan folder's module and snippet "
				       "(west build -d BUILD -- -DSNIPPET=xipbench-layout "
				       "-DEXTRA_ZEPHYR_MODULES=DIR/zephyr/snippet; "
				       "docs/formats-snippets.md, \"Zephyr\")");
		return xasprintf("Zephyr's stock linker script has no %s section for xipbench; "
				 "SRAM layouts use zephyr_code_relocate() (DIR/zephyr/relocate.cmake, "
				 "CONFIG_CODE_DATA_RELOCATION=y)", what);
	case XB_BUILD_PICO_SDK:
		return xasprintf("a one-time step for pico-sdk builds: `xipbench integrate --pico-sdk "
				 "BUILD --out DIR` writes a copy of your SDK's memmap_default.ld that "
				 "includes xipbench_%s.ld and prints the two CMake lines that use it "
				 "(docs/build-folders.md); rebuild, then plan from the new build",
				 what);
	default:
		return xasprintf("the linker script must INCLUDE xipbench_%s.ld (the symbol "
				 "__xipbench_%s_start is missing; docs/formats-snippets.md); link once "
				 "with the stock fragments, then plan from that build",
				 what, what);
	}
}

int buildsys_hot_insertion(const xb_image *img, uint32_t *at, xb_err *err)
{
	enum xb_build_kind k = buildsys_detect(img);
	long rs = map_output(img, "rom_start");
	if (k == XB_BUILD_ZEPHYR && rs >= 0) {
		/* zephyr_linker_sources(ROM_START ...) sources come last in rom_start */
		*at = (uint32_t)(img->map.outputs[rs].addr + img->map.outputs[rs].size);
		return 0;
	}
	char *step = buildsys_integration_step(k, "hot");
	int rc = xb_fail(err, "%s: no hot block insertion point (no __xipbench_hot_start): %s",
			 img->path ? img->path : "image", step);
	free(step);
	return rc;
}

char *buildsys_pico_memmap_path(const char *sdk, const char *platform)
{
	char *p = xasprintf("%s/src/rp2_common/pico_crt0/%s/memmap_default.ld", sdk,
			    platform && *platform ? platform : "rp2040");
	if (is_file(p))
		return p;
	free(p);
	p = xasprintf("%s/src/rp2_common/pico_standard_link/memmap_default.ld", sdk);
	if (is_file(p))
		return p;
	free(p);
	return NULL;
}

/* Line of text starting at l, without blanks: compared with patterns written without
 * blanks, so that "KEEP (*(.reset))" and "KEEP(*(.reset))" are one. */
static char *squeeze(const char *l, size_t n)
{
	char *s = xmalloc(n + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (l[i] != ' ' && l[i] != '\t' && l[i] != '\r')
			s[k++] = l[i];
	s[k] = 0;
	return s;
}

/* The complement of an EXCLUDE_FILE list: "*libgcc.a: *libc.a:*lib_a-mem*.o" gives
 * "*libgcc.a:(.text*) *libc.a:*lib_a-mem*.o(.text*)". */
static void complement_rule(xb_strbuf *out, const char *list, size_t n, const char *indent)
{
	sb_puts(out, indent);
	const char *sep = "";
	for (size_t i = 0; i < n;) {
		while (i < n && (list[i] == ' ' || list[i] == '\t'))
			i++;
		size_t j = i;
		while (j < n && list[j] != ' ' && list[j] != '\t')
			j++;
		if (j > i) {
			sb_printf(out, "%s%.*s(.text*)", sep, (int)(j - i), list + i);
			sep = " ";
		}
		i = j;
	}
	sb_puts(out, "\n");
}

int buildsys_pico_memmap(const char *text, const char *name, xb_strbuf *out, xb_err *err)
{
	enum { NONE, TEXT, DATA, TDATA } in = NONE;
	const char *excl_line = NULL, *excl_list = NULL;
	size_t excl_line_n = 0, excl_list_n = 0;
	int have_reset = 0, have_tc = 0, have_data_text = 0, placed_rest = 0;
	/* set at the end of .data or .tdata: .xipbench_text goes before the next output
	 * section, after the assignments that follow the copied sections (pico-sdk 2.x:
	 * PROVIDE(__data_end__ = .), which must still see the end of .tdata in RAM) */
	int rest_pending = 0;
	int depth = 0; /* braces open before the line: 1 inside SECTIONS */
	xb_strbuf o = {0};
	sb_printf(&o, "/* %s with the xipbench fragments (xipbench integrate; docs/build-folders.md):\n"
		      " * INCLUDE xipbench_hot.ld after the reset code, INCLUDE xipbench_ramfunc.ld in\n"
		      " * .data (copied to RAM by crt0), the general text rule moved to .xipbench_text\n"
		      " * after .data's load image. Link with -L to the folder of the fragments. */\n",
		  name);
	for (const char *l = text; *l;) {
		const char *nl = strchr(l, '\n');
		size_t n = nl ? (size_t)(nl - l) : strlen(l);
		char *sq = squeeze(l, n);
		size_t ind = 0;
		while (ind < n && (l[ind] == ' ' || l[ind] == '\t'))
			ind++;
		char indent[64];
		snprintf(indent, sizeof indent, "%.*s", (int)(ind < 60 ? ind : 60), l);
		int keep = 1;
		int is_tdata = strncmp(sq, ".tdata:", 7) == 0 || strcmp(sq, ".tdata") == 0;
		if (rest_pending && ((!is_tdata && sq[0] == '.' &&
				      (isalpha((unsigned char)sq[1]) || sq[1] == '_') && strchr(sq, ':')) ||
				     (depth == 1 && sq[0] == '}'))) {
			/* the first output section after the copied ones (or the end of SECTIONS):
			 * the general text, in flash after their load image, comes before it */
			sb_printf(&o, "%s.xipbench_text : {\n%s    %.*s\n%s} > FLASH\n\n", indent,
				  indent, (int)excl_line_n, excl_line, indent);
			placed_rest = 1;
			rest_pending = 0;
		}
		if (strncmp(sq, ".text:", 6) == 0 || strcmp(sq, ".text") == 0)
			in = TEXT;
		else if (strncmp(sq, ".data:", 6) == 0 || strcmp(sq, ".data") == 0)
			in = DATA;
		else if (is_tdata)
			in = TDATA;
		if (in == TEXT && strcmp(sq, "KEEP(*(.reset))") == 0) {
			sb_append(&o, l, n);
			sb_printf(&o, "\n%sINCLUDE xipbench_hot.ld", indent);
			have_reset = 1;
			keep = 0;
		} else if (in == TEXT && !excl_line && strncmp(sq, "*(EXCLUDE_FILE(", 15) == 0 &&
			   strstr(sq, ").text*)")) {
			excl_line = l + ind;
			excl_line_n = n - ind;
			const char *a = strstr(l, "EXCLUDE_FILE(") + 13;
			const char *b = memchr(a, ')', (size_t)(l + n - a));
			excl_list = a;
			excl_list_n = b ? (size_t)(b - a) : 0;
			sb_printf(&o, "%s/* the general text rule: in .xipbench_text below */", indent);
			keep = 0;
		} else if (in == DATA && strcmp(sq, "*(.time_critical*)") == 0) {
			sb_append(&o, l, n);
			sb_printf(&o, "\n%sINCLUDE xipbench_ramfunc.ld", indent);
			have_tc = 1;
			keep = 0;
		} else if (in == DATA && strcmp(sq, "*(.text*)") == 0 && excl_list) {
			sb_printf(&o, "%s/* the text the general rule leaves out of flash */\n", indent);
			complement_rule(&o, excl_list, excl_list_n, indent);
			o.len--; /* the newline comes below */
			o.buf[o.len] = 0;
			have_data_text = 1;
			keep = 0;
		} else if ((in == DATA || in == TDATA) && sq[0] == '}' && excl_line && !placed_rest) {
			/* the end of .data (pico-sdk 1.x) or of .tdata, which follows it (2.x) */
			rest_pending = 1;
			in = NONE;
		}
		if (keep)
			sb_append(&o, l, n);
		sb_puts(&o, "\n");
		for (const char *c = sq; *c; c++)
			depth += *c == '{' ? 1 : *c == '}' ? -1 : 0;
		free(sq);
		if (!nl)
			break;
		l = nl + 1;
	}
	const char *missing = !have_reset	? "`KEEP (*(.reset))` in .text"
			      : !excl_line	? "the `*(EXCLUDE_FILE(...) .text*)` rule in .text"
			      : !have_tc	? "`*(.time_critical*)` in .data"
			      : !have_data_text ? "`*(.text*)` in .data"
			      : !placed_rest	? "an output section after .data"
						: NULL;
	if (missing) {
		sb_free(&o);
		return xb_fail(err, "%s: no %s: not the memmap_default.ld shape xipbench knows; add "
				    "the INCLUDE lines by hand (docs/build-folders.md)", name, missing);
	}
	sb_append(out, o.buf, o.len);
	sb_free(&o);
	return 0;
}
