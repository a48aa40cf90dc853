/* cpu_exec: the ARMv6-M instruction set of the virtual Pico: fetch through the XIP cache,
 * decode, execute with exact flags and Cortex-M0+ cycle counts. */
#include <string.h>

#include "cpu.h"
#include "xip.h"

void cpu_forget_region(xb_cpu *c)
{
	c->code_size = 0;
	c->code_lo = 0;
}

void cpu_invalidate_code(xb_cpu *c)
{
	c->code_size = 0;
	c->code_lo = 0;
	c->fetch_word = ~0u;
}

/* ---- Instruction fetch ---- */

static int cpu_xn(uint32_t addr)
{
	return (addr >= 0x40000000u && addr < 0x60000000u) || addr >= 0xA0000000u;
}

/* Finds the code region holding pc (or faults) and sets the fetch state for it. */
static void cpu_fetch_region(xb_cpu *c, uint32_t pc)
{
	if (!c->tbit)
		cpu_fault(c, XB_FAULT_INVSTATE, pc);
	uint32_t word = pc & ~3u;
	c->code_kind = XB_CODE_PLAIN;
	c->code_flash_off = 0;
	for (int i = 0; i < c->xip_naliases; i++) {
		uint32_t off = word - c->xip_alias_base[i];
		if (off < c->flash_size) {
			c->code_lo = c->xip_alias_base[i];
			c->code_size = c->flash_size;
			c->code_bias = (uintptr_t)c->flash - c->code_lo;
			c->code_mode = c->xip_cache_on ? c->xip_alias_mode[i]
						       : XB_ALIAS_UNCACHED_NOALLOC;
			c->code_kind = c->code_mode == XB_ALIAS_CACHED_ALLOC ? XB_CODE_XIP_FAST
									     : XB_CODE_XIP;
			if (c->cycles < c->xip_busy_until)
				c->cycles = c->xip_busy_until;
			return;
		}
	}
	if (word - c->sram_base < c->sram_size) {
		c->code_lo = c->sram_base;
		c->code_size = c->sram_size;
		c->code_bias = (uintptr_t)c->sram - c->sram_base;
		return;
	}
	if (c->rom && word - c->rom_base < c->rom_size) {
		c->code_lo = c->rom_base;
		c->code_size = c->rom_size;
		c->code_bias = (uintptr_t)c->rom - c->rom_base;
		return;
	}
	if (c->xip_sram_on && word - c->xip_sram_base < c->xip_sram_size) {
		c->code_lo = c->xip_sram_base;
		c->code_size = c->xip_sram_size;
		c->code_bias = (uintptr_t)c->xip_sram - c->xip_sram_base;
		return;
	}
	if (c->sram_unstriped && word - XB_SRAM_UNSTRIPED_BASE < XB_SRAM_UNSTRIPED_SIZE) {
		/* One word at a time: the next word lives elsewhere in the host buffer. */
		uint32_t o = cpu_sram_unstriped(word - XB_SRAM_UNSTRIPED_BASE);
		c->code_lo = word;
		c->code_size = 4;
		c->code_bias = (uintptr_t)(c->sram + o) - word;
		return;
	}
	c->code_size = 0;
	cpu_fault(c, cpu_xn(pc) ? XB_FAULT_XN : XB_FAULT_FETCH, pc);
}

/* Fetches the 32-bit word holding pc: one bus access, one cache access from flash. The
 * out-of-line part: a new code region, flash through another alias or with the cache off,
 * and tracing. */
static void cpu_fetch_slow(xb_cpu *c, uint32_t pc)
{
	uint32_t word = pc & ~3u;
	if (word - c->code_lo >= c->code_size)
		cpu_fetch_region(c, pc);
	c->fetch_word = word;
	if (c->code_kind == XB_CODE_XIP_FAST) {
		if (!cache_fetch(c->cache, word - c->code_lo)) {
			c->cycles += c->miss_penalty;
			if (c->xip_dead)
				xip_unanswered(c, word - c->code_lo);
		}
	} else if (c->code_kind == XB_CODE_XIP) {
		if (!xip_flash_access(c, word - c->code_lo, c->code_mode)) {
			c->cycles += c->miss_penalty;
			if (c->xip_dead)
				xip_unanswered(c, word - c->code_lo);
		}
	}
	if (c->trace)
		trace_stream_push(c->trace, word);
}

/* The same, inline for the common cases (a word in the current region of SRAM or ROM, or of
 * flash through the cached alias, untraced): the cache's own fast path answers a hit. */
static inline void cpu_fetch(xb_cpu *c, uint32_t pc)
{
	uint32_t word = pc & ~3u;
	if (word - c->code_lo >= c->code_size || c->trace || c->code_kind == XB_CODE_XIP) {
		cpu_fetch_slow(c, pc);
		return;
	}
	c->fetch_word = word;
	if (c->code_kind == XB_CODE_XIP_FAST && !cache_fetch(c->cache, word - c->code_lo)) {
		c->cycles += c->miss_penalty;
		if (c->xip_dead)
			xip_unanswered(c, word - c->code_lo);
	}
}

static inline uint32_t cpu_halfword_at(const xb_cpu *c, uint32_t pc)
{
	uint16_t h;
	memcpy(&h, (const void *)(c->code_bias + pc), 2);
	return h;
}

/* ---- Data access ---- */

/* A read of flash offset off through alias i (data, not fetch). */
static uint32_t cpu_flash_read(xb_cpu *c, uint32_t addr, uint32_t off, int alias, unsigned size)
{
	if (c->cycles < c->xip_busy_until)
		c->cycles = c->xip_busy_until;
	enum xb_alias_mode mode = c->xip_alias_mode[alias];
	int hit = (mode == XB_ALIAS_CACHED_ALLOC && c->xip_cache_on)
			  ? cache_fetch(c->cache, off)
			  : xip_flash_access(c, off, mode);
	if (!hit) {
		c->cycles += c->miss_penalty;
		if (c->xip_dead)
			xip_unanswered(c, off);
	}
	if (c->trace)
		trace_stream_push(c->trace, addr);
	uint32_t v = 0;
	memcpy(&v, c->flash + off, size);
	return v;
}

/* Charges the bus timing of a non-SRAM access beyond the 2 cycles an instruction assumes
 * (multi: a transfer of LDM/STM/PUSH/POP, which never gets faster than 1 per word). */
static void cpu_charge_bus(xb_cpu *c, uint32_t addr, int write, int multi)
{
	int extra = (int)bus_timing(addr, write) - 2;
	if (multi && extra < 0)
		extra = 0;
	c->cycles += (uint64_t)(int64_t)extra + bus_take_stall(c->bus);
}

static uint32_t cpu_load_slow(xb_cpu *c, uint32_t addr, unsigned size, int multi)
{
	for (int i = 0; i < c->xip_naliases; i++) {
		uint32_t off = addr - c->xip_alias_base[i];
		if (off < c->flash_size)
			return cpu_flash_read(c, addr, off, i, size);
	}
	if (c->rom && addr - c->rom_base < c->rom_size) {
		uint32_t v = 0;
		memcpy(&v, c->rom + (addr - c->rom_base), size);
		return v;
	}
	uint32_t v;
	bus_set_pc(c->bus, c->cur_pc);
	int rc = bus_read(c->bus, addr, size, &v);
	cpu_charge_bus(c, addr, 0, multi);
	if (rc)
		cpu_fault(c, XB_FAULT_BUS_READ, addr);
	return v;
}

static void cpu_store_slow(xb_cpu *c, uint32_t addr, unsigned size, uint32_t v, int multi)
{
	bus_set_pc(c->bus, c->cur_pc);
	int rc = bus_write(c->bus, addr, size, v);
	cpu_charge_bus(c, addr, 1, multi);
	if (rc)
		cpu_fault(c, XB_FAULT_BUS_WRITE, addr);
}

static inline uint32_t cpu_load(xb_cpu *c, uint32_t addr, unsigned size, int multi)
{
	if (addr & (size - 1))
		cpu_fault(c, XB_FAULT_UNALIGNED, addr);
	uint32_t o = addr - c->sram_base;
	if (o < c->sram_size) {
		if (size == 4) {
			uint32_t v;
			memcpy(&v, c->sram + o, 4);
			return v;
		}
		if (size == 2) {
			uint16_t v;
			memcpy(&v, c->sram + o, 2);
			return v;
		}
		return c->sram[o];
	}
	return cpu_load_slow(c, addr, size, multi);
}

static inline void cpu_store(xb_cpu *c, uint32_t addr, unsigned size, uint32_t v, int multi)
{
	if (addr & (size - 1))
		cpu_fault(c, XB_FAULT_UNALIGNED, addr);
	uint32_t o = addr - c->sram_base;
	if (o < c->sram_size) {
		if (size == 4) {
			memcpy(c->sram + o, &v, 4);
		} else if (size == 2) {
			uint16_t h = (uint16_t)v;
			memcpy(c->sram + o, &h, 2);
		} else {
			c->sram[o] = (uint8_t)v;
		}
		return;
	}
	cpu_store_slow(c, addr, size, v, multi);
}

int cpu_read_word(xb_cpu *c, uint32_t addr, uint32_t *value)
{
	uint32_t o = addr - c->sram_base;
	if ((addr & 3) == 0 && o < c->sram_size) {
		memcpy(value, c->sram + o, 4);
		return 0;
	}
	if (addr & 3)
		return -1;
	for (int i = 0; i < c->xip_naliases; i++) {
		uint32_t off = addr - c->xip_alias_base[i];
		if (off < c->flash_size) {
			*value = cpu_flash_read(c, addr, off, i, 4);
			return 0;
		}
	}
	if (c->rom && addr - c->rom_base < c->rom_size) {
		memcpy(value, c->rom + (addr - c->rom_base), 4);
		return 0;
	}
	bus_set_pc(c->bus, c->cur_pc);
	int rc = bus_read(c->bus, addr, 4, value);
	bus_take_stall(c->bus);
	return rc;
}

int cpu_write_word(xb_cpu *c, uint32_t addr, uint32_t value)
{
	uint32_t o = addr - c->sram_base;
	if ((addr & 3) == 0 && o < c->sram_size) {
		memcpy(c->sram + o, &value, 4);
		return 0;
	}
	if (addr & 3)
		return -1;
	bus_set_pc(c->bus, c->cur_pc);
	int rc = bus_write(c->bus, addr, 4, value);
	bus_take_stall(c->bus);
	return rc;
}

/* ---- Flags and helpers ---- */

static inline void cpu_set_nz(xb_cpu *c, uint32_t r)
{
	c->fnz = (int32_t)r;
}

static inline uint32_t cpu_add_flags(xb_cpu *c, uint32_t a, uint32_t b, uint32_t carry)
{
	uint64_t wide = (uint64_t)a + b + carry;
	uint32_t r = (uint32_t)wide;
	c->fnz = (int32_t)r;
	c->fc = (uint32_t)(wide >> 32);
	c->fv = ((a ^ r) & (b ^ r)) >> 31;
	return r;
}

static inline int cpu_cond(const xb_cpu *c, unsigned cond)
{
	uint32_t z = cpu_flag_z(c), n = cpu_flag_n(c);
	switch (cond) {
	case 0x0: return z;
	case 0x1: return !z;
	case 0x2: return c->fc;
	case 0x3: return !c->fc;
	case 0x4: return n;
	case 0x5: return !n;
	case 0x6: return c->fv;
	case 0x7: return !c->fv;
	case 0x8: return c->fc && !z;
	case 0x9: return !c->fc || z;
	case 0xA: return n == c->fv;
	case 0xB: return n != c->fv;
	case 0xC: return !z && n == c->fv;
	case 0xD: return z || n != c->fv;
	default: return 1;
	}
}

static inline void cpu_branch(xb_cpu *c, uint32_t target)
{
	c->r[15] = target & ~1u;
	c->fetch_word = ~0u;
}

/* BX, BLX, POP {pc}: interworking branch; in handler mode an EXC_RETURN value returns from
 * the exception. */
static void cpu_bx_write_pc(xb_cpu *c, uint32_t target, int allow_exc_return)
{
	if (allow_exc_return && c->ipsr && (target >> 28) == 0xF) {
		cpu_exception_return(c, target);
		return;
	}
	c->tbit = target & 1;
	cpu_branch(c, target);
	if (!c->tbit)
		cpu_invalidate_code(c); /* the next fetch faults (INVSTATE) */
}

/* PC as an operand: the instruction's address + 4. */
#define PC_READ(c) ((c)->r[15] + 2)

static uint32_t cpu_reg_hi(const xb_cpu *c, unsigned r)
{
	return r == 15 ? PC_READ(c) : c->r[r];
}

/* Register-specified shifts (amount = Rs[7:0]); ARMv6-M semantics for 0, 32 and above. */
static uint32_t cpu_shift_reg(xb_cpu *c, unsigned op, uint32_t v, uint32_t n)
{
	n &= 0xFF;
	if (n == 0)
		return v;
	switch (op) {
	case OP_LSL_REG:
		if (n < 32) {
			c->fc = (v >> (32 - n)) & 1;
			return v << n;
		}
		c->fc = n == 32 ? (v & 1) : 0;
		return 0;
	case OP_LSR_REG:
		if (n < 32) {
			c->fc = (v >> (n - 1)) & 1;
			return v >> n;
		}
		c->fc = n == 32 ? (v >> 31) : 0;
		return 0;
	case OP_ASR_REG:
		if (n < 32) {
			c->fc = ((uint32_t)((int32_t)v >> (n - 1))) & 1;
			return (uint32_t)((int32_t)v >> n);
		}
		c->fc = v >> 31;
		return (v >> 31) ? 0xFFFFFFFFu : 0;
	default: { /* ROR */
		unsigned k = n & 31;
		uint32_t r = k ? (v >> k) | (v << (32 - k)) : v;
		c->fc = r >> 31;
		return r;
	}
	}
}

static unsigned cpu_popcount(uint32_t v)
{
	return (unsigned)__builtin_popcount(v);
}

/* ---- 32-bit instructions ---- */

static void cpu_exec_t32(xb_cpu *c, uint32_t hw1)
{
	uint32_t pc2 = c->r[15];
	if ((pc2 & ~3u) != c->fetch_word)
		cpu_fetch(c, pc2);
	uint32_t hw2 = cpu_halfword_at(c, pc2);
	c->r[15] = pc2 + 2;
	if ((hw1 & 0xF800) == 0xF000 && (hw2 & 0xD000) == 0xD000) { /* BL */
		uint32_t s = (hw1 >> 10) & 1;
		uint32_t i1 = !(((hw2 >> 13) & 1) ^ s), i2 = !(((hw2 >> 11) & 1) ^ s);
		uint32_t imm = (s << 24) | (i1 << 23) | (i2 << 22) | ((hw1 & 0x3FF) << 12) |
			       ((hw2 & 0x7FF) << 1);
		if (s)
			imm |= 0xFE000000u;
		c->r[14] = c->r[15] | 1;
		cpu_branch(c, c->r[15] + imm);
		c->cycles += 2;
		return;
	}
	if ((hw1 & 0xFFF0) == 0xF380 && (hw2 & 0xFF00) == 0x8800) { /* MSR */
		unsigned n = hw1 & 15;
		if (n == 13 || n == 15)
			cpu_fault(c, XB_FAULT_UNDEFINED, 0);
		cpu_write_special(c, hw2 & 0xFF, c->r[n]);
		c->cycles += 2;
		return;
	}
	if (hw1 == 0xF3EF && (hw2 & 0xF000) == 0x8000) { /* MRS */
		unsigned d = (hw2 >> 8) & 15;
		if (d == 13 || d == 15)
			cpu_fault(c, XB_FAULT_UNDEFINED, 0);
		c->r[d] = cpu_read_special(c, hw2 & 0xFF);
		c->cycles += 2;
		return;
	}
	if (hw1 == 0xF3BF && ((hw2 & 0xFFF0) == 0x8F40 || (hw2 & 0xFFF0) == 0x8F50 ||
			      (hw2 & 0xFFF0) == 0x8F60)) { /* DSB, DMB, ISB */
		c->cycles += 2;
		return;
	}
	cpu_fault(c, XB_FAULT_UNDEFINED, 0); /* UDF.W and everything else */
}

/* ---- Miscellaneous 16-bit instructions ---- */

static void cpu_exec_hint(xb_cpu *c, uint32_t insn)
{
	if (insn & 0xF) /* IT: ARMv7-M only */
		cpu_fault(c, XB_FAULT_UNDEFINED, 0);
	switch ((insn >> 4) & 15) {
	case 2: /* WFE */
		c->cycles += 1;
		if (c->event_reg) {
			c->event_reg = 0;
		} else {
			c->sleep = XB_SLEEP_WFE;
			c->stop_at = 0;
		}
		break;
	case 3: /* WFI */
		c->cycles += 1;
		c->sleep = XB_SLEEP_WFI;
		c->stop_at = 0;
		break;
	case 4: /* SEV: this core's event register and the other core's */
		c->event_reg = 1;
		board_cpu_sev(c);
		break;
	default: /* NOP, YIELD, unallocated hints */
		break;
	}
}

static void cpu_exec_push(xb_cpu *c, uint32_t insn)
{
	uint32_t list = (insn & 0xFF) | ((insn & 0x100) ? 1u << 14 : 0);
	if (!list)
		cpu_fault(c, XB_FAULT_UNDEFINED, 0); /* UNPREDICTABLE: refused */
	unsigned n = cpu_popcount(list);
	uint32_t base = c->r[13] - 4 * n, a = base;
	for (unsigned r = 0; r < 15; r++) {
		if (list & (1u << r)) {
			cpu_store(c, a, 4, c->r[r], 1);
			a += 4;
		}
	}
	c->r[13] = base;
	c->cycles += n;
}

static void cpu_exec_pop(xb_cpu *c, uint32_t insn)
{
	uint32_t list = (insn & 0xFF) | ((insn & 0x100) ? 1u << 15 : 0);
	if (!list)
		cpu_fault(c, XB_FAULT_UNDEFINED, 0);
	uint32_t vals[16];
	uint32_t a = c->r[13];
	for (unsigned r = 0; r < 16; r++) {
		if (list & (1u << r)) {
			vals[r] = cpu_load(c, a, 4, 1);
			a += 4;
		}
	}
	unsigned n = cpu_popcount(list);
	for (unsigned r = 0; r < 8; r++)
		if (list & (1u << r))
			c->r[r] = vals[r];
	c->r[13] = a;
	c->cycles += n;
	if (list & 0x8000) {
		c->cycles += 2;
		cpu_bx_write_pc(c, vals[15], 1);
	}
}

static void cpu_exec_ldm(xb_cpu *c, uint32_t insn)
{
	unsigned rn = (insn >> 8) & 7;
	uint32_t list = insn & 0xFF;
	if (!list)
		cpu_fault(c, XB_FAULT_UNDEFINED, 0);
	uint32_t vals[8];
	uint32_t a = c->r[rn];
	for (unsigned r = 0; r < 8; r++) {
		if (list & (1u << r)) {
			vals[r] = cpu_load(c, a, 4, 1);
			a += 4;
		}
	}
	for (unsigned r = 0; r < 8; r++)
		if (list & (1u << r))
			c->r[r] = vals[r];
	if (!(list & (1u << rn)))
		c->r[rn] = a;
	c->cycles += cpu_popcount(list);
}

/* STM with the base in the list stores the base's original value wherever it appears
 * (ARMv6-M: UNKNOWN unless it is the lowest register; this choice is deterministic). */
static void cpu_exec_stm(xb_cpu *c, uint32_t insn)
{
	unsigned rn = (insn >> 8) & 7;
	uint32_t list = insn & 0xFF;
	if (!list)
		cpu_fault(c, XB_FAULT_UNDEFINED, 0);
	uint32_t a = c->r[rn];
	for (unsigned r = 0; r < 8; r++) {
		if (list & (1u << r)) {
			cpu_store(c, a, 4, c->r[r], 1);
			a += 4;
		}
	}
	c->r[rn] = a;
	c->cycles += cpu_popcount(list);
}

/* ---- The run loop ---- */

#define RD(i) ((i) & 7)
#define RM(i) (((i) >> 3) & 7)
#define RN(i) (((i) >> 3) & 7)
#define RM6(i) (((i) >> 6) & 7)
#define IMM5(i) (((i) >> 6) & 31)
#define R8(i) (((i) >> 8) & 7)

/* The interpreter loop. Kept out of cpu_run's setjmp frame so that the compiler can hold
 * the CPU pointer in a register.
 *
 * The loop keeps the next instruction's address (npc), the cycle count (cyc) and the
 * retired-instruction count (ins) in locals: held in memory, each instruction would wait
 * for its predecessor's store of them. c->r[15] is stored for every instruction (operands
 * read it), but cycles and insns only around what may read or change them: the classes
 * whose code calls out (memory access other than aligned SRAM, exceptions, system
 * instructions) start with OP_SYNC_OUT and end with OP_NEXT_SYNCED, which takes the three
 * values back from memory; a fault, SVC or BKPT longjmps out of the loop after syncing, so
 * memory holds the counts.
 *
 * With GCC or Clang each instruction class ends in its own copy of the dispatch (fetch,
 * decode, an indirect jump through op_label): the host predicts each of those jumps from
 * the class that precedes it, which it cannot do as well for one shared switch jump. Other
 * compilers (and builds with XB_SWITCH_DISPATCH defined) get the same code as a switch. */
#define OP_SYNC_OUT()               \
	do {                        \
		c->cycles = cyc;    \
		c->insns = ins;     \
	} while (0)
/* A call that does not return (a fault, SVC, BKPT), made with the counts in memory. */
#define OP_SYNCED(call) (c->cycles = cyc, c->insns = ins, call)
#define OP_FAULT(kind, addr) OP_SYNCED(cpu_fault(c, kind, addr))
#define OP_SYNC_IN()                \
	do {                        \
		cyc = c->cycles;    \
		ins = c->insns;     \
		npc = c->r[15];     \
	} while (0)

#if defined(__GNUC__) && !defined(XB_SWITCH_DISPATCH)
#define OP_THREADED 1
#define OP_CASE(op) L_##op:
#define OP_DEFAULT L_DEFAULT:
#define OP_NEXT                                       \
	do {                                          \
		OP_DECODE();                          \
		goto *op_label[c->decode[insn >> 6]]; \
	} while (0)
#define OP_NEXT_SYNCED         \
	do {                   \
		OP_SYNC_IN();  \
		OP_NEXT;       \
	} while (0)
#else
#define OP_THREADED 0
#define OP_CASE(op) case op:
#define OP_DEFAULT default:
#define OP_NEXT break
#define OP_NEXT_SYNCED \
	OP_SYNC_IN();  \
	break
#endif

/* LDR/STR of size bytes at addr (one cycle beyond the dispatch's): an aligned SRAM access
 * here, as cpu_load and cpu_store make it; anything else through them with the counts in
 * memory.
 * type: what the loaded bytes are (signed for LDRSB and LDRSH). The braces, not a do-while,
 * let OP_NEXT leave a switch. */
#define OP_LOAD(rd, addr, size, type)                                        \
	{                                                                    \
		uint32_t a_ = (addr), o_ = a_ - c->sram_base;                \
		if (!(a_ & ((size) - 1)) && o_ < c->sram_size) {             \
			type v_;                                             \
			memcpy(&v_, c->sram + o_, size);                     \
			r[rd] = (uint32_t)v_;                                \
			cyc += 1;                                            \
			OP_NEXT;                                             \
		}                                                            \
		OP_SYNC_OUT();                                               \
		r[rd] = (uint32_t)(type)cpu_load(c, a_, size, 0);            \
		c->cycles += 1;                                              \
		OP_NEXT_SYNCED;                                              \
	}
#define OP_STORE(addr, size, value)                                          \
	{                                                                    \
		uint32_t a_ = (addr), o_ = a_ - c->sram_base;                \
		if (!(a_ & ((size) - 1)) && o_ < c->sram_size) {             \
			uint32_t v_ = (value);                               \
			memcpy(c->sram + o_, &v_, size); /* little-endian */ \
			cyc += 1;                                            \
			OP_NEXT;                                             \
		}                                                            \
		OP_SYNC_OUT();                                               \
		cpu_store(c, a_, size, value, 0);                            \
		c->cycles += 1;                                              \
		OP_NEXT_SYNCED;                                              \
	}

/* Fetches the word holding pc (as cpu_fetch, with the cycles in cyc): the current region of
 * SRAM or ROM, or of flash through the cached alias, untraced, here; the rest through
 * cpu_fetch_slow. */
#define OP_FETCH()                                                                          \
	do {                                                                                \
		uint32_t word_ = pc & ~3u, off_ = word_ - c->code_lo;                        \
		if (off_ < c->code_size && !c->trace && c->code_kind != XB_CODE_XIP) {      \
			c->fetch_word = word_;                                               \
			if (c->code_kind == XB_CODE_XIP_FAST && !cache_fetch(c->cache, off_)) { \
				cyc += c->miss_penalty;                                      \
				if (c->xip_dead) {                                           \
					OP_SYNC_OUT();                                       \
					xip_unanswered(c, off_);                             \
					cyc = c->cycles;                                     \
				}                                                            \
			}                                                                    \
		} else {                                                                     \
			OP_SYNC_OUT();                                                       \
			cpu_fetch_slow(c, pc);                                               \
			cyc = c->cycles;                                                     \
		}                                                                            \
	} while (0)

/* Fetches and decodes the next instruction into pc and insn (returning from the loop when
 * the cycle limit is reached); charges its first cycle. */
#define OP_DECODE()                              \
	do {                                     \
		if (cyc >= c->stop_at) {         \
			OP_SYNC_OUT();           \
			return;                  \
		}                                \
		pc = npc;                        \
		c->cur_pc = pc;                  \
		if ((pc & ~3u) != c->fetch_word) \
			OP_FETCH();              \
		insn = cpu_halfword_at(c, pc);   \
		npc = pc + 2;                    \
		c->r[15] = npc;                  \
		ins++;                           \
		cyc++;                           \
	} while (0)

__attribute__((noinline)) static void cpu_run_loop(xb_cpu *c)
{
	uint32_t *r = c->r;
	uint32_t pc, insn, npc = c->r[15];
	uint64_t cyc = c->cycles, ins = c->insns;
#if OP_THREADED
	static const void *const op_label[OP_T32 + 1] = {
		[OP_UNDEF] = &&L_DEFAULT,
		[OP_LSL_IMM] = &&L_OP_LSL_IMM,
		[OP_LSR_IMM] = &&L_OP_LSR_IMM,
		[OP_ASR_IMM] = &&L_OP_ASR_IMM,
		[OP_ADD_REG] = &&L_OP_ADD_REG,
		[OP_SUB_REG] = &&L_OP_SUB_REG,
		[OP_ADD_IMM3] = &&L_OP_ADD_IMM3,
		[OP_SUB_IMM3] = &&L_OP_SUB_IMM3,
		[OP_MOV_IMM] = &&L_OP_MOV_IMM,
		[OP_CMP_IMM] = &&L_OP_CMP_IMM,
		[OP_ADD_IMM8] = &&L_OP_ADD_IMM8,
		[OP_SUB_IMM8] = &&L_OP_SUB_IMM8,
		[OP_AND] = &&L_OP_AND,
		[OP_EOR] = &&L_OP_EOR,
		[OP_LSL_REG] = &&L_OP_LSL_REG,
		[OP_LSR_REG] = &&L_OP_LSR_REG,
		[OP_ASR_REG] = &&L_OP_ASR_REG,
		[OP_ADC] = &&L_OP_ADC,
		[OP_SBC] = &&L_OP_SBC,
		[OP_ROR] = &&L_OP_ROR,
		[OP_TST] = &&L_OP_TST,
		[OP_RSB] = &&L_OP_RSB,
		[OP_CMP_REG] = &&L_OP_CMP_REG,
		[OP_CMN] = &&L_OP_CMN,
		[OP_ORR] = &&L_OP_ORR,
		[OP_MUL] = &&L_OP_MUL,
		[OP_BIC] = &&L_OP_BIC,
		[OP_MVN] = &&L_OP_MVN,
		[OP_ADD_HI] = &&L_OP_ADD_HI,
		[OP_CMP_HI] = &&L_OP_CMP_HI,
		[OP_MOV_HI] = &&L_OP_MOV_HI,
		[OP_BX] = &&L_OP_BX,
		[OP_LDR_LIT] = &&L_OP_LDR_LIT,
		[OP_STR_REG] = &&L_OP_STR_REG,
		[OP_STRH_REG] = &&L_OP_STRH_REG,
		[OP_STRB_REG] = &&L_OP_STRB_REG,
		[OP_LDRSB_REG] = &&L_OP_LDRSB_REG,
		[OP_LDR_REG] = &&L_OP_LDR_REG,
		[OP_LDRH_REG] = &&L_OP_LDRH_REG,
		[OP_LDRB_REG] = &&L_OP_LDRB_REG,
		[OP_LDRSH_REG] = &&L_OP_LDRSH_REG,
		[OP_STR_IMM] = &&L_OP_STR_IMM,
		[OP_LDR_IMM] = &&L_OP_LDR_IMM,
		[OP_STRB_IMM] = &&L_OP_STRB_IMM,
		[OP_LDRB_IMM] = &&L_OP_LDRB_IMM,
		[OP_STRH_IMM] = &&L_OP_STRH_IMM,
		[OP_LDRH_IMM] = &&L_OP_LDRH_IMM,
		[OP_STR_SP] = &&L_OP_STR_SP,
		[OP_LDR_SP] = &&L_OP_LDR_SP,
		[OP_ADR] = &&L_OP_ADR,
		[OP_ADD_SP_REG8] = &&L_OP_ADD_SP_REG8,
		[OP_ADD_SP_IMM7] = &&L_OP_ADD_SP_IMM7,
		[OP_SUB_SP_IMM7] = &&L_OP_SUB_SP_IMM7,
		[OP_SXTH] = &&L_OP_SXTH,
		[OP_SXTB] = &&L_OP_SXTB,
		[OP_UXTH] = &&L_OP_UXTH,
		[OP_UXTB] = &&L_OP_UXTB,
		[OP_PUSH] = &&L_OP_PUSH,
		[OP_POP] = &&L_OP_POP,
		[OP_CPS] = &&L_OP_CPS,
		[OP_REV] = &&L_OP_REV,
		[OP_REV16] = &&L_OP_REV16,
		[OP_REVSH] = &&L_OP_REVSH,
		[OP_BKPT] = &&L_OP_BKPT,
		[OP_HINT] = &&L_OP_HINT,
		[OP_STM] = &&L_OP_STM,
		[OP_LDM] = &&L_OP_LDM,
		[OP_BCOND] = &&L_OP_BCOND,
		[OP_UDF] = &&L_OP_UDF,
		[OP_SVC] = &&L_OP_SVC,
		[OP_B] = &&L_OP_B,
		[OP_T32] = &&L_OP_T32,
	};
	OP_NEXT;
	{
#else
	for (;;) {
		OP_DECODE();
		switch (c->decode[insn >> 6]) {
#endif
		OP_CASE(OP_LSL_IMM) {
			uint32_t v = r[RM(insn)], n = IMM5(insn);
			if (n) {
				c->fc = (v >> (32 - n)) & 1;
				v <<= n;
			}
			r[RD(insn)] = v;
			cpu_set_nz(c, v);
			OP_NEXT;
		}
		OP_CASE(OP_LSR_IMM) {
			uint32_t v = r[RM(insn)], n = IMM5(insn);
			if (!n)
				n = 32;
			c->fc = (v >> (n - 1)) & 1;
			v = n == 32 ? 0 : v >> n;
			r[RD(insn)] = v;
			cpu_set_nz(c, v);
			OP_NEXT;
		}
		OP_CASE(OP_ASR_IMM) {
			uint32_t v = r[RM(insn)], n = IMM5(insn);
			if (!n)
				n = 32;
			c->fc = ((uint32_t)((int32_t)v >> (n - 1))) & 1;
			v = n == 32 ? (uint32_t)((int32_t)v >> 31) : (uint32_t)((int32_t)v >> n);
			r[RD(insn)] = v;
			cpu_set_nz(c, v);
			OP_NEXT;
		}
		OP_CASE(OP_ADD_REG)
			r[RD(insn)] = cpu_add_flags(c, r[RN(insn)], r[RM6(insn)], 0);
			OP_NEXT;
		OP_CASE(OP_SUB_REG)
			r[RD(insn)] = cpu_add_flags(c, r[RN(insn)], ~r[RM6(insn)], 1);
			OP_NEXT;
		OP_CASE(OP_ADD_IMM3)
			r[RD(insn)] = cpu_add_flags(c, r[RN(insn)], (insn >> 6) & 7, 0);
			OP_NEXT;
		OP_CASE(OP_SUB_IMM3)
			r[RD(insn)] = cpu_add_flags(c, r[RN(insn)], ~((insn >> 6) & 7), 1);
			OP_NEXT;
		OP_CASE(OP_MOV_IMM) {
			uint32_t v = insn & 0xFF;
			r[R8(insn)] = v;
			c->fnz = v;
			OP_NEXT;
		}
		OP_CASE(OP_CMP_IMM)
			cpu_add_flags(c, r[R8(insn)], ~(insn & 0xFF), 1);
			OP_NEXT;
		OP_CASE(OP_ADD_IMM8)
			r[R8(insn)] = cpu_add_flags(c, r[R8(insn)], insn & 0xFF, 0);
			OP_NEXT;
		OP_CASE(OP_SUB_IMM8)
			r[R8(insn)] = cpu_add_flags(c, r[R8(insn)], ~(insn & 0xFF), 1);
			OP_NEXT;
		OP_CASE(OP_AND) {
			uint32_t v = r[RD(insn)] & r[RM(insn)];
			r[RD(insn)] = v;
			cpu_set_nz(c, v);
			OP_NEXT;
		}
		OP_CASE(OP_EOR) {
			uint32_t v = r[RD(insn)] ^ r[RM(insn)];
			r[RD(insn)] = v;
			cpu_set_nz(c, v);
			OP_NEXT;
		}
		OP_CASE(OP_LSL_REG)
		OP_CASE(OP_LSR_REG)
		OP_CASE(OP_ASR_REG)
		OP_CASE(OP_ROR) {
			uint32_t v = cpu_shift_reg(c, c->decode[insn >> 6], r[RD(insn)], r[RM(insn)]);
			r[RD(insn)] = v;
			cpu_set_nz(c, v);
			OP_NEXT;
		}
		OP_CASE(OP_ADC)
			r[RD(insn)] = cpu_add_flags(c, r[RD(insn)], r[RM(insn)], c->fc);
			OP_NEXT;
		OP_CASE(OP_SBC)
			r[RD(insn)] = cpu_add_flags(c, r[RD(insn)], ~r[RM(insn)], c->fc);
			OP_NEXT;
		OP_CASE(OP_TST)
			cpu_set_nz(c, r[RD(insn)] & r[RM(insn)]);
			OP_NEXT;
		OP_CASE(OP_RSB)
			r[RD(insn)] = cpu_add_flags(c, 0, ~r[RN(insn)], 1);
			OP_NEXT;
		OP_CASE(OP_CMP_REG)
			cpu_add_flags(c, r[RD(insn)], ~r[RM(insn)], 1);
			OP_NEXT;
		OP_CASE(OP_CMN)
			cpu_add_flags(c, r[RD(insn)], r[RM(insn)], 0);
			OP_NEXT;
		OP_CASE(OP_ORR) {
			uint32_t v = r[RD(insn)] | r[RM(insn)];
			r[RD(insn)] = v;
			cpu_set_nz(c, v);
			OP_NEXT;
		}
		OP_CASE(OP_MUL) {
			uint32_t v = r[RD(insn)] * r[RN(insn)];
			r[RD(insn)] = v;
			cpu_set_nz(c, v);
			OP_NEXT;
		}
		OP_CASE(OP_BIC) {
			uint32_t v = r[RD(insn)] & ~r[RM(insn)];
			r[RD(insn)] = v;
			cpu_set_nz(c, v);
			OP_NEXT;
		}
		OP_CASE(OP_MVN) {
			uint32_t v = ~r[RM(insn)];
			r[RD(insn)] = v;
			cpu_set_nz(c, v);
			OP_NEXT;
		}
		OP_CASE(OP_ADD_HI) {
			unsigned d = (insn & 7) | ((insn >> 4) & 8), m = (insn >> 3) & 15;
			if (d == 15 && m == 15)
				OP_FAULT(XB_FAULT_UNDEFINED, 0); /* UNPREDICTABLE: refused */
			uint32_t v = cpu_reg_hi(c, d) + cpu_reg_hi(c, m);
			if (d == 15) {
				cpu_branch(c, v);
				npc = c->r[15];
				cyc += 1;
			} else {
				r[d] = d == 13 ? v & ~3u : v;
			}
			OP_NEXT;
		}
		OP_CASE(OP_CMP_HI) {
			unsigned n = (insn & 7) | ((insn >> 4) & 8), m = (insn >> 3) & 15;
			cpu_add_flags(c, cpu_reg_hi(c, n), ~cpu_reg_hi(c, m), 1);
			OP_NEXT;
		}
		OP_CASE(OP_MOV_HI) {
			unsigned d = (insn & 7) | ((insn >> 4) & 8), m = (insn >> 3) & 15;
			uint32_t v = cpu_reg_hi(c, m);
			if (d == 15) {
				cpu_branch(c, v);
				npc = c->r[15];
				cyc += 1;
			} else {
				r[d] = d == 13 ? v & ~3u : v;
			}
			OP_NEXT;
		}
		OP_CASE(OP_BX) {
			OP_SYNC_OUT();
			unsigned m = (insn >> 3) & 15;
			uint32_t target = cpu_reg_hi(c, m);
			c->cycles += 1;
			if (insn & 0x80) { /* BLX */
				if (m == 15)
					cpu_fault(c, XB_FAULT_UNDEFINED, 0);
				r[14] = c->r[15] | 1;
				cpu_bx_write_pc(c, target, 0);
			} else {
				cpu_bx_write_pc(c, target, 1);
			}
			OP_NEXT_SYNCED;
		}
		OP_CASE(OP_LDR_LIT) {
			OP_SYNC_OUT();
			uint32_t a = (PC_READ(c) & ~3u) + ((insn & 0xFF) << 2);
			r[R8(insn)] = cpu_load(c, a, 4, 0);
			c->cycles += 1;
			OP_NEXT_SYNCED;
		}
		OP_CASE(OP_STR_REG)
			OP_STORE(r[RN(insn)] + r[RM6(insn)], 4, r[RD(insn)]);
		OP_CASE(OP_STRH_REG)
			OP_STORE(r[RN(insn)] + r[RM6(insn)], 2, r[RD(insn)]);
		OP_CASE(OP_STRB_REG)
			OP_STORE(r[RN(insn)] + r[RM6(insn)], 1, r[RD(insn)]);
		OP_CASE(OP_LDRSB_REG)
			OP_LOAD(RD(insn), r[RN(insn)] + r[RM6(insn)], 1, int8_t);
		OP_CASE(OP_LDR_REG)
			OP_LOAD(RD(insn), r[RN(insn)] + r[RM6(insn)], 4, uint32_t);
		OP_CASE(OP_LDRH_REG)
			OP_LOAD(RD(insn), r[RN(insn)] + r[RM6(insn)], 2, uint16_t);
		OP_CASE(OP_LDRB_REG)
			OP_LOAD(RD(insn), r[RN(insn)] + r[RM6(insn)], 1, uint8_t);
		OP_CASE(OP_LDRSH_REG)
			OP_LOAD(RD(insn), r[RN(insn)] + r[RM6(insn)], 2, int16_t);
		OP_CASE(OP_STR_IMM)
			OP_STORE(r[RN(insn)] + (IMM5(insn) << 2), 4, r[RD(insn)]);
		OP_CASE(OP_LDR_IMM)
			OP_LOAD(RD(insn), r[RN(insn)] + (IMM5(insn) << 2), 4, uint32_t);
		OP_CASE(OP_STRB_IMM)
			OP_STORE(r[RN(insn)] + IMM5(insn), 1, r[RD(insn)]);
		OP_CASE(OP_LDRB_IMM)
			OP_LOAD(RD(insn), r[RN(insn)] + IMM5(insn), 1, uint8_t);
		OP_CASE(OP_STRH_IMM)
			OP_STORE(r[RN(insn)] + (IMM5(insn) << 1), 2, r[RD(insn)]);
		OP_CASE(OP_LDRH_IMM)
			OP_LOAD(RD(insn), r[RN(insn)] + (IMM5(insn) << 1), 2, uint16_t);
		OP_CASE(OP_STR_SP)
			OP_STORE(r[13] + ((insn & 0xFF) << 2), 4, r[R8(insn)]);
		OP_CASE(OP_LDR_SP)
			OP_LOAD(R8(insn), r[13] + ((insn & 0xFF) << 2), 4, uint32_t);
		OP_CASE(OP_ADR)
			r[R8(insn)] = (PC_READ(c) & ~3u) + ((insn & 0xFF) << 2);
			OP_NEXT;
		OP_CASE(OP_ADD_SP_REG8)
			r[R8(insn)] = r[13] + ((insn & 0xFF) << 2);
			OP_NEXT;
		OP_CASE(OP_ADD_SP_IMM7)
			r[13] += (insn & 0x7F) << 2;
			OP_NEXT;
		OP_CASE(OP_SUB_SP_IMM7)
			r[13] -= (insn & 0x7F) << 2;
			OP_NEXT;
		OP_CASE(OP_SXTH)
			r[RD(insn)] = (uint32_t)(int32_t)(int16_t)r[RM(insn)];
			OP_NEXT;
		OP_CASE(OP_SXTB)
			r[RD(insn)] = (uint32_t)(int32_t)(int8_t)r[RM(insn)];
			OP_NEXT;
		OP_CASE(OP_UXTH)
			r[RD(insn)] = r[RM(insn)] & 0xFFFF;
			OP_NEXT;
		OP_CASE(OP_UXTB)
			r[RD(insn)] = r[RM(insn)] & 0xFF;
			OP_NEXT;
		OP_CASE(OP_PUSH)
			OP_SYNC_OUT();
			cpu_exec_push(c, insn);
			OP_NEXT_SYNCED;
		OP_CASE(OP_POP)
			OP_SYNC_OUT();
			cpu_exec_pop(c, insn);
			OP_NEXT_SYNCED;
		OP_CASE(OP_CPS)
			OP_SYNC_OUT();
			if ((insn & 0xFFEF) != 0xB662)
				cpu_fault(c, XB_FAULT_UNDEFINED, 0);
			if (c->ipsr || !(c->control & 1)) { /* privileged only */
				c->primask = (insn >> 4) & 1;
				cpu_irq_changed(c);
			}
			OP_NEXT_SYNCED;
		OP_CASE(OP_REV)
			r[RD(insn)] = __builtin_bswap32(r[RM(insn)]);
			OP_NEXT;
		OP_CASE(OP_REV16) {
			uint32_t v = r[RM(insn)];
			r[RD(insn)] = ((v & 0x00FF00FFu) << 8) | ((v >> 8) & 0x00FF00FFu);
			OP_NEXT;
		}
		OP_CASE(OP_REVSH) {
			uint32_t v = r[RM(insn)];
			r[RD(insn)] = (uint32_t)(int32_t)(int16_t)(((v & 0xFF) << 8) | ((v >> 8) & 0xFF));
			OP_NEXT;
		}
		OP_CASE(OP_BKPT)
			OP_SYNCED(cpu_bkpt(c));
		OP_CASE(OP_HINT)
			OP_SYNC_OUT();
			cpu_exec_hint(c, insn);
			OP_NEXT_SYNCED;
		OP_CASE(OP_STM)
			OP_SYNC_OUT();
			cpu_exec_stm(c, insn);
			OP_NEXT_SYNCED;
		OP_CASE(OP_LDM)
			OP_SYNC_OUT();
			cpu_exec_ldm(c, insn);
			OP_NEXT_SYNCED;
		OP_CASE(OP_BCOND)
			if (cpu_cond(c, (insn >> 8) & 15)) {
				cpu_branch(c, PC_READ(c) + ((uint32_t)(int32_t)(int8_t)insn << 1));
				npc = c->r[15];
				cyc += 1;
			}
			OP_NEXT;
		OP_CASE(OP_UDF)
			OP_FAULT(XB_FAULT_UNDEFINED, 0);
		OP_CASE(OP_SVC)
			OP_SYNCED(cpu_svc(c));
		OP_CASE(OP_B) {
			uint32_t off = (insn & 0x7FF) << 1;
			if (off & 0x800)
				off |= 0xFFFFF000u;
			cpu_branch(c, PC_READ(c) + off);
			npc = c->r[15];
			cyc += 1;
			OP_NEXT;
		}
		OP_CASE(OP_T32)
			OP_SYNC_OUT();
			cpu_exec_t32(c, insn);
			OP_NEXT_SYNCED;
		OP_DEFAULT
			OP_FAULT(XB_FAULT_UNDEFINED, 0);
		}
#if !OP_THREADED
	}
#endif
}

void cpu_run(xb_cpu *c)
{
	if (setjmp(c->fault_jmp))
		return; /* a fault entered HardFault or locked up; stop_at is 0 */
	cpu_run_loop(c);
}
