/* sockets.c: the BSD-style socket API: a descriptor table of objects with an operations
 * table, UDP sockets over net contexts, blocking calls with timeouts, and poll. */
#include "net/net_core.h"
#include "net/socket.h"
#include "net_context.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_sock, LOG_LEVEL_WRN);

/* What a descriptor's object can do. */
struct socket_op_vtable {
	ssize_t (*sendto)(void *obj, const void *buf, size_t len, int flags,
			  const struct sockaddr *dest_addr, socklen_t addrlen);
	ssize_t (*recvfrom)(void *obj, void *buf, size_t max_len, int flags,
			    struct sockaddr *src_addr, socklen_t *addrlen);
	int (*bind)(void *obj, const struct sockaddr *addr, socklen_t addrlen);
	int (*connect)(void *obj, const struct sockaddr *addr, socklen_t addrlen);
	int (*getsockname)(void *obj, struct sockaddr *addr, socklen_t *addrlen);
	int (*setsockopt)(void *obj, int level, int optname, const void *optval,
			  socklen_t optlen);
	int (*getsockopt)(void *obj, int level, int optname, void *optval, socklen_t *optlen);
	/* Fills *ev with what to wait on for pfd (at most one event). Returns 1 when pfd is
	 * ready already (pfd->revents set), 0 when ev must be polled. */
	int (*poll_prepare)(void *obj, struct pollfd *pfd, struct k_poll_event *ev);
	/* After k_poll: pfd->revents from the event. */
	void (*poll_update)(void *obj, struct pollfd *pfd, const struct k_poll_event *ev);
	int (*close)(void *obj);
};

/* A descriptor: its object and operations, and how many calls are using it right now
 * (close waits for them before the object goes). */
struct fd_entry {
	void *obj;
	const struct socket_op_vtable *vtable;
	atomic_t refcount;
	bool closing;
	int error; /* SO_ERROR: the last asynchronous error */
};

static struct fd_entry fdtable[SOCK_MAX_FDS];
static struct k_mutex fdtable_lock;
static struct k_sem fd_released; /* given whenever a call drops its reference */
static bool fdtable_ready;

static void set_errno(int err)
{
	k_current_get()->errno_var = err;
}

int sock_errno(void)
{
	return k_current_get()->errno_var;
}

static void fdtable_init(void)
{
	unsigned key = irq_lock();
	if (!fdtable_ready) {
		k_mutex_init(&fdtable_lock);
		k_sem_init(&fd_released, 0, 1);
		fdtable_ready = true;
	}
	irq_unlock(key);
}

static bool fd_valid(int fd)
{
	return fd >= 0 && fd < SOCK_MAX_FDS && fdtable_ready;
}

static int fd_reserve(void)
{
	fdtable_init();
	k_mutex_lock(&fdtable_lock, K_FOREVER);
	for (int fd = 0; fd < SOCK_MAX_FDS; fd++) {
		struct fd_entry *e = &fdtable[fd];
		if (!e->vtable && atomic_get(&e->refcount) == 0) {
			/* Taken, not yet usable: a placeholder until fd_finalize. */
			e->vtable = (const struct socket_op_vtable *)1;
			e->obj = NULL;
			e->closing = false;
			e->error = 0;
			k_mutex_unlock(&fdtable_lock);
			return fd;
		}
	}
	k_mutex_unlock(&fdtable_lock);
	return -ENFILE;
}

static void fd_finalize(int fd, void *obj, const struct socket_op_vtable *vtable)
{
	k_mutex_lock(&fdtable_lock, K_FOREVER);
	fdtable[fd].obj = obj;
	fdtable[fd].vtable = vtable;
	k_mutex_unlock(&fdtable_lock);
}

static void fd_free(int fd)
{
	k_mutex_lock(&fdtable_lock, K_FOREVER);
	fdtable[fd].obj = NULL;
	fdtable[fd].vtable = NULL;
	k_mutex_unlock(&fdtable_lock);
}

/* The object behind fd and its operations, with a reference the caller gives back with
 * fd_put; NULL with errno EBADF. */
static void *fd_get(int fd, const struct socket_op_vtable **vtable)
{
	if (!fd_valid(fd)) {
		set_errno(EBADF);
		return NULL;
	}
	k_mutex_lock(&fdtable_lock, K_FOREVER);
	struct fd_entry *e = &fdtable[fd];
	void *obj = e->closing ? NULL : e->obj;
	*vtable = e->vtable;
	if (obj)
		atomic_inc(&e->refcount);
	k_mutex_unlock(&fdtable_lock);
	if (!obj) {
		set_errno(EBADF);
		return NULL;
	}
	return obj;
}

static void fd_put(int fd)
{
	if (atomic_dec(&fdtable[fd].refcount) == 1)
		k_sem_give(&fd_released);
}

/* The object behind fd for calls that do not block: no reference is kept. */
static void *get_sock_vtable(int fd, const struct socket_op_vtable **vtable)
{
	void *obj = fd_get(fd, vtable);
	if (obj)
		fd_put(fd);
	return obj;
}

/* ---- UDP socket operations over a net context ---- */

static int sock_addr_in(const struct sockaddr *addr, socklen_t addrlen,
			const struct sockaddr_in **out)
{
	if (!addr || addrlen < sizeof(struct sockaddr_in))
		return -EINVAL;
	if (addr->sa_family != AF_INET)
		return -EAFNOSUPPORT;
	*out = (const struct sockaddr_in *)addr;
	return 0;
}

static ssize_t sock_sendto_ctx(void *obj, const void *buf, size_t len, int flags,
			       const struct sockaddr *dest_addr, socklen_t addrlen)
{
	struct net_context *ctx = obj;
	const struct sockaddr_in *dst = NULL;
	if (dest_addr) {
		int ret = sock_addr_in(dest_addr, addrlen, &dst);
		if (ret)
			return ret;
	}
	k_timeout_t timeout = (flags & MSG_DONTWAIT) ? K_NO_WAIT
						     : k_timeout_from_ms(ctx->sndtimeo_ms);
	return net_context_sendto(ctx, buf, len, dst, timeout);
}

/* Where a received datagram came from: its IP and UDP headers. */
static void sock_fill_src(struct net_pkt *pkt, struct sockaddr *src_addr, socklen_t *addrlen)
{
	struct net_ipv4_hdr *ip_hdr = net_pkt_ip_hdr(pkt);
	struct sockaddr_in sin = {.sin_family = AF_INET};
	uint8_t ports[4];
	memcpy(&sin.sin_addr, ip_hdr->src, sizeof(sin.sin_addr));
	struct net_pkt_cursor backup;
	net_pkt_cursor_backup(pkt, &backup);
	if (net_pkt_seek(pkt, pkt->ip_hdr_len) == 0 && net_pkt_read(pkt, ports, sizeof(ports)) == 0)
		memcpy(&sin.sin_port, ports, sizeof(sin.sin_port));
	net_pkt_cursor_restore(pkt, &backup);
	socklen_t n = MIN(*addrlen, (socklen_t)sizeof(sin));
	memcpy(src_addr, &sin, n);
	*addrlen = sizeof(sin);
}

static ssize_t sock_recvfrom_ctx(void *obj, void *buf, size_t max_len, int flags,
				 struct sockaddr *src_addr, socklen_t *addrlen)
{
	struct net_context *ctx = obj;
	k_timeout_t timeout = (flags & MSG_DONTWAIT) ? K_NO_WAIT
						     : k_timeout_from_ms(ctx->rcvtimeo_ms);
	struct net_pkt *pkt = net_context_recv_pkt(ctx, timeout, (flags & MSG_PEEK) != 0);
	if (!pkt)
		return -EAGAIN;
	size_t len = MIN(max_len, (size_t)pkt->appdata_len);
	if (src_addr && addrlen)
		sock_fill_src(pkt, src_addr, addrlen);
	int ret = net_pkt_read(pkt, buf, len);
	size_t full = pkt->appdata_len;
	net_pkt_unref(pkt);
	if (ret)
		return -EIO;
	/* A datagram longer than buf is truncated; the rest is gone, as POSIX says. */
	return (ssize_t)((flags & MSG_TRUNC) ? full : len);
}

static int sock_connect_ctx(void *obj, const struct sockaddr *addr, socklen_t addrlen)
{
	const struct sockaddr_in *sin;
	int ret = sock_addr_in(addr, addrlen, &sin);
	if (ret)
		return ret;
	return net_context_connect(obj, sin);
}

static int sock_getsockname_ctx(void *obj, struct sockaddr *addr, socklen_t *addrlen)
{
	struct net_context *ctx = obj;
	struct sockaddr_in sin = ctx->local;
	sin.sin_family = AF_INET;
	socklen_t n = MIN(*addrlen, (socklen_t)sizeof(sin));
	memcpy(addr, &sin, n);
	*addrlen = sizeof(sin);
	return 0;
}

static int sock_bind_ctx(void *obj, const struct sockaddr *addr, socklen_t addrlen)
{
	const struct sockaddr_in *sin;
	int ret = sock_addr_in(addr, addrlen, &sin);
	if (ret)
		return ret;
	return net_context_bind(obj, sin);
}

/* The interface an ip_mreqn names (NULL: the default one). */
static struct net_if *mreq_iface(const struct ip_mreqn *mreq)
{
	if (mreq->imr_ifindex > 0)
		return net_if_get(mreq->imr_ifindex - 1);
	struct net_if *iface = NULL;
	if (!net_ipv4_is_addr_unspecified(&mreq->imr_address))
		net_if_ipv4_addr_lookup(&mreq->imr_address, &iface);
	return iface;
}

static int sock_setsockopt_ctx(void *obj, int level, int optname, const void *optval,
			       socklen_t optlen)
{
	struct net_context *ctx = obj;
	if (!optval)
		return -EINVAL;
	if (level == IPPROTO_IP && (optname == IP_ADD_MEMBERSHIP || optname == IP_DROP_MEMBERSHIP)) {
		struct ip_mreqn mreq;
		if (optlen < sizeof(mreq))
			return -EINVAL;
		memcpy(&mreq, optval, sizeof(mreq));
		return net_context_mcast(ctx, mreq_iface(&mreq), &mreq.imr_multiaddr,
					 optname == IP_ADD_MEMBERSHIP);
	}
	return net_context_set_option(ctx, level, optname, optval, optlen);
}

static int sock_getsockopt_ctx(void *obj, int level, int optname, void *optval,
			       socklen_t *optlen)
{
	size_t len = *optlen;
	int ret = net_context_get_option(obj, level, optname, optval, &len);
	*optlen = (socklen_t)len;
	return ret;
}

static int sock_poll_prepare_ctx(void *obj, struct pollfd *pfd, struct k_poll_event *ev)
{
	struct net_context *ctx = obj;
	pfd->revents = 0;
	if ((pfd->events & POLLIN) && net_context_readable(ctx))
		pfd->revents |= POLLIN;
	if (pfd->events & POLLOUT)
		pfd->revents |= POLLOUT; /* datagrams: sending never waits for the peer */
	if (pfd->revents)
		return 1;
	k_poll_event_init(ev, (pfd->events & POLLIN) ? K_POLL_TYPE_FIFO_DATA_AVAILABLE
						       : K_POLL_TYPE_IGNORE,
			  &ctx->recv_q._queue);
	return 0;
}

static void sock_poll_update_ctx(void *obj, struct pollfd *pfd, const struct k_poll_event *ev)
{
	UNUSED(obj);
	if (ev->state & K_POLL_STATE_FIFO_DATA_AVAILABLE)
		pfd->revents |= POLLIN;
}

static int sock_close_ctx(void *obj)
{
	return net_context_put(obj);
}

static const struct socket_op_vtable sock_udp_vtable = {
	.sendto = sock_sendto_ctx,
	.recvfrom = sock_recvfrom_ctx,
	.bind = sock_bind_ctx,
	.connect = sock_connect_ctx,
	.getsockname = sock_getsockname_ctx,
	.setsockopt = sock_setsockopt_ctx,
	.getsockopt = sock_getsockopt_ctx,
	.poll_prepare = sock_poll_prepare_ctx,
	.poll_update = sock_poll_update_ctx,
	.close = sock_close_ctx,
};

/* ---- The API ---- */

/* Turns an operation's negative errno into -1 and the thread's errno. */
static ssize_t sock_result(ssize_t ret)
{
	if (ret < 0) {
		set_errno((int)-ret);
		return -1;
	}
	return ret;
}

int zsock_socket(int family, int type, int proto)
{
	int fd = fd_reserve();
	if (fd < 0)
		return (int)sock_result(fd);
	struct net_context *ctx;
	int ret = net_context_get(family, type, proto, &ctx);
	if (ret) {
		fd_free(fd);
		return (int)sock_result(ret);
	}
	fd_finalize(fd, ctx, &sock_udp_vtable);
	LOG_DBG("socket %d", fd);
	return fd;
}

int zsock_bind(int sock, const struct sockaddr *addr, socklen_t addrlen)
{
	const struct socket_op_vtable *vt;
	void *obj = get_sock_vtable(sock, &vt);
	if (!obj)
		return -1;
	return (int)sock_result(vt->bind(obj, addr, addrlen));
}

ssize_t zsock_sendto(int sock, const void *buf, size_t len, int flags,
		     const struct sockaddr *dest_addr, socklen_t addrlen)
{
	const struct socket_op_vtable *vt;
	void *obj = fd_get(sock, &vt);
	if (!obj)
		return -1;
	ssize_t ret = vt->sendto(obj, buf, len, flags, dest_addr, addrlen);
	if (ret < 0 && ret != -EAGAIN)
		fdtable[sock].error = (int)-ret;
	LOG_DBG("fd %d: sendto %u bytes: %d", sock, (unsigned)len, (int)ret);
	fd_put(sock);
	return sock_result(ret);
}

ssize_t zsock_recvfrom(int sock, void *buf, size_t max_len, int flags, struct sockaddr *src_addr,
		       socklen_t *addrlen)
{
	const struct socket_op_vtable *vt;
	void *obj = fd_get(sock, &vt);
	if (!obj)
		return -1;
	ssize_t ret = vt->recvfrom(obj, buf, max_len, flags, src_addr, addrlen);
	LOG_DBG("fd %d: recvfrom: %d", sock, (int)ret);
	fd_put(sock);
	return sock_result(ret);
}

int zsock_connect(int sock, const struct sockaddr *addr, socklen_t addrlen)
{
	const struct socket_op_vtable *vt;
	void *obj = get_sock_vtable(sock, &vt);
	if (!obj)
		return -1;
	return (int)sock_result(vt->connect(obj, addr, addrlen));
}

int zsock_getsockname(int sock, struct sockaddr *addr, socklen_t *addrlen)
{
	const struct socket_op_vtable *vt;
	void *obj = get_sock_vtable(sock, &vt);
	if (!obj)
		return -1;
	if (!addr || !addrlen)
		return (int)sock_result(-EINVAL);
	return (int)sock_result(vt->getsockname(obj, addr, addrlen));
}

ssize_t zsock_send(int sock, const void *buf, size_t len, int flags)
{
	return zsock_sendto(sock, buf, len, flags, NULL, 0);
}

ssize_t zsock_recv(int sock, void *buf, size_t max_len, int flags)
{
	return zsock_recvfrom(sock, buf, max_len, flags, NULL, NULL);
}

int zsock_setsockopt(int sock, int level, int optname, const void *optval, socklen_t optlen)
{
	const struct socket_op_vtable *vt;
	void *obj = get_sock_vtable(sock, &vt);
	if (!obj)
		return -1;
	return (int)sock_result(vt->setsockopt(obj, level, optname, optval, optlen));
}

int zsock_getsockopt(int sock, int level, int optname, void *optval, socklen_t *optlen)
{
	const struct socket_op_vtable *vt;
	void *obj = get_sock_vtable(sock, &vt);
	if (!obj)
		return -1;
	if (!optval || !optlen)
		return (int)sock_result(-EINVAL);
	if (level == SOL_SOCKET && optname == SO_ERROR && fdtable[sock].error &&
	    *optlen >= sizeof(int32_t)) {
		/* An error of a call on the descriptor first, then the context's. */
		int32_t err = fdtable[sock].error;
		fdtable[sock].error = 0;
		memcpy(optval, &err, sizeof(err));
		*optlen = sizeof(err);
		return 0;
	}
	return (int)sock_result(vt->getsockopt(obj, level, optname, optval, optlen));
}

int zsock_close(int sock)
{
	if (!fd_valid(sock)) {
		set_errno(EBADF);
		return -1;
	}
	k_mutex_lock(&fdtable_lock, K_FOREVER);
	struct fd_entry *e = &fdtable[sock];
	void *obj = e->closing ? NULL : e->obj;
	const struct socket_op_vtable *vt = e->vtable;
	if (obj)
		e->closing = true;
	k_mutex_unlock(&fdtable_lock);
	if (!obj) {
		set_errno(EBADF);
		return -1;
	}
	/* Calls in progress (a blocked recvfrom) finish first; their timeouts bound it. */
	while (atomic_get(&e->refcount) > 0)
		k_sem_take(&fd_released, K_MSEC(10));
	int ret = vt->close(obj);
	fd_free(sock);
	return (int)sock_result(ret);
}

/* One pass over the descriptors: those ready now count; the others get a poll event.
 * Returns how many are ready. */
static int poll_prepare(struct pollfd *fds, int nfds, struct k_poll_event *events)
{
	int ready = 0;
	for (int i = 0; i < nfds; i++) {
		const struct socket_op_vtable *vt;
		k_poll_event_init(&events[i], K_POLL_TYPE_IGNORE, NULL);
		fds[i].revents = 0;
		if (fds[i].fd < 0)
			continue;
		void *obj = get_sock_vtable(fds[i].fd, &vt);
		if (!obj) {
			fds[i].revents = POLLNVAL;
			ready++;
		} else if (vt->poll_prepare(obj, &fds[i], &events[i])) {
			ready++;
		}
	}
	return ready;
}

/* After k_poll: the events that fired make their descriptors ready. */
static int poll_update(struct pollfd *fds, int nfds, const struct k_poll_event *events)
{
	int ready = 0;
	for (int i = 0; i < nfds; i++) {
		const struct socket_op_vtable *vt;
		if (fds[i].fd < 0 || events[i].type == K_POLL_TYPE_IGNORE)
			continue;
		void *obj = get_sock_vtable(fds[i].fd, &vt);
		if (obj)
			vt->poll_update(obj, &fds[i], &events[i]);
		if (fds[i].revents)
			ready++;
	}
	return ready;
}

int zsock_poll(struct pollfd *fds, int nfds, int timeout)
{
	if (nfds < 0 || nfds > SOCK_MAX_FDS)
		return (int)sock_result(-EINVAL);
	struct k_poll_event events[SOCK_MAX_FDS];
	k_timepoint_t deadline = sys_timepoint_calc(k_timeout_from_ms(timeout));

	for (;;) {
		int ready = poll_prepare(fds, nfds, events);
		if (ready || timeout == 0)
			return ready;
		k_timeout_t wait = sys_timepoint_timeout(deadline);
		if (k_timeout_is_no_wait(wait))
			return 0;
		if (k_poll(events, nfds, wait) == -EAGAIN)
			return 0;
		ready = poll_update(fds, nfds, events);
		if (ready)
			return ready;
		/* Woken, but someone else took the data: wait again for what is left. */
	}
}
