/* exp_build: the experiment's builds (make in the firmware folder, no shell), its plans
 * (the planners of core/plan.h on the profile files) and the folders the relinks read. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <poll.h>

#include "../core/layout.h"
#include "../core/verify.h"
#include "../session/build_job.h"
#include "cli.h"
#include "experiment.h"
#include "load.h"
#include "report.h"

int exp_make(const char *fwdir, const char *const *args, const char *log, xb_err *err)
{
	size_t n = 0;
	while (args[n])
		n++;
	char **argv = xcalloc(n + 4, sizeof *argv);
	argv[0] = (char *)"make";
	argv[1] = (char *)"-C";
	argv[2] = (char *)fwdir;
	for (size_t i = 0; i < n; i++)
		argv[3 + i] = (char *)args[i];
	int fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(argv);
		return xb_fail(err, "%s: cannot open the build log: %s", log, strerror(errno));
	}
	{
		xb_strbuf line = {0};
		sb_printf(&line, "$");
		for (size_t i = 0; argv[i]; i++)
			sb_printf(&line, " %s", argv[i]);
		sb_printf(&line, "\n");
		if (write(fd, line.buf, line.len) < 0) { /* the log is best effort */
		}
		sb_free(&line);
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(fd, 1);
		dup2(fd, 2);
		int nul = open("/dev/null", O_RDONLY);
		if (nul >= 0)
			dup2(nul, 0);
		execvp("make", argv);
		_exit(127);
	}
	close(fd);
	free(argv);
	if (pid < 0)
		return xb_fail(err, "cannot start make: %s", strerror(errno));
	int st = 0;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return xb_fail(err, "waiting for make: %s", strerror(errno));
	if (WIFEXITED(st) && WEXITSTATUS(st) == 127)
		return xb_fail(err, "make could not be run (is it installed?); see %s", log);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return xb_fail(err, "the firmware build in %s failed (make %s); its output is in %s",
			       fwdir, n ? args[n - 1] : "", log);
	return 0;
}

/* Loads elf and its map (NULL: the one next to it) as plan does. */
static int load_image(const char *elf, const char *map, const xb_target *tg, xb_image *img,
		      xb_err *err)
{
	xb_image_open io = {.elf = elf, .map = map, .need_map = 1};
	return image_open(img, &io, tg, err);
}

int exp_plan(const xb_target *tg, exp_plan_req *req, xb_err *err)
{
	const xb_planner *pl = plan_find(req->strategy);
	if (!pl)
		return xb_fail(err, "no planner '%s'", req->strategy);
	xb_image img;
	if (load_image(req->elf, req->map, tg, &img, err))
		return -1;
	int rc = -1;
	xb_plan_input in = {.img = &img, .tg = tg, .sram_budget = req->sram_budget,
			    .pad_budget = req->pad_budget, .sram_libraries = req->sram_libs,
			    .search_moves = req->search_moves, .search_seconds = req->search_seconds,
			    .search_seed = req->search_seed, .search_stats = &req->search};
	memset(&req->search, 0, sizeof req->search);
	xb_plan_inputs ci, cp;
	memset(&cp, 0, sizeof cp);
	if (plan_inputs_load(&ci, req->samples, req->trace, &in, err) != 0) {
		image_free(&img);
		return -1;
	}
	xb_layout l;
	layout_init(&l);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (pl->plan(&in, &l, err) != 0)
		goto done;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	req->plan_seconds = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) * 1e-9;
	if (plan_write_layout_dir(&in, &l, req->dir, err) != 0)
		goto done;
	xb_plan_input pin = in;
	if (req->predict_trace && strcmp(req->predict_trace, req->trace ? req->trace : "") != 0) {
		if (plan_inputs_load(&cp, NULL, req->predict_trace, &pin, err) != 0)
			goto done;
	}
	rc = plan_predict(&pin, &l, &req->pred, err);
done:
	layout_free(&l);
	plan_inputs_free(&cp);
	plan_inputs_free(&ci);
	image_free(&img);
	return rc;
}

int exp_predict_stock(const xb_target *tg, const char *elf, const char *map, const char *trace,
		      xb_prediction *out, xb_err *err)
{
	xb_image img;
	if (load_image(elf, map, tg, &img, err))
		return -1;
	xb_plan_input in = {.img = &img, .tg = tg};
	xb_plan_inputs ci;
	if (plan_inputs_load(&ci, NULL, trace, &in, err) != 0) {
		image_free(&img);
		return -1;
	}
	xb_layout stock;
	layout_init(&stock);
	int rc = plan_predict(&in, &stock, out, err);
	layout_free(&stock);
	plan_inputs_free(&ci);
	image_free(&img);
	return rc;
}

int exp_build_firmware(const char *fwdir, const char *build_dir, const char *log, char **elf,
		       xb_err *err)
{
	char *bd = xasprintf("BUILD_DIR=%s", build_dir);
	const char *args[] = {bd, NULL};
	int rc = xb_mkdirs(build_dir, err) == 0 ? exp_make(fwdir, args, log, err) : -1;
	free(bd);
	*elf = rc == 0 ? xasprintf("%s/default/echo.elf", build_dir) : NULL;
	return rc;
}

/* The build's output lines, into the experiment's log. */
static void relink_line(void *ctx, const char *line, size_t len, int error)
{
	(void)error;
	FILE *f = ctx;
	fwrite(line, 1, len, f);
	fputc('\n', f);
}

/* The relinked image checked against the plan of layout_dir (core/verify.h), and with
 * q->pred predicted as linked. */
static int relink_verify(const xb_target *tg, const exp_relink_req *q, const char *map,
			 FILE *log, xb_err *err)
{
	const char *elf = q->elf;
	xb_image stock;
	if (load_image(q->stock_elf, q->stock_map, tg, &stock, err))
		return -1;
	xb_plan_input in = {.img = &stock, .tg = tg};
	xb_plan_inputs pi;
	xb_layout l;
	layout_init(&l);
	char *lpath = xasprintf("%s/layout.txt", q->layout_dir);
	int rc = -1;
	xb_image_open io = {.elf = elf, .map = map};
	xb_verify_result vr;
	if (plan_inputs_load(&pi, NULL, q->pred ? q->predict_trace : NULL, &in, err) == 0) {
		if (layout_read_file(&l, &stock, lpath, err) == 0 &&
		    verify_relink_predict(&in, &l, &io, &vr, q->pred, err) == 0) {
			xb_strbuf sum = {0};
			verify_summary(&vr, &sum);
			fprintf(log, "verify %s: %s\n", elf, sum.buf ? sum.buf : "");
			if (verify_ok(&vr))
				rc = 0;
			else
				xb_fail(err, "%s: %s (not measured)", elf, sum.buf ? sum.buf : "");
			sb_free(&sum);
			verify_free(&vr);
		}
		plan_inputs_free(&pi);
	}
	free(lpath);
	layout_free(&l);
	image_free(&stock);
	return rc;
}

int exp_relink_with(const xb_target *tg, exp_relink_req *q, xb_err *err)
{
	q->map_out = NULL;
	FILE *f = fopen(q->log, "a");
	if (!f)
		return xb_fail(err, "%s: cannot open the build log: %s", q->log, strerror(errno));
	xb_build_request rq = {.layout_dir = q->layout_dir, .build_dir = q->build_dir,
			       .name = q->name, .elf = q->elf};
	xb_build_options o = {.line = relink_line, .ctx = f};
	xb_build_job *j = build_start(q->builder, &rq, &o, err);
	int rc = -1;
	if (j) {
		fprintf(f, "$ %s\n", build_command_line(j));
		while (build_pump(j)) {
			struct pollfd p = {.fd = build_pollfd(j), .events = POLLIN};
			poll(&p, p.fd >= 0 ? 1 : 0, build_timeout_ms(j));
		}
		const xb_build_result *r = build_result(j);
		if (r->state == XB_BUILD_OK) {
			q->map_out = r->map ? xstrdup(r->map) : NULL;
			rc = relink_verify(tg, q, q->map_out, f, err);
		} else {
			xb_fail(err, "relinking %s: %s (the output is in %s)", q->name, r->message,
				q->log);
		}
		build_free(j);
	}
	if (fclose(f) != 0 && rc == 0)
		rc = xb_fail(err, "%s: cannot write the build log", q->log);
	return rc;
}

int exp_relink(const xb_target *tg, const char *stock_elf, const char *build_dir,
	       const char *variant_arg, const char *layout_dir, const char *name, const char *elf,
	       const char *log, const char *predict_trace, xb_prediction *pred, xb_err *err)
{
	const char *args[] = {variant_arg, NULL};
	xb_builder b = {.ops = &builder_make, .cfg = {.args = args}};
	exp_relink_req q = {.builder = &b, .stock_elf = stock_elf, .build_dir = build_dir,
			    .layout_dir = layout_dir, .name = name, .elf = elf, .log = log,
			    .predict_trace = predict_trace, .pred = pred};
	int rc = exp_relink_with(tg, &q, err);
	free(q.map_out);
	return rc;
}
