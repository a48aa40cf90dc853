/* flashme.c: the image the probe writes into flash in the flash-programming test: it leaves
 * a recognisable value in the mailbox and stops at the final BKPT. */
#include "sim.h"

static const uint32_t table[4] = {0x11111111u, 0x22222222u, 0x44444444u, 0x88888888u};

int main(void)
{
	uint32_t v = 0;
	for (int i = 0; i < 4; i++)
		v += table[i];
	return (int)(v ^ 0x5A5A5A5Au); /* 0xA5A5A5A5 */
}
