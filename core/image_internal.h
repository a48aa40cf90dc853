/* image_internal: what image.c, image_map.c and image_align.c share; not for other modules. */
#ifndef XB_IMAGE_INTERNAL_H
#define XB_IMAGE_INTERNAL_H

#include "image.h"

/* Libraries without a map: "file:NAME.c" from the STT_FILE symbol for static functions,
 * "unknown" for the rest. Replaces img->libraries. */
void image_libraries_from_files(xb_image *img);

/* Frees img->libraries. */
void image_free_libraries(xb_image *img);

#endif
