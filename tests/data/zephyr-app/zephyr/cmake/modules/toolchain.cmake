# Emulates cmake/modules/FindTargetTools / the GNU Arm toolchain set-up: arm-none-eabi-gcc
# for C and assembly, chosen before project() as Zephyr does.
find_program(XB_CROSS_GCC arm-none-eabi-gcc REQUIRED)
get_filename_component(__xb_tc_dir "${XB_CROSS_GCC}" DIRECTORY)
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)
set(CMAKE_C_COMPILER "${XB_CROSS_GCC}")
set(CMAKE_ASM_COMPILER "${XB_CROSS_GCC}")
set(CMAKE_AR "${__xb_tc_dir}/arm-none-eabi-ar" CACHE FILEPATH "Archiver")
set(CMAKE_RANLIB "${__xb_tc_dir}/arm-none-eabi-ranlib" CACHE FILEPATH "Ranlib")
set(CMAKE_READELF "${__xb_tc_dir}/arm-none-eabi-readelf" CACHE FILEPATH "readelf")
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)
set(CMAKE_EXPORT_COMPILE_COMMANDS ON)
