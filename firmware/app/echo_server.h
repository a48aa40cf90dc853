/* echo_server.h: the UDP echo service (RFC 862) on port 7, through the socket API. */
#ifndef APP_ECHO_SERVER_H
#define APP_ECHO_SERVER_H

#include <stdint.h>

/* Starts the server thread. */
void echo_server_start(void);

struct echo_server_stats {
	uint32_t datagrams, bytes, send_errors, recv_errors, idle_polls;
};
void echo_server_stats_get(struct echo_server_stats *s);

#endif
