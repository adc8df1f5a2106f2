/* BCDC addressing and routing: BRouting (the paper's Alg. 1 with CPath
 * corrected) and the fault-tolerant BFRouting (Alg. 3-5, corrected as in
 * /work/shared/notes/bcdc.md section 4.5). Paths here are server sequences
 * (one entry per B_n hop); bcdc_expand() turns them into full node paths.
 *
 * Server ids: a server is the CQ_n edge [s0, s1] with s1 = cq_nbr(s0, dim)
 * and bit dim of s0 clear; its id is dim * 2^(n-1) + (s0 with bit dim
 * deleted). Switch x (a CQ_n node) is graph node n_servers + x. */
#ifndef DCN_BCDC_ROUTE_H
#define DCN_BCDC_ROUTE_H

#include <stdbool.h>
#include <stdint.h>

#include "../path.h"
#include "../topo.h"
#include "crossed_cube.h"

typedef struct bcdc_state {
    unsigned n;
    uint32_t n_servers; /* n * 2^(n-1) */
    cq_dist cd;
} bcdc_state;

static inline uint32_t bcdc_sid(const bcdc_state *st, uint32_t s0, unsigned dim)
{
    uint32_t low = s0 & ((1u << dim) - 1u), high = s0 >> (dim + 1u);
    return ((uint32_t)dim << (st->n - 1u)) | (high << dim) | low;
}
static inline unsigned bcdc_dim(const bcdc_state *st, uint32_t sid) { return sid >> (st->n - 1u); }
static inline uint32_t bcdc_s0(const bcdc_state *st, uint32_t sid)
{
    unsigned dim = bcdc_dim(st, sid);
    uint32_t rest = sid & ((1u << (st->n - 1u)) - 1u);
    return ((rest >> dim) << (dim + 1u)) | (rest & ((1u << dim) - 1u));
}
static inline uint32_t bcdc_s1(const bcdc_state *st, uint32_t sid)
{
    return cq_nbr(bcdc_s0(st, sid), bcdc_dim(st, sid));
}
/* The server on the dimension-k edge of switch address x. */
static inline uint32_t bcdc_edge_server(const bcdc_state *st, uint32_t x, unsigned k)
{
    uint32_t s0 = (x >> k) & 1u ? cq_nbr(x, k) : x;
    return bcdc_sid(st, s0, k);
}

/* A sub-BCDC X = (d, p): the servers of dimension < d whose switches have
 * bits >= d equal to p. Its halves are (d-1, 2p) and (d-1, 2p+1); its
 * middle layer S(X) is its servers of dimension d-1. */
typedef struct bcdc_region {
    unsigned d;
    uint32_t p;
    bool slab; /* true: the middle layer S of (d, p) instead of all of it */
} bcdc_region;

bool bcdc_in_region(const bcdc_state *st, uint32_t sid, bcdc_region r);

/* BRouting inside X (u != v both in X): a shortest server sequence. Returns
 * its length in servers, or -1 if it does not fit in out. */
int bcdc_brouting(const bcdc_state *st, bcdc_region x, uint32_t u, uint32_t v, dcn_path *out);

/* Server sequence -> full node sequence (server, switch, server, ...).
 * Three consecutive servers behind one switch would cross it twice: such
 * loops are cut (u, sw, w, sw, x becomes u, sw, x), so the result is simple
 * and never longer. -1 if two consecutive servers are not adjacent. */
int bcdc_expand(const bcdc_state *st, const dcn_path *servers, dcn_path *out);

/* Scratch space for BFRouting, sized for one topology; reusable. */
typedef struct bcdc_fault_ctx {
    const bcdc_state *st;
    const uint8_t *failed;  /* one byte per server id: 1 = faulty */
    const uint32_t *faults; /* the faulty server ids */
    uint32_t n_faults;
    uint32_t *bfs_parent;   /* n_servers entries */
    uint32_t *bfs_queue;    /* n_servers entries */
} bcdc_fault_ctx;

typedef enum {
    BCDC_FR_ALGORITHM = 0, /* the recursive BFRouting produced the path */
    BCDC_FR_BFS = 1,       /* |F| >= 2n-2 at the top: BFS on B_n - F, as the paper prescribes */
    BCDC_FR_FALLBACK = 2,  /* the recursion failed (beyond its guarantee); BFS on B_n - F */
    BCDC_FR_NONE = -1      /* u and v are disconnected in B_n - F (or u, v faulty) */
} bcdc_fr_status;

/* BFRouting on the whole B_n for servers u != v, server faults only. */
bcdc_fr_status bcdc_bfrouting(bcdc_fault_ctx *fc, uint32_t u, uint32_t v, dcn_path *out);

#endif
