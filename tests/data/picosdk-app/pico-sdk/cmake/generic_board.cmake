# A board without a <board>.cmake file: its header boards/<board>.h is all there is.
set(PICO_BOARD_HEADER_FILE "boards/${PICO_BOARD}.h")
