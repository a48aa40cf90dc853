/* romfloat: the work behind the bootrom's soft-float and soft-double tables (the 'SF' and
 * 'SD' data codes, RP2040 datasheet 2.8.3.2): each table entry is a host-call stub, and this
 * file computes its result from R0-R3 with the host's IEEE arithmetic and libm. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "periph.h"

/*
 * Arguments and results follow the ARM EABI as the datasheet says: a float in one register,
 * a double or a 64-bit integer in a pair (low word first), the fixed-point position n in the
 * register after the value. Results:
 *
 *  - add, sub, mul, div, sqrt, the conversions between floats, doubles and integers: the
 *    host's IEEE 754 result (round to nearest even), bit for bit, denormals and NaNs as the
 *    host has them. The deviations the datasheet states for single functions are applied:
 *    sqrt of a negative number is -Infinity, ln of v <= 0 is -Infinity, float-to-integer
 *    and float-to-fixed conversions round towards -Infinity and clamp to the result type.
 *    A NaN converts to an integer like the infinity of its sign (xipbench's choice).
 *  - fix2float(v, n) and friends: the nearest float to v / 2^n, rounded once.
 *  - cos, sin, tan, exp, ln, atan2, sincos: the host libm's result (glibc's sinf, cos, ...),
 *    for every argument (the real ROM only accepts |x| < 128 or 1024 for the trigonometric
 *    ones and has its own ulp errors: results there may differ in the last bits).
 *  - fcmp: -1, 0 or 1; unordered (a NaN) gives 1 (xipbench's choice).
 *
 * Exactness: an int64 scaled by 2^n must be exact before the one rounding to float or
 * double, so the fixed-point conversions go through long double (64-bit significand on
 * x86-64, 113 on AArch64).
 */
_Static_assert(LDBL_MANT_DIG >= 64, "romfloat needs a long double with a 64-bit significand");

/* Table offsets (pico-sdk sf_table.h, datasheet tables "soft_float_table" and
 * "soft_double_table"). */
enum {
	RF_ADD = 0x00, RF_SUB = 0x04, RF_MUL = 0x08, RF_DIV = 0x0C,
	RF_CMP_FAST = 0x10, RF_CMP_FAST_FLAGS = 0x14, RF_SQRT = 0x18,
	RF_TO_INT = 0x1C, RF_TO_FIX = 0x20, RF_TO_UINT = 0x24, RF_TO_UFIX = 0x28,
	RF_FROM_INT = 0x2C, RF_FROM_FIX = 0x30, RF_FROM_UINT = 0x34, RF_FROM_UFIX = 0x38,
	RF_COS = 0x3C, RF_SIN = 0x40, RF_TAN = 0x44, RF_SINCOS = 0x48, RF_EXP = 0x4C,
	RF_LN = 0x50, RF_CMP = 0x54, RF_ATAN2 = 0x58,
	RF_FROM_INT64 = 0x5C, RF_FROM_FIX64 = 0x60, RF_FROM_UINT64 = 0x64, RF_FROM_UFIX64 = 0x68,
	RF_TO_INT64 = 0x6C, RF_TO_FIX64 = 0x70, RF_TO_UINT64 = 0x74, RF_TO_UFIX64 = 0x78,
	RF_CONVERT = 0x7C, /* float2double in the float table, double2float in the other */
};

static float rf_f(uint32_t w)
{
	float f;
	memcpy(&f, &w, 4);
	return f;
}

static uint32_t rf_fw(float f)
{
	uint32_t w;
	memcpy(&w, &f, 4);
	return w;
}

static double rf_d(uint32_t lo, uint32_t hi)
{
	uint64_t w = (uint64_t)hi << 32 | lo;
	double d;
	memcpy(&d, &w, 8);
	return d;
}

static uint64_t rf_dw(double d)
{
	uint64_t w;
	memcpy(&w, &d, 8);
	return w;
}

/* v * 2^n exactly (long double has the range for any float or double and |n| <= 20000;
 * beyond that the result only saturates or vanishes, which a clamped n also gives). */
static long double rf_scale(long double v, int32_t n)
{
	if (n > 20000)
		n = 20000;
	if (n < -20000)
		n = -20000;
	return ldexpl(v, n);
}

/* floor(v * 2^n) clamped to [lo, hi]; a NaN counts as the infinity of its sign. */
static long double rf_to_fixed(long double v, int32_t n, long double lo, long double hi)
{
	if (isnan(v))
		return signbit(v) ? lo : hi;
	long double x = floorl(rf_scale(v, n));
	if (x < lo)
		return lo;
	if (x > hi)
		return hi;
	return x;
}

#define RF_2P31 2147483648.0L
#define RF_2P32 4294967296.0L
#define RF_2P63 9223372036854775808.0L
#define RF_2P64 18446744073709551616.0L

/* -n without overflow (n = INT32_MIN only needs to be very large). */
static int32_t rf_neg(int32_t n)
{
	return n == INT32_MIN ? INT32_MAX : -n;
}

static int rf_cmp(long double a, long double b)
{
	if (a == b)
		return 0;
	return a < b ? -1 : 1; /* unordered: 1 */
}

/* NZCV as CMP a, b would leave them for the outcome c (-1, 0, 1). */
static uint32_t rf_cmp_flags(int c)
{
	const uint32_t N = 1u << 31, Z = 1u << 30, C = 1u << 29;
	return c < 0 ? N : c == 0 ? (Z | C) : C;
}

static int32_t rf_i32(long double x)
{
	return (int32_t)(int64_t)x;
}

static uint32_t rf_u32(long double x)
{
	return (uint32_t)(uint64_t)x;
}

static int64_t rf_i64(long double x)
{
	/* 2^63 - 1 is not a long double value when the significand has 64 bits: x equals 2^63
	 * exactly when clamped from above. */
	return x >= RF_2P63 ? INT64_MAX : (int64_t)x;
}

static uint64_t rf_u64(long double x)
{
	return x >= RF_2P64 ? UINT64_MAX : (uint64_t)x;
}

int romfloat_call(xb_romfloat_regs *r, int is_double, unsigned offset)
{
	uint32_t a0 = r->r[0], a1 = r->r[1], a2 = r->r[2], a3 = r->r[3];
	/* Operands of either kind, and where n sits for the fixed-point conversions. */
	long double x = is_double ? (long double)rf_d(a0, a1) : (long double)rf_f(a0);
	long double y = is_double ? (long double)rf_d(a2, a3) : (long double)rf_f(a1);
	int32_t n_fix = (int32_t)(is_double ? a2 : a1);
	int64_t i64 = (int64_t)((uint64_t)a1 << 32 | a0);
	uint64_t u64 = (uint64_t)a1 << 32 | a0;
	int32_t n_fix64 = (int32_t)a2;
	int have_ret = 1; /* the result is in res (a float or double of the table's kind) */
	long double res = 0;
	uint64_t iret = 0; /* integer results */
	int is_int = 0;

	switch (offset) {
	case RF_ADD:
	case RF_SUB:
	case RF_MUL:
	case RF_DIV:
		if (is_double) {
			double a = rf_d(a0, a1), b = rf_d(a2, a3);
			res = offset == RF_ADD ? a + b : offset == RF_SUB ? a - b
			      : offset == RF_MUL ? a * b : a / b;
		} else {
			float a = rf_f(a0), b = rf_f(a1);
			float v = offset == RF_ADD ? a + b : offset == RF_SUB ? a - b
				  : offset == RF_MUL ? a * b : a / b;
			res = v;
		}
		break;
	case RF_CMP_FAST:
	case RF_CMP:
		iret = (uint32_t)rf_cmp(x, y);
		is_int = 1;
		break;
	case RF_CMP_FAST_FLAGS:
		r->flags = rf_cmp_flags(rf_cmp(x, y));
		r->set_flags = 1;
		iret = (uint32_t)rf_cmp(x, y);
		is_int = 1;
		break;
	case RF_SQRT:
		if (x < 0)
			res = -INFINITY; /* datasheet: -Infinity if v is negative */
		else
			res = is_double ? (long double)sqrt((double)x) : (long double)sqrtf((float)x);
		break;
	case RF_TO_INT:
		iret = (uint32_t)rf_i32(rf_to_fixed(x, 0, -RF_2P31, RF_2P31 - 1));
		is_int = 1;
		break;
	case RF_TO_FIX:
		iret = (uint32_t)rf_i32(rf_to_fixed(x, n_fix, -RF_2P31, RF_2P31 - 1));
		is_int = 1;
		break;
	case RF_TO_UINT:
		iret = rf_u32(rf_to_fixed(x, 0, 0, RF_2P32 - 1));
		is_int = 1;
		break;
	case RF_TO_UFIX:
		iret = rf_u32(rf_to_fixed(x, n_fix, 0, RF_2P32 - 1));
		is_int = 1;
		break;
	case RF_FROM_INT:
		res = (long double)(int32_t)a0;
		break;
	case RF_FROM_FIX:
		res = rf_scale((long double)(int32_t)a0, rf_neg((int32_t)a1));
		break;
	case RF_FROM_UINT:
		res = (long double)a0;
		break;
	case RF_FROM_UFIX:
		res = rf_scale((long double)a0, rf_neg((int32_t)a1));
		break;
	case RF_COS:
		res = is_double ? (long double)cos((double)x) : (long double)cosf((float)x);
		break;
	case RF_SIN:
	case RF_SINCOS:
		/* sin in the result; cos in the next register(s): pico-sdk's sincosf reads R1
		 * after the float table's sin, its sincos R2:R3 after the double table's 0x48. */
		if (is_double) {
			res = sin((double)x);
			uint64_t c = rf_dw(cos((double)x));
			r->r[2] = (uint32_t)c;
			r->r[3] = (uint32_t)(c >> 32);
		} else {
			res = sinf((float)x);
			r->r[1] = rf_fw(cosf((float)x));
		}
		break;
	case RF_TAN:
		res = is_double ? (long double)tan((double)x) : (long double)tanf((float)x);
		break;
	case RF_EXP:
		res = is_double ? (long double)exp((double)x) : (long double)expf((float)x);
		break;
	case RF_LN:
		if (x <= 0)
			res = -INFINITY; /* datasheet: -Infinity if v <= 0 */
		else
			res = is_double ? (long double)log((double)x) : (long double)logf((float)x);
		break;
	case RF_ATAN2:
		res = is_double ? (long double)atan2((double)x, (double)y)
				: (long double)atan2f((float)x, (float)y);
		break;
	case RF_FROM_INT64:
		res = (long double)i64;
		break;
	case RF_FROM_FIX64:
		res = rf_scale((long double)i64, rf_neg(n_fix64));
		break;
	case RF_FROM_UINT64:
		res = (long double)u64;
		break;
	case RF_FROM_UFIX64:
		res = rf_scale((long double)u64, rf_neg(n_fix64));
		break;
	case RF_TO_INT64:
		iret = (uint64_t)rf_i64(rf_to_fixed(x, 0, -RF_2P63, RF_2P63));
		is_int = 2;
		break;
	case RF_TO_FIX64:
		iret = (uint64_t)rf_i64(rf_to_fixed(x, n_fix, -RF_2P63, RF_2P63));
		is_int = 2;
		break;
	case RF_TO_UINT64:
		iret = rf_u64(rf_to_fixed(x, 0, 0, RF_2P64));
		is_int = 2;
		break;
	case RF_TO_UFIX64:
		iret = rf_u64(rf_to_fixed(x, n_fix, 0, RF_2P64));
		is_int = 2;
		break;
	case RF_CONVERT:
		/* float2double (exact) or double2float (rounded once) */
		if (is_double) {
			r->r[0] = rf_fw((float)rf_d(a0, a1));
		} else {
			uint64_t w = rf_dw((double)rf_f(a0));
			r->r[0] = (uint32_t)w;
			r->r[1] = (uint32_t)(w >> 32);
		}
		return 0;
	default:
		have_ret = 0;
		break;
	}
	if (!have_ret)
		return -1;
	if (is_int) {
		r->r[0] = (uint32_t)iret;
		if (is_int == 2)
			r->r[1] = (uint32_t)(iret >> 32);
		return 0;
	}
	/* One rounding from the exact (or already rounded) long double to the table's kind.
	 * A sum, product or quotient computed above is already of that kind. */
	if (is_double) {
		uint64_t w = rf_dw((double)res);
		r->r[0] = (uint32_t)w;
		r->r[1] = (uint32_t)(w >> 32);
	} else {
		r->r[0] = rf_fw((float)res);
	}
	return 0;
}
