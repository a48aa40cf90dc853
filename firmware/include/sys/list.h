/* list.h: intrusive lists: doubly linked (wait and ready queues) and singly linked (FIFOs). */
#ifndef SYS_LIST_H
#define SYS_LIST_H

#include <stdbool.h>
#include <stddef.h>

/* A doubly linked list is a circular ring through a head node; an empty list points to
 * itself. A node not in any list has next == NULL. */
typedef struct sys_dnode {
	struct sys_dnode *next, *prev;
} sys_dnode_t;
typedef sys_dnode_t sys_dlist_t;

#define SYS_DLIST_STATIC_INIT(l) { &(l), &(l) }

static inline void sys_dlist_init(sys_dlist_t *l)
{
	l->next = l;
	l->prev = l;
}

static inline bool sys_dlist_is_empty(const sys_dlist_t *l)
{
	return l->next == l;
}

static inline bool sys_dnode_is_linked(const sys_dnode_t *n)
{
	return n->next != NULL;
}

static inline sys_dnode_t *sys_dlist_peek_head(const sys_dlist_t *l)
{
	return sys_dlist_is_empty(l) ? NULL : l->next;
}

/* The node after n, or NULL at the end of l. */
static inline sys_dnode_t *sys_dlist_peek_next(const sys_dlist_t *l, const sys_dnode_t *n)
{
	return n->next == l ? NULL : n->next;
}

static inline void sys_dlist_insert_before(sys_dnode_t *succ, sys_dnode_t *n)
{
	n->prev = succ->prev;
	n->next = succ;
	succ->prev->next = n;
	succ->prev = n;
}

static inline void sys_dlist_append(sys_dlist_t *l, sys_dnode_t *n)
{
	sys_dlist_insert_before(l, n);
}

static inline void sys_dlist_prepend(sys_dlist_t *l, sys_dnode_t *n)
{
	sys_dlist_insert_before(l->next, n);
}

static inline void sys_dlist_remove(sys_dnode_t *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = NULL;
	n->prev = NULL;
}

static inline sys_dnode_t *sys_dlist_get(sys_dlist_t *l)
{
	sys_dnode_t *n = sys_dlist_peek_head(l);
	if (n)
		sys_dlist_remove(n);
	return n;
}

#define SYS_DLIST_FOR_EACH(l, n) for ((n) = (l)->next; (n) != (l); (n) = (n)->next)

/* Singly linked list with a tail pointer: O(1) append and get, for FIFOs. */
typedef struct sys_snode {
	struct sys_snode *next;
} sys_snode_t;

typedef struct sys_slist {
	sys_snode_t *head, *tail;
} sys_slist_t;

static inline void sys_slist_init(sys_slist_t *l)
{
	l->head = NULL;
	l->tail = NULL;
}

static inline bool sys_slist_is_empty(const sys_slist_t *l)
{
	return l->head == NULL;
}

static inline void sys_slist_append(sys_slist_t *l, sys_snode_t *n)
{
	n->next = NULL;
	if (l->tail)
		l->tail->next = n;
	else
		l->head = n;
	l->tail = n;
}

static inline void sys_slist_prepend(sys_slist_t *l, sys_snode_t *n)
{
	n->next = l->head;
	l->head = n;
	if (!l->tail)
		l->tail = n;
}

static inline sys_snode_t *sys_slist_get(sys_slist_t *l)
{
	sys_snode_t *n = l->head;
	if (n) {
		l->head = n->next;
		if (!l->head)
			l->tail = NULL;
		n->next = NULL;
	}
	return n;
}

#endif
