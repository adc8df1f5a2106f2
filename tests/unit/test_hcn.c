/* HCN(n,h): Definition 2 wiring, counts, names, FdimRouting, Lemma 1's
 * parallel paths, local reroute (Eq. 6), diameter (Theorem 4). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "families/hcn_label.h"
#include "families/hcn_route.h"
#include "testutil.h"
#include "topo/bfs.h"
#include "topo/json.h"

/* One member of the family's formulas, rendered to JSON and read back. */
/* Names are <= 10 characters of [a-z0-9_] starting with a letter, unique,
 * and dcn_node_lookup finds them again. */
static void check_names(const dcn_topo *t)
{
    uint32_t n = dcn_n_nodes(t);
    char (*names)[DCN_NAME_MAX] = calloc(n, DCN_NAME_MAX);
    ck_assert_ptr_nonnull(names);
    for (uint32_t v = 0; v < n; v++) {
        dcn_node_name(t, v, names[v], DCN_NAME_MAX);
        size_t len = strlen(names[v]);
        ck_assert_msg(len >= 2 && len <= 10 && islower((unsigned char)names[v][0]), "bad name '%s'", names[v]);
        for (size_t i = 0; i < len; i++)
            ck_assert_msg(islower((unsigned char)names[v][i]) || isdigit((unsigned char)names[v][i]) ||
                              names[v][i] == '_',
                          "bad character in '%s'", names[v]);
    }
    for (uint32_t v = 0; v < n; v += 1 + n / 64)
        ck_assert_uint_eq(dcn_node_lookup(t, names[v]), v);
    /* uniqueness: sort a copy */
    int (*cmp)(const void *, const void *) = (int (*)(const void *, const void *))strcmp;
    qsort(names, n, DCN_NAME_MAX, cmp);
    for (uint32_t v = 1; v < n; v++)
        ck_assert_msg(strcmp(names[v - 1], names[v]) != 0, "name %s repeats", names[v]);
    free(names);
}

/* Lemma 1's sense of disjointness: no server in common but the end points,
 * and no switch in common but the end points' own switches. */
static void check_server_disjoint(const dcn_topo *t, const dcn_pathset *s, uint32_t src, uint32_t dst)
{
    uint32_t ssw = dcn_peer(t, src, 0).node, dsw = dcn_peer(t, dst, 0).node;
    for (uint32_t a = 0; a < s->count; a++)
        for (uint32_t b = 0; b < a; b++)
            for (uint32_t i = 1; i + 1 < s->path[a].len; i++) {
                uint32_t v = s->path[a].node[i];
                if (v == ssw || v == dsw)
                    continue;
                TU_CHECK(!dcn_path_contains(&s->path[b], v), "paths %u and %u share %s: %s", b, a, tu_name(t, v),
                      tu_path_str(t, &s->path[a]));
            }
}

static uint32_t level_of_cable(const hcn_dims *d, uint32_t a, uint32_t b)
{
    hcn_label la, lb;
    hcn_server_label(d, a, &la);
    hcn_server_label(d, b, &lb);
    return d->h - hcn_common_prefix(d, &la, &lb);
}

START_TEST(hcn_bad_parameters_name_the_parameter)
{
    tu_build_fails_with("hcn n=1", "hcn: n=1 is out of range (allowed 2..63)");
    tu_build_fails_with("hcn n=64", "n=64 is out of range");
    tu_build_fails_with("hcn h=5", "h=5 is out of range (allowed 0..4)");
    tu_build_fails_with("hcn h=-1", "h=-1 is out of range");
    tu_build_fails_with("hcn n=4 h=x", "h=x is not an integer");
    tu_build_fails_with("hcn n=32 h=4", "n=32 h=4 gives too many servers");
    tu_build_fails_with("hcn m=3", "unknown parameter 'm'");
}
END_TEST

START_TEST(hcn_definition2_wiring_and_ports)
{
    dcn_topo t;
    tu_build(&t, "hcn n=4 h=2");
    ck_assert_str_eq(tu_name(&t, 0), "h111");
    ck_assert_str_eq(tu_name(&t, t.n_servers), "s11");
    uint32_t s144 = tu_node(&t, "h144"), s411 = tu_node(&t, "h411");
    ck_assert_int_eq(dcn_topo_port_to(&t, s144, s411), 1);
    ck_assert_int_eq(dcn_topo_port_to(&t, s411, s144), 1);
    ck_assert_int_eq(dcn_topo_port_to(&t, tu_node(&t, "h114"), tu_node(&t, "h141")), 1);
    /* port 0: the module switch, at switch port x_0 - 1 */
    ck_assert_int_eq(dcn_topo_port_to(&t, s144, tu_node(&t, "s14")), 0);
    ck_assert_int_eq(dcn_topo_port_to(&t, tu_node(&t, "s14"), s144), 3);
    /* the n servers b^(h+1) keep port 1 free for expansion */
    const char *reserved[] = {"h111", "h222", "h333", "h444"};
    for (int i = 0; i < 4; i++)
        ck_assert_uint_eq(dcn_peer(&t, tu_node(&t, reserved[i]), 1).node, DCN_NONE);
    ck_assert_uint_eq(dcn_peer(&t, tu_node(&t, "h424"), 1).node, tu_node(&t, "h442"));
    check_names(&t);
    dcn_topo_free(&t);
}
END_TEST

/* Servers, switches, cables per level against the paper's counts. */
START_TEST(hcn_counts_match_the_formulas)
{
    for (uint32_t n = 2; n <= 7; n++)
        for (uint32_t h = 0; h <= 4; h++) {
            if (hcn_ipow(n, h + 1) > 20000)
                continue;
            char spec[64];
            snprintf(spec, sizeof spec, "hcn n=%u h=%u", n, h);
            dcn_topo t;
            tu_build(&t, spec);
            const hcn_dims *d = hcn_dims_of(&t);
            uint64_t servers = hcn_ipow(n, h + 1);
            ck_assert_uint_eq(t.n_servers, servers);
            ck_assert_uint_eq(t.n_switches, hcn_ipow(n, h));
            uint64_t per_level[HCN_MAX_H + 2] = {0}, free_port1 = 0, cables = 0;
            for (uint32_t v = 0; v < t.n_servers; v++) {
                TU_CHECK(dcn_nports(&t, v) == 2 && dcn_kind(&t, dcn_peer(&t, v, 0).node) == DCN_SWITCH, "server %u ports", v);
                uint32_t w = dcn_peer(&t, v, 1).node;
                if (w == DCN_NONE) {
                    free_port1++;
                    continue;
                }
                TU_CHECK(dcn_kind(&t, w) == DCN_SERVER, "port 1 of %u not on a server", v);
                if (w > v) {
                    cables++;
                    per_level[level_of_cable(d, v, w)]++;
                }
            }
            ck_assert_uint_eq(free_port1, n);
            ck_assert_uint_eq(cables, (servers - n) / 2);
            ck_assert_uint_eq(t.n_links, servers + cables);
            ck_assert_uint_eq(per_level[0], 0);
            for (uint32_t j = 1; j <= h; j++) {
                ck_assert_uint_eq(per_level[j], hcn_ipow(n, h - j + 1) * (n - 1) / 2);
                char key[32];
                snprintf(key, sizeof key, "port2_cables_level_%u", j);
                ck_assert_int_eq(tu_formula(&t, key), (long long)per_level[j]);
            }
            ck_assert_int_eq(tu_formula(&t, "servers"), (long long)t.n_servers);
            ck_assert_int_eq(tu_formula(&t, "switches"), (long long)t.n_switches);
            ck_assert_int_eq(tu_formula(&t, "port2_cables"), (long long)cables);
            ck_assert_int_eq(tu_formula(&t, "parallel_paths"), n - 1);
            dcn_topo_free(&t);
        }
}
END_TEST

START_TEST(hcn_names_for_large_digits)
{
    dcn_topo t;
    tu_build(&t, "hcn n=12 h=2");
    ck_assert_str_eq(tu_name(&t, tu_node(&t, "h12_3_1")), "h12_3_1");
    ck_assert_str_eq(tu_name(&t, t.n_servers + t.n_switches - 1), "s12_12");
    check_names(&t);
    dcn_topo_free(&t);
    tu_build(&t, "hcn n=12 h=3"); /* h12_12_12_12 would be 12 characters: ids */
    ck_assert_str_eq(tu_name(&t, 5), "h5");
    ck_assert_str_eq(tu_name(&t, t.n_servers + 7), "s7");
    check_names(&t);
    dcn_topo_free(&t);
    tu_build(&t, "hcn n=5 h=0");
    ck_assert_str_eq(tu_name(&t, t.n_servers), "s0");
    ck_assert_str_eq(tu_name(&t, 4), "h5");
    check_names(&t);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(hcn_fdim_route_of_the_paper)
{
    dcn_topo t;
    tu_build(&t, "hcn n=4 h=2");
    dcn_pathset *s = calloc(1, sizeof *s);
    uint32_t a = tu_node(&t, "h111"), b = tu_node(&t, "h444");
    ck_assert_int_eq(tu_paths(&t, "fdim", a, b, NULL, 1, s), 1);
    tu_check_pathset(&t, s, a, b, NULL, 0);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), "h111 s11 h114 h141 s14 h144 h411 s41 h414 h441 s44 h444");
    ck_assert_uint_eq(dcn_path_server_hops(&s->path[0], &t), 7);
    ck_assert_int_eq(tu_paths(&t, "fdim", b, a, NULL, 1, s), 1);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), "h444 s44 h441 h414 s41 h411 h144 s14 h141 h114 s11 h111");
    /* same switch: one crossing */
    ck_assert_int_eq(tu_paths(&t, "fdim", a, tu_node(&t, "h113"), NULL, 1, s), 1);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), "h111 s11 h113");
    ck_assert_int_eq(tu_paths(&t, "fdim", a, a, NULL, 1, s), -1);
    ck_assert_int_eq(tu_paths(&t, "fdim", a, t.n_servers, NULL, 1, s), -1);
    free(s);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(hcn_lemma1_paths_of_the_paper)
{
    dcn_topo t;
    tu_build(&t, "hcn n=4 h=2");
    dcn_pathset *s = calloc(1, sizeof *s);
    uint32_t a = tu_node(&t, "h111"), b = tu_node(&t, "h144");
    ck_assert_int_eq(tu_paths(&t, NULL, a, b, NULL, 1, s), 3);
    tu_check_pathset(&t, s, a, b, NULL, 0);
    check_server_disjoint(&t, s, a, b);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), "h111 s11 h114 h141 s14 h144");
    ck_assert_str_eq(tu_path_str(&t, &s->path[1]), "h111 s11 h112 h121 s12 h124 h142 s14 h144");
    ck_assert_str_eq(tu_path_str(&t, &s->path[2]), "h111 s11 h113 h131 s13 h134 h143 s14 h144");
    /* all paths share the destination's switch (the paper's remark) */
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    /* path 2 loses h121 and has no replacement: 111's other exits and
     * 144's other entries all belong to paths 1 and 3 */
    dcn_fail_node(&f, tu_node(&t, "h121"));
    ck_assert_int_eq(tu_paths(&t, NULL, a, b, &f, 1, s), 2);
    tu_check_pathset(&t, s, a, b, &f, 0);
    check_server_disjoint(&t, s, a, b);
    ck_assert_str_eq(tu_path_str(&t, &s->path[1]), "h111 s11 h113 h131 s13 h134 h143 s14 h144");
    /* h111 -> h434 (other top-level unit): a failure deep inside path 2 is
     * repaired by a detour that keeps the set disjoint */
    b = tu_node(&t, "h434");
    ck_assert_int_eq(tu_paths(&t, NULL, a, b, NULL, 1, s), 3);
    dcn_failures_clear(&f, &t);
    dcn_fail_node(&f, s->path[1].node[s->path[1].len / 2]);
    ck_assert_int_eq(tu_paths(&t, NULL, a, b, &f, 1, s), 3);
    tu_check_pathset(&t, s, a, b, &f, 0);
    check_server_disjoint(&t, s, a, b);
    dcn_failures_free(&f);
    free(s);
    dcn_topo_free(&t);
}
END_TEST

/* Fails one node (fail_b NULL) or one cable, reroutes h111 -> h444 and
 * compares the packet's server trace (the paper's notation) and the
 * returned path, where the trace's back-and-forth over a switch is erased. */
static void expect_reroute(const dcn_topo *t, const char *fail_a, const char *fail_b, const char *trace_want,
                           const char *path_want)
{
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, t), 0);
    if (fail_b)
        ck_assert_int_eq(dcn_fail_link(&f, t, tu_node(t, fail_a), tu_node(t, fail_b)), 0);
    else
        dcn_fail_node(&f, tu_node(t, fail_a));
    dcn_pathset *s = calloc(1, sizeof *s);
    uint32_t a = tu_node(t, "h111"), b = tu_node(t, "h444");
    ck_assert_int_eq(tu_paths(t, "reroute", a, b, &f, 1, s), 1);
    tu_check_pathset(t, s, a, b, &f, 0);
    ck_assert_str_eq(tu_path_str(t, &s->path[0]), path_want);
    dcn_path trace, full;
    ck_assert_int_eq(hcn_reroute(t, a, b, &f, &full, &trace), 1);
    ck_assert_str_eq(tu_path_str(t, &trace), trace_want);
    /* the failure-oblivious route reports no path */
    ck_assert_int_eq(tu_paths(t, "fdim", a, b, &f, 1, s), 0);
    free(s);
    dcn_failures_free(&f);
}

START_TEST(hcn_local_reroute_examples_of_the_paper)
{
    dcn_topo t;
    tu_build(&t, "hcn n=4 h=2");
    /* cable 144-411 or server 411 failed: 144 gets relays 211 and 311 and
     * detours through 211 */
    const char *trace144 = "h111 h114 h141 h144 h142 h124 h122 h211 h214 h241 h244 h422 h424 h442 h444";
    const char *path = "h111 s11 h114 h141 s14 h142 h124 s12 h122 h211 s21 h214 h241 s24 h244 h422 s42 h424 h442 "
                       "s44 h444";
    expect_reroute(&t, "h144", "h411", trace144, path);
    expect_reroute(&t, "h411", NULL, trace144, path);
    /* server 144 failed: 141 treats it as a failure of 144-411 */
    expect_reroute(&t, "h144", NULL, "h111 h114 h141 h142 h124 h122 h211 h214 h241 h244 h422 h424 h442 h444", path);
    /* reroute without failures is FdimRouting */
    dcn_pathset *s = calloc(1, sizeof *s);
    uint32_t a = tu_node(&t, "h111"), b = tu_node(&t, "h444");
    ck_assert_int_eq(tu_paths(&t, "reroute", a, b, NULL, 1, s), 1);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), "h111 s11 h114 h141 s14 h144 h411 s41 h414 h441 s44 h444");
    /* a failed destination: no path */
    dcn_failures f;
    dcn_path full, trace;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    dcn_fail_node(&f, b);
    ck_assert_int_eq(tu_paths(&t, "reroute", a, b, &f, 1, s), 0);
    /* a failed switch (not in the paper): BFS fallback, no rule trace */
    dcn_failures_clear(&f, &t);
    dcn_fail_node(&f, tu_node(&t, "s41"));
    ck_assert_int_eq(tu_paths(&t, "reroute", a, b, &f, 1, s), 1);
    tu_check_pathset(&t, s, a, b, &f, 0);
    ck_assert(!dcn_path_contains(&s->path[0], tu_node(&t, "s41")));
    ck_assert_int_eq(hcn_reroute(&t, a, b, &f, &full, &trace), 1);
    ck_assert_uint_eq(trace.len, 0);
    /* the destination cut off from its switch but reachable over its cable */
    dcn_failures_clear(&f, &t);
    ck_assert_int_eq(dcn_fail_link(&f, &t, tu_node(&t, "h442"), tu_node(&t, "s44")), 0);
    ck_assert_int_eq(tu_paths(&t, "reroute", a, tu_node(&t, "h442"), &f, 1, s), 1);
    tu_check_pathset(&t, s, a, tu_node(&t, "h442"), &f, 0);
    dcn_failures_free(&f);
    free(s);
    dcn_topo_free(&t);
}
END_TEST

/* All ordered pairs: Lemma 1 gives n-1 valid, server-disjoint paths of at
 * most 3*2^i-1 hops; FdimRouting is its first path, at most 2^(h+1)-1 hops. */
START_TEST(hcn_all_pairs_paths_are_valid_and_disjoint)
{
    const char *specs[] = {"hcn n=2 h=3", "hcn n=3 h=2", "hcn n=4 h=2", "hcn n=3 h=3", "hcn n=5 h=1", "hcn n=4 h=0",
                           "hcn n=2 h=4"};
    dcn_pathset *s = calloc(1, sizeof *s), *r = calloc(1, sizeof *r);
    for (size_t k = 0; k < sizeof specs / sizeof specs[0]; k++) {
        dcn_topo t;
        tu_build(&t, specs[k]);
        const hcn_dims *d = hcn_dims_of(&t);
        for (uint32_t a = 0; a < t.n_servers; a++)
            for (uint32_t b = 0; b < t.n_servers; b++) {
                if (a == b)
                    continue;
                hcn_label la, lb;
                hcn_server_label(d, a, &la);
                hcn_server_label(d, b, &lb);
                uint32_t m = hcn_common_prefix(d, &la, &lb);
                int want = m >= d->h ? 1 : (int)d->n - 1;
                int got = tu_paths(&t, NULL, a, b, NULL, 1, s);
                TU_CHECK(got == want, "%s %u->%u: %d paths, want %d", specs[k], a, b, got, want);
                tu_check_paths_fast(&t, s, a, b, NULL);
                check_server_disjoint(&t, s, a, b);
                uint32_t i = d->h - m;
                for (uint32_t p = 0; p < s->count; p++)
                    TU_CHECK(dcn_path_server_hops(&s->path[p], &t) <= (m >= d->h ? 1 : 3u * (1u << i) - 1),
                          "%s: path too long: %s", specs[k], tu_path_str(&t, &s->path[p]));
                TU_CHECK(tu_paths(&t, "fdim", a, b, NULL, 1, r) == 1, "no fdim route");
                tu_check_paths_fast(&t, r, a, b, NULL);
                TU_CHECK(dcn_path_server_hops(&r->path[0], &t) <= (2u << d->h) - 1, "fdim too long");
                TU_CHECK(r->path[0].len == s->path[0].len &&
                          !memcmp(r->path[0].node, s->path[0].node, r->path[0].len * sizeof r->path[0].node[0]),
                      "path 0 of the set is not FdimRouting");
            }
        dcn_topo_free(&t);
    }
    free(s);
    free(r);
}
END_TEST

/* Theorem 4: the diameter in server hops is 2^(h+1)-1. */
START_TEST(hcn_bfs_diameter_is_2_pow_h_plus_1_minus_1)
{
    const uint32_t cases[][2] = {{2, 0}, {2, 1}, {2, 2}, {2, 3}, {2, 4}, {3, 1}, {3, 2}, {3, 3}, {4, 1}, {4, 2}, {5, 2}, {6, 1}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        char spec[64];
        snprintf(spec, sizeof spec, "hcn n=%u h=%u", cases[k][0], cases[k][1]);
        dcn_topo t;
        tu_build(&t, spec);
        uint32_t *hops = malloc(t.n_servers * sizeof *hops), diam = 0;
        for (uint32_t a = 0; a < t.n_servers; a++) {
            dcn_bfs_server_distances(&t, a, NULL, NULL, hops);
            for (uint32_t b = 0; b < t.n_servers; b++) {
                TU_CHECK(hops[b] != UINT32_MAX, "disconnected");
                diam = hops[b] > diam ? hops[b] : diam;
            }
        }
        ck_assert_msg(diam == (2u << cases[k][1]) - 1, "%s: diameter %u", spec, diam);
        ck_assert_int_eq(tu_formula(&t, "diameter_server_hops"), diam);
        free(hops);
        dcn_topo_free(&t);
    }
}
END_TEST

/* Every single failure (server, port-2 cable, switch, server-switch cable)
 * for every pair of HCN(3,2) and HCN(4,2): reroute finds a valid path
 * exactly when one survives. */
START_TEST(hcn_reroute_survives_every_single_failure)
{
    const char *specs[] = {"hcn n=3 h=2", "hcn n=4 h=2"};
    dcn_pathset *s = calloc(1, sizeof *s);
    dcn_path bfs;
    for (size_t k = 0; k < 2; k++) {
        dcn_topo t;
        tu_build(&t, specs[k]);
        dcn_failures f;
        ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
        uint32_t nn = dcn_n_nodes(&t), step = k ? 9 : 1;
        /* scenario c < nn: node c fails; else the cable on port 0/1 of server (c-nn)/2 */
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
            for (uint32_t a = 0; a < t.n_servers; a += step)
                for (uint32_t b = 0; b < t.n_servers; b++) {
                    if (a == b)
                        continue;
                    int n = tu_paths(&t, "reroute", a, b, &f, 1, s);
                    int exists = dcn_bfs_path(&t, a, b, &f, NULL, &bfs) == 0;
                    TU_CHECK(n == exists, "%s scenario %u %u->%u: %d paths, bfs %d", specs[k], c, a, b, n, exists);
                    tu_check_paths_fast(&t, s, a, b, &f);
                    /* a failed server or port-2 cable is the paper's case:
                     * its rules, not the fallback, must produce the path */
                    int papers_case = (c < t.n_servers && c != a && c != b) || (c >= nn && (c - nn) % 2 == 1);
                    if (papers_case) {
                        dcn_path full, trace;
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

/* Many random failures at once (10% of servers and cables). */
START_TEST(hcn_reroute_under_random_failures)
{
    dcn_topo t;
    tu_build(&t, "hcn n=4 h=3");
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    dcn_pathset *s = calloc(1, sizeof *s);
    dcn_rng rng;
    dcn_rng_seed(&rng, 7);
    dcn_path bfs;
    for (int trial = 0; trial < 40; trial++) {
        dcn_failures_clear(&f, &t);
        for (uint32_t i = 0; i < t.n_servers / 10; i++) {
            dcn_fail_node(&f, dcn_rng_below(&rng, t.n_servers));
            uint32_t v = dcn_rng_below(&rng, t.n_servers);
            if (dcn_peer(&t, v, 1).node != DCN_NONE)
                dcn_fail_port(&f, &t, v, 1);
        }
        if (trial % 4 == 0)
            dcn_fail_node(&f, t.n_servers + dcn_rng_below(&rng, t.n_switches));
        for (int q = 0; q < 50; q++) {
            uint32_t a = dcn_rng_below(&rng, t.n_servers), b = dcn_rng_below(&rng, t.n_servers);
            if (a == b)
                continue;
            int n = tu_paths(&t, "reroute", a, b, &f, 1, s);
            int exists = dcn_bfs_path(&t, a, b, &f, NULL, &bfs) == 0;
            TU_CHECK(n == exists, "%u->%u: %d paths, bfs %d", a, b, n, exists);
            tu_check_paths_fast(&t, s, a, b, &f);
        }
    }
    free(s);
    dcn_failures_free(&f);
    dcn_topo_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hcn");
    TCase *tc = tcase_create("hcn");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, hcn_bad_parameters_name_the_parameter);
    tcase_add_test(tc, hcn_definition2_wiring_and_ports);
    tcase_add_test(tc, hcn_counts_match_the_formulas);
    tcase_add_test(tc, hcn_names_for_large_digits);
    tcase_add_test(tc, hcn_fdim_route_of_the_paper);
    tcase_add_test(tc, hcn_lemma1_paths_of_the_paper);
    tcase_add_test(tc, hcn_local_reroute_examples_of_the_paper);
    tcase_add_test(tc, hcn_all_pairs_paths_are_valid_and_disjoint);
    tcase_add_test(tc, hcn_bfs_diameter_is_2_pow_h_plus_1_minus_1);
    tcase_add_test(tc, hcn_reroute_survives_every_single_failure);
    tcase_add_test(tc, hcn_reroute_under_random_failures);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
