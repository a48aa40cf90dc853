/* reflash: the session's image: loading it (ELF, map, groups, source lines, sleep PCs),
 * flashing it through the probe and resetting the core, at the start and again in place
 * (a relinked image on the same board: the bench, the traffic's history, the log and the
 * figures stay; the profile starts again for the new addresses). Live, the flash
 * programming runs in a thread of its own while the session goes on pumping. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../core/segments.h"
#include "../probe/cortexm.h"
#include "session_int.h"

#define SS_RESET_TIMEOUT_NS 500000000u

/* What one flash programming needs and gives; the worker thread owns it while it runs. */
struct ss_flash {
	xb_session *s;
	char *elf;          /* the image's path */
	uint8_t *data;
	size_t len;
	int program;        /* 0: the image is on the board already (an external command wrote
			     * it): only the reset */
	xb_image img;       /* the new image, loaded before anything is written */
	xb_srclines *src;
	pthread_t thread;
	int threaded;
	int wake;           /* eventfd: the worker finished */
	atomic_int done;
	int rc;
	xb_report rep;
	xb_flash_report fr;
};

/* The WFI/WFE addresses of an image's code (every loadable segment, where it runs), so
 * that sleep samples are known at once. */
static void find_sleep_pcs(xb_session *s, const uint8_t *data, size_t len)
{
	free(s->sleep_pcs);
	s->nsleep = 0;
	xb_segments seg = {0};
	size_t cap = SAMPLER_STREAM_SLEEP_PCS;
	s->sleep_pcs = xcalloc(cap, sizeof *s->sleep_pcs);
	if (segments_read_elf(&seg, data, len, s->elf, NULL) == 0)
		for (size_t i = 0; i < seg.n && s->nsleep < cap; i++)
			s->nsleep += sampler_find_sleep_pcs(seg.s[i].bytes, seg.s[i].filesz,
							    seg.s[i].vaddr, s->sleep_pcs + s->nsleep,
							    cap - s->nsleep);
	segments_free(&seg);
}

/* Loads an image as the session would show it; on failure nothing is left to free. */
static int load(xb_session *s, const char *elf, const char *map, xb_image *img, xb_srclines **src,
		xb_report *rep)
{
	xb_err err;
	xb_image_open io = {.elf = elf, .map = map, .groups = s->o.groups};
	if (image_open(img, &io, &s->tg, &err) != 0)
		return report_err(rep, XB_STATUS_IMAGE_INVALID, &err);
	*src = NULL;
	if (srclines_load(src, elf, &err) != 0)
		session_note(s, XB_LOG_WARN, "no source lines for %s: %s", elf, err.msg);
	return 0;
}

int session_load_first_image(xb_session *s, xb_report *rep)
{
	if (load(s, s->elf, s->o.map, &s->img, &s->src, rep) != 0)
		return -1;
	s->have_img = 1;
	char *data = NULL;
	size_t len = 0;
	if (xb_read_file(s->elf, &data, &len, NULL) == 0)
		find_sleep_pcs(s, (const uint8_t *)data, len);
	free(data);
	return 0;
}

/* A flash that went through: said in the log, its figures kept for the status. */
static void flashed(xb_session *s, const ss_flash *f)
{
	session_note(s, XB_LOG_INFO, "flashed %s: %zu bytes in %zu sectors, %.3f s", f->elf,
		     f->fr.image_bytes, f->fr.sectors, f->fr.seconds);
	s->flash_s = f->fr.seconds;
	s->flash_bytes = f->fr.image_bytes;
}

/* Programs and resets: what runs in the worker thread (live) or in the caller's. */
static void flash_work(ss_flash *f)
{
	xb_session *s = f->s;
	xb_err err;
	report_clear(&f->rep);
	f->rc = 0;
	memset(&f->fr, 0, sizeof f->fr);
	if (f->program && rp2040_flash_elf(s->probe.adi, f->data, f->len, f->elf, 0, &f->fr, &err) != 0)
		f->rc = report_fail(&f->rep, XB_STATUS_FLASH_FAILED, "flashing %s: %s", f->elf, err.msg);
	else if (cortexm_reset(s->probe.adi, 0, SS_RESET_TIMEOUT_NS, &err) != 0)
		f->rc = report_fail(&f->rep, XB_STATUS_TARGET_NOT_RESPONDING,
				    "resetting the core through the probe: %s", err.msg);
}

static void *flash_thread(void *arg)
{
	ss_flash *f = arg;
	flash_work(f);
	atomic_store(&f->done, 1);
	uint64_t one = 1;
	if (write(f->wake, &one, sizeof one) < 0) {
		/* the session also looks at `done` on every pump */
	}
	return NULL;
}

static void flash_free(ss_flash *f)
{
	if (!f)
		return;
	if (f->threaded)
		pthread_join(f->thread, NULL);
	if (f->wake >= 0)
		close(f->wake);
	free(f->elf);
	free(f->data);
	image_free(&f->img);
	srclines_free(f->src);
	free(f);
}

static ss_flash *flash_new(xb_session *s, const char *elf, int program)
{
	ss_flash *f = xcalloc(1, sizeof *f);
	f->s = s;
	f->elf = xstrdup(elf);
	f->program = program;
	f->wake = -1;
	return f;
}

/* (the caller flashes only when the options say so) */
int session_flash_first_image(xb_session *s, xb_report *rep)
{
	ss_flash *f = flash_new(s, s->elf, 1);
	xb_err err;
	if (xb_read_file(s->elf, (char **)&f->data, &f->len, &err) != 0) {
		flash_free(f);
		return report_err(rep, XB_STATUS_IO, &err);
	}
	session_progress(s, "flashing %s through %s", s->elf, dap_client_name(s->probe.dap));
	flash_work(f);
	int rc = f->rc;
	if (rc != 0)
		*rep = f->rep;
	else
		flashed(s, f);
	flash_free(f);
	return rc;
}

/* The new image takes the old one's place; the profile, the cache-set map and what was
 * predicted for the old addresses start again. */
static void adopt(xb_session *s, ss_flash *f)
{
	image_free(&s->img);
	s->img = f->img;
	memset(&f->img, 0, sizeof f->img);
	srclines_free(s->src);
	s->src = f->src;
	f->src = NULL;
	free(s->elf);
	s->elf = xstrdup(f->elf);
	find_sleep_pcs(s, f->data, f->len); /* session_reflash read the image */
	live_new_image(s);
	if (f->program)
		flashed(s, f);
	const char *base = strrchr(s->elf, '/');
	char label[96];
	snprintf(label, sizeof label, "flashed %s", base ? base + 1 : s->elf);
	session_mark(s, label);
}

/* The end of a reflash (the worker finished): adopt the image, or keep the old one and
 * say why; then the board's network comes up again. */
static void finish(xb_session *s)
{
	ss_flash *f = s->flash;
	s->flash = NULL;
	if (f->threaded) {
		pthread_join(f->thread, NULL);
		f->threaded = 0;
	}
	if (f->rc == 0) {
		adopt(s, f);
		s->reflash_result = XB_JOB_DONE;
		report_clear(&s->reflash_rep);
	} else {
		/* the board may hold part of the new image: it is not what the session shows */
		session_problem(s, f->rep.status, "%s", f->rep.msg);
		s->reflash_result = XB_JOB_FAILED;
		s->reflash_rep = f->rep;
	}
	flash_free(f);
	s->now = s->bench->ops->now_ns(s->bench);
	session_pipe_start(s);
	session_bringup(s);
}

int session_reflash(xb_session *s, const char *elf, const char *map, int program, xb_report *rep)
{
	if (s->flash)
		return report_fail(rep, XB_STATUS_BUSY, "%s is being flashed", s->flash->elf);
	if (session_job(s, NULL) == XB_JOB_RUNNING)
		return report_fail(rep, XB_STATUS_BUSY, "a job is running: %s", session_job_progress(s));
	if (!s->o.attach || !s->probe_open)
		return report_fail(rep, XB_STATUS_PROBE_GONE, "no probe to flash through: %s",
				   s->status.status ? s->status.msg : "not connected");
	ss_flash *f = flash_new(s, elf, program);
	xb_err err;
	if (load(s, elf, map, &f->img, &f->src, rep) != 0) {
		flash_free(f);
		return -1;
	}
	if (xb_read_file(elf, (char **)&f->data, &f->len, &err) != 0) {
		flash_free(f);
		return report_err(rep, XB_STATUS_IO, &err);
	}
	/* the probe is the worker's until it is done: no sampler, no counter reads */
	traffic_live(s, 0);
	session_probe_release(s);
	s->flash = f;
	s->reflash_result = XB_JOB_RUNNING;
	session_set_phase(s, XB_PHASE_FLASHING, "%s %s", program ? "flashing" : "resetting into",
			  elf);
	session_note(s, XB_LOG_INFO, "%s %s", program ? "flashing" : "resetting into", elf);
	if (!s->virtual_time) {
		f->wake = session_eventfd();
		if (f->wake >= 0 && pthread_create(&f->thread, NULL, flash_thread, f) == 0) {
			f->threaded = 1;
			return 0;
		}
		if (f->wake >= 0)
			close(f->wake);
		f->wake = -1;
	}
	flash_work(f);
	finish(s);
	return 0;
}

void session_reflash_pump(xb_session *s)
{
	if (s->flash && atomic_load(&s->flash->done)) {
		uint64_t n;
		if (read(s->flash->wake, &n, sizeof n) < 0) {
			/* nothing was signalled yet: `done` says it is */
		}
		finish(s);
	}
}

int session_reflash_fd(const xb_session *s)
{
	return s->flash ? s->flash->wake : -1;
}

void session_reflash_free(xb_session *s)
{
	flash_free(s->flash);
	s->flash = NULL;
}

int session_reflash_state(const xb_session *s, xb_report *rep)
{
	if (rep)
		*rep = s->reflash_rep;
	return s->reflash_result;
}
