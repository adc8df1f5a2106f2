#include "hcn_flow.h"
#include "scratch.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

/* Residual graph over split nodes: in(v) = 2v, out(v) = 2v+1. Edge e and
 * e^1 are a forward edge and its reverse. */
typedef struct flow_graph {
    uint32_t n_vertices, n_edges;
    uint32_t *head;  /* first edge of each vertex, or UINT32_MAX */
    uint32_t *next;  /* next edge of the same tail */
    uint32_t *to;
    int32_t *cap;
    int32_t *orig;   /* capacity before any flow (0 for reverse edges) */
} flow_graph;

static void add_edge(flow_graph *g, uint32_t a, uint32_t b, int32_t cap)
{
    uint32_t e = g->n_edges;
    g->to[e] = b;
    g->cap[e] = g->orig[e] = cap;
    g->next[e] = g->head[a];
    g->head[a] = e;
    g->to[e + 1] = a;
    g->cap[e + 1] = g->orig[e + 1] = 0;
    g->next[e + 1] = g->head[b];
    g->head[b] = e + 1;
    g->n_edges += 2;
}

static void graph_free(flow_graph *g)
{
    dcn_tmp_free(g->head);
    dcn_tmp_free(g->next);
    dcn_tmp_free(g->to);
    dcn_tmp_free(g->cap);
    dcn_tmp_free(g->orig);
}

static bool usable(const dcn_failures *f, const uint8_t *avoid, uint32_t v, uint32_t src, uint32_t dst)
{
    return dcn_node_ok(f, v) && (!avoid || !avoid[v] || v == src || v == dst);
}

static int graph_build(flow_graph *g, const dcn_topo *t, uint32_t src, uint32_t dst, const uint32_t *shared,
                       int n_shared, uint32_t want, const dcn_failures *f, const uint8_t *avoid)
{
    uint32_t n = dcn_n_nodes(t);
    uint64_t max_edges = 2 * ((uint64_t)n + t->port_base[n]);
    memset(g, 0, sizeof *g);
    g->n_vertices = 2 * n;
    g->head = dcn_tmp_alloc(g->n_vertices * sizeof *g->head);
    g->next = dcn_tmp_alloc(max_edges * sizeof *g->next);
    g->to = dcn_tmp_alloc(max_edges * sizeof *g->to);
    g->cap = dcn_tmp_alloc(max_edges * sizeof *g->cap);
    g->orig = dcn_tmp_alloc(max_edges * sizeof *g->orig);
    if (!g->head || !g->next || !g->to || !g->cap || !g->orig) {
        graph_free(g);
        return -1;
    }
    for (uint32_t v = 0; v < g->n_vertices; v++)
        g->head[v] = UINT32_MAX;
    for (uint32_t v = 0; v < n; v++) {
        if (!usable(f, avoid, v, src, dst))
            continue;
        int32_t cap = (v == src || v == dst) ? (int32_t)want : 1;
        for (int i = 0; i < n_shared; i++)
            if (shared[i] == v)
                cap = (int32_t)want;
        add_edge(g, 2 * v, 2 * v + 1, cap);
    }
    /* Edges are pushed at the head of each list; add ports in reverse so the
     * BFS visits them in port order. */
    for (uint32_t v = 0; v < n; v++) {
        if (!usable(f, avoid, v, src, dst))
            continue;
        for (uint16_t p = dcn_nports(t, v); p-- > 0;) {
            uint32_t w = dcn_peer(t, v, p).node;
            if (w != DCN_NONE && dcn_hop_ok(f, t, v, p) && usable(f, avoid, w, src, dst))
                add_edge(g, 2 * v + 1, 2 * w, (int32_t)want); /* nodes bound the flow */
        }
    }
    return 0;
}

/* One BFS augmentation from out(src) to in(dst); returns 1 when augmented. */
static int augment(flow_graph *g, uint32_t s, uint32_t sink, uint32_t *parent_edge, uint32_t *queue)
{
    for (uint32_t v = 0; v < g->n_vertices; v++)
        parent_edge[v] = UINT32_MAX;
    uint32_t head = 0, tail = 0;
    queue[tail++] = s;
    parent_edge[s] = UINT32_MAX - 1;
    while (head < tail && parent_edge[sink] == UINT32_MAX) {
        uint32_t v = queue[head++];
        for (uint32_t e = g->head[v]; e != UINT32_MAX; e = g->next[e]) {
            uint32_t w = g->to[e];
            if (g->cap[e] > 0 && parent_edge[w] == UINT32_MAX) {
                parent_edge[w] = e;
                queue[tail++] = w;
            }
        }
    }
    if (parent_edge[sink] == UINT32_MAX)
        return 0;
    for (uint32_t v = sink; v != s;) {
        uint32_t e = parent_edge[v];
        g->cap[e]--;
        g->cap[e ^ 1]++;
        v = g->to[e ^ 1];
    }
    return 1;
}

/* Follows one unit of flow from out(src) to in(dst), consuming it. */
static int take_path(flow_graph *g, uint32_t src, uint32_t dst, dcn_path *p)
{
    dcn_path_clear(p);
    dcn_path_push(p, src);
    uint32_t v = 2 * src + 1, steps = 0;
    while (v != 2 * dst) {
        uint32_t e = g->head[v];
        for (; e != UINT32_MAX; e = g->next[e])
            if (!(e & 1) && g->orig[e] - g->cap[e] > 0 && (g->to[e] & 1) == 0)
                break;
        if (e == UINT32_MAX || ++steps > g->n_vertices)
            return -1;
        g->cap[e]++; /* consume */
        uint32_t w = g->to[e] / 2;
        if (p->len < DCN_PATH_MAX)
            p->node[p->len] = w;
        p->len++;
        v = 2 * w + (w == dst ? 0 : 1);
    }
    if (p->len > DCN_PATH_MAX) {
        p->len = 0;
        return 0;
    }
    dcn_path_erase_loops(p);
    return 1;
}

int hcn_disjoint_paths(const dcn_topo *t, uint32_t src, uint32_t dst, const uint32_t *shared, int n_shared,
                       uint32_t want, const dcn_failures *f, const uint8_t *avoid, dcn_pathset *out)
{
    out->count = 0;
    if (want > DCN_PATHSET_MAX)
        want = DCN_PATHSET_MAX;
    if (src == dst || !dcn_node_ok(f, src) || !dcn_node_ok(f, dst) || want == 0)
        return 0;
    flow_graph g;
    if (graph_build(&g, t, src, dst, shared, n_shared, want, f, avoid) < 0)
        return -1;
    uint32_t *parent = dcn_tmp_alloc(g.n_vertices * sizeof *parent);
    uint32_t *queue = dcn_tmp_alloc(g.n_vertices * sizeof *queue);
    if (!parent || !queue) {
        dcn_tmp_free(parent);
        dcn_tmp_free(queue);
        graph_free(&g);
        return -1;
    }
    uint32_t flow = 0;
    while (flow < want && augment(&g, 2 * src + 1, 2 * dst, parent, queue))
        flow++;
    for (uint32_t i = 0; i < flow; i++) {
        dcn_path *p = &out->path[out->count];
        if (take_path(&g, src, dst, p) == 1)
            out->count++;
    }
    dcn_pathset_sort(out); /* shortest first */
    dcn_tmp_free(parent);
    dcn_tmp_free(queue);
    graph_free(&g);
    return (int)out->count;
}
