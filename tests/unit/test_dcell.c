/* DCell: sizes (t_k recurrence), the [i, j-1] <-> [j, i] wiring,
 * DCellRouting on every pair of small instances, the k+1 path set. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "topo/bfs.h"

static void build_nk(dcn_topo *t, unsigned n, unsigned k)
{
    char spec[48];
    snprintf(spec, sizeof spec, "dcell n=%u k=%u", n, k);
    tu_build(t, spec);
}

START_TEST(sizes_follow_the_recurrence)
{
    dcn_topo t;
    build_nk(&t, 4, 1);
    ck_assert_uint_eq(t.n_servers, 20);
    ck_assert_uint_eq(t.n_switches, 5);
    ck_assert_uint_eq(t.n_links, 30);
    dcn_topo_free(&t);
    for (unsigned n = 2; n <= 6; n++)
        for (unsigned k = 0; k <= 3; k++) {
            uint64_t tk = n;
            for (unsigned l = 1; l <= k; l++)
                tk = tk * (tk + 1); /* t_l = g_l t_(l-1), g_l = t_(l-1) + 1 */
            if (tk > 200000) {
                char spec[48];
                snprintf(spec, sizeof spec, "dcell n=%u k=%u", n, k);
                tu_build_fails_with(spec, "servers");
                continue;
            }
            build_nk(&t, n, k);
            ck_assert_uint_eq(t.n_servers, tk);
            ck_assert_uint_eq(t.n_switches, tk / n);
            ck_assert_uint_eq(t.n_links, tk + k * tk / 2);
            for (uint32_t v = 0; v < dcn_n_nodes(&t); v++) /* every port cabled */
                for (uint16_t p = 0; p < dcn_nports(&t, v); p++)
                    ck_assert_uint_ne(dcn_peer(&t, v, p).node, DCN_NONE);
            dcn_topo_free(&t);
        }
    build_nk(&t, 2, 3);
    ck_assert_uint_eq(t.n_servers, 1806);
    dcn_topo_free(&t);
    build_nk(&t, 3, 2);
    ck_assert_uint_eq(t.n_servers, 156);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(level_links_join_i_jminus1_to_j_i)
{
    dcn_topo t;
    build_nk(&t, 4, 1);
    /* DCell_1, n=4: [i, j-1] <-> [j, i], uid = 4a_1 + a_0. */
    for (uint32_t i = 0; i < 5; i++)
        for (uint32_t j = i + 1; j < 5; j++) {
            dcn_end e = dcn_peer(&t, 4 * i + (j - 1), 1);
            ck_assert_uint_eq(e.node, 4 * j + i);
            ck_assert_uint_eq(e.port, 1);
        }
    ck_assert_str_eq(tu_path_str(&t, &(dcn_path){2, {tu_node(&t, "h7"), dcn_switch_node(&t, 1)}}), "h7 s1");
    dcn_topo_free(&t);
    build_nk(&t, 2, 2);
    /* Level 2 of n=2: t_1 = 6, g_2 = 7; [1, 4] <-> [5, 1] at uids 10 and 31. */
    ck_assert_uint_eq(dcn_peer(&t, 6 * 1 + 4, 2).node, 6 * 5 + 1);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(dcellrouting_all_pairs_valid)
{
    static const unsigned cases[][2] = {{4, 1}, {2, 2}, {3, 2}, {2, 3}};
    dcn_pathset *s = calloc(1, sizeof *s);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        dcn_topo t;
        build_nk(&t, cases[c][0], cases[c][1]);
        unsigned k = cases[c][1];
        uint32_t ns = t.n_servers, *hops = malloc(ns * sizeof *hops), step = ns > 200 ? 29 : 1;
        for (uint32_t u = 0; u < ns; u += step) {
            dcn_bfs_server_distances(&t, u, NULL, NULL, hops);
            for (uint32_t v = 0; v < ns; v++) {
                if (u == v)
                    continue;
                ck_assert_int_eq(tu_paths(&t, "route", u, v, NULL, 1, s), 1);
                tu_check_pathset(&t, s, u, v, NULL, 0);
                uint32_t h = dcn_path_server_hops(&s->path[0], &t);
                ck_assert_uint_ge(h, hops[v]);
                ck_assert_uint_le(h, (1u << (k + 1)) - 1);
            }
        }
        free(hops);
        dcn_topo_free(&t);
    }
    free(s);
}
END_TEST

START_TEST(route_example_in_dcell1)
{
    dcn_topo t;
    build_nk(&t, 4, 1);
    dcn_pathset *s = calloc(1, sizeof *s);
    /* [0,0] -> [4,3]: link [0,3]-[4,0], then [4,0] -> [4,3] on switch 4. */
    ck_assert_int_eq(tu_paths(&t, "route", tu_node(&t, "h0"), tu_node(&t, "h19"), NULL, 1, s), 1);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), "h0 s0 h3 h16 s4 h19");
    /* Failing the relay hides the route; the path set still has two. */
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    dcn_fail_node(&f, tu_node(&t, "h3"));
    ck_assert_int_eq(tu_paths(&t, "route", tu_node(&t, "h0"), tu_node(&t, "h19"), &f, 1, s), 0);
    ck_assert_int_eq(tu_paths(&t, NULL, tu_node(&t, "h0"), tu_node(&t, "h19"), &f, 1, s), 2);
    tu_check_pathset(&t, s, 0, 19, &f, 1);
    dcn_failures_free(&f);
    ck_assert_int_eq(tu_paths(&t, "route", 0, 0, NULL, 1, s), -1);
    ck_assert_int_eq(tu_paths(&t, "route", 0, 20, NULL, 1, s), -1);
    free(s);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(pathset_has_k_plus_1_disjoint_paths)
{
    static const unsigned cases[][2] = {{4, 1}, {3, 2}, {2, 2}};
    dcn_pathset *s = calloc(1, sizeof *s), *r = calloc(1, sizeof *r);
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        dcn_topo t;
        build_nk(&t, cases[c][0], cases[c][1]);
        unsigned k = cases[c][1];
        for (uint32_t u = 0; u < t.n_servers; u += 5)
            for (uint32_t v = 0; v < t.n_servers; v++) {
                if (u == v)
                    continue;
                ck_assert_int_eq(tu_paths(&t, NULL, u, v, NULL, 1, s), (int)k + 1);
                tu_check_pathset(&t, s, u, v, NULL, 1);
                ck_assert_int_eq(tu_paths(&t, "route", u, v, NULL, 1, r), 1);
            }
        dcn_topo_free(&t);
    }
    free(s);
    free(r);
}
END_TEST

START_TEST(bad_parameters)
{
    tu_build_fails_with("dcell n=1 k=1", "n=1 is out of range (allowed 2..48)");
    tu_build_fails_with("dcell n=4 k=4", "k=4 is out of range (allowed 0..3)");
    tu_build_fails_with("dcell n=6 k=3", "n=6 k=3");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dcell");
    TCase *tc = tcase_create("dcell");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, sizes_follow_the_recurrence);
    tcase_add_test(tc, level_links_join_i_jminus1_to_j_i);
    tcase_add_test(tc, dcellrouting_all_pairs_valid);
    tcase_add_test(tc, route_example_in_dcell1);
    tcase_add_test(tc, pathset_has_k_plus_1_disjoint_paths);
    tcase_add_test(tc, bad_parameters);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
