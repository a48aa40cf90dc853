# The libraries of the SDK-shaped tree, in pico-sdk's order (a subset of them).
include(cmake/on_device.cmake)

option(PICO_NO_FLASH "Default binaries to not not use flash")
option(PICO_COPY_TO_RAM "Default binaries to copy code to RAM when booting from flash")

# COMMON
pico_add_subdirectory(common/pico_base_headers)
pico_add_subdirectory(common/pico_binary_info)
pico_add_subdirectory(common/pico_sync)
pico_add_subdirectory(common/pico_time)
pico_add_subdirectory(common/pico_stdlib_headers)
pico_add_subdirectory(common/hardware_claim)

# RP2040 specific
pico_add_subdirectory(${RP2_VARIANT_DIR}/pico_platform)
pico_add_subdirectory(${RP2_VARIANT_DIR}/hardware_regs)
pico_add_subdirectory(${RP2_VARIANT_DIR}/boot_stage2)

pico_add_subdirectory(rp2_common/hardware_base)
pico_add_subdirectory(rp2_common/hardware_gpio)
pico_add_subdirectory(rp2_common/hardware_irq)
pico_add_subdirectory(rp2_common/hardware_resets)
pico_add_subdirectory(rp2_common/hardware_sync)
pico_add_subdirectory(rp2_common/hardware_timer)
pico_add_subdirectory(rp2_common/hardware_uart)

pico_add_subdirectory(rp2_common/pico_platform_compiler)
pico_add_subdirectory(rp2_common/pico_platform_sections)
pico_add_subdirectory(rp2_common/pico_platform_panic)

pico_add_subdirectory(rp2_common/tinyusb)
pico_add_subdirectory(rp2_common/pico_lwip)

pico_add_subdirectory(rp2_common/pico_crt0)
pico_add_subdirectory(rp2_common/pico_clib_interface)
pico_add_subdirectory(rp2_common/pico_standard_binary_info)
pico_add_subdirectory(rp2_common/pico_standard_link)

pico_add_subdirectory(rp2_common/pico_runtime_init)
pico_add_subdirectory(rp2_common/pico_runtime)
pico_add_subdirectory(rp2_common/pico_stdlib)

pico_promote_common_scope_vars()
