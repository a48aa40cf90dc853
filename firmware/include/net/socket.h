/* socket.h: BSD-style sockets over the network stack (UDP, raw IPv4). Calls return -1 and
 * leave the reason in the calling thread's socket errno (sock_errno()), like POSIX. */
#ifndef NET_SOCKET_H
#define NET_SOCKET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/time.h>
#include <sys/types.h>

#include "net/net_ip.h"

#define SOCK_MAX_FDS 8

#define POLLIN 0x01
#define POLLOUT 0x04
#define POLLERR 0x08
#define POLLHUP 0x10
#define POLLNVAL 0x20

#define MSG_PEEK 0x02     /* leave the datagram queued */
#define MSG_CTRUNC 0x08   /* recvmsg: some ancillary data did not fit */
#define MSG_TRUNC 0x20    /* return the datagram's real length, even if longer than buf */
#define MSG_DONTWAIT 0x40
#define MSG_ERRQUEUE 0x2000 /* recvmsg: read the error queue (transmit timestamps) */

#define SOL_SOCKET 1
#define SO_TYPE 3
#define SO_ERROR 4
#define SO_BROADCAST 6
#define SO_RCVBUF 8 /* bytes of datagrams a socket may hold unread (0: only the count limit) */
#define SO_PRIORITY 12
#define SO_RCVTIMEO 20
#define SO_SNDTIMEO 21
#define SO_TIMESTAMP 29 /* recvmsg: the time of reception (SCM_TIMESTAMP, struct timeval) */
#define SCM_TIMESTAMP SO_TIMESTAMP
/* SO_TIMESTAMPING (an int32_t of SOF_TIMESTAMPING_* flags): software timestamps of received
 * datagrams (SCM_TIMESTAMPING with recvmsg) and of sent ones, reported on the error queue
 * when the device has sent them (recvmsg with MSG_ERRQUEUE; poll says POLLERR). */
#define SO_TIMESTAMPING 37
#define SCM_TIMESTAMPING SO_TIMESTAMPING
#define SOF_TIMESTAMPING_TX_SOFTWARE 0x0002
#define SOF_TIMESTAMPING_RX_SOFTWARE 0x0008
#define SOF_TIMESTAMPING_SOFTWARE 0x0010   /* report software timestamps */
#define SOF_TIMESTAMPING_OPT_ID 0x0080     /* number the sent datagrams (ee_data) */
#define SOF_TIMESTAMPING_OPT_TSONLY 0x0800 /* the error queue holds no data, only the time */
#define IP_TOS 1
#define IP_TTL 2
#define IP_PKTINFO 8 /* recvmsg: where a datagram went; sendmsg: where to send from */
#define IP_RECVERR 11 /* the error queue's ancillary record (struct sock_extended_err) */
#define IP_MULTICAST_TTL 33
#define IP_ADD_MEMBERSHIP 35
#define IP_DROP_MEMBERSHIP 36

/* IP_ADD_MEMBERSHIP / IP_DROP_MEMBERSHIP (level IPPROTO_IP). */
struct ip_mreqn {
	struct in_addr imr_multiaddr;
	struct in_addr imr_address; /* the interface by address (or INADDR_ANY) */
	int imr_ifindex;            /* the interface by number (1-based; 0: any) */
};

/* IP_PKTINFO ancillary data (level IPPROTO_IP). */
struct in_pktinfo {
	int ipi_ifindex;              /* the interface (1-based) */
	struct in_addr ipi_spec_dst;  /* received: the local address to answer from; sent: the
				       * source address to use */
	struct in_addr ipi_addr;      /* received: the header's destination address */
};

/* SCM_TIMESTAMPING: ts[0] the software timestamp (ts[1], ts[2]: hardware, unused). */
struct scm_timestamping {
	struct timespec ts[3];
};

/* IP_RECVERR record of the error queue: for a transmit timestamp ee_errno is ENOMSG,
 * ee_origin SO_EE_ORIGIN_TIMESTAMPING, ee_info SCM_TSTAMP_SND and ee_data the datagram's
 * number (SOF_TIMESTAMPING_OPT_ID: 0 for the first sent after enabling). */
struct sock_extended_err {
	uint32_t ee_errno;
	uint8_t ee_origin;
	uint8_t ee_type;
	uint8_t ee_code;
	uint8_t ee_pad;
	uint32_t ee_info;
	uint32_t ee_data;
};
#define SO_EE_ORIGIN_TIMESTAMPING 4
#define SCM_TSTAMP_SND 0

/* sendmsg / recvmsg */
struct msghdr {
	void *msg_name; /* struct sockaddr_in */
	socklen_t msg_namelen;
	struct iovec *msg_iov;
	size_t msg_iovlen;
	void *msg_control; /* ancillary data: cmsghdr records */
	size_t msg_controllen;
	int msg_flags; /* recvmsg: MSG_TRUNC, MSG_CTRUNC */
};

struct cmsghdr {
	size_t cmsg_len; /* CMSG_LEN(bytes of data) */
	int cmsg_level;
	int cmsg_type;
};

#define CMSG_ALIGN(len) (((len) + sizeof(size_t) - 1) & ~(sizeof(size_t) - 1))
#define CMSG_SPACE(len) (CMSG_ALIGN(sizeof(struct cmsghdr)) + CMSG_ALIGN(len))
#define CMSG_LEN(len) (CMSG_ALIGN(sizeof(struct cmsghdr)) + (len))
#define CMSG_DATA(c) ((unsigned char *)(c) + CMSG_ALIGN(sizeof(struct cmsghdr)))
#define CMSG_FIRSTHDR(m) \
	((m)->msg_controllen >= sizeof(struct cmsghdr) ? (struct cmsghdr *)(m)->msg_control : NULL)
#define CMSG_NXTHDR(m, c) zsock_cmsg_nxthdr((m), (c))

static inline struct cmsghdr *zsock_cmsg_nxthdr(const struct msghdr *m, const struct cmsghdr *c)
{
	const unsigned char *next = (const unsigned char *)c + CMSG_ALIGN(c->cmsg_len);
	const unsigned char *end = (const unsigned char *)m->msg_control + m->msg_controllen;
	if (c->cmsg_len < sizeof(struct cmsghdr) || next + sizeof(struct cmsghdr) > end)
		return NULL;
	return (struct cmsghdr *)(void *)next;
}

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
/* With ancillary data: IP_PKTINFO and SCM_TIMESTAMP in, IP_PKTINFO out (the source
 * address and interface of the datagram). */
ssize_t zsock_recvmsg(int sock, struct msghdr *msg, int flags);
ssize_t zsock_sendmsg(int sock, const struct msghdr *msg, int flags);
/* timeout in ms, -1 forever. Returns the number of ready descriptors, 0 on timeout. */
int zsock_poll(struct pollfd *fds, int nfds, int timeout);
/* An event descriptor (eventfd): a counter that poll reports readable (POLLIN) while it is
 * not zero. Write adds to it, read returns it and sets it to 0 (-1 with EAGAIN when it is
 * 0: reads never block). Closed with zsock_close. */
int zsock_eventfd(uint32_t initval);
int zsock_eventfd_read(int fd, uint32_t *value);
int zsock_eventfd_write(int fd, uint32_t value);
/* SO_RCVTIMEO and SO_SNDTIMEO take an int32_t of milliseconds (-1: forever);
 * SO_BROADCAST, SO_PRIORITY (0..7), SO_RCVBUF, SO_TIMESTAMP, SO_TIMESTAMPING, IP_TTL,
 * IP_MULTICAST_TTL and IP_PKTINFO an int32_t;
 * IP_ADD_MEMBERSHIP and IP_DROP_MEMBERSHIP a struct ip_mreqn. */
int zsock_setsockopt(int sock, int level, int optname, const void *optval, socklen_t optlen);
/* The same options as int32_t values, plus SO_TYPE and SO_ERROR. */
int zsock_getsockopt(int sock, int level, int optname, void *optval, socklen_t *optlen);
int zsock_close(int sock);
/* The errno of the calling thread's last failed socket call. */
int sock_errno(void);

#endif
