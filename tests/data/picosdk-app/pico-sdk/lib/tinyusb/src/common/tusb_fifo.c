/* FIFO of fixed-size items: indices run over twice the depth so that full and empty
 * differ. */
#include "common/tusb_fifo.h"

bool tu_fifo_config(tu_fifo_t *f, void *buffer, uint16_t depth, uint16_t item_size, bool overwritable)
{
    if (depth > 0x8000)
        return false;
    f->buffer = (uint8_t *)buffer;
    f->depth = depth;
    f->item_size = item_size;
    f->overwritable = overwritable;
    f->rd_idx = f->wr_idx = 0;
    return true;
}

bool tu_fifo_clear(tu_fifo_t *f)
{
    f->rd_idx = f->wr_idx = 0;
    return true;
}

static inline uint16_t idx2ptr(uint16_t depth, uint16_t idx)
{
    return idx >= depth ? (uint16_t)(idx - depth) : idx;
}

static inline uint16_t advance_index(uint16_t depth, uint16_t idx, uint16_t offset)
{
    uint16_t next = (uint16_t)(idx + offset);
    if (next >= 2 * depth)
        next = (uint16_t)(next - 2 * depth);
    return next;
}

uint16_t tu_fifo_count(tu_fifo_t *f)
{
    uint16_t wr = f->wr_idx, rd = f->rd_idx;
    return wr >= rd ? (uint16_t)(wr - rd) : (uint16_t)(2 * f->depth - (rd - wr));
}

bool tu_fifo_empty(tu_fifo_t *f)
{
    return f->wr_idx == f->rd_idx;
}

static void _ff_push(tu_fifo_t *f, void const *data, uint16_t wr_ptr)
{
    memcpy(f->buffer + wr_ptr * f->item_size, data, f->item_size);
}

static void _ff_pull(tu_fifo_t *f, void *buffer, uint16_t rd_ptr)
{
    memcpy(buffer, f->buffer + rd_ptr * f->item_size, f->item_size);
}

bool tu_fifo_write(tu_fifo_t *f, void const *data)
{
    if (tu_fifo_count(f) >= f->depth && !f->overwritable)
        return false;
    uint16_t wr = f->wr_idx;
    _ff_push(f, data, idx2ptr(f->depth, wr));
    f->wr_idx = advance_index(f->depth, wr, 1);
    return true;
}

bool tu_fifo_read(tu_fifo_t *f, void *buffer)
{
    uint16_t cnt = tu_fifo_count(f);
    if (cnt == 0)
        return false;
    if (cnt > f->depth)
        f->rd_idx = advance_index(f->depth, f->wr_idx, f->depth); /* overflowed: keep the newest */
    _ff_pull(f, buffer, idx2ptr(f->depth, f->rd_idx));
    f->rd_idx = advance_index(f->depth, f->rd_idx, 1);
    return true;
}
