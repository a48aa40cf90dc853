// Start-up code of the SDK-shaped tree (the structure of pico-sdk's crt0.S for the RP2040):
//
//   .vectors             the vector table, first in the image (0x10000100, after boot2)
//   .binary_info_header  five words telling tools where the binary info entries are
//   .reset               _entry_point (the ELF entry: a debugger start goes back through
//                        the boot ROM) and _reset_handler (reached from boot2 through the
//                        vector table): it keeps core 1 in the boot ROM, walks
//                        data_cpy_table calling data_cpy for each (source, start, end) entry,
//                        zeroes .bss, then calls runtime_init, main and exit.
//
// _reset_handler is a Thumb function symbol without a size; data_cpy and the labels inside
// the reset path are plain labels, as in pico-sdk.

#include "pico.h"
#include "pico/asm_helper.S"

#include "hardware/regs/addressmap.h"
#include "hardware/regs/sio.h"
#include "hardware/regs/m0plus.h"
#include "pico/binary_info/defs.h"

// the boot ROM's own vector table: initial SP, then its reset entry
#define BOOTROM_VTABLE_OFFSET 0x00000000

pico_default_asm_setup

.section .vectors, "ax"
.align 2

.global __vectors, __VECTOR_TABLE
__VECTOR_TABLE:
__vectors:
.word __StackTop
.word _reset_handler
.word isr_nmi
.word isr_hardfault
.rept 7
.word isr_invalid // reserved
.endr
.word isr_svcall
.word isr_invalid // reserved
.word isr_invalid // reserved
.word isr_pendsv
.word isr_systick
.word isr_irq0
.word isr_irq1
.word isr_irq2
.word isr_irq3
.word isr_irq4
.word isr_irq5
.word isr_irq6
.word isr_irq7
.word isr_irq8
.word isr_irq9
.word isr_irq10
.word isr_irq11
.word isr_irq12
.word isr_irq13
.word isr_irq14
.word isr_irq15
.word isr_irq16
.word isr_irq17
.word isr_irq18
.word isr_irq19
.word isr_irq20
.word isr_irq21
.word isr_irq22
.word isr_irq23
.word isr_irq24
.word isr_irq25
.word isr_irq26
.word isr_irq27
.word isr_irq28
.word isr_irq29
.word isr_irq30
.word isr_irq31

// Default exception handlers: a breakpoint each. Tools recognise an unset handler by its
// address lying between __default_isrs_start and __default_isrs_end.
.global __default_isrs_start
__default_isrs_start:

.macro decl_isr_bkpt name
.weak \name
.type \name,%function
.thumb_func
\name:
    bkpt #0
.endm

decl_isr_bkpt isr_invalid
decl_isr_bkpt isr_nmi
decl_isr_bkpt isr_hardfault
decl_isr_bkpt isr_svcall
decl_isr_bkpt isr_pendsv
decl_isr_bkpt isr_systick

.global __default_isrs_end
__default_isrs_end:

// Interrupt handlers: weak labels that all fall through to __unhandled_user_irq.
.macro decl_isr name
.weak \name
.type \name,%function
.thumb_func
\name:
.endm

decl_isr isr_irq0
decl_isr isr_irq1
decl_isr isr_irq2
decl_isr isr_irq3
decl_isr isr_irq4
decl_isr isr_irq5
decl_isr isr_irq6
decl_isr isr_irq7
decl_isr isr_irq8
decl_isr isr_irq9
decl_isr isr_irq10
decl_isr isr_irq11
decl_isr isr_irq12
decl_isr isr_irq13
decl_isr isr_irq14
decl_isr isr_irq15
decl_isr isr_irq16
decl_isr isr_irq17
decl_isr isr_irq18
decl_isr isr_irq19
decl_isr isr_irq20
decl_isr isr_irq21
decl_isr isr_irq22
decl_isr isr_irq23
decl_isr isr_irq24
decl_isr isr_irq25
decl_isr isr_irq26
decl_isr isr_irq27
decl_isr isr_irq28
decl_isr isr_irq29
decl_isr isr_irq30
decl_isr isr_irq31

.global __unhandled_user_irq
.thumb_func
__unhandled_user_irq:
    mrs  r0, ipsr
    subs r0, #16
.global unhandled_user_irq_num_in_r0
unhandled_user_irq_num_in_r0:
    bkpt #0

// ----------------------------------------------------------------------------

.section .binary_info_header, "a"

// within the first 256 bytes of the image: right after the vector table
binary_info_header:
.word BINARY_INFO_MARKER_START
.word __binary_info_start
.word __binary_info_end
.word data_cpy_table // pointers into RAM are decoded through the copy table
.word BINARY_INFO_MARKER_END

// ----------------------------------------------------------------------------

.section .reset, "ax"

// ELF entry point: a debugger that loads and starts the image lands here, with the flash
// interface in its slow power-on mode, so it goes back through the boot ROM and boot2.
.type _entry_point,%function
.thumb_func
.global _entry_point
_entry_point:
    ldr r0, =BOOTROM_VTABLE_OFFSET

_enter_vtable_in_r0:
    ldr r1, =(PPB_BASE + M0PLUS_VTOR_OFFSET)
    str r0, [r1]
    ldmia r0!, {r1, r2}
    msr msp, r1
    bx r2

// Reset handler: initialises .data (and the scratch banks), clears .bss, calls
// runtime_init, main and exit.
.type _reset_handler,%function
.thumb_func
_reset_handler:
    // only core 0 runs the C start-up; core 1 goes back to wait in the boot ROM
    ldr r0, =(SIO_BASE + SIO_CPUID_OFFSET)
    ldr r0, [r0]
    cmp r0, #0
    beq 1f
hold_non_core0_in_bootrom:
    ldr r0, =BOOTROM_VTABLE_OFFSET
    b _enter_vtable_in_r0
1:

    // one (source, start, end) triple per section to copy; a zero source ends the table
    adr r4, data_cpy_table
1:
    ldmia r4!, {r1-r3}
    cmp r1, #0
    beq 2f
    bl data_cpy
    b 1b
2:

    // zero .bss
    ldr r1, =__bss_start__
    ldr r2, =__bss_end__
    movs r0, #0
    b bss_fill_test
bss_fill_loop:
    stm r1!, {r0}
bss_fill_test:
    cmp r1, r2
    bne bss_fill_loop

platform_entry: // a name for stack traces
    // long calls: the targets may be out of BL range (main in SRAM, say)
    ldr r1, =runtime_init
    blx r1
    ldr r1, =main
    blx r1
    ldr r1, =exit
    blx r1
    // exit does not return; if it does, stop here
1:
    bkpt #0
    b 1b

// copies words from r1 to r2 until r2 reaches r3
data_cpy_loop:
    ldm r1!, {r0}
    stm r2!, {r0}
data_cpy:
    cmp r2, r3
    blo data_cpy_loop
    bx lr

.align 2
data_cpy_table:
.word __etext
.word __data_start__
.word __data_end__

.word __scratch_x_source__
.word __scratch_x_start__
.word __scratch_x_end__

.word __scratch_y_source__
.word __scratch_y_start__
.word __scratch_y_end__

.word 0 // end of the table

// ----------------------------------------------------------------------------
// A fallback runtime_init, replaced by the C library interface's.

.weak runtime_init
.type runtime_init,%function
.thumb_func
runtime_init:
    bx lr

// ----------------------------------------------------------------------------
// Stack and heap: their sizes reach the linker script through the .stack and .heap
// sections (placed in .stack_dummy and .heap).

.section .stack
.p2align 5
    .equ StackSize, PICO_STACK_SIZE
.space StackSize

.section .heap
.p2align 2
    .equ HeapSize, PICO_HEAP_SIZE
.space HeapSize
