/* A byte FIFO of fixed-size items, safe for one writer (an IRQ) and one reader. */
#ifndef _TUSB_FIFO_H_
#define _TUSB_FIFO_H_

#include "common/tusb_common.h"

typedef struct {
    uint8_t *buffer;
    uint16_t depth;
    uint16_t item_size;
    volatile uint16_t wr_idx;
    volatile uint16_t rd_idx;
    bool overwritable;
} tu_fifo_t;

#define TU_FIFO_DEF(name, depth, type, overwritable) \
    uint8_t name##_buf[(depth) * sizeof(type)];      \
    tu_fifo_t name = {name##_buf, depth, sizeof(type), 0, 0, overwritable}

bool tu_fifo_config(tu_fifo_t *f, void *buffer, uint16_t depth, uint16_t item_size, bool overwritable);
bool tu_fifo_clear(tu_fifo_t *f);
uint16_t tu_fifo_count(tu_fifo_t *f);
bool tu_fifo_empty(tu_fifo_t *f);
bool tu_fifo_write(tu_fifo_t *f, void const *data);
bool tu_fifo_read(tu_fifo_t *f, void *buffer);

#endif
