/* tap: the virtual host's Ethernet on a TAP interface in a network namespace (see tap.h):
 * namespaces, the interface, and the port that moves frames between a descriptor and the
 * network peer's wire in board events. */
#include "tap.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/if_tun.h>
#include <linux/nsfs.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <netinet/in.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define TAP_NETNS_DIR "/run/netns"
/* The initial network namespace's inode number on kernels that fix it (uapi/linux/nsfs.h
 * NET_NS_INIT_INO, Linux 6.18); dynamic numbers start at 0xF0000000, so no other
 * namespace has it on older kernels. */
#define TAP_NET_NS_INIT_INO 0xEFFFFFF9u
#define TAP_FRAMES_PER_POLL 256u /* frames taken from the descriptor in one board event */

/* ---- Network namespaces ---- */

int tap_netns_path(const char *ns, char *out, size_t cap)
{
	int n = strchr(ns, '/') ? snprintf(out, cap, "%s", ns)
				: snprintf(out, cap, TAP_NETNS_DIR "/%s", ns);
	return n < 0 || (size_t)n >= cap ? -1 : 0;
}

/* A namespace name `ip netns` accepts: no '/', not "." or "..", not empty. */
static int netns_name_ok(const char *name)
{
	return *name && !strchr(name, '/') && strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
	       strlen(name) < 200;
}

int tap_netns_open(const char *ns, int *fd, xb_err *err)
{
	char path[512];
	if (!*ns || tap_netns_path(ns, path, sizeof path))
		return xb_fail(err, "'%s' is not a network namespace name or path", ns);
	int f = open(path, O_RDONLY | O_CLOEXEC);
	if (f < 0) {
		if (errno == ENOENT)
			return xb_fail(err, "network namespace %s does not exist (%s): create it with "
				       "`ip netns add %s`, or let xipbench make one (--netns-create)",
				       ns, path, ns);
		return xb_fail(err, "network namespace %s: %s: %s", ns, path, strerror(errno));
	}
	int type = ioctl(f, NS_GET_NSTYPE);
	if (type != CLONE_NEWNET) {
		close(f);
		return xb_fail(err, "%s is not a network namespace%s", path,
			       type < 0 ? " (not a namespace file: `ip netns add NAME` makes one)" : "");
	}
	/* The initial namespace: PID 1's when it may be looked at, else the one with the fixed
	 * inode number; when neither can tell, the one this process runs in is refused too. */
	struct stat mine, init, self;
	int initial = 0, own = 0;
	if (fstat(f, &mine) != 0) {
		int e = errno;
		close(f);
		return xb_fail(err, "network namespace %s: %s", ns, strerror(e));
	}
	if (stat("/proc/1/ns/net", &init) == 0)
		initial = mine.st_dev == init.st_dev && mine.st_ino == init.st_ino;
	else if (mine.st_ino == TAP_NET_NS_INIT_INO)
		initial = 1;
	else if (stat("/proc/thread-self/ns/net", &self) == 0)
		own = mine.st_dev == self.st_dev && mine.st_ino == self.st_ino;
	if (initial || own) {
		close(f);
		return xb_fail(err, "%s is %s: the TAP goes only into a namespace made for it (`ip "
			       "netns add NAME`, or --netns-create)", ns,
			       initial ? "the initial network namespace (the host's own)"
				       : "the network namespace xipbench runs in (maybe the host's own)");
	}
	*fd = f;
	return 0;
}

/* /run/netns as a shared mount point of its own, as iproute2 makes it, so that the bind
 * mounts below reach every mount namespace. */
static int netns_dir_ready(xb_err *err)
{
	if (mkdir(TAP_NETNS_DIR, 0755) != 0 && errno != EEXIST)
		return xb_fail(err, "%s: %s", TAP_NETNS_DIR, strerror(errno));
	if (mount("", TAP_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) == 0)
		return 0;
	if (errno != EINVAL)
		return xb_fail(err, "%s: cannot make it a shared mount: %s%s", TAP_NETNS_DIR,
			       strerror(errno), errno == EPERM ? " (run as root)" : "");
	/* not a mount point yet */
	if (mount(TAP_NETNS_DIR, TAP_NETNS_DIR, "none", MS_BIND | MS_REC, NULL) != 0 ||
	    mount("", TAP_NETNS_DIR, "none", MS_SHARED | MS_REC, NULL) != 0)
		return xb_fail(err, "%s: cannot make it a shared mount: %s", TAP_NETNS_DIR,
			       strerror(errno));
	return 0;
}

int tap_netns_create(const char *name, xb_err *err)
{
	if (!netns_name_ok(name))
		return xb_fail(err, "'%s' is not a network namespace name", name);
	char path[512];
	tap_netns_path(name, path, sizeof path);
	if (netns_dir_ready(err))
		return -1;
	int f = open(path, O_RDONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0);
	if (f < 0)
		return xb_fail(err, "network namespace %s: %s: %s", name, path,
			       errno == EEXIST ? "it exists already" : strerror(errno));
	close(f);
	/* a child makes the namespace and binds it to the file; this process stays where it is */
	pid_t pid = fork();
	if (pid == 0) {
		if (unshare(CLONE_NEWNET) != 0)
			_exit(1);
		if (mount("/proc/self/ns/net", path, "none", MS_BIND, NULL) != 0)
			_exit(2);
		_exit(0);
	}
	int status = 0;
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		int e = pid < 0 ? errno : 0;
		unlink(path);
		return xb_fail(err, "network namespace %s: %s", name,
			       e ? strerror(e)
			       : WIFEXITED(status) && WEXITSTATUS(status) == 1
				       ? "unshare(CLONE_NEWNET) failed (run as root)"
				       : "cannot bind it to its file");
	}
	return 0;
}

int tap_netns_delete(const char *name, xb_err *err)
{
	if (!netns_name_ok(name))
		return xb_fail(err, "'%s' is not a network namespace name", name);
	char path[512];
	tap_netns_path(name, path, sizeof path);
	if (umount2(path, MNT_DETACH) != 0 && errno != EINVAL && errno != ENOENT)
		return xb_fail(err, "network namespace %s: cannot unmount %s: %s", name, path,
			       strerror(errno));
	if (unlink(path) != 0 && errno != ENOENT)
		return xb_fail(err, "network namespace %s: cannot remove %s: %s", name, path,
			       strerror(errno));
	return 0;
}

/* ---- The interface ---- */

struct xb_tap {
	char name[IFNAMSIZ];
	int fd;   /* /dev/net/tun, bound to the interface */
	int ctl;  /* an AF_INET socket of the namespace, for the interface's ioctls */
	int link; /* the carrier as last set */
	uint8_t mac[6];
	int have_mac;
	xb_tap_stats stats;
};

static void ifreq_init(struct ifreq *r, const char *name)
{
	memset(r, 0, sizeof *r);
	snprintf(r->ifr_name, sizeof r->ifr_name, "%s", name);
}

static void ifr_inet(struct sockaddr *sa, const uint8_t ip[4])
{
	struct sockaddr_in a;
	memset(&a, 0, sizeof a);
	a.sin_family = AF_INET;
	memcpy(&a.sin_addr, ip, 4);
	memcpy(sa, &a, sizeof a);
}

/* Inside the namespace: the interface, its address, up. */
static int tap_make(xb_tap *t, const xb_tap_options *o, xb_err *err)
{
	if (if_nametoindex(o->name))
		return xb_fail(err, "an interface %s exists already in namespace %s", o->name, o->netns);
	t->fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (t->fd < 0)
		return xb_fail(err, "/dev/net/tun: %s%s", strerror(errno),
			       errno == ENOENT ? " (load the module: `sudo modprobe tun`)"
			       : errno == EACCES || errno == EPERM ? " (run as root)" : "");
	struct ifreq r;
	ifreq_init(&r, o->name);
	r.ifr_flags = IFF_TAP | IFF_NO_PI;
	if (ioctl(t->fd, TUNSETIFF, &r) != 0)
		return xb_fail(err, "TAP %s: %s%s", o->name, strerror(errno),
			       errno == EPERM ? " (making an interface needs CAP_NET_ADMIN: run as "
						"root)" : "");
	int off = 0;
	if (ioctl(t->fd, TUNSETCARRIER, &off) == 0)
		t->link = 0; /* until the device's link is up */
	else
		t->link = 1; /* an old kernel: the carrier stays on */
	t->ctl = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (t->ctl < 0)
		return xb_fail(err, "socket: %s", strerror(errno));
	if (!o->ipv6) {
		/* /proc/sys/net is the namespace of the thread that opens it */
		char path[128];
		snprintf(path, sizeof path, "/proc/sys/net/ipv6/conf/%s/disable_ipv6", o->name);
		int f = open(path, O_WRONLY | O_CLOEXEC);
		if (f >= 0) {
			if (write(f, "1\n", 2) != 2) {
				/* IPv6 stays on: only noise for the device */
			}
			close(f);
		}
	}
	uint8_t mask[4], bcast[4];
	uint32_t m = o->prefix ? 0xFFFFFFFFu << (32 - o->prefix) : 0;
	for (int i = 0; i < 4; i++) {
		mask[i] = (uint8_t)(m >> (24 - 8 * i));
		bcast[i] = (uint8_t)(o->ip[i] | ~mask[i]);
	}
	ifreq_init(&r, o->name);
	ifr_inet(&r.ifr_addr, o->ip);
	if (ioctl(t->ctl, SIOCSIFADDR, &r) != 0)
		return xb_fail(err, "TAP %s: cannot set its address: %s", o->name, strerror(errno));
	ifreq_init(&r, o->name);
	ifr_inet(&r.ifr_netmask, mask);
	if (ioctl(t->ctl, SIOCSIFNETMASK, &r) != 0)
		return xb_fail(err, "TAP %s: cannot set its netmask: %s", o->name, strerror(errno));
	ifreq_init(&r, o->name);
	ifr_inet(&r.ifr_broadaddr, bcast);
	if (ioctl(t->ctl, SIOCSIFBRDADDR, &r) != 0)
		return xb_fail(err, "TAP %s: cannot set its broadcast address: %s", o->name,
			       strerror(errno));
	ifreq_init(&r, o->name);
	if (ioctl(t->ctl, SIOCGIFFLAGS, &r) != 0)
		return xb_fail(err, "TAP %s: %s", o->name, strerror(errno));
	r.ifr_flags |= IFF_UP;
	if (ioctl(t->ctl, SIOCSIFFLAGS, &r) != 0)
		return xb_fail(err, "TAP %s: cannot bring it up: %s", o->name, strerror(errno));
	return 0;
}

xb_tap *tap_open(const xb_tap_options *o, xb_err *err)
{
	size_t nl = o->name ? strlen(o->name) : 0;
	if (!nl || nl >= IFNAMSIZ || strchr(o->name, '/') || strpbrk(o->name, " \t\n:") ||
	    strcmp(o->name, ".") == 0 || strcmp(o->name, "..") == 0) {
		xb_fail(err, "'%s' is not an interface name (1 to %d characters, no '/', ':' or "
			"spaces)", o->name ? o->name : "", IFNAMSIZ - 1);
		return NULL;
	}
	if (o->prefix < 1 || o->prefix > 30) {
		xb_fail(err, "prefix length /%u: 1 to 30 (the host and the device share the subnet)",
			o->prefix);
		return NULL;
	}
	if (!o->netns) {
		xb_fail(err, "the TAP needs a network namespace");
		return NULL;
	}
	int ns;
	if (tap_netns_open(o->netns, &ns, err))
		return NULL;
	int self = open("/proc/thread-self/ns/net", O_RDONLY | O_CLOEXEC);
	if (self < 0) {
		xb_fail(err, "/proc/thread-self/ns/net: %s", strerror(errno));
		close(ns);
		return NULL;
	}
	if (setns(ns, CLONE_NEWNET) != 0) {
		xb_fail(err, "cannot enter network namespace %s: %s%s", o->netns, strerror(errno),
			errno == EPERM ? " (setns needs CAP_SYS_ADMIN: run as root)" : "");
		close(ns);
		close(self);
		return NULL;
	}
	xb_tap *t = xcalloc(1, sizeof *t);
	t->fd = t->ctl = -1;
	snprintf(t->name, sizeof t->name, "%s", o->name);
	int rc = tap_make(t, o, err);
	if (setns(self, CLONE_NEWNET) != 0) {
		/* this thread would stay in the namespace: nothing may go on */
		fprintf(stderr, "xipbench: cannot leave network namespace %s: %s\n", o->netns,
			strerror(errno));
		abort();
	}
	close(self);
	close(ns);
	if (rc) {
		tap_close(t);
		return NULL;
	}
	return t;
}

void tap_close(xb_tap *t)
{
	if (!t)
		return;
	if (t->fd >= 0)
		close(t->fd);
	if (t->ctl >= 0)
		close(t->ctl);
	free(t);
}

int tap_fd(const xb_tap *t)
{
	return t->fd;
}

const char *tap_name(const xb_tap *t)
{
	return t->name;
}

int tap_set_link(xb_tap *t, int up, const uint8_t mac[6])
{
	int rc = 0;
	if (mac && (!t->have_mac || memcmp(t->mac, mac, 6) != 0)) {
		struct ifreq r;
		ifreq_init(&r, t->name);
		r.ifr_hwaddr.sa_family = ARPHRD_ETHER;
		memcpy(r.ifr_hwaddr.sa_data, mac, 6);
		if (ioctl(t->ctl, SIOCSIFHWADDR, &r) == 0) {
			memcpy(t->mac, mac, 6);
			t->have_mac = 1;
		} else {
			rc = -1;
		}
	}
	int on = up != 0;
	if (on != t->link) {
		if (ioctl(t->fd, TUNSETCARRIER, &on) == 0) {
			t->link = on;
			t->stats.link_changes++;
		} else {
			rc = -1;
		}
	}
	return rc;
}

void tap_stats(const xb_tap *t, xb_tap_stats *out)
{
	*out = t->stats;
}

/* ---- The port ---- */

struct xb_tap_port {
	int fd;
	xb_netpeer *np;
	xb_board *b;
	xb_tap_port_options o;
	xb_tap_stats scratch; /* when the caller counts nowhere */
	uint64_t period, event;
	int link;
};

/* A frame from the device: out of the descriptor. */
static void port_frame(void *ctx, const uint8_t *frame, size_t len, uint64_t cycle)
{
	(void)cycle;
	xb_tap_port *p = ctx;
	if (len < XB_NETPEER_ETH_HLEN)
		return;
	if (write(p->fd, frame, len) == (ssize_t)len)
		p->o.stats->from_device++;
	else
		p->o.stats->write_errors++;
}

static void port_poll(xb_board *b, void *ctx)
{
	xb_tap_port *p = ctx;
	int link = netpeer_link(p->np);
	if (link != p->link) {
		p->link = link;
		if (p->o.link)
			p->o.link(p->o.link_ctx, link, netpeer_mac(p->np));
	}
	uint8_t buf[XB_NETPEER_MAX_FRAME + 64];
	for (unsigned i = 0; i < TAP_FRAMES_PER_POLL; i++) {
		ssize_t n = read(p->fd, buf, sizeof buf);
		if (n < 0)
			break; /* EAGAIN: nothing more now */
		if (link && netpeer_send_frame(p->np, buf, (size_t)n) == 0)
			p->o.stats->to_device++;
		else
			p->o.stats->dropped++;
	}
	p->event = board_schedule(b, board_cycles(b) + p->period, port_poll, p);
}

xb_tap_port *tap_port_new(int fd, xb_netpeer *np, xb_board *b, const xb_tap_port_options *o)
{
	xb_tap_port *p = xcalloc(1, sizeof *p);
	p->fd = fd;
	p->np = np;
	p->b = b;
	if (o)
		p->o = *o;
	if (!p->o.stats)
		p->o.stats = &p->scratch;
	uint32_t us = p->o.poll_us ? p->o.poll_us : 100;
	p->period = (uint64_t)board_cpu_hz(b) * us / 1000000u;
	if (!p->period)
		p->period = 1;
	netpeer_set_frame_fn(np, port_frame, p);
	p->event = board_schedule(b, board_cycles(b) + p->period, port_poll, p);
	return p;
}

void tap_port_free(xb_tap_port *p)
{
	if (!p)
		return;
	if (p->event)
		board_cancel(p->b, p->event);
	netpeer_set_frame_fn(p->np, NULL, NULL);
	free(p);
}

/* ---- On the virtual bench ---- */

static void tap_link(void *ctx, int up, const uint8_t mac[6])
{
	tap_set_link(ctx, up, up ? mac : NULL);
}

static void tap_detach(void *ctx)
{
	tap_port_free(ctx);
}

void tap_attach(xb_tap *t, xb_vbench *v)
{
	xb_tap_port_options po = {.link = tap_link, .link_ctx = t, .stats = &t->stats};
	xb_tap_port *p = tap_port_new(t->fd, vbench_peer(v), vbench_board(v), &po);
	vbench_on_free(v, tap_detach, p);
}
