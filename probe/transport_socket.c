/* transport_socket: the virtual probe behind a Unix stream socket (`xipbench sim serve
 * --probe-socket`, or a socketpair to a virtual bench), every packet framed by a 2-byte
 * little-endian length; the socket is non-blocking and what arrives is buffered here, so
 * readiness never waits. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "transport.h"

#define FRAME_HEADER 2u
/* Received bytes buffered at most: a few whole frames, so one read takes several. */
#define RX_CAP (8u * (FRAME_HEADER + TRANSPORT_PACKET_MAX))

static const xb_transport_ops transport_socket_ops;

typedef struct socket_link {
	xb_transport base;
	int fd;
	uint8_t *rx;          /* received, not yet collected: rx[rx_start .. rx_len) */
	size_t rx_start, rx_len;
} socket_link;

/* Waits until fd is ready for events; 0, or -1 with err on a timeout or an error. */
static int socket_wait(socket_link *s, short events, int timeout_ms, xb_err *err)
{
	struct pollfd p = {.fd = s->fd, .events = events};
	for (;;) {
		int n = poll(&p, 1, timeout_ms);
		if (n > 0)
			return 0;
		if (n == 0)
			return xb_fail(err,
				       "%s: no response within %u ms (is the virtual Pico's serve "
				       "loop stuck?)",
				       s->base.name, s->base.timeout_ms);
		if (errno != EINTR)
			return xb_fail(err, "%s: poll: %s", s->base.name, strerror(errno));
	}
}

static int socket_closed(socket_link *s, xb_err *err)
{
	return xb_fail(err,
		       "%s: the server closed the connection (it stopped, or another host is "
		       "already connected: the virtual probe serves one at a time)",
		       s->base.name);
}

static int socket_write_all(socket_link *s, const uint8_t *p, size_t n, xb_err *err)
{
	while (n) {
		ssize_t k = send(s->fd, p, n, MSG_NOSIGNAL);
		if (k < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN || errno == EWOULDBLOCK) {
				if (socket_wait(s, POLLOUT, (int)s->base.timeout_ms, err))
					return -1;
				continue;
			}
			if (errno == EPIPE || errno == ECONNRESET)
				return socket_closed(s, err);
			return xb_fail(err, "%s: send: %s", s->base.name, strerror(errno));
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

/* Reads what has arrived without waiting: the number of bytes (> 0), 0 when nothing is
 * there now, -1 with err when the peer closed or the socket failed. */
static int socket_receive(socket_link *s, xb_err *err)
{
	if (s->rx_start) { /* room at the end for at least the rest of one frame */
		memmove(s->rx, s->rx + s->rx_start, s->rx_len - s->rx_start);
		s->rx_len -= s->rx_start;
		s->rx_start = 0;
	}
	if (s->rx_len == RX_CAP)
		return 0; /* full of whole frames: collect first (recv of 0 bytes would say EOF) */
	for (;;) {
		ssize_t k = recv(s->fd, s->rx + s->rx_len, RX_CAP - s->rx_len, MSG_DONTWAIT);
		if (k > 0) {
			s->rx_len += (size_t)k;
			return 1;
		}
		if (k == 0)
			return socket_closed(s, err);
		if (errno == EINTR)
			continue;
		if (errno == EAGAIN || errno == EWOULDBLOCK)
			return 0;
		if (errno == ECONNRESET)
			return socket_closed(s, err);
		return xb_fail(err, "%s: recv: %s", s->base.name, strerror(errno));
	}
}

/* Whether a whole frame is buffered: 1 yes (*len its payload), 0 not yet, -1 with err when
 * its header is malformed. */
static int socket_frame(socket_link *s, size_t *len, xb_err *err)
{
	size_t have = s->rx_len - s->rx_start;
	if (have < FRAME_HEADER)
		return 0;
	const uint8_t *h = s->rx + s->rx_start;
	*len = h[0] | (size_t)h[1] << 8;
	if (*len == 0 || *len > TRANSPORT_PACKET_MAX)
		return xb_fail(err,
			       "%s: malformed frame: a response of %zu bytes (1 to %u expected); "
			       "is this a CMSIS-DAP socket?",
			       s->base.name, *len, TRANSPORT_PACKET_MAX);
	return have >= FRAME_HEADER + *len;
}

static int socket_ready(xb_transport *t, xb_err *err)
{
	socket_link *s = (socket_link *)t;
	for (;;) {
		size_t len;
		int r = socket_frame(s, &len, err);
		if (r != 0)
			return r;
		r = socket_receive(s, err);
		if (r <= 0)
			return r;
	}
}

static int socket_fd(xb_transport *t)
{
	return ((socket_link *)t)->fd;
}

static int socket_submit(xb_transport *t, const uint8_t *req, size_t len, xb_err *err)
{
	socket_link *s = (socket_link *)t;
	uint8_t frame[FRAME_HEADER + TRANSPORT_PACKET_MAX];
	frame[0] = (uint8_t)len;
	frame[1] = (uint8_t)(len >> 8);
	memcpy(frame + FRAME_HEADER, req, len);
	return socket_write_all(s, frame, FRAME_HEADER + len, err);
}

/* Takes the oldest response, waiting for it up to the timeout when it is not there yet
 * (after socket_ready said 1 it is). */
static int socket_collect(xb_transport *t, uint8_t *resp, size_t cap, size_t *rlen, xb_err *err)
{
	socket_link *s = (socket_link *)t;
	uint64_t deadline = transport_wall_ns() + (uint64_t)t->timeout_ms * 1000000u;
	for (;;) {
		size_t len;
		int r = socket_frame(s, &len, err);
		if (r < 0)
			return -1;
		if (r == 1) {
			*rlen = len < cap ? len : cap;
			memcpy(resp, s->rx + s->rx_start + FRAME_HEADER, *rlen);
			s->rx_start += FRAME_HEADER + len;
			if (s->rx_start == s->rx_len)
				s->rx_start = s->rx_len = 0;
			return 0;
		}
		r = socket_receive(s, err);
		if (r < 0)
			return -1;
		if (r > 0)
			continue;
		uint64_t now = transport_wall_ns();
		int left = now < deadline ? (int)((deadline - now + 999999u) / 1000000u) : 0;
		if (socket_wait(s, POLLIN, left, err))
			return -1;
	}
}

static int socket_xfer(xb_transport *t, const uint8_t *req, size_t len, uint8_t *resp,
		       size_t cap, size_t *rlen, xb_err *err)
{
	if (socket_submit(t, req, len, err))
		return -1;
	return socket_collect(t, resp, cap, rlen, err);
}

static void socket_close(xb_transport *t)
{
	socket_link *s = (socket_link *)t;
	if (s->fd >= 0)
		close(s->fd);
	free(s->rx);
	free(s);
}

/* A link on the connected socket fd (owned), made non-blocking. */
static xb_transport *socket_link_new(int fd)
{
	int flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags | O_NONBLOCK);
	fcntl(fd, F_SETFD, FD_CLOEXEC);
	socket_link *s = xcalloc(1, sizeof *s);
	transport_init(&s->base, &transport_socket_ops, "a socket");
	s->base.packet_size = TRANSPORT_PACKET_MAX; /* until DAP_Info says */
	s->fd = fd;
	s->rx = xmalloc(RX_CAP);
	return &s->base;
}

xb_transport *transport_socket_adopt(int fd, const char *name)
{
	xb_transport *t = socket_link_new(fd);
	snprintf(t->name, sizeof t->name, "%s", name && *name ? name : "the virtual probe");
	return t;
}

xb_transport *transport_socket_open(const char *path, xb_err *err)
{
	struct sockaddr_un addr = {.sun_family = AF_UNIX};
	if (strlen(path) >= sizeof addr.sun_path) {
		xb_fail(err, "%s: socket path too long (at most %zu bytes)", path,
			sizeof addr.sun_path - 1);
		return NULL;
	}
	memcpy(addr.sun_path, path, strlen(path) + 1);
	struct stat st;
	if (stat(path, &st) != 0) {
		xb_fail(err,
			"%s: no such socket; start the virtual Pico with `xipbench sim serve "
			"--probe-socket %s`",
			path, path);
		return NULL;
	}
	if (!S_ISSOCK(st.st_mode)) {
		xb_fail(err, "%s: not a socket", path);
		return NULL;
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		xb_fail(err, "%s: socket: %s", path, strerror(errno));
		return NULL;
	}
	if (connect(fd, (struct sockaddr *)&addr, sizeof addr) != 0) {
		int e = errno;
		close(fd);
		if (e == ECONNREFUSED)
			xb_fail(err, "%s: nobody listens there (a socket left by a server that "
				     "stopped?)",
				path);
		else
			xb_fail(err, "%s: connect: %s", path, strerror(e));
		return NULL;
	}
	xb_transport *t = socket_link_new(fd);
	snprintf(t->name, sizeof t->name, "the virtual probe at %s", path);
	return t;
}

static const xb_transport_ops transport_socket_ops = {
	.kind = "socket",
	.xfer = socket_xfer,
	.submit = socket_submit,
	.collect = socket_collect,
	.ready = socket_ready,
	.fd = socket_fd,
	.close = socket_close,
};
