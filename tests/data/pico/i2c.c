/* i2c.c: I2C0 driven the way pico-sdk's hardware_i2c does it (i2c_init, i2c_write_blocking,
 * i2c_read_blocking; written here from the register descriptions): a write of a register
 * pointer and two bytes to the board's target at 0x50, a read of four bytes back from the
 * same pointer, a write to an absent address that must NAK with TX_ABRT_SOURCE
 * ABRT_7B_ADDR_NOACK, and the bus time of each transfer in CPU cycles (SysTick) at 100 and
 * 400 kHz. STOP_DET reaches the NVIC as I2C0_IRQ (23) when it is unmasked. */
#include "rt.h"

#define I2C0 0x40044000u
#define IC_CON REG(I2C0 + 0x00)
#define IC_TAR REG(I2C0 + 0x04)
#define IC_DATA_CMD REG(I2C0 + 0x10)
#define IC_FS_SCL_HCNT REG(I2C0 + 0x1C)
#define IC_FS_SCL_LCNT REG(I2C0 + 0x20)
#define IC_INTR_STAT REG(I2C0 + 0x2C)
#define IC_INTR_MASK REG(I2C0 + 0x30)
#define IC_RAW_INTR_STAT REG(I2C0 + 0x34)
#define IC_RX_TL REG(I2C0 + 0x38)
#define IC_TX_TL REG(I2C0 + 0x3C)
#define IC_CLR_TX_ABRT REG(I2C0 + 0x54)
#define IC_CLR_STOP_DET REG(I2C0 + 0x60)
#define IC_ENABLE REG(I2C0 + 0x6C)
#define IC_STATUS REG(I2C0 + 0x70)
#define IC_TXFLR REG(I2C0 + 0x74)
#define IC_RXFLR REG(I2C0 + 0x78)
#define IC_SDA_HOLD REG(I2C0 + 0x7C)
#define IC_TX_ABRT_SOURCE REG(I2C0 + 0x80)
#define IC_DMA_CR REG(I2C0 + 0x88)
#define IC_FS_SPKLEN REG(I2C0 + 0xA0)
#define IC_COMP_PARAM_1 REG(I2C0 + 0xF4)
#define IC_COMP_TYPE REG(I2C0 + 0xFC)
#define RAW_TX_EMPTY 0x10u
#define RAW_TX_ABRT 0x40u
#define RAW_STOP_DET 0x200u
#define NVIC_ISPR REG(0xE000E200u)
#define RESET_I2C0 (1u << 3)

static void set_baud(uint32_t baud)
{
	uint32_t period = (CPU_HZ + baud / 2) / baud;
	uint32_t lcnt = period * 3 / 5, hcnt = period - lcnt;
	IC_ENABLE = 0;
	IC_CON = (IC_CON & ~6u) | 2u << 1; /* SPEED fast */
	IC_FS_SCL_HCNT = hcnt;
	IC_FS_SCL_LCNT = lcnt;
	IC_FS_SPKLEN = lcnt < 16 ? 1 : lcnt / 16;
	IC_SDA_HOLD = (IC_SDA_HOLD & ~0xFFFFu) | ((CPU_HZ * 3) / 10000000 + 1);
	IC_ENABLE = 1;
}

static void init(uint32_t baud)
{
	rt_reset_block(RESET_I2C0);
	IC_ENABLE = 0;
	/* SPEED fast, MASTER_MODE, SLAVE_DISABLE, RESTART_EN, TX_EMPTY_CTRL */
	IC_CON = 2u << 1 | 1u | 0x40u | 0x20u | 0x100u;
	IC_TX_TL = 0;
	IC_RX_TL = 0;
	IC_DMA_CR = 3;
	set_baud(baud);
}

static void systick_start(void)
{
	SYST_RVR = 0xFFFFFF;
	SYST_CVR = 0;
	SYST_CSR = 5; /* processor clock, enabled */
}

static uint32_t systick_elapsed(void)
{
	return 0xFFFFFF - SYST_CVR;
}

/* Returns the bytes written, or -1 (PICO_ERROR_GENERIC) when the address is not
 * acknowledged; *abrt gets TX_ABRT_SOURCE. */
static int write_blocking(uint8_t addr, const uint8_t *src, int len, uint32_t *abrt)
{
	IC_ENABLE = 0;
	IC_TAR = addr;
	IC_ENABLE = 1;
	*abrt = 0;
	int i;
	for (i = 0; i < len; i++) {
		int last = i == len - 1;
		IC_DATA_CMD = (last ? 0x200u : 0) | src[i];
		while (!(IC_RAW_INTR_STAT & RAW_TX_EMPTY))
			;
		uint32_t reason = IC_TX_ABRT_SOURCE;
		int abort = 0;
		if (reason) {
			*abrt = reason;
			(void)IC_CLR_TX_ABRT;
			abort = 1;
		}
		if (abort || last) {
			while (!(IC_RAW_INTR_STAT & RAW_STOP_DET))
				;
			(void)IC_CLR_STOP_DET;
		}
		if (abort)
			return -1;
	}
	return i;
}

static int read_blocking(uint8_t addr, uint8_t *dst, int len, int restart)
{
	IC_ENABLE = 0;
	IC_TAR = addr;
	IC_ENABLE = 1;
	for (int i = 0; i < len; i++) {
		while (16 - IC_TXFLR == 0)
			;
		uint32_t restart_bit = i == 0 && restart ? 0x400u : 0;
		IC_DATA_CMD = restart_bit | (i == len - 1 ? 0x200u : 0) | 0x100u;
		for (;;) {
			if (IC_RAW_INTR_STAT & RAW_TX_ABRT) {
				(void)IC_CLR_TX_ABRT;
				return -1;
			}
			if (IC_RXFLR)
				break;
		}
		dst[i] = (uint8_t)IC_DATA_CMD;
	}
	return len;
}

static void print_bytes(const uint8_t *b, int n)
{
	for (int i = 0; i < n; i++) {
		rt_putc(' ');
		rt_putc("0123456789abcdef"[b[i] >> 4]);
		rt_putc("0123456789abcdef"[b[i] & 15]);
	}
	rt_putc('\n');
}

/* The whole sequence runs twice: the second pass (after "pass 1") runs from a warm
 * XIP cache, so its cycle counts hold the bus time plus a few cycles of polling. */
static void sequence(void)
{
	init(100000);
	rt_puts("i2c comp ");
	rt_put_hex(IC_COMP_TYPE);
	rt_putc(' ');
	rt_put_hex(IC_COMP_PARAM_1);
	rt_puts(" status ");
	rt_put_hex(IC_STATUS);
	rt_putc('\n');

	const uint8_t data[3] = {0x10, 0x11, 0x22};
	uint32_t abrt;
	systick_start();
	int rc = write_blocking(0x50, data, 3, &abrt);
	uint32_t t_write = systick_elapsed();
	rt_puts("i2c write rc ");
	rt_put_dec((uint32_t)rc);
	rt_puts(" cycles ");
	rt_put_dec(t_write);
	rt_putc('\n');

	/* The register pointer again, without STOP, then a read with RESTART. */
	const uint8_t ptr = 0x10;
	IC_ENABLE = 0;
	IC_TAR = 0x50;
	IC_ENABLE = 1;
	IC_DATA_CMD = ptr;
	while (!(IC_RAW_INTR_STAT & RAW_TX_EMPTY))
		;
	uint8_t back[4];
	systick_start();
	for (int i = 0; i < 4; i++) {
		IC_DATA_CMD = (i == 0 ? 0x400u : 0) | (i == 3 ? 0x200u : 0) | 0x100u;
		while (!IC_RXFLR)
			;
		back[i] = (uint8_t)IC_DATA_CMD;
	}
	while (!(IC_RAW_INTR_STAT & RAW_STOP_DET))
		;
	uint32_t t_read = systick_elapsed();
	(void)IC_CLR_STOP_DET;
	rt_puts("i2c read");
	print_bytes(back, 4);
	rt_puts("i2c read cycles ");
	rt_put_dec(t_read);
	rt_putc('\n');

	/* Four more bytes through read_blocking (a new START, no pointer write): the target
	 * goes on from 0x14, after the last byte read. */
	uint8_t more[4];
	rc = read_blocking(0x50, more, 4, 0);
	rt_puts("i2c read2 rc ");
	rt_put_dec((uint32_t)rc);
	print_bytes(more, 4);

	/* Nobody at 0x23: NAK. STOP_DET is unmasked so the line reaches the NVIC. */
	(void)IC_CLR_STOP_DET; /* read_blocking leaves the last STOP_DET set, as the SDK's */
	NVIC_ICPR = 1u << 23;
	IC_INTR_MASK = RAW_STOP_DET;
	systick_start();
	const uint8_t one = 0x5A;
	rc = write_blocking(0x23, &one, 1, &abrt);
	uint32_t t_nak = systick_elapsed();
	rt_puts("i2c nak rc ");
	rt_put_sdec64(rc);
	rt_puts(" abrt ");
	rt_put_hex(abrt);
	rt_puts(" cycles ");
	rt_put_dec(t_nak);
	rt_putc('\n');
	rt_puts("i2c stop irq ");
	rt_put_dec((NVIC_ISPR >> 23) & 1);
	rt_putc('\n');
	IC_INTR_MASK = 0;

	/* 400 kHz: a one-byte write. */
	set_baud(400000);
	systick_start();
	rc = write_blocking(0x50, data, 1, &abrt);
	uint32_t t_fast = systick_elapsed();
	rt_puts("i2c fast rc ");
	rt_put_dec((uint32_t)rc);
	rt_puts(" cycles ");
	rt_put_dec(t_fast);
	rt_putc('\n');
}

int main(void)
{
	for (uint32_t pass = 0; pass < 2; pass++) {
		rt_puts("pass ");
		rt_put_dec(pass);
		rt_putc('\n');
		sequence();
	}
	return 0;
}
