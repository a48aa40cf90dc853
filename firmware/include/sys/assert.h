/* assert.h: run-time assertions (CONFIG_ASSERT, the DEBUG=on variant): the condition is
 * evaluated on every call and a failure panics with the file and line. Without
 * CONFIG_ASSERT they compile to nothing. */
#ifndef SYS_ASSERT_H
#define SYS_ASSERT_H

#include "sys/util.h"

#ifdef CONFIG_ASSERT
void assert_post_action(const char *file, unsigned int line) __noreturn;
#define __ASSERT_NO_MSG(test)                                        \
	do {                                                         \
		if (unlikely(!(test)))                               \
			assert_post_action(__FILE__, __LINE__);      \
	} while (0)
#else
#define __ASSERT_NO_MSG(test) ((void)0)
#endif

#endif
