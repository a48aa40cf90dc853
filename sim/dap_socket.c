/* dap_socket: the virtual probe's packets over a Unix stream socket, each framed by a
 * 2-byte little-endian length, for a poll loop (the `sim serve` command). */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "dap.h"

/* Output waiting for a slow client: beyond this, the server stops reading its requests. */
#define OUT_LIMIT (64u * 1024u)
#define FRAME_HEADER 2u

struct xb_dap_server {
	xb_dap *dap;
	char *path;
	int listen_fd;
	int client_fd;
	uint8_t *in;   /* a partial frame: header + up to packet_size bytes */
	size_t in_len, in_cap;
	uint8_t *out;  /* framed responses not yet written */
	size_t out_len, out_cap;
};

static void dap_socket_drop(xb_dap_server *s)
{
	if (s->client_fd >= 0) {
		close(s->client_fd);
		dap_discard(s->dap); /* like unplugging: queued packets go too */
	}
	s->client_fd = -1;
	s->in_len = 0;
	s->out_len = 0;
}

xb_dap_server *dap_socket_open(const char *path, xb_dap *d, xb_err *err)
{
	struct sockaddr_un addr;
	memset(&addr, 0, sizeof addr);
	addr.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof addr.sun_path) {
		xb_fail(err, "%s: socket path too long (at most %zu bytes)", path,
			sizeof addr.sun_path - 1);
		return NULL;
	}
	memcpy(addr.sun_path, path, strlen(path) + 1);
	struct stat st;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode)) {
			xb_fail(err, "%s: exists and is not a socket; choose another path", path);
			return NULL;
		}
		unlink(path); /* a socket left by an earlier server */
	}
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		xb_fail(err, "%s: socket: %s", path, strerror(errno));
		return NULL;
	}
	if (bind(fd, (struct sockaddr *)&addr, sizeof addr) != 0 || listen(fd, 1) != 0) {
		xb_fail(err, "%s: %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	xb_dap_server *s = xcalloc(1, sizeof *s);
	s->dap = d;
	s->path = xstrdup(path);
	s->listen_fd = fd;
	s->client_fd = -1;
	s->in_cap = FRAME_HEADER + dap_config(d)->packet_size;
	s->in = xmalloc(s->in_cap);
	return s;
}

void dap_socket_close(xb_dap_server *s)
{
	if (!s)
		return;
	dap_socket_drop(s);
	close(s->listen_fd);
	unlink(s->path);
	free(s->path);
	free(s->in);
	free(s->out);
	free(s);
}

int dap_socket_connected(const xb_dap_server *s)
{
	return s->client_fd >= 0;
}

int dap_socket_pollfds(const xb_dap_server *s, struct pollfd *fds, int max)
{
	int n = 0;
	if (n < max)
		fds[n++] = (struct pollfd){.fd = s->listen_fd, .events = POLLIN};
	if (s->client_fd >= 0 && n < max) {
		short ev = s->out_len < OUT_LIMIT ? POLLIN : 0;
		if (s->out_len)
			ev |= POLLOUT;
		fds[n++] = (struct pollfd){.fd = s->client_fd, .events = ev};
	}
	return n;
}

static int dap_socket_accept(xb_dap_server *s, xb_err *err)
{
	for (;;) {
		int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
			    errno == ECONNABORTED)
				return 0;
			return xb_fail(err, "%s: accept: %s", s->path, strerror(errno));
		}
		if (s->client_fd >= 0) {
			close(fd); /* one host at a time, as with a USB probe */
			continue;
		}
		s->client_fd = fd;
		s->in_len = 0;
		s->out_len = 0;
	}
}

static void dap_socket_queue(xb_dap_server *s, const uint8_t *resp, size_t len)
{
	xb_grow(&s->out, &s->out_cap, s->out_len + FRAME_HEADER + len, 1);
	s->out[s->out_len++] = (uint8_t)len;
	s->out[s->out_len++] = (uint8_t)(len >> 8);
	memcpy(s->out + s->out_len, resp, len);
	s->out_len += len;
}

/* Runs every complete frame in the input buffer; returns packets run, -1 to drop. */
static int dap_socket_frames(xb_dap_server *s)
{
	size_t size = dap_config(s->dap)->packet_size, pos = 0;
	int packets = 0;
	uint8_t resp[1024];
	while (s->in_len - pos >= FRAME_HEADER) {
		size_t len = s->in[pos] | (size_t)s->in[pos + 1] << 8;
		if (len == 0 || len > size)
			return -1;
		if (s->in_len - pos < FRAME_HEADER + len)
			break;
		if (dap_submit(s->dap, s->in + pos + FRAME_HEADER, len, NULL))
			return -1;
		pos += FRAME_HEADER + len;
		packets++;
		size_t rlen;
		while (dap_collect(s->dap, resp, sizeof resp, &rlen, NULL))
			dap_socket_queue(s, resp, rlen);
	}
	if (pos) /* memmove's pointers must be valid even for no bytes */
		memmove(s->in, s->in + pos, s->in_len - pos);
	s->in_len -= pos;
	return packets;
}

int dap_socket_service(xb_dap_server *s, xb_err *err)
{
	int packets = 0;
	if (dap_socket_accept(s, err))
		return -1;
	if (s->client_fd < 0)
		return 0;
	while (s->out_len < OUT_LIMIT && s->client_fd >= 0) {
		ssize_t n = read(s->client_fd, s->in + s->in_len, s->in_cap - s->in_len);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
			dap_socket_drop(s); /* the host went away */
			return packets;
		}
		if (n < 0)
			break;
		s->in_len += (size_t)n;
		int run = dap_socket_frames(s);
		if (run < 0) {
			dap_socket_drop(s); /* not a framed CMSIS-DAP stream */
			return packets;
		}
		packets += run;
	}
	size_t done = 0;
	while (done < s->out_len) {
		ssize_t n = send(s->client_fd, s->out + done, s->out_len - done, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
				break;
			dap_socket_drop(s);
			return packets;
		}
		done += (size_t)n;
	}
	if (done)
		memmove(s->out, s->out + done, s->out_len - done);
	s->out_len -= done;
	return packets;
}
