/* rand.h: a small pseudo-random generator (xorshift32) for protocol timers and port
 * choices; not for cryptography. */
#ifndef SYS_RAND_H
#define SYS_RAND_H

#include <stdint.h>

/* Mixes seed into the generator's state. */
void sys_rand_seed(uint32_t seed);
uint32_t sys_rand32_get(void);
/* A value in [0, bound) (bound > 0). */
uint32_t sys_rand32_below(uint32_t bound);

#endif
