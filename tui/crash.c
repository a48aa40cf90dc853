/* crash: crash and quit signals for the workbench (see crash.h). */
#include "crash.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

#define CRASH_STACK (64 * 1024)

static const int crash_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
static const int quit_signals[] = {SIGINT, SIGTERM, SIGHUP};
#define NCRASH (sizeof crash_signals / sizeof crash_signals[0])
#define NQUIT (sizeof quit_signals / sizeof quit_signals[0])

static void (*volatile restore_fn)(void);
static volatile sig_atomic_t quit_signal;
static volatile sig_atomic_t pipe_w = -1;
static int pipe_r = -1;
static int installed;
static struct sigaction old_crash[NCRASH], old_quit[NQUIT], old_pipe;
static stack_t old_stack;
static int have_stack;
static char alt_stack[CRASH_STACK] __attribute__((aligned(16)));

static void on_crash(int sig)
{
	void (*restore)(void) = restore_fn;
	if (restore)
		restore();
	/* the default action (core dump, exit status) when the handler returns */
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_quit(int sig)
{
	int saved = errno;
	quit_signal = sig;
	if (pipe_w >= 0) {
		char b = (char)sig;
		ssize_t n = write(pipe_w, &b, 1); /* a full pipe already wakes the loop */
		(void)n;
	}
	errno = saved;
}

void crash_install(void (*restore)(void))
{
	restore_fn = restore;
	quit_signal = 0;
	if (installed)
		return;
	int fds[2];
	if (pipe2(fds, O_NONBLOCK | O_CLOEXEC) == 0) {
		pipe_r = fds[0];
		pipe_w = fds[1];
	}
	stack_t ss = {.ss_sp = alt_stack, .ss_size = sizeof alt_stack, .ss_flags = 0};
	have_stack = sigaltstack(&ss, &old_stack) == 0;

	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = on_crash;
	sa.sa_flags = SA_ONSTACK;
	for (size_t i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &sa, &old_crash[i]);
	sa.sa_handler = on_quit;
	sa.sa_flags = SA_RESTART;
	for (size_t i = 0; i < NQUIT; i++)
		sigaction(quit_signals[i], &sa, &old_quit[i]);
	sa.sa_handler = SIG_IGN;
	sa.sa_flags = 0;
	sigaction(SIGPIPE, &sa, &old_pipe);
	installed = 1;
}

void crash_uninstall(void)
{
	if (!installed)
		return;
	for (size_t i = 0; i < NCRASH; i++)
		sigaction(crash_signals[i], &old_crash[i], NULL);
	for (size_t i = 0; i < NQUIT; i++)
		sigaction(quit_signals[i], &old_quit[i], NULL);
	sigaction(SIGPIPE, &old_pipe, NULL);
	if (have_stack) {
		sigaltstack(&old_stack, NULL);
		have_stack = 0;
	}
	int w = pipe_w;
	pipe_w = -1;
	if (w >= 0)
		close(w);
	if (pipe_r >= 0)
		close(pipe_r);
	pipe_r = -1;
	restore_fn = NULL;
	installed = 0;
}

int crash_quit_requested(void)
{
	return quit_signal;
}

int crash_fd(void)
{
	return pipe_r;
}
