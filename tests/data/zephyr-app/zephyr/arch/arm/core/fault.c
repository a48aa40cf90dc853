/* Exception handlers. */
#include <stdint.h>
void z_fatal_error(unsigned int reason);
void z_arm_nmi(void) { z_fatal_error(1); }
void z_arm_hard_fault(void) { z_fatal_error(2); }
void z_irq_spurious(void) { z_fatal_error(3); }
