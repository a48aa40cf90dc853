/* crash: signal handling for the workbench: a crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE,
 * SIGABRT) restores the terminal and re-raises the signal with its default action (a core
 * dump and the usual exit status stay); SIGINT, SIGTERM and SIGHUP ask the main loop to
 * quit cleanly; SIGPIPE is ignored (a peer that went away gives EPIPE, not death). */
#ifndef XB_TUI_CRASH_H
#define XB_TUI_CRASH_H

#include <signal.h>

/* Installs the handlers (restore: called first in a crash handler; must be
 * async-signal-safe: term_emergency_restore; may be NULL). Crash handlers run on an
 * alternate stack, so that a stack overflow still restores the terminal. Installing
 * again replaces restore and clears the quit request. */
void crash_install(void (*restore)(void));
/* Removes them: the actions from before crash_install again (the defaults, in the
 * program), and closes the self-pipe. */
void crash_uninstall(void);
/* The quit request a signal made: 0, or the signal number (the last one). */
int crash_quit_requested(void);
/* A descriptor that becomes readable when a quit signal arrives (self-pipe, non-blocking,
 * close-on-exec; one byte per signal, for the main loop's poll to read), -1 before
 * crash_install. */
int crash_fd(void);

#endif
