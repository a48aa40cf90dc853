/* qspi.c: the flash chip through the SSI the way pico-sdk's flash_do_cmd and Zephyr's hwinfo
 * drive it: from SRAM, connect_internal_flash and flash_exit_xip from the ROM, /CS forced low
 * through IO_QSPI GPIO_QSPI_SS_CTRL.OUTOVER, bytes through SSI DR0 in standard SPI, /CS
 * released, flash_flush_cache, then XIP back with flash_enter_cmd_xip (03h). Reads the
 * unique ID (4Bh), the JEDEC ID (9Fh) and SR2; erases and programs a sector with 06h/20h/02h
 * polling BUSY (05h), reads it back through XIP at 0x10000000 and 0x13000000; times
 * uncached XIP reads before and after the switch to 03h. It also carries a boot2 written
 * like pico-sdk's boot2_w25q080.S, which the tests copy to the start of flash: booted
 * through it, the program reports the SSI setup boot2 left. */
#include "rt.h"

#define ROM_CODE(a, b) ((uint32_t)(a) | (uint32_t)(b) << 8)
#define SSI 0x18000000u
#define SSI_CTRLR0 REG(SSI + 0x00)
#define SSI_SSIENR REG(SSI + 0x08)
#define SSI_BAUDR REG(SSI + 0x14)
#define SSI_SR REG(SSI + 0x28)
#define SSI_DR0 REG(SSI + 0x60)
#define SSI_SPI_CTRLR0 REG(SSI + 0xF4)
#define SR_TFNF 0x2u
#define SR_RFNE 0x8u
#define IO_QSPI_SS_CTRL 0x4001800Cu
#define OUTOVER_LOW 2u
#define OUTOVER_HIGH 3u
#define OFFSET 0x180000u /* the sector this program erases and programs */

typedef void *(*rom_lookup_fn)(const uint16_t *table, uint32_t code);

static const volatile void *rom_ptr(uint32_t addr)
{
	const volatile void *p;
	__asm volatile("" : "=r"(p) : "0"(addr));
	return p;
}

static void *rom_func(uint32_t code)
{
	rom_lookup_fn lookup = (rom_lookup_fn)(uintptr_t) * (const volatile uint16_t *)rom_ptr(0x18);
	return lookup((const uint16_t *)(uintptr_t) * (const volatile uint16_t *)rom_ptr(0x14), code);
}

static void (*rom_connect)(void), (*rom_exit_xip)(void), (*rom_flush)(void),
	(*rom_enter_cmd_xip)(void);

/* hw_write_masked on GPIO_QSPI_SS_CTRL.OUTOVER, as flash_cs_force does. */
RT_RAMFUNC static void cs_force(uint32_t over)
{
	uint32_t v = REG(IO_QSPI_SS_CTRL);
	REG_XOR(IO_QSPI_SS_CTRL) = (v ^ (over << 8)) & 0x300u;
}

/* pico-sdk's flash_do_cmd: at most 14 bytes in flight, /CS held low by the override. */
RT_RAMFUNC static void do_cmd(const uint8_t *tx, uint8_t *rx, uint32_t count)
{
	rom_connect();
	rom_exit_xip();
	cs_force(OUTOVER_LOW);
	uint32_t tx_left = count, rx_left = count;
	while (tx_left || rx_left) {
		uint32_t sr = SSI_SR;
		if ((sr & SR_TFNF) && tx_left && rx_left - tx_left < 14) {
			SSI_DR0 = *tx++;
			tx_left--;
		}
		if ((sr & SR_RFNE) && rx_left) {
			*rx++ = (uint8_t)SSI_DR0;
			rx_left--;
		}
	}
	cs_force(OUTOVER_HIGH);
	rom_flush();
	rom_enter_cmd_xip();
}

static uint8_t buf[300], rxb[300];

RT_RAMFUNC static uint8_t status(uint8_t cmd)
{
	uint8_t t[2] = {cmd, 0}, r[2];
	do_cmd(t, r, 2);
	return r[1];
}

/* 06h, then cmd with a 24-bit address and n data bytes; then polls 05h until BUSY clears.
 * Returns how long BUSY stayed set, in microseconds. */
RT_RAMFUNC static uint32_t write_cmd(uint8_t cmd, uint32_t addr, const uint8_t *data, uint32_t n)
{
	uint8_t wren = 0x06;
	do_cmd(&wren, rxb, 1);
	buf[0] = cmd;
	buf[1] = (uint8_t)(addr >> 16);
	buf[2] = (uint8_t)(addr >> 8);
	buf[3] = (uint8_t)addr;
	for (uint32_t i = 0; i < n; i++)
		buf[4 + i] = data[i];
	do_cmd(buf, rxb, 4 + n);
	uint32_t t0 = TIMER_RAWL; /* from SRAM: no XIP while the flash is busy */
	while (status(0x05) & 1)
		;
	return TIMER_RAWL - t0;
}

/* SysTick cycles of 16 reads through the uncached, non-allocating alias (each one a miss). */
RT_RAMFUNC static uint32_t time_uncached(void)
{
	const volatile uint32_t *p = (const volatile uint32_t *)0x13000400u;
	SYST_RVR = 0xFFFFFF;
	SYST_CVR = 0;
	SYST_CSR = 5;
	uint32_t t0 = SYST_CVR;
	for (int i = 0; i < 16; i++)
		(void)p[i];
	uint32_t t1 = SYST_CVR;
	SYST_CSR = 0;
	return t0 - t1;
}

static void put_bytes(const uint8_t *b, int n)
{
	static const char hex[] = "0123456789abcdef";
	for (int i = 0; i < n; i++) {
		rt_putc(hex[b[i] >> 4]);
		rt_putc(hex[b[i] & 15]);
	}
}

/* A boot2 written like pico-sdk's boot2_w25q080.S (PICO_FLASH_SPI_CLKDIV 2): pads, SSI
 * divider and sample delay, QE in SR2 (35h read, 06h + 01h 00h 02h write, 05h poll), a
 * dummy EBh read with mode bits A0h, then XIP with address + A0h on four lanes and no
 * instruction; then the vector table at 0x10000100 (LR = 0) or a return. Position
 * independent; the tests copy it to 0x10000000 and add the CRC. */
__attribute__((naked, used, aligned(4))) void boot2_w25q080(void)
{
	__asm volatile(
		".syntax unified\n"
		"push {lr}\n"
		"ldr r3, 9f\n"                 /* PADS_QSPI */
		"movs r0, #0x21\n"             /* SCLK: 8 mA, fast slew */
		"str r0, [r3, #4]\n"
		"ldr r0, [r3, #8]\n"
		"movs r1, #2\n"                /* SDx: no Schmitt trigger */
		"bics r0, r0, r1\n"
		"str r0, [r3, #8]\n"         /* (SD0 only: the code and literals must stay above */
		                                /* the stack boot2 uses below 0x20042000) */
		"ldr r3, 8f\n"                 /* XIP_SSI */
		"movs r1, #0\n"
		"str r1, [r3, #8]\n"           /* SSIENR = 0 */
		"movs r1, #2\n"
		"str r1, [r3, #0x14]\n"        /* BAUDR = 2 */
		"movs r1, #1\n"
		"movs r2, #0xf0\n"
		"str r1, [r3, r2]\n"           /* RX_SAMPLE_DLY = 1 */
		"ldr r1, 7f\n"                 /* CTRLR0: 8-bit frames, TX and RX */
		"str r1, [r3, #0]\n"
		"movs r1, #1\n"
		"str r1, [r3, #8]\n"
		"movs r0, #0x35\n"
		"bl 5f\n"                      /* SR2 */
		"movs r2, #2\n"
		"cmp r0, r2\n"
		"beq 2f\n"
		"movs r1, #6\n"
		"str r1, [r3, #0x60]\n"
		"bl 4f\n"
		"ldr r1, [r3, #0x60]\n"
		"movs r1, #1\n"
		"str r1, [r3, #0x60]\n"
		"movs r0, #0\n"
		"str r0, [r3, #0x60]\n"
		"str r2, [r3, #0x60]\n"
		"bl 4f\n"
		"ldr r1, [r3, #0x60]\n"
		"ldr r1, [r3, #0x60]\n"
		"ldr r1, [r3, #0x60]\n"
		"1: movs r0, #5\n"
		"bl 5f\n"
		"movs r1, #1\n"
		"tst r0, r1\n"
		"bne 1b\n"
		"2: movs r1, #0\n"
		"str r1, [r3, #8]\n"
		"ldr r1, 6f\n"                 /* CTRLR0: quad, 32-bit frames, EEPROM read */
		"str r1, [r3, #0]\n"
		                                /* CTRLR1 is 0 (NDF = 0) after flash_exit_xip */
		"ldr r1, 10f\n"                /* SPI_CTRLR0: ADDR_L 8, WAIT 4, INST_L 8, 1C2A */
		"movs r2, #0xf4\n"
		"str r1, [r3, r2]\n"
		"movs r1, #1\n"
		"str r1, [r3, #8]\n"
		"movs r1, #0xeb\n"
		"str r1, [r3, #0x60]\n"
		"movs r1, #0xa0\n"
		"str r1, [r3, #0x60]\n"
		"bl 4f\n"
		"movs r1, #0\n"
		"str r1, [r3, #8]\n"
		"ldr r1, 11f\n"                /* SPI_CTRLR0: A0h mode, ADDR_L 8, WAIT 4, 2C2A */
		"movs r2, #0xf4\n"
		"str r1, [r3, r2]\n"
		"movs r1, #1\n"
		"str r1, [r3, #8]\n"
		"pop {r0}\n"                   /* exit: return, or into the vector table */
		"cmp r0, #0\n"
		"beq 3f\n"
		"bx r0\n"
		"3: ldr r0, 12f\n"
		"ldr r1, 13f\n"
		"str r0, [r1]\n"
		"ldmia r0, {r0, r1}\n"
		"msr msp, r0\n"
		"bx r1\n"
		"4: push {r0, r1, lr}\n"       /* wait_ssi_ready: TFE and not BUSY */
		"41: ldr r1, [r3, #0x28]\n"
		"movs r0, #4\n"
		"tst r1, r0\n"
		"beq 41b\n"
		"movs r0, #1\n"
		"tst r1, r0\n"
		"bne 41b\n"
		"pop {r0, r1, pc}\n"
		"5: push {r1, lr}\n"           /* read_flash_sreg: cmd, dummy; second byte */
		"str r0, [r3, #0x60]\n"
		"str r0, [r3, #0x60]\n"
		"bl 4b\n"
		"ldr r0, [r3, #0x60]\n"
		"ldr r0, [r3, #0x60]\n"
		"pop {r1, pc}\n"
		".balign 4\n"
		"6: .word 0x005f0300\n"
		"7: .word 0x00070000\n"
		"8: .word 0x18000000\n"
		"9: .word 0x40020000\n"
		"10: .word 0x00002221\n"
		"11: .word 0xa0002022\n"
		"12: .word 0x10000100\n"
		"13: .word 0xe000ed08\n"
		".global boot2_w25q080_end\n"
		"boot2_w25q080_end:\n");
}
extern const uint8_t boot2_w25q080_end[];

int main(void)
{
	rt_puts("ssi ctrlr0 ");
	rt_put_hex(SSI_CTRLR0);
	rt_puts(" spi_ctrlr0 ");
	rt_put_hex(SSI_SPI_CTRLR0);
	rt_puts(" baudr ");
	rt_put_dec(SSI_BAUDR);
	rt_putc('\n');
	rt_puts("boot2 code ");
	rt_put_hex((uint32_t)(uintptr_t)boot2_w25q080 & ~1u);
	rt_puts(" bytes ");
	rt_put_dec((uint32_t)((uintptr_t)boot2_w25q080_end - ((uintptr_t)boot2_w25q080 & ~1u)));
	rt_putc('\n');
	rom_connect = rom_func(ROM_CODE('I', 'F'));
	rom_exit_xip = rom_func(ROM_CODE('E', 'X'));
	rom_flush = rom_func(ROM_CODE('F', 'C'));
	rom_enter_cmd_xip = rom_func(ROM_CODE('C', 'X'));
	uint32_t before = time_uncached();

	uint8_t t[13] = {0x4B}, r[13];
	do_cmd(t, r, 13);
	rt_puts("unique id ");
	put_bytes(r + 5, 8);
	rt_putc('\n');
	uint8_t j[4] = {0x9F}, jr[4];
	do_cmd(j, jr, 4);
	rt_puts("jedec id ");
	put_bytes(jr + 1, 3);
	rt_puts(" sr2 ");
	uint8_t s2 = status(0x35);
	put_bytes(&s2, 1);
	rt_putc('\n');
	uint32_t after = time_uncached();
	rt_puts("uncached read cycles ");
	rt_put_dec(before);
	rt_puts(" then ");
	rt_put_dec(after);
	rt_putc('\n');

	uint8_t page[256];
	for (int i = 0; i < 256; i++)
		page[i] = (uint8_t)(i * 5 + 1);
	uint32_t erase_us = write_cmd(0x20, OFFSET, 0, 0);
	uint32_t prog_us = write_cmd(0x02, OFFSET, page, 256);
	const volatile uint8_t *x10 = (const volatile uint8_t *)(0x10000000u + OFFSET);
	const volatile uint8_t *x13 = (const volatile uint8_t *)(0x13000000u + OFFSET);
	int ok = 1;
	for (int i = 0; i < 4096; i++) {
		uint8_t want = i < 256 ? page[i] : 0xFF;
		if (x10[i] != want || x13[i] != want)
			ok = 0;
	}
	rt_puts("ssi erase ");
	rt_put_dec(erase_us);
	rt_puts(" us program ");
	rt_put_dec(prog_us);
	rt_puts(ok ? " us verify ok\n" : " us verify FAILED\n");
	return 0;
}
