/* work.c: the system work queue, run from the main loop. */
#include "fw.h"

static struct k_work *work_head, *work_tail;
static struct k_sem work_sem = {.count = 0, .limit = 64};
static uint32_t work_runs;

void k_work_submit(struct k_work *w)
{
	if (w->pending)
		return;
	w->pending = 1;
	w->next = NULL;
	if (work_tail)
		work_tail->next = w;
	else
		work_head = w;
	work_tail = w;
	k_sem_give(&work_sem);
}

static struct k_work *work_pop(void)
{
	struct k_work *w = work_head;
	if (w) {
		work_head = w->next;
		if (!work_head)
			work_tail = NULL;
		w->pending = 0;
	}
	return w;
}

void k_work_run(void)
{
	struct k_work *w;
	while (k_sem_take(&work_sem, K_NO_WAIT) == 0 && (w = work_pop()) != NULL) {
		w->handler(w);
		work_runs++;
	}
}
