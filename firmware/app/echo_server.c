/* echo_server.c: the UDP echo server thread: poll, recvfrom, sendto back to the sender. */
#include "config.h"
#include "echo_server.h"
#include "kernel/kernel.h"
#include "net/socket.h"
#include "sys/log.h"

LOG_MODULE_REGISTER(echo, LOG_LEVEL_INF);

#define ECHO_STACK_SIZE 2048
#define ECHO_PRIO 7
#define ECHO_POLL_TIMEOUT_MS 1000
#define ECHO_MAX_DATAGRAM 1472 /* the largest UDP payload in one 1500-byte IPv4 packet */

static struct k_thread echo_thread;
static K_THREAD_STACK_DEFINE(echo_stack, ECHO_STACK_SIZE);
static uint8_t echo_buf[ECHO_MAX_DATAGRAM];
static struct echo_server_stats stats;

static int echo_open(void)
{
	int sock = zsock_socket(AF_INET, SOCK_DGRAM, IPPROTO_UDP);
	if (sock < 0) {
		LOG_ERR("socket: %d", sock_errno());
		return -1;
	}
	struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons(ECHO_UDP_PORT)};
	if (zsock_bind(sock, (struct sockaddr *)&addr, sizeof(addr)) < 0) {
		LOG_ERR("bind: %d", sock_errno());
		zsock_close(sock);
		return -1;
	}
	return sock;
}

static void echo_one(int sock)
{
	struct sockaddr_in client;
	socklen_t client_len = sizeof(client);
	ssize_t len = zsock_recvfrom(sock, echo_buf, sizeof(echo_buf), MSG_DONTWAIT,
				     (struct sockaddr *)&client, &client_len);
	if (len < 0) {
		if (sock_errno() != EAGAIN) {
			stats.recv_errors++;
			LOG_WRN("recvfrom: %d", sock_errno());
		}
		return;
	}
	LOG_DBG("%d bytes from port %u", (int)len, ntohs(client.sin_port));
	if (zsock_sendto(sock, echo_buf, (size_t)len, 0, (struct sockaddr *)&client,
			 client_len) < 0) {
		stats.send_errors++;
		LOG_DBG("sendto: %d", sock_errno());
		return;
	}
	stats.datagrams++;
	stats.bytes += (uint32_t)len;
}

static void echo_main(void *p1, void *p2, void *p3)
{
	UNUSED(p1);
	UNUSED(p2);
	UNUSED(p3);
	int sock = echo_open();
	if (sock < 0)
		return;
	LOG_INF("UDP echo on port %u", ECHO_UDP_PORT);
	struct pollfd pfd = {.fd = sock, .events = POLLIN};
	for (;;) {
		int n = zsock_poll(&pfd, 1, ECHO_POLL_TIMEOUT_MS);
		if (n < 0) {
			LOG_ERR("poll: %d", sock_errno());
			k_msleep(100);
			continue;
		}
		if (n == 0) {
			stats.idle_polls++;
			continue;
		}
		if (pfd.revents & POLLIN)
			echo_one(sock);
	}
}

void echo_server_start(void)
{
	k_thread_create(&echo_thread, echo_stack, sizeof(echo_stack), echo_main, NULL, NULL, NULL,
			ECHO_PRIO, "echo");
}

void echo_server_stats_get(struct echo_server_stats *s)
{
	*s = stats;
}
