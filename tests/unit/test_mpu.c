/* test_mpu: MPU register dumps parse (and bad ones fail with FILE:LINE), and an address
 * decodes to the attributes the architecture manuals give. Every expected value below
 * comes from a table written out in the comment beside it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "../../core/mpu.h"

static int parse(xb_mpu *m, const char *text, xb_err *err)
{
	return mpu_parse(m, text, strlen(text), "t.mpu", err);
}

static void parse_ok(xb_mpu *m, const char *text)
{
	xb_err err = {{0}};
	if (parse(m, text, &err))
		fail_msg("%s", err.msg);
}

static xb_mpu_attr at(const xb_mpu *m, uint32_t addr, int privileged)
{
	xb_mpu_attr a;
	assert_int_equal(mpu_attr_at(m, addr, privileged, &a), 0);
	return a;
}

/*
 * ARMv7-M RASR (ARMv7-M ARM B3.5.9): XN [28], AP [26:24], TEX [21:19], S [18], C [17],
 * B [16], SRD [15:8], SIZE [5:1] (region of 2^(SIZE+1) bytes), ENABLE [0].
 * An 8 MB region: 2^23 bytes, SIZE = 22 = 0x16, so SIZE field bits = 0x2C; with ENABLE
 * 0x2D. AP = 011 (full access) = 0x03000000.
 *
 * TEX, C, B (Table B3-13):
 *   TEX=001 C=0 B=0  Normal, outer and inner non-cacheable      -> 0x00080000
 *   TEX=001 C=1 B=1  Normal, outer and inner write-back, write
 *                    and read allocate                          -> 0x000B0000
 *   TEX=000 C=1 B=0  Normal, write-through, no write allocate   -> 0x00020000
 *   TEX=1BB A A      Normal, BB outer and AA inner policy (Table B3-14: 00 non-cacheable,
 *                    01 WBWA, 10 WT no WA, 11 WB no WA)
 *   TEX=000 C=0 B=1  Device, shareable                          -> 0x00010000
 * RBAR: ADDR [31:5], VALID [4], REGION [3:0]: region 3 at 0x60000000 = 0x60000013.
 * CCR (B3.2.8): IC bit 17, DC bit 16, BP bit 18; 0x00070200 has all three (and STKALIGN).
 */
#define V7_HEAD "MPU_TYPE 0x00000800\n" /* DREGION = 8 */
#define RASR_8M_NC 0x0308002Du
#define RASR_8M_WBWA 0x030B002Du

static void test_v7_flash_non_cacheable(void **state)
{
	(void)state;
	xb_mpu m;
	parse_ok(&m, V7_HEAD "MPU_CTRL 0x5\nCCR 0x00070200\n"
			     "REGION 3 RBAR 0x60000013 RASR 0x0308002d\n");
	assert_int_equal(m.arch, XB_MPU_ARMV7M);
	assert_int_equal(m.nregions, 8);
	assert_int_equal(m.region[3].rasr, RASR_8M_NC);
	xb_mpu_attr a = at(&m, 0x60001234, 1);
	assert_int_equal(a.source, XB_MPU_SRC_REGION);
	assert_int_equal(a.region, 3);
	assert_int_equal(a.base, 0x60000000);
	assert_int_equal(a.limit, 0x607fffff);
	assert_int_equal(a.subregion, 0); /* 1 MB subregions: offset 0x1234 is in the first */
	assert_int_equal(a.type, XB_MEM_NORMAL);
	assert_int_equal(a.inner, XB_CP_NONE);
	assert_int_equal(a.outer, XB_CP_NONE);
	assert_int_equal(a.cacheable, 0);
	assert_int_equal(a.xn, 0);
	assert_int_equal(a.executable, 1);
	assert_int_equal(a.fault, 0);
	assert_int_equal(a.icache, 1);
	assert_int_equal(a.cached_fetch, 0);
	assert_string_equal(a.desc, "region 3 0x60000000-0x607fffff: normal, non-cacheable, executable");
	/* just past the region: the background map (PRIVDEFENA) gives RAM, WBWA */
	a = at(&m, 0x60800000, 1);
	assert_int_equal(a.source, XB_MPU_SRC_BACKGROUND);
	assert_int_equal(a.region, -1);
}

static void test_v7_flash_wbwa(void **state)
{
	(void)state;
	xb_mpu m;
	parse_ok(&m, V7_HEAD "MPU_CTRL 0x1\nCCR 0x00070200\n"
			     "REGION 3 RBAR 0x60000013 RASR 0x030B002D\n");
	assert_int_equal(m.region[3].rasr, RASR_8M_WBWA);
	xb_mpu_attr a = at(&m, 0x607ffffe, 1);
	assert_int_equal(a.region, 3);
	assert_int_equal(a.subregion, 7);
	assert_int_equal(a.type, XB_MEM_NORMAL);
	assert_int_equal(a.inner, XB_CP_WRITE_BACK);
	assert_int_equal(a.outer, XB_CP_WRITE_BACK);
	assert_int_equal(a.write_alloc, 1);
	assert_int_equal(a.read_alloc, 1);
	assert_int_equal(a.cacheable, 1);
	assert_int_equal(a.executable, 1);
	assert_int_equal(a.cached_fetch, 1);
	assert_string_equal(a.desc, "region 3 0x60000000-0x607fffff: normal, write-back "
				    "write-allocate, executable");

	/* TEX=000 C=1 B=0: write-through, no write allocate */
	parse_ok(&m, V7_HEAD "MPU_CTRL 1\nREGION 0 RBAR 0x60000000 RASR 0x0302002D\n");
	a = at(&m, 0x60000000, 1);
	assert_int_equal(a.inner, XB_CP_WRITE_THROUGH);
	assert_int_equal(a.write_alloc, 0);
	assert_int_equal(a.cacheable, 1);
	assert_int_equal(a.icache, -1); /* no CCR in the dump */
	assert_int_equal(a.cached_fetch, 1);

	/* TEX=101 (BB=01: outer WBWA), C=0 B=0 (AA=00: inner non-cacheable): the I-cache is
	 * an inner cache, so not cacheable for a fetch. 0x0328002D = AP 011, TEX 101. */
	parse_ok(&m, V7_HEAD "MPU_CTRL 1\nREGION 0 RBAR 0x60000000 RASR 0x0328002D\n");
	a = at(&m, 0x60000000, 1);
	assert_int_equal(a.type, XB_MEM_NORMAL);
	assert_int_equal(a.inner, XB_CP_NONE);
	assert_int_equal(a.outer, XB_CP_WRITE_BACK);
	assert_int_equal(a.cacheable, 0);

	/* TEX=000 C=0 B=1: shareable Device; XN = 1 (0x1301002D): a fetch faults */
	parse_ok(&m, V7_HEAD "MPU_CTRL 1\nREGION 0 RBAR 0x60000000 RASR 0x1301002D\n");
	a = at(&m, 0x60000000, 1);
	assert_int_equal(a.type, XB_MEM_DEVICE);
	assert_int_equal(a.shareable, 1);
	assert_int_equal(a.xn, 1);
	assert_int_equal(a.executable, 0);
	assert_int_equal(a.fault, 1);
	assert_int_equal(a.cacheable, 0);
	assert_non_null(strstr(a.desc, "execute-never"));
}

/* B3.5.3: where regions overlap, the highest-numbered region wins. Region 0 is a 4 GB
 * no-access, XN region (SIZE = 31, AP = 000, XN: 0x1000003F); region 3 the flash. */
static void test_v7_priority(void **state)
{
	(void)state;
	xb_mpu m;
	parse_ok(&m, V7_HEAD "MPU_CTRL 0x5\n"
			     "REGION 0 RBAR 0x00000010 RASR 0x1000003F\n"
			     "REGION 3 RBAR 0x60000013 RASR 0x030B002D\n");
	xb_mpu_attr a = at(&m, 0x60000100, 1);
	assert_int_equal(a.region, 3);
	assert_int_equal(a.executable, 1);
	a = at(&m, 0x20000000, 1);
	assert_int_equal(a.region, 0);
	assert_int_equal(a.base, 0);
	assert_int_equal(a.limit, 0xffffffff);
	assert_int_equal(a.readable, 0); /* AP 000: no access */
	assert_int_equal(a.fault, 1);
	assert_int_equal(a.executable, 0);
}

/* SRD (B3.5.9): each of the 8 bits disables one eighth of a region of 256 bytes or more.
 * SRD = 0x02 disables subregion 1: 0x60100000-0x601fffff of the 8 MB region
 * (RASR 0x0308022D). An address there falls through: privileged with PRIVDEFENA to the
 * default map (ARMv7-M B3.1 Table B3-1; Cortex-M7 DUI0646 Table 2.12: 0x60000000-0x7FFFFFFF
 * External RAM, Normal, WBWA, executable); unprivileged, or without PRIVDEFENA, it
 * faults. */
static void test_v7_subregion_background(void **state)
{
	(void)state;
	xb_mpu m;
	parse_ok(&m, V7_HEAD "MPU_CTRL 0x5\nREGION 3 RBAR 0x60000013 RASR 0x0308022D\n");
	xb_mpu_attr a = at(&m, 0x600fffff, 1); /* subregion 0: still the region */
	assert_int_equal(a.source, XB_MPU_SRC_REGION);
	assert_int_equal(a.subregion, 0);
	assert_int_equal(a.cacheable, 0);

	a = at(&m, 0x60150000, 1);
	assert_int_equal(a.source, XB_MPU_SRC_BACKGROUND);
	assert_int_equal(a.srd_skipped, 1);
	assert_int_equal(a.region, -1);
	assert_int_equal(a.base, 0x60000000);
	assert_int_equal(a.limit, 0x7fffffff);
	assert_int_equal(a.type, XB_MEM_NORMAL);
	assert_int_equal(a.inner, XB_CP_WRITE_BACK);
	assert_int_equal(a.write_alloc, 1);
	assert_int_equal(a.executable, 1);
	assert_int_equal(a.cacheable, 1);
	assert_non_null(strstr(a.desc, "PRIVDEFENA"));

	a = at(&m, 0x60150000, 0); /* unprivileged: no background */
	assert_int_equal(a.source, XB_MPU_SRC_NONE);
	assert_int_equal(a.fault, 1);
	assert_int_equal(a.executable, 0);

	parse_ok(&m, V7_HEAD "MPU_CTRL 0x1\nREGION 3 RBAR 0x60000013 RASR 0x0308022D\n");
	a = at(&m, 0x60150000, 1); /* PRIVDEFENA = 0 */
	assert_int_equal(a.source, XB_MPU_SRC_NONE);
	assert_int_equal(a.fault, 1);
	assert_non_null(strstr(a.desc, "PRIVDEFENA = 0"));
}

/* MPU_CTRL.ENABLE = 0: the default memory map for every address (B3.1 Table B3-1, DUI0646
 * Table 2.12): Code 0x00000000-0x1FFFFFFF Normal WT; SRAM 0x20000000-0x3FFFFFFF Normal
 * WBWA; Peripheral 0x40000000-0x5FFFFFFF Device XN; RAM 0x60000000-0x7FFFFFFF WBWA and
 * 0x80000000-0x9FFFFFFF WT; 0xA0000000-0xDFFFFFFF Device XN; PPB 0xE0000000-0xE00FFFFF
 * Strongly-ordered XN. The regions in the dump take no part. */
static void test_v7_mpu_off(void **state)
{
	(void)state;
	xb_mpu m;
	parse_ok(&m, V7_HEAD "MPU_CTRL 0x4\nCCR 0x00070200\n"
			     "REGION 3 RBAR 0x60000013 RASR 0x0308002D\n");
	xb_mpu_attr a = at(&m, 0x60000000, 0);
	assert_int_equal(a.source, XB_MPU_SRC_DISABLED);
	assert_int_equal(a.inner, XB_CP_WRITE_BACK);
	assert_int_equal(a.write_alloc, 1);
	assert_int_equal(a.cached_fetch, 1);
	assert_string_equal(a.desc, "default map 0x60000000-0x7fffffff (MPU off: default memory "
				    "map): normal, write-back write-allocate, executable");
	static const struct {
		uint32_t addr;
		enum xb_mem_type type;
		enum xb_cache_policy pol;
		int xn;
	} map[] = {
		{0x00000000, XB_MEM_NORMAL, XB_CP_WRITE_THROUGH, 0},
		{0x1fffffff, XB_MEM_NORMAL, XB_CP_WRITE_THROUGH, 0},
		{0x20200000, XB_MEM_NORMAL, XB_CP_WRITE_BACK, 0},
		{0x400c8000, XB_MEM_DEVICE, XB_CP_NONE, 1},
		{0x7fffffff, XB_MEM_NORMAL, XB_CP_WRITE_BACK, 0},
		{0x80000000, XB_MEM_NORMAL, XB_CP_WRITE_THROUGH, 0},
		{0xa0000000, XB_MEM_DEVICE, XB_CP_NONE, 1},
		{0xdfffffff, XB_MEM_DEVICE, XB_CP_NONE, 1},
		{0xe000ed14, XB_MEM_STRONGLY_ORDERED, XB_CP_NONE, 1},
		{0xffffffff, XB_MEM_DEVICE, XB_CP_NONE, 1},
	};
	for (size_t i = 0; i < sizeof map / sizeof map[0]; i++) {
		a = at(&m, map[i].addr, 1);
		assert_int_equal(a.type, map[i].type);
		assert_int_equal(a.inner, map[i].pol);
		assert_int_equal(a.xn, map[i].xn);
		assert_int_equal(a.executable, !map[i].xn);
		assert_int_equal(a.fault, map[i].xn);
	}
}

/* CCR.IC (bit 17) clear: the fetch is cacheable but the I-cache is off. 0x00050200 keeps
 * DC (16) and BP (18). */
static void test_v7_icache_off(void **state)
{
	(void)state;
	xb_mpu m;
	parse_ok(&m, V7_HEAD "MPU_CTRL 0x1\nCCR 0x00050200\n"
			     "REGION 3 RBAR 0x60000013 RASR 0x030B002D\n");
	xb_mpu_attr a = at(&m, 0x60000000, 1);
	assert_int_equal(a.cacheable, 1);
	assert_int_equal(a.icache, 0);
	assert_int_equal(a.cached_fetch, 0);
	assert_non_null(strstr(a.desc, "instruction cache off (CCR.IC = 0)"));
	assert_int_equal(XB_SCB_CCR_IC, 0x00020000);
}

/*
 * ARMv8-M (ARMv8-M ARM B3.5; CMSIS core_cm33.h):
 *   MPU_RBAR: BASE [31:5], SH [4:3], AP [2:1] (AP[2] read-only, AP[1] unprivileged access
 *   allowed), XN [0]. MPU_RLAR: LIMIT [31:5] (inclusive, low 5 bits ones), AttrIndx [3:1],
 *   EN [0]. MPU_MAIR0 holds Attr0..3, one byte each, Attr0 lowest.
 * MAIR attribute bytes (MAIR_ATTR): Attr[7:4] = 0000 Device, then Attr[3:2] 00 nGnRnE,
 *   01 nGnRE, 10 nGRE, 11 GRE; else Normal, outer Attr[7:4], inner Attr[3:0]: 0100
 *   non-cacheable, 00RW WT transient, 01RW WB transient, 10RW WT, 11RW WB (R read-,
 *   W write-allocate).
 *   Attr0 0xFF: Normal, WB non-transient, RA, WA (inner and outer)
 *   Attr1 0x44: Normal, non-cacheable
 *   Attr2 0x04: Device-nGnRE
 *   Attr3 0xAA: Normal, WT non-transient, RA, no WA
 *   MAIR0 = 0xAA0444FF.
 * Regions: 0 flash 0x10000000-0x103fffff Attr0, RO any privilege (AP 11 -> 0x6):
 *   RBAR 0x10000006, RLAR 0x103FFFE1; 1 0x10400000-0x107fffff Attr1: RBAR 0x10400006,
 *   RLAR 0x107FFFE3; 2 peripherals 0x40000000-0x4fffffff Attr2, privileged RW (AP 00), XN:
 *   RBAR 0x40000001, RLAR 0x4FFFFFE5; 3 SRAM 0x20000000-0x2007ffff Attr3, RW any (AP 01):
 *   RBAR 0x20000002, RLAR 0x2007FFE7; 4 0x10100000-0x101fffff inside region 0.
 */
#define V8_DUMP                                                                                    \
	"ARCH armv8m\nMPU_TYPE 0x800\nMPU_CTRL 0x5\nMPU_MAIR0 0xAA0444FF\nMPU_MAIR1 0\n"        \
	"REGION 0 RBAR 0x10000006 RLAR 0x103FFFE1\n"                                              \
	"REGION 1 RBAR 0x10400006 RLAR 0x107FFFE3\n"                                              \
	"REGION 2 RBAR 0x40000001 RLAR 0x4FFFFFE5\n"                                              \
	"REGION 3 RBAR 0x20000002 RLAR 0x2007FFE7\n"

static void test_v8_mair(void **state)
{
	(void)state;
	xb_mpu m;
	parse_ok(&m, V8_DUMP);
	assert_int_equal(m.arch, XB_MPU_ARMV8M);
	assert_int_equal(m.mair[0], 0xAA0444FF);

	xb_mpu_attr a = at(&m, 0x10000100, 1); /* Attr0 0xFF */
	assert_int_equal(a.source, XB_MPU_SRC_REGION);
	assert_int_equal(a.region, 0);
	assert_int_equal(a.base, 0x10000000);
	assert_int_equal(a.limit, 0x103fffff);
	assert_int_equal(a.type, XB_MEM_NORMAL);
	assert_int_equal(a.inner, XB_CP_WRITE_BACK);
	assert_int_equal(a.outer, XB_CP_WRITE_BACK);
	assert_int_equal(a.read_alloc, 1);
	assert_int_equal(a.write_alloc, 1);
	assert_int_equal(a.cacheable, 1);
	assert_int_equal(a.executable, 1);
	assert_int_equal(a.icache, -1);
	assert_string_equal(a.desc, "region 0 0x10000000-0x103fffff: normal, write-back "
				    "write-allocate, executable");
	assert_int_equal(at(&m, 0x10000100, 0).executable, 1); /* AP 11: any privilege */

	a = at(&m, 0x107fffff, 1); /* Attr1 0x44, the inclusive limit */
	assert_int_equal(a.region, 1);
	assert_int_equal(a.type, XB_MEM_NORMAL);
	assert_int_equal(a.inner, XB_CP_NONE);
	assert_int_equal(a.cacheable, 0);
	assert_int_equal(a.executable, 1);
	assert_string_equal(a.desc, "region 1 0x10400000-0x107fffff: normal, non-cacheable, "
				    "executable");

	a = at(&m, 0x40000000, 1); /* Attr2 0x04, XN */
	assert_int_equal(a.region, 2);
	assert_int_equal(a.type, XB_MEM_DEVICE);
	assert_int_equal(a.xn, 1);
	assert_int_equal(a.executable, 0);
	a = at(&m, 0x40000000, 0); /* AP 00: privileged only */
	assert_int_equal(a.readable, 0);
	assert_int_equal(a.fault, 1);

	a = at(&m, 0x2007ffe0, 0); /* Attr3 0xAA, AP 01: unprivileged too */
	assert_int_equal(a.region, 3);
	assert_int_equal(a.inner, XB_CP_WRITE_THROUGH);
	assert_int_equal(a.read_alloc, 1);
	assert_int_equal(a.write_alloc, 0);
	assert_int_equal(a.readable, 1);
	assert_int_equal(a.executable, 1);

	a = at(&m, 0x30000000, 1); /* no region: background map, SRAM WBWA */
	assert_int_equal(a.source, XB_MPU_SRC_BACKGROUND);
	assert_int_equal(a.inner, XB_CP_WRITE_BACK);
	a = at(&m, 0x30000000, 0);
	assert_int_equal(a.source, XB_MPU_SRC_NONE);
	assert_int_equal(a.fault, 1);

	/* Attr index 4..7 come from MAIR1: Attr4 = 0x44 there */
	parse_ok(&m, "ARCH armv8m\nMPU_TYPE 0x800\nMPU_CTRL 1\nMPU_MAIR0 0xFFFFFFFF\n"
		     "MPU_MAIR1 0x00000044\nREGION 0 RBAR 0x10000000 RLAR 0x103FFFE9\n");
	a = at(&m, 0x10000000, 1);
	assert_int_equal(a.region, 0);
	assert_int_equal(a.inner, XB_CP_NONE);
	assert_int_equal(a.cacheable, 0);
	/* MAIR 0x00 as Normal inner 0000 with outer non-zero is UNPREDICTABLE: 0x40 */
	parse_ok(&m, "ARCH armv8m\nMPU_TYPE 0x800\nMPU_CTRL 1\nMPU_MAIR0 0x40\n"
		     "REGION 0 RBAR 0x10000000 RLAR 0x103FFFE1\n");
	assert_int_equal(at(&m, 0x10000000, 1).type, XB_MEM_RESERVED);
}

/* ARMv8-M: an address in two enabled regions faults (the MPU regions must not overlap). */
static void test_v8_overlap(void **state)
{
	(void)state;
	xb_mpu m;
	parse_ok(&m, V8_DUMP "REGION 4 RBAR 0x10100006 RLAR 0x101FFFE3\n");
	xb_mpu_attr a = at(&m, 0x10150000, 1);
	assert_int_equal(a.source, XB_MPU_SRC_OVERLAP);
	assert_int_equal(a.other_region, 0);
	assert_int_equal(a.region, 4);
	assert_int_equal(a.fault, 1);
	assert_int_equal(a.executable, 0);
	assert_int_equal(a.cached_fetch, 0);
	assert_string_equal(a.desc, "regions 0 and 4 both cover 0x10150000: an ARMv8-M MPU faults "
				    "on an access that matches more than one region");
	/* outside region 4: region 0 alone */
	a = at(&m, 0x10200000, 1);
	assert_int_equal(a.source, XB_MPU_SRC_REGION);
	assert_int_equal(a.region, 0);
	/* a disabled region (EN = 0) takes no part */
	parse_ok(&m, V8_DUMP "REGION 4 RBAR 0x10100006 RLAR 0x101FFFE2\n");
	assert_int_equal(at(&m, 0x10150000, 1).region, 0);
}

/* The text form: comments, blank lines, CRLF, lower case; regions not given are off. */
static void test_parse_forms(void **state)
{
	(void)state;
	xb_mpu m;
	parse_ok(&m, "# dump\r\n\r\nmpu_type 0x1000   # 16 regions\r\nMPU_CTRL 5\r\nccr 0x70200\r\n"
		     "region 15 rbar 0x6000001f rasr 0x0308002d\r\n");
	assert_int_equal(m.nregions, 16);
	assert_int_equal(m.ctrl, 5);
	assert_int_equal(m.have_ccr, 1);
	assert_int_equal(m.ccr, 0x70200);
	assert_int_equal(m.region[15].given, 1);
	assert_int_equal(m.region[14].given, 0);
	assert_int_equal(at(&m, 0x60000000, 1).region, 15);
	/* no region lines: the architecture from ARCH */
	parse_ok(&m, "ARCH armv7m\nMPU_TYPE 0\nMPU_CTRL 0\n");
	assert_int_equal(m.nregions, 0);
	assert_int_equal(at(&m, 0x10000000, 1).source, XB_MPU_SRC_DISABLED);
	/* a zeroed struct decodes nothing */
	xb_mpu z;
	memset(&z, 0, sizeof z);
	xb_mpu_attr a;
	assert_int_equal(mpu_attr_at(&z, 0, 1, &a), -1);
}

static void test_parse_errors(void **state)
{
	(void)state;
	static const struct {
		const char *text, *expect;
	} cases[] = {
		{"hello world\n", "t.mpu:1: unknown name 'hello'"},
		{"MPU_TYPE zz\n", "t.mpu:1: bad value 'zz' for MPU_TYPE"},
		{"MPU_TYPE 0x100000000\n", "t.mpu:1: bad value '0x100000000' for MPU_TYPE"},
		{"MPU_TYPE\n", "t.mpu:1: expected 'MPU_TYPE VALUE'"},
		{"MPU_TYPE 1 2\n", "t.mpu:1: expected 'MPU_TYPE VALUE'"},
		{"MPU_TYPE 0x800\nMPU_TYPE 0x800\n", "t.mpu:2: second MPU_TYPE (the first is on line 1)"},
		{"MPU_CTRL 1\nARCH armv7m\n", "t.mpu:2: missing MPU_TYPE"},
		{"MPU_TYPE 0x800\nARCH armv7m\n", "t.mpu:2: missing MPU_CTRL"},
		{"MPU_TYPE 0x800\nMPU_CTRL 0\n", "t.mpu:2: cannot tell ARMv7-M from ARMv8-M"},
		{"", "t.mpu:1: missing MPU_TYPE"},
		{"ARCH armv6m\n", "t.mpu:1: bad ARCH 'armv6m' (armv7m or armv8m)"},
		{"ARCH none\n", "t.mpu:1: bad ARCH 'none'"},
		{"ARCH armv7m\nARCH armv7m\n", "t.mpu:2: second ARCH"},
		{"MPU_TYPE 0x800\nMPU_CTRL 1\nREGION 8 RBAR 0 RASR 0\n",
		 "t.mpu:3: REGION 8 is beyond MPU_TYPE.DREGION (8 regions)"},
		{"REGION 16 RBAR 0 RASR 0\n", "t.mpu:1: region number 16 out of range"},
		{"REGION 1 RBAR 0\n", "t.mpu:1: expected 'REGION N RBAR VALUE RASR VALUE'"},
		{"REGION 1 RASR 0 RBAR 0\n", "t.mpu:1: expected RBAR after 'REGION 1'"},
		{"REGION 1 RBAR 0 RXXR 0\n", "t.mpu:1: expected RASR (ARMv7-M) or RLAR (ARMv8-M)"},
		{"REGION 1 RBAR 0 RASR 0\nREGION 1 RBAR 0 RASR 0\n",
		 "t.mpu:2: second REGION 1 (the first is on line 1)"},
		{"REGION 0 RBAR 0 RASR 0\nREGION 1 RBAR 0 RLAR 0\n",
		 "t.mpu:2: RLAR is ARMv8-M, but line 1 (RASR) made this an ARMv7-M dump"},
		{"ARCH armv7m\nMPU_MAIR0 0xff\n",
		 "t.mpu:2: MPU_MAIR0 is ARMv8-M, but line 1 (ARCH) made this an ARMv7-M dump"},
		{"ARCH armv8m\nREGION 0 RBAR 0 RASR 0\n", "t.mpu:2: RASR is ARMv7-M"},
		{"REGION 2 RBAR 0 RASR 0x07\n", "t.mpu:1: REGION 2 is enabled with RASR.SIZE 3"},
		{"ARCH armv7m\nMPU_TYPE 0x801\nMPU_CTRL 0\n", "t.mpu:2: MPU_TYPE.SEPARATE is set"},
		{"ARCH armv7m\nMPU_TYPE 0x1100\nMPU_CTRL 0\n",
		 "t.mpu:2: MPU_TYPE.DREGION = 17: xipbench reads at most 16 regions"},
		{"MPU_TYPE 0x800\nMPU_CTRL 0\nCCR 1\nCCR 2\n", "t.mpu:4: second CCR"},
		{"MPU_TYPE \x01\n", "t.mpu:1: bad value '?' for MPU_TYPE"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		xb_mpu m;
		xb_err err = {{0}};
		int rc = parse(&m, cases[i].text, &err);
		if (rc != -1)
			fail_msg("case %zu parsed but should fail with '%s'", i, cases[i].expect);
		if (!strstr(err.msg, cases[i].expect))
			fail_msg("case %zu: got '%s', expected '%s'", i, err.msg, cases[i].expect);
		assert_int_equal(m.arch, XB_MPU_NONE); /* zeroed on error */
	}
	/* a NUL byte */
	xb_mpu m;
	xb_err err = {{0}};
	assert_int_equal(mpu_parse(&m, "MPU_TYPE 0\0x\n", 12, "t.mpu", &err), -1);
	assert_non_null(strstr(err.msg, "t.mpu:1: NUL byte"));
	/* a file that does not exist */
	assert_int_equal(mpu_load_file(&m, "tests/data/no-such-mpu-dump.txt", &err), -1);
}

/* The register addresses a probe reads (ARMv7-M B3.2.2 / B3.5, CMSIS SCB_BASE 0xE000ED00,
 * MPU_BASE 0xE000ED90, pico-sdk rp2350 mpu.h: MAIR0 at MPU_TYPE + 0x30). */
static void test_addresses(void **state)
{
	(void)state;
	assert_int_equal(XB_SCB_CCR_ADDR, 0xE000ED00u + 0x14);
	assert_int_equal(XB_MPU_TYPE_ADDR, 0xE000ED90u);
	assert_int_equal(XB_MPU_CTRL_ADDR, XB_MPU_TYPE_ADDR + 4);
	assert_int_equal(XB_MPU_RNR_ADDR, XB_MPU_TYPE_ADDR + 8);
	assert_int_equal(XB_MPU_RBAR_ADDR, XB_MPU_TYPE_ADDR + 0xC);
	assert_int_equal(XB_MPU_RASR_ADDR, XB_MPU_TYPE_ADDR + 0x10);
	assert_int_equal(XB_MPU_MAIR0_ADDR, XB_MPU_TYPE_ADDR + 0x30);
	assert_int_equal(XB_MPU_MAIR1_ADDR, 0xE000EDC4u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_v7_flash_non_cacheable),
		cmocka_unit_test(test_v7_flash_wbwa),
		cmocka_unit_test(test_v7_priority),
		cmocka_unit_test(test_v7_subregion_background),
		cmocka_unit_test(test_v7_mpu_off),
		cmocka_unit_test(test_v7_icache_off),
		cmocka_unit_test(test_v8_mair),
		cmocka_unit_test(test_v8_overlap),
		cmocka_unit_test(test_parse_forms),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_addresses),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
