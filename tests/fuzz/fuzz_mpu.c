/* fuzz_mpu: mpu_parse on any bytes must fail cleanly or yield a dump whose every address
 * decodes to consistent attributes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../core/mpu.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const xb_mpu *m, uint32_t addr, int privileged)
{
	xb_mpu_attr a;
	if (mpu_attr_at(m, addr, privileged, &a) != 0)
		abort();
	/* One line of text, never empty. */
	if (!a.desc[0] || !memchr(a.desc, 0, sizeof a.desc) || strchr(a.desc, '\n'))
		abort();
	if (a.executable != !a.fault)
		abort();
	if (a.cached_fetch && (!a.cacheable || !a.executable || a.icache == 0))
		abort();
	if (a.cacheable && (a.type != XB_MEM_NORMAL || a.inner == XB_CP_NONE))
		abort();
	if (a.region < -1 || a.region >= m->nregions)
		abort();
	if (a.source == XB_MPU_SRC_REGION && (a.region < 0 || addr < a.base || addr > a.limit))
		abort();
	if ((a.source == XB_MPU_SRC_NONE || a.source == XB_MPU_SRC_OVERLAP) && !a.fault)
		abort();
	if (a.source == XB_MPU_SRC_DISABLED && (m->ctrl & XB_MPU_CTRL_ENABLE))
		abort();
	if (a.subregion < -1 || a.subregion > 7)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	xb_mpu m;
	xb_err err;
	if (mpu_parse(&m, (const char *)data, size, "fuzz.mpu", &err) != 0) {
		/* Every message names the file and a line. */
		if (strncmp(err.msg, "fuzz.mpu:", 9) != 0)
			abort();
		return 0;
	}
	if (m.arch != XB_MPU_ARMV7M && m.arch != XB_MPU_ARMV8M)
		abort();
	if (m.nregions < 0 || m.nregions > XB_MPU_MAX_REGIONS)
		abort();
	/* Probe each region's edges and a spread of addresses, both privilege levels. */
	static const uint32_t spread[] = {0x00000000u, 0x10000000u, 0x20000000u, 0x60000000u,
					  0x7fffffffu, 0x80000000u, 0xe000ed14u, 0xffffffffu};
	for (size_t i = 0; i < sizeof spread / sizeof spread[0]; i++)
		for (int priv = 0; priv < 2; priv++)
			check(&m, spread[i], priv);
	for (int i = 0; i < m.nregions; i++) {
		const xb_mpu_region *r = &m.region[i];
		if (!r->given)
			continue;
		uint32_t b = r->rbar & 0xFFFFFFE0u;
		check(&m, b, 1);
		check(&m, b - 1, 1);
		check(&m, r->rlar | 0x1Fu, 0);
		check(&m, b + (r->rasr & 0xFFFFu), 1);
	}
	return 0;
}
