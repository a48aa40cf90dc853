# CMAKE_SYSTEM_NAME PICO (set by the toolchain file) brings CMake here.
set_property(GLOBAL PROPERTY TARGET_SUPPORTS_SHARED_LIBS FALSE)
set(CMAKE_EXECUTABLE_SUFFIX .elf)

if(CMAKE_HOST_WIN32)
    include(Platform/WindowsPaths)
else()
    include(Platform/UnixPaths)
endif()
