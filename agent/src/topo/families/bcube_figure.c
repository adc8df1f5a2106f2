#include "bcube_figure.h"

#include "bcube_layout.h"

void bcube_figure_init(bcube_figure *f, const bc_dims *d, uint32_t parts)
{
    f->d = d;
    f->parts = parts;
    f->width = (double)parts * d->pow[d->k] * DCN_LAYOUT_PITCH;
    f->height = (d->k + 1) * DCN_LAYOUT_ROW;
}

void bcube_figure_server(const bcube_figure *f, uint32_t a, double *x, double *y)
{
    *x = (a + 0.5) * DCN_LAYOUT_PITCH;
    *y = f->height;
}

void bcube_figure_switch(const bcube_figure *f, uint32_t sw, double *x, double *y)
{
    uint32_t k = f->d->k, level = bc_switch_level(f->d, sw), label = sw % f->d->pow[k];
    /* level k has n^k switches; a lower level parts*n^(k-1), the labels
     * whose top digit (the servers' a_k) is below parts */
    double in_row = level == k ? f->d->pow[k] : (double)f->parts * f->d->pow[k - 1];
    *x = (label + 0.5) * f->width / in_row;
    *y = (double)(k - level) * DCN_LAYOUT_ROW;
}

int bcube_figure_layout(const dcn_topo *t, dcn_layout *lay)
{
    const bcube_layout *bl = t->priv;
    bcube_figure f;
    bcube_figure_init(&f, &bl->d, bl->parts);
    for (uint32_t v = 0; v < t->n_servers; v++)
        bcube_figure_server(&f, v, &lay->x[v], &lay->y[v]);
    for (uint32_t v = t->n_servers; v < dcn_n_nodes(t); v++)
        bcube_figure_switch(&f, bcube_switch_index(bl, v), &lay->x[v], &lay->y[v]);
    uint32_t k = bl->d.k;
    if (k == 0)
        return 0;
    /* BCube_(k-1) j: servers j*n^k .. (j+1)*n^k - 1, the rows of levels 0..k-1 above them */
    double w = bl->d.pow[k] * DCN_LAYOUT_PITCH, pad = DCN_LAYOUT_PITCH / 4;
    double top = DCN_LAYOUT_ROW - DCN_LAYOUT_ROW / 4, bottom = f.height + DCN_LAYOUT_ROW / 4;
    for (uint32_t j = 0; j < bl->parts; j++)
        if (dcn_layout_add_group(lay, j * w + pad, top, w - 2 * pad, bottom - top, "BCube_%u %u", k - 1, j) < 0)
            return -1;
    return 0;
}
