/* sockets.c: the BSD-style socket API: a descriptor table of objects with an operations
 * table, UDP and raw sockets over net contexts, blocking calls with timeouts, messages with
 * ancillary data (recvmsg / sendmsg), and poll. */
#include "net/net_core.h"
#include "net/socket.h"
#include "net_context.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(net_sock, LOG_LEVEL_WRN);

/* What a descriptor's object can do. */
struct socket_op_vtable {
	ssize_t (*recvmsg)(void *obj, struct msghdr *msg, int flags);
	ssize_t (*sendmsg)(void *obj, const struct msghdr *msg, int flags);
	int (*bind)(void *obj, const struct sockaddr *addr, socklen_t addrlen);
	int (*connect)(void *obj, const struct sockaddr *addr, socklen_t addrlen);
	int (*getsockname)(void *obj, struct sockaddr *addr, socklen_t *addrlen);
	int (*setsockopt)(void *obj, int level, int optname, const void *optval,
			  socklen_t optlen);
	int (*getsockopt)(void *obj, int level, int optname, void *optval, socklen_t *optlen);
	/* Adds the events to wait on for pfd at *pev (up to pev_end), advancing *pev. Returns
	 * 1 when pfd is ready already (pfd->revents set), 0 when the events must be polled,
	 * -ENOMEM when they do not fit. */
	int (*poll_prepare)(void *obj, struct pollfd *pfd, struct k_poll_event **pev,
			    struct k_poll_event *pev_end);
	/* After k_poll: pfd->revents from the events it added (*pev advances past them). */
	void (*poll_update)(void *obj, struct pollfd *pfd, struct k_poll_event **pev);
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

/* Where a received datagram came from: its IP header, and the UDP header's source port
 * (raw datagrams have none). */
static void sock_fill_src(struct net_context *ctx, struct net_pkt *pkt, struct sockaddr *src_addr,
			  socklen_t *addrlen)
{
	struct net_ipv4_hdr *ip_hdr = net_pkt_ip_hdr(pkt);
	struct sockaddr_in sin = {.sin_family = AF_INET};
	memcpy(&sin.sin_addr, ip_hdr->src, sizeof(sin.sin_addr));
	if (ctx->type == SOCK_DGRAM) {
		uint8_t ports[4];
		struct net_pkt_cursor backup;
		net_pkt_cursor_backup(pkt, &backup);
		if (net_pkt_seek(pkt, pkt->ip_hdr_len) == 0 &&
		    net_pkt_read(pkt, ports, sizeof(ports)) == 0)
			memcpy(&sin.sin_port, ports, sizeof(sin.sin_port));
		net_pkt_cursor_restore(pkt, &backup);
	}
	socklen_t n = MIN(*addrlen, (socklen_t)sizeof(sin));
	memcpy(src_addr, &sin, n);
	*addrlen = sizeof(sin);
}

/* Appends one ancillary record to msg's control buffer (*used bytes of it taken so far);
 * MSG_CTRUNC when it does not fit. */
static void cmsg_put(struct msghdr *msg, size_t *used, int level, int type, const void *data,
		     size_t len)
{
	size_t space = CMSG_SPACE(len);
	if (msg->msg_controllen < *used + space) {
		msg->msg_flags |= MSG_CTRUNC;
		return;
	}
	struct cmsghdr *c = (struct cmsghdr *)(void *)((uint8_t *)msg->msg_control + *used);
	c->cmsg_len = CMSG_LEN(len);
	c->cmsg_level = level;
	c->cmsg_type = type;
	memcpy(CMSG_DATA(c), data, len);
	*used += space;
}

/* IP_PKTINFO of a received datagram: its interface, the header's destination, and the
 * address an answer should come from (the destination itself when it is one of ours,
 * else, for a broadcast or a group, the interface's address toward the sender). */
static void sock_pktinfo(struct net_pkt *pkt, struct in_pktinfo *info)
{
	struct net_ipv4_hdr *ip_hdr = net_pkt_ip_hdr(pkt);
	struct in_addr src;
	memcpy(&src, ip_hdr->src, sizeof(src));
	memcpy(&info->ipi_addr, ip_hdr->dst, sizeof(info->ipi_addr));
	info->ipi_ifindex = net_if_get_index(pkt->iface) + 1;
	info->ipi_spec_dst.s_addr = 0;
	if (net_if_ipv4_addr_lookup(&info->ipi_addr, NULL)) {
		info->ipi_spec_dst = info->ipi_addr;
	} else {
		const struct in_addr *a = net_if_ipv4_select_src_addr(pkt->iface, &src);
		if (a)
			info->ipi_spec_dst = *a;
	}
}

/* A time on the 64-bit microsecond clock as a timespec. */
static void us_to_timespec(uint64_t us, struct timespec *ts)
{
	ts->tv_sec = (time_t)(us / 1000000u);
	ts->tv_nsec = (long)(us % 1000000u) * 1000L;
}

/* The time pkt was received in the driver, on the 64-bit clock (its 32-bit stamp is the
 * low word of the same counter). */
static uint64_t sock_rx_time_us(const struct net_pkt *pkt)
{
	uint64_t now = k_cycle_get_64();
	return now - (uint32_t)((uint32_t)now - pkt->timestamp);
}

/* The ancillary data the socket asked for. */
static void sock_put_cmsgs(struct net_context *ctx, struct net_pkt *pkt, struct msghdr *msg)
{
	size_t used = 0;
	if (ctx->recv_pktinfo) {
		struct in_pktinfo info;
		sock_pktinfo(pkt, &info);
		cmsg_put(msg, &used, IPPROTO_IP, IP_PKTINFO, &info, sizeof(info));
	}
	if (ctx->timestamp) {
		uint64_t at = sock_rx_time_us(pkt);
		struct timeval tv = {.tv_sec = (time_t)(at / 1000000u),
				     .tv_usec = (suseconds_t)(at % 1000000u)};
		cmsg_put(msg, &used, SOL_SOCKET, SCM_TIMESTAMP, &tv, sizeof(tv));
	}
	uint32_t want = SOF_TIMESTAMPING_RX_SOFTWARE | SOF_TIMESTAMPING_SOFTWARE;
	if ((ctx->timestamping & want) == want) {
		struct scm_timestamping tss = {0};
		us_to_timespec(sock_rx_time_us(pkt), &tss.ts[0]);
		cmsg_put(msg, &used, SOL_SOCKET, SCM_TIMESTAMPING, &tss, sizeof(tss));
	}
	msg->msg_controllen = used;
}

/* recvmsg(MSG_ERRQUEUE): the oldest transmit timestamp, as Linux reports one with
 * SOF_TIMESTAMPING_OPT_TSONLY: no data, SCM_TIMESTAMPING and IP_RECVERR records. */
static ssize_t sock_recv_errqueue(struct net_context *ctx, struct msghdr *msg)
{
	struct net_context_tstamp ts;
	if (net_context_errq_get(ctx, &ts))
		return -EAGAIN;
	size_t used = 0;
	msg->msg_flags = MSG_ERRQUEUE;
	msg->msg_namelen = 0;
	if (ctx->timestamping & SOF_TIMESTAMPING_SOFTWARE) {
		struct scm_timestamping tss = {0};
		us_to_timespec(ts.us, &tss.ts[0]);
		cmsg_put(msg, &used, SOL_SOCKET, SCM_TIMESTAMPING, &tss, sizeof(tss));
	}
	struct sock_extended_err ee = {.ee_errno = ENOMSG,
				       .ee_origin = SO_EE_ORIGIN_TIMESTAMPING,
				       .ee_info = SCM_TSTAMP_SND,
				       .ee_data = ts.tskey};
	cmsg_put(msg, &used, IPPROTO_IP, IP_RECVERR, &ee, sizeof(ee));
	msg->msg_controllen = used;
	return 0;
}

static ssize_t sock_recvmsg_ctx(void *obj, struct msghdr *msg, int flags)
{
	struct net_context *ctx = obj;
	if (flags & MSG_ERRQUEUE)
		return sock_recv_errqueue(ctx, msg);
	k_timeout_t timeout = (flags & MSG_DONTWAIT) ? K_NO_WAIT
						     : k_timeout_from_ms(ctx->rcvtimeo_ms);
	struct net_pkt *pkt = net_context_recv_pkt(ctx, timeout, (flags & MSG_PEEK) != 0);
	if (!pkt)
		return -EAGAIN;
	msg->msg_flags = 0;
	if (msg->msg_name)
		sock_fill_src(ctx, pkt, msg->msg_name, &msg->msg_namelen);
	/* Scatter the datagram over the pieces; what does not fit is gone, as POSIX says. */
	size_t left = pkt->appdata_len, copied = 0;
	int ret = 0;
	for (size_t i = 0; i < msg->msg_iovlen && left && !ret; i++) {
		size_t n = MIN(msg->msg_iov[i].iov_len, left);
		ret = net_pkt_read(pkt, msg->msg_iov[i].iov_base, n);
		copied += n;
		left -= n;
	}
	if (left)
		msg->msg_flags |= MSG_TRUNC;
	if (msg->msg_control)
		sock_put_cmsgs(ctx, pkt, msg);
	else
		msg->msg_controllen = 0;
	size_t full = pkt->appdata_len;
	net_pkt_unref(pkt);
	if (ret)
		return -EIO;
	return (ssize_t)((flags & MSG_TRUNC) ? full : copied);
}

/* IP_PKTINFO of a message to send: its source address and interface. */
static int sock_parse_cmsgs(const struct msghdr *msg, struct net_context_tx *tx)
{
	if (!msg->msg_control)
		return 0;
	for (const struct cmsghdr *c = CMSG_FIRSTHDR(msg); c; c = CMSG_NXTHDR(msg, c)) {
		if (c->cmsg_level != IPPROTO_IP || c->cmsg_type != IP_PKTINFO ||
		    c->cmsg_len < CMSG_LEN(sizeof(struct in_pktinfo)))
			return -EINVAL;
		const struct in_pktinfo *info = (const void *)CMSG_DATA(c);
		tx->src = &info->ipi_spec_dst;
		tx->ifindex = info->ipi_ifindex;
	}
	return 0;
}

static ssize_t sock_sendmsg_ctx(void *obj, const struct msghdr *msg, int flags)
{
	struct net_context *ctx = obj;
	struct net_context_tx tx = {.iov = msg->msg_iov, .iovlen = msg->msg_iovlen};
	if (msg->msg_name) {
		int ret = sock_addr_in(msg->msg_name, msg->msg_namelen, &tx.dst);
		if (ret)
			return ret;
	}
	int ret = sock_parse_cmsgs(msg, &tx);
	if (ret)
		return ret;
	k_timeout_t timeout = (flags & MSG_DONTWAIT) ? K_NO_WAIT
						     : k_timeout_from_ms(ctx->sndtimeo_ms);
	return net_context_send(ctx, &tx, timeout);
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

static int sock_poll_prepare_ctx(void *obj, struct pollfd *pfd, struct k_poll_event **pev,
				 struct k_poll_event *pev_end)
{
	struct net_context *ctx = obj;
	pfd->revents = 0;
	if ((pfd->events & POLLIN) && net_context_readable(ctx))
		pfd->revents |= POLLIN;
	if (pfd->events & POLLOUT)
		pfd->revents |= POLLOUT; /* datagrams: sending never waits for the peer */
	if (net_context_errq_pending(ctx))
		pfd->revents |= POLLERR; /* reported whether asked for or not, as in POSIX */
	if (pfd->revents)
		return 1;
	if (pfd->events & POLLIN) {
		if (*pev == pev_end)
			return -ENOMEM;
		k_poll_event_init((*pev)++, K_POLL_TYPE_FIFO_DATA_AVAILABLE, &ctx->recv_q._queue);
	}
	if (ctx->timestamping & SOF_TIMESTAMPING_TX_SOFTWARE) {
		if (*pev == pev_end)
			return -ENOMEM;
		k_poll_event_init((*pev)++, K_POLL_TYPE_SIGNAL, &ctx->errq_sig);
	}
	return 0;
}

static void sock_poll_update_ctx(void *obj, struct pollfd *pfd, struct k_poll_event **pev)
{
	struct net_context *ctx = obj;
	if (pfd->events & POLLIN) {
		if ((*pev)->state & K_POLL_STATE_FIFO_DATA_AVAILABLE)
			pfd->revents |= POLLIN;
		(*pev)++;
	}
	if (ctx->timestamping & SOF_TIMESTAMPING_TX_SOFTWARE) {
		if ((*pev)->state & K_POLL_STATE_SIGNALED)
			pfd->revents |= POLLERR;
		(*pev)++;
	}
}

static int sock_close_ctx(void *obj)
{
	return net_context_put(obj);
}

static const struct socket_op_vtable sock_ctx_vtable = {
	.recvmsg = sock_recvmsg_ctx,
	.sendmsg = sock_sendmsg_ctx,
	.bind = sock_bind_ctx,
	.connect = sock_connect_ctx,
	.getsockname = sock_getsockname_ctx,
	.setsockopt = sock_setsockopt_ctx,
	.getsockopt = sock_getsockopt_ctx,
	.poll_prepare = sock_poll_prepare_ctx,
	.poll_update = sock_poll_update_ctx,
	.close = sock_close_ctx,
};

/* ---- Event descriptors: a counter that poll reports readable while it is not zero ---- */

#define EVENTFD_MAX 2

struct eventfd {
	struct k_poll_signal readable; /* raised while count > 0 */
	uint32_t count;
	bool in_use;
};

static struct eventfd eventfds[EVENTFD_MAX];

static int eventfd_poll_prepare(void *obj, struct pollfd *pfd, struct k_poll_event **pev,
				struct k_poll_event *pev_end)
{
	struct eventfd *efd = obj;
	pfd->revents = 0;
	if ((pfd->events & POLLIN) && efd->count)
		pfd->revents |= POLLIN;
	if (pfd->events & POLLOUT)
		pfd->revents |= POLLOUT; /* the counter saturates: writing never waits */
	if (pfd->revents)
		return 1;
	if (pfd->events & POLLIN) {
		if (*pev == pev_end)
			return -ENOMEM;
		k_poll_event_init((*pev)++, K_POLL_TYPE_SIGNAL, &efd->readable);
	}
	return 0;
}

static void eventfd_poll_update(void *obj, struct pollfd *pfd, struct k_poll_event **pev)
{
	UNUSED(obj);
	if (pfd->events & POLLIN) {
		if ((*pev)->state & K_POLL_STATE_SIGNALED)
			pfd->revents |= POLLIN;
		(*pev)++;
	}
}

static int eventfd_close(void *obj)
{
	struct eventfd *efd = obj;
	unsigned key = irq_lock();
	efd->in_use = false;
	irq_unlock(key);
	return 0;
}

static const struct socket_op_vtable eventfd_vtable = {
	.poll_prepare = eventfd_poll_prepare,
	.poll_update = eventfd_poll_update,
	.close = eventfd_close,
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
	fd_finalize(fd, ctx, &sock_ctx_vtable);
	LOG_DBG("socket %d", fd);
	return fd;
}

int zsock_bind(int sock, const struct sockaddr *addr, socklen_t addrlen)
{
	const struct socket_op_vtable *vt;
	void *obj = get_sock_vtable(sock, &vt);
	if (!obj)
		return -1;
	return (int)sock_result(vt->bind ? vt->bind(obj, addr, addrlen) : -EOPNOTSUPP);
}

ssize_t zsock_sendmsg(int sock, const struct msghdr *msg, int flags)
{
	const struct socket_op_vtable *vt;
	void *obj = fd_get(sock, &vt);
	if (!obj)
		return -1;
	ssize_t ret = vt->sendmsg ? vt->sendmsg(obj, msg, flags) : -EOPNOTSUPP;
	if (ret < 0 && ret != -EAGAIN)
		fdtable[sock].error = (int)-ret;
	LOG_DBG("fd %d: sendmsg: %d", sock, (int)ret);
	fd_put(sock);
	return sock_result(ret);
}

ssize_t zsock_sendto(int sock, const void *buf, size_t len, int flags,
		     const struct sockaddr *dest_addr, socklen_t addrlen)
{
	struct iovec iov = {.iov_base = (void *)buf, .iov_len = len};
	struct msghdr msg = {.msg_name = (void *)dest_addr,
			     .msg_namelen = dest_addr ? addrlen : 0,
			     .msg_iov = &iov,
			     .msg_iovlen = 1};
	return zsock_sendmsg(sock, &msg, flags);
}

ssize_t zsock_recvmsg(int sock, struct msghdr *msg, int flags)
{
	const struct socket_op_vtable *vt;
	void *obj = fd_get(sock, &vt);
	if (!obj)
		return -1;
	ssize_t ret = vt->recvmsg ? vt->recvmsg(obj, msg, flags) : -EOPNOTSUPP;
	LOG_DBG("fd %d: recvmsg: %d", sock, (int)ret);
	fd_put(sock);
	return sock_result(ret);
}

ssize_t zsock_recvfrom(int sock, void *buf, size_t max_len, int flags, struct sockaddr *src_addr,
		       socklen_t *addrlen)
{
	struct iovec iov = {.iov_base = buf, .iov_len = max_len};
	struct msghdr msg = {.msg_name = (src_addr && addrlen) ? src_addr : NULL,
			     .msg_namelen = (src_addr && addrlen) ? *addrlen : 0,
			     .msg_iov = &iov,
			     .msg_iovlen = 1};
	ssize_t ret = zsock_recvmsg(sock, &msg, flags);
	if (ret >= 0 && src_addr && addrlen)
		*addrlen = msg.msg_namelen;
	return ret;
}

int zsock_connect(int sock, const struct sockaddr *addr, socklen_t addrlen)
{
	const struct socket_op_vtable *vt;
	void *obj = get_sock_vtable(sock, &vt);
	if (!obj)
		return -1;
	return (int)sock_result(vt->connect ? vt->connect(obj, addr, addrlen) : -EOPNOTSUPP);
}

int zsock_getsockname(int sock, struct sockaddr *addr, socklen_t *addrlen)
{
	const struct socket_op_vtable *vt;
	void *obj = get_sock_vtable(sock, &vt);
	if (!obj)
		return -1;
	if (!addr || !addrlen)
		return (int)sock_result(-EINVAL);
	return (int)sock_result(vt->getsockname ? vt->getsockname(obj, addr, addrlen) : -EOPNOTSUPP);
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
	return (int)sock_result(vt->setsockopt ? vt->setsockopt(obj, level, optname, optval, optlen) : -EOPNOTSUPP);
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
	return (int)sock_result(vt->getsockopt ? vt->getsockopt(obj, level, optname, optval, optlen) : -EOPNOTSUPP);
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

/* Events k_poll may wait for in one zsock_poll: two per descriptor at most (a socket's
 * receive queue and its error queue). */
#define POLL_MAX_EVENTS (2 * SOCK_MAX_FDS)

/* One pass over the descriptors: those ready now count; the others add their events
 * (nev[i]: how many). Returns how many are ready, or a negative errno. */
static int poll_prepare(struct pollfd *fds, int nfds, struct k_poll_event *events,
			uint8_t *nev, int *num_events)
{
	struct k_poll_event *pev = events, *pev_end = events + POLL_MAX_EVENTS;
	int ready = 0;
	for (int i = 0; i < nfds; i++) {
		const struct socket_op_vtable *vt;
		struct k_poll_event *first = pev;
		fds[i].revents = 0;
		nev[i] = 0;
		if (fds[i].fd < 0)
			continue;
		void *obj = get_sock_vtable(fds[i].fd, &vt);
		if (!obj) {
			fds[i].revents = POLLNVAL;
			ready++;
			continue;
		}
		int ret = vt->poll_prepare(obj, &fds[i], &pev, pev_end);
		if (ret < 0)
			return ret;
		if (ret)
			ready++;
		nev[i] = (uint8_t)(pev - first);
	}
	*num_events = (int)(pev - events);
	return ready;
}

/* After k_poll: the events that fired make their descriptors ready. */
static int poll_update(struct pollfd *fds, int nfds, struct k_poll_event *events,
		       const uint8_t *nev)
{
	struct k_poll_event *pev = events;
	int ready = 0;
	for (int i = 0; i < nfds; i++) {
		const struct socket_op_vtable *vt;
		if (!nev[i])
			continue;
		struct k_poll_event *next = pev + nev[i];
		void *obj = get_sock_vtable(fds[i].fd, &vt);
		if (obj)
			vt->poll_update(obj, &fds[i], &pev);
		pev = next;
		if (fds[i].revents)
			ready++;
	}
	return ready;
}

int zsock_poll(struct pollfd *fds, int nfds, int timeout)
{
	if (nfds < 0 || nfds > SOCK_MAX_FDS)
		return (int)sock_result(-EINVAL);
	struct k_poll_event events[POLL_MAX_EVENTS];
	uint8_t nev[SOCK_MAX_FDS];
	k_timepoint_t deadline = sys_timepoint_calc(k_timeout_from_ms(timeout));

	for (;;) {
		int num_events;
		int ready = poll_prepare(fds, nfds, events, nev, &num_events);
		if (ready < 0)
			return (int)sock_result(ready);
		if (ready || timeout == 0)
			return ready;
		k_timeout_t wait = sys_timepoint_timeout(deadline);
		if (k_timeout_is_no_wait(wait))
			return 0;
		if (k_poll(events, num_events, wait) == -EAGAIN)
			return 0;
		ready = poll_update(fds, nfds, events, nev);
		if (ready)
			return ready;
		/* Woken, but someone else took the data: wait again for what is left. */
	}
}

int zsock_eventfd(uint32_t initval)
{
	int fd = fd_reserve();
	if (fd < 0)
		return (int)sock_result(fd);
	struct eventfd *efd = NULL;
	unsigned key = irq_lock();
	for (int i = 0; i < EVENTFD_MAX && !efd; i++) {
		if (!eventfds[i].in_use) {
			efd = &eventfds[i];
			efd->in_use = true;
		}
	}
	irq_unlock(key);
	if (!efd) {
		fd_free(fd);
		return (int)sock_result(-ENFILE);
	}
	k_poll_signal_init(&efd->readable);
	efd->count = initval;
	if (initval)
		k_poll_signal_raise(&efd->readable, 0);
	fd_finalize(fd, efd, &eventfd_vtable);
	return fd;
}

/* The eventfd behind fd, with a reference (fd_put), or NULL and the errno. */
static struct eventfd *eventfd_get(int fd)
{
	const struct socket_op_vtable *vt;
	void *obj = fd_get(fd, &vt);
	if (obj && vt != &eventfd_vtable) {
		fd_put(fd);
		set_errno(EINVAL);
		return NULL;
	}
	return obj;
}

int zsock_eventfd_read(int fd, uint32_t *value)
{
	struct eventfd *efd = eventfd_get(fd);
	if (!efd)
		return -1;
	int ret = 0;
	unsigned key = irq_lock();
	if (efd->count) {
		*value = efd->count;
		efd->count = 0;
		k_poll_signal_reset(&efd->readable);
	} else {
		ret = -EAGAIN; /* never blocks: poll for POLLIN first */
	}
	irq_unlock(key);
	fd_put(fd);
	return (int)sock_result(ret);
}

int zsock_eventfd_write(int fd, uint32_t value)
{
	struct eventfd *efd = eventfd_get(fd);
	if (!efd)
		return -1;
	unsigned key = irq_lock();
	efd->count = efd->count > UINT32_MAX - value ? UINT32_MAX : efd->count + value;
	bool raise = efd->count != 0;
	irq_unlock(key);
	if (raise)
		k_poll_signal_raise(&efd->readable, 0);
	fd_put(fd);
	return 0;
}
