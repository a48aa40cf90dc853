# TinyUSB on the RP2040 inside pico-sdk: INTERFACE libraries, so the sources are compiled
# into the executable that links them.
set(TOP ${CMAKE_CURRENT_LIST_DIR}/../../..)
get_filename_component(TOP "${TOP}" REALPATH)

if (NOT TARGET tinyusb_common_base)
    add_library(tinyusb_common_base INTERFACE)
    target_sources(tinyusb_common_base INTERFACE
            ${TOP}/src/tusb.c
            ${TOP}/src/common/tusb_fifo.c
            )
    target_include_directories(tinyusb_common_base INTERFACE ${TOP}/src)
    target_compile_definitions(tinyusb_common_base INTERFACE
            CFG_TUSB_MCU=OPT_MCU_RP2040
            CFG_TUSB_OS=OPT_OS_PICO
            )
    target_link_libraries(tinyusb_common_base INTERFACE
            pico_sync hardware_irq hardware_resets)
endif()

if (NOT TARGET tinyusb_device_base)
    add_library(tinyusb_device_base INTERFACE)
    target_sources(tinyusb_device_base INTERFACE
            ${TOP}/src/portable/raspberrypi/rp2040/dcd_rp2040.c
            ${TOP}/src/portable/raspberrypi/rp2040/rp2040_usb.c
            ${TOP}/src/device/usbd.c
            ${TOP}/src/device/usbd_control.c
            ${TOP}/src/class/net/ecm_rndis_device.c
            )
endif()
