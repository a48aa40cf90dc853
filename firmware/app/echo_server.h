/* echo_server.h: the UDP echo service (RFC 862) on port 7, through the socket API. */
#ifndef APP_ECHO_SERVER_H
#define APP_ECHO_SERVER_H

#include <stdint.h>

/* Starts the server thread. */
void echo_server_start(void);

#define ECHO_MAX_CLIENTS 4

/* What the server knows of one client (address and port in network order). */
struct echo_client {
	uint32_t addr;
	uint16_t port;
	uint32_t datagrams, bytes;
	uint32_t last_ms;
};

struct echo_server_stats {
	uint32_t datagrams, bytes, send_errors, recv_errors, idle_polls;
	uint32_t clients_seen; /* distinct clients, evictions included */
	struct echo_client clients[ECHO_MAX_CLIENTS]; /* the most recent ones */
};
void echo_server_stats_get(struct echo_server_stats *s);
/* Prints the statistics and the client table to the console. */
void echo_server_stats_print(void);

#endif
