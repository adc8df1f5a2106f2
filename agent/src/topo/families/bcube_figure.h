/* BCube drawn as the paper's Fig. 1 (BCube, SIGCOMM 2009): the servers in
 * one row at the bottom in address order, the switches of level l in the
 * row above level l-1, each row spread evenly over the servers' width, so
 * that a level-0 switch sits centred above its n servers and the switches
 * of a BCube_(k-1) above its servers. The MDCube figure draws each of its
 * containers with the same functions. Node numbering is bcube_layout.h's. */
#ifndef DCN_BCUBE_FIGURE_H
#define DCN_BCUBE_FIGURE_H

#include <stdint.h>

#include "layout.h"
#include "bcube_addr.h"

typedef struct bcube_figure {
    const bc_dims *d;
    uint32_t parts;       /* BCube_(k-1)s present (n: the full BCube) */
    double width, height; /* nodes lie in [0, width] x [0, height] */
} bcube_figure;

void bcube_figure_init(bcube_figure *f, const bc_dims *d, uint32_t parts);
/* Where server a and the switch of bc_dims index sw (level*n^k + label)
 * go, relative to the figure's top-left corner. */
void bcube_figure_server(const bcube_figure *f, uint32_t a, double *x, double *y);
void bcube_figure_switch(const bcube_figure *f, uint32_t sw, double *x, double *y);

/* The bcube family's layout hook: the figure, and a box around each
 * BCube_(k-1) (its servers and its switches below level k) when k >= 1. */
int bcube_figure_layout(const dcn_topo *t, dcn_layout *lay);

#endif
