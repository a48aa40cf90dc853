/* proc: a child process run from the caller's loop: posix_spawnp into its own process
 * group, output through a non-blocking pipe split into lines, exit noticed through a pidfd
 * and waitpid(WNOHANG), cancel escalated from SIGTERM to SIGKILL by deadline. */
#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define READ_BUDGET 65536          /* bytes read per proc_pump */
#define NO_PIDFD_POLL_NS 10000000ull /* without a pidfd, look for the end this often */

struct xb_proc {
	pid_t pid;
	int fd;                /* read end of the output pipe; -1 after its end */
	int pidfd;             /* readable once the child ended; -1 if none */
	int reaped;
	int wstatus;
	int cancelled, killed;
	uint64_t start_ns, end_ns;
	uint64_t grace_ns;
	uint64_t kill_at;      /* when the cancel's SIGKILL is due */
	uint64_t drain_until;  /* the child ended: how long its output is waited for */
	xb_proc_line_fn line;
	void *ctx;
	xb_proc_clock_fn clock;
	void *clock_ctx;
	/* the line being read */
	char buf[XB_PROC_LINE_MAX + 4];
	size_t len;
	int skipping;          /* the rest of a cut line is dropped */
	int after_cr;          /* the last byte was '\r': a '\n' now ends nothing */
};

static uint64_t monotonic_ns(void *ctx)
{
	(void)ctx;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t now(const xb_proc *p)
{
	return p->clock(p->clock_ctx);
}

/* ---- start ---- */

static size_t env_name_len(const char *entry)
{
	const char *eq = strchr(entry, '=');
	return eq ? (size_t)(eq - entry) : strlen(entry);
}

/* The caller's environment with the entries of extra replacing those of the same name.
 * The array is new; its strings are borrowed. */
static char **merged_env(const char *const *extra, xb_err *err)
{
	size_t n = 0, m = 0;
	while (environ && environ[n])
		n++;
	while (extra && extra[m]) {
		const char *eq = strchr(extra[m], '=');
		if (!eq || eq == extra[m]) {
			char q[64];
			xb_quote(q, sizeof q, extra[m], strlen(extra[m]));
			xb_fail(err, "environment entry '%s' is not NAME=VALUE", q);
			return NULL;
		}
		m++;
	}
	char **env = xcalloc(n + m + 1, sizeof *env);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		size_t len = env_name_len(environ[i]);
		int replaced = 0;
		for (size_t j = 0; j < m && !replaced; j++)
			replaced = env_name_len(extra[j]) == len && strncmp(extra[j], environ[i], len) == 0;
		if (!replaced)
			env[k++] = environ[i];
	}
	for (size_t j = 0; j < m; j++)
		env[k++] = (char *)extra[j];
	env[k] = NULL;
	return env;
}

static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0); /* close-on-exec by definition */
#else
	(void)pid;
	return -1;
#endif
}

static int spawn(const xb_proc_options *o, char **env, int out, pid_t *pid)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t at;
	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&at);
	posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out, 1);
	posix_spawn_file_actions_adddup2(&fa, out, 2);
	if (o->cwd)
		posix_spawn_file_actions_addchdir_np(&fa, o->cwd);
	/* its own group, so that a cancel reaches what it starts (make's compilers), and the
	 * signal state of a fresh program whatever the caller ignores or blocks */
	sigset_t all, none;
	sigfillset(&all);
	sigemptyset(&none);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setsigdefault(&at, &all);
	posix_spawnattr_setsigmask(&at, &none);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF |
					      POSIX_SPAWN_SETSIGMASK);
	int rc = posix_spawnp(pid, o->argv[0], &fa, &at, (char *const *)o->argv, env);
	posix_spawnattr_destroy(&at);
	posix_spawn_file_actions_destroy(&fa);
	return rc;
}

xb_proc *proc_start(const xb_proc_options *o, xb_err *err)
{
	if (!o->argv || !o->argv[0] || !o->argv[0][0]) {
		xb_fail(err, "no command to run");
		return NULL;
	}
	const char *name = o->argv[0];
	if (o->cwd) {
		/* posix_spawn reports a folder it cannot enter like a missing program */
		struct stat st;
		const char *why = NULL;
		if (stat(o->cwd, &st) != 0)
			why = strerror(errno);
		else if (!S_ISDIR(st.st_mode))
			why = strerror(ENOTDIR);
		else if (access(o->cwd, X_OK) != 0)
			why = strerror(errno);
		if (why) {
			xb_fail(err, "cannot run '%s' in %s: %s", name, o->cwd, why);
			return NULL;
		}
	}
	char **env = merged_env(o->env, err);
	if (!env)
		return NULL;
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		free(env);
		xb_fail(err, "cannot run '%s': no pipe for its output: %s", name, strerror(errno));
		return NULL;
	}
	pid_t pid;
	int rc = spawn(o, env, fds[1], &pid);
	free(env);
	close(fds[1]);
	if (rc != 0) {
		close(fds[0]);
		xb_fail(err, "cannot run '%s': %s", name, strerror(rc));
		return NULL;
	}
	fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK);
	xb_proc *p = xcalloc(1, sizeof *p);
	p->pid = pid;
	p->fd = fds[0];
	p->pidfd = open_pidfd(pid);
	p->line = o->line;
	p->ctx = o->ctx;
	p->clock = o->clock ? o->clock : monotonic_ns;
	p->clock_ctx = o->clock_ctx;
	p->grace_ns = o->grace_ns ? o->grace_ns : XB_PROC_GRACE_NS;
	p->start_ns = now(p);
	return p;
}

/* ---- output ---- */

static void emit(xb_proc *p, int cut)
{
	if (cut)
		memcpy(p->buf + p->len, "...", 3), p->len += 3;
	p->buf[p->len] = 0;
	if (p->line)
		p->line(p->ctx, p->buf, p->len);
	p->len = 0;
}

static void take_bytes(xb_proc *p, const char *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char c = b[i];
		if (p->after_cr) {
			p->after_cr = 0;
			if (c == '\n')
				continue;
		}
		if (c == '\n' || c == '\r') {
			if (p->skipping)
				p->skipping = 0;
			else if (c == '\n' || p->len)
				emit(p, 0);
			p->len = 0;
			p->after_cr = c == '\r';
			continue;
		}
		if (p->skipping)
			continue;
		if (p->len == XB_PROC_LINE_MAX) {
			emit(p, 1);
			p->skipping = 1;
			continue;
		}
		p->buf[p->len++] = c;
	}
}

static void close_output(xb_proc *p)
{
	if (p->fd < 0)
		return;
	close(p->fd);
	p->fd = -1;
	if (p->len && !p->skipping)
		emit(p, 0); /* the last line had no end */
	p->len = 0;
}

static void read_output(xb_proc *p)
{
	char b[4096];
	size_t budget = READ_BUDGET;
	while (p->fd >= 0 && budget) {
		ssize_t n = read(p->fd, b, sizeof b < budget ? sizeof b : budget);
		if (n > 0) {
			take_bytes(p, b, (size_t)n);
			budget -= (size_t)n;
		} else if (n == 0) {
			close_output(p);
		} else if (errno == EINTR) {
			continue;
		} else {
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				close_output(p); /* nothing more can come from it */
			break;
		}
	}
}

/* ---- the child's end ---- */

static void signal_group(xb_proc *p, int sig)
{
	if (kill(-p->pid, sig) != 0)
		kill(p->pid, sig); /* it left its group */
}

static void reap(xb_proc *p)
{
	if (p->reaped)
		return;
	int st;
	pid_t r;
	do
		r = waitpid(p->pid, &st, WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return;
	/* r < 0: someone else reaped it (SIGCHLD ignored): it ended, how is not known */
	p->wstatus = r == p->pid ? st : 0;
	p->reaped = 1;
	p->end_ns = now(p);
	if (p->pidfd >= 0) {
		close(p->pidfd);
		p->pidfd = -1;
	}
}

int proc_pump(xb_proc *p)
{
	if (p->reaped && p->fd < 0)
		return 0;
	read_output(p);
	reap(p);
	uint64_t t = now(p);
	if (!p->reaped && p->kill_at && !p->killed && t >= p->kill_at) {
		signal_group(p, SIGKILL);
		p->killed = 1;
	}
	if (p->reaped && p->fd >= 0) {
		if (!p->drain_until)
			p->drain_until = t + p->grace_ns;
		else if (t >= p->drain_until)
			close_output(p);
	}
	return !(p->reaped && p->fd < 0);
}

void proc_cancel(xb_proc *p)
{
	if (p->reaped || p->cancelled)
		return;
	p->cancelled = 1;
	signal_group(p, SIGTERM);
	p->kill_at = now(p) + p->grace_ns;
	if (p->kill_at == 0)
		p->kill_at = 1;
}

int proc_pollfd(const xb_proc *p)
{
	if (p->fd >= 0)
		return p->fd;
	return p->reaped ? -1 : p->pidfd;
}

uint64_t proc_next_deadline(const xb_proc *p)
{
	uint64_t d = XB_PROC_NO_DEADLINE;
	if (!p->reaped && p->kill_at && !p->killed)
		d = p->kill_at;
	if (p->reaped && p->fd >= 0)
		d = p->drain_until ? p->drain_until : now(p);
	if (!p->reaped && p->fd < 0 && p->pidfd < 0) {
		uint64_t soon = now(p) + NO_PIDFD_POLL_NS;
		d = soon < d ? soon : d;
	}
	return d;
}

int proc_timeout_ms(const xb_proc *p)
{
	uint64_t d = proc_next_deadline(p);
	if (d == XB_PROC_NO_DEADLINE)
		return -1;
	uint64_t t = now(p);
	if (d <= t)
		return 0;
	uint64_t ms = (d - t + 999999) / 1000000;
	return ms > 60000 ? 60000 : (int)ms;
}

void proc_status(const xb_proc *p, xb_proc_status *st)
{
	memset(st, 0, sizeof *st);
	st->running = !p->reaped;
	st->cancelled = p->cancelled;
	st->killed = p->killed;
	st->seconds = (double)((p->reaped ? p->end_ns : now(p)) - p->start_ns) / 1e9;
	if (!p->reaped)
		return;
	if (WIFSIGNALED(p->wstatus)) {
		st->signal = WTERMSIG(p->wstatus);
	} else {
		st->exited = 1;
		st->code = WIFEXITED(p->wstatus) ? WEXITSTATUS(p->wstatus) : 0;
	}
}

const char *proc_status_text(const xb_proc_status *st, char *buf, size_t cap)
{
	if (st->running)
		snprintf(buf, cap, "running");
	else if (st->exited)
		snprintf(buf, cap, "exited with status %d", st->code);
	else
		snprintf(buf, cap, "killed by signal %d (%s)", st->signal, strsignal(st->signal));
	return buf;
}

int proc_pid(const xb_proc *p)
{
	return (int)p->pid;
}

void proc_free(xb_proc *p)
{
	if (!p)
		return;
	if (!p->reaped) {
		signal_group(p, SIGKILL);
		int st;
		while (waitpid(p->pid, &st, 0) < 0 && errno == EINTR)
			;
	}
	if (p->fd >= 0)
		close(p->fd);
	if (p->pidfd >= 0)
		close(p->pidfd);
	free(p);
}
