/* BSR's flow table: a fixed pool of flows allocated once, found by their
 * 5-tuple through a chained hash, and kept on a least-recently-used list
 * (the head is the flow that sent last; the tail is the one to expire or
 * evict first). No allocation after bsr_flow_table_init. */
#ifndef DCN_AGENT_BSR_FLOW_TABLE_H
#define DCN_AGENT_BSR_FLOW_TABLE_H

#include <stdbool.h>
#include <stdint.h>

#include "bsr.h"

#define BSR_NIL UINT32_MAX

typedef struct bsr_path_slot {
    uint32_t avail_mbps; /* last measured, BSR_AVAIL_UNKNOWN if none */
    uint32_t seq;        /* of the outstanding probe */
    uint64_t sent_ms;
    uint8_t state;       /* bsr_path_state */
    uint8_t recovery;    /* a path over a link held failed (bsr_recovery.c), probed
                            only to learn that the link is back */
    dcn_path path;       /* last: only its first len nodes are written (dcn_path_copy) */
} bsr_path_slot;

typedef struct bsr_flow {
    /* Memory layout: the scalars first, then the current path and the path
     * slots, whose node arrays are used only up to their lengths. A new
     * flow clears the scalars only (bsr_flow_insert), so a flow touches
     * the pages it uses: the pool's resident size follows what the flows
     * hold, not the 11 KB worst case of each. */
    bsr_flow_key key;
    uint32_t dst;
    /* table links */
    uint32_t hnext, lru_prev, lru_next;
    bool used;
    int32_t cur_index;   /* in paths[], -1 when not in the set */
    int32_t cur_port;    /* local port of its first hop, -1 none */
    /* the path set of the last or current probe round */
    uint32_t n_paths;    /* paths[0..n_paths) are valid; the rest is not initialised */
    bool round_active;
    uint32_t pending;      /* probes outstanding in the round */
    uint32_t replacements; /* BFS alternates added in the round */
    uint64_t next_round_ms;
    /* own sending rate */
    uint64_t window_bytes;
    uint64_t window_start_ms;
    uint32_t own_rate_mbps;
    uint32_t bulk_rate_mbps; /* its highest own rate since it became bulk (0 when not bulk) */
    /* bulk detection over one tick (bsr_tick): a flow sending at least
     * BSR_BULK_KBPS is a bulk flow, placed apart from our other bulk flows */
    uint64_t tick_bytes;
    uint64_t tick_start_ms;
    uint64_t last_bulk_ms; /* last tick at which it sent at a bulk rate */
    bool bulk;
    /* book-keeping */
    uint64_t created_ms, last_used_ms;
    uint32_t probes_sent, switches;
    uint64_t moved_ms; /* when its path last changed (0: never) */
    bool deferred;     /* its last round put off a move (BSR_SETTLE_MS) */
    bool failed_over;  /* its path broke; the round after probes again BSR_SETTLE_MS later */
    /* the current path: len 0 none; nodes past len not initialised */
    dcn_path cur;
    bsr_path_slot paths[BSR_MAX_PATHS];
} bsr_flow;

typedef struct bsr_flow_table {
    bsr_flow *flows;  /* capacity entries */
    uint32_t capacity, count;
    uint32_t *bucket; /* nbuckets heads, BSR_NIL when empty */
    uint32_t nbuckets_mask;
    uint32_t free_head;   /* flows freed after use, chained by hnext */
    uint32_t never_used;  /* flows[never_used..capacity) were never handed out */
    uint32_t lru_head, lru_tail;
} bsr_flow_table;

int bsr_flow_table_init(bsr_flow_table *ft, uint32_t capacity);
void bsr_flow_table_free(bsr_flow_table *ft);

bool bsr_flow_key_eq(const bsr_flow_key *a, const bsr_flow_key *b);
bsr_flow *bsr_flow_find(bsr_flow_table *ft, const bsr_flow_key *k);
/* A zeroed flow with this key at the head of the LRU list, or NULL when the
 * table is full. */
bsr_flow *bsr_flow_insert(bsr_flow_table *ft, const bsr_flow_key *k);
void bsr_flow_remove(bsr_flow_table *ft, bsr_flow *f);
/* Moves f to the head of the LRU list (it just sent). */
void bsr_flow_touch(bsr_flow_table *ft, bsr_flow *f);
/* The least recently used flow, or NULL when empty. */
bsr_flow *bsr_flow_lru_tail(bsr_flow_table *ft);

/* Iteration from most to least recently used:
 *   for (bsr_flow *f = bsr_flow_first(ft); f; f = bsr_flow_next(ft, f)) */
bsr_flow *bsr_flow_first(const bsr_flow_table *ft);
bsr_flow *bsr_flow_next(const bsr_flow_table *ft, const bsr_flow *f);

#endif
