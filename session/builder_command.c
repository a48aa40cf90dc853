/* builder_command: any build system, through a command template with placeholders: split
 * into words like a shell would, run without one (builder.h describes the syntax). */
#include <stdlib.h>
#include <string.h>

#include "builder.h"

typedef struct values {
	const char *layout_dir, *build_dir, *elf, *name;
} values;

static const char *const known = "{layout_dir}, {build_dir}, {elf}, {name}";

/* Which placeholder name[0..n) is (0..3, its value in *value), or -1 for none. */
static int placeholder(const char *name, size_t n, const values *v, const char **value)
{
	static const char *const names[] = {"layout_dir", "build_dir", "elf", "name"};
	const char *vals[] = {v ? v->layout_dir : "", v ? v->build_dir : "", v ? v->elf : "",
			      v ? v->name : ""};
	for (int i = 0; i < 4; i++)
		if (strlen(names[i]) == n && strncmp(names[i], name, n) == 0) {
			*value = vals[i];
			return i;
		}
	return -1;
}

typedef struct words {
	char **v;
	size_t n, cap;
	xb_strbuf w;
	int in_word;
	int uses_elf;
} words;

static void end_word(words *ws)
{
	if (!ws->in_word)
		return;
	xb_grow(&ws->v, &ws->cap, ws->n + 2, sizeof *ws->v);
	ws->v[ws->n++] = ws->w.buf ? ws->w.buf : xstrdup("");
	ws->v[ws->n] = NULL;
	memset(&ws->w, 0, sizeof ws->w);
	ws->in_word = 0;
}

/* Appends to the word (n may be 0: '' and an empty value still make a word). */
static void add(words *ws, const char *s, size_t n)
{
	sb_append(&ws->w, s, n);
	ws->in_word = 1;
}

static void words_free(words *ws)
{
	for (size_t i = 0; i < ws->n; i++)
		free(ws->v[i]);
	free(ws->v);
	sb_free(&ws->w);
}

/* A placeholder at t[i] == '{': appends its value and returns the index after it, or -1
 * with err. */
static long take_placeholder(const char *t, size_t i, const values *v, words *ws, xb_err *err)
{
	size_t end = i + 1;
	while (t[end] && t[end] != '}' && t[end] != '{' && !strchr(" \t\n'\"\\", t[end]))
		end++;
	const char *value;
	int which = t[end] == '}' ? placeholder(t + i + 1, end - i - 1, v, &value) : -1;
	if (which < 0) {
		char q[48];
		size_t n = t[end] == '}' ? end - i + 1 : end - i;
		xb_quote(q, sizeof q, t + i, n);
		xb_fail(err, "build command, column %zu: unknown placeholder '%s' (known: %s; "
			     "write {{ and }} for braces)",
			i + 1, q, known);
		return -1;
	}
	ws->uses_elf |= which == 2;
	add(ws, value, strlen(value));
	return (long)end + 1;
}

/* Splits the template into words with the placeholders replaced (v NULL: only checks). */
static int expand(const char *t, const values *v, words *ws, xb_err *err)
{
	enum { PLAIN, SINGLE, DOUBLE } q = PLAIN;
	size_t qcol = 0;
	memset(ws, 0, sizeof *ws);
	for (size_t i = 0; t[i];) {
		char c = t[i];
		if (q == PLAIN && (c == ' ' || c == '\t' || c == '\n')) {
			end_word(ws);
			i++;
			continue;
		}
		if (q == PLAIN && (c == '\'' || c == '"')) {
			q = c == '\'' ? SINGLE : DOUBLE;
			qcol = i + 1;
			add(ws, "", 0);
			i++;
			continue;
		}
		if ((q == SINGLE && c == '\'') || (q == DOUBLE && c == '"')) {
			q = PLAIN;
			i++;
			continue;
		}
		if (c == '\\' && q != SINGLE) {
			char next = t[i + 1];
			if (!next) {
				words_free(ws);
				return xb_fail(err, "build command, column %zu: a backslash ends the "
						    "command", i + 1);
			}
			if (q == PLAIN || strchr("\"\\$`\n", next)) {
				if (next != '\n') /* a backslash-newline joins lines */
					add(ws, &next, 1);
				i += 2;
				continue;
			}
		}
		if (c == '{' && t[i + 1] == '{') {
			add(ws, "{", 1);
			i += 2;
			continue;
		}
		if (c == '}' && t[i + 1] == '}') {
			add(ws, "}", 1);
			i += 2;
			continue;
		}
		if (c == '{') {
			long next = take_placeholder(t, i, v, ws, err);
			if (next < 0) {
				words_free(ws);
				return -1;
			}
			i = (size_t)next;
			continue;
		}
		add(ws, &c, 1);
		i++;
	}
	if (q != PLAIN) {
		words_free(ws);
		return xb_fail(err, "build command, column %zu: the %s quote opened there is not "
				    "closed",
			       qcol, q == SINGLE ? "single" : "double");
	}
	end_word(ws);
	if (ws->n == 0) {
		words_free(ws);
		return xb_fail(err, "the build command is empty");
	}
	return 0;
}

static int command_check(const xb_builder_config *cfg, xb_err *err)
{
	if (!cfg->command)
		return xb_fail(err, "the command builder needs a build command");
	words ws;
	if (expand(cfg->command, NULL, &ws, err) != 0)
		return -1;
	words_free(&ws);
	return 0;
}

static int command_prepare(const xb_builder_config *cfg, const xb_build_request *rq,
			   xb_build_cmd *out, xb_err *err)
{
	memset(out, 0, sizeof *out);
	if (!cfg->command)
		return xb_fail(err, "the command builder needs a build command");
	char *elf = builder_default_elf(rq);
	values v = {.layout_dir = builder_absolute(rq->layout_dir),
		    .build_dir = builder_absolute(rq->build_dir),
		    .elf = builder_absolute(elf),
		    .name = rq->name};
	free(elf);
	words ws;
	int rc = expand(cfg->command, &v, &ws, err);
	if (rc == 0) {
		out->argv = ws.v;
		out->writes_elf = ws.uses_elf;
		out->env = xcalloc(5, sizeof *out->env);
		out->env[0] = xasprintf("XB_LAYOUT_DIR=%s", v.layout_dir);
		out->env[1] = xasprintf("XB_BUILD_DIR=%s", v.build_dir);
		out->env[2] = xasprintf("XB_ELF=%s", v.elf);
		out->env[3] = xasprintf("XB_NAME=%s", v.name);
		out->cwd = cfg->dir ? xstrdup(cfg->dir) : NULL;
		out->elf = (char *)v.elf;
		sb_free(&ws.w);
	} else {
		free((char *)v.elf);
	}
	free((char *)v.layout_dir);
	free((char *)v.build_dir);
	return rc;
}

const xb_builder_ops builder_command = {
	.name = "command",
	.summary = "a build command template ({layout_dir} {build_dir} {elf} {name}), run "
		   "without a shell",
	.check = command_check,
	.prepare = command_prepare,
	.progress = builder_progress_generic,
	.error_line = builder_error_line_generic,
};
