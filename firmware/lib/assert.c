/* assert.c: what a failed assertion does (CONFIG_ASSERT): says where, then panics. */
#include "kernel/kernel.h"
#include "sys/assert.h"
#include "sys/log.h"

#ifdef CONFIG_ASSERT
LOG_MODULE_REGISTER(assert, LOG_LEVEL_ERR);

void assert_post_action(const char *file, unsigned int line)
{
	LOG_ERR("assertion failed at %s:%u", file, line);
	k_panic("assertion failed");
	for (;;) {
	}
}
#endif
