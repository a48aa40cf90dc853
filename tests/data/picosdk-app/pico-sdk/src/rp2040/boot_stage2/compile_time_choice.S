// Second stage boot code chosen at compile time: the board header (through
// boot_stage2/config.h) names the implementation to assemble.
#include "boot_stage2/config.h"

#include PICO_BOOT_STAGE2_ASM
