// Common set-up for the SDK's assembly files.
#include "pico.h"

#define WRAPPER_FUNC_NAME(x) __wrap_##x

.macro pico_default_asm_setup
.syntax unified
.cpu cortex-m0plus
.thumb
.endm

// a global Thumb function in its own section .text.NAME
.macro regular_func x
.global \x
.type \x,%function
.thumb_func
\x:
.endm
