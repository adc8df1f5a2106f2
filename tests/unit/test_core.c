/* The core: parameters, graph storage, paths, BFS, failures. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "topo/bfs.h"

START_TEST(params_errors_name_the_parameter)
{
    tu_build_fails_with("tree leaves=0", "leaves=0 is out of range (allowed 1..1024)");
    tu_build_fails_with("tree leaves=1x2", "not an integer");
    tu_build_fails_with("tree leaves=99999999999999999999", "not an integer");
    tu_build_fails_with("tree foo=1", "unknown parameter 'foo'");
    tu_build_fails_with("tree leaves=2 leaves=2", "given twice");
    tu_build_fails_with("tree =2", "key=value");
    tu_build_fails_with("nosuch n=2", "unknown topology family");
    tu_build_fails_with("tree leaves=1024 per_leaf=1024", "too many");
}
END_TEST

START_TEST(dims_parameter_parses_sizes)
{
    static const dcn_param_spec spec[] = {{"m", DCN_PARAM_DIMS, 2, 9, DCN_PARAM_REQUIRED, "sizes"}};
    dcn_params p;
    char err[256];
    char *ok[] = {"m=3x5"};
    ck_assert_int_eq(dcn_params_parse(&p, "x", spec, 1, 1, ok, err, sizeof err), 0);
    long dims[DCN_MAX_DIMS];
    ck_assert_int_eq(dcn_param_dims(&p, "m", dims), 2);
    ck_assert_int_eq(dims[0], 3);
    ck_assert_int_eq(dims[1], 5);
    const char *bad[] = {"m=3x", "m=x3", "m=3xx4", "m=1", "m=10", "m=2x2x2x2x2", "m="};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char *w[] = {(char *)bad[i]};
        ck_assert_msg(dcn_params_parse(&p, "x", spec, 1, 1, w, err, sizeof err) < 0, "%s accepted", bad[i]);
    }
    ck_assert_int_lt(dcn_params_parse(&p, "x", spec, 1, 0, NULL, err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "missing parameter m"));
}
END_TEST

START_TEST(connect_rejects_double_cabling)
{
    dcn_topo t;
    memset(&t, 0, sizeof t);
    t.family = dcn_family_find("tree");
    char err[256];
    ck_assert_int_eq(dcn_topo_alloc_uniform(&t, 2, 1, 1, 2, err, sizeof err), 0);
    ck_assert_int_eq(dcn_topo_connect(&t, 0, 0, 2, 0, err, sizeof err), 0);
    ck_assert_int_lt(dcn_topo_connect(&t, 1, 0, 2, 0, err, sizeof err), 0);
    ck_assert_int_lt(dcn_topo_connect(&t, 1, 1, 2, 1, err, sizeof err), 0);
    ck_assert_int_lt(dcn_topo_connect(&t, 1, 0, 1, 0, err, sizeof err), 0);
    ck_assert_int_eq(dcn_topo_connect(&t, 1, 0, 2, 1, err, sizeof err), 0);
    ck_assert_int_eq(dcn_topo_port_to(&t, 2, 1), 1);
    ck_assert_int_eq(dcn_topo_port_to(&t, 0, 1), -1);
    free(t.port_base);
    free(t.peer);
}
END_TEST

START_TEST(tree_paths_and_bfs)
{
    dcn_topo t;
    tu_build(&t, "tree leaves=4 per_leaf=4");
    ck_assert_uint_eq(t.n_servers, 16);
    ck_assert_uint_eq(t.n_switches, 5);
    dcn_pathset *s = calloc(1, sizeof *s);
    uint32_t a = tu_node(&t, "h0"), b = tu_node(&t, "h13");
    ck_assert_int_eq(tu_paths(&t, NULL, a, b, NULL, 1, s), 1);
    tu_check_pathset(&t, s, a, b, NULL, 0);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), "h0 s0 root s3 h13");
    ck_assert_int_eq(tu_paths(&t, "shortest", a, b, NULL, 1, s), 1);
    ck_assert_uint_eq(s->path[0].len, 5);

    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    dcn_fail_node(&f, tu_node(&t, "root"));
    ck_assert_int_eq(tu_paths(&t, "shortest", a, b, &f, 1, s), 0);
    ck_assert_int_eq(tu_paths(&t, NULL, a, b, &f, 1, s), 0);
    ck_assert_int_eq(tu_paths(&t, "shortest", a, tu_node(&t, "h3"), &f, 1, s), 1);

    uint32_t links[16], hops[16];
    dcn_bfs_server_distances(&t, a, &f, links, hops);
    ck_assert_uint_eq(links[3], 2);
    ck_assert_uint_eq(hops[3], 1);
    ck_assert_uint_eq(links[13], UINT32_MAX);
    dcn_failures_clear(&f, &t);
    ck_assert_int_eq(dcn_fail_link(&f, &t, tu_node(&t, "s3"), tu_node(&t, "root")), 0);
    ck_assert_int_eq(tu_paths(&t, "shortest", a, b, &f, 1, s), 0);
    ck_assert_int_lt(dcn_fail_link(&f, &t, a, b), 0);
    dcn_failures_free(&f);
    free(s);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(path_helpers)
{
    dcn_topo t;
    tu_build(&t, "tree leaves=2 per_leaf=2");
    dcn_path p = {0, {0}}, q = {0, {0}};
    dcn_path_push(&p, 0);
    dcn_path_push(&p, 1);
    ck_assert_int_eq(dcn_path_expand_servers(&p, &t), 0);
    ck_assert_str_eq(tu_path_str(&t, &p), "h0 s0 h1");
    ck_assert_uint_eq(dcn_path_server_hops(&p, &t), 1);
    ck_assert_uint_eq(dcn_path_links(&p), 2);
    dcn_path_push(&q, 0);
    dcn_path_push(&q, 2);
    ck_assert_int_lt(dcn_path_expand_servers(&q, &t), 0);
    dcn_path r = p;
    dcn_path_reverse(&r);
    ck_assert_str_eq(tu_path_str(&t, &r), "h1 s0 h0");
    ck_assert(!dcn_paths_node_disjoint(&p, &r));
    ck_assert(!dcn_paths_link_disjoint(&p, &r, &t));
    dcn_path lp = {0, {0}};
    uint32_t seq[] = {0, 5, 1, 5, 2, 1, 3};
    for (size_t i = 0; i < sizeof seq / sizeof seq[0]; i++)
        dcn_path_push(&lp, seq[i]);
    dcn_path_erase_loops(&lp);
    uint32_t want[] = {0, 5, 2, 1, 3}; /* 5's loop (5 1 5) cut; 1 then appears once */
    ck_assert_uint_eq(lp.len, 5);
    for (size_t i = 0; i < 5; i++)
        ck_assert_uint_eq(lp.node[i], want[i]);
    dcn_path loop = p;
    dcn_path_push(&loop, tu_node(&t, "s0"));
    const char *why;
    ck_assert(!dcn_path_valid(&loop, &t, NULL, &why));
    ck_assert_str_eq(why, "a node repeats");
    dcn_topo_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("core");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, params_errors_name_the_parameter);
    tcase_add_test(tc, dims_parameter_parses_sizes);
    tcase_add_test(tc, connect_rejects_double_cabling);
    tcase_add_test(tc, tree_paths_and_bfs);
    tcase_add_test(tc, path_helpers);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
