/* BCN(alpha,beta,h,gamma): slave ids and ranks, both slave rules, counts
 * (Lemmas 3-4, Eq. 7), BdimRouting, the alpha-1 path set inside and across
 * copies, local and remote reroute, diameter bound (Theorem 5). */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families/hcn_label.h"
#include "families/hcn_route.h"
#include "testutil.h"
#include "topo/bfs.h"
#include "topo/json.h"

static void check_server_disjoint(const dcn_topo *t, const dcn_pathset *s, uint32_t src, uint32_t dst)
{
    uint32_t ssw = dcn_peer(t, src, 0).node, dsw = dcn_peer(t, dst, 0).node;
    for (uint32_t a = 0; a < s->count; a++)
        for (uint32_t b = 0; b < a; b++)
            for (uint32_t i = 1; i + 1 < s->path[a].len; i++) {
                uint32_t v = s->path[a].node[i];
                if (v != ssw && v != dsw)
                    TU_CHECK(!dcn_path_contains(&s->path[b], v), "paths %u and %u share node %u: %s", b, a, v,
                          tu_path_str(t, &s->path[a]));
            }
}

static void check_names(const dcn_topo *t)
{
    for (uint32_t v = 0; v < dcn_n_nodes(t); v += 1 + dcn_n_nodes(t) / 200) {
        char name[DCN_NAME_MAX];
        dcn_node_name(t, v, name, sizeof name);
        ck_assert_msg(strlen(name) <= 10 && strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") == strlen(name),
                      "bad name %s", name);
        ck_assert_uint_eq(dcn_node_lookup(t, name), v);
    }
}

/* Theorem 4 / 5 bound in server hops. */
static uint32_t diameter_bound(const hcn_dims *d)
{
    return d->h < d->gamma || !d->rule ? (2u << d->h) - 1 : (2u << d->h) + (2u << d->gamma) - 1;
}

START_TEST(bcn_bad_parameters_name_the_parameter)
{
    tu_build_fails_with("bcn rule=5", "bcn: rule=5 is out of range (allowed 3..4)");
    tu_build_fails_with("bcn alpha=1", "alpha=1 is out of range (allowed 2..62)");
    tu_build_fails_with("bcn beta=0", "beta=0 is out of range (allowed 1..61)");
    tu_build_fails_with("bcn gamma=5", "gamma=5 is out of range (allowed 0..4)");
    tu_build_fails_with("bcn h=7", "h=7 is out of range (allowed 0..4)");
    tu_build_fails_with("bcn alpha=40 beta=30", "alpha+beta=70 switch ports is too many");
    tu_build_fails_with("bcn alpha=10 beta=10 h=2 gamma=2", "gives too many servers");
    tu_build_fails_with("bcn alpha=6 beta=10 h=1 gamma=1 delta=2", "unknown parameter 'delta'");
}
END_TEST

START_TEST(bcn_slave_ids_ranks_and_rules)
{
    hcn_dims d;
    char err[256];
    const uint32_t cases[][4] = {{2, 1, 1, 1}, {3, 2, 2, 1}, {4, 3, 3, 2}, {2, 3, 3, 0}, {5, 2, 2, 2}, {3, 1, 4, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (uint32_t rule = 3; rule <= 4; rule++) {
            ck_assert_int_eq(hcn_dims_init(&d, "bcn", cases[c][0], cases[c][1], cases[c][2], cases[c][3], rule, err,
                                           sizeof err),
                             0);
            uint32_t ranks = (uint32_t)hcn_ipow(d.alpha, d.h - d.gamma);
            /* Eq. 2 and Eq. 5 invert High/Low */
            for (uint32_t v = 1; v <= ranks; v++)
                for (uint32_t i = 1; i <= d.s; i++) {
                    hcn_label l;
                    hcn_slave_label(&d, 1, v, i, &l);
                    TU_CHECK(!hcn_is_master(&d, &l) && hcn_rank(&d, &l) == v && hcn_slave_id(&d, &l) == i, "High/Low");
                }
            /* the rule is a perfect matching of (u,i), one cable per pair of copies */
            uint32_t U = d.copies;
            uint8_t *pair = calloc((size_t)U * U, 1);
            for (uint32_t u = 1; u <= U; u++)
                for (uint32_t i = 1; i <= d.s; i++) {
                    uint32_t u2, i2, u3, i3;
                    hcn_slave_rule(&d, u, i, &u2, &i2);
                    TU_CHECK(u2 >= 1 && u2 <= U && u2 != u && i2 >= 1 && i2 <= d.s, "rule leaves the range");
                    hcn_slave_rule(&d, u2, i2, &u3, &i3);
                    TU_CHECK(u3 == u && i3 == i, "rule is not an involution");
                    pair[(u - 1) * U + (u2 - 1)]++;
                    /* GetInterLink finds this very cable */
                    hcn_label a, b;
                    hcn_inter_link(&d, u, u2, 1, &a, &b);
                    TU_CHECK(hcn_slave_id(&d, &a) == i && hcn_slave_id(&d, &b) == i2, "GetInterLink");
                }
            for (uint32_t u = 0; u < U; u++)
                for (uint32_t w = 0; w < U; w++)
                    TU_CHECK(pair[u * U + w] == (u != w), "copies %u,%u joined %u times", u, w, pair[u * U + w]);
            free(pair);
        }
    /* the corrected Eq. 3 on s = 4: (1,1) <-> (2,4) */
    ck_assert_int_eq(hcn_dims_init(&d, "bcn", 4, 4, 1, 0, 3, err, sizeof err), 0);
    uint32_t u2, i2;
    hcn_slave_rule(&d, 1, 1, &u2, &i2);
    ck_assert(u2 == 2 && i2 == 4);
    ck_assert_int_eq(hcn_dims_init(&d, "bcn", 4, 4, 1, 0, 4, err, sizeof err), 0);
    hcn_slave_rule(&d, 3, 2, &u2, &i2); /* Eq. 4: u > i -> (i, u-1) */
    ck_assert(u2 == 2 && i2 == 2);
}
END_TEST

START_TEST(bcn_counts_of_the_paper)
{
    dcn_topo t;
    tu_build(&t, "bcn alpha=6 beta=10 h=1 gamma=1");
    ck_assert_uint_eq(t.n_servers, 5856);
    ck_assert_uint_eq(t.n_switches, 366);
    ck_assert_uint_eq(t.n_links - t.n_servers, 2745);
    ck_assert_int_eq(tu_formula(&t, "servers"), 5856);
    ck_assert_int_eq(tu_formula(&t, "port2_cables"), 2745);
    ck_assert_int_eq(tu_formula(&t, "diameter_bound_server_hops"), 7);
    char name[DCN_NAME_MAX];
    dcn_node_name(&t, 0, name, sizeof name);
    ck_assert_str_eq(name, "h1_1_1");
    dcn_node_name(&t, t.n_servers - 1, name, sizeof name);
    ck_assert_str_eq(name, "h61_6_16");
    dcn_node_name(&t, dcn_n_nodes(&t) - 1, name, sizeof name);
    ck_assert_str_eq(name, "s61_6");
    check_names(&t);
    dcn_topo_free(&t);
    tu_build(&t, "bcn alpha=4 beta=4 h=1 gamma=0");
    ck_assert_uint_eq(t.n_servers, 160);
    dcn_node_name(&t, t.n_servers - 1, name, sizeof name);
    ck_assert_str_eq(name, "h5_48");
    ck_assert_int_eq(dcn_topo_port_to(&t, tu_node(&t, "h1_18"), tu_node(&t, "h5_15")), 1);
    ck_assert_int_eq(dcn_topo_port_to(&t, tu_node(&t, "h1_44"), tu_node(&t, "s1_4")), 0);
    ck_assert_int_eq(dcn_topo_port_to(&t, tu_node(&t, "s1_4"), tu_node(&t, "h1_48")), 7);
    dcn_topo_free(&t);
    /* E1's peaks (formula only) */
    tu_build(&t, "bcn alpha=21 beta=11 h=1 gamma=1");
    ck_assert_uint_eq(t.n_servers, 155904);
    dcn_topo_free(&t);
}
END_TEST

/* Lemma 3 (h < gamma) and Lemma 4 / Eq. 7 (h >= gamma), under both rules:
 * counts, degree-1 servers, every slave cable joins equal v in different u. */
START_TEST(bcn_counts_match_the_formulas)
{
    const uint32_t cases[][4] = {{2, 1, 1, 1}, {3, 2, 1, 1}, {4, 4, 1, 0}, {2, 2, 2, 1}, {3, 1, 2, 2}, {3, 2, 0, 0},
                                 {3, 2, 1, 2}, {2, 3, 3, 1}, {5, 3, 1, 1}, {4, 2, 2, 0}, {2, 1, 4, 2}, {6, 2, 0, 1}};
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
        for (uint32_t rule = 3; rule <= 4; rule++) {
            uint64_t a = cases[c][0], b = cases[c][1], h = cases[c][2], g = cases[c][3];
            char spec[96];
            snprintf(spec, sizeof spec, "bcn alpha=%llu beta=%llu h=%llu gamma=%llu rule=%u", (unsigned long long)a,
                     (unsigned long long)b, (unsigned long long)h, (unsigned long long)g, rule);
            dcn_topo t;
            tu_build(&t, spec);
            const hcn_dims *d = hcn_dims_of(&t);
            uint64_t ah = hcn_ipow(a, (uint32_t)h), U = h < g ? 1 : hcn_ipow(a, (uint32_t)g) * b + 1;
            ck_assert_uint_eq(t.n_servers, ah * (a + b) * U);
            ck_assert_uint_eq(t.n_switches, ah * U);
            uint64_t port2 = 0, degree1 = 0, slave_cables = 0;
            for (uint32_t v = 0; v < t.n_servers; v++) {
                uint32_t w = dcn_peer(&t, v, 1).node;
                if (w == DCN_NONE) {
                    degree1++;
                    continue;
                }
                if (w < v)
                    continue;
                port2++;
                hcn_label lv, lw;
                hcn_server_label(d, v, &lv);
                hcn_server_label(d, w, &lw);
                TU_CHECK(hcn_is_master(d, &lv) == hcn_is_master(d, &lw), "master-slave cable");
                if (!hcn_is_master(d, &lv)) {
                    slave_cables++;
                    TU_CHECK(lv.u != lw.u && hcn_rank(d, &lv) == hcn_rank(d, &lw), "slave cable %u-%u", v, w);
                } else {
                    TU_CHECK(lv.u == lw.u, "master cable across copies");
                }
            }
            if (h < g) {
                ck_assert_uint_eq(port2, (ah * a - a) / 2);
                ck_assert_uint_eq(degree1, a + ah * b);
            } else {
                ck_assert_uint_eq(port2, U * (ah * a - a) / 2 + ah * b * U / 2);
                ck_assert_uint_eq(slave_cables, ah * b * U / 2);
                ck_assert_uint_eq(degree1, a * U);
                ck_assert_int_eq(tu_formula(&t, "degree1_servers"), (long long)degree1);
            }
            ck_assert_int_eq(tu_formula(&t, "servers"), (long long)t.n_servers);
            ck_assert_int_eq(tu_formula(&t, "switches"), (long long)t.n_switches);
            ck_assert_int_eq(tu_formula(&t, "port2_cables"), (long long)port2);
            check_names(&t);
            dcn_topo_free(&t);
        }
}
END_TEST

/* All pairs of small instances: BdimRouting valid and within Theorem 5;
 * alpha-1 server-disjoint paths between servers on different switches, the
 * first of which is the routing path (Lemma 1 inside a copy; max-flow for
 * the others across copies). */
START_TEST(bcn_all_pairs_routes_and_path_sets)
{
    const char *specs[] = {"bcn alpha=2 beta=1 h=1 gamma=1", "bcn alpha=3 beta=2 h=1 gamma=1",
                           "bcn alpha=3 beta=2 h=1 gamma=1 rule=4", "bcn alpha=2 beta=2 h=2 gamma=1",
                           "bcn alpha=3 beta=2 h=0 gamma=0", "bcn alpha=3 beta=2 h=1 gamma=2",
                           "bcn alpha=4 beta=1 h=1 gamma=0", "bcn alpha=4 beta=2 h=1 gamma=0 rule=4"};
    dcn_pathset *s = calloc(1, sizeof *s), *r = calloc(1, sizeof *r);
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        dcn_topo t;
        tu_build(&t, specs[k]);
        const hcn_dims *d = hcn_dims_of(&t);
        for (uint32_t a = 0; a < t.n_servers; a++)
            for (uint32_t b = 0; b < t.n_servers; b++) {
                if (a == b)
                    continue;
                TU_CHECK(tu_paths(&t, "route", a, b, NULL, 1, r) == 1, "no route");
                tu_check_paths_fast(&t, r, a, b, NULL);
                TU_CHECK(dcn_path_server_hops(&r->path[0], &t) <= diameter_bound(d), "%s: route too long: %s", specs[k],
                      tu_path_str(&t, &r->path[0]));
                int n = tu_paths(&t, NULL, a, b, NULL, 1, s);
                int same_switch = dcn_peer(&t, a, 0).node == dcn_peer(&t, b, 0).node;
                TU_CHECK(n == (same_switch ? 1 : (int)d->alpha - 1), "%s %u->%u: %d paths", specs[k], a, b, n);
                tu_check_paths_fast(&t, s, a, b, NULL);
                check_server_disjoint(&t, s, a, b);
                TU_CHECK(r->path[0].len == s->path[0].len &&
                          !memcmp(r->path[0].node, s->path[0].node, r->path[0].len * sizeof r->path[0].node[0]),
                      "%s %u->%u: path 0 is not the route", specs[k], a, b);
            }
        dcn_topo_free(&t);
    }
    free(s);
    free(r);
}
END_TEST

/* Across copies of BCN(6,10,1,1): 5 disjoint paths for a sample of pairs. */
START_TEST(bcn_path_set_across_copies_of_the_paper_network)
{
    dcn_topo t;
    tu_build(&t, "bcn alpha=6 beta=10 h=1 gamma=1");
    dcn_pathset *s = calloc(1, sizeof *s);
    dcn_rng rng;
    dcn_rng_seed(&rng, 3);
    for (int q = 0; q < 60; q++) {
        uint32_t a = dcn_rng_below(&rng, t.n_servers), b = dcn_rng_below(&rng, t.n_servers);
        if (a == b || dcn_peer(&t, a, 0).node == dcn_peer(&t, b, 0).node)
            continue;
        TU_CHECK(tu_paths(&t, NULL, a, b, NULL, 1, s) == 5, "not 5 paths");
        tu_check_paths_fast(&t, s, a, b, NULL);
        check_server_disjoint(&t, s, a, b);
    }
    free(s);
    dcn_topo_free(&t);
}
END_TEST

/* Theorem 5's bound holds; with h < gamma the network is HCN-like and the
 * diameter is 2^(h+1)-1. E6's n=8 row: BCN(5,3,1,1) has mean shortest path
 * 5.533 and mean routing path 5.736 (Eq. 3). */
START_TEST(bcn_diameter_and_mean_path_lengths)
{
    const char *specs[] = {"bcn alpha=3 beta=2 h=1 gamma=1", "bcn alpha=2 beta=2 h=2 gamma=1",
                           "bcn alpha=3 beta=2 h=1 gamma=2", "bcn alpha=4 beta=4 h=1 gamma=0",
                           "bcn alpha=2 beta=2 h=2 gamma=1 rule=4", "bcn alpha=5 beta=3 h=1 gamma=1"};
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        dcn_topo t;
        tu_build(&t, specs[k]);
        const hcn_dims *d = hcn_dims_of(&t);
        double sum;
        uint32_t diam = tu_server_diameter(&t, &sum);
        ck_assert_msg(diam <= diameter_bound(d), "%s: diameter %u > %u", specs[k], diam, diameter_bound(d));
        if (d->h < d->gamma)
            ck_assert_uint_eq(diam, (2u << d->h) - 1);
        if (k == 5) {
            double pairs = (double)t.n_servers * (t.n_servers - 1);
            ck_assert_msg(fabs(sum / pairs - 5.533) < 0.0005, "mean shortest %f", sum / pairs);
            ck_assert_uint_eq(diam, 7);
            dcn_pathset *s = calloc(1, sizeof *s);
            double route_sum = 0;
            for (uint32_t a = 0; a < t.n_servers; a++)
                for (uint32_t b = 0; b < t.n_servers; b++)
                    if (a != b) {
                        TU_CHECK(tu_paths(&t, "route", a, b, NULL, 1, s) == 1, "no route");
                        route_sum += dcn_path_server_hops(&s->path[0], &t);
                    }
            ck_assert_msg(fabs(route_sum / pairs - 5.736) < 0.0005, "mean route %f", route_sum / pairs);
            free(s);
        }
        dcn_topo_free(&t);
    }
}
END_TEST

START_TEST(bcn_remote_reroute)
{
    dcn_topo t;
    tu_build(&t, "bcn alpha=4 beta=4 h=1 gamma=0");
    dcn_pathset *s = calloc(1, sizeof *s);
    uint32_t a = tu_node(&t, "h1_11"), b = tu_node(&t, "h5_48");
    ck_assert_int_eq(tu_paths(&t, "route", a, b, NULL, 1, s), 1);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), "h1_11 s1_1 h1_18 h5_15 s5_1 h5_14 h5_41 s5_4 h5_48");
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    /* dst1-src1 cable down: dst1 = h1_18 hands over to h1_15, whose cable
     * reaches copy 2; BdimRouting from there */
    const char *want = "h1_11 s1_1 h1_15 h2_18 s2_1 h2_17 h5_16 s5_1 h5_14 h5_41 s5_4 h5_48";
    dcn_path full, trace;
    ck_assert_int_eq(dcn_fail_link(&f, &t, tu_node(&t, "h1_18"), tu_node(&t, "h5_15")), 0);
    ck_assert_int_eq(tu_paths(&t, "reroute", a, b, &f, 1, s), 1);
    tu_check_pathset(&t, s, a, b, &f, 0);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), want);
    ck_assert_int_eq(hcn_reroute(&t, a, b, &f, &full, &trace), 1);
    ck_assert_str_eq(tu_path_str(&t, &trace), "h1_11 h1_18 h1_15 h2_18 h2_17 h5_16 h5_14 h5_41 h5_48");
    /* dst1 itself down: the server before it reacts */
    dcn_failures_clear(&f, &t);
    dcn_fail_node(&f, tu_node(&t, "h1_18"));
    ck_assert_int_eq(hcn_reroute(&t, a, b, &f, &full, &trace), 1);
    ck_assert_str_eq(tu_path_str(&t, &trace), "h1_11 h1_15 h2_18 h2_17 h5_16 h5_14 h5_41 h5_48");
    /* src1 down */
    dcn_failures_clear(&f, &t);
    dcn_fail_node(&f, tu_node(&t, "h5_15"));
    ck_assert_int_eq(tu_paths(&t, "reroute", a, b, &f, 1, s), 1);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), want);
    ck_assert_int_eq(tu_paths(&t, "route", a, b, &f, 1, s), 0);
    /* local reroute in the destination's copy: h5_14-h5_41 down */
    dcn_failures_clear(&f, &t);
    ck_assert_int_eq(dcn_fail_link(&f, &t, tu_node(&t, "h5_14"), tu_node(&t, "h5_41")), 0);
    ck_assert_int_eq(hcn_reroute(&t, a, b, &f, &full, &trace), 1);
    ck_assert_str_eq(tu_path_str(&t, &trace), "h1_11 h1_18 h5_15 h5_14 h5_12 h5_21 h5_24 h5_42 h5_48");
    ck_assert(dcn_path_valid(&full, &t, &f, NULL));
    dcn_failures_free(&f);
    free(s);
    dcn_topo_free(&t);
}
END_TEST

/* Every single failure on BCN(3,2,1,1) and BCN(2,2,2,1), a sample of pairs:
 * reroute finds a valid path exactly when one survives; failed servers and
 * port-2 cables are handled by the paper's rules when alpha >= 3, beta >= 2. */
START_TEST(bcn_reroute_survives_every_single_failure)
{
    const char *specs[] = {"bcn alpha=3 beta=2 h=1 gamma=1", "bcn alpha=2 beta=2 h=2 gamma=1",
                           "bcn alpha=4 beta=2 h=1 gamma=0 rule=4"};
    dcn_pathset *s = calloc(1, sizeof *s);
    dcn_path bfs, full, trace;
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        dcn_topo t;
        tu_build(&t, specs[k]);
        const hcn_dims *d = hcn_dims_of(&t);
        dcn_failures f;
        ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
        uint32_t nn = dcn_n_nodes(&t);
        for (uint32_t c = 0; c < nn + 2 * t.n_servers; c++) {
            dcn_failures_clear(&f, &t);
            if (c < nn) {
                dcn_fail_node(&f, c);
            } else {
                uint32_t v = (c - nn) / 2;
                uint16_t p = (uint16_t)((c - nn) % 2);
                if (dcn_peer(&t, v, p).node == DCN_NONE)
                    continue;
                dcn_fail_port(&f, &t, v, p);
            }
            for (uint32_t a = c % 11; a < t.n_servers; a += 11)
                for (uint32_t b = c % 3; b < t.n_servers; b += 3) {
                    if (a == b)
                        continue;
                    int n = tu_paths(&t, "reroute", a, b, &f, 1, s);
                    int exists = dcn_bfs_path(&t, a, b, &f, NULL, &bfs) == 0;
                    TU_CHECK(n == exists, "%s scenario %u %u->%u: %d paths, bfs %d", specs[k], c, a, b, n, exists);
                    tu_check_paths_fast(&t, s, a, b, &f);
                    int papers_case = (c < t.n_servers && c != a && c != b) || (c >= nn && (c - nn) % 2 == 1);
                    if (papers_case && d->alpha >= 3 && d->beta >= 2) {
                        TU_CHECK(hcn_reroute(&t, a, b, &f, &full, &trace) == 1 && trace.len > 0,
                              "%s scenario %u %u->%u used the fallback", specs[k], c, a, b);
                    }
                }
        }
        dcn_failures_free(&f);
        dcn_topo_free(&t);
    }
    free(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bcn");
    TCase *tc = tcase_create("bcn");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, bcn_bad_parameters_name_the_parameter);
    tcase_add_test(tc, bcn_slave_ids_ranks_and_rules);
    tcase_add_test(tc, bcn_counts_of_the_paper);
    tcase_add_test(tc, bcn_counts_match_the_formulas);
    tcase_add_test(tc, bcn_all_pairs_routes_and_path_sets);
    tcase_add_test(tc, bcn_path_set_across_copies_of_the_paper_network);
    tcase_add_test(tc, bcn_diameter_and_mean_path_lengths);
    tcase_add_test(tc, bcn_remote_reroute);
    tcase_add_test(tc, bcn_reroute_survives_every_single_failure);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
