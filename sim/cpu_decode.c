/* cpu_decode: the ARMv6-M decode table of the virtual Pico: instruction class by bits 15:6 of
 * the first halfword (the classes are enum xb_op in cpu.h; cpu_exec.c executes them). */
#include "cpu.h"

void cpu_init(xb_cpu *c)
{
	for (unsigned k = 0; k < 1024; k++) {
		unsigned h = k << 6; /* the first halfword with bits 5:0 clear */
		unsigned op = OP_UNDEF;
		switch (h >> 11) {
		case 0x00: op = OP_LSL_IMM; break;
		case 0x01: op = OP_LSR_IMM; break;
		case 0x02: op = OP_ASR_IMM; break;
		case 0x03: {
			static const unsigned ops[4] = {OP_ADD_REG, OP_SUB_REG, OP_ADD_IMM3,
							OP_SUB_IMM3};
			op = ops[(h >> 9) & 3];
			break;
		}
		case 0x04: op = OP_MOV_IMM; break;
		case 0x05: op = OP_CMP_IMM; break;
		case 0x06: op = OP_ADD_IMM8; break;
		case 0x07: op = OP_SUB_IMM8; break;
		case 0x08:
			if ((h & 0xFC00) == 0x4000) {
				static const unsigned dp[16] = {
					OP_AND, OP_EOR, OP_LSL_REG, OP_LSR_REG, OP_ASR_REG, OP_ADC,
					OP_SBC, OP_ROR, OP_TST, OP_RSB, OP_CMP_REG, OP_CMN,
					OP_ORR, OP_MUL, OP_BIC, OP_MVN};
				op = dp[(h >> 6) & 15];
			} else {
				static const unsigned hi[4] = {OP_ADD_HI, OP_CMP_HI, OP_MOV_HI,
							       OP_BX};
				op = hi[(h >> 8) & 3];
			}
			break;
		case 0x09: op = OP_LDR_LIT; break;
		case 0x0A:
		case 0x0B: {
			static const unsigned ls[8] = {OP_STR_REG,  OP_STRH_REG, OP_STRB_REG,
						       OP_LDRSB_REG, OP_LDR_REG, OP_LDRH_REG,
						       OP_LDRB_REG, OP_LDRSH_REG};
			op = ls[(h >> 9) & 7];
			break;
		}
		case 0x0C: op = OP_STR_IMM; break;
		case 0x0D: op = OP_LDR_IMM; break;
		case 0x0E: op = OP_STRB_IMM; break;
		case 0x0F: op = OP_LDRB_IMM; break;
		case 0x10: op = OP_STRH_IMM; break;
		case 0x11: op = OP_LDRH_IMM; break;
		case 0x12: op = OP_STR_SP; break;
		case 0x13: op = OP_LDR_SP; break;
		case 0x14: op = OP_ADR; break;
		case 0x15: op = OP_ADD_SP_REG8; break;
		case 0x16:
		case 0x17:
			switch ((h >> 8) & 15) {
			case 0x0: op = (h & 0x80) ? OP_SUB_SP_IMM7 : OP_ADD_SP_IMM7; break;
			case 0x2: {
				static const unsigned ext[4] = {OP_SXTH, OP_SXTB, OP_UXTH, OP_UXTB};
				op = ext[(h >> 6) & 3];
				break;
			}
			case 0x4: case 0x5: op = OP_PUSH; break;
			case 0x6: op = ((h >> 6) & 3) == 1 ? OP_CPS : OP_UNDEF; break;
			case 0xA: {
				static const unsigned rev[4] = {OP_REV, OP_REV16, OP_UNDEF, OP_REVSH};
				op = rev[(h >> 6) & 3];
				break;
			}
			case 0xC: case 0xD: op = OP_POP; break;
			case 0xE: op = OP_BKPT; break;
			case 0xF: op = OP_HINT; break;
			default: op = OP_UNDEF; break; /* CBZ/CBNZ and others: ARMv7-M only */
			}
			break;
		case 0x18: op = OP_STM; break;
		case 0x19: op = OP_LDM; break;
		case 0x1A:
		case 0x1B: {
			unsigned cond = (h >> 8) & 15;
			op = cond == 14 ? OP_UDF : cond == 15 ? OP_SVC : OP_BCOND;
			break;
		}
		case 0x1C: op = OP_B; break;
		case 0x1D: op = OP_UNDEF; break; /* 32-bit encodings ARMv6-M lacks */
		case 0x1E:
		case 0x1F: op = OP_T32; break;
		}
		c->decode[k] = (uint8_t)op;
	}
	c->fetch_word = ~0u;
}
