/* MDCube geometry (Wu et al., CoNEXT 2009): containers are BCube_k(n)
 * blocks on a (D+1)-dimensional grid of sizes m_0 .. m_D, and every switch's
 * high-speed port joins containers that differ in exactly one coordinate.
 *
 * Numbering (see docs/topologies/mdcube.md):
 *   container id  c = sum_d c_d * stride_d, stride_0 = 1 (dimension 0 is the
 *                 first size written in m=AxB and the least significant);
 *   server node   c*t + bsid            (bsid = BCube address, t = n^(k+1));
 *   switch index  c*g + bwid            (bwid = BCube switch index, g = (k+1)n^k);
 *   switch ports  0..n-1 servers, port n the high-speed (fiber) port;
 *   dimension d's switches are off_d .. off_d + m_d - 2 (+ copy*G for the
 *   duplicated cabling of an incomplete MDCube), off_d = sum_(x<d) (m_x - 1). */
#ifndef DCN_MDCUBE_GEOM_H
#define DCN_MDCUBE_GEOM_H

#include <stdint.h>

#include "bcube_addr.h"
#include "params.h"

typedef struct md_geom {
    bc_dims bc;                 /* the container's BCube_k(n) */
    uint32_t n, k;
    uint32_t dims;              /* D+1 */
    uint32_t m[DCN_MAX_DIMS];   /* sizes, m[0] is dimension 0 */
    uint32_t stride[DCN_MAX_DIMS];
    uint32_t off[DCN_MAX_DIMS]; /* first switch of each dimension */
    uint32_t t;                 /* servers per container, n^(k+1) */
    uint32_t g;                 /* switches per container, (k+1) n^k */
    uint32_t G;                 /* switches per container with a fiber per copy, sum (m_d - 1) */
    uint32_t copies;            /* floor(g / G): how often the cabling is duplicated */
    uint32_t M;                 /* containers */
} md_geom;

/* Fills g from the parsed parameters n, k, m (already validated). */
void md_geom_init(md_geom *g, const dcn_params *p);

static inline uint32_t md_coord(const md_geom *g, uint32_t c, uint32_t d) { return c / g->stride[d] % g->m[d]; }
static inline uint32_t md_set_coord(const md_geom *g, uint32_t c, uint32_t d, uint32_t v)
{
    return c - md_coord(g, c, d) * g->stride[d] + v * g->stride[d];
}
static inline uint32_t md_server_node(const md_geom *g, uint32_t c, uint32_t bsid) { return c * g->t + bsid; }
static inline uint32_t md_switch_node(const md_geom *g, uint32_t n_servers, uint32_t c, uint32_t bwid)
{
    return n_servers + c * g->g + bwid;
}

/* The switch (bwid) of coordinate x that leads to neighbour y on dimension
 * d, in copy `copy`: off_d + (y if y < x else y-1) + copy*G. */
static inline uint32_t md_link_switch(const md_geom *g, uint32_t d, uint32_t x, uint32_t y, uint32_t copy)
{
    return g->off[d] + (y < x ? y : y - 1) + copy * g->G;
}

/* GetLink(c1, c2) for containers differing in exactly one dimension: the
 * dimension (returned) and the bwids of the two fiber ends. -1 when c1 and
 * c2 do not differ in exactly one dimension. */
int md_get_link(const md_geom *g, uint32_t c1, uint32_t c2, uint32_t copy, uint32_t *bw1, uint32_t *bw2);

/* The neighbour container and dimension that switch bwid of container c
 * reaches over its fiber; -1 when that switch's high-speed port is unused. */
int md_switch_peer(const md_geom *g, uint32_t c, uint32_t bwid, uint32_t *peer_c, uint32_t *peer_bwid);

#endif
