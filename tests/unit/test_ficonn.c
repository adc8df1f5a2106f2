/* FiConn(n,k), the baseline of the HCN/BCN paper: counts (recurrence,
 * 5,328 and 361,200), wiring rule, names, TOR routing, diameter bound. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "topo/bfs.h"
#include "topo/json.h"

/* N_k = N_(k-1) * (N_(k-1)/2^k + 1), N_0 = n. */
static uint64_t ficonn_servers(uint64_t n, uint32_t k)
{
    uint64_t N = n;
    for (uint32_t l = 1; l <= k; l++)
        N = N * (N / (1ull << l) + 1);
    return N;
}

START_TEST(ficonn_bad_parameters_name_the_parameter)
{
    tu_build_fails_with("ficonn n=5", "ficonn: n=5 must be even");
    tu_build_fails_with("ficonn n=1", "n=1 is out of range (allowed 2..62)");
    tu_build_fails_with("ficonn n=64", "n=64 is out of range");
    tu_build_fails_with("ficonn k=5", "k=5 is out of range (allowed 0..4)");
    tu_build_fails_with("ficonn n=16 k=3", "n=16 k=3 gives too many servers");
    tu_build_fails_with("ficonn n=4 q=1", "unknown parameter 'q'");
}
END_TEST

START_TEST(ficonn_counts_of_the_paper)
{
    dcn_topo t;
    tu_build(&t, "ficonn n=16 k=2");
    ck_assert_uint_eq(t.n_servers, 5328); /* the paper prints 5,327 */
    ck_assert_uint_eq(t.n_switches, 333);
    ck_assert_uint_eq(t.n_links - t.n_servers, (5328 - 1332) / 2);
    ck_assert_int_eq(tu_formula(&t, "free_port2_servers"), 1332);
    ck_assert_int_eq(tu_formula(&t, "bisection_lower_bound"), 5328 / 16);
    dcn_topo_free(&t);
    /* FiConn(48,2): the formula, then the built network (fast enough) */
    ck_assert_uint_eq(ficonn_servers(48, 2), 361200);
    tu_build(&t, "ficonn n=48 k=2");
    ck_assert_uint_eq(t.n_servers, 361200);
    ck_assert_int_eq(tu_formula(&t, "servers"), 361200);
    ck_assert_int_eq(tu_formula(&t, "port2_cables"), (361200 - 361200 / 4) / 2);
    ck_assert_str_eq(tu_name(&t, t.n_servers - 1), "h300_24_47");
    ck_assert_str_eq(tu_name(&t, dcn_n_nodes(&t) - 1), "s300_24");
    dcn_topo_free(&t);
}
END_TEST

/* For every buildable small (n,k): the recurrence, switches N/n, backup
 * (port-2) cables (N-b)/2 with b = N/2^k free, g_l(g_l-1)/2 cables per
 * FiConn_l, level-l servers at uid = 2^(l-1)-1 mod 2^l. */
START_TEST(ficonn_counts_match_the_recurrence)
{
    for (uint32_t n = 2; n <= 12; n += 2)
        for (uint32_t k = 0; k <= 4; k++) {
            uint64_t N = ficonn_servers(n, k);
            if (N > 60000)
                continue;
            char spec[64];
            snprintf(spec, sizeof spec, "ficonn n=%u k=%u", n, k);
            dcn_topo t;
            tu_build(&t, spec);
            ck_assert_uint_eq(t.n_servers, N);
            ck_assert_uint_eq(t.n_switches, N / n);
            uint64_t b = N >> k, free_backup = 0, cables = 0, per_level[6] = {0};
            for (uint32_t v = 0; v < t.n_servers; v++) {
                TU_CHECK(dcn_peer(&t, v, 0).node == dcn_switch_node(&t, v / n), "server %u's switch", v);
                uint32_t w = dcn_peer(&t, v, 1).node;
                /* the level of a server's backup cable: v = 2^(l-1)-1 mod 2^l */
                uint32_t level = 1;
                while (level <= k && v % (1u << level) != (1u << (level - 1)) - 1)
                    level++;
                if (w == DCN_NONE) {
                    free_backup++;
                    TU_CHECK(level > k, "server %u at level %u has no backup cable", v, level);
                    continue;
                }
                TU_CHECK(level <= k && dcn_kind(&t, w) == DCN_SERVER, "server %u's backup cable", v);
                if (w > v) {
                    cables++;
                    per_level[level]++;
                }
            }
            ck_assert_uint_eq(free_backup, b);
            ck_assert_uint_eq(cables, (N - b) / 2);
            ck_assert_int_eq(tu_formula(&t, "port2_cables"), (long long)cables);
            for (uint32_t l = 1; l <= k; l++) {
                char key[32];
                snprintf(key, sizeof key, "port2_cables_level_%u", l);
                ck_assert_int_eq(tu_formula(&t, key), (long long)per_level[l]);
                uint64_t g = ficonn_servers(n, l - 1) / (1ull << (l - 1)) / 2 + 1;
                ck_assert_uint_eq(per_level[l], N / ficonn_servers(n, l) * g * (g - 1) / 2);
            }
            dcn_topo_free(&t);
        }
}
END_TEST

START_TEST(ficonn_names)
{
    dcn_topo t;
    tu_build(&t, "ficonn n=4 k=2");
    ck_assert_str_eq(tu_name(&t, 0), "h0_0_0");
    ck_assert_str_eq(tu_name(&t, 9), "h0_2_1");
    ck_assert_str_eq(tu_name(&t, 47), "h3_2_3");
    ck_assert_str_eq(tu_name(&t, t.n_servers + 11), "s3_2");
    /* FiConn's level-2 cable [0, uid 9] - [3, uid 1] */
    ck_assert_int_eq(dcn_topo_port_to(&t, tu_node(&t, "h0_2_1"), tu_node(&t, "h3_0_1")), 1);
    for (uint32_t v = 0; v < dcn_n_nodes(&t); v++)
        ck_assert_uint_eq(dcn_node_lookup(&t, tu_name(&t, v)), v);
    dcn_topo_free(&t);
    tu_build(&t, "ficonn n=6 k=0");
    ck_assert_str_eq(tu_name(&t, 5), "h5");
    ck_assert_str_eq(tu_name(&t, 6), "s0");
    dcn_topo_free(&t);
    tu_build(&t, "ficonn n=4 k=4"); /* h21_6_3_2_3 would be 11 characters: ids */
    ck_assert_str_eq(tu_name(&t, 7391), "h7391");
    ck_assert_str_eq(tu_name(&t, t.n_servers), "s0");
    dcn_topo_free(&t);
}
END_TEST

/* TOR on all pairs: valid, at most 2^(k+1)-1 hops, failure-oblivious. */
START_TEST(ficonn_tor_all_pairs)
{
    const char *specs[] = {"ficonn n=4 k=2", "ficonn n=6 k=2", "ficonn n=4 k=3", "ficonn n=2 k=4", "ficonn n=8 k=1",
                           "ficonn n=4 k=0"};
    dcn_pathset *s = calloc(1, sizeof *s);
    for (size_t q = 0; q < sizeof specs / sizeof specs[0]; q++) {
        dcn_topo t;
        tu_build(&t, specs[q]);
        uint32_t k = (uint32_t)dcn_param(&t.params, "k");
        for (uint32_t a = 0; a < t.n_servers; a++)
            for (uint32_t b = 0; b < t.n_servers; b++) {
                if (a == b)
                    continue;
                TU_CHECK(tu_paths(&t, NULL, a, b, NULL, 1, s) == 1, "no route");
                const char *why = NULL;
                const dcn_path *p = &s->path[0];
                TU_CHECK(dcn_path_valid(p, &t, NULL, &why) && p->node[0] == a && p->node[p->len - 1] == b,
                      "%s: bad route (%s): %s", specs[q], why, tu_path_str(&t, p));
                TU_CHECK(dcn_path_server_hops(p, &t) <= (2u << k) - 1, "%s: route too long", specs[q]);
            }
        dcn_topo_free(&t);
    }
    dcn_topo t;
    tu_build(&t, "ficonn n=4 k=2");
    uint32_t a = tu_node(&t, "h0_0_0"), b = tu_node(&t, "h3_2_3");
    ck_assert_int_eq(tu_paths(&t, "route", a, b, NULL, 1, s), 1);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]),
                     "h0_0_0 s0_0 h0_0_2 h0_2_0 s0_2 h0_2_1 h3_0_1 s3_0 h3_0_2 h3_2_0 s3_2 h3_2_3");
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    dcn_fail_node(&f, tu_node(&t, "h0_2_0"));
    ck_assert_int_eq(tu_paths(&t, "route", a, b, &f, 1, s), 0);
    ck_assert_int_eq(tu_paths(&t, "route", a, a, NULL, 1, s), -1);
    dcn_failures_free(&f);
    free(s);
    dcn_topo_free(&t);
}
END_TEST

/* BFS diameter within 2^(k+1)-1; E6's n=8 row: mean shortest path 5.535. */
START_TEST(ficonn_diameter_and_mean_shortest_path)
{
    const char *specs[] = {"ficonn n=4 k=2", "ficonn n=6 k=2", "ficonn n=4 k=3", "ficonn n=8 k=2"};
    for (size_t q = 0; q < sizeof specs / sizeof specs[0]; q++) {
        dcn_topo t;
        tu_build(&t, specs[q]);
        uint32_t k = (uint32_t)dcn_param(&t.params, "k");
        double sum;
        uint32_t diam = tu_server_diameter(&t, &sum);
        ck_assert_uint_le(diam, (2u << k) - 1);
        ck_assert_int_eq(tu_formula(&t, "diameter_bound_server_hops"), (2u << k) - 1);
        if (q == 3) {
            double mean = sum / ((double)t.n_servers * (t.n_servers - 1));
            ck_assert_msg(fabs(mean - 5.535) < 0.0005, "mean %f", mean);
        }
        dcn_topo_free(&t);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ficonn");
    TCase *tc = tcase_create("ficonn");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, ficonn_bad_parameters_name_the_parameter);
    tcase_add_test(tc, ficonn_counts_of_the_paper);
    tcase_add_test(tc, ficonn_counts_match_the_recurrence);
    tcase_add_test(tc, ficonn_names);
    tcase_add_test(tc, ficonn_tor_all_pairs);
    tcase_add_test(tc, ficonn_diameter_and_mean_shortest_path);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
