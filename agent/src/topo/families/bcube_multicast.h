/* BCube's one-to-several and one-to-all structures (BCube, SIGCOMM 2009,
 * sections 3.4 and 3.5), at the address level (server ids = BCube
 * addresses; docs/topologies/bcube.md, "One-to-several and one-to-all").
 *
 * Theorem 4: a source and up to k+1 one-digit neighbours d_i, one per level
 * i, form a complete graph whose edges are link-disjoint and at most two
 * server hops long:
 *   src - d_i      one hop on level i;
 *   d_i - d_j      d_i -(level j)- x_ij -(level i)- d_j,
 *                  x_ij = src with digit i := d_i[i] and digit j := d_j[j].
 * Theorem 5 (BuildMultipleSPTs): k+1 spanning trees rooted at the source,
 * tree i entering through the source's level-i neighbour (digit i + 1), no
 * directed server-to-server edge in two trees. */
#ifndef DCN_BCUBE_MULTICAST_H
#define DCN_BCUBE_MULTICAST_H

#include <stdint.h>

#include "bcube_addr.h"

/* Members of a complete graph: the source and at most one target per level. */
#define BC_GRAPH_MAX_MEMBERS (BC_MAX_LEVELS + 1)
#define BC_GRAPH_MAX_EDGES (BC_GRAPH_MAX_MEMBERS * BC_MAX_LEVELS)
#define BC_SPT_NONE UINT32_MAX /* the source's parent */

/* One directed edge of the complete graph. */
typedef struct bc_graph_edge {
    uint32_t from, to;  /* src or a target */
    uint32_t hops;      /* server hops: 1 or 2 */
    uint32_t seq[3];    /* servers on the path, from first (hops+1 of them) */
    uint32_t level[2];  /* level of each hop */
} bc_graph_edge;

/* Theorem 4. targets[0..count-1] must each differ from src in exactly one
 * digit, no two at the same level (so count <= k+1). Writes every directed
 * edge among {src, targets}: first src -> targets[t] for each t, then
 * targets[t] -> src, then targets[a] -> targets[b] for a != b (a-major).
 * The edge b -> a runs the path of a -> b backwards. Returns the number of
 * edges, (count+1)*count, or -1 with *why (a static phrase) and *bad (the
 * offending target's index) filled when a target is not acceptable. */
int bc_complete_graph(const bc_dims *d, uint32_t src, const uint32_t *targets, uint32_t count, bc_graph_edge *edges,
                      const char **why, uint32_t *bad);

/* BuildSingleSPT for tree `level`, as the paper's Fig. 5 with the notes'
 * reading: Part I grows the tree dimension by dimension from the root
 * (level, level+1, ... mod k+1), Part II then gives every S != src with
 * S[level] = src[level] the parent S with digit level := S[level]-1 mod n
 * (overriding Part I), and src, which Part I reaches too, is dropped: its
 * parent is BC_SPT_NONE (after Part II its only child is the root).
 * parent[s] and edge_level[s] (the level of the link s - parent[s]) are
 * written for all n^(k+1) servers s. Returns 0, or -1 when out of memory. */
int bc_build_single_spt(const bc_dims *d, uint32_t src, uint32_t level, uint32_t *parent, uint8_t *edge_level);

/* BuildMultipleSPTs(src): the k+1 trees, tree i in parent[i*N .. i*N+N-1]
 * and edge_level[i*N ..] (N = n^(k+1)). Returns 0, or -1 when out of memory. */
int bc_build_multiple_spts(const bc_dims *d, uint32_t src, uint32_t *parent, uint8_t *edge_level);

/* Server hops from src to s in one tree (parent array of N entries), or
 * BC_SPT_NONE when following the parents does not reach src within N steps. */
uint32_t bc_spt_depth_of(const uint32_t *parent, uint32_t n_servers, uint32_t src, uint32_t s);

#endif
