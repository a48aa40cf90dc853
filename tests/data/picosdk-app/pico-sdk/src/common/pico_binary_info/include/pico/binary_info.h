/* Machine-readable information about the binary: entries in the .binary_info.* sections,
 * found through the header in the first 256 bytes of the image. */
#ifndef _PICO_BINARY_INFO_H
#define _PICO_BINARY_INFO_H

#include "pico/binary_info/defs.h"
#include "pico.h"

#define BINARY_INFO_TYPE_ID_AND_STRING 6
#define BINARY_INFO_TYPE_ID_AND_INT 5
#define BINARY_INFO_TAG_RASPBERRY_PI (('R') | ('P' << 8))

#define BINARY_INFO_ID_RP_PROGRAM_NAME 0x02031c86
#define BINARY_INFO_ID_RP_PROGRAM_VERSION_STRING 0x11a9bc3a
#define BINARY_INFO_ID_RP_PROGRAM_BUILD_DATE_STRING 0x9da22254
#define BINARY_INFO_ID_RP_BINARY_END 0x68f465de
#define BINARY_INFO_ID_RP_BOARD 0xb63cffbb
#define BINARY_INFO_ID_RP_SDK_VERSION 0x5360b3ab

typedef struct {
    uint16_t type;
    uint16_t tag;
} binary_info_core_t;

typedef struct {
    binary_info_core_t core;
    uint32_t id;
    const char *value;
} binary_info_id_and_string_t;

typedef struct {
    binary_info_core_t core;
    uint32_t id;
    int32_t value;
} binary_info_id_and_int_t;

#define __bi_concat(x, y) x##y
#define __bi_name(x, y) __bi_concat(x, y)

#define bi_decl(_decl) \
    __attribute__((section(".binary_info.keep." __STRING(__LINE__)), used)) \
    static const void *const __bi_name(__bi_ptr, __LINE__) = &(_decl).core;

#define bi_string(_id, _value) \
    ((const binary_info_id_and_string_t){{BINARY_INFO_TYPE_ID_AND_STRING, BINARY_INFO_TAG_RASPBERRY_PI}, _id, _value})

#define bi_program_name(name) bi_string(BINARY_INFO_ID_RP_PROGRAM_NAME, name)
#define bi_program_version_string(v) bi_string(BINARY_INFO_ID_RP_PROGRAM_VERSION_STRING, v)

#endif
