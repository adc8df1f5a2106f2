#include "bcdc_figure.h"

#include <math.h>

#include "bcdc_route.h"

/* Switch x: bit 2i of its address moves it 6^i ROW to the right (bit 0
 * also ROW/4 down), bit 2i+1 6^i ROW down and, for i >= 1, 6^i ROW / 2^i
 * to the right. */
static void place_switch(uint32_t x, unsigned n, double *px, double *py)
{
    double step = DCN_LAYOUT_ROW, skew = 0;
    *px = *py = 0;
    for (unsigned i = 0; i < n; i++) {
        if ((x >> i) & 1u) {
            *px += i % 2 ? step * skew : step;
            *py += i % 2 ? step : i == 0 ? step / 4 : 0;
        }
        if (i % 2) {
            step *= 6;
            skew = skew > 0 ? skew / 2 : 0.5;
        }
    }
}

int bcdc_figure_layout(const dcn_topo *t, dcn_layout *lay)
{
    const bcdc_state *st = t->priv;
    for (uint32_t x = 0; x < t->n_switches; x++) {
        uint32_t v = t->n_servers + x;
        place_switch(x, st->n, &lay->x[v], &lay->y[v]);
    }
    for (uint32_t s = 0; s < t->n_servers; s++) {
        uint32_t a = t->n_servers + bcdc_s0(st, s), b = t->n_servers + bcdc_s1(st, s);
        lay->x[s] = (2 * lay->x[a] + lay->x[b]) / 3;
        lay->y[s] = (2 * lay->y[a] + lay->y[b]) / 3;
    }
    /* the halves: the switches whose top bit is 0, then 1, and their servers between them */
    unsigned top = st->n - 1;
    for (uint32_t half = 0; half < 2; half++) {
        double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
        for (uint32_t x = half << top; x < (half + 1) << top; x++) {
            uint32_t v = t->n_servers + x;
            x0 = fmin(x0, lay->x[v]);
            x1 = fmax(x1, lay->x[v]);
            y0 = fmin(y0, lay->y[v]);
            y1 = fmax(y1, lay->y[v]);
        }
        double pad = DCN_LAYOUT_PITCH / 2;
        if (dcn_layout_add_group(lay, x0 - pad, y0 - pad, x1 - x0 + 2 * pad, y1 - y0 + 2 * pad, "B_%u^%u", top,
                                 half) < 0)
            return -1;
    }
    return 0;
}
