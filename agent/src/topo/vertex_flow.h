/* Internally vertex-disjoint paths between two non-adjacent vertices of a
 * graph, and a smallest set of vertices that separates them (Menger's
 * theorem: as many as the paths). Dinic's max-flow on the split graph:
 * vertex v becomes an arc v_in -> v_out of capacity 1, and edge {u, v} the
 * arcs u_out -> v_in and v_out -> u_in of capacity 2 (more than a vertex
 * passes, so a minimum cut is made of vertex arcs only). The flow from
 * s_out to t_in counts the paths.
 *
 * One workspace serves any number of pairs of one graph: a new pair resets
 * only the arcs the previous flow changed. Memory: 2n + 4m arcs of 10
 * bytes and 2n split vertices of 29 bytes (B_10: 5120 vertices, 46080
 * edges, 2.2 MB). */
#ifndef DCN_VERTEX_FLOW_H
#define DCN_VERTEX_FLOW_H

#include <stdint.h>

#include "graph.h"

typedef struct dcn_vflow {
    const dcn_graph *g;
    uint32_t nodes;                  /* 2n split vertices: v_in = 2v, v_out = 2v+1 */
    uint32_t *first;                 /* nodes+1: x's arcs are first[x] .. first[x+1]-1 */
    uint32_t *to, *rev;              /* per arc: its head, and the index of the opposite arc */
    uint8_t *cap, *res;              /* per arc: capacity, residual capacity */
    uint32_t *level, *seen, *iter;   /* per split vertex, for one search (seen == epoch: labelled) */
    uint32_t *queue, *path, *dirty;  /* BFS queue, DFS arc stack, vertices whose arcs carry flow */
    uint8_t *is_dirty;
    uint32_t n_dirty, epoch;
} dcn_vflow;

/* 0, or -1 when out of memory or g too large to index its arcs (w is then
 * empty: dcn_vflow_free is still safe). w keeps a pointer to g. */
int dcn_vflow_init(dcn_vflow *w, const dcn_graph *g);
void dcn_vflow_free(dcn_vflow *w);

/* The number of internally vertex-disjoint s-t paths, counted up to cap
 * (s != t, not adjacent). Fewer than cap means that is the most there are. */
uint32_t dcn_vflow_paths(dcn_vflow *w, uint32_t s, uint32_t t, uint32_t cap);

/* After dcn_vflow_paths returned fewer than its cap: a smallest set of
 * vertices separating s from t, in increasing order (out: as many entries
 * as the paths). Returns their number. */
uint32_t dcn_vflow_separator(const dcn_vflow *w, uint32_t *out);

#endif
