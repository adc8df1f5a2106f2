/* BCube one-to-several (Theorem 4, the edge-disjoint complete graph) and
 * one-to-all (Theorem 5, BuildMultipleSPTs). Properties are checked against
 * the theorems on built topologies, cable by cable, with digits computed here
 * from the paper's definitions; the notes' BCube_1 n=4 cases exactly. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "topo/bcube_addr.h"
#include "topo/families/bcube_multicast.h"
#include "topo/rng.h"

static uint32_t ipow(uint32_t n, uint32_t e)
{
    uint32_t r = 1;
    while (e--)
        r *= n;
    return r;
}

static uint32_t digit(uint32_t a, uint32_t i, uint32_t n) { return a / ipow(n, i) % n; }
static uint32_t with_digit(uint32_t a, uint32_t i, uint32_t v, uint32_t n)
{
    return a - digit(a, i, n) * ipow(n, i) + v * ipow(n, i);
}

/* The single level at which a and b differ, or UINT32_MAX. */
static uint32_t diff_level(uint32_t a, uint32_t b, uint32_t n, uint32_t k)
{
    uint32_t at = UINT32_MAX, count = 0;
    for (uint32_t i = 0; i <= k; i++)
        if (digit(a, i, n) != digit(b, i, n)) {
            at = i;
            count++;
        }
    return count == 1 ? at : UINT32_MAX;
}

static void build(dcn_topo *t, bc_dims *d, uint32_t n, uint32_t k)
{
    char spec[64];
    snprintf(spec, sizeof spec, "bcube n=%u k=%u", n, k);
    tu_build(t, spec);
    bc_dims_init(d, n, k);
}

/* Server a's level-l port is cabled to a switch whose port digit(b, l) is
 * cabled to b: one hop a -> b on level l in the built topology. */
static int cabled_hop(const dcn_topo *t, uint32_t a, uint32_t b, uint32_t l, uint32_t n)
{
    dcn_end sw = dcn_peer(t, a, (uint16_t)l);
    if (sw.node == DCN_NONE || dcn_kind(t, sw.node) != DCN_SWITCH)
        return 0;
    dcn_end back = dcn_peer(t, sw.node, (uint16_t)digit(b, l, n));
    return back.node == b && back.port == l;
}

/* ---- Theorem 4 ---------------------------------------------------------- */

typedef struct graph_case {
    uint32_t n, k;
} graph_case;

/* Checks one complete graph over src and targets (at distinct levels). */
static void check_complete_graph(const dcn_topo *t, const bc_dims *d, uint32_t src, const uint32_t *targets,
                                 uint32_t count)
{
    uint32_t n = d->n, k = d->k, ns = t->n_servers;
    bc_graph_edge edges[BC_GRAPH_MAX_EDGES];
    const char *why;
    uint32_t bad;
    int m = bc_complete_graph(d, src, targets, count, edges, &why, &bad);
    TU_CHECK(m == (int)((count + 1) * count), "src %u: %d edges for %u targets (%s)", src, m, count, why ? why : "");
    /* out[s*(k+1)+l]: directed edges leaving server s on level l (its
     * server->switch link); in[...]: entering s on level l. */
    uint8_t *out = calloc((size_t)ns * (k + 1), 1), *in = calloc((size_t)ns * (k + 1), 1);
    uint8_t *via = calloc(ns, 1);
    ck_assert_ptr_nonnull(out);
    ck_assert_ptr_nonnull(in);
    ck_assert_ptr_nonnull(via);
    for (int e = 0; e < m; e++) {
        const bc_graph_edge *g = &edges[e];
        TU_CHECK(g->seq[0] == g->from && g->seq[g->hops] == g->to, "edge %d: ends", e);
        uint32_t want_hops = (g->from == src || g->to == src) ? 1 : 2;
        TU_CHECK(g->hops == want_hops, "edge %u->%u: %u hops, want %u", g->from, g->to, g->hops, want_hops);
        for (uint32_t h = 0; h < g->hops; h++) {
            uint32_t a = g->seq[h], b = g->seq[h + 1], l = g->level[h];
            TU_CHECK(diff_level(a, b, n, k) == l, "edge %u->%u hop %u: %u and %u differ not only at level %u", g->from,
                     g->to, h, a, b, l);
            TU_CHECK(cabled_hop(t, a, b, l, n), "edge %u->%u hop %u: not cabled", g->from, g->to, h);
            TU_CHECK(out[a * (k + 1) + l]++ == 0, "link %u level %u out used twice (edge %u->%u)", a, l, g->from,
                     g->to);
            TU_CHECK(in[b * (k + 1) + l]++ == 0, "link %u level %u in used twice (edge %u->%u)", b, l, g->from, g->to);
        }
        if (g->hops == 2) {
            /* x_ij = src with the two targets' differing digits. */
            uint32_t li = diff_level(src, g->from, n, k), lj = diff_level(src, g->to, n, k);
            uint32_t x = with_digit(with_digit(src, li, digit(g->from, li, n), n), lj, digit(g->to, lj, n), n);
            TU_CHECK(g->seq[1] == x, "edge %u->%u: intermediate %u, want x_ij = %u", g->from, g->to, g->seq[1], x);
            TU_CHECK(g->level[0] == lj && g->level[1] == li, "edge %u->%u: levels %u,%u want %u,%u", g->from, g->to,
                     g->level[0], g->level[1], lj, li);
            via[x]++;
        }
    }
    /* Intermediates: one per unordered target pair (used by both directions),
     * distinct, and never a member. */
    uint32_t distinct = 0;
    for (uint32_t s = 0; s < ns; s++) {
        if (!via[s])
            continue;
        TU_CHECK(via[s] == 2, "intermediate %u serves %u directed edges, want 2", s, via[s]);
        distinct++;
        TU_CHECK(s != src, "intermediate is the source");
        for (uint32_t i = 0; i < count; i++)
            TU_CHECK(s != targets[i], "intermediate is a target");
    }
    TU_CHECK(distinct == count * (count - (count ? 1 : 0)) / 2, "%u distinct intermediates for %u targets", distinct,
             count);
    /* With a target at every level, every port of the members is used
     * exactly once in each direction (the theorem's tightness). */
    if (count == k + 1) {
        for (uint32_t l = 0; l <= k; l++) {
            TU_CHECK(out[src * (k + 1) + l] == 1 && in[src * (k + 1) + l] == 1, "source port %u unused", l);
            for (uint32_t i = 0; i < count; i++)
                TU_CHECK(out[targets[i] * (k + 1) + l] == 1 && in[targets[i] * (k + 1) + l] == 1,
                         "target %u port %u unused", targets[i], l);
        }
    }
    free(out);
    free(in);
    free(via);
}

START_TEST(complete_graph_is_link_disjoint_for_many_shapes_and_sources)
{
    static const graph_case cases[] = {{2, 0}, {4, 0}, {2, 1}, {4, 1}, {3, 2}, {2, 3}, {5, 2}, {4, 3}, {3, 4}, {8, 3}};
    dcn_rng rng;
    dcn_rng_seed(&rng, 8);
    uint32_t graphs = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        dcn_topo t;
        bc_dims d;
        build(&t, &d, cases[c].n, cases[c].k);
        uint32_t n = d.n, k = d.k, ns = t.n_servers;
        for (uint32_t trial = 0; trial < 60; trial++) {
            uint32_t src = trial < ns && ns <= 60 ? trial : (uint32_t)dcn_rng_below(&rng, ns);
            /* Every level (trial even) or a random subset in random order. */
            uint32_t targets[BC_MAX_LEVELS], count = 0;
            for (uint32_t l = 0; l <= k; l++) {
                if (trial % 2 && dcn_rng_below(&rng, 2))
                    continue;
                uint32_t v = (digit(src, l, n) + 1 + (uint32_t)dcn_rng_below(&rng, n - 1)) % n;
                targets[count++] = with_digit(src, l, v, n);
            }
            for (uint32_t i = count; i > 1; i--) {
                uint32_t j = (uint32_t)dcn_rng_below(&rng, i), tmp = targets[i - 1];
                targets[i - 1] = targets[j];
                targets[j] = tmp;
            }
            check_complete_graph(&t, &d, src, targets, count);
            graphs++;
        }
        dcn_topo_free(&t);
    }
    ck_assert_uint_eq(graphs, 600);
}
END_TEST

START_TEST(complete_graph_testbed_case_01_and_10_exchange_via_11)
{
    dcn_topo t;
    bc_dims d;
    build(&t, &d, 4, 1);
    uint32_t src = tu_node(&t, "h00"), targets[2] = {tu_node(&t, "h01"), tu_node(&t, "h10")};
    bc_graph_edge e[BC_GRAPH_MAX_EDGES];
    const char *why;
    uint32_t bad;
    ck_assert_int_eq(bc_complete_graph(&d, src, targets, 2, e, &why, &bad), 6);
    static const char *want[6][3] = {{"h00", "h01", NULL}, {"h00", "h10", NULL}, {"h01", "h00", NULL},
                                     {"h10", "h00", NULL}, {"h01", "h11", "h10"}, {"h10", "h11", "h01"}};
    static const uint32_t want_levels[6][2] = {{0, 0}, {1, 0}, {0, 0}, {1, 0}, {1, 0}, {0, 1}};
    for (int i = 0; i < 6; i++) {
        uint32_t hops = want[i][2] ? 2 : 1;
        ck_assert_uint_eq(e[i].hops, hops);
        for (uint32_t h = 0; h <= hops; h++)
            ck_assert_str_eq(tu_name(&t, e[i].seq[h]), want[i][h]);
        for (uint32_t h = 0; h < hops; h++)
            ck_assert_uint_eq(e[i].level[h], want_levels[i][h]);
    }
    check_complete_graph(&t, &d, src, targets, 2);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(complete_graph_rejects_bad_targets)
{
    dcn_topo t;
    bc_dims d;
    build(&t, &d, 4, 1);
    bc_graph_edge e[BC_GRAPH_MAX_EDGES];
    const char *why;
    uint32_t bad;
    uint32_t src = tu_node(&t, "h00");
    uint32_t two_digits[2] = {tu_node(&t, "h01"), tu_node(&t, "h11")};
    ck_assert_int_eq(bc_complete_graph(&d, src, two_digits, 2, e, &why, &bad), -1);
    ck_assert_uint_eq(bad, 1);
    ck_assert_ptr_nonnull(strstr(why, "one-digit neighbour"));
    uint32_t itself[1] = {src};
    ck_assert_int_eq(bc_complete_graph(&d, src, itself, 1, e, &why, &bad), -1);
    ck_assert_uint_eq(bad, 0);
    uint32_t same_level[2] = {tu_node(&t, "h02"), tu_node(&t, "h03")};
    ck_assert_int_eq(bc_complete_graph(&d, src, same_level, 2, e, &why, &bad), -1);
    ck_assert_uint_eq(bad, 1);
    ck_assert_ptr_nonnull(strstr(why, "same level"));
    uint32_t too_many[3] = {tu_node(&t, "h01"), tu_node(&t, "h10"), tu_node(&t, "h20")};
    ck_assert_int_eq(bc_complete_graph(&d, src, too_many, 3, e, &why, &bad), -1);
    uint32_t outside[1] = {16};
    ck_assert_int_eq(bc_complete_graph(&d, src, outside, 1, e, &why, &bad), -1);
    ck_assert_int_eq(bc_complete_graph(&d, src, NULL, 0, e, &why, &bad), 0);
    dcn_topo_free(&t);
}
END_TEST

/* ---- Theorem 5 ---------------------------------------------------------- */

typedef struct spt_stats {
    uint32_t opposite_pairs; /* server pairs that two trees use in opposite directions */
} spt_stats;

static uint32_t expected_depth(uint32_t n, uint32_t k) { return k ? (k + 1) * (n - 1) + 1 : n - 1; }

/* Every property of the k+1 trees from src. */
static void check_trees(const dcn_topo *t, const bc_dims *d, uint32_t src, const uint32_t *parent,
                        const uint8_t *level, spt_stats *st)
{
    uint32_t n = d->n, k = d->k, ns = t->n_servers, levels = k + 1;
    /* Directed server->server edges (parent*ns + child) seen, per tree + 1. */
    uint8_t *edge_tree = calloc((size_t)ns * ns, 1);
    uint8_t *out_used = calloc((size_t)ns * levels, 1), *in_used = calloc((size_t)ns * levels, 1);
    ck_assert_ptr_nonnull(edge_tree);
    ck_assert_ptr_nonnull(out_used);
    ck_assert_ptr_nonnull(in_used);
    for (uint32_t i = 0; i < levels; i++) {
        const uint32_t *p = parent + (size_t)i * ns;
        const uint8_t *lv = level + (size_t)i * ns;
        uint32_t root = with_digit(src, i, (digit(src, i, n) + 1) % n, n);
        TU_CHECK(p[src] == BC_SPT_NONE, "tree %u: the source has a parent", i);
        TU_CHECK(p[root] == src && lv[root] == i, "tree %u: root %u not on src's level-%u link", i, root, i);
        uint32_t max_depth = 0, src_children = 0;
        for (uint32_t s = 0; s < ns; s++) {
            if (s == src)
                continue;
            uint32_t q = p[s], l = lv[s];
            TU_CHECK(q < ns, "tree %u: server %u has no parent (not spanned)", i, s);
            src_children += q == src;
            TU_CHECK(diff_level(q, s, n, k) == l, "tree %u: edge %u->%u is not one hop on level %u", i, q, s, l);
            TU_CHECK(cabled_hop(t, q, s, l, n), "tree %u: edge %u->%u not cabled on level %u", i, q, s, l);
            uint32_t depth = bc_spt_depth_of(p, ns, src, s);
            TU_CHECK(depth != BC_SPT_NONE, "tree %u: server %u is on a cycle or cut off", i, s);
            max_depth = depth > max_depth ? depth : max_depth;
            uint8_t *seen = &edge_tree[(size_t)q * ns + s];
            TU_CHECK(*seen == 0, "directed edge %u->%u in trees %u and %u", q, s, *seen - 1, i);
            *seen = (uint8_t)(i + 1);
            if (edge_tree[(size_t)s * ns + q])
                st->opposite_pairs++;
            TU_CHECK(out_used[q * levels + l]++ == 0, "tree %u: %u's level-%u link out carries a second tree edge", i,
                     q, l);
            TU_CHECK(in_used[s * levels + l]++ == 0, "tree %u: %u receives twice on level %u", i, s, l);
        }
        TU_CHECK(src_children == 1, "tree %u: the source has %u children, want only the root", i, src_children);
        TU_CHECK(max_depth == expected_depth(n, k), "n=%u k=%u src %u tree %u: depth %u, want %u", n, k, src, i,
                 max_depth, expected_depth(n, k));
    }
    free(edge_tree);
    free(out_used);
    free(in_used);
}

START_TEST(spanning_trees_are_edge_disjoint_with_the_theorems_depth)
{
    static const graph_case cases[] = {{2, 0}, {5, 0}, {2, 1}, {2, 2}, {2, 3}, {2, 4}, {3, 1}, {4, 1},
                                       {5, 1}, {8, 1}, {3, 2}, {4, 2}, {8, 2}, {3, 3}, {4, 3}, {3, 4}};
    dcn_rng rng;
    dcn_rng_seed(&rng, 5);
    uint32_t checked = 0;
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        dcn_topo t;
        bc_dims d;
        build(&t, &d, cases[c].n, cases[c].k);
        uint32_t ns = t.n_servers, levels = d.k + 1;
        uint32_t *parent = malloc((size_t)ns * levels * sizeof *parent);
        uint8_t *level = malloc((size_t)ns * levels);
        ck_assert_ptr_nonnull(parent);
        ck_assert_ptr_nonnull(level);
        spt_stats st = {0};
        uint32_t sources = ns <= 64 ? ns : 20;
        for (uint32_t j = 0; j < sources; j++) {
            uint32_t src = ns <= 64 ? j : (uint32_t)dcn_rng_below(&rng, ns);
            ck_assert_int_eq(bc_build_multiple_spts(&d, src, parent, level), 0);
            check_trees(&t, &d, src, parent, level, &st);
            checked++;
        }
        /* A pair in two trees in opposite directions happens only for n=2
         * (fine on full-duplex links; the directed edges stay disjoint). */
        if (d.n == 2 && d.k >= 1)
            ck_assert_uint_gt(st.opposite_pairs, 0);
        if (d.n > 2)
            ck_assert_uint_eq(st.opposite_pairs, 0);
        free(parent);
        free(level);
        dcn_topo_free(&t);
    }
    ck_assert_uint_gt(checked, 300);
}
END_TEST

/* The notes' section 4 trees for BCube_1 n=4, source 00 (the paper's Fig. 6
 * is missing from the text). parent[child] by name, with the edge level. */
START_TEST(testbed_trees_from_00_exactly)
{
    static const char *tree0[][3] = {
        {"h01", "h00", "0"}, {"h02", "h01", "0"}, {"h03", "h02", "0"}, {"h11", "h01", "1"}, {"h21", "h11", "1"},
        {"h31", "h21", "1"}, {"h12", "h02", "1"}, {"h22", "h12", "1"}, {"h32", "h22", "1"}, {"h13", "h03", "1"},
        {"h23", "h13", "1"}, {"h33", "h23", "1"}, {"h10", "h13", "0"}, {"h20", "h23", "0"}, {"h30", "h33", "0"}};
    static const char *tree1[][3] = {
        {"h10", "h00", "1"}, {"h20", "h10", "1"}, {"h30", "h20", "1"}, {"h11", "h10", "0"}, {"h12", "h11", "0"},
        {"h13", "h12", "0"}, {"h21", "h20", "0"}, {"h22", "h21", "0"}, {"h23", "h22", "0"}, {"h31", "h30", "0"},
        {"h32", "h31", "0"}, {"h33", "h32", "0"}, {"h01", "h31", "1"}, {"h02", "h32", "1"}, {"h03", "h33", "1"}};
    dcn_topo t;
    bc_dims d;
    build(&t, &d, 4, 1);
    uint32_t parent[32];
    uint8_t level[32];
    uint32_t src = tu_node(&t, "h00");
    ck_assert_int_eq(bc_build_multiple_spts(&d, src, parent, level), 0);
    for (int tree = 0; tree < 2; tree++)
        for (int e = 0; e < 15; e++) {
            const char *const *w = tree ? tree1[e] : tree0[e];
            uint32_t child = tu_node(&t, w[0]);
            ck_assert_msg(parent[tree * 16 + child] == tu_node(&t, w[1]), "tree %d: parent of %s is %s, want %s",
                          tree, w[0], tu_name(&t, parent[tree * 16 + child]), w[1]);
            ck_assert_uint_eq(level[tree * 16 + child], (uint32_t)(w[2][0] - '0'));
        }
    ck_assert_uint_eq(parent[src], BC_SPT_NONE);
    ck_assert_uint_eq(parent[16 + src], BC_SPT_NONE);
    ck_assert_uint_eq(bc_spt_depth_of(parent, 16, src, tu_node(&t, "h30")), 7);
    ck_assert_uint_eq(bc_spt_depth_of(parent + 16, 16, src, tu_node(&t, "h03")), 7);
    dcn_topo_free(&t);
}
END_TEST

/* BCube_2 n=2, source 000, tree 0, derived by hand from Fig. 5: Part I
 * grows along dimensions 0, 1, 2 in that order (with 0, 2, 1 the parent of
 * 111 would be 101), Part II hangs 010, 100 and 110 off digit 0 = 1. */
START_TEST(tree_dimension_order_follows_figure_5)
{
    static const char *tree0[][3] = {{"h001", "h000", "0"}, {"h011", "h001", "1"}, {"h101", "h001", "2"},
                                     {"h111", "h011", "2"}, {"h010", "h011", "0"}, {"h100", "h101", "0"},
                                     {"h110", "h111", "0"}};
    dcn_topo t;
    bc_dims d;
    build(&t, &d, 2, 2);
    uint32_t parent[8];
    uint8_t level[8];
    ck_assert_int_eq(bc_build_single_spt(&d, 0, 0, parent, level), 0);
    for (int e = 0; e < 7; e++) {
        uint32_t child = tu_node(&t, tree0[e][0]);
        ck_assert_msg(parent[child] == tu_node(&t, tree0[e][1]), "parent of %s is %s, want %s", tree0[e][0],
                      tu_name(&t, parent[child]), tree0[e][1]);
        ck_assert_uint_eq(level[child], (uint32_t)(tree0[e][2][0] - '0'));
    }
    dcn_topo_free(&t);
}
END_TEST

START_TEST(depth_of_detects_a_cycle)
{
    uint32_t parent[4] = {BC_SPT_NONE, 2, 1, 0};
    ck_assert_uint_eq(bc_spt_depth_of(parent, 4, 0, 3), 1);
    ck_assert_uint_eq(bc_spt_depth_of(parent, 4, 0, 1), BC_SPT_NONE);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bcube_multicast");
    TCase *tc = tcase_create("bcube_multicast");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, complete_graph_is_link_disjoint_for_many_shapes_and_sources);
    tcase_add_test(tc, complete_graph_testbed_case_01_and_10_exchange_via_11);
    tcase_add_test(tc, complete_graph_rejects_bad_targets);
    tcase_add_test(tc, spanning_trees_are_edge_disjoint_with_the_theorems_depth);
    tcase_add_test(tc, testbed_trees_from_00_exactly);
    tcase_add_test(tc, tree_dimension_order_follows_figure_5);
    tcase_add_test(tc, depth_of_detects_a_cycle);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
