#include "mdcube_figure.h"

#include <math.h>

#include "bcube_figure.h"
#include "mdcube_geom.h"

#define CONTAINER_GAP (2 * DCN_LAYOUT_ROW) /* between two containers' boxes */

/* Coordinate d of container c, 0 for a dimension the MDCube lacks. */
static uint32_t coord(const md_geom *g, uint32_t c, uint32_t d) { return d < g->dims ? md_coord(g, c, d) : 0; }
static uint32_t dim_size(const md_geom *g, uint32_t d) { return d < g->dims ? g->m[d] : 1; }

/* Top-left corner of container c's box (box_w x box_h). */
static void box_corner(const md_geom *g, uint32_t c, double box_w, double box_h, double *x, double *y)
{
    if (g->dims == 1 && g->m[0] >= 3) { /* a ring: the box centres on a circle */
        double reach = hypot(box_w, box_h) / 2;
        double r = dcn_layout_ring_radius(reach, CONTAINER_GAP, g->m[0]), a = dcn_layout_ring_angle(c, g->m[0]);
        *x = r * cos(a) - box_w / 2;
        *y = r * sin(a) - box_h / 2;
        return;
    }
    uint32_t col = coord(g, c, 0) + dim_size(g, 0) * coord(g, c, 2);
    uint32_t row = coord(g, c, 1) + dim_size(g, 1) * coord(g, c, 3);
    *x = col * (box_w + CONTAINER_GAP);
    *y = row * (box_h + CONTAINER_GAP);
}

int mdcube_figure_layout(const dcn_topo *t, dcn_layout *lay)
{
    const md_geom *g = t->priv;
    bcube_figure f;
    bcube_figure_init(&f, &g->bc, g->n);
    /* each container's box: its figure and a pad all round */
    double pad = DCN_LAYOUT_ROW / 4, box_w = f.width + 2 * pad, box_h = f.height + 2 * pad;
    for (uint32_t c = 0; c < g->M; c++) {
        double ox, oy;
        box_corner(g, c, box_w, box_h, &ox, &oy);
        for (uint32_t a = 0; a < g->t; a++) {
            uint32_t v = md_server_node(g, c, a);
            bcube_figure_server(&f, a, &lay->x[v], &lay->y[v]);
            lay->x[v] += ox + pad;
            lay->y[v] += oy + pad;
        }
        for (uint32_t bw = 0; bw < g->g; bw++) {
            uint32_t v = md_switch_node(g, t->n_servers, c, bw);
            bcube_figure_switch(&f, bw, &lay->x[v], &lay->y[v]);
            lay->x[v] += ox + pad;
            lay->y[v] += oy + pad;
        }
        if (dcn_layout_add_group(lay, ox, oy, box_w, box_h, "container %u", c) < 0)
            return -1;
    }
    return 0;
}
