/* DCell's partial build (servers=N) and DFR, its fault-tolerant routing:
 * without failures DFR is DCellRouting; under failures every path it gives
 * is valid and avoids them; a failed top-level link is routed around
 * through a proxy sub-DCell. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "topo/bfs.h"

START_TEST(partial_dcell_is_a_prefix)
{
    dcn_topo t;
    tu_build(&t, "dcell n=8 k=2 servers=2048"); /* the BCube paper's: 28 DCell_1 + 32 servers */
    ck_assert_uint_eq(t.n_servers, 2048);
    ck_assert_uint_eq(t.n_switches, 256);
    ck_assert_int_eq(tu_formula(&t, "servers"), 2048);
    /* Every level-2 link among the 29 present DCell_1s exists: 29*28/2. */
    uint32_t l2 = 0;
    for (uint32_t u = 0; u < t.n_servers; u++)
        l2 += dcn_peer(&t, u, 2).node != DCN_NONE;
    ck_assert_uint_eq(l2, 29 * 28);
    /* Connected: BFS reaches every server from server 0 and the last one. */
    uint32_t *hops = malloc(t.n_servers * sizeof *hops);
    dcn_bfs_server_distances(&t, 0, NULL, NULL, hops);
    for (uint32_t v = 0; v < t.n_servers; v++)
        ck_assert_uint_ne(hops[v], UINT32_MAX);
    free(hops);
    dcn_topo_free(&t);
    ck_assert_str_eq(tu_build_fails("dcell n=8 k=2 servers=2047"),
                     "dcell: servers=2047 must be a multiple of n=8 in 16..5256 (0: all)");
    ck_assert_str_eq(tu_build_fails("dcell n=4 k=1 servers=24"), "dcell: servers=24 must be a multiple of n=4 in 8..20 (0: all)");
}
END_TEST

START_TEST(dfr_without_failures_is_dcellrouting)
{
    static const char *specs[] = {"dcell n=3 k=2", "dcell n=4 k=1", "dcell n=8 k=2 servers=512", "dcell n=2 k=3"};
    dcn_pathset *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    for (size_t c = 0; c < sizeof specs / sizeof specs[0]; c++) {
        dcn_topo t;
        tu_build(&t, specs[c]);
        uint32_t step = t.n_servers > 1000 ? 97 : t.n_servers > 200 ? 7 : 1;
        for (uint32_t u = 0; u < t.n_servers; u += step)
            for (uint32_t v = 0; v < t.n_servers; v++) {
                if (u == v)
                    continue;
                TU_CHECK(tu_paths(&t, "route", u, v, NULL, 1, a) == 1, "%s: route %u->%u", specs[c], u, v);
                TU_CHECK(tu_paths(&t, "dfr", u, v, NULL, 1, b) == 1, "%s: dfr %u->%u", specs[c], u, v);
                TU_CHECK(a->path[0].len == b->path[0].len &&
                             memcmp(a->path[0].node, b->path[0].node, a->path[0].len * sizeof(uint32_t)) == 0,
                         "%s: %u->%u dfr differs from DCellRouting", specs[c], u, v);
            }
        dcn_topo_free(&t);
    }
    free(a);
    free(b);
}
END_TEST

START_TEST(dfr_paths_avoid_failures)
{
    dcn_topo t;
    tu_build(&t, "dcell n=4 k=2"); /* 420 servers */
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    dcn_rng rng;
    dcn_rng_seed(&rng, 11);
    for (int i = 0; i < 30; i++)
        dcn_fail_node(&f, dcn_rng_below(&rng, t.n_servers));
    for (int i = 0; i < 5; i++)
        dcn_fail_node(&f, dcn_switch_node(&t, dcn_rng_below(&rng, t.n_switches)));
    dcn_pathset *s = malloc(sizeof *s);
    uint32_t routed = 0, live = 0;
    for (uint32_t u = 0; u < t.n_servers; u += 3)
        for (uint32_t v = 0; v < t.n_servers; v += 2) {
            if (u == v || !dcn_node_ok(&f, u) || !dcn_node_ok(&f, v))
                continue;
            live++;
            int n = tu_paths(&t, "dfr", u, v, &f, u * 1000 + v, s);
            TU_CHECK(n == 0 || n == 1, "dfr %u->%u returned %d", u, v, n);
            if (n == 1) {
                routed++;
                tu_check_paths_fast(&t, s, u, v, &f);
            }
        }
    ck_assert_msg(routed * 100 >= live * 95, "dfr routed only %u of %u live pairs", routed, live);
    /* A failed endpoint: no path, not an error. */
    uint32_t dead = 0;
    while (dcn_node_ok(&f, dead))
        dead++;
    ck_assert_int_eq(tu_paths(&t, "dfr", dead, dead + 1 < t.n_servers ? dead + 1 : 0, &f, 1, s), 0);
    free(s);
    dcn_failures_free(&f);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(failed_top_link_goes_through_a_proxy)
{
    dcn_topo t;
    tu_build(&t, "dcell n=4 k=2");
    /* uid 0 is in DCell_1 #0, uid 20*5 = 100 in DCell_1 #5. Their level-2
     * link is [0, 4] <-> [5, 0]: uids 4 and 100. */
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    ck_assert_int_eq(dcn_fail_link(&f, &t, 4, 100), 0);
    dcn_pathset *s = malloc(sizeof *s);
    ck_assert_int_eq(tu_paths(&t, "route", 0, 101, &f, 1, s), 0);
    ck_assert_int_eq(tu_paths(&t, "dfr", 0, 101, &f, 1, s), 1);
    tu_check_pathset(&t, s, 0, 101, &f, 0);
    /* The detour enters a third DCell_1 (neither #0 nor #5). */
    bool third = false;
    for (uint32_t i = 0; i < s->path[0].len; i++) {
        uint32_t v = s->path[0].node[i];
        if (v < t.n_servers && v / 20 != 0 && v / 20 != 5)
            third = true;
    }
    ck_assert(third);
    free(s);
    dcn_failures_free(&f);
    dcn_topo_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("dcell_dfr");
    TCase *tc = tcase_create("dfr");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, partial_dcell_is_a_prefix);
    tcase_add_test(tc, dfr_without_failures_is_dcellrouting);
    tcase_add_test(tc, dfr_paths_avoid_failures);
    tcase_add_test(tc, failed_top_link_goes_through_a_proxy);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
