#include "mdcube_geom.h"

void md_geom_init(md_geom *g, const dcn_params *p)
{
    long sizes[DCN_MAX_DIMS];
    g->n = (uint32_t)dcn_param(p, "n");
    g->k = (uint32_t)dcn_param(p, "k");
    g->dims = (uint32_t)dcn_param_dims(p, "m", sizes);
    bc_dims_init(&g->bc, g->n, g->k);
    g->t = g->bc.pow[g->k + 1];
    g->g = (g->k + 1) * g->bc.pow[g->k];
    g->G = 0;
    g->M = 1;
    for (uint32_t d = 0; d < g->dims; d++) {
        g->m[d] = (uint32_t)sizes[d];
        g->stride[d] = g->M;
        g->off[d] = g->G;
        g->M *= g->m[d];
        g->G += g->m[d] - 1;
    }
    g->copies = g->g / g->G;
}

int md_get_link(const md_geom *g, uint32_t c1, uint32_t c2, uint32_t copy, uint32_t *bw1, uint32_t *bw2)
{
    int dim = -1;
    for (uint32_t d = 0; d < g->dims; d++) {
        if (md_coord(g, c1, d) == md_coord(g, c2, d))
            continue;
        if (dim >= 0)
            return -1;
        dim = (int)d;
    }
    if (dim < 0 || copy >= g->copies)
        return -1;
    uint32_t x = md_coord(g, c1, (uint32_t)dim), y = md_coord(g, c2, (uint32_t)dim);
    *bw1 = md_link_switch(g, (uint32_t)dim, x, y, copy);
    *bw2 = md_link_switch(g, (uint32_t)dim, y, x, copy);
    return dim;
}

int md_switch_peer(const md_geom *g, uint32_t c, uint32_t bwid, uint32_t *peer_c, uint32_t *peer_bwid)
{
    if (bwid >= g->copies * g->G)
        return -1;
    uint32_t copy = bwid / g->G, r = bwid % g->G;
    for (uint32_t d = 0; d < g->dims; d++) {
        if (r >= g->off[d] + g->m[d] - 1)
            continue;
        uint32_t x = md_coord(g, c, d), idx = r - g->off[d];
        uint32_t y = idx < x ? idx : idx + 1;
        *peer_c = md_set_coord(g, c, d, y);
        *peer_bwid = md_link_switch(g, d, y, x, copy);
        return (int)d;
    }
    return -1;
}
