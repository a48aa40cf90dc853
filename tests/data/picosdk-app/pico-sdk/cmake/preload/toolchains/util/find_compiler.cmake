# pico_find_compiler_with_triples(VAR TRIPLES NAME): TRIPLE-NAME in PICO_TOOLCHAIN_PATH or PATH
function(pico_find_compiler_with_triples compiler_path triples compiler_exe)
    set(names "")
    foreach(triple IN LISTS triples)
        list(APPEND names ${triple}-${compiler_exe})
    endforeach()
    find_program(
            ${compiler_path} NAMES ${names}
            PATHS ENV PICO_TOOLCHAIN_PATH
            PATH_SUFFIXES bin
            NO_DEFAULT_PATH
    )
    if (NOT ${compiler_path})
        find_program(${compiler_path} NAMES ${names})
    endif()
    if (NOT ${compiler_path})
        message(FATAL_ERROR "Compiler '${names}' not found")
    endif()
    set(${compiler_path} ${${compiler_path}} PARENT_SCOPE)
endfunction()
