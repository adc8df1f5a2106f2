/* Where to draw each node of a topology, the way its paper draws it: a
 * point per node and boxes around the natural units (an MDCube container, a
 * BCube_(k-1), an HCN(n,1) ring), for `dcn-topo export` and the live view.
 *
 * Coordinates are in layout units (neighbouring servers of a row are
 * DCN_LAYOUT_PITCH apart), x to the right, y growing downward, so switches
 * of higher levels get smaller y. Every node and box lies inside
 * [0, width] x [0, height]; coordinates are rounded to 1/100 unit, as the
 * export prints them. A family draws itself with its `layout` hook
 * (family.h); without one, dcn_layout_generic() draws it. */
#ifndef DCN_LAYOUT_H
#define DCN_LAYOUT_H

#include <stdint.h>

#include "topo.h"

#define DCN_LAYOUT_PITCH 10.0  /* between neighbouring servers of a row */
#define DCN_LAYOUT_ROW 40.0    /* between a row of switches and the row below */
#define DCN_LAYOUT_MARGIN 20.0 /* around the whole drawing */
#define DCN_GROUP_NAME_MAX 48

typedef struct dcn_layout_group {
    char name[DCN_GROUP_NAME_MAX]; /* "container 0", "BCube_0 3", ... */
    double x, y, w, h;             /* top-left corner, width, height */
} dcn_layout_group;

typedef struct dcn_layout {
    double width, height;
    double *x, *y; /* by node id */
    dcn_layout_group *groups;
    uint32_t n_groups;
    uint32_t cap_groups;
} dcn_layout;

/* Draws t: the family's hook, or dcn_layout_generic(). Returns 0, or -1
 * when out of memory (lay is then empty). Time and memory are linear in
 * the nodes, links and boxes. */
int dcn_layout_compute(const dcn_topo *t, dcn_layout *lay);
void dcn_layout_free(dcn_layout *lay);

/* For the families' hooks, which find lay->x and lay->y allocated for every
 * node and may draw around any origin (dcn_layout_compute() then moves the
 * drawing to the margin and sets width and height). */

/* The fallback: servers in one row in id order; above them one row of
 * switches per distance from the servers (the switches cabled to a server,
 * then those one switch further, ...), each row spread evenly over the
 * width in id order. No boxes. */
int dcn_layout_generic(const dcn_topo *t, dcn_layout *lay);
/* Rings, as the drawings of complete graphs of units use them: item j of
 * count sits at this angle (radians; item 0 just past the left on the
 * upper half, then clockwise, y growing downward) ... */
double dcn_layout_ring_angle(uint32_t j, uint32_t count);
/* ... at this distance from the ring's centre, so that two neighbouring
 * items, each within reach of its own centre, stay gap apart (count >= 2). */
double dcn_layout_ring_radius(double reach, double gap, uint32_t count);
/* Adds a box named by the printf-style fmt. Returns 0, or -1 when out of memory. */
int dcn_layout_add_group(dcn_layout *lay, double x, double y, double w, double h, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

#endif
