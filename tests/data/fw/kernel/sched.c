/* sched.c: a tiny priority scheduler (ready list ordered by priority). */
#include "fw.h"

static struct k_thread *ready_list;
static struct k_thread *current;
static struct k_thread idle_thread = {.name = "idle", .prio = 255};
static uint32_t switches;

void k_sched_init(void)
{
	ready_list = NULL;
	current = &idle_thread;
	switches = 0;
}

static void ready_insert(struct k_thread *t)
{
	struct k_thread **pp = &ready_list;
	while (*pp && (*pp)->prio <= t->prio)
		pp = &(*pp)->next;
	t->next = *pp;
	*pp = t;
	t->state = K_READY;
}

void k_sched_add(struct k_thread *t)
{
	ready_insert(t);
	if (current == &idle_thread)
		current = t;
}

void k_sched_ready(struct k_thread *t)
{
	if (t->state != K_READY)
		ready_insert(t);
}

void k_sched_pend(struct k_thread *t, struct k_thread **waitq)
{
	struct k_thread **pp = &ready_list;
	while (*pp && *pp != t)
		pp = &(*pp)->next;
	if (*pp)
		*pp = t->next;
	t->state = K_PENDING;
	t->next = NULL;
	while (*waitq)
		waitq = &(*waitq)->next;
	*waitq = t;
}

struct k_thread *k_sched_next(void)
{
	struct k_thread *t = ready_list ? ready_list : &idle_thread;
	if (t != current)
		switches++;
	return t;
}

struct k_thread *k_current(void)
{
	return current;
}

__attribute__((aligned(16))) void k_yield(void)
{
	struct k_thread *next = k_sched_next();
	if (next == current)
		return;
	current = next;
	if (switches % 64 == 0)
		kernel_gen_00(switches);
}

void k_fatal(const char *what, uint32_t value)
{
	volatile const char *w = what;
	volatile uint32_t v = value;
	(void)w;
	(void)v;
	for (;;)
		__asm__ volatile("bkpt #1");
}
