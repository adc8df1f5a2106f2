/* dcn-sim's engine: ABT of complete BCubes equals Theorem 6 exactly, flow
 * counts on a hand-checked tree, dropped flows, the pattern subset, and
 * results that do not depend on the number of threads. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_engine.h"
#include "sim_failures.h"
#include "sim_routing.h"
#include "sim_topo.h"
#include "testutil.h"

static void run(const dcn_topo *t, const char *routing, const dcn_failures *f, const sim_config *cfg, sim_result *res)
{
    sim_routing r;
    char err[256];
    ck_assert_msg(sim_routing_resolve(&r, t, routing, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(sim_run(t, &r, f, cfg, res, err, sizeof err) == 0, "%s", err);
}

START_TEST(bcube_abt_equals_theorem_6)
{
    static const unsigned cases[][2] = {{2, 1}, {3, 1}, {4, 1}, {3, 2}, {4, 2}, {2, 3}, {5, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        unsigned n = cases[c][0], k = cases[c][1];
        char spec[48];
        snprintf(spec, sizeof spec, "bcube n=%u k=%u", n, k);
        dcn_topo t;
        tu_build(&t, spec);
        sim_config cfg;
        sim_config_default(&cfg);
        sim_result res;
        run(&t, "route", NULL, &cfg, &res);
        double N = t.n_servers, want = n * (N - 1) / (n - 1);
        ck_assert_msg(fabs(res.abt_gbps - want) < 1e-9 * want, "%s: ABT %.12f, Theorem 6 %.12f", spec, res.abt_gbps,
                      want);
        /* Every directed link carries (n-1)N/n flows. */
        uint32_t per_link = (uint32_t)((n - 1) * t.n_servers / n);
        for (uint64_t p = 0; p < res.n_ports; p++)
            ck_assert_uint_eq(res.link_flows[p], per_link);
        ck_assert_uint_eq(res.flows_routed, (uint64_t)t.n_servers * (t.n_servers - 1));
        sim_result_free(&res);
        dcn_topo_free(&t);
    }
}
END_TEST

/* tree leaves=2 per_leaf=2: servers 0,1 on leaf A, 2,3 on leaf B, one root.
 * 12 flows: 4 inside a leaf (2 links), 8 across (4 links). A server's uplink
 * and downlink carry 3 flows, a leaf-root link 4 each way: ABT = 12/4 = 3. */
START_TEST(hand_checked_tree)
{
    dcn_topo t;
    tu_build(&t, "tree leaves=2 per_leaf=2");
    sim_config cfg;
    sim_config_default(&cfg);
    sim_result res;
    run(&t, "route", NULL, &cfg, &res);
    ck_assert_uint_eq(res.flows_routed, 12);
    for (uint32_t v = 0; v < dcn_n_nodes(&t); v++)
        for (uint16_t p = 0; p < dcn_nports(&t, v); p++) {
            dcn_end e = dcn_peer(&t, v, p);
            if (e.node == DCN_NONE)
                continue;
            uint32_t c = res.link_flows[t.port_base[v] + p];
            bool server_link = dcn_kind(&t, v) == DCN_SERVER || dcn_kind(&t, e.node) == DCN_SERVER;
            ck_assert_uint_eq(c, server_link ? 3 : 4);
        }
    ck_assert_double_eq_tol(res.abt_gbps, 3.0, 1e-12);
    ck_assert_double_eq_tol(res.mean_links, 40.0 / 12.0, 1e-12);
    ck_assert_uint_eq(res.hist_links[2], 4);
    ck_assert_uint_eq(res.hist_links[4], 8);
    ck_assert_uint_eq(res.max_link_flows, 4);
    sim_result_free(&res);

    /* Server 0 down: its 6 flows are dropped; the uplink of leaf A now
     * carries 1 -> {2,3} only: 2 flows, the downlink into A 2 as well. */
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    dcn_fail_node(&f, 0);
    run(&t, "route", &f, &cfg, &res);
    ck_assert_uint_eq(res.flows_dropped, 6);
    ck_assert_uint_eq(res.flows_live, 6);
    ck_assert_uint_eq(res.flows_routed, 6);
    ck_assert_uint_eq(res.max_link_flows, 2);
    ck_assert_double_eq_tol(res.abt_gbps, 3.0, 1e-12);
    sim_result_free(&res);

    /* A failed leaf-root link: the 8 cross flows have no path. */
    dcn_failures_clear(&f, &t);
    ck_assert_int_eq(dcn_fail_link(&f, &t, dcn_switch_node(&t, 0), dcn_switch_node(&t, 2)), 0);
    run(&t, "route", &f, &cfg, &res);
    ck_assert_uint_eq(res.flows_unrouted, 8);
    ck_assert_double_eq_tol(res.path_failure_ratio, 8.0 / 12.0, 1e-12);
    ck_assert_uint_eq(res.flows_routed, 4);
    sim_result_free(&res);
    dcn_failures_free(&f);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(pattern_subset_counts_only_its_flows)
{
    dcn_topo t;
    tu_build(&t, "tree leaves=2 per_leaf=2");
    uint32_t servers[] = {0, 1};
    sim_config cfg;
    sim_config_default(&cfg);
    cfg.servers = servers;
    cfg.n_pattern = 2;
    sim_result res;
    run(&t, "route", NULL, &cfg, &res);
    ck_assert_uint_eq(res.flows_routed, 2);
    ck_assert_double_eq_tol(res.abt_gbps, 2.0, 1e-12); /* 0<->1, one flow per link */
    sim_result_free(&res);
    dcn_topo_free(&t);
}
END_TEST

/* Per-source draws: the same counts with 1 and 2 threads, for a random choice. */
START_TEST(threads_do_not_change_results)
{
    dcn_topo t;
    char err[256];
    char *words[] = {"n=4", "layers=3"};
    ck_assert_msg(sim_topo_build(&t, "mlfattree", 2, words, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(t.n_servers, 16);
    ck_assert_uint_eq(t.n_switches, 20);
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    ck_assert_int_eq(sim_failures_sample(&f, &t, SIM_FAIL_SWITCH, 0.1, 3), 2);
    sim_config cfg;
    sim_config_default(&cfg);
    sim_result a, b;
    cfg.threads = 1;
    run(&t, "ecmp", &f, &cfg, &a);
    cfg.threads = 2;
    run(&t, "ecmp", &f, &cfg, &b);
    ck_assert_uint_eq(a.flows_routed, b.flows_routed);
    for (uint64_t p = 0; p < a.n_ports; p++)
        ck_assert_uint_eq(a.link_flows[p], b.link_flows[p]);
    sim_result_free(&a);
    sim_result_free(&b);
    /* Sampled flows too. */
    cfg.sample_flows = 10000;
    cfg.threads = 1;
    run(&t, "ecmp", &f, &cfg, &a);
    cfg.threads = 2;
    run(&t, "ecmp", &f, &cfg, &b);
    ck_assert_uint_eq(a.flows_pattern, 10000);
    ck_assert_uint_eq(a.flows_routed, b.flows_routed);
    for (uint64_t p = 0; p < a.n_ports; p++)
        ck_assert_uint_eq(a.link_flows[p], b.link_flows[p]);
    sim_result_free(&a);
    sim_result_free(&b);
    dcn_failures_free(&f);
    dcn_topo_free(&t);
}
END_TEST

/* The multi-level fat-tree: every ECMP path valid and up-down; d-mod-k
 * balances all-to-all perfectly (ABT = N), and the BCube paper's 2048-host
 * instance has its switch counts. */
START_TEST(mlfattree_paths_and_sizes)
{
    char err[256];
    char *words[] = {"n=4", "layers=4"};
    dcn_topo t;
    ck_assert_msg(sim_topo_build(&t, "mlfattree", 2, words, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(t.n_servers, 32);
    ck_assert_uint_eq(t.n_switches, 3 * 16 + 8);
    dcn_pathset *s = malloc(sizeof *s);
    dcn_rng rng;
    dcn_rng_seed(&rng, 7);
    dcn_route_ctx ctx = {NULL, &rng};
    const dcn_algo *ecmp = dcn_family_algo(t.family, "ecmp");
    ck_assert_ptr_nonnull(ecmp);
    for (uint32_t a = 0; a < t.n_servers; a++)
        for (uint32_t b = 0; b < t.n_servers; b++) {
            if (a == b)
                continue;
            ck_assert_int_eq(ecmp->fn(&t, a, b, &ctx, s), 1);
            tu_check_pathset(&t, s, a, b, NULL, 0);
            uint32_t want = a / 2 == b / 2 ? 2 : a / 8 == b / 8 ? (a / 4 == b / 4 ? 4 : 6) : 8;
            ck_assert_uint_eq(s->path[0].len - 1, want);
        }
    sim_config cfg;
    sim_config_default(&cfg);
    sim_result res;
    run(&t, "dmodk", NULL, &cfg, &res);
    ck_assert_double_eq_tol(res.abt_gbps, 32.0, 1e-9);
    sim_result_free(&res);
    free(s);
    dcn_topo_free(&t);
    char *big[] = {"n=8", "layers=5"};
    ck_assert_msg(sim_topo_build(&t, "mlfattree", 2, big, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(t.n_servers, 2048);
    ck_assert_uint_eq(t.n_switches, 4 * 512 + 256);
    dcn_topo_free(&t);
    char *odd[] = {"n=7"};
    ck_assert_int_eq(sim_topo_build(&t, "mlfattree", 1, odd, err, sizeof err), -1);
    ck_assert_str_eq(err, "mlfattree: n=7 must be even (allowed 4..64)");
}
END_TEST

/* "shortest" reads every flow of a source from one BFS tree: the same link
 * counts as the library's per-pair BFS (dcn_algo_shortest), under failures. */
START_TEST(shortest_tree_matches_per_pair_bfs)
{
    dcn_topo t;
    tu_build(&t, "bcdc n=5");
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    ck_assert_int_eq(sim_failures_sample(&f, &t, SIM_FAIL_SERVER, 0.1, 4), 8); /* of 80 */
    dcn_fail_node(&f, dcn_switch_node(&t, 3));
    sim_config cfg;
    sim_config_default(&cfg);
    sim_result res;
    run(&t, "shortest", &f, &cfg, &res);
    uint32_t *want = calloc(res.n_ports, sizeof *want);
    dcn_pathset *s = malloc(sizeof *s);
    uint64_t routed = 0;
    for (uint32_t a = 0; a < t.n_servers; a++)
        for (uint32_t b = 0; b < t.n_servers; b++) {
            if (a == b || !dcn_node_ok(&f, a) || !dcn_node_ok(&f, b))
                continue;
            if (tu_paths(&t, "shortest", a, b, &f, 1, s) != 1)
                continue;
            routed++;
            for (uint32_t i = 0; i + 1 < s->path[0].len; i++)
                want[t.port_base[s->path[0].node[i]] +
                     (uint32_t)dcn_topo_port_to(&t, s->path[0].node[i], s->path[0].node[i + 1])]++;
        }
    ck_assert_uint_eq(res.flows_routed, routed);
    for (uint64_t p = 0; p < res.n_ports; p++)
        ck_assert_uint_eq(res.link_flows[p], want[p]);
    free(want);
    free(s);
    sim_result_free(&res);
    dcn_failures_free(&f);
    dcn_topo_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_engine");
    TCase *tc = tcase_create("engine");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, bcube_abt_equals_theorem_6);
    tcase_add_test(tc, hand_checked_tree);
    tcase_add_test(tc, pattern_subset_counts_only_its_flows);
    tcase_add_test(tc, threads_do_not_change_results);
    tcase_add_test(tc, mlfattree_paths_and_sizes);
    tcase_add_test(tc, shortest_tree_matches_per_pair_bfs);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
