/* test_sim_diff: the virtual Pico's CPU against Unicorn, encoding class by encoding class:
 * the same instructions, registers, flags and memory in both; registers, flags, PRIMASK and
 * memory must agree afterwards. Seeded, so a failure repeats.
 *
 * Unicorn 2.0 implements ARMv7-M even with the Cortex-M0 model; the cases stay where both
 * define the same result: no IT/CBZ or other v7-only encodings, no YIELD (which that model
 * refuses although ARMv6-M has it), MSR APSR never sets bit 27
 * (Q, absent on ARMv6-M), no writes of unaligned values to SP, no UNPREDICTABLE forms (CMP
 * of two low registers through the high-register encoding, PC operands where ARMv6-M
 * forbids them, empty register lists). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <unicorn/unicorn.h>

#include "test_sim_common.h"

#define CODE 0x20001000u
#define DATA 0x20010000u
#define DATA_SIZE 256u
#define STACK_LO 0x20020000u
#define STACK_SIZE 2048u
#define STACK_MID (STACK_LO + 1024u)
#define PSP_INIT (STACK_LO + 1536u)

typedef struct rng {
	uint64_t s;
} rng;

static uint32_t rnd(rng *g)
{
	uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
	return (uint32_t)((z ^ (z >> 31)) >> 16);
}

static uint32_t rnd_below(rng *g, uint32_t n)
{
	return rnd(g) % n;
}

/* Operands that reach the corner cases of flags and shifts often. */
static uint32_t rnd_value(rng *g)
{
	static const uint32_t special[] = {0,          1,          2,          31,
					   32,         33,         0x7FFFFFFF, 0x80000000,
					   0x80000001, 0xFFFFFFFF, 0xFFFFFFFE, 0x0000FFFF,
					   0x00008000, 0x000000FF, 0x00000080, 0xFFFF8000};
	switch (rnd_below(g, 4)) {
	case 0:
		return special[rnd_below(g, sizeof special / sizeof special[0])];
	case 1:
		return rnd_below(g, 64);
	default:
		return rnd(g) ^ (rnd(g) << 16);
	}
}

typedef struct dcase {
	uint16_t code[96];
	int ncode;
	uint32_t end;          /* both stop before executing this address */
	uint32_t r[16];
	uint32_t apsr;         /* NZCV in 31:28 */
	uint32_t primask, psp, control;
	uint8_t data[DATA_SIZE];
	uint8_t stack[STACK_SIZE];
} dcase;

typedef struct dstate {
	uint32_t r[16];
	uint32_t apsr, primask, psp, control;
	uint8_t data[DATA_SIZE];
	uint8_t stack[STACK_SIZE];
} dstate;

static void case_init(dcase *d, rng *g)
{
	memset(d, 0, sizeof *d);
	for (int i = 0; i < 13; i++)
		d->r[i] = rnd_value(g);
	d->r[13] = STACK_MID;
	d->r[14] = rnd(g) | 1;
	d->r[15] = CODE;
	d->apsr = rnd(g) & 0xF0000000u;
	d->psp = PSP_INIT;
	for (unsigned i = 0; i < DATA_SIZE; i++)
		d->data[i] = (uint8_t)rnd(g);
	for (unsigned i = 0; i < STACK_SIZE; i++)
		d->stack[i] = (uint8_t)rnd(g);
}

static void emit(dcase *d, uint16_t h)
{
	assert_true(d->ncode < (int)(sizeof d->code / sizeof d->code[0]));
	d->code[d->ncode++] = h;
}

/* Ends the case after the code emitted so far. */
static void finish(dcase *d)
{
	d->end = CODE + 2u * (uint32_t)d->ncode;
	emit(d, 0xBF00); /* a NOP at the end address, never executed */
}

/* ---- Running both ---- */

static uc_engine *uc;
static xb_board *board;

static void run_unicorn(const dcase *d, dstate *out)
{
	uc_mem_write(uc, CODE, d->code, 2u * (size_t)d->ncode);
	/* Unicorn keeps translated blocks across writes to code: drop them. */
	uc_ctl_remove_cache(uc, CODE, CODE + 0x1000u);
	uc_mem_write(uc, DATA, d->data, DATA_SIZE);
	uc_mem_write(uc, STACK_LO, d->stack, STACK_SIZE);
	uint32_t zero = 0;
	uc_reg_write(uc, UC_ARM_REG_CONTROL, &zero);
	static const int regs[15] = {UC_ARM_REG_R0,  UC_ARM_REG_R1,  UC_ARM_REG_R2,
				     UC_ARM_REG_R3,  UC_ARM_REG_R4,  UC_ARM_REG_R5,
				     UC_ARM_REG_R6,  UC_ARM_REG_R7,  UC_ARM_REG_R8,
				     UC_ARM_REG_R9,  UC_ARM_REG_R10, UC_ARM_REG_R11,
				     UC_ARM_REG_R12, UC_ARM_REG_SP,  UC_ARM_REG_LR};
	for (int i = 0; i < 15; i++)
		uc_reg_write(uc, regs[i], &d->r[i]);
	uc_reg_write(uc, UC_ARM_REG_PSP, &d->psp);
	uc_reg_write(uc, UC_ARM_REG_APSR, &d->apsr);
	uc_reg_write(uc, UC_ARM_REG_PRIMASK, &d->primask);
	uc_err e = uc_emu_start(uc, d->r[15] | 1, d->end, 0, 200);
	if (e != UC_ERR_OK)
		fail_msg("unicorn: %s", uc_strerror(e));
	for (int i = 0; i < 15; i++)
		uc_reg_read(uc, regs[i], &out->r[i]);
	uc_reg_read(uc, UC_ARM_REG_PC, &out->r[15]);
	uc_reg_read(uc, UC_ARM_REG_APSR, &out->apsr);
	out->apsr &= 0xF0000000u;
	uc_reg_read(uc, UC_ARM_REG_PRIMASK, &out->primask);
	uc_reg_read(uc, UC_ARM_REG_CONTROL, &out->control);
	/* SP is the stack in use; the other one reads through MSP/PSP. */
	if (out->control & 2) {
		out->psp = out->r[13];
		uc_reg_read(uc, UC_ARM_REG_MSP, &out->r[13]);
	} else {
		uc_reg_read(uc, UC_ARM_REG_PSP, &out->psp);
	}
	uc_mem_read(uc, DATA, out->data, DATA_SIZE);
	uc_mem_read(uc, STACK_LO, out->stack, STACK_SIZE);
}

static void run_board(const dcase *d, dstate *out)
{
	xb_err err;
	assert_int_equal(board_load(board, CODE, d->code, 2u * (size_t)d->ncode, &err), 0);
	assert_int_equal(board_load(board, DATA, d->data, DATA_SIZE, &err), 0);
	assert_int_equal(board_load(board, STACK_LO, d->stack, STACK_SIZE, &err), 0);
	board_set_reg(board, XB_REG_CONTROL_PRIMASK, d->primask);
	for (unsigned i = 0; i < 16; i++)
		board_set_reg(board, i, d->r[i]);
	board_set_reg(board, XB_REG_PSP, d->psp);
	board_set_reg(board, XB_REG_XPSR, d->apsr | (1u << 24));
	board_resume(board);
	enum xb_run_result r = board_run_until_pc(board, d->end, 10000);
	if (r != XB_RUN_HALTED || board_reg(board, 15) != d->end) {
		xb_fault f;
		board_faults(board, &f);
		xb_strbuf sb = {0};
		board_format_fault(&f, &sb);
		fail_msg("board did not reach 0x%08x (%s, pc 0x%08x); last fault: %s", d->end,
			 board_run_result_name(r), board_reg(board, 15), sb.buf);
	}
	for (unsigned i = 0; i < 16; i++)
		out->r[i] = board_reg(board, i);
	out->r[13] = board_reg(board, XB_REG_MSP);
	out->psp = board_reg(board, XB_REG_PSP);
	out->apsr = board_reg(board, XB_REG_XPSR) & 0xF0000000u;
	uint32_t cp = board_reg(board, XB_REG_CONTROL_PRIMASK);
	out->primask = cp & 1;
	out->control = cp >> 24;
	assert_int_equal(board_peek(board, DATA, out->data, DATA_SIZE, &err), 0);
	assert_int_equal(board_peek(board, STACK_LO, out->stack, STACK_SIZE, &err), 0);
}

static void describe(const dcase *d, char *buf, size_t n)
{
	size_t k = (size_t)snprintf(buf, n, "code:");
	for (int i = 0; i < d->ncode - 1 && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, " %04x", d->code[i]);
	for (int i = 0; i < 16 && k < n; i++)
		k += (size_t)snprintf(buf + k, n - k, " r%d=%08x", i, d->r[i]);
	if (k < n)
		snprintf(buf + k, n - k, " apsr=%08x primask=%u", d->apsr, d->primask);
}

static void check_case(const dcase *d)
{
	dstate a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	run_unicorn(d, &a);
	run_board(d, &b);
	char what[2048];
	for (int i = 0; i < 16; i++) {
		if (a.r[i] != b.r[i]) {
			describe(d, what, sizeof what);
			fail_msg("r%d: unicorn %08x, board %08x; %s", i, a.r[i], b.r[i], what);
		}
	}
	if (a.apsr != b.apsr || a.primask != b.primask || a.psp != b.psp ||
	    (a.control & 2) != (b.control & 2)) {
		describe(d, what, sizeof what);
		fail_msg("apsr %08x/%08x primask %u/%u psp %08x/%08x control %u/%u; %s", a.apsr,
			 b.apsr, a.primask, b.primask, a.psp, b.psp, a.control, b.control, what);
	}
	for (unsigned i = 0; i < DATA_SIZE; i++) {
		if (a.data[i] != b.data[i]) {
			describe(d, what, sizeof what);
			fail_msg("data byte %u: unicorn %02x, board %02x; %s", i, a.data[i], b.data[i],
				 what);
		}
	}
	for (unsigned i = 0; i < STACK_SIZE; i++) {
		if (a.stack[i] != b.stack[i]) {
			describe(d, what, sizeof what);
			fail_msg("stack byte 0x%x: unicorn %02x, board %02x; %s", i, a.stack[i],
				 b.stack[i], what);
		}
	}
}

typedef void (*gen_fn)(dcase *d, rng *g);

static void run_class(gen_fn gen, uint64_t seed, int cases)
{
	rng g = {seed};
	for (int i = 0; i < cases; i++) {
		dcase d;
		case_init(&d, &g);
		gen(&d, &g);
		check_case(&d);
	}
}

static unsigned lo(rng *g)
{
	return rnd_below(g, 8);
}

/* ---- Generators, one per encoding class ---- */

static uint16_t shift_imm_insn(rng *g)
{
	unsigned op = rnd_below(g, 3);
	return (uint16_t)((op << 11) | (rnd_below(g, 32) << 6) | (lo(g) << 3) | lo(g));
}

static void gen_shift_imm(dcase *d, rng *g)
{
	emit(d, shift_imm_insn(g));
	finish(d);
}

static void gen_add_sub3(dcase *d, rng *g)
{
	unsigned op = rnd_below(g, 4); /* ADD reg, SUB reg, ADD imm3, SUB imm3 */
	emit(d, (uint16_t)(0x1800 | (op << 9) | (lo(g) << 6) | (lo(g) << 3) | lo(g)));
	finish(d);
}

static void gen_imm8(dcase *d, rng *g)
{
	unsigned op = rnd_below(g, 4); /* MOV, CMP, ADD, SUB */
	emit(d, (uint16_t)(0x2000 | (op << 11) | (lo(g) << 8) | rnd_below(g, 256)));
	finish(d);
}

static void gen_data_processing(dcase *d, rng *g)
{
	/* Two in a row so that ADCS/SBCS see carries made by the first. */
	for (int i = 0; i < 2; i++)
		emit(d, (uint16_t)(0x4000 | (rnd_below(g, 16) << 6) | (lo(g) << 3) | lo(g)));
	finish(d);
}

static void gen_hi_regs(dcase *d, rng *g)
{
	unsigned op = rnd_below(g, 3); /* ADD, CMP, MOV */
	unsigned dn, m;
	for (;;) {
		dn = rnd_below(g, 15); /* never PC as destination here */
		m = rnd_below(g, 16);
		if (dn == 13 && op != 1)
			continue; /* writes of arbitrary values to SP: bits 1:0 are not kept */
		if (op == 1 && ((dn < 8 && m < 8) || m == 15))
			continue; /* UNPREDICTABLE CMP forms */
		break;
	}
	emit(d, (uint16_t)(0x4400 | (op << 8) | ((dn & 8) << 4) | (m << 3) | (dn & 7)));
	finish(d);
}

/* BX, BLX, MOV PC and ADD PC to a forward target. */
static void gen_branch_reg(dcase *d, rng *g)
{
	unsigned kind = rnd_below(g, 4);
	unsigned rm = 1 + rnd_below(g, 12);
	unsigned t = 2 + rnd_below(g, 40); /* target index */
	switch (kind) {
	case 0: /* BX */
	case 1: /* BLX */
		d->r[rm] = (CODE + 2 * t) | 1;
		emit(d, (uint16_t)(0x4700 | (kind << 7) | (rm << 3)));
		break;
	case 2: /* MOV PC, Rm (bit 0 ignored) */
		d->r[rm] = (CODE + 2 * t) | rnd_below(g, 2);
		emit(d, (uint16_t)(0x4687 | (rm << 3)));
		break;
	default: /* ADD PC, Rm */
		d->r[rm] = 2 * (t - 2);
		emit(d, (uint16_t)(0x4487 | (rm << 3)));
		break;
	}
	while ((unsigned)d->ncode < t)
		emit(d, 0x3001); /* adds r0, #1: skipped */
	emit(d, 0x3101);         /* adds r1, #1 */
	finish(d);
}

static void gen_ldr_literal(dcase *d, rng *g)
{
	unsigned n = 1 + rnd_below(g, 3);
	for (unsigned i = 0; i < n; i++)
		emit(d, (uint16_t)(0x4800 | (lo(g) << 8) | rnd_below(g, 16)));
	finish(d);
	while (d->ncode < 80) /* the literal pool */
		emit(d, (uint16_t)rnd(g));
}

static void pick_distinct(rng *g, unsigned *a, unsigned *b)
{
	*a = lo(g);
	do
		*b = lo(g);
	while (*b == *a);
}

static void gen_ldst_reg(dcase *d, rng *g)
{
	unsigned op = rnd_below(g, 8);
	static const unsigned size[8] = {4, 2, 1, 1, 4, 2, 1, 2};
	unsigned rn, rm, rt = lo(g);
	pick_distinct(g, &rn, &rm);
	unsigned sz = size[op];
	d->r[rn] = DATA + 128 + (rnd_below(g, 32) & ~(sz - 1));
	int off = (int)(rnd_below(g, 100) & ~(sz - 1)) - 48;
	d->r[rm] = (uint32_t)off;
	emit(d, (uint16_t)(0x5000 | (op << 9) | (rm << 6) | (rn << 3) | rt));
	finish(d);
}

static void gen_ldst_imm(dcase *d, rng *g)
{
	static const uint16_t ops[6] = {0x6000, 0x6800, 0x7000, 0x7800, 0x8000, 0x8800};
	static const unsigned scale[6] = {4, 4, 1, 1, 2, 2};
	unsigned k = rnd_below(g, 6), rn = lo(g), rt = lo(g);
	d->r[rn] = DATA + (rnd_below(g, 64) & ~(scale[k] - 1));
	emit(d, (uint16_t)(ops[k] | (rnd_below(g, 32) << 6) | (rn << 3) | rt));
	finish(d);
}

static void gen_sp_relative(dcase *d, rng *g)
{
	d->r[13] = STACK_LO;
	switch (rnd_below(g, 5)) {
	case 0: /* STR Rt, [SP, #imm] */
		emit(d, (uint16_t)(0x9000 | (lo(g) << 8) | rnd_below(g, 256)));
		break;
	case 1: /* LDR Rt, [SP, #imm] */
		emit(d, (uint16_t)(0x9800 | (lo(g) << 8) | rnd_below(g, 256)));
		break;
	case 2: /* ADD Rd, SP, #imm */
		emit(d, (uint16_t)(0xA800 | (lo(g) << 8) | rnd_below(g, 256)));
		break;
	case 3: /* ADR Rd, label (alignment of PC matters: vary the position) */
		if (rnd_below(g, 2))
			emit(d, 0xBF00);
		emit(d, (uint16_t)(0xA000 | (lo(g) << 8) | rnd_below(g, 256)));
		break;
	default: /* ADD SP / SUB SP, #imm7 */
		d->r[13] = STACK_MID;
		emit(d, (uint16_t)(0xB000 | (rnd_below(g, 2) << 7) | rnd_below(g, 128)));
		break;
	}
	finish(d);
}

static void gen_push_pop(dcase *d, rng *g)
{
	uint32_t list = 1 + rnd_below(g, 255);
	unsigned kind = rnd_below(g, 3);
	if (kind == 0) { /* PUSH {list[, LR]} */
		emit(d, (uint16_t)(0xB400 | (rnd_below(g, 2) << 8) | list));
	} else if (kind == 1) { /* POP {list} */
		emit(d, (uint16_t)(0xBC00 | list));
	} else { /* PUSH {list, LR}; POP {list2, PC} with as many registers: the stacked LR
		  * (the end address) lands in PC, the other words move between registers */
		uint32_t list2;
		do
			list2 = 1 + rnd_below(g, 255);
		while (__builtin_popcount(list2) != __builtin_popcount(list));
		emit(d, (uint16_t)(0xB500 | list));
		emit(d, (uint16_t)(0xBD00 | list2));
		d->r[14] = (CODE + 4) | 1;
	}
	finish(d);
}

static void gen_ldm_stm(dcase *d, rng *g)
{
	unsigned rn = lo(g);
	uint32_t list = 1 + rnd_below(g, 255);
	int load = rnd_below(g, 2);
	d->r[rn] = DATA + 4 * rnd_below(g, 24);
	emit(d, (uint16_t)((load ? 0xC800 : 0xC000) | (rn << 8) | list));
	finish(d);
}

static const unsigned cond_count = 14;

static void gen_bcond(dcase *d, rng *g)
{
	unsigned cond = rnd_below(g, cond_count);
	if (rnd_below(g, 2)) { /* forward over t-1 instructions */
		unsigned t = 1 + rnd_below(g, 8);
		emit(d, (uint16_t)(0xD000 | (cond << 8) | ((t - 1) & 0xFF)));
		for (unsigned i = 0; i < t; i++)
			emit(d, 0x3001);
		emit(d, 0x3101);
	} else { /* backward: [0] b [4]; [1] taken path; [2] b end; [3] never; [4] b<c> [1] */
		emit(d, 0xE002);
		emit(d, 0x3101);
		emit(d, 0xE002);
		emit(d, 0x3201);
		emit(d, (uint16_t)(0xD000 | (cond << 8) | 0xFB));
		emit(d, 0x3301); /* [5] not-taken path, then the end at [6] */
	}
	finish(d);
}

static void gen_b_bl(dcase *d, rng *g)
{
	switch (rnd_below(g, 3)) {
	case 0: { /* B forward */
		unsigned t = 1 + rnd_below(g, 60);
		emit(d, (uint16_t)(0xE000 | ((t - 1) & 0x7FF)));
		for (unsigned i = 0; i < t; i++)
			emit(d, 0x3001);
		break;
	}
	case 1: { /* BL forward by t halfwords after the BL */
		unsigned t = rnd_below(g, 60);
		uint32_t off = 2 * t;
		emit(d, (uint16_t)(0xF000 | ((off >> 12) & 0x3FF)));
		emit(d, (uint16_t)(0xF800 | ((off >> 1) & 0x7FF)));
		for (unsigned i = 0; i < t; i++)
			emit(d, 0x3001);
		break;
	}
	default: { /* BL backward: [0] b [3]; [1] end; [2] pad; [3-4] bl [1] */
		emit(d, 0xE001);
		d->end = CODE + 2;
		emit(d, 0xBF00);
		emit(d, 0xBF00);
		uint32_t off = (uint32_t)(2 - 10); /* from [5] back to [1] */
		emit(d, (uint16_t)(0xF000 | ((off >> 12) & 0x3FF) | ((off >> 14) & 0x400)));
		emit(d, (uint16_t)(0xD000 | 0x2000 | 0x0800 | ((off >> 1) & 0x7FF)));
		emit(d, 0xBF00);
		return;
	}
	}
	finish(d);
}

static void gen_extend_reverse(dcase *d, rng *g)
{
	static const uint16_t ops[7] = {0xB200, 0xB240, 0xB280, 0xB2C0, 0xBA00, 0xBA40, 0xBAC0};
	emit(d, (uint16_t)(ops[rnd_below(g, 7)] | (lo(g) << 3) | lo(g)));
	finish(d);
}

static void gen_cps(dcase *d, rng *g)
{
	d->primask = rnd_below(g, 2);
	emit(d, rnd_below(g, 2) ? 0xB672 : 0xB662);
	finish(d);
}

static void gen_mrs_msr(dcase *d, rng *g)
{
	static const unsigned sysm[] = {0, 1, 2, 3, 5, 6, 7, 8, 9, 16, 20};
	d->primask = rnd_below(g, 2);
	unsigned rd = rnd_below(g, 13);
	switch (rnd_below(g, 4)) {
	case 0: /* MRS */
		emit(d, 0xF3EF);
		emit(d, (uint16_t)(0x8000 | (rd << 8) | sysm[rnd_below(g, 11)]));
		break;
	case 1: /* MSR APSR, then MRS to see it */
		d->r[rd] &= ~(1u << 27);
		emit(d, (uint16_t)(0xF380 | rd));
		emit(d, 0x8800);
		emit(d, 0xF3EF);
		emit(d, (uint16_t)(0x8000 | (lo(g) << 8)));
		break;
	case 2: /* MSR PRIMASK / MSP / PSP */
		if (rnd_below(g, 2)) {
			emit(d, (uint16_t)(0xF380 | rd));
			emit(d, 0x8810);
		} else {
			d->r[rd] = STACK_LO + 4 * rnd_below(g, 256);
			emit(d, (uint16_t)(0xF380 | rd));
			emit(d, (uint16_t)(0x8808 | rnd_below(g, 2)));
		}
		break;
	default: /* MSR CONTROL (SPSEL only: nPRIV stays 0), then use SP */
		d->r[rd] = 2 * rnd_below(g, 2);
		emit(d, (uint16_t)(0xF380 | rd));
		emit(d, 0x8814);
		emit(d, 0xB401); /* push {r0} on whichever stack is now selected */
		break;
	}
	finish(d);
}

static void gen_hints_barriers(dcase *d, rng *g)
{
	/* NOP and SEV; Unicorn's Cortex-M0 model refuses YIELD (an ARMv6-M hint), which
	 * test_sim_cpu covers instead. */
	static const uint16_t one[] = {0xBF00, 0xBF40};
	switch (rnd_below(g, 2)) {
	case 0:
		emit(d, one[rnd_below(g, 2)]);
		break;
	default:
		emit(d, 0xF3BF);
		emit(d, (uint16_t)(0x8F40 + 0x10 * rnd_below(g, 3) + 15));
		break;
	}
	emit(d, (uint16_t)(0x2000 | (lo(g) << 8) | rnd_below(g, 256)));
	finish(d);
}

/* A longer random mix of the flag-setting ALU instructions. */
static void gen_alu_mix(dcase *d, rng *g)
{
	int n = 4 + (int)rnd_below(g, 12);
	for (int i = 0; i < n; i++) {
		switch (rnd_below(g, 4)) {
		case 0:
			emit(d, shift_imm_insn(g));
			break;
		case 1:
			emit(d, (uint16_t)(0x1800 | (rnd_below(g, 4) << 9) | (lo(g) << 6) |
					   (lo(g) << 3) | lo(g)));
			break;
		case 2:
			emit(d, (uint16_t)(0x2000 | (rnd_below(g, 4) << 11) | (lo(g) << 8) |
					   rnd_below(g, 256)));
			break;
		default:
			emit(d, (uint16_t)(0x4000 | (rnd_below(g, 16) << 6) | (lo(g) << 3) | lo(g)));
			break;
		}
	}
	finish(d);
}

/* Every condition under every flag state, forward and backward. */
static void test_bcond_exhaustive(void **state)
{
	(void)state;
	rng g = {99};
	for (unsigned cond = 0; cond < cond_count; cond++) {
		for (uint32_t flags = 0; flags < 16; flags++) {
			for (unsigned back = 0; back < 2; back++) {
				dcase d;
				case_init(&d, &g);
				d.apsr = flags << 28;
				if (back) {
					emit(&d, 0xE002);
					emit(&d, 0x3101);
					emit(&d, 0xE002);
					emit(&d, 0x3201);
					emit(&d, (uint16_t)(0xD000 | (cond << 8) | 0xFB));
					emit(&d, 0x3301);
				} else {
					emit(&d, (uint16_t)(0xD000 | (cond << 8) | 1));
					emit(&d, 0x3001);
					emit(&d, 0x3001);
					emit(&d, 0x3101);
				}
				finish(&d);
				check_case(&d);
			}
		}
	}
}

/* ---- Tests ---- */

#define CLASS_TEST(name, gen, seed, n)                                                             \
	static void name(void **state)                                                             \
	{                                                                                          \
		(void)state;                                                                       \
		run_class(gen, seed, n);                                                           \
	}

CLASS_TEST(test_shift_imm, gen_shift_imm, 1, 400)
CLASS_TEST(test_add_sub3, gen_add_sub3, 2, 400)
CLASS_TEST(test_imm8, gen_imm8, 3, 400)
CLASS_TEST(test_data_processing, gen_data_processing, 4, 1200)
CLASS_TEST(test_hi_regs, gen_hi_regs, 5, 600)
CLASS_TEST(test_branch_reg, gen_branch_reg, 6, 300)
CLASS_TEST(test_ldr_literal, gen_ldr_literal, 7, 300)
CLASS_TEST(test_ldst_reg, gen_ldst_reg, 8, 600)
CLASS_TEST(test_ldst_imm, gen_ldst_imm, 9, 600)
CLASS_TEST(test_sp_relative, gen_sp_relative, 10, 500)
CLASS_TEST(test_push_pop, gen_push_pop, 11, 400)
CLASS_TEST(test_ldm_stm, gen_ldm_stm, 12, 600)
CLASS_TEST(test_bcond, gen_bcond, 13, 800)
CLASS_TEST(test_b_bl, gen_b_bl, 14, 300)
CLASS_TEST(test_extend_reverse, gen_extend_reverse, 15, 400)
CLASS_TEST(test_cps, gen_cps, 16, 50)
CLASS_TEST(test_mrs_msr, gen_mrs_msr, 17, 400)
CLASS_TEST(test_hints_barriers, gen_hints_barriers, 18, 50)
CLASS_TEST(test_alu_mix, gen_alu_mix, 19, 600)

static int setup(void **state)
{
	(void)state;
	if (uc_open(UC_ARCH_ARM, UC_MODE_THUMB | UC_MODE_MCLASS, &uc) != UC_ERR_OK)
		return -1;
	uc_ctl_set_cpu_model(uc, UC_CPU_ARM_CORTEX_M0);
	if (uc_mem_map(uc, 0x20000000u, 0x42000u, UC_PROT_ALL) != UC_ERR_OK)
		return -1;
	board = sim_board(NULL);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	uc_close(uc);
	board_free(board);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shift_imm),     cmocka_unit_test(test_add_sub3),
		cmocka_unit_test(test_imm8),          cmocka_unit_test(test_data_processing),
		cmocka_unit_test(test_hi_regs),       cmocka_unit_test(test_branch_reg),
		cmocka_unit_test(test_ldr_literal),   cmocka_unit_test(test_ldst_reg),
		cmocka_unit_test(test_ldst_imm),      cmocka_unit_test(test_sp_relative),
		cmocka_unit_test(test_push_pop),      cmocka_unit_test(test_ldm_stm),
		cmocka_unit_test(test_bcond),         cmocka_unit_test(test_bcond_exhaustive),
		cmocka_unit_test(test_b_bl),
		cmocka_unit_test(test_extend_reverse), cmocka_unit_test(test_cps),
		cmocka_unit_test(test_mrs_msr),       cmocka_unit_test(test_hints_barriers),
		cmocka_unit_test(test_alu_mix),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
