/* sio_interp: the SIO's interpolators (RP2040 datasheet 2.3.1.6), two per core: INTERP0 with
 * blend mode, INTERP1 with clamp mode. Each lane shifts, masks and optionally sign-extends an
 * accumulator and adds a base; the results can be read without side effects (PEEK) or read
 * and written back to the accumulators (POP). Registers: pico-sdk hardware/regs/sio.h. */
#include "periph.h"

enum {
	IP_ACCUM0 = 0x00,
	IP_ACCUM1 = 0x04,
	IP_BASE0 = 0x08,
	IP_BASE1 = 0x0C,
	IP_BASE2 = 0x10,
	IP_POP_LANE0 = 0x14,
	IP_POP_LANE1 = 0x18,
	IP_POP_FULL = 0x1C,
	IP_PEEK_LANE0 = 0x20,
	IP_PEEK_LANE1 = 0x24,
	IP_PEEK_FULL = 0x28,
	IP_CTRL_LANE0 = 0x2C,
	IP_CTRL_LANE1 = 0x30,
	IP_ACCUM0_ADD = 0x34,
	IP_ACCUM1_ADD = 0x38,
	IP_BASE_1AND0 = 0x3C,
};

/* CTRL_LANEx fields. */
#define IP_SHIFT(c) ((c) & 31u)
#define IP_MASK_LSB(c) (((c) >> 5) & 31u)
#define IP_MASK_MSB(c) (((c) >> 10) & 31u)
#define IP_SIGNED 0x00008000u
#define IP_CROSS_INPUT 0x00010000u
#define IP_CROSS_RESULT 0x00020000u
#define IP_ADD_RAW 0x00040000u
#define IP_FORCE_MSB(c) (((c) >> 19) & 3u)
#define IP_BLEND 0x00200000u  /* CTRL_LANE0 of INTERP0 only */
#define IP_CLAMP 0x00400000u  /* CTRL_LANE0 of INTERP1 only */
#define IP_OVERF0 0x00800000u /* read-only, CTRL_LANE0 */
#define IP_OVERF1 0x01000000u
#define IP_OVERF 0x02000000u
#define IP_LANE_BITS 0x001FFFFFu /* SHIFT .. FORCE_MSB */

/* Everything the datapath computes from the current registers. */
typedef struct interp_out {
	uint32_t result[3]; /* lane 0, lane 1, FULL: the internal 32-bit results */
	uint32_t sm[2];     /* each lane's shift-and-mask value (BASE not added) */
	int overf[2];       /* bits above MASK_MSB were set after the shift */
} interp_out;

static void interp_eval(const xb_interp *ip, interp_out *o)
{
	uint32_t input[2];
	for (unsigned i = 0; i < 2; i++) {
		uint32_t c = ip->ctrl[i];
		/* CROSS_INPUT: the other lane's accumulator feeds shift and mask (and ADD_RAW). */
		input[i] = (c & IP_CROSS_INPUT) ? ip->accum[1 - i] : ip->accum[i];
		uint32_t shifted = input[i] >> IP_SHIFT(c);
		unsigned lsb = IP_MASK_LSB(c), msb = IP_MASK_MSB(c);
		uint32_t below_msb = msb == 31 ? 0xFFFFFFFFu : (2u << msb) - 1;
		uint32_t v = shifted & below_msb & (0xFFFFFFFFu << lsb); /* empty when LSB > MSB */
		/* SIGNED: bit MASK_MSB is copied into every more significant bit. */
		if ((c & IP_SIGNED) && ((v >> msb) & 1))
			v |= ~below_msb;
		o->sm[i] = v;
		o->overf[i] = (shifted & ~below_msb) != 0;
	}
	uint32_t c0 = ip->ctrl[0], c1 = ip->ctrl[1];
	o->result[0] = ip->base[0] + ((c0 & IP_ADD_RAW) ? input[0] : o->sm[0]);
	o->result[1] = ip->base[1] + ((c1 & IP_ADD_RAW) ? input[1] : o->sm[1]);
	o->result[2] = ip->base[2] + o->sm[0] + o->sm[1]; /* ADD_RAW does not affect FULL */
	if (ip->index == 0 && (c0 & IP_BLEND)) {
		/* 2.3.1.6.2: alpha = the 8 LSBs of lane 1's shift-and-mask value; lane 1 gives
		 * BASE0 + alpha / 256 * (BASE1 - BASE0) with a 40-bit product (bases sign- or
		 * zero-extended by CTRL_LANE1_SIGNED, the quotient rounded toward minus infinity);
		 * lane 0 gives alpha itself; FULL leaves lane 1 out. */
		uint32_t alpha = o->sm[1] & 0xFFu;
		int64_t b0, b1;
		if (c1 & IP_SIGNED) {
			b0 = (int32_t)ip->base[0];
			b1 = (int32_t)ip->base[1];
		} else {
			b0 = ip->base[0];
			b1 = ip->base[1];
		}
		int64_t prod = (b1 - b0) * (int64_t)alpha;
		int64_t step = prod >= 0 ? prod / 256 : -((-prod + 255) / 256); /* floor */
		o->result[1] = (uint32_t)(b0 + step);
		o->result[0] = alpha;
		o->result[2] = ip->base[2] + o->sm[0];
	}
	if (ip->index == 1 && (c0 & IP_CLAMP)) {
		/* 2.3.1.6.3: lane 0 gives its shift-and-mask value clamped to [BASE0, BASE1],
		 * compared signed or unsigned as CTRL_LANE0_SIGNED says. */
		uint32_t v = o->sm[0], lo = ip->base[0], hi = ip->base[1];
		if (c0 & IP_SIGNED) {
			if ((int32_t)v < (int32_t)lo)
				v = lo;
			else if ((int32_t)v > (int32_t)hi)
				v = hi;
		} else {
			if (v < lo)
				v = lo;
			else if (v > hi)
				v = hi;
		}
		o->result[0] = v;
	}
}

void interp_reset(xb_interp *ip, unsigned index)
{
	*ip = (xb_interp){.index = index};
}

/* A lane result as the bus presents it: FORCE_MSB ORed into bits 29:28. */
static uint32_t interp_lane(const xb_interp *ip, const interp_out *o, unsigned lane)
{
	return o->result[lane] | (IP_FORCE_MSB(ip->ctrl[lane]) << 28);
}

/* POP: each accumulator gets its own lane's result, or the other's with CROSS_RESULT
 * (the internal results: FORCE_MSB does not reach the datapath). */
static void interp_pop(xb_interp *ip, const interp_out *o)
{
	ip->accum[0] = (ip->ctrl[0] & IP_CROSS_RESULT) ? o->result[1] : o->result[0];
	ip->accum[1] = (ip->ctrl[1] & IP_CROSS_RESULT) ? o->result[0] : o->result[1];
}

uint32_t interp_read(xb_interp *ip, uint32_t off, int debug)
{
	interp_out o;
	interp_eval(ip, &o);
	uint32_t v;
	switch (off) {
	case IP_ACCUM0:
	case IP_ACCUM1:
		return ip->accum[(off - IP_ACCUM0) / 4];
	case IP_BASE0:
	case IP_BASE1:
	case IP_BASE2:
		return ip->base[(off - IP_BASE0) / 4];
	case IP_POP_LANE0:
	case IP_POP_LANE1:
	case IP_POP_FULL: {
		unsigned which = (off - IP_POP_LANE0) / 4;
		v = which == 2 ? o.result[2] : interp_lane(ip, &o, which);
		if (!debug)
			interp_pop(ip, &o);
		return v;
	}
	case IP_PEEK_LANE0:
	case IP_PEEK_LANE1:
		return interp_lane(ip, &o, (off - IP_PEEK_LANE0) / 4);
	case IP_PEEK_FULL:
		return o.result[2];
	case IP_CTRL_LANE0:
		return ip->ctrl[0] | (o.overf[0] ? IP_OVERF0 : 0) | (o.overf[1] ? IP_OVERF1 : 0) |
		       (o.overf[0] || o.overf[1] ? IP_OVERF : 0);
	case IP_CTRL_LANE1:
		return ip->ctrl[1];
	case IP_ACCUM0_ADD:
	case IP_ACCUM1_ADD:
		/* the lane's raw shift-and-mask value; the register list gives the field as
		 * bits 23:0 */
		return o.sm[(off - IP_ACCUM0_ADD) / 4] & 0x00FFFFFFu;
	case IP_BASE_1AND0:
		return 0; /* write-only */
	}
	return 0;
}

void interp_write(xb_interp *ip, uint32_t off, uint32_t value)
{
	switch (off) {
	case IP_ACCUM0:
	case IP_ACCUM1:
		ip->accum[(off - IP_ACCUM0) / 4] = value;
		return;
	case IP_BASE0:
	case IP_BASE1:
	case IP_BASE2:
		ip->base[(off - IP_BASE0) / 4] = value;
		return;
	case IP_CTRL_LANE0: {
		uint32_t mode = ip->index == 0 ? IP_BLEND : IP_CLAMP; /* the other is absent */
		ip->ctrl[0] = value & (IP_LANE_BITS | mode);
		return;
	}
	case IP_CTRL_LANE1:
		ip->ctrl[1] = value & IP_LANE_BITS;
		return;
	case IP_ACCUM0_ADD:
	case IP_ACCUM1_ADD:
		/* atomically added to the accumulator (the whole 32-bit value: UNVERIFIED
		 * against the register list's 23:0 field width) */
		ip->accum[(off - IP_ACCUM0_ADD) / 4] += value;
		return;
	case IP_BASE_1AND0: {
		/* 16 bits to each base, sign-extended by the lane's SIGNED flag; in blend mode
		 * CTRL_LANE1_SIGNED decides for both (2.3.1.6.2). */
		int blend = ip->index == 0 && (ip->ctrl[0] & IP_BLEND);
		uint32_t lo = value & 0xFFFFu, hi = value >> 16;
		int s0 = blend ? (ip->ctrl[1] & IP_SIGNED) != 0 : (ip->ctrl[0] & IP_SIGNED) != 0;
		int s1 = (ip->ctrl[1] & IP_SIGNED) != 0;
		ip->base[0] = s0 ? (uint32_t)(int32_t)(int16_t)lo : lo;
		ip->base[1] = s1 ? (uint32_t)(int32_t)(int16_t)hi : hi;
		return;
	}
	}
	/* POP and PEEK registers are read-only: writes are ignored. */
}
