/* A function name that is an address, not code: an absolute FUNC symbol (as a C library
 * leaves for an alias it resolved, or a table of ROM routines). It has no section. */
.global rom_crc32_alias
.type rom_crc32_alias, %function
.set rom_crc32_alias, 0x000001e1
.size rom_crc32_alias, 16
