#include "connectivity.h"
#include "scratch.h"
#include "vertex_flow.h"

#include <string.h>

/* The s-t paths counted up to the least value so far; fewer become the
 * least, with their pair and separator. */
static void try_pair(dcn_vflow *w, uint32_t s, uint32_t t, dcn_conn *out, uint32_t *cut_out)
{
    out->flows++;
    uint32_t k = dcn_vflow_paths(w, s, t, out->kappa);
    if (k >= out->kappa)
        return;
    out->kappa = k;
    out->a = s;
    out->b = t;
    if (cut_out)
        dcn_vflow_separator(w, cut_out);
}

static uint32_t least_degree_vertex(const dcn_graph *g)
{
    uint32_t v = 0;
    for (uint32_t u = 1; u < g->n; u++)
        if (dcn_graph_degree(g, u) < dcn_graph_degree(g, v))
            v = u;
    return v;
}

int dcn_vertex_connectivity(const dcn_graph *g, dcn_conn *out, uint32_t *cut_out)
{
    memset(out, 0, sizeof *out);
    out->a = out->b = DCN_NONE;
    if (g->n > DCN_CONN_MAX_VERTICES || g->m > DCN_CONN_MAX_EDGES)
        return -2;
    if (g->n == 0)
        return 0;
    uint32_t v = least_degree_vertex(g), d = dcn_graph_degree(g, v);
    const uint32_t *nb = g->adj + g->off[v];
    uint8_t *near = dcn_tmp_calloc(g->n, 1);
    dcn_vflow w;
    if (!near || dcn_vflow_init(&w, g) < 0) {
        dcn_tmp_free(near);
        return -1;
    }
    /* Until a pair needs fewer: v's d neighbours cut it off from the others. */
    out->kappa = out->degree_min = d;
    if (cut_out)
        memcpy(cut_out, nb, (size_t)d * sizeof *cut_out);
    near[v] = 1;
    for (uint32_t i = 0; i < d; i++)
        near[nb[i]] = 1;
    for (uint32_t u = 0; u < g->n && out->a == DCN_NONE; u++)
        if (!near[u]) {
            out->a = v;
            out->b = u;
        }
    for (uint32_t u = 0; u < g->n && out->kappa > 0; u++)
        if (!near[u])
            try_pair(&w, v, u, out, cut_out);
    for (uint32_t i = 0; i < d && out->kappa > 0; i++)
        for (uint32_t j = i + 1; j < d && out->kappa > 0; j++)
            if (!dcn_graph_adjacent(g, nb[i], nb[j]))
                try_pair(&w, nb[i], nb[j], out, cut_out);
    dcn_vflow_free(&w);
    dcn_tmp_free(near);
    return 0;
}
