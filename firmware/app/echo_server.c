/* echo_server.c: the UDP echo server thread: poll, recvfrom, sendto back to the sender. */
#include "config.h"
#include "echo_server.h"
#include "kernel/kernel.h"
#include "net/socket.h"
#include <string.h>

#include "drivers/console.h"
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

/* The client's entry: found, or a new one in place of the least recently seen. */
static struct echo_client *echo_client_get(const struct sockaddr_in *from)
{
	struct echo_client *oldest = &stats.clients[0];
	uint32_t now = k_uptime_get_32();
	for (int i = 0; i < ECHO_MAX_CLIENTS; i++) {
		struct echo_client *c = &stats.clients[i];
		if (c->datagrams && c->addr == from->sin_addr.s_addr && c->port == from->sin_port)
			return c;
		if (!c->datagrams || (int32_t)(c->last_ms - oldest->last_ms) < 0)
			oldest = c;
	}
	LOG_DBG("new client, port %u", ntohs(from->sin_port));
	memset(oldest, 0, sizeof(*oldest));
	oldest->addr = from->sin_addr.s_addr;
	oldest->port = from->sin_port;
	oldest->last_ms = now;
	stats.clients_seen++;
	return oldest;
}

static void echo_client_count(const struct sockaddr_in *from, size_t len)
{
	struct echo_client *c = echo_client_get(from);
	c->datagrams++;
	c->bytes += (uint32_t)len;
	c->last_ms = k_uptime_get_32();
}

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
	echo_client_count(&client, (size_t)len);
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

void echo_server_stats_print(void)
{
	printk("echo: %u datagrams, %u bytes, %u send errors, %u receive errors, %u clients\r\n",
	       (unsigned)stats.datagrams, (unsigned)stats.bytes, (unsigned)stats.send_errors,
	       (unsigned)stats.recv_errors, (unsigned)stats.clients_seen);
	for (int i = 0; i < ECHO_MAX_CLIENTS; i++) {
		const struct echo_client *c = &stats.clients[i];
		if (!c->datagrams)
			continue;
		struct in_addr a = {.s_addr = c->addr};
		char buf[16];
		printk("  %s:%u %u datagrams %u bytes, last at %u ms\r\n", net_addr_ntop(&a, buf),
		       ntohs(c->port), (unsigned)c->datagrams, (unsigned)c->bytes,
		       (unsigned)c->last_ms);
	}
}
