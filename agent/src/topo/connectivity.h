/* The vertex connectivity of a graph: the fewest vertices whose removal
 * leaves it disconnected or a single vertex. Esfahanian and Hakimi's
 * pairs: with v a vertex of least degree d (the lowest id), kappa is d or
 * the least number of internally vertex-disjoint paths between v and a
 * vertex not adjacent to it, or between two non-adjacent neighbours of v;
 * each is a unit-capacity max-flow (vertex_flow.h) counted up to the least
 * value found so far. That is n - d - 1 + d(d-1)/2 flows at most. */
#ifndef DCN_CONNECTIVITY_H
#define DCN_CONNECTIVITY_H

#include <stdint.h>

#include "graph.h"

/* What dcn_vertex_connectivity accepts: it runs up to n + d^2/2 max-flows
 * over 2n + 4m arcs, so these keep it to minutes and megabytes (BCube
 * n=8 k=3: 4096 vertices, 57344 edges; B_10: 5120 and 46080). */
#define DCN_CONN_MAX_VERTICES 8192
#define DCN_CONN_MAX_EDGES (1u << 18)

typedef struct dcn_conn {
    uint32_t kappa;      /* the vertex connectivity */
    uint32_t degree_min; /* the least degree, an upper bound of kappa */
    uint32_t a, b;       /* two vertices kappa vertices separate; DCN_NONE when the graph is complete */
    uint32_t flows;      /* max-flows run */
} dcn_conn;

/* kappa of g and, in cut_out (n entries, or NULL), kappa vertices whose
 * removal separates a from b, in increasing order (for a complete graph,
 * the neighbours of a vertex of least degree). 0; -1 when out of memory;
 * -2 when g has more than DCN_CONN_MAX_VERTICES vertices or
 * DCN_CONN_MAX_EDGES edges. */
int dcn_vertex_connectivity(const dcn_graph *g, dcn_conn *out, uint32_t *cut_out);

#endif
