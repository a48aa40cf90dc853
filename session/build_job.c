/* build_job: a builder's command run through proc without blocking, its lines passed on
 * and sifted (progress, errors, the tail), and the ELF checked at the end; plus what the
 * builders share (progress and error lines of common build tools, request checks). */
#include "build_job.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../core/image.h"

const xb_builder_ops *const builders[] = {&builder_make, &builder_command, NULL};

const xb_builder_ops *builder_find(const char *name)
{
	for (size_t i = 0; builders[i]; i++)
		if (strcmp(builders[i]->name, name) == 0)
			return builders[i];
	return NULL;
}

/* ---- what the builders share ---- */

static const char *skip_blanks(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

static const char *read_count(const char *s, unsigned long *v)
{
	if (*s < '0' || *s > '9')
		return NULL;
	char *end;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return errno ? NULL : end;
}

double builder_progress_generic(const char *line)
{
	const char *s = skip_blanks(line);
	unsigned long n, m;
	if (*s++ != '[' || !(s = read_count(skip_blanks(s), &n)))
		return -1;
	if (*s == '/') {
		if (!(s = read_count(s + 1, &m)) || *s != ']' || m == 0 || n > m)
			return -1;
		return (double)n / (double)m;
	}
	if (*s == '%' && s[1] == ']' && n <= 100)
		return (double)n / 100.0;
	return -1;
}

int builder_error_line_generic(const char *line)
{
	static const char *const marks[] = {
		"error:", "Error:", "undefined reference", "multiple definition of",
		"will not fit in region", "' overflowed by", "cannot open linker script file",
		"No rule to make target", "cannot find -l", NULL,
	};
	for (size_t i = 0; marks[i]; i++)
		if (strstr(line, marks[i]))
			return 1;
	/* make: "make[1]: *** [Makefile:12: x.elf] Error 1", "*** missing separator.  Stop." */
	return strstr(line, "*** ") != NULL;
}

int builder_safe_name(const char *s)
{
	size_t n = strlen(s);
	if (n == 0 || n > XB_SAFE_NAME_MAX || s[0] == '.' || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
		      (s[i] >= '0' && s[i] <= '9') || strchr("._+-", s[i])))
			return 0;
	return 1;
}

int builder_check_request(const xb_build_request *rq, xb_err *err)
{
	struct stat st;
	if (!rq->layout_dir || !*rq->layout_dir)
		return xb_fail(err, "no layout folder to build with");
	if (stat(rq->layout_dir, &st) != 0 || !S_ISDIR(st.st_mode))
		return xb_fail(err, "%s: no such layout folder (xipbench plan --out writes one)",
			       rq->layout_dir);
	if (!rq->build_dir || !*rq->build_dir)
		return xb_fail(err, "no build folder");
	if (!rq->name || !builder_safe_name(rq->name)) {
		char q[80];
		xb_quote(q, sizeof q, rq->name ? rq->name : "", rq->name ? strlen(rq->name) : 0);
		return xb_fail(err, "layout name '%s' is not a safe file name: use letters, digits, "
				    "'.', '_', '+' and '-' (not first), at most %d bytes", q,
			       XB_SAFE_NAME_MAX);
	}
	if (rq->elf && !*rq->elf)
		return xb_fail(err, "empty ELF path");
	return 0;
}

char *builder_default_elf(const xb_build_request *rq)
{
	if (rq->elf)
		return xstrdup(rq->elf);
	return xasprintf("%s/layouts/%s.elf", rq->build_dir, rq->name);
}

char *builder_absolute(const char *path)
{
	if (path[0] == '/')
		return xstrdup(path);
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		return xstrdup(path); /* the folder is gone: nothing better to say */
	const char *rel = strncmp(path, "./", 2) == 0 ? path + 2 : path;
	char *abs = xasprintf("%s/%s", cwd, rel);
	free(cwd);
	return abs;
}

void build_cmd_free(xb_build_cmd *c)
{
	for (size_t i = 0; c->argv && c->argv[i]; i++)
		free(c->argv[i]);
	for (size_t i = 0; c->env && c->env[i]; i++)
		free(c->env[i]);
	free(c->argv);
	free(c->env);
	free(c->cwd);
	free(c->elf);
	memset(c, 0, sizeof *c);
}

/* ---- the job ---- */

struct xb_build_job {
	const xb_builder *b;
	xb_build_cmd cmd;
	char *cmdline;
	xb_proc *proc;
	xb_build_line_fn line;
	void *ctx;
	struct timespec start;          /* the clock file times come from */
	double progress;
	char *errors[XB_BUILD_SHOW_LINES]; /* the first error lines */
	size_t nerrors;
	char *tail[XB_BUILD_SHOW_LINES];   /* the last lines, a ring */
	size_t ntail, tail_next;
	char *show[XB_BUILD_SHOW_LINES];   /* the result's lines (borrowed from the above) */
	char *map;
	int done;
	xb_build_result res;
};

static void on_line(void *ctx, const char *line, size_t len)
{
	xb_build_job *j = ctx;
	j->res.output_lines++;
	int error = j->b->ops->error_line ? j->b->ops->error_line(line) : 0;
	if (error && j->nerrors < XB_BUILD_SHOW_LINES)
		j->errors[j->nerrors++] = xstrndup(line, len);
	free(j->tail[j->tail_next]);
	j->tail[j->tail_next] = xstrndup(line, len);
	j->tail_next = (j->tail_next + 1) % XB_BUILD_SHOW_LINES;
	if (j->ntail < XB_BUILD_SHOW_LINES)
		j->ntail++;
	double f = j->b->ops->progress ? j->b->ops->progress(line) : -1;
	if (f >= 0)
		j->progress = f;
	if (j->line)
		j->line(j->ctx, line, len, error);
}

/* An argument as a shell would need it written. */
static void quote_arg(xb_strbuf *sb, const char *a)
{
	if (*a && strspn(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
			    "_./:=+,%@-") == strlen(a)) {
		sb_puts(sb, a);
		return;
	}
	sb_puts(sb, "'");
	for (const char *p = a; *p; p++)
		if (*p == '\'')
			sb_puts(sb, "'\\''");
		else
			sb_append(sb, p, 1);
	sb_puts(sb, "'");
}

static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	return slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
}

/* Removes the image the command is about to write, and its map. */
static int remove_old_image(const char *elf, xb_err *err)
{
	if (unlink(elf) != 0 && errno != ENOENT)
		return xb_fail(err, "%s: cannot remove the old image before relinking: %s", elf,
			       strerror(errno));
	char *map = image_find_map(elf);
	if (map)
		unlink(map);
	free(map);
	return 0;
}

xb_build_job *build_start(const xb_builder *b, const xb_build_request *rq,
			  const xb_build_options *o, xb_err *err)
{
	xb_build_options none = {0};
	if (!o)
		o = &none;
	if (builder_check_request(rq, err) != 0 || (b->ops->check && b->ops->check(&b->cfg, err)))
		return NULL;
	xb_build_job *j = xcalloc(1, sizeof *j);
	j->b = b;
	j->line = o->line;
	j->ctx = o->ctx;
	j->progress = -1;
	if (b->ops->prepare(&b->cfg, rq, &j->cmd, err) != 0)
		goto fail;
	char *elf_dir = dir_of(j->cmd.elf);
	int rc = xb_mkdirs(rq->build_dir, err) == 0 ? xb_mkdirs(elf_dir, err) : -1;
	free(elf_dir);
	if (rc != 0 || (j->cmd.writes_elf && remove_old_image(j->cmd.elf, err) != 0))
		goto fail;
	xb_strbuf sb = {0};
	for (size_t i = 0; j->cmd.argv[i]; i++) {
		if (i)
			sb_puts(&sb, " ");
		quote_arg(&sb, j->cmd.argv[i]);
	}
	j->cmdline = sb.buf;
	clock_gettime(CLOCK_REALTIME_COARSE, &j->start);
	xb_proc_options po = {.argv = (const char *const *)j->cmd.argv,
			      .cwd = j->cmd.cwd,
			      .env = (const char *const *)j->cmd.env,
			      .line = on_line,
			      .ctx = j,
			      .clock = o->clock,
			      .clock_ctx = o->clock_ctx,
			      .grace_ns = o->grace_ns};
	j->proc = proc_start(&po, err);
	if (!j->proc)
		goto fail;
	j->res.elf = j->cmd.elf;
	return j;
fail:
	build_free(j);
	return NULL;
}

static int newer_than_start(const struct stat *st, const struct timespec *start)
{
	if (st->st_mtim.tv_sec != start->tv_sec)
		return st->st_mtim.tv_sec > start->tv_sec;
	return st->st_mtim.tv_nsec >= start->tv_nsec;
}

static void keep_lines(xb_build_job *j)
{
	size_t n = 0;
	if (j->nerrors) {
		for (size_t i = 0; i < j->nerrors; i++)
			j->show[n++] = j->errors[i];
	} else {
		size_t first = (j->tail_next + XB_BUILD_SHOW_LINES - j->ntail) % XB_BUILD_SHOW_LINES;
		for (size_t i = 0; i < j->ntail; i++)
			j->show[n++] = j->tail[(first + i) % XB_BUILD_SHOW_LINES];
	}
	j->res.lines = (const char *const *)j->show;
	j->res.nlines = n;
}

static void finish(xb_build_job *j)
{
	xb_build_result *r = &j->res;
	j->done = 1;
	proc_status(j->proc, &r->exit);
	char how[96];
	proc_status_text(&r->exit, how, sizeof how);
	const char *tool = strrchr(j->cmd.argv[0], '/') ? strrchr(j->cmd.argv[0], '/') + 1
							 : j->cmd.argv[0];
	if (r->exit.cancelled) {
		r->state = XB_BUILD_CANCELLED;
		snprintf(r->message, sizeof r->message, "the build was cancelled after %.1f s (%s %s)",
			 r->exit.seconds, tool, how);
		return;
	}
	if (!r->exit.exited || r->exit.code != 0) {
		r->state = XB_BUILD_FAILED;
		keep_lines(j);
		if (r->nlines)
			snprintf(r->message, sizeof r->message, "the build failed (%s %s): %s", tool,
				 how, r->lines[j->nerrors ? 0 : r->nlines - 1]);
		else
			snprintf(r->message, sizeof r->message, "the build failed (%s %s) and said "
				 "nothing", tool, how);
		return;
	}
	struct stat st;
	if (stat(j->cmd.elf, &st) != 0 || !S_ISREG(st.st_mode)) {
		r->state = XB_BUILD_FAILED;
		keep_lines(j);
		snprintf(r->message, sizeof r->message, "the build succeeded but wrote no %s: is "
			 "that the path of the image it links?", j->cmd.elf);
		return;
	}
	if (!newer_than_start(&st, &j->start)) {
		r->state = XB_BUILD_FAILED;
		keep_lines(j);
		snprintf(r->message, sizeof r->message, "the build succeeded but %s is older than "
			 "the build: it was not relinked (does the build know the layout's "
			 "fragments?)", j->cmd.elf);
		return;
	}
	r->state = XB_BUILD_OK;
	j->map = image_find_map(j->cmd.elf);
	r->map = j->map;
	snprintf(r->message, sizeof r->message, "built %s in %.1f s", j->cmd.elf,
		 r->exit.seconds);
}

int build_pump(xb_build_job *j)
{
	if (j->done)
		return 0;
	if (proc_pump(j->proc))
		return 1;
	finish(j);
	return 0;
}

int build_pollfd(const xb_build_job *j)
{
	return j->done ? -1 : proc_pollfd(j->proc);
}

int build_timeout_ms(const xb_build_job *j)
{
	return j->done ? -1 : proc_timeout_ms(j->proc);
}

void build_cancel(xb_build_job *j)
{
	if (!j->done)
		proc_cancel(j->proc);
}

int build_state(const xb_build_job *j)
{
	return j->done ? j->res.state : XB_BUILD_RUNNING;
}

double build_progress(const xb_build_job *j)
{
	return j->progress;
}

const char *build_command_line(const xb_build_job *j)
{
	return j->cmdline;
}

const xb_build_result *build_result(const xb_build_job *j)
{
	return &j->res;
}

void build_free(xb_build_job *j)
{
	if (!j)
		return;
	proc_free(j->proc);
	for (size_t i = 0; i < j->nerrors; i++)
		free(j->errors[i]);
	for (size_t i = 0; i < XB_BUILD_SHOW_LINES; i++)
		free(j->tail[i]);
	build_cmd_free(&j->cmd);
	free(j->cmdline);
	free(j->map);
	free(j);
}
