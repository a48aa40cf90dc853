/* log.h: logging with a level per module, filtered at run time: every call is compiled in,
 * and a disabled one costs a load and a compare. Output goes to the console ring. */
#ifndef SYS_LOG_H
#define SYS_LOG_H

#include <stddef.h>
#include <stdint.h>

#include "sys/util.h"

enum log_level {
	LOG_LEVEL_NONE = 0,
	LOG_LEVEL_ERR = 1,
	LOG_LEVEL_WRN = 2,
	LOG_LEVEL_INF = 3,
	LOG_LEVEL_DBG = 4,
};

/* One per module, in the .log_sources section so that log_level_set can find them all. */
struct log_source {
	const char *name;
	uint8_t level;
};

/* CONFIG_LOG_OVERRIDE_LEVEL (DEBUG=on: 4) replaces every module's default level. */
#if defined(CONFIG_LOG_OVERRIDE_LEVEL) && CONFIG_LOG_OVERRIDE_LEVEL > 0
#define LOG_LEVEL_OF(default_level) CONFIG_LOG_OVERRIDE_LEVEL
#else
#define LOG_LEVEL_OF(default_level) (default_level)
#endif

#define LOG_MODULE_REGISTER(mod, default_level)                                           \
	struct log_source log_source_##mod __attribute__((section(".log_sources"), used)) = { \
		#mod, LOG_LEVEL_OF(default_level)};                                        \
	static struct log_source *const log_current __unused = &log_source_##mod

/* Another file of an already registered module. */
#define LOG_MODULE_DECLARE(mod)                      \
	extern struct log_source log_source_##mod; \
	static struct log_source *const log_current __unused = &log_source_##mod

#define Z_LOG(lvl, ...)                                                  \
	do {                                                             \
		if (unlikely(log_current->level >= (lvl)))              \
			log_msg(log_current, (lvl), __VA_ARGS__);       \
	} while (0)

#define LOG_ERR(...) Z_LOG(LOG_LEVEL_ERR, __VA_ARGS__)
#define LOG_WRN(...) Z_LOG(LOG_LEVEL_WRN, __VA_ARGS__)
#define LOG_INF(...) Z_LOG(LOG_LEVEL_INF, __VA_ARGS__)
#define LOG_DBG(...) Z_LOG(LOG_LEVEL_DBG, __VA_ARGS__)

#define LOG_HEXDUMP_DBG(data, len, what)                                         \
	do {                                                                     \
		if (unlikely(log_current->level >= LOG_LEVEL_DBG))              \
			log_hexdump(log_current, LOG_LEVEL_DBG, (data), (len), (what)); \
	} while (0)

/* Formats one line "[s.mmm] <lvl> module: text" to the console. */
void log_msg(const struct log_source *src, enum log_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void log_hexdump(const struct log_source *src, enum log_level lvl, const void *data, size_t len,
		 const char *what);
/* Sets the level of the module called name ("*": all). Returns how many modules matched. */
int log_level_set(const char *name, enum log_level lvl);
/* Lines produced so far. */
uint32_t log_lines(void);

#endif
