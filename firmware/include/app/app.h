/* app.h: the echo application: boot banner, system start-up and the UDP echo server. */
#ifndef APP_APP_H
#define APP_APP_H

/* Prints the boot banner (before the kernel starts). clock_status is clock_init's result. */
void app_banner(int clock_status);
/* The main thread: brings up USB and the network stack, starts the echo server. */
void app_main(void *p1, void *p2, void *p3);

#endif
