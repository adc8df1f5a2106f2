/* The generic node-disjoint path finder on hand-made graphs: counts equal
 * the minimum vertex cut (Menger), failures are avoided, the cap holds. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "topo/bfs.h"
#include "topo/disjoint.h"
#include "topo/rng.h"

/* A graph from an edge list; every node gets as many ports as its degree,
 * assigned in edge order. All nodes are "servers" (kinds do not matter to
 * the finder); the family pointer only serves dcn_topo_free. */
static void graph(dcn_topo *t, uint32_t n, const uint32_t (*edges)[2], uint32_t n_edges)
{
    memset(t, 0, sizeof *t);
    t->family = dcn_family_find("tree");
    uint16_t ports[64] = {0}, used[64] = {0};
    char err[256];
    ck_assert_uint_le(n, 64);
    for (uint32_t i = 0; i < n_edges; i++) {
        ports[edges[i][0]]++;
        ports[edges[i][1]]++;
    }
    for (uint32_t v = 0; v < n; v++)
        if (!ports[v])
            ports[v] = 1;
    ck_assert_int_eq(dcn_topo_alloc(t, n, 0, ports, NULL, err, sizeof err), 0);
    for (uint32_t i = 0; i < n_edges; i++) {
        uint32_t a = edges[i][0], b = edges[i][1];
        ck_assert_int_eq(dcn_topo_connect(t, a, used[a]++, b, used[b]++, err, sizeof err), 0);
    }
}

static void check_set(const dcn_topo *t, const dcn_pathset *s, uint32_t src, uint32_t dst, const dcn_failures *f)
{
    for (uint32_t i = 0; i < s->count; i++) {
        const dcn_path *p = &s->path[i];
        const char *why = "";
        ck_assert_msg(dcn_path_valid(p, t, f, &why), "path %u invalid: %s", i, why);
        ck_assert_uint_eq(p->node[0], src);
        ck_assert_uint_eq(p->node[p->len - 1], dst);
        if (i)
            ck_assert_uint_le(s->path[i - 1].len, p->len);
        for (uint32_t j = 0; j < i; j++)
            ck_assert(dcn_paths_node_disjoint(p, &s->path[j]));
    }
}

START_TEST(greedy_trap_needs_residual_paths)
{
    /* s=0 t=1 a=2 b=3 c=4 d=5: the shortest path s-a-b-t blocks both others;
     * the maximum is s-a-d-t and s-c-b-t. */
    static const uint32_t e[][2] = {{0, 2}, {2, 3}, {3, 1}, {0, 4}, {4, 3}, {2, 5}, {5, 1}};
    dcn_topo t;
    graph(&t, 6, e, 7);
    dcn_pathset *s = calloc(1, sizeof *s);
    ck_assert_int_eq(dcn_disjoint_paths(&t, 0, 1, NULL, 8, s), 2);
    check_set(&t, s, 0, 1, NULL);
    ck_assert_int_eq(dcn_disjoint_paths(&t, 0, 1, NULL, 1, s), 1);
    ck_assert_uint_eq(s->path[0].len, 4);
    free(s);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(parallel_middles_and_failures)
{
    /* s=0 t=1, middles 2,3,4 each joined to both, plus a detour 0-5-6-1. */
    static const uint32_t e[][2] = {{0, 2}, {2, 1}, {0, 3}, {3, 1}, {0, 4}, {4, 1}, {0, 5}, {5, 6}, {6, 1}};
    dcn_topo t;
    graph(&t, 7, e, 9);
    dcn_pathset *s = calloc(1, sizeof *s);
    ck_assert_int_eq(dcn_disjoint_paths(&t, 0, 1, NULL, 16, s), 4);
    check_set(&t, s, 0, 1, NULL);
    ck_assert_uint_eq(s->path[0].len, 3);
    ck_assert_uint_eq(s->path[3].len, 4); /* the detour comes last */
    ck_assert_uint_eq(s->path[0].node[1], 2); /* ties keep port order */

    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    dcn_fail_node(&f, 3);
    ck_assert_int_eq(dcn_fail_link(&f, &t, 5, 6), 0);
    ck_assert_int_eq(dcn_disjoint_paths(&t, 0, 1, &f, 16, s), 2);
    check_set(&t, s, 0, 1, &f);
    for (uint32_t i = 0; i < s->count; i++)
        ck_assert(!dcn_path_contains(&s->path[i], 3));
    dcn_fail_node(&f, 0);
    ck_assert_int_eq(dcn_disjoint_paths(&t, 0, 1, &f, 16, s), 0);
    dcn_failures_free(&f);

    ck_assert_int_eq(dcn_disjoint_paths(&t, 0, 0, NULL, 4, s), -1);
    ck_assert_int_eq(dcn_disjoint_paths(&t, 0, 99, NULL, 4, s), -1);
    ck_assert_int_eq(dcn_disjoint_paths(&t, 0, 1, NULL, 0, s), 0);
    free(s);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(direct_link_and_bottleneck)
{
    /* s=0 t=1 joined directly; 0-2,0-3,0-4 all into 5, 5-1: cut {direct, 5}. */
    static const uint32_t e[][2] = {{0, 1}, {0, 2}, {0, 3}, {0, 4}, {2, 5}, {3, 5}, {4, 5}, {5, 1}};
    dcn_topo t;
    graph(&t, 6, e, 8);
    dcn_pathset *s = calloc(1, sizeof *s);
    ck_assert_int_eq(dcn_disjoint_paths(&t, 0, 1, NULL, 16, s), 2);
    check_set(&t, s, 0, 1, NULL);
    ck_assert_uint_eq(s->path[0].len, 2);
    ck_assert_uint_eq(s->path[1].len, 4);
    free(s);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(shared_switch_mode_counts_servers_only)
{
    /* s=0 - sw=5 - {2,3,4} - sw=6 - t=1: one node-disjoint path, three
     * server-disjoint ones (both switches shared). */
    static const uint32_t e[][2] = {{0, 5}, {5, 2}, {5, 3}, {5, 4}, {2, 6}, {3, 6}, {4, 6}, {6, 1}};
    dcn_topo t;
    memset(&t, 0, sizeof t);
    t.family = dcn_family_find("tree");
    uint16_t ports[7] = {1, 1, 2, 2, 2, 4, 4}, used[7] = {0};
    char err[256];
    ck_assert_int_eq(dcn_topo_alloc(&t, 5, 2, ports, ports + 5, err, sizeof err), 0);
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(dcn_topo_connect(&t, e[i][0], used[e[i][0]]++, e[i][1], used[e[i][1]]++, err, sizeof err),
                         0);
    dcn_pathset *s = calloc(1, sizeof *s);
    ck_assert_int_eq(dcn_disjoint_paths(&t, 0, 1, NULL, 8, s), 1);
    ck_assert_int_eq(dcn_server_disjoint_paths(&t, 0, 1, NULL, 8, s), 3);
    for (uint32_t i = 0; i < 3; i++) {
        ck_assert(dcn_path_valid(&s->path[i], &t, NULL, NULL));
        ck_assert_uint_eq(s->path[i].node[2], 2 + i);
    }
    ck_assert_int_eq(dcn_server_disjoint_paths(&t, 0, 1, NULL, 2, s), 2);
    /* 2 and 3 share switch 5: the one-switch path once, then via 6. */
    ck_assert_int_eq(dcn_server_disjoint_paths(&t, 2, 3, NULL, 8, s), 2);
    ck_assert_uint_eq(s->path[0].len, 3);
    ck_assert_uint_eq(s->path[1].len, 3);
    ck_assert_uint_eq(s->path[1].node[1], 6);
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    dcn_fail_node(&f, 3);
    ck_assert_int_eq(dcn_server_disjoint_paths(&t, 0, 1, &f, 8, s), 2);
    dcn_fail_node(&f, 6);
    ck_assert_int_eq(dcn_server_disjoint_paths(&t, 0, 1, &f, 8, s), 0);
    dcn_failures_free(&f);
    free(s);
    dcn_topo_free(&t);
}
END_TEST

/* Smallest number of inner nodes whose removal disconnects 0 from 1, by
 * trying every subset (graphs without a direct 0-1 edge). */
static uint32_t brute_min_cut(const dcn_topo *t, uint32_t n)
{
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, t), 0);
    uint32_t best = n;
    dcn_path p;
    for (uint32_t mask = 0; mask < (1u << (n - 2)); mask++) {
        uint32_t size = (uint32_t)__builtin_popcount(mask);
        if (size >= best)
            continue;
        dcn_failures_clear(&f, t);
        for (uint32_t i = 0; i < n - 2; i++)
            if (mask & (1u << i))
                dcn_fail_node(&f, i + 2);
        if (dcn_bfs_path(t, 0, 1, &f, NULL, &p) < 0)
            best = size;
    }
    dcn_failures_free(&f);
    return best;
}

START_TEST(count_equals_min_vertex_cut_on_random_graphs)
{
    dcn_rng rng;
    dcn_rng_seed(&rng, 7);
    dcn_pathset *s = calloc(1, sizeof *s);
    for (int round = 0; round < 400; round++) {
        uint32_t n = 6 + (uint32_t)(dcn_rng_next(&rng) % 6); /* 6..11 nodes */
        uint32_t e[64][2], ne = 0;
        uint32_t density = 25 + (uint32_t)(dcn_rng_next(&rng) % 40);
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = a + 1; b < n && ne < 64; b++)
                if (!(a == 0 && b == 1) && dcn_rng_next(&rng) % 100 < density) {
                    e[ne][0] = a;
                    e[ne][1] = b;
                    ne++;
                }
        dcn_topo t;
        graph(&t, n, (const uint32_t(*)[2])e, ne);
        uint32_t cut = brute_min_cut(&t, n);
        int got = dcn_disjoint_paths(&t, 0, 1, NULL, 64, s);
        ck_assert_msg(got >= 0 && (uint32_t)got == cut, "round %d: %d paths, min cut %u", round, got, cut);
        check_set(&t, s, 0, 1, NULL);
        dcn_topo_free(&t);
    }
    free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("disjoint");
    TCase *tc = tcase_create("disjoint");
    tcase_add_test(tc, greedy_trap_needs_residual_paths);
    tcase_add_test(tc, parallel_middles_and_failures);
    tcase_add_test(tc, direct_link_and_bottleneck);
    tcase_add_test(tc, shared_switch_mode_counts_servers_only);
    tcase_add_test(tc, count_equals_min_vertex_cut_on_random_graphs);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
