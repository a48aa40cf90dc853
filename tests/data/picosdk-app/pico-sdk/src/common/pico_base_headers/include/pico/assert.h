#ifndef _PICO_ASSERT_H
#define _PICO_ASSERT_H

#ifdef NDEBUG
#define valid_params_if(x, test) ((void)0)
#define invalid_params_if(x, test) ((void)0)
#define hard_assert_if(x, test) ((void)0)
#else
#include <assert.h>
#define valid_params_if(x, test) assert(test)
#define invalid_params_if(x, test) assert(!(test))
#define hard_assert_if(x, test) assert(!(test))
#endif

void hard_assertion_failure(void);

static inline void hard_assert(bool condition, ...)
{
    if (!condition)
        hard_assertion_failure();
}

#endif
