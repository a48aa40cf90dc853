/* sio_interp.c: the SIO interpolators (RP2040 datasheet 2.3.1.6) driven register by register
 * the way pico-sdk's hardware_interp does it, replaying the datasheet's examples (moving
 * mask, sign extension, lane crossover, simple blends, audio upscaling by linear
 * interpolation, clamp) and the flags around them (FORCE_MSB, ADD_RAW, BASE_1AND0, ACCUMx_ADD,
 * OVERF, which mode each interpolator has). Prints one line per result. */
#include "rt.h"

#define INTERP(n) (SIO_BASE + 0x80u + 0x40u * (n))
#define ACCUM0(n) REG(INTERP(n) + 0x00)
#define ACCUM1(n) REG(INTERP(n) + 0x04)
#define BASE0(n) REG(INTERP(n) + 0x08)
#define BASE1(n) REG(INTERP(n) + 0x0C)
#define BASE2(n) REG(INTERP(n) + 0x10)
#define POP0(n) REG(INTERP(n) + 0x14)
#define POP1(n) REG(INTERP(n) + 0x18)
#define POP2(n) REG(INTERP(n) + 0x1C)
#define PEEK0(n) REG(INTERP(n) + 0x20)
#define PEEK1(n) REG(INTERP(n) + 0x24)
#define PEEK2(n) REG(INTERP(n) + 0x28)
#define CTRL0(n) REG(INTERP(n) + 0x2C)
#define CTRL1(n) REG(INTERP(n) + 0x30)
#define ADD0(n) REG(INTERP(n) + 0x34)
#define ADD1(n) REG(INTERP(n) + 0x38)
#define BASE10(n) REG(INTERP(n) + 0x3C)

/* CTRL_LANEx fields (hardware/regs/sio.h). */
#define SHIFT(s) ((uint32_t)(s))
#define MASK(lsb, msb) (((uint32_t)(lsb) << 5) | ((uint32_t)(msb) << 10))
#define SIGNED (1u << 15)
#define CROSS_INPUT (1u << 16)
#define CROSS_RESULT (1u << 17)
#define ADD_RAW (1u << 18)
#define FORCE_MSB(v) ((uint32_t)(v) << 19)
#define BLEND (1u << 21)
#define CLAMP (1u << 22)
#define DEFAULT MASK(0, 31) /* interp_default_config: no shift, full mask */

static void put_int(int32_t v)
{
	if (v < 0) {
		rt_putc('-');
		rt_put_dec((uint32_t)-v);
	} else {
		rt_put_dec((uint32_t)v);
	}
}

static void sp(void)
{
	rt_putc(' ');
}

static void nl(void)
{
	rt_putc('\n');
}

int main(void)
{
	/* Moving mask over ACCUM0 = 0x1234abcd, without and with sign extension. */
	ACCUM0(0) = 0x1234abcdu;
	BASE0(0) = 0;
	for (unsigned s = 0; s < 2; s++) {
		rt_puts(s ? "masksx" : "mask");
		for (unsigned i = 0; i < 8; i++) {
			CTRL0(0) = MASK(4 * i, 4 * i + 3) | (s ? SIGNED : 0);
			sp();
			rt_put_hex(PEEK0(0));
		}
		nl();
	}

	/* The lane operations example: shift 8, mask 7:4, signed. */
	ACCUM0(0) = 0xdeadbeefu;
	CTRL0(0) = SHIFT(8) | MASK(4, 7) | SIGNED;
	rt_puts("deadbeef ");
	rt_put_hex(PEEK0(0));
	nl();

	/* Lane result crossover. */
	CTRL0(0) = DEFAULT | CROSS_RESULT;
	CTRL1(0) = DEFAULT | CROSS_RESULT;
	ACCUM0(0) = 123;
	ACCUM1(0) = 456;
	BASE0(0) = 1;
	BASE1(0) = 0;
	rt_puts("cross");
	for (unsigned i = 0; i < 10; i++) {
		uint32_t peek = PEEK0(0), pop = POP1(0);
		sp();
		rt_put_dec(peek);
		rt_putc(',');
		rt_put_dec(pop);
	}
	nl();

	/* Simple blend 1: 500 to 1000. */
	CTRL0(0) = DEFAULT | BLEND;
	CTRL1(0) = DEFAULT;
	BASE0(0) = 500;
	BASE1(0) = 1000;
	rt_puts("blend1");
	for (unsigned i = 0; i <= 6; i++) {
		ACCUM1(0) = 255 * i / 6;
		sp();
		put_int((int32_t)PEEK1(0));
	}
	nl();

	/* Simple blend 2: -1000 to 1000, lane 1 signed then unsigned. */
	BASE0(0) = (uint32_t)-1000;
	BASE1(0) = 1000;
	for (unsigned s = 0; s < 2; s++) {
		CTRL1(0) = DEFAULT | (s ? 0 : SIGNED);
		rt_puts(s ? "blend2u" : "blend2s");
		for (unsigned i = 0; i <= 6; i++) {
			ACCUM1(0) = 255 * i / 6;
			sp();
			if (s)
				rt_put_hex(PEEK1(0));
			else
				put_int((int32_t)PEEK1(0));
		}
		nl();
	}
	/* In blend mode PEEK0 is alpha and FULL leaves lane 1 out. */
	ACCUM0(0) = 0x30;
	ACCUM1(0) = 0x1C2;
	BASE2(0) = 1000;
	rt_puts("blendlanes ");
	rt_put_hex(PEEK0(0));
	sp();
	rt_put_dec(PEEK2(0));
	nl();

	/* Linear interpolation of 16-bit samples (audio upscaling), 12 fractional bits. */
	static const int16_t samples[] = {0, 10, -20, -1000, 500};
	const unsigned frac = 12;
	CTRL0(0) = SHIFT(frac - 1) | MASK(1, 32 - frac) | BLEND;
	CTRL1(0) = SHIFT(frac - 8) | MASK(0, 31) | SIGNED | CROSS_INPUT;
	ACCUM0(0) = 0;
	BASE2(0) = (uint32_t)(uintptr_t)samples;
	rt_puts("lerp");
	for (unsigned i = 0; i < 16; i++) {
		const int16_t *pair = (const int16_t *)(uintptr_t)PEEK2(0);
		BASE0(0) = (uint32_t)(int32_t)pair[0];
		BASE1(0) = (uint32_t)(int32_t)pair[1];
		sp();
		put_int((int32_t)PEEK1(0));
		rt_putc('@');
		rt_put_dec(ADD1(0) & 0xFF);
		ADD0(0) = (1u << frac) / 4;
	}
	nl();

	/* Clamp (INTERP1): shift 2, mask 29:0 signed, clamped to [0, 255]. */
	CTRL0(1) = SHIFT(2) | MASK(0, 29) | SIGNED | CLAMP;
	BASE0(1) = 0;
	BASE1(1) = 255;
	rt_puts("clamp");
	for (int32_t i = -1024; i <= 1024; i += 256) {
		ACCUM0(1) = (uint32_t)i;
		sp();
		put_int((int32_t)PEEK0(1));
	}
	nl();
	CTRL0(1) = DEFAULT | CLAMP; /* unsigned comparison */
	BASE0(1) = 100;
	BASE1(1) = 0x80000000u;
	rt_puts("clampu");
	static const uint32_t uv[] = {5, 100, 12345, 0x80000000u, 0xFFFFFFF0u};
	for (unsigned i = 0; i < 5; i++) {
		ACCUM0(1) = uv[i];
		sp();
		rt_put_hex(PEEK0(1));
	}
	nl();

	/* FORCE_MSB reaches the bus only: POP writes back the plain result. */
	CTRL0(1) = DEFAULT | FORCE_MSB(2);
	CTRL1(1) = DEFAULT;
	ACCUM0(1) = 0x100;
	BASE0(1) = 4;
	rt_puts("forcemsb ");
	rt_put_hex(PEEK0(1));
	sp();
	rt_put_hex(POP0(1));
	sp();
	rt_put_hex(ACCUM0(1));
	nl();

	/* ADD_RAW on lane 1: BASE1 + ACCUM1; FULL still adds the shift-and-mask values. */
	CTRL0(1) = SHIFT(4) | MASK(0, 3);
	CTRL1(1) = SHIFT(4) | MASK(0, 3) | ADD_RAW;
	ACCUM0(1) = 0x123;
	ACCUM1(1) = 0x456;
	BASE0(1) = 0x1000;
	BASE1(1) = 0x2000;
	BASE2(1) = 0x3000;
	rt_puts("addraw ");
	rt_put_hex(PEEK0(1));
	sp();
	rt_put_hex(PEEK1(1));
	sp();
	rt_put_hex(PEEK2(1));
	nl();
	/* POP_FULL writes both lanes back. */
	rt_puts("popfull ");
	rt_put_hex(POP2(1));
	sp();
	rt_put_hex(ACCUM0(1));
	sp();
	rt_put_hex(ACCUM1(1));
	nl();

	/* BASE_1AND0: each half sign-extended by its lane's SIGNED; in blend mode by lane 1's. */
	CTRL0(1) = DEFAULT | SIGNED;
	CTRL1(1) = DEFAULT;
	BASE10(1) = 0x8001FFFEu;
	rt_puts("base10 ");
	rt_put_hex(BASE0(1));
	sp();
	rt_put_hex(BASE1(1));
	CTRL0(0) = DEFAULT | BLEND;
	CTRL1(0) = DEFAULT | SIGNED;
	BASE10(0) = 0x8001FFFEu;
	sp();
	rt_put_hex(BASE0(0));
	sp();
	rt_put_hex(BASE1(0));
	nl();

	/* ACCUMx_ADD: written values add to the accumulator; reads give the raw lane value. */
	CTRL0(1) = SHIFT(1) | MASK(0, 7);
	ACCUM0(1) = 10;
	ADD0(1) = 5;
	ADD0(1) = 0x20;
	BASE0(1) = 1000;
	rt_puts("accumadd ");
	rt_put_dec(ACCUM0(1));
	sp();
	rt_put_dec(ADD0(1));
	sp();
	rt_put_dec(PEEK0(1));
	nl();

	/* OVERF: bits above MASK_MSB after the shift (CTRL_LANE0 bits 23-25). */
	CTRL0(1) = MASK(0, 7);
	CTRL1(1) = MASK(0, 15);
	ACCUM0(1) = 0x100;
	ACCUM1(1) = 0xFFFF;
	rt_puts("overf ");
	rt_put_hex(CTRL0(1));
	ACCUM0(1) = 0xFF;
	ACCUM1(1) = 0x10000;
	sp();
	rt_put_hex(CTRL0(1));
	sp();
	rt_put_hex(CTRL1(1));
	nl();

	/* Only INTERP0 has BLEND, only INTERP1 has CLAMP. */
	CTRL0(0) = BLEND | CLAMP;
	CTRL0(1) = BLEND | CLAMP;
	rt_puts("modes ");
	rt_put_hex(CTRL0(0) & (BLEND | CLAMP));
	sp();
	rt_put_hex(CTRL0(1) & (BLEND | CLAMP));
	nl();
	return 0;
}
