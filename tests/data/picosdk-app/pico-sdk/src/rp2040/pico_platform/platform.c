/* Chip and boot ROM versions of the RP2040. */
#include "pico.h"
#include "hardware/address_mapped.h"

#define SYSINFO_CHIP_ID_OFFSET 0x00000000u
#define SYSINFO_CHIP_ID_REVISION_LSB 28u
#define ROM_VERSION_ADDR 0x00000013u

static uint8_t chip_version_cache;

uint8_t rp2040_chip_version(void)
{
    if (!chip_version_cache) {
        uint32_t chip_id = *(io_ro_32 *)(SYSINFO_BASE + SYSINFO_CHIP_ID_OFFSET);
        uint32_t version = chip_id >> SYSINFO_CHIP_ID_REVISION_LSB;
        chip_version_cache = (uint8_t)version;
    }
    return chip_version_cache;
}

uint8_t rp2040_rom_version(void)
{
    return *(const uint8_t *)ROM_VERSION_ADDR;
}
