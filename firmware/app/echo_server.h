/* echo_server.h: the echo service: UDP echo (RFC 862) on port 7 through the socket API,
 * and a watch on the pings the stack answers (a raw ICMP socket), with per-client counts. */
#ifndef APP_ECHO_SERVER_H
#define APP_ECHO_SERVER_H

#include <stdint.h>

/* Opens the sockets and registers them with the socket service. */
void echo_server_start(void);

#define ECHO_MAX_CLIENTS 4

enum echo_kind { ECHO_UDP, ECHO_PING };

/* What the server knows of one client: a UDP peer (address and port) or a pinging host
 * (address and ICMP identifier), both in network order. */
struct echo_client {
	uint32_t addr;
	uint16_t port; /* UDP: the source port; ping: the ICMP identifier */
	uint8_t kind;  /* enum echo_kind */
	uint32_t datagrams, bytes;
	uint16_t last_seq; /* ping: the last sequence number seen */
	uint32_t seq_gaps; /* ping: sequence numbers that never came (lost or reordered) */
	uint32_t last_ms;
	/* Time from the driver's reception to the server (SO_TIMESTAMP / SO_TIMESTAMPING). */
	uint32_t stack_us_sum, stack_us_max;
	/* UDP: time from the request's reception in the driver to the reply having left the
	 * device (transmit timestamps, SO_TIMESTAMPING). */
	uint32_t turnarounds, turnaround_us_sum, turnaround_us_max;
};

struct echo_server_stats {
	uint32_t datagrams, bytes, send_errors, recv_errors;
	uint32_t pings, ping_bytes, truncated;
	uint32_t tx_timestamps, tx_timestamps_unmatched;
	uint32_t clients_seen; /* distinct clients, evictions included */
	struct echo_client clients[ECHO_MAX_CLIENTS]; /* the most recent ones */
};
void echo_server_stats_get(struct echo_server_stats *s);
/* Prints the statistics and the client table to the console. */
void echo_server_stats_print(void);

#endif
