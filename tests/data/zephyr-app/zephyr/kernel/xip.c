/* z_data_copy (kernel/xip.c): copies the RAM sections from their load images in flash. */
#include <stddef.h>
#include <stdint.h>
void *memcpy(void *d, const void *s, size_t n);
extern char __data_region_start[], __data_region_end[], __data_region_load_start[];
extern char __ramfunc_start[], __ramfunc_load_start[], __ramfunc_size[];

void z_data_copy(void)
{
	memcpy(__data_region_start, __data_region_load_start,
	       (size_t)(__data_region_end - __data_region_start));
	memcpy(__ramfunc_start, __ramfunc_load_start, (size_t)__ramfunc_size);
#ifdef CONFIG_CODE_DATA_RELOCATION
	extern void data_copy_xip_relocation(void);
	data_copy_xip_relocation();
#endif
}
