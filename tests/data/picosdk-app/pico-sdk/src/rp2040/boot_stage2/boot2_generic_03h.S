// A minimal second stage boot loader for the xipbench test tree: puts the SSI into serial
// 03h read mode for execute-in-place (the mode the boot ROM leaves it in, with a faster
// clock), then continues through the vector table at the start of the flash image, or
// returns when called as a function.

#include "hardware/regs/addressmap.h"
#include "hardware/regs/m0plus.h"

#define SSI_CTRLR0_OFFSET 0x00
#define SSI_SSIENR_OFFSET 0x08
#define SSI_BAUDR_OFFSET 0x14
#define SSI_SPI_CTRLR0_OFFSET 0xf4

// 32 data bits per transfer, EEPROM read transfer mode
#define CTRLR0_XIP ((31 << 16) | (3 << 8))
// 8-bit command 03h, 24-bit address, command and address in standard SPI
#define SPI_CTRLR0_XIP ((0x03 << 24) | (2 << 8) | (6 << 2))
#define SCK_DIVIDER 4

.syntax unified
.cpu cortex-m0plus
.thumb

.section .text

.global _stage2_boot
.type _stage2_boot,%function
.thumb_func
_stage2_boot:
    push {lr}

    ldr r3, =XIP_SSI_BASE
    movs r1, #0
    str r1, [r3, #SSI_SSIENR_OFFSET]
    movs r1, #SCK_DIVIDER
    str r1, [r3, #SSI_BAUDR_OFFSET]
    ldr r1, =CTRLR0_XIP
    str r1, [r3, #SSI_CTRLR0_OFFSET]
    ldr r1, =SPI_CTRLR0_XIP
    ldr r0, =(XIP_SSI_BASE + SSI_SPI_CTRLR0_OFFSET)
    str r1, [r0]
    movs r1, #1
    str r1, [r3, #SSI_SSIENR_OFFSET]

#include "boot2_helpers/exit_from_boot2.S"

.ltorg
