/* test_usbudc: the USB device controller and the virtual host with a device that drives
 * the controller as Zephyr's udc_rpi_pico driver does (tests/data/usb/zudc.c): deferred
 * requests answered from a thread, the class's SET_INTERFACE status stage queued
 * milliseconds after the request, EP_ABORT on new SETUPs, the suspend and resume
 * interrupts enabled. Checked against the datasheet (4.1.2.6.4: suspend when no SOF for
 * 3 ms, also while the host debounces a new connection) and USB 2.0 (7.1.7.6-7: suspend
 * after 3 ms of idle bus, resume signalling): a status stage is taken as soon as the
 * device hands its buffer over; no suspend while SOFs flow; one suspend interrupt per
 * suspend (none when it ends), a resume interrupt when the bus leaves its idle state (the
 * host's resume signalling, or a bus reset). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "../../sim/ecmhost.h"
#include "../../sim/pico.h"
#include "../../sim/usbhost.h"
#include "../../sim/usbmon.h"
#include "test_sim_common.h"
#include "test_usb_common.h"

#define MS 125000u /* cycles per millisecond at 125 MHz */
#define US 125u

/* The program's mailbox (tests/data/usb/zudc.c). */
enum {
	MB_BUS_RESETS = 1, MB_SETUPS, MB_SUSPENDS, MB_RESUMES, MB_SPURIOUS, MB_SUSPEND_MS,
	MB_RESUME_MS, MB_ALT, MB_STATUS_ARMED, MB_ADDRESS, MB_CONFIG, MB_FRAMES, MB_ERRORS,
	MB_CONN_DIS, MB_FIRST_SUSPEND_MS, MB_ABORTS, MB_STALLS, MB_SUSPENDED, MB_UNHANDLED,
	MB_NOW_MS, MB_SETINTF_MS, MB_ARMED_MS, MB_NOTIFIED, MB_LAST_RESET_MS,
};

typedef struct rig {
	xb_pico *pico;
	xb_usbhost *h;
	xb_ecmhost *e;
	xb_usbmon *mon;
	sim_log log;
	unsigned frames_back;
	/* SET_INTERFACE's usbmon S and C records (ns) */
	uint64_t setintf_s_ns, setintf_c_ns;
	int setintf_status;
} rig;

static void on_rx(void *ctx, const uint8_t *frame, size_t len, uint64_t cycle)
{
	(void)frame;
	(void)len;
	(void)cycle;
	((rig *)ctx)->frames_back++;
}

static void on_record(void *ctx, const uint8_t *rec, size_t len, uint64_t ns)
{
	rig *r = ctx;
	assert_true(len >= 64);
	static const uint8_t set_intf[8] = {0x01, 0x0B, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00};
	if (rec[9] != 2) /* control */
		return;
	if (rec[8] == 'S' && memcmp(rec + 40, set_intf, 8) == 0) {
		r->setintf_s_ns = ns;
		r->setintf_c_ns = 0;
	} else if (rec[8] == 'C' && r->setintf_s_ns && !r->setintf_c_ns) {
		/* the first control completion after it is its own: requests are serialised */
		r->setintf_c_ns = ns;
		int32_t st;
		memcpy(&st, rec + 28, 4);
		r->setintf_status = st;
	}
}

static void rig_open(rig *r, uint32_t status_delay_ms)
{
	memset(r, 0, sizeof *r);
	r->pico = usb_rig_pico(&r->log);
	r->mon = usbmon_new(NULL, NULL);
	usbmon_set_record_fn(r->mon, on_record, r);
	r->h = usb_rig_host(r->pico, NULL, r->mon);
	xb_ecmhost_options eo = {.rx = on_rx, .rx_ctx = r};
	r->e = ecmhost_new(r->h, &eo);
	uint32_t in[1] = {status_delay_ms};
	usb_rig_load_program(r->pico, "zudc", in, sizeof in);
}

static void rig_close(rig *r)
{
	ecmhost_free(r->e);
	usbhost_free(r->h);
	pico_free(r->pico);
	usbmon_free(r->mon);
}

static uint64_t now(rig *r)
{
	return board_cycles(pico_board(r->pico));
}

static uint32_t mailbox(rig *r, unsigned i)
{
	return sim_mailbox(pico_board(r->pico), i);
}

static void run(rig *r, uint64_t cycles)
{
	enum xb_pico_stop s = pico_run(r->pico, cycles);
	if (s != XB_PICO_BUDGET) {
		xb_pico_summary sum;
		pico_summary(r->pico, &sum);
		fail_msg("the program stopped (%s) at pc 0x%08x", pico_stop_name(s), sum.pc);
	}
}

/* Runs in steps of step cycles until mailbox word i differs from was (or max cycles);
 * returns the cycle of the first step where it did, 0 if it did not. The run goes on
 * for 50 us more, so that the handler that changed it has finished. */
static uint64_t run_until_mailbox(rig *r, unsigned i, uint32_t was, uint64_t step,
				  uint64_t max)
{
	uint64_t at = 0;
	for (uint64_t t = 0; t <= max && !at; t += step) {
		if (mailbox(r, i) != was)
			at = now(r);
		else
			run(r, step);
	}
	if (at)
		run(r, 50 * US);
	return at;
}

static int run_until_link(rig *r, unsigned max_ms)
{
	for (unsigned ms = 0; ms < max_ms; ms++) {
		if (ecmhost_up(r->e) && ecmhost_link(r->e))
			return 1;
		run(r, MS);
	}
	return ecmhost_up(r->e) && ecmhost_link(r->e);
}

static uint64_t ns_to_cycles(uint64_t ns)
{
	return ns / 8u; /* 125 MHz */
}

static void echo_one(rig *r)
{
	uint8_t f[100];
	for (unsigned i = 0; i < sizeof f; i++)
		f[i] = (uint8_t)(i * 3 + 1);
	f[12] = 0x88;
	f[13] = 0xB5;
	unsigned before = r->frames_back;
	assert_int_equal(ecmhost_send(r->e, f, sizeof f), 0);
	for (unsigned ms = 0; ms < 50 && r->frames_back == before; ms++)
		run(r, MS);
	assert_int_equal(r->frames_back, before + 1);
}

/* Enumeration and bring-up with the status stage of SET_INTERFACE queued by the class
 * delay_ms after the request: the host takes it at once, the link comes up. */
static void bring_up(rig *r, uint32_t delay_ms)
{
	rig_open(r, delay_ms);
	/* Until the class has the request: SET_CONFIGURATION and the rest came first. */
	uint64_t seen = run_until_mailbox(r, MB_ALT, 0, 10 * US, 1000 * (uint64_t)MS);
	assert_true(seen > 300 * (uint64_t)MS && seen < 340 * (uint64_t)MS);
	assert_int_equal(mailbox(r, MB_ALT), 1);
	assert_int_not_equal(r->setintf_s_ns, 0);
	assert_int_equal(r->setintf_c_ns, 0);
	/* The class queues the status stage delay_ms later (its SysTick: +-1 ms). */
	uint64_t armed = run_until_mailbox(r, MB_STATUS_ARMED, 0, 10 * US, 50 * (uint64_t)MS);
	assert_int_not_equal(armed, 0);
	assert_true(armed - seen >= (delay_ms - 1) * (uint64_t)MS);
	assert_true(armed - seen <= (delay_ms + 1) * (uint64_t)MS);
	/* The host's status IN, NAKed until then, is answered within a few bit times of the
	 * hand-over (one ZLP transaction is 104 bit times, 8.7 us), not at the next request
	 * timeout: the host retries on NAK as EHCI does and wakes when the buffer is handed
	 * over. */
	run(r, 200 * US);
	assert_int_not_equal(r->setintf_c_ns, 0);
	assert_int_equal(r->setintf_status, 0);
	uint64_t done = ns_to_cycles(r->setintf_c_ns);
	assert_true(done + 10 * US >= armed); /* armed is known to 10 us */
	assert_true(done <= armed + 30 * US);
	/* cdc_ether's carrier is on once the interface is open; the class's connection
	 * notification follows. */
	assert_true(run_until_link(r, 100));
	if (!mailbox(r, MB_NOTIFIED))
		assert_int_not_equal(run_until_mailbox(r, MB_NOTIFIED, 0, 10 * US, 100 * (uint64_t)MS),
				     0);
}

static void test_set_interface_status_stage(void **state)
{
	(void)state;
	static const uint32_t delays[] = {3, 1, 7, 40};
	for (unsigned i = 0; i < sizeof delays / sizeof *delays; i++) {
		static rig R;
		rig *r = &R;
		bring_up(r, delays[i]);
		assert_int_equal(mailbox(r, MB_ADDRESS), 2);
		assert_int_equal(mailbox(r, MB_CONFIG), 1);
		assert_int_equal(mailbox(r, MB_BUS_RESETS), 2);
		assert_int_equal(mailbox(r, MB_NOTIFIED), 1);
		assert_int_equal(mailbox(r, MB_STALLS), 0);
		assert_int_equal(mailbox(r, MB_ERRORS), 0);
		assert_int_equal(mailbox(r, MB_UNHANDLED), 0);
		/* The one suspend of the debounce, none since; nothing counted spurious. */
		assert_int_equal(mailbox(r, MB_SUSPENDS), 1);
		assert_int_equal(mailbox(r, MB_RESUMES), 1);
		assert_int_equal(mailbox(r, MB_SPURIOUS), 0);
		echo_one(r);
		echo_one(r);
		assert_int_equal(mailbox(r, MB_FRAMES), 2);
		xb_usbhost_stats hs;
		usbhost_stats(r->h, &hs);
		assert_int_equal(hs.timeouts, 0);
		/* NAKed status polls stop until the hand-over: no NAK storm meanwhile. */
		assert_true(hs.naks < 4 * hs.frames);
		assert_int_equal(r->log.lines, 0);
		rig_close(r);
	}
}

/* A class that sits on SET_INTERFACE longer than Linux waits (usb_control_msg's 5 s): while
 * it waits, the bring-up says which request is unanswered and for how long; at 5 s the
 * host unlinks the URB (-ENOENT in usbmon, as Linux) and cdc_ether gives the device up,
 * saying so. */
static void test_set_interface_timeout(void **state)
{
	(void)state;
	static rig R;
	rig *r = &R;
	rig_open(r, 6000);
	uint64_t seen = run_until_mailbox(r, MB_ALT, 0, 10 * US, 1000 * (uint64_t)MS);
	assert_int_not_equal(seen, 0);
	char why[256] = "";
	run(r, 1000 * (uint64_t)MS);
	assert_int_equal(ecmhost_trouble(r->e, why, sizeof why), 1);
	print_message("after 1 s: %s\n", why);
	assert_non_null(strstr(why, "cdc_ether waits for SET_INTERFACE (interface 1, "
				    "alternate 1): unanswered for 100"));
	assert_int_equal(r->setintf_c_ns, 0);
	/* 5 s after the request went out, not later. */
	uint64_t s_cycle = ns_to_cycles(r->setintf_s_ns);
	run(r, s_cycle + 5000 * (uint64_t)MS - now(r) - MS);
	assert_int_equal(r->setintf_c_ns, 0);
	run(r, 2 * MS);
	assert_int_not_equal(r->setintf_c_ns, 0);
	assert_int_equal(r->setintf_status, -2);
	uint64_t waited = ns_to_cycles(r->setintf_c_ns) - s_cycle;
	assert_true(waited >= 5000 * (uint64_t)MS && waited <= 5000 * (uint64_t)MS + 10 * US);
	assert_int_equal(ecmhost_trouble(r->e, why, sizeof why), 1);
	print_message("at 5 s: %s\n", why);
	assert_string_equal(why, "cdc_ether: SET_INTERFACE (interface 1, alternate 1) timed out "
				 "after 5000 ms (-ETIMEDOUT: Linux gives the device up)");
	assert_false(ecmhost_up(r->e));
	/* The class's late status stage changes nothing. */
	run(r, 1500 * (uint64_t)MS);
	assert_int_equal(mailbox(r, MB_STATUS_ARMED), 1);
	assert_false(ecmhost_up(r->e));
	rig_close(r);
}

/* Suspend: once while the host debounces the connection (no SOF yet: datasheet 4.1.2.6.4),
 * never while SOFs flow, and 3 ms after the host suspends the port; a bus reset or a
 * resume ends it with a resume interrupt and no second suspend interrupt (Zephyr's
 * udc_common counts nothing spurious). */
static void test_suspend_and_resume(void **state)
{
	(void)state;
	static rig R;
	rig *r = &R;
	rig_open(r, 3);
	/* The pull-up comes within a millisecond of start-up; 3 ms later the idle bus
	 * suspends the device, while the host still debounces (100 ms). */
	uint64_t s1 = run_until_mailbox(r, MB_SUSPENDS, 0, 10 * US, 20 * (uint64_t)MS);
	assert_true(s1 >= 3 * (uint64_t)MS && s1 <= 5 * (uint64_t)MS);
	assert_int_equal(usbhost_state(r->h), XB_USBHOST_DEBOUNCE);
	assert_int_equal(mailbox(r, MB_SUSPENDED), 1);
	assert_int_equal(mailbox(r, MB_SPURIOUS), 0);
	/* The first port reset (100 ms after the pull-up) ends it: the bus leaves its idle
	 * state, RESUME, then BUS_RESET; no second suspend interrupt. */
	uint64_t rst = run_until_mailbox(r, MB_BUS_RESETS, 0, 10 * US, 200 * (uint64_t)MS);
	assert_true(rst > 100 * (uint64_t)MS && rst < 102 * (uint64_t)MS);
	run(r, MS);
	assert_int_equal(mailbox(r, MB_SUSPENDS), 1);
	assert_int_equal(mailbox(r, MB_RESUMES), 1);
	assert_int_equal(mailbox(r, MB_SUSPENDED), 0);
	assert_int_equal(mailbox(r, MB_SPURIOUS), 0);
	uint32_t st = 0;
	assert_int_equal(board_debug_read(pico_board(r->pico), 0x50110050u, 4, &st), 0);
	assert_int_equal(st & (1u << 4), 0);        /* SUSPENDED */
	assert_int_equal(st & (3u << 2), 0);        /* LINE_STATE: SE0 during the reset */
	/* Two resets of 50 ms and their recoveries: SE0 and SOFs keep the bus busy. */
	assert_true(run_until_link(r, 500));
	run(r, 50 * (uint64_t)MS);
	assert_int_equal(mailbox(r, MB_SUSPENDS), 1);
	assert_int_equal(mailbox(r, MB_SPURIOUS), 0);
	echo_one(r);

	/* The host suspends the port: no SOF from the next frame, suspend 3 ms after the
	 * last bus activity (the previous frame's SOF and polls: 2 to 3 ms after the call). */
	xb_usbhost_stats a, b;
	usbhost_stats(r->h, &a);
	uint64_t call = now(r);
	assert_int_equal(usbhost_suspend(r->h, 1), 0);
	assert_int_equal(usbhost_suspend(r->h, 1), -1);
	assert_true(usbhost_suspended(r->h));
	uint64_t s2 = run_until_mailbox(r, MB_SUSPENDS, 1, 10 * US, 10 * (uint64_t)MS);
	assert_true(s2 >= call + 2 * (uint64_t)MS && s2 <= call + 3 * (uint64_t)MS + 20 * US);
	assert_int_equal(mailbox(r, MB_SUSPENDED), 1);
	assert_int_equal(mailbox(r, MB_SPURIOUS), 0);
	assert_int_equal(board_debug_read(pico_board(r->pico), 0x50110050u, 4, &st), 0);
	assert_int_equal(st & (1u << 4), 1u << 4);
	assert_int_equal(st & (3u << 2), 1u << 2); /* J: idle */
	run(r, 20 * (uint64_t)MS);
	usbhost_stats(r->h, &b);
	assert_true(b.sofs - a.sofs <= 1);
	assert_int_equal(mailbox(r, MB_SUSPENDS), 2);
	/* A frame sent meanwhile waits for the resume. */
	uint8_t f[60] = {0x02, 0, 0, 0, 0, 1, 0x02, 0, 0, 0, 0, 2, 0x88, 0xB5};
	unsigned before = r->frames_back;
	assert_int_equal(ecmhost_send(r->e, f, sizeof f), 0);
	run(r, 5 * (uint64_t)MS);
	assert_int_equal(r->frames_back, before);

	/* Resume: K for 40 ms (the device sees RESUME at its start), SOFs again, transfers
	 * 10 ms later. */
	call = now(r);
	assert_int_equal(usbhost_suspend(r->h, 0), 0);
	uint64_t res = run_until_mailbox(r, MB_RESUMES, 1, 10 * US, 5 * (uint64_t)MS);
	assert_true(res <= call + 20 * US);
	assert_int_equal(mailbox(r, MB_SUSPENDED), 0);
	assert_int_equal(mailbox(r, MB_SPURIOUS), 0);
	assert_int_equal(board_debug_read(pico_board(r->pico), 0x50110050u, 4, &st), 0);
	assert_int_equal(st & (3u << 2), 2u << 2); /* K */
	assert_int_equal(st & (1u << 4), 0);
	run(r, 39 * (uint64_t)MS);
	assert_true(usbhost_suspended(r->h));
	assert_int_equal(mailbox(r, MB_SUSPENDS), 2); /* K keeps it awake */
	run(r, 2 * (uint64_t)MS);
	assert_true(usbhost_suspended(r->h));       /* recovery: SOFs, no transactions */
	assert_int_equal(r->frames_back, before);
	run(r, 10 * (uint64_t)MS);
	assert_false(usbhost_suspended(r->h));
	for (unsigned ms = 0; ms < 20 && r->frames_back == before; ms++)
		run(r, MS);
	assert_int_equal(r->frames_back, before + 1);
	run(r, 20 * (uint64_t)MS);
	assert_int_equal(mailbox(r, MB_SUSPENDS), 2);
	assert_int_equal(mailbox(r, MB_RESUMES), 2);
	assert_int_equal(mailbox(r, MB_SPURIOUS), 0);
	assert_int_equal(mailbox(r, MB_ERRORS), 0);
	assert_int_equal(mailbox(r, MB_UNHANDLED), 0);
	assert_int_equal(usbhost_suspend(r->h, 0), -1);

	/* Suspended again, then unplugged: the suspend ends with the port. */
	assert_int_equal(usbhost_suspend(r->h, 1), 0);
	run(r, 5 * (uint64_t)MS);
	assert_int_equal(mailbox(r, MB_SUSPENDS), 3);
	usbhost_set_vbus(r->h, 0);
	assert_false(usbhost_suspended(r->h));
	assert_int_equal(usbhost_suspend(r->h, 1), -1);
	assert_int_equal(r->log.lines, 0);
	rig_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_set_interface_status_stage),
		cmocka_unit_test(test_set_interface_timeout),
		cmocka_unit_test(test_suspend_and_resume),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
