/* Scratch memory for the routing algorithms, so that a caller on a hot path
 * (the agent's path selection: new flows, path-failure messages, probe
 * rounds) runs them without calling the allocator.
 *
 * The library's algorithms take their temporary arrays with dcn_tmp_alloc /
 * dcn_tmp_calloc and give them back with dcn_tmp_free. Without an arena in
 * use on the calling thread these are malloc / calloc / free. A caller that
 * owns an arena (created once, dcn_scratch_init) brackets its calls with
 * dcn_scratch_enter / dcn_scratch_leave: the arrays then come from the
 * arena, a stack whose blocks are released when every block above them is
 * freed too (so frees in any order are safe). When the arena is full the
 * allocator is used after all and the miss is counted (`overflows`), so a
 * too-small arena costs speed, never correctness. */
#ifndef DCN_SCRATCH_H
#define DCN_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

#include "topo.h"

typedef struct dcn_scratch {
    uint8_t *base;
    size_t cap, used, top; /* top: offset of the last block's header, SIZE_MAX when empty */
    size_t high_water;     /* most bytes ever in use */
    uint64_t overflows;    /* requests the arena could not hold (served by malloc) */
} dcn_scratch;

/* An arena of cap bytes (allocated here, once). 0, or -1 when out of memory. */
int dcn_scratch_init(dcn_scratch *s, size_t cap);
void dcn_scratch_free(dcn_scratch *s);
/* A size that holds what the library's algorithms need at once on t. */
size_t dcn_scratch_size_for(const dcn_topo *t);

/* Makes s the calling thread's arena; returns the previous one (to pass to
 * dcn_scratch_leave). */
dcn_scratch *dcn_scratch_enter(dcn_scratch *s);
void dcn_scratch_leave(dcn_scratch *prev);

void *dcn_tmp_alloc(size_t n);
void *dcn_tmp_calloc(size_t n, size_t size);
void dcn_tmp_free(void *p);

#endif
