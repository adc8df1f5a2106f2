#include "layout.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "family.h"

void dcn_layout_free(dcn_layout *lay)
{
    free(lay->x);
    free(lay->y);
    free(lay->groups);
    memset(lay, 0, sizeof *lay);
}

int dcn_layout_add_group(dcn_layout *lay, double x, double y, double w, double h, const char *fmt, ...)
{
    if (lay->n_groups == lay->cap_groups) {
        uint32_t cap = lay->cap_groups ? 2 * lay->cap_groups : 16;
        dcn_layout_group *g = realloc(lay->groups, cap * sizeof *g);
        if (!g)
            return -1;
        lay->groups = g;
        lay->cap_groups = cap;
    }
    dcn_layout_group *g = &lay->groups[lay->n_groups++];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(g->name, sizeof g->name, fmt, ap);
    va_end(ap);
    g->x = x;
    g->y = y;
    g->w = w;
    g->h = h;
    return 0;
}

double dcn_layout_ring_angle(uint32_t j, uint32_t count) { return M_PI + (2.0 * j + 1.0) * M_PI / count; }

double dcn_layout_ring_radius(double reach, double gap, uint32_t count)
{
    return (reach + gap / 2) / sin(M_PI / count);
}

/* 1 + the switch hops from the nearest server (1: cabled to a server), by
 * one breadth-first search from all those switches at once; switches no
 * server reaches get the level above the highest. Returns the highest
 * level, or 0 when out of memory. */
static uint32_t switch_levels(const dcn_topo *t, uint32_t *level)
{
    uint32_t ns = t->n_servers, nw = t->n_switches, head = 0, tail = 0, top = 1;
    uint32_t *queue = malloc((nw ? nw : 1) * sizeof *queue);
    if (!queue)
        return 0;
    for (uint32_t w = 0; w < nw; w++) {
        uint32_t v = ns + w;
        level[w] = 0;
        for (uint16_t p = 0; p < dcn_nports(t, v) && !level[w]; p++) {
            dcn_end e = dcn_peer(t, v, p);
            if (e.node != DCN_NONE && dcn_kind(t, e.node) == DCN_SERVER) {
                level[w] = 1;
                queue[tail++] = w;
            }
        }
    }
    while (head < tail) {
        uint32_t w = queue[head++], v = ns + w;
        for (uint16_t p = 0; p < dcn_nports(t, v); p++) {
            dcn_end e = dcn_peer(t, v, p);
            if (e.node == DCN_NONE || dcn_kind(t, e.node) != DCN_SWITCH || level[e.node - ns])
                continue;
            level[e.node - ns] = level[w] + 1;
            if (level[w] + 1 > top)
                top = level[w] + 1;
            queue[tail++] = e.node - ns;
        }
    }
    free(queue);
    int unreached = 0;
    for (uint32_t w = 0; w < nw; w++)
        if (!level[w]) {
            level[w] = top + 1;
            unreached = 1;
        }
    return top + (uint32_t)unreached;
}

int dcn_layout_generic(const dcn_topo *t, dcn_layout *lay)
{
    uint32_t ns = t->n_servers, nw = t->n_switches;
    uint32_t *level = malloc((nw ? nw : 1) * sizeof *level);
    uint32_t top = level ? switch_levels(t, level) : 0;
    /* count[l]: switches in row l; placed[l]: those already placed */
    uint32_t *count = top ? calloc(2 * ((size_t)top + 1), sizeof *count) : NULL;
    if (!count) {
        free(level);
        return -1;
    }
    uint32_t *placed = count + top + 1, widest = ns;
    for (uint32_t w = 0; w < nw; w++)
        if (++count[level[w]] > widest)
            widest = count[level[w]];
    double width = widest * DCN_LAYOUT_PITCH;
    for (uint32_t v = 0; v < ns; v++) {
        lay->x[v] = (v + 0.5) * width / ns;
        lay->y[v] = 0;
    }
    for (uint32_t w = 0; w < nw; w++) {
        uint32_t l = level[w];
        lay->x[ns + w] = (placed[l]++ + 0.5) * width / count[l];
        lay->y[ns + w] = -(double)l * DCN_LAYOUT_ROW;
    }
    free(level);
    free(count);
    return 0;
}

static double round_cent(double v) { return round(v * 100.0) / 100.0; }

/* Moves the drawing so that it starts at the margin, rounds it as the
 * export prints it and sets width and height. */
static void fit(dcn_layout *lay, uint32_t n)
{
    double x0 = INFINITY, y0 = INFINITY, x1 = -INFINITY, y1 = -INFINITY;
    for (uint32_t v = 0; v < n; v++) {
        x0 = fmin(x0, lay->x[v]);
        x1 = fmax(x1, lay->x[v]);
        y0 = fmin(y0, lay->y[v]);
        y1 = fmax(y1, lay->y[v]);
    }
    for (uint32_t i = 0; i < lay->n_groups; i++) {
        const dcn_layout_group *g = &lay->groups[i];
        x0 = fmin(x0, g->x);
        x1 = fmax(x1, g->x + g->w);
        y0 = fmin(y0, g->y);
        y1 = fmax(y1, g->y + g->h);
    }
    if (x0 > x1) /* nothing to draw */
        x0 = x1 = y0 = y1 = 0;
    double dx = DCN_LAYOUT_MARGIN - x0, dy = DCN_LAYOUT_MARGIN - y0;
    for (uint32_t v = 0; v < n; v++) {
        lay->x[v] = round_cent(lay->x[v] + dx);
        lay->y[v] = round_cent(lay->y[v] + dy);
    }
    for (uint32_t i = 0; i < lay->n_groups; i++) {
        dcn_layout_group *g = &lay->groups[i];
        double gx1 = round_cent(g->x + g->w + dx), gy1 = round_cent(g->y + g->h + dy);
        g->x = round_cent(g->x + dx);
        g->y = round_cent(g->y + dy);
        g->w = gx1 - g->x;
        g->h = gy1 - g->y;
    }
    lay->width = round_cent(x1 - x0 + 2 * DCN_LAYOUT_MARGIN);
    lay->height = round_cent(y1 - y0 + 2 * DCN_LAYOUT_MARGIN);
}

int dcn_layout_compute(const dcn_topo *t, dcn_layout *lay)
{
    memset(lay, 0, sizeof *lay);
    uint32_t n = dcn_n_nodes(t);
    lay->x = malloc((n ? n : 1) * sizeof *lay->x);
    lay->y = malloc((n ? n : 1) * sizeof *lay->y);
    int rc = -1;
    if (lay->x && lay->y)
        rc = t->family->layout ? t->family->layout(t, lay) : dcn_layout_generic(t, lay);
    if (rc < 0) {
        dcn_layout_free(lay);
        return -1;
    }
    fit(lay, n);
    return 0;
}
