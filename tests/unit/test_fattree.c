/* Fat-tree: counts, wiring by layer, every path of the set valid and
 * distinct, the deterministic route. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "topo/bfs.h"

static void build_k(dcn_topo *t, unsigned k)
{
    char spec[32];
    snprintf(spec, sizeof spec, "fattree k=%u", k);
    tu_build(t, spec);
}

START_TEST(counts)
{
    static const unsigned ks[] = {2, 4, 6, 8, 16, 48};
    for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++) {
        unsigned k = ks[i];
        dcn_topo t;
        build_k(&t, k);
        ck_assert_uint_eq(t.n_servers, k * k * k / 4);
        ck_assert_uint_eq(t.n_switches, 5 * k * k / 4);
        ck_assert_uint_eq(t.n_links, 3 * k * k * k / 4);
        for (uint32_t v = 0; v < dcn_n_nodes(&t); v++) {
            ck_assert_uint_eq(dcn_nports(&t, v), v < t.n_servers ? 1 : k);
            for (uint16_t p = 0; p < dcn_nports(&t, v); p++)
                ck_assert_uint_ne(dcn_peer(&t, v, p).node, DCN_NONE);
        }
        dcn_topo_free(&t);
    }
    dcn_topo t;
    build_k(&t, 48);
    char name[DCN_NAME_MAX];
    dcn_node_name(&t, t.n_servers - 1, name, sizeof name);
    ck_assert_str_eq(name, "h47_23_23");
    dcn_topo_free(&t);
}
END_TEST

START_TEST(wiring_and_names)
{
    dcn_topo t;
    build_k(&t, 4);
    ck_assert_uint_eq(dcn_peer(&t, tu_node(&t, "h1_1_0"), 0).node, tu_node(&t, "se1_1"));
    ck_assert_int_eq(dcn_topo_port_to(&t, tu_node(&t, "se1_1"), tu_node(&t, "sa1_0")), 2);
    ck_assert_int_eq(dcn_topo_port_to(&t, tu_node(&t, "sa1_0"), tu_node(&t, "se1_1")), 1);
    ck_assert_int_eq(dcn_topo_port_to(&t, tu_node(&t, "sa3_1"), tu_node(&t, "sc1_0")), 2);
    ck_assert_int_eq(dcn_topo_port_to(&t, tu_node(&t, "sc1_0"), tu_node(&t, "sa3_1")), 3);
    ck_assert_int_eq(dcn_topo_port_to(&t, tu_node(&t, "sc0_0"), tu_node(&t, "sa3_1")), -1);
    for (uint32_t v = 0; v < dcn_n_nodes(&t); v++) {
        char name[DCN_NAME_MAX];
        dcn_node_name(&t, v, name, sizeof name);
        ck_assert_uint_eq(dcn_node_lookup(&t, name), v);
    }
    dcn_topo_free(&t);
}
END_TEST

START_TEST(all_paths_valid)
{
    dcn_pathset *s = calloc(1, sizeof *s);
    for (unsigned k = 2; k <= 8; k += 2) {
        dcn_topo t;
        build_k(&t, k);
        unsigned h = k / 2;
        uint32_t ns = t.n_servers, *links = malloc(ns * sizeof *links);
        for (uint32_t u = 0; u < ns; u += (k >= 8 ? 5 : 1)) {
            dcn_bfs_server_distances(&t, u, NULL, links, NULL);
            for (uint32_t v = 0; v < ns; v++) {
                if (u == v)
                    continue;
                uint32_t want = u / (h * h) != v / (h * h) ? h * h : u / h != v / h ? h : 1;
                ck_assert_int_eq(tu_paths(&t, NULL, u, v, NULL, 1, s), (int)want);
                tu_check_pathset(&t, s, u, v, NULL, 0);
                for (uint32_t i = 0; i < s->count; i++) {
                    ck_assert_uint_eq(dcn_path_links(&s->path[i]), links[v]); /* all shortest */
                    for (uint32_t j = 0; j < i; j++)
                        ck_assert(s->path[i].len != s->path[j].len ||
                                  memcmp(s->path[i].node, s->path[j].node, s->path[i].len * sizeof(uint32_t)));
                }
                ck_assert_int_eq(tu_paths(&t, "route", u, v, NULL, 1, s), 1);
                tu_check_pathset(&t, s, u, v, NULL, 0);
                ck_assert_uint_eq(dcn_path_links(&s->path[0]), links[v]);
            }
        }
        free(links);
        dcn_topo_free(&t);
    }
    free(s);
}
END_TEST

START_TEST(route_spreads_and_failures_prune)
{
    dcn_topo t;
    build_k(&t, 4);
    dcn_pathset *s = calloc(1, sizeof *s);
    ck_assert_int_eq(tu_paths(&t, "route", tu_node(&t, "h0_0_0"), tu_node(&t, "h3_1_1"), NULL, 1, s), 1);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), "h0_0_0 se0_0 sa0_1 sc1_0 sa3_1 se3_1 h3_1_1");
    ck_assert_int_eq(tu_paths(&t, "route", tu_node(&t, "h0_0_0"), tu_node(&t, "h3_1_0"), NULL, 1, s), 1);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), "h0_0_0 se0_0 sa0_0 sc0_0 sa3_0 se3_1 h3_1_0");
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    dcn_fail_node(&f, tu_node(&t, "sc0_1"));
    dcn_fail_node(&f, tu_node(&t, "sa3_1"));
    ck_assert_int_eq(tu_paths(&t, NULL, 0, 15, &f, 1, s), 1);
    tu_check_pathset(&t, s, 0, 15, &f, 0);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), "h0_0_0 se0_0 sa0_0 sc0_0 sa3_0 se3_1 h3_1_1");
    ck_assert_int_eq(tu_paths(&t, "route", 0, 15, &f, 1, s), 0);
    dcn_failures_free(&f);
    free(s);
    dcn_topo_free(&t);
    build_k(&t, 24); /* (k/2)^2 = 144 > DCN_PATHSET_MAX: capped, all aggregation switches used */
    s = calloc(1, sizeof *s);
    ck_assert_int_eq(tu_paths(&t, NULL, 0, t.n_servers - 1, NULL, 1, s), DCN_PATHSET_MAX);
    tu_check_pathset(&t, s, 0, t.n_servers - 1, NULL, 0);
    free(s);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(bad_parameters)
{
    tu_build_fails_with("fattree k=5", "k=5 must be even");
    tu_build_fails_with("fattree k=50", "k=50 is out of range (allowed 2..48)");
    tu_build_fails_with("fattree k=0", "k=0 is out of range");
    tu_build_fails_with("fattree n=4", "unknown parameter 'n'");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fattree");
    TCase *tc = tcase_create("fattree");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, counts);
    tcase_add_test(tc, wiring_and_names);
    tcase_add_test(tc, all_paths_valid);
    tcase_add_test(tc, route_spreads_and_failures_prune);
    tcase_add_test(tc, bad_parameters);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
