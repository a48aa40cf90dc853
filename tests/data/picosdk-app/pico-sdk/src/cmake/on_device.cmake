# Post-build outputs, as pico-sdk's pico_add_extra_outputs makes them (no picotool here, so
# no UF2: as with PICO_NO_PICOTOOL=1).
enable_language(ASM)

function(pico_get_output_name TARGET output_name_var)
    get_target_property(output_name ${TARGET} OUTPUT_NAME)
    if (NOT output_name)
        get_target_property(output_name ${TARGET} NAME)
    endif()
    set(${output_name_var} ${output_name} PARENT_SCOPE)
endfunction()

function(pico_add_hex_output TARGET)
    pico_get_output_name(${TARGET} output_name)
    add_custom_command(TARGET ${TARGET} POST_BUILD COMMAND ${CMAKE_OBJCOPY} -Oihex $<TARGET_FILE:${TARGET}> ${output_name}.hex VERBATIM BYPRODUCTS "${output_name}.hex")
endfunction()

function(pico_add_bin_output TARGET)
    pico_get_output_name(${TARGET} output_name)
    add_custom_command(TARGET ${TARGET} POST_BUILD COMMAND ${CMAKE_OBJCOPY} -Obinary $<TARGET_FILE:${TARGET}> ${output_name}.bin VERBATIM BYPRODUCTS "${output_name}.bin")
endfunction()

function(pico_add_dis_output TARGET)
    pico_get_output_name(${TARGET} output_name)
    add_custom_command(TARGET ${TARGET} POST_BUILD
            COMMAND ${CMAKE_OBJDUMP} -h $<TARGET_FILE:${TARGET}> > ${output_name}.dis
            COMMAND ${CMAKE_OBJDUMP} -d $<TARGET_FILE:${TARGET}> >> ${output_name}.dis
            VERBATIM
            BYPRODUCTS "${output_name}.dis"
            )
endfunction()

# pico_add_extra_outputs(TARGET): .dis, .hex, .bin and the map .elf.map
function(pico_add_extra_outputs TARGET)
    pico_add_dis_output(${TARGET})
    pico_add_hex_output(${TARGET})
    pico_add_bin_output(${TARGET})
    pico_add_map_output(${TARGET})
    target_compile_definitions(${TARGET} PRIVATE PICO_TARGET_NAME="${TARGET}")
endfunction()

set(PICO_NO_HARDWARE "0" CACHE INTERNAL "")
set(PICO_ON_DEVICE "1" CACHE INTERNAL "")

set(CMAKE_EXECUTABLE_SUFFIX .elf)
set(CMAKE_EXECUTABLE_SUFFIX "${CMAKE_EXECUTABLE_SUFFIX}" PARENT_SCOPE)
