# Picks the toolchain file (cmake/preload/toolchains/${PICO_COMPILER}.cmake) before project().
set(default_build_type "Release")

list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES CMAKE_PREFIX_PATH PICO_SDK_PATH)

if (NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
    message(STATUS "Defaulting build type to '${default_build_type}' since not specified.")
    set(CMAKE_BUILD_TYPE "${default_build_type}" CACHE STRING "Choose the type of build, options are: 'Debug', 'Release', 'MinSizeRel', 'RelWithDebInfo'." FORCE)
endif()

if (NOT (DEFINED PICO_COMPILER OR DEFINED CMAKE_TOOLCHAIN_FILE))
    if (DEFINED PICO_DEFAULT_COMPILER)
        pico_message("Defaulting compiler (PICO_COMPILER) to '${PICO_DEFAULT_COMPILER}' since not specified.")
        set(PICO_COMPILER ${PICO_DEFAULT_COMPILER})
    endif()
endif ()

if (DEFINED PICO_COMPILER)
    if (NOT DEFINED PICO_TOOLCHAIN_DIR)
        set(PICO_TOOLCHAIN_DIR "${CMAKE_CURRENT_LIST_DIR}/preload/toolchains")
    endif()
    set(toolchain_file "${PICO_TOOLCHAIN_DIR}/${PICO_COMPILER}.cmake")
    if (EXISTS "${toolchain_file}")
        set(CMAKE_TOOLCHAIN_FILE "${toolchain_file}")
    else ()
        message(FATAL_ERROR "Toolchain file \"${PICO_COMPILER}.cmake\" does not exist")
    endif ()
    message("Configuring toolchain based on PICO_COMPILER '${PICO_COMPILER}'")
endif ()

set(PICO_PREVIOUS_CMAKE_TOOLCHAIN_FILE ${CMAKE_TOOLCHAIN_FILE} CACHE INTERNAL "Saved CMAKE_TOOLCHAIN_FILE" FORCE)
unset(PICO_COMPILER CACHE)
