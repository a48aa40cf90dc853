/* mpu: decodes a Cortex-M MPU as read over SWD (ARMv7-M PMSAv7 or ARMv8-M PMSAv8) and
 * answers, for one address, which attributes an instruction fetch gets: which region
 * decided, the memory type, whether it is cacheable and executable, and whether the
 * instruction cache is on. The register dump's text form is in docs/formats-mpu.md. */
#ifndef XB_MPU_H
#define XB_MPU_H

#include <stddef.h>
#include <stdint.h>

#include "target.h"
#include "util.h"

/* Addresses of the registers a dump holds (System Control Space, ARMv7-M ARM B3.2 and
 * B3.5, ARMv8-M ARM B3.5; the same in CMSIS core_cm7.h / core_cm33.h: SCB_BASE 0xE000ED00,
 * MPU_BASE 0xE000ED90). RNR selects the region that RBAR and RASR/RLAR show. */
#define XB_SCB_CCR_ADDR 0xE000ED14u   /* CCR; bit 17 IC: instruction cache enabled */
#define XB_MPU_TYPE_ADDR 0xE000ED90u  /* DREGION bits [15:8], SEPARATE bit 0 */
#define XB_MPU_CTRL_ADDR 0xE000ED94u  /* ENABLE bit 0, HFNMIENA bit 1, PRIVDEFENA bit 2 */
#define XB_MPU_RNR_ADDR 0xE000ED98u
#define XB_MPU_RBAR_ADDR 0xE000ED9Cu
#define XB_MPU_RASR_ADDR 0xE000EDA0u  /* ARMv7-M */
#define XB_MPU_RLAR_ADDR 0xE000EDA0u  /* ARMv8-M: the same offset, another layout */
#define XB_MPU_MAIR0_ADDR 0xE000EDC0u /* ARMv8-M */
#define XB_MPU_MAIR1_ADDR 0xE000EDC4u

#define XB_SCB_CCR_IC (1u << 17)
#define XB_MPU_CTRL_ENABLE (1u << 0)
#define XB_MPU_CTRL_HFNMIENA (1u << 1)
#define XB_MPU_CTRL_PRIVDEFENA (1u << 2)

/* Regions a dump may hold (MPU_TYPE.DREGION at most this). */
#define XB_MPU_MAX_REGIONS 16

typedef struct xb_mpu_region {
	int given;     /* the dump has a REGION line for it; a region not given is disabled */
	uint32_t rbar; /* MPU_RBAR with RNR = this region */
	uint32_t rasr; /* ARMv7-M: MPU_RASR */
	uint32_t rlar; /* ARMv8-M: MPU_RLAR */
} xb_mpu_region;

/* The registers as read over SWD. */
typedef struct xb_mpu {
	enum xb_mpu_arch arch; /* XB_MPU_ARMV7M or XB_MPU_ARMV8M once parsed */
	uint32_t type, ctrl;   /* MPU_TYPE, MPU_CTRL */
	int have_ccr;          /* CCR given: its IC bit says whether the I-cache is on */
	uint32_t ccr;
	uint32_t mair[2]; /* ARMv8-M MPU_MAIR0/1; 0 when not given */
	int nregions;     /* MPU_TYPE.DREGION */
	xb_mpu_region region[XB_MPU_MAX_REGIONS];
} xb_mpu;

/* Where the attributes of an address came from. */
enum xb_mpu_source {
	XB_MPU_SRC_REGION,     /* an enabled MPU region */
	XB_MPU_SRC_DISABLED,   /* MPU_CTRL.ENABLE = 0: the default memory map */
	XB_MPU_SRC_BACKGROUND, /* no region, privileged, PRIVDEFENA = 1: the default map */
	XB_MPU_SRC_NONE,       /* no region and no background: the access faults */
	XB_MPU_SRC_OVERLAP,    /* ARMv8-M: two or more enabled regions match: it faults */
};

enum xb_mem_type {
	XB_MEM_NORMAL,
	XB_MEM_DEVICE,
	XB_MEM_STRONGLY_ORDERED, /* ARMv7-M; ARMv8-M calls it Device-nGnRnE (XB_MEM_DEVICE) */
	XB_MEM_RESERVED,         /* a reserved or UNPREDICTABLE encoding */
};

/* Cache policy of one level (inner or outer) of Normal memory. */
enum xb_cache_policy {
	XB_CP_NONE,          /* non-cacheable, or not Normal memory */
	XB_CP_WRITE_THROUGH, /* write-through */
	XB_CP_WRITE_BACK,    /* write-back */
};

typedef struct xb_mpu_attr {
	enum xb_mpu_source source;
	int region;            /* the deciding region, or -1 */
	int other_region;      /* XB_MPU_SRC_OVERLAP: a second matching region, else -1 */
	uint32_t base, limit;  /* inclusive range of that region or default-map range */
	int subregion;         /* ARMv7-M: the address's subregion 0..7, -1 when none apply */
	int srd_skipped;       /* ARMv7-M: a region matched but this subregion is disabled */
	enum xb_mem_type type;
	enum xb_cache_policy inner, outer; /* XB_CP_NONE unless type is XB_MEM_NORMAL */
	int read_alloc, write_alloc;       /* of the inner policy */
	int shareable;
	int xn;                /* execute-never (region XN, or the default map's) */
	int readable;          /* a read is permitted at the privilege asked */
	int executable;        /* an instruction fetch is permitted: readable, not XN, no fault */
	int fault;             /* the fetch raises a MemManage fault */
	int cacheable;         /* Normal memory with a cacheable inner policy */
	int icache;            /* CCR.IC: 1 on, 0 off, -1 when the dump has no CCR */
	int cached_fetch;      /* cacheable, executable and the I-cache not known to be off */
	char desc[200];        /* one line for evidence */
} xb_mpu_attr;

/* Parses the text form (docs/formats-mpu.md). Errors name the line
 * ("mpu.txt:4: REGION 9 is beyond MPU_TYPE.DREGION (8 regions)"); on error *m is zeroed.
 * Never crashes on any input. */
int mpu_parse(xb_mpu *m, const char *text, size_t len, const char *name_for_errors,
	      xb_err *err);
int mpu_load_file(xb_mpu *m, const char *path, xb_err *err);

/* The attributes an instruction fetch from addr gets, executed privileged (privileged =
 * 1, the usual case on a microcontroller) or not. Fills *out and returns 0; returns -1
 * (out->desc says why) when m holds no parsed MPU (arch XB_MPU_NONE). */
int mpu_attr_at(const xb_mpu *m, uint32_t addr, int privileged, xb_mpu_attr *out);

const char *mpu_mem_type_name(enum xb_mem_type t);
/* "non-cacheable", "write-through", "write-back". */
const char *mpu_cache_policy_name(enum xb_cache_policy p);

#endif
