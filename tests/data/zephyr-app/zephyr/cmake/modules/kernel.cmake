# Emulates cmake/modules/kernel.cmake: the Zephyr-Kernel project, the zephyr_interface and
# app libraries, then ${ZEPHYR_BASE}/CMakeLists.txt in the build's zephyr/ folder.
project(Zephyr-Kernel VERSION 4.1.0 LANGUAGES C ASM)
set(CMAKE_C_FLAGS "" CACHE STRING "" FORCE)
set(CMAKE_ASM_FLAGS "" CACHE STRING "" FORCE)
set(CMAKE_C_FLAGS_RELEASE "" CACHE STRING "" FORCE)

add_library(zephyr_interface INTERFACE)
target_compile_options(zephyr_interface INTERFACE
  -mcpu=cortex-m0plus -mthumb -Os -ffunction-sections -fdata-sections -ffreestanding
  -fno-common -fno-builtin -g0 -imacros "${AUTOCONF_H}")
target_include_directories(zephyr_interface INTERFACE "${ZEPHYR_BASE}/include")

# The application's library: app/libapp.a, its objects CMakeFiles/app.dir/<source>.obj.
add_library(app STATIC "")
set_property(TARGET app PROPERTY ARCHIVE_OUTPUT_DIRECTORY "${APPLICATION_BINARY_DIR}/app")
target_link_libraries(app PUBLIC zephyr_interface)
zephyr_append_cmake_library(app)

add_subdirectory("${ZEPHYR_BASE}" "${__build_dir}")
