/* xip.c: XIP cache control and counters (XIP_CTRL, RP2040 datasheet 2.6.3). */
#include "drivers/xip.h"
#include "rp2040/regs.h"

void xip_cache_config(void)
{
#ifdef CONFIG_XIP_CACHE_OFF
	hw_write(XIP_CTRL_CTRL, hw_read(XIP_CTRL_CTRL) & ~XIP_CTRL_EN);
#endif
}

bool xip_cache_enabled(void)
{
	return (hw_read(XIP_CTRL_CTRL) & XIP_CTRL_EN) != 0;
}

void xip_counters_get(uint32_t *hits, uint32_t *accesses)
{
	*hits = hw_read(XIP_CTRL_CTR_HIT);
	*accesses = hw_read(XIP_CTRL_CTR_ACC);
}

void xip_counters_clear(void)
{
	/* Any write clears a counter. */
	hw_write(XIP_CTRL_CTR_HIT, 0);
	hw_write(XIP_CTRL_CTR_ACC, 0);
}
