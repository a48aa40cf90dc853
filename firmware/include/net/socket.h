/* socket.h: BSD-style sockets over the network stack (UDP). Calls return -1 and leave the
 * reason in the calling thread's socket errno (sock_errno()), like POSIX. */
#ifndef NET_SOCKET_H
#define NET_SOCKET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "net/net_ip.h"

#define SOCK_MAX_FDS 8

#define POLLIN 0x01
#define POLLOUT 0x04
#define POLLERR 0x08
#define POLLHUP 0x10
#define POLLNVAL 0x20

#define MSG_PEEK 0x02     /* leave the datagram queued */
#define MSG_TRUNC 0x20    /* return the datagram's real length, even if longer than buf */
#define MSG_DONTWAIT 0x40

#define SOL_SOCKET 1
#define SO_TYPE 3
#define SO_ERROR 4
#define SO_BROADCAST 6
#define SO_PRIORITY 12
#define SO_RCVTIMEO 20
#define SO_SNDTIMEO 21
#define IP_TOS 1
#define IP_TTL 2
#define IP_MULTICAST_TTL 33
#define IP_ADD_MEMBERSHIP 35
#define IP_DROP_MEMBERSHIP 36

/* IP_ADD_MEMBERSHIP / IP_DROP_MEMBERSHIP (level IPPROTO_IP). */
struct ip_mreqn {
	struct in_addr imr_multiaddr;
	struct in_addr imr_address; /* the interface by address (or INADDR_ANY) */
	int imr_ifindex;            /* the interface by number (1-based; 0: any) */
};

struct pollfd {
	int fd;
	short events;
	short revents;
};

int zsock_socket(int family, int type, int proto);
int zsock_bind(int sock, const struct sockaddr *addr, socklen_t addrlen);
/* A datagram socket's default peer: send() goes there, only its datagrams arrive. */
int zsock_connect(int sock, const struct sockaddr *addr, socklen_t addrlen);
int zsock_getsockname(int sock, struct sockaddr *addr, socklen_t *addrlen);
ssize_t zsock_send(int sock, const void *buf, size_t len, int flags);
ssize_t zsock_recv(int sock, void *buf, size_t max_len, int flags);
ssize_t zsock_sendto(int sock, const void *buf, size_t len, int flags,
		     const struct sockaddr *dest_addr, socklen_t addrlen);
ssize_t zsock_recvfrom(int sock, void *buf, size_t max_len, int flags, struct sockaddr *src_addr,
		       socklen_t *addrlen);
/* timeout in ms, -1 forever. Returns the number of ready descriptors, 0 on timeout. */
int zsock_poll(struct pollfd *fds, int nfds, int timeout);
/* SO_RCVTIMEO and SO_SNDTIMEO take an int32_t of milliseconds (-1: forever);
 * SO_BROADCAST, SO_PRIORITY (0..7), IP_TTL and IP_MULTICAST_TTL an int32_t;
 * IP_ADD_MEMBERSHIP and IP_DROP_MEMBERSHIP a struct ip_mreqn. */
int zsock_setsockopt(int sock, int level, int optname, const void *optval, socklen_t optlen);
/* The same options as int32_t values, plus SO_TYPE and SO_ERROR. */
int zsock_getsockopt(int sock, int level, int optname, void *optval, socklen_t *optlen);
int zsock_close(int sock);
/* The errno of the calling thread's last failed socket call. */
int sock_errno(void);

#endif
