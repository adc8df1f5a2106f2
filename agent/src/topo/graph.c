#include "graph.h"
#include "scratch.h"

#include <stdlib.h>
#include <string.h>

uint32_t dcn_graph_find(const dcn_graph *g, uint32_t a, uint32_t b)
{
    uint32_t lo = g->off[a], hi = g->off[a + 1];
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (g->adj[mid] == b)
            return mid - g->off[a];
        if (g->adj[mid] < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    return DCN_NONE;
}

void dcn_graph_free(dcn_graph *g)
{
    dcn_tmp_free(g->off);
    dcn_tmp_free(g->adj);
    g->off = g->adj = NULL;
    g->n = g->m = 0;
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* g->off holds the degrees shifted by one (off[v+1] = degree of v): makes
 * them offsets and allocates adj. 0, or -1 when out of memory. */
static int alloc_lists(dcn_graph *g)
{
    for (uint32_t v = 0; v < g->n; v++)
        g->off[v + 1] += g->off[v];
    g->adj = dcn_tmp_alloc(g->off[g->n] ? (size_t)g->off[g->n] * sizeof *g->adj : 1);
    return g->adj ? 0 : -1;
}

/* Sorts every list and drops repeated neighbours; sets m. */
static void sort_lists(dcn_graph *g)
{
    uint32_t w = 0;
    for (uint32_t v = 0; v < g->n; v++) {
        uint32_t start = g->off[v], end = g->off[v + 1];
        qsort(g->adj + start, end - start, sizeof *g->adj, by_id);
        g->off[v] = w;
        for (uint32_t i = start; i < end; i++)
            if (i == start || g->adj[i] != g->adj[i - 1])
                g->adj[w++] = g->adj[i];
    }
    g->off[g->n] = w;
    g->m = w / 2;
}

/* n vertices, no edge yet: 0, or -1 when out of memory (g empty). */
static int empty_graph(dcn_graph *g, uint32_t n)
{
    g->n = n;
    g->m = 0;
    g->adj = NULL;
    g->off = dcn_tmp_calloc((size_t)n + 1, sizeof *g->off);
    if (!g->off)
        g->n = 0;
    return g->off ? 0 : -1;
}

int dcn_graph_from_edges(dcn_graph *g, uint32_t n, const uint32_t *ends, uint32_t m)
{
    if (empty_graph(g, n) < 0)
        return -1;
    if (m > UINT32_MAX / 2) {
        dcn_graph_free(g);
        return -2;
    }
    for (uint32_t i = 0; i < m; i++) {
        uint32_t a = ends[2 * i], b = ends[2 * i + 1];
        if (a >= n || b >= n) {
            dcn_graph_free(g);
            return -2;
        }
        if (a != b) {
            g->off[a + 1]++;
            g->off[b + 1]++;
        }
    }
    if (alloc_lists(g) < 0) {
        dcn_graph_free(g);
        return -1;
    }
    uint32_t *fill = dcn_tmp_alloc(n ? (size_t)n * sizeof *fill : 1);
    if (!fill) {
        dcn_graph_free(g);
        return -1;
    }
    memcpy(fill, g->off, (size_t)n * sizeof *fill);
    for (uint32_t i = 0; i < m; i++) {
        uint32_t a = ends[2 * i], b = ends[2 * i + 1];
        if (a != b) {
            g->adj[fill[a]++] = b;
            g->adj[fill[b]++] = a;
        }
    }
    dcn_tmp_free(fill);
    sort_lists(g);
    return 0;
}

/* The servers u reaches over one cable or through switches, each once
 * (written to out unless NULL); mark[] == stamp means seen. Returns how many. */
static uint32_t server_neighbours(const dcn_topo *t, uint32_t u, uint32_t *mark, uint32_t stamp, uint32_t *stack,
                                  uint32_t *out)
{
    uint32_t sp = 0, count = 0;
    mark[u] = stamp;
    stack[sp++] = u;
    while (sp) {
        uint32_t v = stack[--sp];
        uint16_t np = dcn_nports(t, v);
        for (uint16_t p = 0; p < np; p++) {
            uint32_t w = dcn_peer(t, v, p).node;
            if (w == DCN_NONE || mark[w] == stamp)
                continue;
            mark[w] = stamp;
            if (dcn_kind(t, w) == DCN_SWITCH) {
                stack[sp++] = w;
            } else {
                if (out)
                    out[count] = w;
                count++;
            }
        }
    }
    return count;
}

int dcn_graph_of_servers(dcn_graph *g, const dcn_topo *t, uint32_t max_edges)
{
    uint32_t nn = dcn_n_nodes(t), ns = t->n_servers;
    if (empty_graph(g, ns) < 0)
        return -1;
    uint32_t *mark = dcn_tmp_alloc((size_t)nn * sizeof *mark);
    uint32_t *stack = dcn_tmp_alloc((size_t)nn * sizeof *stack);
    int rc = -1;
    if (!mark || !stack)
        goto done;
    /* Pass 1 counts (stamps 1 .. ns), pass 2 fills (stamps ns+1 .. 2ns). */
    memset(mark, 0, (size_t)nn * sizeof *mark);
    uint64_t ends = 0;
    for (uint32_t u = 0; u < ns; u++) {
        g->off[u + 1] = server_neighbours(t, u, mark, u + 1, stack, NULL);
        ends += g->off[u + 1];
        if (ends > 2 * (uint64_t)max_edges || ends > UINT32_MAX) {
            rc = -2;
            goto done;
        }
    }
    if (alloc_lists(g) < 0)
        goto done;
    for (uint32_t u = 0; u < ns; u++)
        server_neighbours(t, u, mark, ns + u + 1, stack, g->adj + g->off[u]);
    sort_lists(g);
    rc = 0;
done:
    if (rc < 0)
        dcn_graph_free(g);
    dcn_tmp_free(mark);
    dcn_tmp_free(stack);
    return rc;
}
