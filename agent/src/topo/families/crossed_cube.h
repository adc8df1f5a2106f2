/* The crossed cube CQ_n (Efe): the switch-level graph of BCDC.
 *
 * Nodes are n-bit addresses, bit 0 least significant. The dimension-k
 * neighbour of x flips bit k and, for every bit pair (2i+1, 2i) below
 * 2*floor(k/2), flips bit 2i+1 when bit 2i is 1 (the pair-related rule of
 * the paper's Def. 2, in closed form; see docs/topologies/bcdc.md). A
 * sub-cube that fixes the bits >= d is a CQ_d on the low d bits: CQ_NBR
 * for k < d never reads or writes bits >= d. */
#ifndef DCN_CROSSED_CUBE_H
#define DCN_CROSSED_CUBE_H

#include <stdint.h>

#define CQ_MAX_DIM 12

static inline uint32_t cq_nbr(uint32_t x, unsigned k)
{
    uint32_t pairs_mask = 0x55555555u & ((1u << (2u * (k / 2u))) - 1u);
    return x ^ (1u << k) ^ ((x & pairs_mask) << 1);
}

/* Exact distances of CQ_d for every d = 1..n, one 2^d x 2^d byte table per
 * d (about 1.4 MiB in all for n = 10), filled by one BFS per source. */
typedef struct cq_dist {
    unsigned n;
    uint8_t *table[CQ_MAX_DIM + 1]; /* table[d][a << d | b], a, b < 2^d */
} cq_dist;

int cq_dist_init(cq_dist *cd, unsigned n);
void cq_dist_free(cq_dist *cd);

/* Distance between x and y inside the sub-cube of dimensions < d that
 * holds both (they must agree on bits >= d). */
static inline unsigned cq_distance(const cq_dist *cd, unsigned d, uint32_t x, uint32_t y)
{
    uint32_t m = (1u << d) - 1u;
    return cd->table[d][((x & m) << d) | (y & m)];
}

/* A shortest path from x to y inside their dimension-<d sub-cube, as node
 * addresses x .. y (dist+1 of them): at every step the lowest dimension
 * that gets one closer. Returns the number of nodes written (at most max). */
unsigned cq_shortest_path(const cq_dist *cd, unsigned d, uint32_t x, uint32_t y, uint32_t *out, unsigned max);

#endif
