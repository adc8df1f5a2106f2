/* An undirected simple graph over plain vertices 0 .. n-1, its neighbour
 * lists sorted (compressed rows), for questions about a whole graph
 * (connectivity.h). Made from a list of edges, or as a topology's server
 * graph: vertex v is server v, and two servers are adjacent when one cable
 * or a chain of switches joins them (the graph dcn_bfs_server_tree
 * searches), so switches are not vertices. */
#ifndef DCN_GRAPH_H
#define DCN_GRAPH_H

#include <stdint.h>

#include "topo.h"

typedef struct dcn_graph {
    uint32_t n;    /* vertices */
    uint32_t m;    /* edges */
    uint32_t *off; /* n+1 entries: v's neighbours are adj[off[v]] .. adj[off[v+1]-1] */
    uint32_t *adj; /* 2m entries, each vertex's in increasing order */
} dcn_graph;

static inline uint32_t dcn_graph_degree(const dcn_graph *g, uint32_t v) { return g->off[v + 1] - g->off[v]; }

/* The position of b in a's neighbour list (0 for the first), or DCN_NONE
 * when a and b are not adjacent (a binary search). */
uint32_t dcn_graph_find(const dcn_graph *g, uint32_t a, uint32_t b);
static inline int dcn_graph_adjacent(const dcn_graph *g, uint32_t a, uint32_t b)
{
    return dcn_graph_find(g, a, b) != DCN_NONE;
}

/* The graph on n vertices with the m edges {ends[2i], ends[2i+1]}; loops
 * and repeated edges are dropped. 0; -1 when out of memory; -2 when an end
 * is not below n (g is then empty: dcn_graph_free is still safe). */
int dcn_graph_from_edges(dcn_graph *g, uint32_t n, const uint32_t *ends, uint32_t m);

/* t's server graph. 0; -1 when out of memory; -2 when it has more than
 * max_edges edges (found without building it; g is then empty). */
int dcn_graph_of_servers(dcn_graph *g, const dcn_topo *t, uint32_t max_edges);

void dcn_graph_free(dcn_graph *g);

#endif
