/* test_sim_cli: the addresses are options of every `xipbench sim` subcommand that talks to
 * a board's network, parsed and checked before anything runs: sim run's --peer-ip and
 * --device-ip (a run with the peer elsewhere in the subnet answers, and the JSON says so);
 * sim serve's --peer-ip, --device-ip and --tap-ip (bad ones are usage errors; good ones get
 * as far as the namespace); sim measure's --device-ip, --peer-ip (the host's address the
 * sockets are bound to: one this host does not have is refused) and --usb-id; and the
 * options of one subcommand refused by the others. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../cli/cli.h"
#include "../common/testdir.h"
#include "test_pico_common.h"

static char out[16384];

/* Runs `xipbench sim ARGS...` (NULL-terminated) with standard output and error going to
 * out; returns the exit status. */
static int sim(const char *first, ...)
{
	char *argv[64];
	int argc = 0;
	argv[argc++] = (char *)"sim";
	va_list ap;
	va_start(ap, first);
	for (const char *a = first; a && argc < 63; a = va_arg(ap, const char *))
		argv[argc++] = (char *)a;
	va_end(ap);
	argv[argc] = NULL;
	char path[128];
	snprintf(path, sizeof path, "%s/out.txt", test_dir);
	fflush(stdout);
	fflush(stderr);
	int o = dup(1), e = dup(2);
	FILE *f = fopen(path, "w+");
	assert_non_null(f);
	dup2(fileno(f), 1);
	dup2(fileno(f), 2);
	int rc = cmd_sim.run(argc, argv);
	fflush(stdout);
	fflush(stderr);
	dup2(o, 1);
	dup2(e, 2);
	close(o);
	close(e);
	rewind(f);
	size_t n = fread(out, 1, sizeof out - 1, f);
	out[n] = 0;
	fclose(f);
	return rc;
}

#define USAGE(pattern, ...)                                                                 \
	do {                                                                                \
		int rc_ = sim(__VA_ARGS__, NULL);                                           \
		if (rc_ != XB_EXIT_USAGE || !strstr(out, pattern))                         \
			fail_msg("exit %d, expected 2 with '%s':\n%s", rc_, pattern, out); \
	} while (0)

static void test_run_addresses(void **state)
{
	(void)state;
	const char *elf = tp_netdev_elf();
	USAGE("--device-ip needs an IPv4 address (got '300.1.2.3')", "run", "--elf", elf,
	      "--ping", "1", "--device-ip", "300.1.2.3");
	USAGE("--peer-ip needs an IPv4 address (got 'host')", "run", "--elf", elf, "--ping", "1",
	      "--peer-ip", "host");
	USAGE("the peer and the device need different addresses", "run", "--elf", elf, "--ping",
	      "1", "--peer-ip", "192.0.2.1");
	/* another host of the device's subnet: the device answers it */
	assert_int_equal(sim("run", "--elf", elf, "--ping", "2", "--interval-ms", "5", "--peer-ip",
			     "192.0.2.9", "--device-ip", "192.0.2.1", "--json", NULL),
			 XB_EXIT_OK);
	assert_non_null(strstr(out, "\"peer_ip\": \"192.0.2.9\""));
	assert_non_null(strstr(out, "\"device_ip\": \"192.0.2.1\""));
	assert_non_null(strstr(out, "\"received\": 2"));
	/* measure's own options are not run's */
	USAGE("--usb-id is a 'sim measure' option, not a 'sim run' one", "run", "--elf", elf,
	      "--usb-id", "1209:0001");
	USAGE("--netif is a 'sim measure' option", "run", "--elf", elf, "--netif", "usb0");
}

static void test_serve_addresses(void **state)
{
	(void)state;
	const char *elf = tp_netdev_elf();
	USAGE("--device-ip needs an IPv4 address (got '192.0.2')", "serve", "--elf", elf,
	      "--device-ip", "192.0.2");
	USAGE("--peer-ip needs an IPv4 address (got '1.2.3.4.5')", "serve", "--elf", elf,
	      "--peer-ip", "1.2.3.4.5");
	/* the error and the synopsis name the mode, continuation lines and all */
	USAGE("xipbench sim serve: --device-ip", "serve", "--elf", elf, "--device-ip", "x");
	USAGE("\nusage: xipbench sim serve (--elf FILE", "serve", "--elf", elf, "--device-ip",
	      "x");
	USAGE("\n                          [--tap NAME", "serve", "--elf", elf, "--device-ip", "x");
	assert_null(strstr(out, "sim run"));
	USAGE("\nusage: xipbench sim measure --elf FILE", "measure", "--elf", elf, "--bogus");
	assert_null(strstr(out, "sim serve"));
	USAGE("the peer and the device need different addresses", "serve", "--elf", elf,
	      "--peer-ip", "10.0.0.1", "--device-ip", "10.0.0.1");
	USAGE("--tap-ip needs ADDR or ADDR/LEN with LEN 1 to 30 (got '192.0.2.9/0')", "serve",
	      "--elf", elf, "--tap", "xbq0", "--netns", "xb-none", "--tap-ip", "192.0.2.9/0");
	USAGE("--tap-ip needs ADDR or ADDR/LEN", "serve", "--elf", elf, "--tap", "xbq0",
	      "--netns", "xb-none", "--tap-ip", "192.0.2.300");
	/* the TAP's address is another host of the device's subnet (the device's own or one
	 * outside it is refused), from --device-ip when given */
	USAGE("must be another host of the device's subnet (the device is at 10.9.0.1)", "serve",
	      "--elf", elf, "--tap", "xbq0", "--netns", "xb-none", "--device-ip", "10.9.0.1",
	      "--peer-ip", "10.9.0.2", "--tap-ip", "192.0.2.2/24");
	USAGE("must be another host of the device's subnet", "serve", "--elf", elf, "--tap",
	      "xbq0", "--netns", "xb-none", "--tap-ip", "192.0.2.1/24");
	USAGE("--tap-ip go with --tap", "serve", "--elf", elf, "--tap-ip", "192.0.2.2/24");
	/* good addresses: on to the namespace, which is missing (not a usage error) */
	int rc = sim("serve", "--elf", elf, "--tap", "xbq0", "--netns", "xipbench-no-such-ns",
		     "--device-ip", "10.9.0.1", "--peer-ip", "10.9.0.2", "--tap-ip", "10.9.0.77/16",
		     NULL);
	assert_int_equal(rc, XB_EXIT_FAIL);
	assert_non_null(strstr(out, "network namespace xipbench-no-such-ns does not exist"));
	/* and a serve with them runs */
	assert_int_equal(sim("serve", "--elf", elf, "--device-ip", "10.9.0.1", "--peer-ip",
			     "10.9.0.2", "--seconds", "0.01", NULL),
			 XB_EXIT_OK);
	assert_non_null(strstr(out, "stopped        as asked"));
	USAGE("--socket is a 'sim measure' option, not a 'sim serve' one", "serve", "--elf", elf,
	      "--socket", "/x");
}

static void test_measure_addresses(void **state)
{
	(void)state;
	const char *elf = tp_netdev_elf();
	char sock[128];
	snprintf(sock, sizeof sock, "%s/no.sock", test_dir);
	USAGE("--device-ip needs an IPv4 address (got 'board')", "measure", "--elf", elf,
	      "--socket", sock, "--device-ip", "board");
	USAGE("--peer-ip needs an IPv4 address (got '10.0.0')", "measure", "--elf", elf,
	      "--socket", sock, "--peer-ip", "10.0.0");
	USAGE("the peer and the device need different addresses", "measure", "--elf", elf,
	      "--socket", sock, "--peer-ip", "127.0.0.1", "--device-ip", "127.0.0.1");
	USAGE("--usb-id needs VID:PID in hex", "measure", "--elf", elf, "--socket", sock,
	      "--usb-id", "2e8a");
	USAGE("--usb-id needs VID:PID in hex", "measure", "--elf", elf, "--socket", sock,
	      "--usb-id", "2e8a:0:1");
	USAGE("--usb-id needs VID:PID in hex", "measure", "--elf", elf, "--socket", sock,
	      "--usb-id", "0:000a");
	USAGE("--usb-id needs VID:PID in hex", "measure", "--elf", elf, "--socket", sock,
	      "--usb-id", "12345:1");
	USAGE("give one probe", "measure", "--elf", elf, "--socket", sock, "--probe", "E661");
	USAGE("--tap is a 'sim serve' option, not a 'sim measure' one", "measure", "--elf", elf,
	      "--socket", sock, "--tap", "xbq0");
	/* an address this host does not have cannot be the traffic's source */
	int rc = sim("measure", "--elf", elf, "--socket", sock, "--peer-ip", "192.0.2.99",
		     "--device-ip", "192.0.2.1", "--ping", "1", "--link-timeout", "50", NULL);
	assert_int_equal(rc, XB_EXIT_FAIL);
	assert_non_null(strstr(out, "192.0.2.99 is not an address of this host"));
	/* good ones: the bench opens, and waits for the probe that is not there */
	rc = sim("measure", "--elf", elf, "--socket", sock, "--peer-ip", "127.0.0.1",
		 "--device-ip", "127.0.0.2", "--usb-id", "2e8a:000a", "--ping", "1",
		 "--link-timeout", "50", NULL);
	assert_int_equal(rc, XB_EXIT_FAIL);
	assert_null(strstr(out, "needs"));
	assert_non_null(strstr(out, "after 50 ms"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_run_addresses),
		cmocka_unit_test(test_serve_addresses),
		cmocka_unit_test(test_measure_addresses),
	};
	return cmocka_run_group_tests(tests, testdir_setup, testdir_teardown);
}
