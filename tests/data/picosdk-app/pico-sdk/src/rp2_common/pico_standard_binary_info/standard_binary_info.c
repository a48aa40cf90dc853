/* The standard binary info entries: program name, board and SDK version. */
#include "pico/binary_info.h"

#ifndef PICO_TARGET_NAME
#define PICO_TARGET_NAME "unknown"
#endif

#ifdef PICO_PROGRAM_NAME
bi_decl(bi_program_name(PICO_PROGRAM_NAME))
#else
bi_decl(bi_program_name(PICO_TARGET_NAME))
#endif
bi_decl(bi_string(BINARY_INFO_ID_RP_BOARD, PICO_BOARD))
bi_decl(bi_string(BINARY_INFO_ID_RP_SDK_VERSION, PICO_SDK_VERSION_STRING))
