# Selects the board support of FAMILY (hw/bsp/${FAMILY}/family.cmake).
if (NOT FAMILY)
    message(FATAL_ERROR "FAMILY is not set")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/${FAMILY}/family.cmake)
