/* socket_service.c: the socket service thread: it polls the sockets of every registered
 * service and an eventfd that says "poll again" (a registration changed, or a handler
 * finished), and hands ready sockets to their handlers through the system work queue. */
#include "net/socket_service.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_sock_svc, LOG_LEVEL_WRN);

#define SVC_THREAD_STACK_SIZE 1536
#define SVC_THREAD_PRIO 7 /* the least urgent of the network's threads */
#define SVC_MAX_FDS (SOCK_MAX_FDS - 1) /* one descriptor is the eventfd */

static const struct net_socket_service_desc *services[NET_SOCKET_SERVICE_MAX];
static struct k_mutex svc_lock;
static int wake_fd = -1;
static struct k_thread svc_thread;
static K_THREAD_STACK_DEFINE(svc_stack, SVC_THREAD_STACK_SIZE);
static struct net_socket_service_stats svc_stats;

/* Makes the thread poll again with what is registered now. */
static void svc_wake(void)
{
	if (wake_fd >= 0 && zsock_eventfd_write(wake_fd, 1) < 0)
		LOG_ERR("wake-up: %d", sock_errno());
}

/* In the system work queue: the service's handler, then the socket goes back into the
 * poll. */
static void svc_work(struct k_work *w)
{
	struct net_socket_service_event *pev = CONTAINER_OF(w, struct net_socket_service_event, work);
	LOG_DBG("%s: fd %d ready (0x%x)", pev->svc->owner, pev->event.fd, pev->event.revents);
	pev->svc->cb(pev);
	pev->busy = false;
	svc_wake();
}

int net_socket_service_register(const struct net_socket_service_desc *svc,
				const struct pollfd *fds, int len, void *user_data)
{
	if (len > svc->pev_len)
		return -EINVAL;
	k_mutex_lock(&svc_lock, K_FOREVER);
	int slot = -1;
	for (int i = 0; i < NET_SOCKET_SERVICE_MAX; i++) {
		if (services[i] == svc || (!services[i] && slot < 0))
			slot = i;
		if (services[i] == svc)
			break;
	}
	if (slot < 0) {
		k_mutex_unlock(&svc_lock);
		return -ENOMEM;
	}
	for (int i = 0; i < svc->pev_len; i++) {
		struct net_socket_service_event *pev = &svc->pev[i];
		k_work_init(&pev->work, svc_work);
		pev->svc = svc;
		pev->user_data = user_data;
		pev->busy = false;
		pev->event.fd = i < len ? fds[i].fd : -1;
		pev->event.events = i < len ? fds[i].events : 0;
		pev->event.revents = 0;
	}
	services[slot] = svc;
	k_mutex_unlock(&svc_lock);
	svc_wake();
	return 0;
}

int net_socket_service_unregister(const struct net_socket_service_desc *svc)
{
	int ret = -ENOENT;
	k_mutex_lock(&svc_lock, K_FOREVER);
	for (int i = 0; i < NET_SOCKET_SERVICE_MAX; i++) {
		if (services[i] == svc) {
			services[i] = NULL;
			ret = 0;
		}
	}
	k_mutex_unlock(&svc_lock);
	svc_wake();
	return ret;
}

/* The poll set: the eventfd first, then every registered socket whose handler is idle
 * (a busy one is in with fd -1, which poll skips). */
static int svc_build(struct pollfd *fds, struct net_socket_service_event **owners)
{
	int n = 1;
	fds[0].fd = wake_fd;
	fds[0].events = POLLIN;
	owners[0] = NULL;
	k_mutex_lock(&svc_lock, K_FOREVER);
	for (int s = 0; s < NET_SOCKET_SERVICE_MAX; s++) {
		const struct net_socket_service_desc *svc = services[s];
		for (int i = 0; svc && i < svc->pev_len && n <= SVC_MAX_FDS; i++) {
			struct net_socket_service_event *pev = &svc->pev[i];
			if (pev->event.fd < 0)
				continue;
			fds[n].fd = pev->busy ? -1 : pev->event.fd;
			fds[n].events = pev->event.events;
			owners[n++] = pev;
		}
	}
	k_mutex_unlock(&svc_lock);
	return n;
}

static void svc_thread_main(void *p1, void *p2, void *p3)
{
	UNUSED(p1);
	UNUSED(p2);
	UNUSED(p3);
	struct pollfd fds[1 + SVC_MAX_FDS];
	struct net_socket_service_event *owners[1 + SVC_MAX_FDS];
	for (;;) {
		int n = svc_build(fds, owners);
		svc_stats.polls++;
		if (zsock_poll(fds, n, -1) < 0) {
			LOG_ERR("poll: %d", sock_errno());
			k_msleep(100);
			continue;
		}
		if (fds[0].revents & POLLIN) {
			uint32_t v;
			zsock_eventfd_read(wake_fd, &v);
			svc_stats.wakeups++;
		}
		for (int i = 1; i < n; i++) {
			struct net_socket_service_event *pev = owners[i];
			if (!fds[i].revents || pev->busy)
				continue;
			pev->event.revents = fds[i].revents;
			pev->busy = true;
			svc_stats.dispatched++;
			k_work_submit(&pev->work);
		}
	}
}

void net_socket_service_init(void)
{
	k_mutex_init(&svc_lock);
	wake_fd = zsock_eventfd(0);
	if (wake_fd < 0) {
		LOG_ERR("no eventfd: %d", sock_errno());
		return;
	}
	k_thread_create(&svc_thread, svc_stack, sizeof(svc_stack), svc_thread_main, NULL, NULL,
			NULL, SVC_THREAD_PRIO, "net_svc");
}

void net_socket_service_stats_get(struct net_socket_service_stats *s)
{
	*s = svc_stats;
}
