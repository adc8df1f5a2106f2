#include "scratch.h"

#include <stdlib.h>
#include <string.h>

#include "path.h"

/* Under ASan the arena's free parts are poisoned, so a use after
 * dcn_tmp_free is still caught although the memory is not returned. */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON(p, n) ASAN_POISON_MEMORY_REGION((p), (n))
#define UNPOISON(p, n) ASAN_UNPOISON_MEMORY_REGION((p), (n))
#else
#define POISON(p, n) ((void)(p), (void)(n))
#define UNPOISON(p, n) ((void)(p), (void)(n))
#endif

#define ALIGN 16u

typedef struct block_hdr {
    size_t prev_top; /* header offset of the block below, SIZE_MAX for none */
    uint32_t freed;
    uint32_t size;   /* bytes after the header (a multiple of ALIGN) */
} block_hdr;

_Static_assert(sizeof(block_hdr) == ALIGN, "the block header keeps blocks aligned");

static _Thread_local dcn_scratch *current;

int dcn_scratch_init(dcn_scratch *s, size_t cap)
{
    memset(s, 0, sizeof *s);
    s->top = SIZE_MAX;
    cap = (cap + ALIGN - 1) & ~(size_t)(ALIGN - 1);
    s->base = malloc(cap ? cap : ALIGN);
    if (!s->base)
        return -1;
    s->cap = cap;
    POISON(s->base, s->cap);
    return 0;
}

void dcn_scratch_free(dcn_scratch *s)
{
    if (current == s)
        current = NULL;
    if (s->base)
        UNPOISON(s->base, s->cap);
    free(s->base);
    s->base = NULL;
    s->cap = s->used = 0;
    s->top = SIZE_MAX;
}

size_t dcn_scratch_size_for(const dcn_topo *t)
{
    /* The largest users: the disjoint-path flow search (about ten words per
     * node and per port, twice over for split nodes), BFS (two words per
     * node) and path sets held while the family's algorithm and the repair
     * run. Generous: only the pages touched cost memory. */
    size_t nodes = dcn_n_nodes(t), ports = 0;
    for (uint32_t v = 0; v < nodes; v++)
        ports += dcn_nports(t, v);
    return 8 * sizeof(dcn_pathset) + 96 * (nodes + ports) + 65536;
}

dcn_scratch *dcn_scratch_enter(dcn_scratch *s)
{
    dcn_scratch *prev = current;
    current = s;
    return prev;
}

void dcn_scratch_leave(dcn_scratch *prev) { current = prev; }

static int in_arena(const dcn_scratch *s, const void *p)
{
    return s && s->base && (const uint8_t *)p >= s->base && (const uint8_t *)p < s->base + s->cap;
}

void *dcn_tmp_alloc(size_t n)
{
    dcn_scratch *s = current;
    if (!s || !s->base)
        return malloc(n);
    size_t body = (n + ALIGN - 1) & ~(size_t)(ALIGN - 1), need = body + sizeof(block_hdr);
    if (n > s->cap || body > UINT32_MAX || need > s->cap - s->used) {
        s->overflows++;
        return malloc(n);
    }
    block_hdr *h = (block_hdr *)(s->base + s->used);
    UNPOISON(h, need);
    h->prev_top = s->top;
    h->freed = 0;
    h->size = (uint32_t)body;
    s->top = s->used;
    s->used += need;
    if (s->used > s->high_water)
        s->high_water = s->used;
    return h + 1;
}

void *dcn_tmp_calloc(size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size)
        return NULL;
    void *p = dcn_tmp_alloc(n * size);
    if (p)
        memset(p, 0, n * size);
    return p;
}

void dcn_tmp_free(void *p)
{
    if (!p)
        return;
    dcn_scratch *s = current;
    if (!in_arena(s, p)) {
        free(p);
        return;
    }
    block_hdr *b = (block_hdr *)p - 1;
    b->freed = 1;
    POISON(p, b->size);
    while (s->top != SIZE_MAX) {
        block_hdr *h = (block_hdr *)(s->base + s->top);
        if (!h->freed)
            break;
        s->used = s->top;
        s->top = h->prev_top;
        POISON(h, sizeof *h);
    }
}
