/* socket_service.h: socket services (Zephyr's net_socket_service): a server registers its
 * sockets once; one service thread polls every registered socket, and when one is ready
 * its handler runs in the system work queue. While a handler runs, its socket is left out
 * of the poll; when it returns, the thread is woken (an eventfd) and polls it again. */
#ifndef NET_SOCKET_SERVICE_H
#define NET_SOCKET_SERVICE_H

#include "kernel/kernel.h"
#include "net/socket.h"

struct net_socket_service_desc;

/* What a handler gets: the socket and what poll reported for it. */
struct net_socket_service_event {
	struct k_work work;
	struct pollfd event;
	const struct net_socket_service_desc *svc;
	void *user_data;
	bool busy; /* its handler has not finished yet */
};

typedef void (*net_socket_service_handler_t)(struct net_socket_service_event *pev);

struct net_socket_service_desc {
	const char *owner;
	net_socket_service_handler_t cb;
	struct net_socket_service_event *pev;
	int pev_len;
};

/* A service of up to max_fds sockets handled by handler. */
#define NET_SOCKET_SERVICE_DEFINE(name, handler, max_fds)                     \
	static struct net_socket_service_event name##_pev[max_fds];           \
	static const struct net_socket_service_desc name = {                  \
		.owner = #name, .cb = (handler), .pev = name##_pev, .pev_len = (max_fds)}

#define NET_SOCKET_SERVICE_MAX 2

/* Registers the sockets of fds (fd -1: an unused place) for svc, replacing what it had.
 * 0, or -ENOMEM (no room for another service) / -EINVAL (more sockets than it has room
 * for). */
int net_socket_service_register(const struct net_socket_service_desc *svc,
				const struct pollfd *fds, int len, void *user_data);
int net_socket_service_unregister(const struct net_socket_service_desc *svc);
/* Starts the service thread (the network stack's start-up calls it). */
void net_socket_service_init(void);

struct net_socket_service_stats {
	uint32_t polls, dispatched, wakeups;
};
void net_socket_service_stats_get(struct net_socket_service_stats *s);

#endif
