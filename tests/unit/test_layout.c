/* The drawing `dcn-topo export` prints (layout.h): every registered family,
 * at a small and a middling size, has every node on a finite point inside
 * the canvas and no two nodes on one point; and the papers' figures hold:
 * BCube's rows (Fig. 1), MDCube's containers in disjoint boxes, the tree's
 * layers, HCN/BCN's units and BCDC's halves in their boxes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "topo/families/bcdc_route.h"
#include "topo/families/bcube_layout.h"
#include "topo/families/hcn_label.h"
#include "topo/families/mdcube_geom.h"
#include "topo/layout.h"

/* Each family's small and middling instance; a family missing here is
 * drawn with its defaults. */
static const struct {
    const char *family, *small, *middling;
} sizes[] = {
    {"bcube", "bcube n=4 k=1", "bcube n=4 k=3"},
    {"mdcube", "mdcube n=2 k=1 m=5", "mdcube n=3 k=2 m=3x4"},
    {"hcn", "hcn n=4 h=1", "hcn n=4 h=3"},
    {"bcn", "bcn alpha=4 beta=4 h=1 gamma=0", "bcn alpha=3 beta=2 h=2 gamma=1"},
    {"bcdc", "bcdc n=3", "bcdc n=7"},
    {"tree", "tree leaves=2 per_leaf=3", "tree leaves=16 per_leaf=24"},
    {"dcell", "dcell n=2 k=1", "dcell n=4 k=2"},
    {"fattree", "fattree k=4", "fattree k=12"},
    {"ficonn", "ficonn n=4 k=1", "ficonn n=8 k=2"},
};
#define N_SIZES (sizeof sizes / sizeof sizes[0])

static void draw(const char *spec, dcn_topo *t, dcn_layout *lay)
{
    tu_build(t, spec);
    ck_assert_msg(dcn_layout_compute(t, lay) == 0, "%s: dcn_layout_compute failed", spec);
}

static void undraw(dcn_topo *t, dcn_layout *lay)
{
    dcn_layout_free(lay);
    dcn_topo_free(t);
}

static int inside(double x, double y, const dcn_layout_group *g)
{
    const double eps = 1e-6;
    return x >= g->x - eps && x <= g->x + g->w + eps && y >= g->y - eps && y <= g->y + g->h + eps;
}

static int disjoint(const dcn_layout_group *a, const dcn_layout_group *b)
{
    return a->x + a->w < b->x || b->x + b->w < a->x || a->y + a->h < b->y || b->y + b->h < a->y;
}

/* No two unit boxes of the drawing overlap. */
static void check_boxes_apart(const char *spec, const dcn_layout *lay)
{
    for (uint32_t i = 0; i < lay->n_groups; i++)
        for (uint32_t j = i + 1; j < lay->n_groups; j++)
            ck_assert_msg(disjoint(&lay->groups[i], &lay->groups[j]), "%s: boxes '%s' and '%s' overlap", spec,
                          lay->groups[i].name, lay->groups[j].name);
}

static void check_on_canvas(const char *spec, const dcn_topo *t, const dcn_layout *lay)
{
    ck_assert_msg(isfinite(lay->width) && isfinite(lay->height) && lay->width > 0 && lay->height > 0,
                  "%s: canvas %g x %g", spec, lay->width, lay->height);
    for (uint32_t v = 0; v < dcn_n_nodes(t); v++) {
        double x = lay->x[v], y = lay->y[v];
        TU_CHECK(isfinite(x) && isfinite(y) && x >= 0 && x <= lay->width && y >= 0 && y <= lay->height,
                 "%s: %s at (%g, %g), off the %g x %g canvas", spec, tu_name(t, v), x, y, lay->width, lay->height);
    }
    for (uint32_t i = 0; i < lay->n_groups; i++) {
        const dcn_layout_group *g = &lay->groups[i];
        TU_CHECK(g->name[0] && g->w >= 0 && g->h >= 0 && g->x >= 0 && g->y >= 0 && g->x + g->w <= lay->width + 1e-6 &&
                     g->y + g->h <= lay->height + 1e-6,
                 "%s: box '%s' (%g, %g, %g, %g) off the canvas", spec, g->name, g->x, g->y, g->w, g->h);
    }
}

static const dcn_layout *sorting; /* for by_point */

static int by_point(const void *a, const void *b)
{
    uint32_t u = *(const uint32_t *)a, v = *(const uint32_t *)b;
    if (sorting->x[u] != sorting->x[v])
        return sorting->x[u] < sorting->x[v] ? -1 : 1;
    if (sorting->y[u] != sorting->y[v])
        return sorting->y[u] < sorting->y[v] ? -1 : 1;
    return 0;
}

static void check_apart(const char *spec, const dcn_topo *t, const dcn_layout *lay)
{
    uint32_t n = dcn_n_nodes(t);
    uint32_t *order = malloc(n * sizeof *order);
    ck_assert_ptr_nonnull(order);
    for (uint32_t v = 0; v < n; v++)
        order[v] = v;
    sorting = lay;
    qsort(order, n, sizeof *order, by_point);
    for (uint32_t i = 1; i < n; i++) {
        uint32_t u = order[i - 1], v = order[i];
        if (lay->x[u] == lay->x[v] && lay->y[u] == lay->y[v]) {
            char first[DCN_NAME_MAX];
            snprintf(first, sizeof first, "%s", tu_name(t, u));
            ck_abort_msg("%s: %s and %s both at (%g, %g)", spec, first, tu_name(t, v), lay->x[v], lay->y[v]);
        }
    }
    free(order);
}

START_TEST(every_family_on_canvas_and_apart)
{
    int count;
    const dcn_family *const *all = dcn_families(&count);
    ck_assert_int_lt(_i, count);
    const char *name = all[_i]->name, *specs[2] = {name, name};
    for (size_t i = 0; i < N_SIZES; i++)
        if (strcmp(sizes[i].family, name) == 0) {
            specs[0] = sizes[i].small;
            specs[1] = sizes[i].middling;
        }
    for (int s = 0; s < 2; s++) {
        dcn_topo t;
        dcn_layout lay;
        draw(specs[s], &t, &lay);
        check_on_canvas(specs[s], &t, &lay);
        check_apart(specs[s], &t, &lay);
        undraw(&t, &lay);
    }
}
END_TEST

START_TEST(sizes_name_registered_families)
{
    for (size_t i = 0; i < N_SIZES; i++)
        ck_assert_msg(dcn_family_find(sizes[i].family), "no family %s: update the sizes table", sizes[i].family);
}
END_TEST

/* BCube Fig. 1: servers in one row in address order at the bottom; one row
 * per level, higher levels above; a level-0 switch above its servers. */
static void check_bcube(const char *spec)
{
    dcn_topo t;
    dcn_layout lay;
    draw(spec, &t, &lay);
    const bcube_layout *bl = t.priv;
    uint32_t k = bl->d.k;
    double row[BC_MAX_LEVELS];
    int seen[BC_MAX_LEVELS] = {0};
    for (uint32_t v = t.n_servers; v < dcn_n_nodes(&t); v++) {
        uint32_t l = bc_switch_level(&bl->d, bcube_switch_index(bl, v));
        if (!seen[l]) {
            row[l] = lay.y[v];
            seen[l] = 1;
        }
        ck_assert_msg(lay.y[v] == row[l], "%s: %s at y=%g, level %u's row is y=%g", spec, tu_name(&t, v), lay.y[v], l,
                      row[l]);
    }
    for (uint32_t l = 0; l <= k; l++)
        ck_assert_msg(seen[l], "%s: no level-%u switch", spec, l);
    for (uint32_t l = 1; l <= k; l++)
        ck_assert_msg(row[l] < row[l - 1], "%s: level %u (y=%g) is not above level %u (y=%g)", spec, l, row[l], l - 1,
                      row[l - 1]);
    for (uint32_t v = 0; v < t.n_servers; v++) {
        ck_assert_msg(lay.y[v] > row[0], "%s: server %s (y=%g) is not below the switches", spec, tu_name(&t, v),
                      lay.y[v]);
        ck_assert(lay.y[v] == lay.y[0]);
        if (v)
            ck_assert_msg(lay.x[v] > lay.x[v - 1], "%s: servers not in address order at %s", spec, tu_name(&t, v));
    }
    for (uint32_t v = t.n_servers; v < dcn_n_nodes(&t); v++) {
        if (bc_switch_level(&bl->d, bcube_switch_index(bl, v)) != 0)
            continue;
        double lo = INFINITY, hi = -INFINITY;
        for (uint16_t p = 0; p < dcn_nports(&t, v); p++) {
            uint32_t s = dcn_peer(&t, v, p).node;
            lo = fmin(lo, lay.x[s]);
            hi = fmax(hi, lay.x[s]);
        }
        ck_assert_msg(lay.x[v] >= lo && lay.x[v] <= hi, "%s: level-0 switch %s at x=%g, its servers at %g..%g", spec,
                      tu_name(&t, v), lay.x[v], lo, hi);
    }
    undraw(&t, &lay);
}

START_TEST(bcube_rows_as_in_fig1)
{
    check_bcube("bcube n=4 k=1");
    check_bcube("bcube n=4 k=3");
    check_bcube("bcube n=3 k=0");
    check_bcube("bcube n=4 k=2 parts=2");
    check_bcube("bcube n=8 k=3");
}
END_TEST

/* Index of the box named name, or -1. */
static int group_named(const dcn_layout *lay, const char *name)
{
    for (uint32_t i = 0; i < lay->n_groups; i++)
        if (strcmp(lay->groups[i].name, name) == 0)
            return (int)i;
    return -1;
}

static void check_mdcube(const char *spec)
{
    dcn_topo t;
    dcn_layout lay;
    draw(spec, &t, &lay);
    const md_geom *g = t.priv;
    ck_assert_uint_eq(lay.n_groups, g->M);
    for (uint32_t c = 0; c < g->M; c++) {
        char name[DCN_GROUP_NAME_MAX];
        snprintf(name, sizeof name, "container %u", c);
        int i = group_named(&lay, name);
        ck_assert_msg(i >= 0, "%s: no box '%s'", spec, name);
        const dcn_layout_group *box = &lay.groups[i];
        for (uint32_t a = 0; a < g->t; a++) {
            uint32_t v = md_server_node(g, c, a);
            ck_assert_msg(inside(lay.x[v], lay.y[v], box), "%s: %s outside '%s'", spec, tu_name(&t, v), name);
        }
        for (uint32_t bw = 0; bw < g->g; bw++) {
            uint32_t v = md_switch_node(g, t.n_servers, c, bw);
            ck_assert_msg(inside(lay.x[v], lay.y[v], box), "%s: %s outside '%s'", spec, tu_name(&t, v), name);
        }
    }
    check_boxes_apart(spec, &lay);
    undraw(&t, &lay);
}

START_TEST(mdcube_containers_in_disjoint_boxes)
{
    check_mdcube("mdcube n=2 k=1 m=5");
    check_mdcube("mdcube n=3 k=2 m=3x4");
    check_mdcube("mdcube n=2 k=2 m=2x2x2");
    check_mdcube("mdcube n=2 k=1 m=3");
}
END_TEST

START_TEST(tree_layered_top_down)
{
    dcn_topo t;
    dcn_layout lay;
    draw("tree leaves=5 per_leaf=3", &t, &lay);
    uint32_t root = dcn_n_nodes(&t) - 1;
    ck_assert_str_eq(tu_name(&t, root), "root");
    for (uint32_t leaf = t.n_servers; leaf < root; leaf++) {
        ck_assert_msg(lay.y[root] < lay.y[leaf], "root not above %s", tu_name(&t, leaf));
        double lo = INFINITY, hi = -INFINITY;
        for (uint16_t p = 0; p < dcn_nports(&t, leaf); p++) {
            uint32_t s = dcn_peer(&t, leaf, p).node;
            if (s >= t.n_servers)
                continue;
            ck_assert_msg(lay.y[leaf] < lay.y[s], "%s not above %s", tu_name(&t, leaf), tu_name(&t, s));
            lo = fmin(lo, lay.x[s]);
            hi = fmax(hi, lay.x[s]);
        }
        ck_assert_msg(lay.x[leaf] >= lo && lay.x[leaf] <= hi, "%s not over its servers", tu_name(&t, leaf));
    }
    ck_assert_uint_eq(lay.n_groups, 0);
    undraw(&t, &lay);
}
END_TEST

/* HCN/BCN: one box per level-1 unit (per module when h = 0), disjoint,
 * each node in the box of its own unit. */
static void check_hcn_units(const char *spec)
{
    dcn_topo t;
    dcn_layout lay;
    draw(spec, &t, &lay);
    const hcn_dims *d = hcn_dims_of(&t);
    uint32_t per_unit = d->h ? d->alpha : 1; /* switches */
    ck_assert_uint_eq(lay.n_groups, t.n_switches / per_unit);
    for (uint32_t v = 0; v < dcn_n_nodes(&t); v++) {
        uint32_t sw = v < t.n_servers ? v / d->n : v - t.n_servers;
        /* boxes are added in switch order, one per unit */
        const dcn_layout_group *box = &lay.groups[sw / per_unit];
        ck_assert_msg(inside(lay.x[v], lay.y[v], box), "%s: %s outside '%s'", spec, tu_name(&t, v), box->name);
    }
    check_boxes_apart(spec, &lay);
    undraw(&t, &lay);
}

START_TEST(hcn_bcn_units_in_their_boxes)
{
    check_hcn_units("hcn n=4 h=2");
    check_hcn_units("hcn n=3 h=3");
    check_hcn_units("hcn n=5 h=0");
    check_hcn_units("bcn alpha=4 beta=4 h=1 gamma=0");
    check_hcn_units("bcn alpha=2 beta=1 h=0 gamma=0");
    check_hcn_units("bcn alpha=3 beta=2 h=2 gamma=1");
    dcn_topo t;
    dcn_layout lay;
    draw("hcn n=4 h=2", &t, &lay);
    ck_assert_str_eq(lay.groups[0].name, "HCN(4,1) 1");
    undraw(&t, &lay);
    draw("bcn alpha=4 beta=4 h=1 gamma=0", &t, &lay);
    ck_assert_str_eq(lay.groups[4].name, "BCN(4,4,1) u=5");
    undraw(&t, &lay);
}
END_TEST

/* BCDC: no two nodes on one point at any size; the halves' boxes hold
 * their switches and the servers inside each half; the servers of
 * dimension n-1, which join the halves, lie in neither. */
static void check_bcdc(const char *spec)
{
    dcn_topo t;
    dcn_layout lay;
    draw(spec, &t, &lay);
    check_apart(spec, &t, &lay);
    const bcdc_state *st = t.priv;
    unsigned top = st->n - 1;
    ck_assert_uint_eq(lay.n_groups, 2);
    ck_assert(disjoint(&lay.groups[0], &lay.groups[1]));
    for (uint32_t x = 0; x < t.n_switches; x++) {
        uint32_t v = t.n_servers + x;
        ck_assert_msg(inside(lay.x[v], lay.y[v], &lay.groups[x >> top]), "%s: %s outside '%s'", spec, tu_name(&t, v),
                      lay.groups[x >> top].name);
    }
    for (uint32_t s = 0; s < t.n_servers; s++) {
        uint32_t half = bcdc_s0(st, s) >> top;
        if (bcdc_dim(st, s) == top)
            ck_assert_msg(!inside(lay.x[s], lay.y[s], &lay.groups[0]) && !inside(lay.x[s], lay.y[s], &lay.groups[1]),
                          "%s: %s joins the halves but is drawn inside one", spec, tu_name(&t, s));
        else
            ck_assert_msg(inside(lay.x[s], lay.y[s], &lay.groups[half]), "%s: %s outside '%s'", spec, tu_name(&t, s),
                          lay.groups[half].name);
    }
    undraw(&t, &lay);
}

START_TEST(bcdc_apart_and_halves_in_their_boxes)
{
    for (int n = 3; n <= 11; n++) {
        char spec[24]; /* "bcdc n=" and any int */
        snprintf(spec, sizeof spec, "bcdc n=%d", n);
        check_bcdc(spec);
    }
}
END_TEST

int main(void)
{
    int count;
    dcn_families(&count);
    Suite *s = suite_create("layout");
    TCase *tc = tcase_create("layout");
    tcase_set_timeout(tc, 120);
    tcase_add_loop_test(tc, every_family_on_canvas_and_apart, 0, count);
    tcase_add_test(tc, sizes_name_registered_families);
    tcase_add_test(tc, bcube_rows_as_in_fig1);
    tcase_add_test(tc, mdcube_containers_in_disjoint_boxes);
    tcase_add_test(tc, tree_layered_top_down);
    tcase_add_test(tc, hcn_bcn_units_in_their_boxes);
    tcase_add_test(tc, bcdc_apart_and_halves_in_their_boxes);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
