/* Section placement macros. With the default linker script (memmap_default.ld):
 *   .time_critical.*  is copied to SRAM and runs there (the .data output section),
 *   .scratch_x.* / .scratch_y.*  run in the 4 KB scratch banks,
 *   .flashdata.*  stays in flash (read-only data),
 *   .uninitialized_data.*  is SRAM that start-up neither copies nor clears. */
#ifndef _PICO_PLATFORM_SECTIONS_H
#define _PICO_PLATFORM_SECTIONS_H

#ifndef __ASSEMBLER__

/* data in SRAM bank "scratch X" / "scratch Y" */
#define __scratch_x(group) __attribute__((section(".scratch_x." group)))
#define __scratch_y(group) __attribute__((section(".scratch_y." group)))

/* data that stays in flash */
#define __in_flash(group) __attribute__((section(".flashdata." group)))

/* data the start-up code leaves alone */
#define __uninitialized_ram(group) __attribute__((section(".uninitialized_data." #group))) group

/* code in SRAM: the section .time_critical.GROUP */
#define __not_in_flash(group) __attribute__((section(".time_critical." group)))

/* a function in SRAM, in its own section .time_critical.NAME */
#define __not_in_flash_func(func_name) __not_in_flash(__STRING(func_name)) func_name

/* historical name of the same */
#define __time_critical_func(func_name) __not_in_flash_func(func_name)

/* the same, never inlined (so that it really runs from SRAM) */
#define __no_inline_not_in_flash_func(func_name) __noinline __not_in_flash_func(func_name)

#endif
#endif
