/* The server graph's BFS tree (dcn_bfs_server_tree) and the components
 * under failures (dcn_server_components): what `dcn-topo bfs` and
 * `dcn-topo components` print, and explib asks for. */
#include <stdlib.h>

#include "testutil.h"
#include "topo/bfs.h"
#include "topo/components.h"

#define NS_MAX 128

typedef struct tree {
    uint32_t dist[NS_MAX], parent[NS_MAX], order[NS_MAX];
    int reached;
} tree;

static void bfs(const dcn_topo *t, const char *src, const dcn_failures *f, tree *out)
{
    ck_assert_uint_le(t->n_servers, NS_MAX);
    out->reached = dcn_bfs_server_tree(t, tu_node(t, src), f, out->dist, out->parent, out->order);
    ck_assert_int_ge(out->reached, 0);
}

/* a and b share a switch or a cable (the families below have no fibers). */
static int adjacent(const dcn_topo *t, uint32_t a, uint32_t b)
{
    if (dcn_topo_port_to(t, a, b) >= 0)
        return 1;
    for (uint16_t p = 0; p < dcn_nports(t, a); p++) {
        uint32_t sw = dcn_peer(t, a, p).node;
        if (sw != DCN_NONE && dcn_kind(t, sw) == DCN_SWITCH && dcn_topo_port_to(t, sw, b) >= 0)
            return 1;
    }
    return 0;
}

/* What makes it the BFS over id-sorted adjacency lists: every server's
 * parent is the first server of the order adjacent to it, and the servers
 * of one parent follow it in increasing id. */
static void check_is_first_bfs(const dcn_topo *t, const tree *w)
{
    uint32_t pos[NS_MAX];
    for (int i = 0; i < w->reached; i++)
        pos[w->order[i]] = (uint32_t)i;
    ck_assert_uint_eq(w->parent[w->order[0]], DCN_NONE);
    ck_assert_uint_eq(w->dist[w->order[0]], 0);
    for (int i = 1; i < w->reached; i++) {
        uint32_t v = w->order[i], p = w->parent[v];
        TU_CHECK(adjacent(t, p, v), "parent of %u not adjacent", v);
        TU_CHECK(w->dist[v] == w->dist[p] + 1, "distance of %u", v);
        for (uint32_t j = 0; j < pos[p]; j++)
            TU_CHECK(!adjacent(t, w->order[j], v), "%u reached first by %u, not %u", v, w->order[j], p);
        uint32_t prev = w->order[i - 1];
        if (w->parent[prev] == p)
            TU_CHECK(prev < v, "children of %u out of id order", p);
    }
}

START_TEST(bfs_tree_bcube)
{
    dcn_topo t;
    tu_build(&t, "bcube n=4 k=1");
    tree w;
    bfs(&t, "h00", NULL, &w);
    ck_assert_int_eq(w.reached, 16);
    const char *first[] = {"h00", "h01", "h02", "h03", "h10", "h20", "h30", "h11"};
    for (int i = 0; i < 8; i++)
        ck_assert_uint_eq(w.order[i], tu_node(&t, first[i]));
    ck_assert_uint_eq(w.parent[tu_node(&t, "h11")], tu_node(&t, "h01"));
    ck_assert_uint_eq(w.parent[tu_node(&t, "h33")], tu_node(&t, "h03"));
    ck_assert_uint_eq(w.dist[tu_node(&t, "h33")], 2);
    check_is_first_bfs(&t, &w);
    dcn_topo_free(&t);
}
END_TEST

/* The hop distances are dcn_bfs_server_distances' (stats, the simulator). */
START_TEST(bfs_tree_every_source)
{
    const char *specs[] = {"hcn n=4 h=1", "bcn alpha=2 beta=2 h=1 gamma=0", "bcdc n=3", "bcube n=3 k=2 parts=2"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        dcn_topo t;
        tu_build(&t, specs[k]);
        uint32_t hops[NS_MAX], links[NS_MAX];
        for (uint32_t s = 0; s < t.n_servers; s++) {
            tree w;
            char name[DCN_NAME_MAX];
            dcn_node_name(&t, s, name, sizeof name);
            bfs(&t, name, NULL, &w);
            ck_assert_int_eq(w.reached, (int)t.n_servers);
            check_is_first_bfs(&t, &w);
            dcn_bfs_server_distances(&t, s, NULL, links, hops);
            for (uint32_t v = 0; v < t.n_servers; v++) {
                TU_CHECK(hops[v] == w.dist[v], "%s from %u to %u", specs[k], s, v);
                TU_CHECK(links[v] >= hops[v] && links[v] <= 2 * hops[v], "%s links %u", specs[k], v);
            }
        }
        dcn_topo_free(&t);
    }
}
END_TEST

/* MDCube: servers of two containers are one hop apart over the fiber
 * between their switches (a chain of switches joins them). */
START_TEST(bfs_tree_across_fibers)
{
    dcn_topo t;
    tu_build(&t, "mdcube n=2 k=1 m=5");
    tree w;
    bfs(&t, "h0_00", NULL, &w);
    ck_assert_int_eq(w.reached, 20);
    uint32_t hops[NS_MAX];
    dcn_bfs_server_distances(&t, 0, NULL, NULL, hops);
    for (uint32_t v = 0; v < t.n_servers; v++)
        ck_assert_uint_eq(hops[v], w.dist[v]);
    for (int i = 1; i < w.reached; i++)
        ck_assert_uint_eq(w.dist[w.order[i]], w.dist[w.parent[w.order[i]]] + 1);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(bfs_tree_under_failures)
{
    dcn_topo t;
    tu_build(&t, "bcube n=4 k=1");
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    tree w;
    dcn_fail_node(&f, tu_node(&t, "s0_0")); /* h00's level-0 switch */
    bfs(&t, "h00", &f, &w);
    ck_assert_int_eq(w.reached, 16);
    ck_assert_uint_eq(w.dist[tu_node(&t, "h01")], 3);
    ck_assert_uint_eq(w.parent[tu_node(&t, "h01")], tu_node(&t, "h11"));
    ck_assert_uint_eq(w.order[1], tu_node(&t, "h10"));

    dcn_failures_clear(&f, &t);
    ck_assert_int_eq(dcn_fail_link(&f, &t, tu_node(&t, "h00"), tu_node(&t, "s1_0")), 0);
    bfs(&t, "h00", &f, &w);
    ck_assert_uint_eq(w.dist[tu_node(&t, "h10")], 3);
    ck_assert_uint_eq(w.parent[tu_node(&t, "h10")], tu_node(&t, "h11"));

    dcn_fail_node(&f, tu_node(&t, "s0_0")); /* h00 cut off: only itself */
    bfs(&t, "h00", &f, &w);
    ck_assert_int_eq(w.reached, 1);
    ck_assert_uint_eq(w.dist[tu_node(&t, "h01")], UINT32_MAX);
    ck_assert_uint_eq(w.parent[tu_node(&t, "h01")], DCN_NONE);

    dcn_fail_node(&f, tu_node(&t, "h00")); /* a failed source reaches nothing */
    bfs(&t, "h00", &f, &w);
    ck_assert_int_eq(w.reached, 0);
    dcn_failures_free(&f);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(components_under_failures)
{
    dcn_topo t;
    tu_build(&t, "bcube n=4 k=1");
    uint32_t comp[16];
    ck_assert_int_eq(dcn_server_components(&t, NULL, comp), 1);
    for (uint32_t s = 0; s < 16; s++)
        ck_assert_uint_eq(comp[s], 0);
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    dcn_fail_node(&f, tu_node(&t, "s0_0"));
    dcn_fail_node(&f, tu_node(&t, "s1_0")); /* h00 alone */
    ck_assert_int_eq(dcn_server_components(&t, &f, comp), 2);
    ck_assert_uint_eq(comp[tu_node(&t, "h00")], 0);
    for (uint32_t s = 1; s < 16; s++)
        ck_assert_uint_eq(comp[s], 1);
    dcn_fail_node(&f, tu_node(&t, "h00")); /* a failed server is in no component */
    ck_assert_int_eq(dcn_server_components(&t, &f, comp), 1);
    ck_assert_uint_eq(comp[tu_node(&t, "h00")], DCN_NONE);
    ck_assert_uint_eq(comp[tu_node(&t, "h33")], 0);
    dcn_failures_free(&f);
    dcn_topo_free(&t);

    /* switches forward: the tree splits only where its switches or links fail */
    tu_build(&t, "tree leaves=4 per_leaf=4");
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    ck_assert_int_eq(dcn_fail_link(&f, &t, tu_node(&t, "s3"), tu_node(&t, "root")), 0);
    ck_assert_int_eq(dcn_server_components(&t, &f, comp), 2);
    ck_assert_uint_eq(comp[tu_node(&t, "h11")], 0);
    ck_assert_uint_eq(comp[tu_node(&t, "h12")], 1);
    dcn_fail_node(&f, tu_node(&t, "root"));
    ck_assert_int_eq(dcn_server_components(&t, &f, comp), 4);
    for (uint32_t s = 0; s < 16; s++)
        ck_assert_uint_eq(comp[s], s / 4);
    dcn_failures_free(&f);
    dcn_topo_free(&t);
}
END_TEST

/* dcn_bfs_flood: marked nodes are walls, so a second call from a node
 * already reached reaches nothing. */
START_TEST(flood_marks_are_walls)
{
    dcn_topo t;
    tu_build(&t, "tree leaves=2 per_leaf=2");
    uint32_t n = dcn_n_nodes(&t), mark[16], reached[16];
    ck_assert_uint_le(n, 16);
    for (uint32_t v = 0; v < n; v++)
        mark[v] = UINT32_MAX;
    mark[tu_node(&t, "root")] = 7;
    ck_assert_uint_eq(dcn_bfs_flood(&t, 0, NULL, mark, reached), 3); /* h0, s0, h1 */
    ck_assert_uint_eq(reached[0], 0);
    ck_assert_uint_eq(mark[1], 2);
    ck_assert_uint_eq(dcn_bfs_flood(&t, 1, NULL, mark, reached), 0);
    ck_assert_uint_eq(dcn_bfs_flood(&t, 2, NULL, mark, reached), 3);
    dcn_topo_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("graph_search");
    TCase *tc = tcase_create("graph_search");
    tcase_add_test(tc, bfs_tree_bcube);
    tcase_add_test(tc, bfs_tree_every_source);
    tcase_add_test(tc, bfs_tree_across_fibers);
    tcase_add_test(tc, bfs_tree_under_failures);
    tcase_add_test(tc, components_under_failures);
    tcase_add_test(tc, flood_marks_are_walls);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
