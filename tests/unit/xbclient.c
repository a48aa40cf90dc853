/* xbclient: a small client for the `xipbench sim serve` tests (tests/integration/
 * test_sim_traffic.sh compiles it with the host compiler; not a cmocka test).
 *   xbclient udp PORT TEXT [TRIES [WAIT_MS]]  send TEXT to 127.0.0.1:PORT until the same
 *                                             text comes back (exit 0) or TRIES run out
 *   xbclient dap PATH                         DAP_Info (vendor, product, packet size) over
 *                                             the probe socket, framed by 2-byte LE lengths
 * Prints what it received. */
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int udp_echo(int port, const char *text, int tries, int wait_ms)
{
	int fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0) {
		perror("socket");
		return 2;
	}
	struct sockaddr_in to;
	memset(&to, 0, sizeof to);
	to.sin_family = AF_INET;
	to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	to.sin_port = htons((uint16_t)port);
	size_t len = strlen(text);
	for (int i = 0; i < tries; i++) {
		if (sendto(fd, text, len, 0, (struct sockaddr *)&to, sizeof to) != (ssize_t)len) {
			perror("sendto");
			return 2;
		}
		struct pollfd p = {.fd = fd, .events = POLLIN};
		while (poll(&p, 1, wait_ms) == 1) {
			char buf[2048];
			ssize_t n = recv(fd, buf, sizeof buf - 1, 0);
			if (n < 0)
				break;
			buf[n] = 0;
			printf("reply after %d tries: %s\n", i + 1, buf);
			if ((size_t)n == len && memcmp(buf, text, len) == 0)
				return 0;
		}
	}
	printf("no reply after %d tries\n", tries);
	return 1;
}

static int read_all(int fd, unsigned char *buf, size_t n)
{
	for (size_t got = 0; got < n;) {
		struct pollfd p = {.fd = fd, .events = POLLIN};
		if (poll(&p, 1, 5000) != 1)
			return -1;
		ssize_t r = read(fd, buf + got, n - got);
		if (r <= 0)
			return -1;
		got += (size_t)r;
	}
	return 0;
}

/* One DAP_Info request; the answer's data (after the command and length bytes). */
static int dap_info(int fd, unsigned id, unsigned char *out, size_t *olen)
{
	unsigned char req[4] = {2, 0, 0x00, (unsigned char)id};
	if (write(fd, req, 4) != 4)
		return -1;
	unsigned char hdr[2], resp[1024];
	if (read_all(fd, hdr, 2))
		return -1;
	size_t n = hdr[0] | (size_t)hdr[1] << 8;
	if (n < 2 || n > sizeof resp || read_all(fd, resp, n) || resp[0] != 0x00)
		return -1;
	*olen = resp[1];
	if (*olen > n - 2)
		return -1;
	memcpy(out, resp + 2, *olen);
	return 0;
}

static int dap(const char *path)
{
	struct sockaddr_un a;
	memset(&a, 0, sizeof a);
	a.sun_family = AF_UNIX;
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	int fd = -1;
	for (int i = 0; i < 100; i++) { /* the server may still be starting */
		fd = socket(AF_UNIX, SOCK_STREAM, 0);
		if (connect(fd, (struct sockaddr *)&a, sizeof a) == 0)
			break;
		close(fd);
		fd = -1;
		struct timespec ts = {0, 20000000};
		nanosleep(&ts, NULL);
	}
	if (fd < 0) {
		fprintf(stderr, "%s: cannot connect\n", path);
		return 2;
	}
	unsigned char v[256];
	size_t n;
	if (dap_info(fd, 0x01, v, &n)) {
		fprintf(stderr, "DAP_Info vendor: no valid answer\n");
		return 1;
	}
	printf("vendor %.*s\n", (int)n, (const char *)v);
	if (dap_info(fd, 0x02, v, &n)) {
		fprintf(stderr, "DAP_Info product: no valid answer\n");
		return 1;
	}
	printf("product %.*s\n", (int)n, (const char *)v);
	if (dap_info(fd, 0xFF, v, &n) || n != 2) {
		fprintf(stderr, "DAP_Info packet size: no valid answer\n");
		return 1;
	}
	printf("packet size %u\n", v[0] | v[1] << 8);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && strcmp(argv[1], "udp") == 0)
		return udp_echo(atoi(argv[2]), argv[3], argc > 4 ? atoi(argv[4]) : 10,
				argc > 5 ? atoi(argv[5]) : 200);
	if (argc == 3 && strcmp(argv[1], "dap") == 0)
		return dap(argv[2]);
	fprintf(stderr, "usage: xbclient udp PORT TEXT [TRIES [WAIT_MS]] | xbclient dap PATH\n");
	return 2;
}
