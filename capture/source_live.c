/* source_live: usbmon records from a live usbmonN interface through libpcap, with messages
 * that say what a failed start needs (the usbmon module, the bus, the device node or
 * debugfs, read access), each with the command that provides it. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source_internal.h"

static const xb_capture_source_ops capture_live_ops;

/* ---- What a live capture needs ---- */

static int live_exists(const char *root, const char *path)
{
	char p[PATH_MAX];
	struct stat st;
	snprintf(p, sizeof p, "%s%s", root, path);
	return stat(p, &st) == 0;
}

/* The character major of "usbmon" in /proc/devices, or -1. */
static int live_major(const char *root)
{
	char p[PATH_MAX], line[128];
	snprintf(p, sizeof p, "%s/proc/devices", root);
	FILE *f = fopen(p, "re");
	if (!f)
		return -1;
	int major = -1, chars = 0;
	while (major < 0 && fgets(line, sizeof line, f)) {
		if (strncmp(line, "Character", 9) == 0)
			chars = 1;
		else if (strncmp(line, "Block", 5) == 0)
			chars = 0;
		int m;
		char name[64];
		if (chars && sscanf(line, "%d %63s", &m, name) == 2 && strcmp(name, "usbmon") == 0)
			major = m;
	}
	fclose(f);
	return major;
}

/* "1 2 3": the buses in /sys/bus/usb/devices (usbN entries). */
static void live_buses(const char *root, char *out, size_t cap)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s/sys/bus/usb/devices", root);
	*out = 0;
	DIR *d = opendir(p);
	if (!d)
		return;
	struct dirent *e;
	size_t len = 0;
	while ((e = readdir(d)) != NULL) {
		char *end;
		if (strncmp(e->d_name, "usb", 3) != 0)
			continue;
		long n = strtol(e->d_name + 3, &end, 10);
		if (end == e->d_name + 3 || *end)
			continue;
		int k = snprintf(out + len, cap - len, "%s%ld", len ? " " : "", n);
		if (k < 0 || (size_t)k >= cap - len)
			break;
		len += (size_t)k;
	}
	closedir(d);
}

/* Whether user uid may read path: access(2) for this process (uid -1), else by the mode. */
static int live_readable(const char *path, int uid)
{
	if (uid < 0)
		return access(path, R_OK) == 0;
	struct stat st;
	if (stat(path, &st) != 0)
		return 0;
	if (uid == 0 || (st.st_mode & S_IROTH))
		return 1;
	if ((uid_t)uid == st.st_uid)
		return (st.st_mode & S_IRUSR) != 0;
	struct passwd *pw = getpwuid((uid_t)uid);
	return pw && pw->pw_gid == st.st_gid && (st.st_mode & S_IRGRP);
}

int capture_live_check(const char *iface, const char *root, int uid, xb_err *err)
{
	if (!root || strcmp(root, "/") == 0)
		root = "";
	char *end;
	long bus = strncmp(iface, "usbmon", 6) == 0 ? strtol(iface + 6, &end, 10) : -1;
	if (bus < 0 || end == iface + 6 || *end)
		return xb_fail(err, "%s: not a usbmon interface: live captures read usbmon0 (every "
			       "bus) or usbmonN (bus N)", iface);
	int major = live_major(root);
	if (major < 0 && !live_exists(root, "/sys/module/usbmon"))
		return xb_fail(err, "%s: the usbmon module is not loaded: load it with `sudo modprobe "
			       "usbmon`", iface);
	if (bus > 0) {
		char p[64];
		snprintf(p, sizeof p, "/sys/bus/usb/devices/usb%ld", bus);
		if (!live_exists(root, p)) {
			char buses[128];
			live_buses(root, buses, sizeof buses);
			return xb_fail(err, "%s: there is no USB bus %ld (buses here: %s): `lsusb` shows "
				       "the board's bus; usbmon0 sees them all", iface, bus,
				       *buses ? buses : "none");
		}
	}
	char dev[PATH_MAX];
	snprintf(dev, sizeof dev, "%s/dev/%s", root, iface);
	if (!live_exists(root, dev + strlen(root))) {
		/* libpcap falls back to the text interface, which lives in debugfs */
		char text[PATH_MAX];
		snprintf(text, sizeof text, "%s/sys/kernel/debug/usb/usbmon/%ldu", root, bus);
		if (!live_exists(root, "/sys/kernel/debug/usb/usbmon")) {
			char mknod[96] = "";
			if (major >= 0)
				snprintf(mknod, sizeof mknod, " (or make the device node: `sudo mknod "
					 "/dev/%s c %d %ld`)", iface, major, bus);
			return xb_fail(err, "%s: /dev/%s is missing, so libpcap needs usbmon's text "
				       "interface, and debugfs is not mounted: `sudo mount -t debugfs "
				       "none /sys/kernel/debug`%s", iface, iface, mknod);
		}
		if (!live_readable(text, uid))
			return xb_fail(err, "%s: permission denied: usbmon's text interface "
				       "(/sys/kernel/debug/usb/usbmon/%ldu) is root's: run as root",
				       iface, bus);
		return 0;
	}
	if (!live_readable(dev, uid)) {
		struct stat st;
		unsigned mode = stat(dev, &st) == 0 ? (unsigned)(st.st_mode & 07777) : 0;
		const char *user = getenv("SUDO_USER");
		struct passwd *pw = getpwuid(uid >= 0 ? (uid_t)uid : getuid());
		if (uid >= 0 || !user)
			user = pw ? pw->pw_name : "$USER";
		return xb_fail(err, "%s: permission denied: /dev/%s (mode %04o) is not readable by "
			       "user %s: run as root, or give the user read access: `sudo setfacl -m "
			       "u:%s:r /dev/%s` (or `sudo chmod a+r /dev/%s`; a udev rule "
			       "SUBSYSTEM==\"usbmon\", GROUP=\"wireshark\", MODE=\"0640\" makes it "
			       "last)", iface, iface, mode, user, user, iface, iface);
	}
	return 0;
}

/* ---- The source ---- */

/* Why pcap_activate failed, in terms of what to do about it. */
static void capture_live_explain(const char *iface, int rc, const char *pcap_msg, xb_err *err)
{
	if (rc == PCAP_ERROR_PERM_DENIED) {
		xb_fail(err,
			"%s: permission denied (%s): a live usbmon capture reads /dev/%s, which "
			"only root may read by default: run as root, or give your user read "
			"access (e.g. `sudo setfacl -m u:$USER:r /dev/%s`, or a udev rule "
			"SUBSYSTEM==\"usbmon\", GROUP=\"wireshark\", MODE=\"0640\")",
			iface, pcap_msg, iface, iface);
	} else if (rc == PCAP_ERROR_NO_SUCH_DEVICE) {
		xb_fail(err,
			"%s: no such usbmon interface (%s): load the module with `sudo "
			"modprobe usbmon`; usbmon0 sees every bus, usbmonN bus N (lsusb shows "
			"the Pico's bus)",
			iface, pcap_msg);
	} else {
		xb_fail(err, "%s: cannot start the capture: %s", iface, pcap_msg);
	}
}

xb_capture_source *capture_open_live(const char *iface, const xb_capture_live_options *o,
				     xb_err *err)
{
	xb_capture_live_options d = {0};
	if (o)
		d = *o;
	if (strncmp(iface, "usbmon", 6) != 0) {
		xb_fail(err,
			"%s: not a usbmon interface: live captures read usbmon0 (every bus) "
			"or usbmonN (bus N)",
			iface);
		return NULL;
	}
	char eb[PCAP_ERRBUF_SIZE] = "";
	pcap_t *p = pcap_create(iface, eb);
	if (!p) {
		xb_fail(err, "%s: cannot start the capture: %s", iface, eb);
		return NULL;
	}
	pcap_set_snaplen(p, d.snaplen ? (int)d.snaplen : (int)XB_CAPTURE_SNAPLEN);
	pcap_set_timeout(p, d.timeout_ms > 0 ? d.timeout_ms : 100);
	if (d.buffer_bytes > 0)
		pcap_set_buffer_size(p, d.buffer_bytes);
	pcap_set_tstamp_precision(p, PCAP_TSTAMP_PRECISION_NANO); /* refused: microseconds */
	int rc = pcap_activate(p);
	if (rc < 0) {
		char msg[PCAP_ERRBUF_SIZE];
		snprintf(msg, sizeof msg, "%s",
			 rc == PCAP_ERROR ? pcap_geterr(p) : pcap_statustostr(rc));
		pcap_close(p);
		xb_err why;
		if (capture_live_check(iface, d.root, -1, &why) != 0)
			xb_fail(err, "%s (libpcap: %s)", why.msg, msg);
		else
			capture_live_explain(iface, rc, msg, err);
		return NULL;
	}
	xb_capture_source *s = capture_pcap_source(&capture_live_ops, p, iface, err);
	if (!s)
		return NULL;
	if (d.write_to) {
		capture_pcap *cp = s->impl;
		cp->dump = pcap_dump_open(p, d.write_to);
		if (!cp->dump) {
			xb_fail(err, "%s: cannot write the capture to %s: %s", iface, d.write_to,
				pcap_geterr(p));
			capture_close(s);
			return NULL;
		}
	}
	return s;
}

static const xb_capture_source_ops capture_live_ops = {
	.kind = "live",
	.next = capture_pcap_next,
	.fd = capture_pcap_fd,
	.close = capture_pcap_close,
};
