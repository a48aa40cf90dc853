# Emulates the parts of Zephyr's cmake/modules/extensions.cmake this test project uses:
# the zephyr_library*() family, zephyr_sources*(), zephyr_linker_sources() and
# zephyr_code_relocate(). The two linker functions keep Zephyr's argument handling and
# output format exactly (see the comments at each); the rest is the minimum.

# ---- libraries -------------------------------------------------------------------------

# Every library linked with --whole-archive into the image, in creation order.
function(zephyr_append_cmake_library library)
  set_property(GLOBAL APPEND PROPERTY ZEPHYR_LIBS ${library})
endfunction()

# A library's name is its folder relative to ZEPHYR_BASE with '/' turned into "__"
# (drivers/usb/udc -> drivers__usb__udc -> libdrivers__usb__udc.a), as in Zephyr.
macro(zephyr_library_get_current_dir_lib_name base lib_name)
  file(RELATIVE_PATH name "${base}" "${CMAKE_CURRENT_LIST_FILE}")
  get_filename_component(name "${name}" DIRECTORY)
  string(REGEX REPLACE "/" "__" name "${name}")
  string(REGEX REPLACE ":" "__" name "${name}")
  set(${lib_name} "${name}")
endmacro()

macro(zephyr_library)
  zephyr_library_get_current_dir_lib_name("${ZEPHYR_BASE}" lib_name)
  zephyr_library_named(${lib_name})
endmacro()

macro(zephyr_library_named name)
  set(ZEPHYR_CURRENT_LIBRARY ${name})
  add_library(${name} STATIC "")
  zephyr_append_cmake_library(${name})
  target_link_libraries(${name} PUBLIC zephyr_interface)
endmacro()

function(zephyr_library_sources source)
  target_sources(${ZEPHYR_CURRENT_LIBRARY} PRIVATE ${source} ${ARGN})
endfunction()

function(zephyr_library_sources_ifdef feature_toggle source)
  if(${${feature_toggle}})
    zephyr_library_sources(${source} ${ARGN})
  endif()
endfunction()

function(zephyr_library_compile_options item)
  target_compile_options(${ZEPHYR_CURRENT_LIBRARY} PRIVATE ${item} ${ARGN})
endfunction()

function(zephyr_sources)
  target_sources(zephyr PRIVATE ${ARGV})
endfunction()

function(zephyr_sources_ifdef feature_toggle)
  if(${${feature_toggle}})
    zephyr_sources(${ARGN})
  endif()
endfunction()

function(zephyr_include_directories)
  foreach(arg ${ARGV})
    if(IS_ABSOLUTE "${arg}")
      set(path "${arg}")
    else()
      get_filename_component(path "${arg}" ABSOLUTE)
    endif()
    target_include_directories(zephyr_interface INTERFACE "${path}")
  endforeach()
endfunction()

function(zephyr_compile_definitions)
  target_compile_definitions(zephyr_interface INTERFACE ${ARGV})
endfunction()

macro(add_subdirectory_ifdef feature_toggle source_dir)
  if(${${feature_toggle}})
    add_subdirectory(${source_dir} ${ARGN})
  endif()
endmacro()

# zephyr_string(SANITIZE TOUPPER <out> <in>): what Zephyr uses to turn module names into
# variable names (ZEPHYR_<NAME>_MODULE_DIR).
function(zephyr_string)
  cmake_parse_arguments(S "SANITIZE;TOUPPER" "" "" ${ARGN})
  list(GET S_UNPARSED_ARGUMENTS 0 out)
  list(SUBLIST S_UNPARSED_ARGUMENTS 1 -1 in)
  string(JOIN "" value ${in})
  if(S_SANITIZE)
    string(REGEX REPLACE "[^a-zA-Z0-9_]" "_" value "${value}")
  endif()
  if(S_TOUPPER)
    string(TOUPPER "${value}" value)
  endif()
  set(${out} "${value}" PARENT_SCOPE)
endfunction()

# ---- zephyr_linker_sources() ------------------------------------------------------------
#
# zephyr_linker_sources(<location> [SORT_KEY <sort_key>] <files>...)
#
# Writes one line per file into include/generated/snippets-<location>.ld, which the linker
# script #includes at the matching place:
#   /* Sort key: "<sort_key>" */#include "<path relative to ZEPHYR_BASE/include>"
# The lines of each file are kept sorted (the key comes first, so the key orders them;
# the default key is "default"). A file given again moves to the new location. The first
# call of a configure run empties every snippets file. As in Zephyr.
function(zephyr_linker_sources location)
  set(snippet_base       "${__build_dir}/include/generated")
  set(sections_path      "${snippet_base}/snippets-sections.ld")
  set(rom_sections_path  "${snippet_base}/snippets-rom-sections.ld")
  set(ram_sections_path  "${snippet_base}/snippets-ram-sections.ld")
  set(data_sections_path "${snippet_base}/snippets-data-sections.ld")
  set(rom_start_path     "${snippet_base}/snippets-rom-start.ld")
  set(noinit_path        "${snippet_base}/snippets-noinit.ld")
  set(rwdata_path        "${snippet_base}/snippets-rwdata.ld")
  set(rodata_path        "${snippet_base}/snippets-rodata.ld")
  set(ramfunc_path       "${snippet_base}/snippets-ramfunc-section.ld")
  set(all_paths "${sections_path}" "${rom_sections_path}" "${ram_sections_path}"
    "${data_sections_path}" "${rom_start_path}" "${noinit_path}" "${rwdata_path}"
    "${rodata_path}" "${ramfunc_path}")

  get_property(cleared GLOBAL PROPERTY snippet_files_cleared)
  if(NOT DEFINED cleared)
    foreach(p ${all_paths})
      file(WRITE "${p}" "")
    endforeach()
    set_property(GLOBAL PROPERTY snippet_files_cleared true)
  endif()

  if("${location}" STREQUAL "SECTIONS")
    set(snippet_path "${sections_path}")
  elseif("${location}" STREQUAL "ROM_SECTIONS")
    set(snippet_path "${rom_sections_path}")
  elseif("${location}" STREQUAL "RAM_SECTIONS")
    set(snippet_path "${ram_sections_path}")
  elseif("${location}" STREQUAL "DATA_SECTIONS")
    set(snippet_path "${data_sections_path}")
  elseif("${location}" STREQUAL "ROM_START")
    set(snippet_path "${rom_start_path}")
  elseif("${location}" STREQUAL "NOINIT")
    set(snippet_path "${noinit_path}")
  elseif("${location}" STREQUAL "RWDATA")
    set(snippet_path "${rwdata_path}")
  elseif("${location}" STREQUAL "RODATA")
    set(snippet_path "${rodata_path}")
  elseif("${location}" STREQUAL "RAMFUNC_SECTION")
    set(snippet_path "${ramfunc_path}")
  else()
    message(FATAL_ERROR "Must choose valid location for linker snippet.")
  endif()

  cmake_parse_arguments(L "" "SORT_KEY" "" ${ARGN})
  set(SORT_KEY default)
  if(DEFINED L_SORT_KEY)
    set(SORT_KEY ${L_SORT_KEY})
  endif()

  foreach(file IN ITEMS ${L_UNPARSED_ARGUMENTS})
    if(IS_ABSOLUTE "${file}")
      set(path "${file}")
    else()
      set(path "${CMAKE_CURRENT_SOURCE_DIR}/${file}")
    endif()
    if(IS_DIRECTORY "${path}")
      message(FATAL_ERROR "zephyr_linker_sources() was called on a directory")
    endif()
    # The generated linker script depends on every file named here (Zephyr gets the same
    # from the preprocessor's depfile).
    set_property(GLOBAL APPEND PROPERTY XB_LINKER_SOURCE_FILES "${path}")

    file(RELATIVE_PATH relpath "${ZEPHYR_BASE}/include" "${path}")
    set(include_str "/* Sort key: \"${SORT_KEY}\" */#include \"${relpath}\"")

    # Remove the line from another snippets file that already has it.
    get_property(old_path GLOBAL PROPERTY "snippet_files_used_${relpath}")
    if(DEFINED old_path)
      file(STRINGS "${old_path}" lines)
      list(FILTER lines EXCLUDE REGEX "${relpath}")
      string(REPLACE ";" "\n;" lines "${lines}")
      file(WRITE "${old_path}" ${lines} "\n")
    endif()
    set_property(GLOBAL PROPERTY "snippet_files_used_${relpath}" "${snippet_path}")

    file(STRINGS "${snippet_path}" lines)
    list(APPEND lines "${include_str}")
    list(SORT lines)
    string(REPLACE ";" "\n;" lines "${lines}")
    file(WRITE "${snippet_path}" ${lines} "\n")
  endforeach()
endfunction()

function(zephyr_linker_sources_ifdef feature_toggle)
  if(${${feature_toggle}})
    zephyr_linker_sources(${ARGN})
  endif()
endfunction()

# ---- zephyr_code_relocate() -------------------------------------------------------------
#
# zephyr_code_relocate(<FILES files... | LIBRARY target> LOCATION <loc> [NOCOPY] [NOKEEP]
#                      [FILTER regex] [PHDR header])
#
# Appends one line to the INTERFACE_SOURCES property of code_data_relocation_target:
#   <LOCATION>:<COPY|NOCOPY>[;NOKEEP]:<file>[;<file>...],<FILTER>
# LIBRARY turns the target's sources into absolute paths with generator expressions
# (relative ones joined to its SOURCE_DIR); relative FILES are taken from the current
# source folder. scripts/gen_relocate_app.cmake reads the lines at build time.
# Same argument handling and line format as Zephyr.
function(zephyr_code_relocate)
  set(options NOCOPY NOKEEP)
  set(single_args LIBRARY LOCATION PHDR FILTER)
  set(multi_args FILES)
  cmake_parse_arguments(CODE_REL "${options}" "${single_args}" "${multi_args}" ${ARGN})
  if(CODE_REL_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "zephyr_code_relocate(${ARGV0} ...) "
      "given unknown arguments: ${CODE_REL_UNPARSED_ARGUMENTS}")
  endif()
  if((NOT CODE_REL_FILES) AND (NOT CODE_REL_LIBRARY))
    message(FATAL_ERROR "zephyr_code_relocate() requires either FILES or LIBRARY be provided")
  endif()
  if(CODE_REL_FILES AND CODE_REL_LIBRARY)
    message(FATAL_ERROR "zephyr_code_relocate() only accepts "
      "one argument between FILES and LIBRARY")
  endif()
  if(NOT CODE_REL_LOCATION)
    message(FATAL_ERROR "zephyr_code_relocate() requires a LOCATION argument")
  endif()
  if(CODE_REL_LIBRARY)
    set(genex_src_dir "$<TARGET_PROPERTY:${CODE_REL_LIBRARY},SOURCE_DIR>")
    set(genex_src_list "$<TARGET_PROPERTY:${CODE_REL_LIBRARY},SOURCES>")
    set(src_list_abs "$<FILTER:${genex_src_list},INCLUDE,^/>")
    set(src_list_rel "$<FILTER:${genex_src_list},EXCLUDE,^/>")
    set(src_list "${genex_src_dir}/$<JOIN:${src_list_rel},$<SEMICOLON>${genex_src_dir}/>")
    set(nonempty_src_list "$<$<BOOL:${src_list_rel}>:${src_list}>")
    set(sep_list "$<$<AND:$<BOOL:${src_list_abs}>,$<BOOL:${src_list_rel}>>:$<SEMICOLON>>")
    set(file_list "${src_list_abs}${sep_list}${nonempty_src_list}")
  else()
    string(GENEX_STRIP "${CODE_REL_FILES}" no_genex)
    if(CODE_REL_FILES STREQUAL no_genex)
      foreach(file ${CODE_REL_FILES})
        if(NOT IS_ABSOLUTE "${file}")
          set(file "${CMAKE_CURRENT_SOURCE_DIR}/${file}")
        endif()
        list(APPEND file_list "${file}")
      endforeach()
    else()
      set(file_list ${CODE_REL_FILES})
    endif()
  endif()
  if(NOT CODE_REL_NOCOPY)
    set(flag_list COPY)
  else()
    set(flag_list NOCOPY)
  endif()
  if(CODE_REL_NOKEEP)
    list(APPEND flag_list NOKEEP)
  endif()
  if(CODE_REL_PHDR)
    set(CODE_REL_LOCATION "${CODE_REL_LOCATION}\ :${CODE_REL_PHDR}")
  endif()
  get_property(code_rel_str TARGET code_data_relocation_target PROPERTY INTERFACE_SOURCES)
  set_property(TARGET code_data_relocation_target PROPERTY INTERFACE_SOURCES
    "${code_rel_str}\n${CODE_REL_LOCATION}:${flag_list}:${file_list},${CODE_REL_FILTER}")
endfunction()

macro(zephyr_code_relocate_ifdef feature_toggle)
  if(${${feature_toggle}})
    zephyr_code_relocate(${ARGN})
  endif()
endmacro()

# Tracks a file the configuration depends on: editing it re-runs CMake on the next build,
# as Zephyr does for Kconfig files, .conf files, module.yml and snippet.yml.
function(zephyr_configure_depends)
  foreach(f ${ARGV})
    set_property(DIRECTORY "${APPLICATION_SOURCE_DIR}" APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${f}")
  endforeach()
endfunction()

# Writes a generated file only when its text changes, so that re-running CMake does not
# make everything that depends on it out of date.
function(xb_write_if_changed path text)
  if(EXISTS "${path}")
    file(READ "${path}" old)
    if(old STREQUAL text)
      return()
    endif()
  endif()
  get_filename_component(dir "${path}" DIRECTORY)
  file(MAKE_DIRECTORY "${dir}")
  file(WRITE "${path}" "${text}")
endfunction()
