# Emulates share/zephyr-package/cmake/ZephyrConfig.cmake: an application's
#   find_package(Zephyr REQUIRED HINTS $ENV{ZEPHYR_BASE})
# lands here, before the application's own project() call. Everything else happens in
# cmake/modules/zephyr_default.cmake, as in Zephyr.
get_filename_component(ZEPHYR_BASE "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(ZEPHYR_BASE "${ZEPHYR_BASE}" CACHE PATH "Zephyr base")
set(Zephyr_FOUND TRUE)
include("${ZEPHYR_BASE}/cmake/modules/zephyr_default.cmake")
