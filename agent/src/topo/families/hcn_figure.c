#include "hcn_figure.h"

#include <math.h>
#include <stdio.h>

#include "hcn_label.h"

#define UNIT_GAP DCN_LAYOUT_ROW /* between the circles of two units */

typedef struct rings {
    const hcn_dims *d;
    double r1;                    /* radius of a level-1 unit's circle of masters (HCN: all servers) */
    double r_switch;              /* its switches' circle */
    double r_slave;               /* BCN: its slaves' circle, outside the switches */
    double half_box;              /* a box reaches this far from its unit's centre, in x and in y */
    double reach[HCN_MAX_H + 1];  /* level-i unit: its nodes and boxes within this of its centre */
    double spread[HCN_MAX_H + 1]; /* level i >= 2: its sub-units' centres, this far from its centre */
    double copy_spread;           /* the copies' centres, this far from the drawing's centre */
} rings;

static void add_polar(double r, double angle, double *x, double *y)
{
    *x += r * cos(angle);
    *y += r * sin(angle);
}

static void rings_init(rings *g, const hcn_dims *d)
{
    g->d = d;
    /* each circle long enough for its servers DCN_LAYOUT_PITCH apart */
    double masters = (double)d->alpha * d->alpha, slaves = (double)d->alpha * d->beta;
    g->r1 = fmax(masters * DCN_LAYOUT_PITCH / (2 * M_PI), DCN_LAYOUT_ROW / 2);
    g->r_switch = g->r1 + DCN_LAYOUT_ROW;
    g->r_slave = fmax(g->r_switch + DCN_LAYOUT_ROW, slaves * DCN_LAYOUT_PITCH / (2 * M_PI));
    if (d->h == 0) /* the module: servers ROW/2 below its centre, the switch ROW/2 above */
        g->half_box = hypot((d->n - 1) * DCN_LAYOUT_PITCH / 2, DCN_LAYOUT_ROW / 2) + DCN_LAYOUT_PITCH / 2;
    else /* the level-1 unit's outermost circle */
        g->half_box = (d->beta ? g->r_slave : g->r_switch) + DCN_LAYOUT_PITCH / 2;
    g->reach[d->h ? 1 : 0] = g->half_box * M_SQRT2; /* the box's corners */
    for (uint32_t i = 2; i <= d->h; i++) {
        g->spread[i] = dcn_layout_ring_radius(g->reach[i - 1], UNIT_GAP, d->alpha);
        g->reach[i] = g->spread[i] + g->reach[i - 1];
    }
    g->copy_spread = d->copies > 1 ? dcn_layout_ring_radius(g->reach[d->h], UNIT_GAP, d->copies) : 0;
}

/* Centre of the level-1 unit (the module when h = 0) holding label l. */
static void unit_centre(const rings *g, const hcn_label *l, double *x, double *y)
{
    *x = *y = 0;
    if (g->d->copies > 1)
        add_polar(g->copy_spread, dcn_layout_ring_angle(l->u - 1, g->d->copies), x, y);
    for (uint32_t i = g->d->h; i >= 2; i--)
        add_polar(g->spread[i], dcn_layout_ring_angle(l->x[i] - 1u, g->d->alpha), x, y);
}

static void place_server(const rings *g, uint32_t id, double *x, double *y)
{
    const hcn_dims *d = g->d;
    hcn_label l;
    hcn_server_label(d, id, &l);
    unit_centre(g, &l, x, y);
    if (d->h == 0) {
        *x += ((l.x[0] - 1.0) - (d->n - 1) / 2.0) * DCN_LAYOUT_PITCH;
        *y += DCN_LAYOUT_ROW / 2;
        return;
    }
    uint32_t module = l.x[1] - 1u;
    if (hcn_is_master(d, &l))
        add_polar(g->r1, dcn_layout_ring_angle(module * d->alpha + (l.x[0] - 1u), d->alpha * d->alpha), x, y);
    else
        add_polar(g->r_slave, dcn_layout_ring_angle(module * d->beta + (l.x[0] - 1u - d->alpha), d->alpha * d->beta),
                  x, y);
}

static void place_switch(const rings *g, uint32_t index, double *x, double *y)
{
    const hcn_dims *d = g->d;
    hcn_label l;
    hcn_switch_label(d, index, &l);
    unit_centre(g, &l, x, y);
    if (d->h == 0)
        *y -= DCN_LAYOUT_ROW / 2;
    else
        add_polar(g->r_switch, dcn_layout_ring_angle(l.x[1] - 1u, d->alpha), x, y);
}

/* "HCN(4,1) 3", "BCN(4,4,1) u=2 3": the unit's kind, copy and label prefix x_h..x_2. */
static void unit_name(const hcn_dims *d, const hcn_label *l, char *buf, size_t len)
{
    uint32_t level = d->h ? 1 : 0;
    size_t off = (size_t)(d->beta ? snprintf(buf, len, "BCN(%u,%u,%u)", d->alpha, d->beta, level)
                                  : snprintf(buf, len, "HCN(%u,%u)", d->n, level));
    if (d->copies > 1 && off < len)
        off += (size_t)snprintf(buf + off, len - off, " u=%u", l->u);
    for (uint32_t i = d->h; i >= 2 && off < len; i--)
        off += (size_t)snprintf(buf + off, len - off, "%s%u", i == d->h ? " " : d->alpha > 9 ? "." : "", l->x[i]);
}

int hcn_figure_layout(const dcn_topo *t, dcn_layout *lay)
{
    const hcn_dims *d = hcn_dims_of(t);
    rings g;
    rings_init(&g, d);
    for (uint32_t v = 0; v < t->n_servers; v++)
        place_server(&g, v, &lay->x[v], &lay->y[v]);
    double r = g.half_box;
    for (uint32_t w = 0; w < t->n_switches; w++) {
        uint32_t v = t->n_servers + w;
        place_switch(&g, w, &lay->x[v], &lay->y[v]);
        if (d->h && w % d->alpha) /* one box per level-1 unit: at its first switch */
            continue;
        hcn_label l;
        char name[DCN_GROUP_NAME_MAX];
        double cx, cy;
        hcn_switch_label(d, w, &l);
        unit_centre(&g, &l, &cx, &cy);
        unit_name(d, &l, name, sizeof name);
        if (dcn_layout_add_group(lay, cx - r, cy - r, 2 * r, 2 * r, "%s", name) < 0)
            return -1;
    }
    return 0;
}
