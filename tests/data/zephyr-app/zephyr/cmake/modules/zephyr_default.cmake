# Emulates cmake/modules/zephyr_default.cmake: loads the build-system modules in Zephyr's
# order (extensions, modules, board, snippets, Kconfig, toolchain, kernel). Only the parts
# that matter for linking are emulated; see ../../../README.txt (tests/data/zephyr-app).
cmake_minimum_required(VERSION 3.20)

set(APPLICATION_SOURCE_DIR "${CMAKE_CURRENT_SOURCE_DIR}" CACHE PATH "Application Source Directory")
set(APPLICATION_BINARY_DIR "${CMAKE_CURRENT_BINARY_DIR}" CACHE PATH "Application Binary Directory")
set(__build_dir "${CMAKE_CURRENT_BINARY_DIR}/zephyr")
set(PROJECT_BINARY_DIR "${__build_dir}")
set(KERNEL_NAME zephyr)
set(KERNEL_ELF_NAME ${KERNEL_NAME}.elf)
set(AUTOCONF_H "${__build_dir}/include/generated/zephyr/autoconf.h")
file(MAKE_DIRECTORY "${__build_dir}/include/generated/zephyr")

list(APPEND CMAKE_MODULE_PATH "${ZEPHYR_BASE}/cmake/modules")
include(extensions)
include(zephyr_module)
include(boards)
include(snippets)
include(kconfig)
include(toolchain)
include(kernel)
