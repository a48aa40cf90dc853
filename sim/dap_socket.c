/* dap_socket: the virtual probe's packets over a Unix stream socket, each framed by a
 * 2-byte little-endian length, for a poll loop (the `sim serve` command, or a socketpair
 * to a virtual bench), optionally paced to the board's time. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "dap.h"
#include "dap_internal.h"

/* Output waiting for a slow client: beyond this, the server stops reading its requests. */
#define OUT_LIMIT (64u * 1024u)
#define FRAME_HEADER 2u

struct xb_dap_server {
	xb_dap *dap;
	char *path;    /* NULL without a listener */
	int listen_fd; /* -1 without a listener */
	int client_fd;
	int paced;
	uint8_t *in;   /* a partial frame: header + up to packet_size bytes */
	size_t in_len, in_cap;
	uint8_t *out;  /* framed responses not yet written */
	size_t out_len, out_cap;
	/* paced: frames read, waiting for the board to reach their arrival at the probe */
	uint8_t *pend;      /* packet_count x packet_size */
	size_t *pend_len;
	uint64_t *pend_sent; /* the host's clock when it sent the frame (ps) */
	uint64_t *pend_at;   /* the board cycle at which it reaches the probe */
	unsigned pend_head, npend;
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
	s->npend = 0;
	s->pend_head = 0;
}

static xb_dap_server *dap_socket_new(xb_dap *d)
{
	xb_dap_server *s = xcalloc(1, sizeof *s);
	s->dap = d;
	s->listen_fd = -1;
	s->client_fd = -1;
	s->in_cap = FRAME_HEADER + dap_config(d)->packet_size;
	s->in = xmalloc(s->in_cap);
	size_t n = dap_config(d)->packet_count;
	s->pend = xmalloc(n * dap_config(d)->packet_size);
	s->pend_len = xcalloc(n, sizeof *s->pend_len);
	s->pend_sent = xcalloc(n, sizeof *s->pend_sent);
	s->pend_at = xcalloc(n, sizeof *s->pend_at);
	return s;
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
	xb_dap_server *s = dap_socket_new(d);
	s->path = xstrdup(path);
	s->listen_fd = fd;
	return s;
}

int dap_socket_adopt_fd(xb_dap_server *s, int fd)
{
	dap_socket_drop(s);
	int flags = fd >= 0 ? fcntl(fd, F_GETFL) : -1;
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	s->client_fd = fd;
	return 0;
}

xb_dap_server *dap_socket_adopt(int fd, xb_dap *d)
{
	xb_dap_server *s = dap_socket_new(d);
	dap_socket_adopt_fd(s, fd);
	return s;
}

void dap_socket_set_paced(xb_dap_server *s, int paced)
{
	s->paced = paced != 0;
}

uint64_t dap_socket_next_due(const xb_dap_server *s)
{
	uint64_t at = 0;
	if (!s->paced || s->client_fd < 0)
		return 0;
	dap_peek_response(s->dap, &at);
	if (s->npend && (at == 0 || s->pend_at[s->pend_head] < at))
		at = s->pend_at[s->pend_head];
	return at;
}

void dap_socket_drop_client(xb_dap_server *s)
{
	dap_socket_drop(s);
}

void dap_socket_close(xb_dap_server *s)
{
	if (!s)
		return;
	dap_socket_drop(s);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	if (s->path)
		unlink(s->path);
	free(s->path);
	free(s->in);
	free(s->out);
	free(s->pend);
	free(s->pend_len);
	free(s->pend_sent);
	free(s->pend_at);
	free(s);
}

int dap_socket_connected(const xb_dap_server *s)
{
	return s->client_fd >= 0;
}

int dap_socket_pollfds(const xb_dap_server *s, struct pollfd *fds, int max)
{
	int n = 0;
	if (s->listen_fd >= 0 && n < max)
		fds[n++] = (struct pollfd){.fd = s->listen_fd, .events = POLLIN};
	if (s->client_fd >= 0 && n < max) {
		/* a full input buffer is a frame waiting for room in the probe (paced) */
		short ev = s->out_len < OUT_LIMIT && s->in_len < s->in_cap ? POLLIN : 0;
		if (s->out_len)
			ev |= POLLOUT;
		fds[n++] = (struct pollfd){.fd = s->client_fd, .events = ev};
	}
	return n;
}

/* Whether the client closed its end, even with requests still unread: a new host that
 * connects right after the last one went away is not turned away for it. */
static int dap_socket_client_gone(const xb_dap_server *s)
{
	struct pollfd p = {.fd = s->client_fd, .events = POLLRDHUP};
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
}

static int dap_socket_accept(xb_dap_server *s, xb_err *err)
{
	while (s->listen_fd >= 0) {
		int fd = accept4(s->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
			    errno == ECONNABORTED)
				return 0;
			return xb_fail(err, "%s: accept: %s", s->path, strerror(errno));
		}
		if (s->client_fd >= 0 && dap_socket_client_gone(s))
			dap_socket_drop(s);
		if (s->client_fd >= 0) {
			close(fd); /* one host at a time, as with a USB probe */
			continue;
		}
		s->client_fd = fd;
		s->in_len = 0;
		s->out_len = 0;
	}
	return 0;
}

static void dap_socket_queue(xb_dap_server *s, const uint8_t *resp, size_t len)
{
	xb_grow(&s->out, &s->out_cap, s->out_len + FRAME_HEADER + len, 1);
	s->out[s->out_len++] = (uint8_t)len;
	s->out[s->out_len++] = (uint8_t)(len >> 8);
	memcpy(s->out + s->out_len, resp, len);
	s->out_len += len;
}

/* Paced mode: the responses whose arrival the board has reached, in order. */
static void dap_socket_release(xb_dap_server *s)
{
	uint64_t at;
	uint8_t resp[1024];
	size_t rlen;
	while (dap_peek_response(s->dap, &at) && board_cycles(s->dap->board) >= at &&
	       dap_collect(s->dap, resp, sizeof resp, &rlen, NULL))
		dap_socket_queue(s, resp, rlen);
}

/* Paced mode: the host sends a frame when it is read, at max(its clock, the board's time):
 * the board runs paced to the wall clock, so the host cannot get ahead of it by sending
 * fast. Returns the send time (ps). */
static uint64_t dap_socket_send_time(xb_dap_server *s)
{
	xb_dap *d = s->dap;
	uint64_t board_ps = dap_cycles_to_ps(d, board_cycles(d->board));
	if (d->host_ps < board_ps)
		d->host_ps = board_ps;
	return d->host_ps;
}

/* Paced mode: holds a frame until the board reaches its arrival at the probe. */
static void dap_socket_hold(xb_dap_server *s, const uint8_t *frame, size_t len)
{
	const xb_dap_config *c = dap_config(s->dap);
	unsigned slot = (s->pend_head + s->npend++) % c->packet_count;
	memcpy(s->pend + (size_t)slot * c->packet_size, frame, len);
	s->pend_len[slot] = len;
	s->pend_sent[slot] = dap_socket_send_time(s);
	s->pend_at[slot] = dap_ps_to_cycles(s->dap, s->pend_sent[slot] + c->usb_out_ns * 1000ull);
}

/* Paced mode: plays the held frames the board has reached (so the probe's own runs of the
 * board, to the time of each memory access, go no further than one packet's work ahead of
 * the pacer); returns packets played, -1 to drop. */
static int dap_socket_play(xb_dap_server *s)
{
	const xb_dap_config *c = dap_config(s->dap);
	int packets = 0;
	while (s->npend && board_cycles(s->dap->board) >= s->pend_at[s->pend_head]) {
		unsigned slot = s->pend_head;
		if (dap_submit_sent(s->dap, s->pend + (size_t)slot * c->packet_size,
				    s->pend_len[slot], s->pend_sent[slot], NULL))
			return -1;
		s->pend_head = (slot + 1) % c->packet_count;
		s->npend--;
		packets++;
	}
	return packets;
}

/* Runs (paced: holds) every complete frame in the input buffer; returns packets run, -1
 * to drop. */
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
		if (s->paced) {
			/* the probe holds packet_count at most: the frame waits in the buffer */
			if (s->npend + dap_in_flight(s->dap) >= dap_config(s->dap)->packet_count)
				break;
			dap_socket_hold(s, s->in + pos + FRAME_HEADER, len);
			pos += FRAME_HEADER + len;
			continue;
		}
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

/* Paced mode: what the board's time allows now: responses out, held frames played, and
 * frames that waited in the buffer for room taken in. Returns packets played, -1 to
 * drop. */
static int dap_socket_paced_step(xb_dap_server *s)
{
	int packets = 0;
	for (;;) {
		dap_socket_release(s);
		int n = dap_socket_play(s);
		if (n < 0 || dap_socket_frames(s) < 0)
			return -1;
		if (n == 0)
			return packets;
		packets += n;
	}
}

int dap_socket_advance(xb_dap_server *s)
{
	if (!s->paced || s->client_fd < 0)
		return 0;
	int n = dap_socket_paced_step(s);
	if (n < 0) {
		dap_socket_drop(s);
		return 0;
	}
	return n;
}

int dap_socket_service(xb_dap_server *s, xb_err *err)
{
	int packets = 0;
	if (dap_socket_accept(s, err))
		return -1;
	if (s->client_fd < 0)
		return 0;
	if (s->paced && (packets = dap_socket_paced_step(s)) < 0) {
		dap_socket_drop(s);
		return 0;
	}
	while (s->out_len < OUT_LIMIT && s->client_fd >= 0 && s->in_len < s->in_cap) {
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
	if (s->paced) {
		int n = dap_socket_paced_step(s); /* frames that arrive at once (no USB delay) */
		if (n < 0) {
			dap_socket_drop(s);
			return packets;
		}
		packets += n;
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
