/* history_writer: the run history written from a thread of its own, so that a UI thread
 * that adds a run never waits on SQLite, a lock or the disk. */
#include "history.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

typedef struct queued {
	xb_run *run;
	uint64_t token;
	struct queued *next;
} queued;

struct xb_history_writer {
	char *path;
	int fd;                      /* eventfd: non-zero while results wait */
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t wake;
	queued *head, *tail;         /* adds not yet written */
	size_t busy;                 /* 1 while the thread writes one */
	xb_history_result *results;  /* finished, not yet taken */
	size_t nresults, cap;
	int closing;
};

static void signal_fd(xb_history_writer *w)
{
	uint64_t one = 1;
	/* a full counter still polls readable, so a failed write loses nothing */
	ssize_t n = write(w->fd, &one, sizeof one);
	(void)n;
}

static void post_result(xb_history_writer *w, uint64_t token, int64_t id, const char *error)
{
	pthread_mutex_lock(&w->lock);
	xb_grow(&w->results, &w->cap, w->nresults + 1, sizeof *w->results);
	xb_history_result *r = &w->results[w->nresults++];
	r->token = token;
	r->id = id;
	snprintf(r->error, sizeof r->error, "%s", error);
	w->busy = 0;
	pthread_mutex_unlock(&w->lock);
	signal_fd(w);
}

static void *writer_main(void *arg)
{
	xb_history_writer *w = arg;
	xb_history *h = NULL;
	for (;;) {
		pthread_mutex_lock(&w->lock);
		while (!w->head && !w->closing)
			pthread_cond_wait(&w->wake, &w->lock);
		queued *q = w->head;
		if (!q) { /* closing, and nothing left */
			pthread_mutex_unlock(&w->lock);
			break;
		}
		w->head = q->next;
		if (!w->head)
			w->tail = NULL;
		w->busy = 1;
		pthread_mutex_unlock(&w->lock);

		/* opened here, and again after a failure: a lock held while another program
		 * migrated the file should not fail every later add */
		xb_err err = {{0}};
		int rc = h ? 0 : history_open(&h, w->path, &err);
		if (rc == 0)
			rc = history_add(h, q->run, &err);
		post_result(w, q->token, rc == 0 ? q->run->id : 0, rc == 0 ? "" : err.msg);
		history_run_free(q->run);
		free(q);
	}
	history_close(h);
	return NULL;
}

xb_history_writer *history_writer_open(const char *path, xb_err *err)
{
	xb_history_writer *w = xcalloc(1, sizeof *w);
	w->path = xstrdup(path);
	w->fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (w->fd < 0) {
		xb_fail(err, "%s: cannot start the history writer: eventfd: %s", path,
			strerror(errno));
		free(w->path);
		free(w);
		return NULL;
	}
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	int rc = pthread_create(&w->thread, NULL, writer_main, w);
	if (rc != 0) {
		xb_fail(err, "%s: cannot start the history writer: %s", path, strerror(rc));
		pthread_cond_destroy(&w->wake);
		pthread_mutex_destroy(&w->lock);
		close(w->fd);
		free(w->path);
		free(w);
		return NULL;
	}
	return w;
}

int history_writer_add(xb_history_writer *w, const xb_run *r, uint64_t token, xb_err *err)
{
	queued *q = xcalloc(1, sizeof *q);
	q->token = token;
	pthread_mutex_lock(&w->lock);
	int closing = w->closing;
	pthread_mutex_unlock(&w->lock);
	if (closing) {
		free(q);
		return xb_fail(err, "%s: the history writer is closing", w->path);
	}
	q->run = history_run_dup(r); /* outside the lock: an image can be a few MB */
	pthread_mutex_lock(&w->lock);
	if (w->closing) { /* began meanwhile, from another thread: the thread may be gone */
		pthread_mutex_unlock(&w->lock);
		history_run_free(q->run);
		free(q);
		return xb_fail(err, "%s: the history writer is closing", w->path);
	}
	if (w->tail)
		w->tail->next = q;
	else
		w->head = q;
	w->tail = q;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	return 0;
}

int history_writer_fd(const xb_history_writer *w)
{
	return w->fd;
}

size_t history_writer_results(xb_history_writer *w, xb_history_result *out, size_t max)
{
	uint64_t count;
	ssize_t n = read(w->fd, &count, sizeof count); /* clears the readable state */
	(void)n;
	pthread_mutex_lock(&w->lock);
	size_t k = w->nresults < max ? w->nresults : max;
	if (k) { /* (no results: results may be NULL) */
		memcpy(out, w->results, k * sizeof *out);
		memmove(w->results, w->results + k, (w->nresults - k) * sizeof *w->results);
		w->nresults -= k;
	}
	int more = w->nresults > 0;
	pthread_mutex_unlock(&w->lock);
	if (more)
		signal_fd(w);
	return k;
}

size_t history_writer_pending(xb_history_writer *w)
{
	pthread_mutex_lock(&w->lock);
	size_t n = w->nresults + w->busy;
	for (const queued *q = w->head; q; q = q->next)
		n++;
	pthread_mutex_unlock(&w->lock);
	return n;
}

void history_writer_close(xb_history_writer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->closing = 1;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	close(w->fd);
	free(w->results);
	free(w->path);
	free(w);
}
