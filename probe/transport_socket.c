/* transport_socket: the virtual probe behind a Unix stream socket (`xipbench sim serve
 * --probe-socket`), every packet framed by a 2-byte little-endian length. */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "transport.h"

static const xb_transport_ops transport_socket_ops;

typedef struct socket_link {
	xb_transport base;
	int fd;
	char path[108];
} socket_link;

/* Waits until fd is ready for events; 0, or -1 with err on a timeout or an error. */
static int socket_wait(socket_link *s, short events, xb_err *err)
{
	struct pollfd p = {.fd = s->fd, .events = events};
	for (;;) {
		int n = poll(&p, 1, (int)s->base.timeout_ms);
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
				if (socket_wait(s, POLLOUT, err))
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

static int socket_read_all(socket_link *s, uint8_t *p, size_t n, xb_err *err)
{
	while (n) {
		if (socket_wait(s, POLLIN, err))
			return -1;
		ssize_t k = recv(s->fd, p, n, 0);
		if (k == 0)
			return socket_closed(s, err);
		if (k < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
				continue;
			if (errno == ECONNRESET)
				return socket_closed(s, err);
			return xb_fail(err, "%s: recv: %s", s->base.name, strerror(errno));
		}
		p += k;
		n -= (size_t)k;
	}
	return 0;
}

static int socket_submit(xb_transport *t, const uint8_t *req, size_t len, xb_err *err)
{
	socket_link *s = (socket_link *)t;
	uint8_t frame[2 + TRANSPORT_PACKET_MAX];
	frame[0] = (uint8_t)len;
	frame[1] = (uint8_t)(len >> 8);
	memcpy(frame + 2, req, len);
	return socket_write_all(s, frame, 2 + len, err);
}

static int socket_collect(xb_transport *t, uint8_t *resp, size_t cap, size_t *rlen, xb_err *err)
{
	socket_link *s = (socket_link *)t;
	uint8_t hdr[2], buf[TRANSPORT_PACKET_MAX];
	if (socket_read_all(s, hdr, 2, err))
		return -1;
	size_t len = hdr[0] | (size_t)hdr[1] << 8;
	if (len == 0 || len > TRANSPORT_PACKET_MAX)
		return xb_fail(err,
			       "%s: malformed frame: a response of %zu bytes (1 to %u expected); "
			       "is this a CMSIS-DAP socket?",
			       t->name, len, TRANSPORT_PACKET_MAX);
	if (socket_read_all(s, buf, len, err))
		return -1;
	*rlen = len < cap ? len : cap;
	memcpy(resp, buf, *rlen);
	return 0;
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
	free(s);
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
	socket_link *s = xcalloc(1, sizeof *s);
	transport_init(&s->base, &transport_socket_ops, "the virtual probe at %s", path);
	s->base.packet_size = TRANSPORT_PACKET_MAX; /* until DAP_Info says */
	s->fd = fd;
	memcpy(s->path, addr.sun_path, sizeof s->path);
	return &s->base;
}

static const xb_transport_ops transport_socket_ops = {
	.kind = "socket",
	.xfer = socket_xfer,
	.submit = socket_submit,
	.collect = socket_collect,
	.close = socket_close,
};
