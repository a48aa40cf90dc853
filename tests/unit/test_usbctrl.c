/* test_usbctrl: the RP2040 USB device controller driven as a driver and a host would drive it:
 * register and DPRAM accesses through the bus (aliases included) on one side, SETUP / OUT /
 * IN transactions, SOF and bus reset on the other; IRQ 5 levels seen through the NVIC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "../../sim/usbctrl.h"
#include "test_sim_common.h"

#define DP XB_USBCTRL_DPRAM_BASE
#define REG XB_USBCTRL_REGS_BASE
#define SET 0x2000u
#define CLR 0x3000u

enum {
	ADDR_ENDP = 0x00, MAIN_CTRL = 0x40, SOF_RD = 0x48, SIE_CTRL = 0x4C, SIE_STATUS = 0x50,
	BUFF_STATUS = 0x58, BUFF_CPU_SHOULD_HANDLE = 0x5C, EP_ABORT = 0x60, EP_ABORT_DONE = 0x64,
	EP_STALL_ARM = 0x68, NAK_POLL = 0x6C, EP_STATUS_STALL_NAK = 0x70, USB_MUXING = 0x74,
	USB_PWR = 0x78, USBPHY_TRIM = 0x84, INTR = 0x8C, INTE = 0x90, INTF = 0x94, INTS = 0x98,
};

#define FULL 0x8000u
#define LAST 0x4000u
#define DATA1 0x2000u
#define STALL 0x0800u
#define AVAIL 0x0400u

typedef struct fx {
	xb_board *b;
	xb_usbctrl *u;
	sim_log log;
	unsigned attach_calls, change_calls;
} fx;

static fx F;

static void host_fn(void *ctx, unsigned what)
{
	fx *f = ctx;
	if (what & XB_USBCTRL_ATTACH)
		f->attach_calls++;
	if (what & XB_USBCTRL_CHANGE)
		f->change_calls++;
}

static void w(uint32_t addr, uint32_t v)
{
	assert_int_equal(bus_write(board_bus(F.b), addr, 4, v), 0);
}

static uint32_t r(uint32_t addr)
{
	uint32_t v = 0;
	assert_int_equal(bus_read(board_bus(F.b), addr, 4, &v), 0);
	return v;
}

/* The level of IRQ 5: clear its pending bit; a line still high pends it again. */
static int irq(void)
{
	uint32_t v = 0;
	board_debug_write(F.b, 0xE000E280u, 4, 1u << XB_USBCTRL_IRQ);
	board_debug_read(F.b, 0xE000E200u, 4, &v);
	return (v >> XB_USBCTRL_IRQ) & 1;
}

static int setup(void **state)
{
	(void)state;
	memset(&F, 0, sizeof F);
	F.b = sim_board(&F.log);
	F.u = usbctrl_new(F.b);
	assert_non_null(F.u);
	usbctrl_set_host(F.u, host_fn, &F);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	board_free(F.b);
	usbctrl_free(F.u);
	return 0;
}

/* What every driver does first (reference 1.10 step 1), then VBUS from the host. */
static void driver_init(uint32_t inte)
{
	w(REG + USB_MUXING, 0x9);
	w(REG + USB_PWR, 0xC);
	w(REG + MAIN_CTRL, 1);
	w(REG + SIE_CTRL, 1u << 29); /* EP0_INT_1BUF */
	w(REG + INTE, inte);
	w(REG + SET + SIE_CTRL, 1u << 16); /* PULLUP_EN */
	usbctrl_set_vbus(F.u, 1);
}

#define PER_BUFF (1u << 29)

/* An endpoint control word for EPn (IN or OUT): enabled, type, buffer, other bits. */
static void ep_ctrl(unsigned n, int in, uint32_t type, uint32_t buf, uint32_t extra)
{
	w(DP + 8 * n + (in ? 0 : 4), 0x80000000u | type << 26 | buf | extra);
}

static uint32_t bc_addr(unsigned n, int in)
{
	return DP + 0x80 + 8 * n + (in ? 0 : 4);
}

/* The driver's two-step buffer hand-over: everything but AVAILABLE, then AVAILABLE. */
static void arm(unsigned n, int in, uint32_t v)
{
	w(bc_addr(n, in), v);
	w(bc_addr(n, in), v | AVAIL);
}

static const uint8_t get_device[8] = {0x80, 0x06, 0x00, 0x01, 0x00, 0x00, 0x40, 0x00};

static void test_registers_and_dpram(void **state)
{
	(void)state;
	assert_int_equal(r(REG + NAK_POLL), 0x00100010u);
	assert_int_equal(r(REG + USBPHY_TRIM), 0x1F1Fu);
	assert_int_equal(r(REG + SIE_STATUS), 0);
	/* Plain RW registers take the aliases. */
	w(REG + INTE, 0x11010);
	w(REG + SET + INTE, 0x2);
	w(REG + CLR + INTE, 0x10);
	w(REG + 0x1000 + INTE, 0x3);
	assert_int_equal(r(REG + INTE), 0x11001);
	/* Narrow register writes are replicated (datasheet 2.1.4). */
	assert_int_equal(bus_write(board_bus(F.b), REG + USB_MUXING, 1, 0x9), 0);
	assert_int_equal(r(REG + USB_MUXING), 0x9);
	/* The DPRAM is memory: exact bytes, halfwords, and the aliases on a word. */
	assert_int_equal(bus_write(board_bus(F.b), DP + 0x181, 1, 0xAB), 0);
	assert_int_equal(bus_write(board_bus(F.b), DP + 0x182, 2, 0x1234), 0);
	assert_int_equal(r(DP + 0x180), 0x1234AB00u);
	w(DP + 0x88, 0x00008040u);
	w(DP + SET + 0x88, 0x400);
	w(DP + CLR + 0x88, 0x8000);
	assert_int_equal(r(DP + 0x88), 0x440u);
	uint32_t v;
	assert_int_equal(bus_read(board_bus(F.b), DP + 0x88, 1, &v), 0);
	assert_int_equal(v, 0x40);
	assert_int_equal(usbctrl_dpram(F.u)[0x88], 0x40);
	/* INTR and INTS ignore writes; so does the reserved word that drivers' memset of the
	 * register block writes (TinyUSB, Zephyr). Past the block: a hole. */
	w(REG + INTR, 0xFFFFFFFFu);
	assert_int_equal(r(REG + INTR), 0);
	for (uint32_t off = 0; off < 0x9C; off += 4)
		w(REG + off, 0);
	assert_int_equal(r(REG + 0x88), 0);
	assert_int_equal(F.log.lines, 0);
	w(REG + 0x9C, 1);
	assert_int_equal(F.log.lines, 1);
}

static void test_attach_connect_vbus(void **state)
{
	(void)state;
	assert_false(usbctrl_attached(F.u));
	w(REG + MAIN_CTRL, 1);
	w(REG + INTE, (1u << 13) | (1u << 11)); /* DEV_CONN_DIS, VBUS_DETECT */
	assert_false(usbctrl_attached(F.u));
	w(REG + SET + SIE_CTRL, 1u << 16);
	assert_true(usbctrl_attached(F.u));
	assert_int_equal(F.attach_calls, 1);
	/* No VBUS yet: attached but not connected, line SE0. */
	assert_int_equal(r(REG + SIE_STATUS), 0);
	assert_false(irq());
	usbctrl_set_vbus(F.u, 1);
	uint32_t st = r(REG + SIE_STATUS);
	assert_int_equal(st & 0x1001Du, (1u << 16) | (1u << 2) | 1u); /* CONNECTED, J, VBUS */
	assert_int_equal(r(REG + INTR) & 0x2800u, 0x2800u);
	assert_true(irq());
	/* The "changed" flags clear by writing their SIE_STATUS bits, state stays. */
	w(REG + CLR + SIE_STATUS, 1u << 16);
	assert_int_equal(r(REG + INTR) & 0x2800u, 0x0800u);
	w(REG + SIE_STATUS, 1u);
	assert_int_equal(r(REG + INTR) & 0x2800u, 0);
	assert_false(irq());
	assert_int_equal(r(REG + SIE_STATUS) & 0x10001u, 0x10001u);
	/* USB_PWR can force VBUS_DETECTED: not a change the detector reports (Zephyr forces
	 * VBUS with VBUS_DETECT enabled and never clears it). The cable is one. */
	w(REG + USB_PWR, 0x8);
	assert_int_equal(r(REG + SIE_STATUS) & 1u, 0);
	assert_false(irq());
	w(REG + USB_PWR, 0);
	usbctrl_set_vbus(F.u, 0);
	assert_int_equal(r(REG + INTR) & 0x2800u, 0x2800u); /* no VBUS, not connected */
	w(REG + SIE_STATUS, (1u << 16) | 1u);
	usbctrl_set_vbus(F.u, 1);
	/* Pull-up off: detached, a connection change. */
	w(REG + CLR + SIE_CTRL, 1u << 16);
	assert_false(usbctrl_attached(F.u));
	assert_int_equal(F.attach_calls, 2);
	assert_int_equal(r(REG + INTR) & 0x2000u, 0x2000u);
	assert_int_equal(r(REG + SIE_STATUS) & (1u << 16), 0);
}

static void test_setup_and_control_read(void **state)
{
	(void)state;
	driver_init(0x11010); /* SETUP_REQ, BUS_RESET, BUFF_STATUS */
	assert_false(irq());
	assert_int_equal(usbctrl_setup(F.u, 0, get_device), XB_USB_ACK);
	assert_memory_equal(usbctrl_dpram(F.u), get_device, 8);
	assert_int_equal(r(DP), 0x01000680u);
	assert_int_equal(r(DP + 4), 0x00400000u);
	assert_int_equal(r(REG + SIE_STATUS) & (1u << 17), 1u << 17);
	assert_int_equal(r(REG + INTS), 1u << 16);
	assert_true(irq());
	w(REG + CLR + SIE_STATUS, 1u << 17);
	assert_int_equal(r(REG + INTS), 0);
	assert_false(irq());

	/* Nothing armed: NAK. */
	uint8_t buf[1024];
	unsigned len;
	int d1;
	assert_int_equal(usbctrl_in(F.u, 0, 0, buf, &len, &d1), XB_USB_NAK);
	/* FULL without AVAILABLE is not enough (the driver's first write). */
	for (int i = 0; i < 18; i++)
		assert_int_equal(bus_write(board_bus(F.b), DP + 0x100 + i, 1, (uint32_t)(i + 1)), 0);
	w(bc_addr(0, 1), 18 | FULL | DATA1 | LAST);
	assert_int_equal(usbctrl_in(F.u, 0, 0, buf, &len, &d1), XB_USB_NAK);
	w(bc_addr(0, 1), 18 | FULL | DATA1 | LAST | AVAIL);
	assert_int_equal(usbctrl_in(F.u, 0, 0, buf, &len, &d1), XB_USB_DATA);
	assert_int_equal(len, 18);
	assert_int_equal(d1, 1);
	assert_int_equal(buf[0], 1);
	assert_int_equal(buf[17], 18);
	/* Until the host's ACK the buffer is still the controller's. */
	assert_int_equal(r(REG + BUFF_STATUS), 0);
	usbctrl_in_handshake(F.u, 1);
	assert_int_equal(r(bc_addr(0, 1)), 18 | DATA1 | LAST);
	assert_int_equal(r(REG + BUFF_STATUS), 1);
	assert_int_equal(r(REG + SIE_STATUS) & ((1u << 18) | (1u << 30)), (1u << 18) | (1u << 30));
	assert_true(irq());

	/* Status stage: the driver arms EP0 OUT with DATA1 for a zero-length packet. */
	arm(0, 0, DATA1 | 64);
	assert_int_equal(usbctrl_out(F.u, 0, 0, 1, NULL, 0), XB_USB_ACK);
	assert_int_equal(r(bc_addr(0, 0)), FULL | DATA1);
	assert_int_equal(r(REG + BUFF_STATUS), 3);
	/* BUFF_STATUS is write-1-to-clear with the raw value under the CLR alias. */
	w(REG + CLR + BUFF_STATUS, 1);
	assert_int_equal(r(REG + BUFF_STATUS), 2);
	assert_true(irq());
	w(REG + SET + BUFF_STATUS, 2); /* raw value under SET clears too */
	assert_int_equal(r(REG + BUFF_STATUS), 0);
	w(REG + CLR + SIE_STATUS, 0xFFFFFFFFu);
	assert_false(irq());
}

static void test_control_write_toggles(void **state)
{
	(void)state;
	driver_init(0x10);
	static const uint8_t set_filter[8] = {0x21, 0x43, 0x0C, 0x00, 0x00, 0x00, 0x00, 0x00};
	uint8_t setup_out[8] = {0x40, 0x01, 0, 0, 0, 0, 100, 0};
	assert_int_equal(usbctrl_setup(F.u, 0, setup_out), XB_USB_ACK);
	uint8_t data[100];
	for (int i = 0; i < 100; i++)
		data[i] = (uint8_t)(0xA0 + i);
	/* Data stage: DATA1, then DATA0; the host repeats the first packet (lost ACK). */
	arm(0, 0, DATA1 | 64);
	assert_int_equal(usbctrl_out(F.u, 0, 0, 1, data, 64), XB_USB_ACK);
	assert_int_equal(r(bc_addr(0, 0)), FULL | DATA1 | 64);
	assert_memory_equal(usbctrl_dpram(F.u) + 0x100, data, 64);
	w(REG + CLR + BUFF_STATUS, 2);
	arm(0, 0, 64);
	assert_int_equal(usbctrl_out(F.u, 0, 0, 1, data, 64), XB_USB_ACK); /* wrong PID */
	assert_int_equal(r(REG + SIE_STATUS) >> 31, 1);
	assert_int_equal(r(REG + BUFF_STATUS), 0);
	assert_int_equal(r(bc_addr(0, 0)), 64 | AVAIL);
	assert_int_equal(usbctrl_out(F.u, 0, 0, 0, data + 64, 36), XB_USB_ACK);
	assert_int_equal(r(bc_addr(0, 0)), FULL | 36);
	assert_memory_equal(usbctrl_dpram(F.u) + 0x100, data + 64, 36);
	/* Status stage: an IN zero-length packet with DATA1. */
	uint8_t buf[64];
	unsigned len;
	int d1;
	arm(0, 1, FULL | DATA1 | LAST);
	assert_int_equal(usbctrl_in(F.u, 0, 0, buf, &len, &d1), XB_USB_DATA);
	assert_int_equal(len, 0);
	assert_int_equal(d1, 1);
	usbctrl_in_handshake(F.u, 1);
	assert_int_equal(r(REG + BUFF_STATUS), 3);
	/* A class request with no data: SETUP then the IN status only. */
	assert_int_equal(usbctrl_setup(F.u, 0, set_filter), XB_USB_ACK);
	assert_int_equal(r(DP), 0x000C4321u);
}

static void test_bulk_nak_short_zlp_overflow(void **state)
{
	(void)state;
	driver_init(0x10);
	ep_ctrl(2, 0, 2, 0x180, PER_BUFF);
	ep_ctrl(2, 1, 2, 0x1C0, PER_BUFF);
	uint8_t pkt[64], buf[1024];
	for (int i = 0; i < 64; i++)
		pkt[i] = (uint8_t)i;
	unsigned len;
	int d1;
	/* NAK until a buffer is available, both ways. */
	assert_int_equal(usbctrl_out(F.u, 0, 2, 0, pkt, 64), XB_USB_NAK);
	assert_int_equal(usbctrl_in(F.u, 0, 2, buf, &len, &d1), XB_USB_NAK);
	arm(2, 0, 64);
	assert_int_equal(usbctrl_out(F.u, 0, 2, 0, pkt, 64), XB_USB_ACK);
	assert_int_equal(r(bc_addr(2, 0)) & 0xFFFFu, FULL | 64);
	/* The buffer is full until the driver gives it back. */
	assert_int_equal(usbctrl_out(F.u, 0, 2, 1, pkt, 10), XB_USB_NAK);
	assert_int_equal(r(REG + BUFF_STATUS), 1u << 5);
	w(REG + CLR + BUFF_STATUS, 1u << 5);
	arm(2, 0, DATA1 | 64);
	assert_int_equal(usbctrl_out(F.u, 0, 2, 1, pkt, 10), XB_USB_ACK); /* short */
	assert_int_equal(r(bc_addr(2, 0)) & 0xFFFFu, FULL | DATA1 | 10);
	/* Longer than LENGTH: no handshake, RX_OVERFLOW, nothing stored. */
	arm(2, 0, 8);
	assert_int_equal(usbctrl_out(F.u, 0, 2, 0, pkt, 9), XB_USB_NONE);
	assert_int_equal(r(bc_addr(2, 0)) & 0xFFFFu, AVAIL | 8);
	assert_int_equal(r(REG + SIE_STATUS) & (1u << 26), 1u << 26);
	/* A zero-length IN packet. */
	arm(2, 1, FULL);
	assert_int_equal(usbctrl_in(F.u, 0, 2, buf, &len, &d1), XB_USB_DATA);
	assert_int_equal(len, 0);
	assert_int_equal(d1, 0);
	usbctrl_in_handshake(F.u, 1);
	assert_int_equal(r(REG + BUFF_STATUS) & (1u << 4), 1u << 4);
	/* No handshake from the host: the packet stays, RX_TIMEOUT. */
	memcpy(usbctrl_dpram(F.u) + 0x1C0, pkt, 64);
	arm(2, 1, FULL | DATA1 | 64);
	assert_int_equal(usbctrl_in(F.u, 0, 2, buf, &len, &d1), XB_USB_DATA);
	assert_int_equal(len, 64);
	assert_memory_equal(buf, pkt, 64);
	usbctrl_in_handshake(F.u, 0);
	assert_int_equal(r(bc_addr(2, 1)) & 0xFFFFu, FULL | DATA1 | AVAIL | 64);
	assert_int_equal(r(REG + SIE_STATUS) & (1u << 27), 1u << 27);
	/* Endpoints not enabled and other addresses get no answer. */
	assert_int_equal(usbctrl_in(F.u, 0, 3, buf, &len, &d1), XB_USB_NONE);
	assert_int_equal(usbctrl_in(F.u, 1, 2, buf, &len, &d1), XB_USB_NONE);
}

static void test_stall(void **state)
{
	(void)state;
	driver_init(0x10 | (1u << 19));
	uint8_t buf[64];
	unsigned len;
	int d1;
	/* EP0: STALL in buffer control alone does nothing ... */
	w(bc_addr(0, 1), STALL);
	assert_int_equal(usbctrl_in(F.u, 0, 0, buf, &len, &d1), XB_USB_NAK);
	/* ... EP_STALL_ARM makes it stall ... */
	w(REG + SET + EP_STALL_ARM, 1);
	assert_int_equal(usbctrl_in(F.u, 0, 0, buf, &len, &d1), XB_USB_STALL);
	assert_int_equal(usbctrl_out(F.u, 0, 0, 1, NULL, 0), XB_USB_NAK); /* OUT not armed */
	w(bc_addr(0, 0), STALL);
	w(REG + SET + EP_STALL_ARM, 2);
	assert_int_equal(usbctrl_out(F.u, 0, 0, 1, NULL, 0), XB_USB_STALL);
	/* Nothing reported unless asked (SIE_CTRL.EP0_INT_STALL). */
	assert_int_equal(r(REG + EP_STATUS_STALL_NAK), 0);
	w(REG + SET + SIE_CTRL, 1u << 31);
	assert_int_equal(usbctrl_in(F.u, 0, 0, buf, &len, &d1), XB_USB_STALL);
	assert_int_equal(r(REG + EP_STATUS_STALL_NAK), 1);
	assert_int_equal(r(REG + INTR) & (1u << 19), 1u << 19);
	assert_true(irq());
	w(REG + CLR + EP_STATUS_STALL_NAK, 1);
	assert_false(irq());
	/* ... and a SETUP clears EP_STALL_ARM. */
	assert_int_equal(usbctrl_setup(F.u, 0, get_device), XB_USB_ACK);
	assert_int_equal(r(REG + EP_STALL_ARM), 0);
	assert_int_equal(usbctrl_in(F.u, 0, 0, buf, &len, &d1), XB_USB_NAK);
	/* EPx: the buffer control bit alone; NAK reporting per endpoint. */
	ep_ctrl(1, 1, 3, 0x180, PER_BUFF | 1u << 16);
	assert_true(usbctrl_reports_nak(F.u));
	assert_int_equal(usbctrl_in(F.u, 0, 1, buf, &len, &d1), XB_USB_NAK);
	assert_int_equal(r(REG + EP_STATUS_STALL_NAK), 1u << 2);
	w(bc_addr(1, 1), STALL);
	assert_int_equal(usbctrl_in(F.u, 0, 1, buf, &len, &d1), XB_USB_STALL);
}

static void test_bus_reset_and_address(void **state)
{
	(void)state;
	driver_init(0x11010);
	w(REG + ADDR_ENDP, 5);
	assert_int_equal(usbctrl_address(F.u), 5);
	assert_int_equal(usbctrl_setup(F.u, 0, get_device), XB_USB_NONE);
	assert_int_equal(usbctrl_setup(F.u, 5, get_device), XB_USB_ACK);
	w(REG + CLR + SIE_STATUS, 1u << 17);
	assert_false(irq());
	usbctrl_bus_reset(F.u, 1);
	assert_int_equal(r(REG + SIE_STATUS) & ((1u << 19) | 0xCu), 1u << 19); /* SE0 */
	assert_int_equal(r(REG + INTS), 1u << 12);
	assert_true(irq());
	/* Nothing is answered during the reset. */
	assert_int_equal(usbctrl_setup(F.u, 5, get_device), XB_USB_NONE);
	usbctrl_bus_reset(F.u, 0);
	/* The address is the driver's to reset. */
	assert_int_equal(usbctrl_address(F.u), 5);
	w(REG + CLR + SIE_STATUS, 1u << 19);
	w(REG + ADDR_ENDP, 0);
	assert_false(irq());
	assert_int_equal(usbctrl_setup(F.u, 0, get_device), XB_USB_ACK);
}

static void test_double_buffering(void **state)
{
	(void)state;
	driver_init(0x10);
	ep_ctrl(1, 0, 2, 0x200, PER_BUFF | 1u << 30); /* double buffered, per buffer */
	ep_ctrl(1, 1, 2, 0x280, (1u << 30) | (1u << 28)); /* per double buffer only */
	uint8_t a[64], b[64], buf[64];
	memset(a, 0xAA, sizeof a);
	memset(b, 0xBB, sizeof b);
	/* OUT: both buffers armed at once. */
	w(bc_addr(1, 0), (uint32_t)(DATA1 | 64) << 16 | 64);
	w(bc_addr(1, 0), (uint32_t)(DATA1 | AVAIL | 64) << 16 | AVAIL | 64);
	assert_int_equal(usbctrl_out(F.u, 0, 1, 0, a, 64), XB_USB_ACK);
	assert_int_equal(r(REG + BUFF_STATUS), 1u << 3);
	assert_int_equal(r(REG + BUFF_CPU_SHOULD_HANDLE), 0);
	w(REG + CLR + BUFF_STATUS, 1u << 3);
	assert_int_equal(usbctrl_out(F.u, 0, 1, 1, b, 20), XB_USB_ACK);
	assert_int_equal(r(REG + BUFF_STATUS), 1u << 3);
	assert_int_equal(r(REG + BUFF_CPU_SHOULD_HANDLE), 1u << 3);
	assert_int_equal(r(bc_addr(1, 0)), (uint32_t)(FULL | DATA1 | 20) << 16 | FULL | 64);
	assert_memory_equal(usbctrl_dpram(F.u) + 0x200, a, 64);
	assert_memory_equal(usbctrl_dpram(F.u) + 0x240, b, 20);
	assert_int_equal(usbctrl_out(F.u, 0, 1, 0, a, 1), XB_USB_NAK); /* buffer 0 again: full */
	/* "Reset buffer select" makes the next packet use buffer 0 whatever the selector. */
	w(bc_addr(1, 0), 64 | AVAIL | (1u << 12));
	assert_int_equal(usbctrl_out(F.u, 0, 1, 0, b, 2), XB_USB_ACK);
	assert_int_equal(r(bc_addr(1, 0)) & 0xFFFFu, FULL | 2); /* RESET cleared at the end */
	/* IN, one interrupt per two buffers. */
	memcpy(usbctrl_dpram(F.u) + 0x280, a, 64);
	memcpy(usbctrl_dpram(F.u) + 0x2C0, b, 64);
	w(bc_addr(1, 1), (uint32_t)(FULL | DATA1 | AVAIL | 8) << 16 | FULL | AVAIL | 64);
	unsigned len;
	int d1;
	w(REG + CLR + BUFF_STATUS, 0xFFFFFFFFu);
	assert_int_equal(usbctrl_in(F.u, 0, 1, buf, &len, &d1), XB_USB_DATA);
	assert_int_equal(len, 64);
	assert_int_equal(d1, 0);
	assert_int_equal(buf[0], 0xAA);
	usbctrl_in_handshake(F.u, 1);
	assert_int_equal(r(REG + BUFF_STATUS), 0);
	assert_int_equal(usbctrl_in(F.u, 0, 1, buf, &len, &d1), XB_USB_DATA);
	assert_int_equal(len, 8);
	assert_int_equal(d1, 1);
	assert_int_equal(buf[0], 0xBB);
	usbctrl_in_handshake(F.u, 1);
	assert_int_equal(r(REG + BUFF_STATUS), 1u << 2);
	assert_int_equal(r(REG + BUFF_CPU_SHOULD_HANDLE), 1u << 2);
	assert_int_equal(r(bc_addr(1, 1)), (uint32_t)(DATA1 | 8) << 16 | 64);
}

static void test_sof_suspend_abort_force(void **state)
{
	(void)state;
	driver_init((1u << 17) | (1u << 15) | (1u << 14) | (1u << 18));
	board_halt(F.b); /* no program: let time pass with events only */
	/* 3 ms without bus activity: suspend (datasheet 4.1.2.6.4), not a cycle earlier. */
	board_run(F.b, 125000 * 3 - 100);
	assert_int_equal(r(REG + SIE_STATUS) & (1u << 4), 0);
	board_run(F.b, 125000 + 100);
	assert_int_equal(r(REG + SIE_STATUS) & (1u << 4), 1u << 4);
	assert_int_equal(r(REG + INTS), 1u << 14);
	w(REG + CLR + SIE_STATUS, 1u << 4);
	assert_false(irq());
	board_run(F.b, 125000 * 10); /* suspended it stays, with no second interrupt */
	assert_int_equal(r(REG + SIE_STATUS) & (1u << 4), 1u << 4);
	assert_false(irq());
	/* A SOF (its SYNC is a K) ends it: RESUME and DEV_RESUME_FROM_HOST, not DEV_SUSPEND,
	 * and DEV_SOF until SOF_RD is read. */
	usbctrl_sof(F.u, 0x1234);
	assert_int_equal(r(REG + SIE_STATUS) & ((1u << 4) | (1u << 11)), 1u << 11);
	assert_int_equal(r(REG + INTS), (1u << 17) | (1u << 15));
	w(REG + SIE_STATUS, 1u << 11);
	assert_int_equal(r(REG + SIE_STATUS) & (1u << 11), 0);
	uint32_t v = 0;
	board_debug_read(F.b, REG + SOF_RD, 4, &v); /* the debugger's read changes nothing */
	assert_int_equal(v, 0x234);
	assert_int_equal(r(REG + INTS), 1u << 17);
	assert_int_equal(r(REG + SOF_RD), 0x234);
	assert_int_equal(r(REG + INTS), 0);
	/* SOFs every millisecond keep it awake. */
	for (unsigned f = 0; f < 6; f++) {
		usbctrl_sof(F.u, f);
		board_run(F.b, 125000);
	}
	assert_int_equal(r(REG + SIE_STATUS) & (1u << 4), 0);
	assert_int_equal(r(REG + INTS) & ((1u << 14) | (1u << 15)), 0);
	/* Suspended again, then a bus reset (SE0) ends it: RESUME as well as BUS_RESET. */
	board_run(F.b, 125000 * 4);
	assert_int_equal(r(REG + INTS) & (1u << 14), 1u << 14);
	w(REG + CLR + SIE_STATUS, 1u << 4);
	usbctrl_bus_reset(F.u, 1);
	assert_int_equal(r(REG + SIE_STATUS) & ((1u << 4) | (1u << 11) | (1u << 19)),
			 (1u << 11) | (1u << 19));
	assert_int_equal(r(REG + INTS) & ((1u << 14) | (1u << 15)), 1u << 15);
	usbctrl_bus_reset(F.u, 0);
	w(REG + CLR + SIE_STATUS, (1u << 11) | (1u << 19));
	/* Resume signalling from the host: K on LINE_STATE while it lasts, and it keeps the
	 * device awake as long as it lasts. */
	board_run(F.b, 125000 * 4);
	w(REG + CLR + SIE_STATUS, 1u << 4);
	usbctrl_resume(F.u, 1);
	assert_int_equal(r(REG + SIE_STATUS) & ((1u << 4) | (1u << 11) | (3u << 2)),
			 (1u << 11) | (2u << 2));
	w(REG + CLR + SIE_STATUS, 1u << 11);
	board_run(F.b, 125000 * 20);
	assert_int_equal(r(REG + SIE_STATUS) & (1u << 4), 0);
	usbctrl_resume(F.u, 0);
	assert_int_equal(r(REG + SIE_STATUS) & (3u << 2), 1u << 2);
	assert_int_equal(r(REG + INTS) & ((1u << 14) | (1u << 15)), 0);
	usbctrl_sof(F.u, 7);
	/* EP_ABORT: NAK while set, ABORT_DONE at once when idle. */
	ep_ctrl(2, 0, 2, 0x180, PER_BUFF);
	arm(2, 0, 64);
	w(REG + SET + EP_ABORT, 1u << 5);
	assert_int_equal(r(REG + EP_ABORT_DONE), 1u << 5);
	assert_int_equal(r(REG + INTS) & (1u << 18), 1u << 18);
	uint8_t pkt[4] = {1, 2, 3, 4};
	assert_int_equal(usbctrl_out(F.u, 0, 2, 0, pkt, 4), XB_USB_NAK);
	w(REG + EP_ABORT_DONE, 1u << 5);
	w(REG + CLR + EP_ABORT, 1u << 5);
	assert_int_equal(usbctrl_out(F.u, 0, 2, 0, pkt, 4), XB_USB_ACK);
	/* INTF forces the line whatever INTE says. */
	w(REG + INTE, 0);
	assert_false(irq());
	w(REG + INTF, 1u << 4);
	assert_true(irq());
	assert_int_equal(r(REG + INTS), 1u << 4);
	w(REG + INTF, 0);
	assert_false(irq());
}

static void test_block_and_system_reset(void **state)
{
	(void)state;
	driver_init(0x10);
	assert_true(usbctrl_attached(F.u));
	unsigned calls = F.attach_calls;
	w(DP + 0x100, 0x12345678u);
	usbctrl_block_reset(F.u, 1);
	assert_false(usbctrl_attached(F.u));
	assert_int_equal(F.attach_calls, calls + 1);
	assert_int_equal(r(REG + MAIN_CTRL), 0);
	w(REG + MAIN_CTRL, 1); /* ignored while held */
	assert_int_equal(r(REG + MAIN_CTRL), 0);
	assert_int_equal(r(DP + 0x100), 0x12345678u);
	usbctrl_block_reset(F.u, 0);
	driver_init(0x10);
	assert_true(usbctrl_attached(F.u));
	board_reset(F.b);
	assert_false(usbctrl_attached(F.u));
	assert_int_equal(r(REG + INTE), 0);
	assert_true(F.change_calls > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_registers_and_dpram, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attach_connect_vbus, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setup_and_control_read, setup, teardown),
		cmocka_unit_test_setup_teardown(test_control_write_toggles, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bulk_nak_short_zlp_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stall, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bus_reset_and_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_double_buffering, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sof_suspend_abort_force, setup, teardown),
		cmocka_unit_test_setup_teardown(test_block_and_system_reset, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
