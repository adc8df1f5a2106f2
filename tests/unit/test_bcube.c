/* The BCube family: counts, wiring, names, BuildPathSet (Theorem 3, Fig. 4),
 * BCubeRouting, diameter (Theorem 1), partial BCube and BSR's repair.
 * Expected values are computed here from the paper's definitions, not with
 * the library's address helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "topo/bcube_addr.h"
#include "topo/bfs.h"
#include "topo/failures.h"
#include "topo/families/bcube_names.h"
#include "topo/json.h"
#include "topo/rng.h"

typedef struct shape {
    uint32_t n, k, parts;
} shape;

static shape shape_of(const dcn_topo *t)
{
    shape s = {(uint32_t)dcn_param(&t->params, "n"), (uint32_t)dcn_param(&t->params, "k"),
               (uint32_t)dcn_param(&t->params, "parts")};
    return s;
}

static uint64_t ipow(uint64_t n, uint32_t e)
{
    uint64_t r = 1;
    while (e--)
        r *= n;
    return r;
}

static uint32_t digit(uint32_t a, uint32_t i, uint32_t n) { return (uint32_t)(a / ipow(n, i) % n); }

static uint32_t hamming(uint32_t a, uint32_t b, shape s)
{
    uint32_t h = 0;
    for (uint32_t i = 0; i <= s.k; i++)
        h += digit(a, i, s.n) != digit(b, i, s.n);
    return h;
}

static void build_shape(dcn_topo *t, uint32_t n, uint32_t k, uint32_t parts)
{
    char spec[96];
    snprintf(spec, sizeof spec, "bcube n=%u k=%u parts=%u", n, k, parts);
    tu_build(t, spec);
}

/* Switch name the paper's way: "s<l>_" and the k label digits. */
static void expected_switch_name(shape s, uint32_t l, uint32_t server, char *buf, size_t len)
{
    int off = snprintf(buf, len, s.k ? "s%u_" : "s%u", l);
    for (uint32_t i = s.k + 1; i-- > 0;)
        if (i != l)
            off += snprintf(buf + off, len - (size_t)off, "%c", "0123456789abcdefghijklmnopqrstuvwxyz"[digit(server, i, s.n)]);
}

START_TEST(counts_match_formulas_and_wiring_follows_the_paper)
{
    int built = 0;
    for (uint32_t n = 2; n <= 6; n++)
        for (uint32_t k = 0; k <= 4; k++) {
            if (ipow(n, k + 1) > 1300)
                continue;
            for (uint32_t parts = k ? 1 : n; parts <= n; parts++) {
                dcn_topo t;
                build_shape(&t, n, k, parts);
                shape s = shape_of(&t);
                uint64_t nk = ipow(n, k), servers = parts * nk;
                uint64_t switches = k * parts * (nk / n) + nk;
                ck_assert_uint_eq(s.parts, parts);
                ck_assert_uint_eq(t.n_servers, servers);
                ck_assert_uint_eq(t.n_switches, switches);
                ck_assert_uint_eq(t.n_links, servers * (k + 1));
                ck_assert_int_eq(tu_formula(&t, "servers"), (long long)servers);
                ck_assert_int_eq(tu_formula(&t, "switches"), (long long)switches);
                ck_assert_int_eq(tu_formula(&t, "links"), (long long)(servers * (k + 1)));
                ck_assert_int_eq(tu_formula(&t, "full_servers"), (long long)(n * nk));
                ck_assert_int_eq(tu_formula(&t, "full_switches"), (long long)((k + 1) * nk));
                ck_assert_int_eq(tu_formula(&t, "full_links"), (long long)(n * nk * (k + 1)));
                if (parts == n) {
                    ck_assert_uint_eq(t.n_servers, ipow(n, k + 1));
                    ck_assert_uint_eq(t.n_switches, (k + 1) * nk);
                }
                uint64_t free_ports = 0;
                for (uint32_t v = 0; v < dcn_n_nodes(&t); v++)
                    for (uint16_t p = 0; p < dcn_nports(&t, v); p++)
                        free_ports += dcn_peer(&t, v, p).node == DCN_NONE;
                ck_assert_uint_eq(free_ports, (n - parts) * nk);
                ck_assert_int_eq(tu_formula(&t, "free_switch_ports"), (long long)free_ports);
                /* Server port l goes to switch <l, A minus digit l>, on its port A[l]. */
                for (uint32_t a = 0; a < t.n_servers; a++) {
                    ck_assert_uint_eq(dcn_nports(&t, a), k + 1);
                    for (uint16_t l = 0; l <= k; l++) {
                        dcn_end e = dcn_peer(&t, a, l);
                        ck_assert_uint_eq(dcn_kind(&t, e.node), DCN_SWITCH);
                        ck_assert_uint_eq(e.port, digit(a, l, n));
                        char want[DCN_NAME_MAX], got[DCN_NAME_MAX];
                        expected_switch_name(s, l, a, want, sizeof want);
                        dcn_node_name(&t, e.node, got, sizeof got);
                        ck_assert_str_eq(got, want);
                    }
                }
                /* Every switch serves one level; level-k switches of a
                 * partial BCube have exactly `parts` servers. */
                for (uint32_t v = t.n_servers; v < dcn_n_nodes(&t); v++) {
                    ck_assert_uint_eq(dcn_nports(&t, v), n);
                    uint32_t cabled = 0;
                    for (uint16_t p = 0; p < n; p++) {
                        dcn_end e = dcn_peer(&t, v, p);
                        if (e.node == DCN_NONE)
                            continue;
                        cabled++;
                        ck_assert_uint_lt(e.node, t.n_servers);
                        ck_assert_uint_eq(digit(e.node, e.port, n), p);
                    }
                    ck_assert(cabled == n || cabled == parts);
                }
                dcn_topo_free(&t);
                built++;
            }
        }
    ck_assert_int_gt(built, 40);
}
END_TEST

START_TEST(papers_container_and_defaults)
{
    dcn_topo t;
    tu_build(&t, "bcube n=8 k=3 parts=4");
    ck_assert_uint_eq(t.n_servers, 2048);
    ck_assert_uint_eq(t.n_switches, 1280);
    ck_assert_uint_eq(t.n_links, 8192);
    ck_assert_int_eq(tu_formula(&t, "parallel_paths"), 4);
    dcn_topo_free(&t);
    tu_build(&t, "bcube"); /* the testbed: BCube_1, n=4 */
    ck_assert_uint_eq(t.n_servers, 16);
    ck_assert_uint_eq(t.n_switches, 8);
    ck_assert_uint_eq(shape_of(&t).parts, 4);
    ck_assert_uint_eq(tu_node(&t, "h00"), 0);
    ck_assert_uint_eq(tu_node(&t, "h13"), 7);
    ck_assert_uint_eq(tu_node(&t, "s0_0"), 16);
    ck_assert_uint_eq(tu_node(&t, "s1_0"), 20);
    ck_assert_uint_eq(tu_node(&t, "s1_3"), 23);
    dcn_topo_free(&t);
    tu_build(&t, "bcube n=8 k=3");
    ck_assert_uint_eq(t.n_servers, 4096);
    ck_assert_uint_eq(t.n_switches, 2048);
    ck_assert_uint_eq(t.n_links, 16384);
    /* Full BCube: switch node = N + the paper's l*n^k + label. */
    ck_assert_uint_eq(tu_node(&t, "s2_345"), 4096 + 2 * 512 + 0345);
    dcn_topo_free(&t);
}
END_TEST

static int name_chars_ok(const char *s)
{
    if (!s[0] || s[0] < 'a' || s[0] > 'z' || strlen(s) > BCUBE_NAME_MAX)
        return 0;
    for (const char *c = s; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '_'))
            return 0;
    return 1;
}

static int cmp_str(const void *a, const void *b) { return strcmp(a, b); }

START_TEST(names_are_valid_unique_and_papers_notation)
{
    static const char *specs[] = {"bcube n=3 k=2", "bcube n=4 k=0", "bcube n=16 k=1", "bcube n=36 k=1",
                                  "bcube n=40 k=1", "bcube n=5 k=3 parts=2", "bcube n=2 k=7"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        dcn_topo t;
        tu_build(&t, specs[i]);
        uint32_t nn = dcn_n_nodes(&t);
        char(*names)[DCN_NAME_MAX] = calloc(nn, sizeof *names);
        ck_assert_ptr_nonnull(names);
        for (uint32_t v = 0; v < nn; v++) {
            dcn_node_name(&t, v, names[v], DCN_NAME_MAX);
            ck_assert_msg(name_chars_ok(names[v]), "%s: bad name '%s'", specs[i], names[v]);
            ck_assert_int_eq(names[v][0], v < t.n_servers ? 'h' : 's');
        }
        qsort(names, nn, sizeof *names, cmp_str);
        for (uint32_t v = 1; v < nn; v++)
            ck_assert_msg(strcmp(names[v - 1], names[v]) != 0, "%s: name %s twice", specs[i], names[v]);
        free(names);
        dcn_topo_free(&t);
    }
    dcn_topo t;
    char buf[DCN_NAME_MAX];
    tu_build(&t, "bcube n=3 k=2");
    uint32_t sw = tu_node(&t, "s1_01");
    for (uint16_t p = 0; p < 3; p++) {
        char want[8];
        snprintf(want, sizeof want, "h0%u1", p);
        dcn_node_name(&t, dcn_peer(&t, sw, p).node, buf, sizeof buf);
        ck_assert_str_eq(buf, want);
    }
    dcn_topo_free(&t);
    tu_build(&t, "bcube n=4 k=0");
    ck_assert_uint_eq(tu_node(&t, "s0"), 4);
    ck_assert_uint_eq(tu_node(&t, "h3"), 3);
    dcn_topo_free(&t);
    tu_build(&t, "bcube n=36 k=1");
    ck_assert_uint_eq(tu_node(&t, "hzz"), 36 * 36 - 1);
    ck_assert_uint_eq(tu_node(&t, "ha0"), 360);
    ck_assert_uint_eq(tu_node(&t, "s1_z"), 36 * 36 + 36 + 35);
    dcn_topo_free(&t);
    tu_build(&t, "bcube n=40 k=1");
    ck_assert_uint_eq(tu_node(&t, "h0139"), 79);
    ck_assert_uint_eq(tu_node(&t, "h3900"), 39 * 40);
    ck_assert_uint_eq(tu_node(&t, "s1_39"), 1600 + 40 + 39);
    dcn_topo_free(&t);
}
END_TEST

static int accepted(uint32_t n, uint32_t k, uint32_t parts)
{
    char a[3][24], err[256];
    char *argv[3] = {a[0], a[1], a[2]};
    snprintf(a[0], sizeof a[0], "n=%u", n);
    snprintf(a[1], sizeof a[1], "k=%u", k);
    snprintf(a[2], sizeof a[2], "parts=%u", parts);
    const dcn_family *fam = dcn_family_find("bcube");
    dcn_params p;
    if (dcn_params_parse(&p, "bcube", fam->params, fam->n_params, 3, argv, err, sizeof err) < 0)
        return 0;
    return fam->validate(&p, err, sizeof err) == 0;
}

static uint32_t decimal_digits(uint32_t x) { return x >= 10 ? 2 : 1; }

/* Over every accepted (n, k), full or with parts = 1, the longest names fit 10 characters and the
 * longest Mininet interface name "<name>-eth<port>" fits IFNAMSIZ-1. */
START_TEST(longest_names_fit_everywhere_the_size_limit_allows)
{
    uint32_t longest = 0, shapes = 0;
    for (uint32_t n = 2; n <= 64; n++)
        for (uint32_t k = 0; k < BC_MAX_LEVELS; k++) {
            if (!accepted(n, k, n) && !(k && accepted(n, k, 1)))
                continue;
            shapes++;
            bc_dims d;
            bc_dims_init(&d, n, k);
            char name[32];
            bcube_server_name(&d, d.pow[k + 1] - 1, name, sizeof name);
            ck_assert_msg(name_chars_ok(name), "n=%u k=%u server name '%s'", n, k, name);
            ck_assert_uint_eq(strlen(name), bcube_server_name_len(n, k));
            ck_assert_uint_le(strlen(name) + 4 + decimal_digits(k), BCUBE_IFNAME_MAX);
            longest = strlen(name) > longest ? (uint32_t)strlen(name) : longest;
            bcube_switch_name(&d, (k + 1) * d.pow[k] - 1, name, sizeof name);
            ck_assert_msg(name_chars_ok(name), "n=%u k=%u switch name '%s'", n, k, name);
            ck_assert_uint_eq(strlen(name), bcube_switch_name_len(n, k));
            ck_assert_uint_le(strlen(name) + 4 + decimal_digits(n - 1), BCUBE_IFNAME_MAX);
            longest = strlen(name) > longest ? (uint32_t)strlen(name) : longest;
        }
    ck_assert_uint_eq(longest, BCUBE_NAME_MAX);
    ck_assert_uint_gt(shapes, 150);
    /* The size limit is exact: 16 * 64^3 = 2^22 servers is accepted. */
    ck_assert(accepted(64, 3, 16));
    ck_assert(!accepted(64, 3, 17));
    ck_assert(accepted(2, 7, 2));
    /* Every full BCube within the server limit is accepted. */
    for (uint32_t n = 2; n <= 64; n++)
        for (uint32_t k = 0; k < BC_MAX_LEVELS; k++)
            ck_assert_msg(accepted(n, k, n) == (ipow(n, k + 1) <= 4194304), "n=%u k=%u", n, k);
}
END_TEST

START_TEST(bad_parameters_fail_with_one_line_naming_them)
{
    tu_build_fails_with("bcube n=1", "n=1 is out of range (allowed 2..64)");
    tu_build_fails_with("bcube n=65", "n=65 is out of range (allowed 2..64)");
    tu_build_fails_with("bcube k=8", "k=8 is out of range (allowed 0..7)");
    tu_build_fails_with("bcube k=-1", "k=-1 is out of range");
    tu_build_fails_with("bcube parts=0", "parts=0 is out of range");
    tu_build_fails_with("bcube n=4 parts=5", "parts=5 is out of range (allowed 1..n=4)");
    tu_build_fails_with("bcube n=4 k=0 parts=2", "parts=2 needs k>=1");
    tu_build_fails_with("bcube n=64 k=3", "n=64 k=3 parts=64 is too big");
    tu_build_fails_with("bcube n=64 k=7", "is too big");
    tu_build_fails_with("bcube n=8 k=7", "n=8 k=7");
    tu_build_fails_with("bcube n=37 k=4 parts=1", "n=37 k=4 gives 11-character node names");
    tu_build_fails_with("bcube n=36 k=4 parts=1", "n=36 k=4 parts=1 needs 75582720 ports");
    tu_build_fails_with("bcube n=4 m=2", "unknown parameter 'm'");
    dcn_topo t;
    tu_build(&t, "bcube n=4 k=0 parts=4");
    ck_assert_uint_eq(t.n_servers, 4);
    ck_assert_uint_eq(t.n_switches, 1);
    dcn_pathset *s = calloc(1, sizeof *s);
    ck_assert_int_eq(tu_paths(&t, NULL, 0, 0, NULL, 1, s), -1);
    ck_assert_int_eq(tu_paths(&t, NULL, 0, 4, NULL, 1, s), -1);
    ck_assert_int_eq(tu_paths(&t, "route", 0, 99, NULL, 1, s), -1);
    ck_assert_int_eq(tu_paths(&t, NULL, 0, 3, NULL, 1, s), 1);
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), "h0 s0 h3");
    free(s);
    dcn_topo_free(&t);
}
END_TEST

/* Theorem 3 on one pair: k+1 node-disjoint valid paths (k when parts = 1),
 * path i leaving src on level i, of h server hops when src and dst differ
 * in digit i and h+2 otherwise; the fast expansion equals the generic one. */
static uint32_t longest_seen;

static void check_parallel_paths(const dcn_topo *t, shape s, uint32_t a, uint32_t b, dcn_pathset *set)
{
    uint32_t want = (s.parts == 1 && s.k > 0) ? s.k : s.k + 1, h = hamming(a, b, s);
    ck_assert_int_eq(tu_paths(t, NULL, a, b, NULL, 1, set), (int)want);
    tu_check_pathset(t, set, a, b, NULL, 1);
    for (uint32_t i = 0; i < want; i++) {
        const dcn_path *p = &set->path[i];
        ck_assert_msg(dcn_topo_port_to(t, a, p->node[1]) == (int)i, "path %u leaves on the wrong level: %s", i,
                      tu_path_str(t, p));
        uint32_t hops = dcn_path_server_hops(p, t);
        uint32_t expect = digit(a, i, s.n) != digit(b, i, s.n) ? h : h + 2;
        ck_assert_msg(hops == expect, "path %u has %u hops, want %u: %s", i, hops, expect, tu_path_str(t, p));
        longest_seen = hops > longest_seen ? hops : longest_seen;
        dcn_path servers = {0, {0}};
        for (uint32_t j = 0; j < p->len; j += 2)
            dcn_path_push(&servers, p->node[j]);
        ck_assert_int_eq(dcn_path_expand_servers(&servers, t), 0);
        ck_assert_uint_eq(servers.len, p->len);
        ck_assert_int_eq(memcmp(servers.node, p->node, p->len * sizeof p->node[0]), 0);
    }
}

START_TEST(pathset_all_pairs_of_small_instances)
{
    static const shape shapes[] = {{2, 1, 2}, {3, 1, 3}, {4, 1, 4}, {5, 1, 5}, {2, 2, 2}, {3, 2, 3},
                                   {4, 2, 4}, {2, 3, 2}, {3, 3, 3}, {2, 4, 2}, {4, 1, 3}, {4, 2, 2},
                                   {3, 2, 1}, {3, 3, 2}, {5, 2, 3}, {4, 1, 1}, {3, 3, 1}, {4, 0, 4}};
    dcn_pathset *set = calloc(1, sizeof *set);
    ck_assert_ptr_nonnull(set);
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        dcn_topo t;
        build_shape(&t, shapes[c].n, shapes[c].k, shapes[c].parts);
        longest_seen = 0;
        for (uint32_t a = 0; a < t.n_servers; a++)
            for (uint32_t b = 0; b < t.n_servers; b++)
                if (a != b)
                    check_parallel_paths(&t, shapes[c], a, b, set);
        ck_assert_int_eq(tu_formula(&t, "longest_parallel_path_server_hops"), (long long)longest_seen);
        dcn_topo_free(&t);
    }
    free(set);
}
END_TEST

START_TEST(pathset_random_pairs_of_large_instances)
{
    static const shape shapes[] = {{8, 3, 8}, {8, 3, 4}, {8, 3, 1}, {6, 3, 5}, {5, 4, 5}};
    dcn_pathset *set = calloc(1, sizeof *set);
    dcn_rng rng;
    dcn_rng_seed(&rng, 2009);
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        dcn_topo t;
        build_shape(&t, shapes[c].n, shapes[c].k, shapes[c].parts);
        for (int r = 0; r < 3000; r++) {
            uint32_t a = dcn_rng_below(&rng, t.n_servers), b = dcn_rng_below(&rng, t.n_servers);
            if (a != b)
                check_parallel_paths(&t, shapes[c], a, b, set);
        }
        dcn_topo_free(&t);
    }
    free(set);
}
END_TEST

/* Partial BCube: the level-k detour goes to C[k] = (A[k]+1) mod parts. */
START_TEST(partial_bcube_detours_to_a_present_part)
{
    dcn_topo t;
    tu_build(&t, "bcube n=8 k=3 parts=4");
    dcn_pathset *set = calloc(1, sizeof *set);
    uint32_t a = tu_node(&t, "h3001"), b = tu_node(&t, "h3011");
    ck_assert_int_eq(tu_paths(&t, NULL, a, b, NULL, 1, set), 4);
    tu_check_pathset(&t, set, a, b, NULL, 1);
    ck_assert_str_eq(tu_path_str(&t, &set->path[3]), "h3001 s3_001 h0001 s1_001 h0011 s3_011 h3011");
    a = tu_node(&t, "h1001");
    b = tu_node(&t, "h1011");
    ck_assert_int_eq(tu_paths(&t, NULL, a, b, NULL, 1, set), 4);
    ck_assert_str_eq(tu_path_str(&t, &set->path[3]), "h1001 s3_001 h2001 s1_201 h2011 s3_011 h1011");
    ck_assert_uint_eq(dcn_node_lookup(&t, "h4000"), DCN_NONE);
    ck_assert_uint_eq(dcn_node_lookup(&t, "s0_400"), DCN_NONE);
    ck_assert_uint_ne(dcn_node_lookup(&t, "s3_777"), DCN_NONE);
    dcn_topo_free(&t);
    /* parts = 1: the level-k ports lead to no other server, so k paths. */
    tu_build(&t, "bcube n=4 k=2 parts=1");
    ck_assert_int_eq(tu_paths(&t, NULL, tu_node(&t, "h001"), tu_node(&t, "h032"), NULL, 1, set), 2);
    ck_assert_int_eq(tu_formula(&t, "parallel_paths"), 2);
    dcn_topo_free(&t);
    free(set);
}
END_TEST

/* Fig. 4: n=8, k=3, from 0001 to 1011, switches included. */
START_TEST(figure_4_exactly)
{
    dcn_topo t;
    tu_build(&t, "bcube n=8 k=3");
    dcn_pathset *set = calloc(1, sizeof *set);
    uint32_t a = tu_node(&t, "h0001"), b = tu_node(&t, "h1011");
    ck_assert_int_eq(tu_paths(&t, "pathset", a, b, NULL, 1, set), 4);
    ck_assert_str_eq(tu_path_str(&t, &set->path[3]), "h0001 s3_001 h1001 s1_101 h1011");
    ck_assert_str_eq(tu_path_str(&t, &set->path[2]),
                     "h0001 s2_001 h0101 s1_011 h0111 s3_111 h1111 s2_111 h1011");
    ck_assert_str_eq(tu_path_str(&t, &set->path[1]), "h0001 s1_001 h0011 s3_011 h1011");
    ck_assert_str_eq(tu_path_str(&t, &set->path[0]),
                     "h0001 s0_000 h0002 s3_002 h1002 s1_102 h1012 s0_101 h1011");
    /* The address level gives the same server sequences. */
    bc_dims d;
    bc_dims_init(&d, 8, 3);
    uint32_t seqs[BC_MAX_LEVELS][BC_MAX_LEVELS + 3], lens[BC_MAX_LEVELS];
    bc_build_pathset(&d, 01, 01011, seqs, lens);
    ck_assert_uint_eq(lens[3], 3);
    ck_assert_uint_eq(lens[0], 5);
    ck_assert_uint_eq(seqs[0][1], 02);
    ck_assert_uint_eq(seqs[0][2], 01002);
    ck_assert_uint_eq(seqs[0][3], 01012);
    free(set);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(route_corrects_the_highest_digit_first)
{
    dcn_topo t;
    dcn_pathset *set = calloc(1, sizeof *set);
    tu_build(&t, "bcube n=8 k=3");
    ck_assert_int_eq(tu_paths(&t, "route", tu_node(&t, "h0001"), tu_node(&t, "h1011"), NULL, 1, set), 1);
    ck_assert_str_eq(tu_path_str(&t, &set->path[0]), "h0001 s3_001 h1001 s1_101 h1011");
    dcn_topo_free(&t);
    static const shape shapes[] = {{3, 2, 3}, {4, 2, 2}, {2, 3, 2}};
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        build_shape(&t, shapes[c].n, shapes[c].k, shapes[c].parts);
        for (uint32_t a = 0; a < t.n_servers; a++)
            for (uint32_t b = 0; b < t.n_servers; b++) {
                if (a == b)
                    continue;
                ck_assert_int_eq(tu_paths(&t, "route", a, b, NULL, 1, set), 1);
                tu_check_pathset(&t, set, a, b, NULL, 0);
                const dcn_path *p = &set->path[0];
                ck_assert_uint_eq(dcn_path_server_hops(p, &t), hamming(a, b, shapes[c]));
                int last = BC_MAX_LEVELS;
                for (uint32_t j = 0; j + 2 < p->len; j += 2) {
                    int l = dcn_topo_port_to(&t, p->node[j], p->node[j + 1]);
                    ck_assert_int_lt(l, last);
                    last = l;
                }
            }
        dcn_topo_free(&t);
    }
    free(set);
}
END_TEST

/* Theorem 1: shortest server-hop distance is the Hamming distance, so the
 * diameter is k+1 (k for parts = 1); also in a partial BCube. */
START_TEST(bfs_diameter_is_k_plus_1)
{
    static const shape shapes[] = {{2, 1, 2}, {4, 1, 4}, {3, 2, 3}, {2, 3, 2}, {4, 2, 4},
                                   {3, 3, 3}, {4, 2, 3}, {4, 2, 1}, {2, 4, 2}};
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        dcn_topo t;
        build_shape(&t, shapes[c].n, shapes[c].k, shapes[c].parts);
        uint32_t *hops = malloc(t.n_servers * sizeof *hops), diameter = 0;
        for (uint32_t a = 0; a < t.n_servers; a++) {
            dcn_bfs_server_distances(&t, a, NULL, NULL, hops);
            for (uint32_t b = 0; b < t.n_servers; b++) {
                ck_assert_uint_eq(hops[b], hamming(a, b, shapes[c]));
                diameter = hops[b] > diameter ? hops[b] : diameter;
            }
        }
        ck_assert_uint_eq(diameter, shapes[c].parts == 1 ? shapes[c].k : shapes[c].k + 1);
        ck_assert_int_eq(tu_formula(&t, "diameter_server_hops"), (long long)diameter);
        free(hops);
        dcn_topo_free(&t);
    }
}
END_TEST

/* The paper's testbed experiment E2: 00 -> 13 with server 03 down. */
START_TEST(repair_replaces_the_broken_path_like_bsr)
{
    dcn_topo t;
    tu_build(&t, "bcube n=4 k=1");
    dcn_pathset *set = calloc(1, sizeof *set);
    uint32_t a = tu_node(&t, "h00"), b = tu_node(&t, "h13");
    ck_assert_int_eq(tu_paths(&t, NULL, a, b, NULL, 1, set), 2);
    ck_assert_str_eq(tu_path_str(&t, &set->path[0]), "h00 s0_0 h03 s1_3 h13");
    ck_assert_str_eq(tu_path_str(&t, &set->path[1]), "h00 s1_0 h10 s0_1 h13");
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    dcn_fail_node(&f, tu_node(&t, "h03"));
    ck_assert_int_eq(tu_paths(&t, NULL, a, b, &f, 1, set), 2);
    tu_check_pathset(&t, set, a, b, &f, 1);
    ck_assert_str_eq(tu_path_str(&t, &set->path[1]), "h00 s1_0 h10 s0_1 h13");
    ck_assert_uint_eq(dcn_path_server_hops(&set->path[0], &t), 4); /* like the paper's {00,02,22,23,13} */
    ck_assert_int_eq(tu_paths(&t, "route", a, b, &f, 1, set), 1);  /* 00 10 13 avoids 03 */
    dcn_fail_node(&f, tu_node(&t, "h10"));
    ck_assert_int_eq(tu_paths(&t, "route", a, b, &f, 1, set), 0);
    /* A failed first link: its level has no other way out, so k paths. */
    dcn_failures_clear(&f, &t);
    ck_assert_int_eq(dcn_fail_link(&f, &t, a, tu_node(&t, "s0_0")), 0);
    ck_assert_int_eq(tu_paths(&t, NULL, a, b, &f, 1, set), 1);
    tu_check_pathset(&t, set, a, b, &f, 1);
    ck_assert_str_eq(tu_path_str(&t, &set->path[0]), "h00 s1_0 h10 s0_1 h13");
    /* Failed source or destination: nothing. */
    dcn_failures_clear(&f, &t);
    dcn_fail_node(&f, b);
    ck_assert_int_eq(tu_paths(&t, NULL, a, b, &f, 1, set), 0);
    dcn_failures_free(&f);
    dcn_topo_free(&t);
    free(set);
}
END_TEST

START_TEST(repair_keeps_paths_valid_and_disjoint_under_random_failures)
{
    static const shape shapes[] = {{4, 2, 4}, {8, 3, 8}, {8, 3, 4}, {3, 3, 2}};
    dcn_pathset *set = calloc(1, sizeof *set), *clean = calloc(1, sizeof *clean);
    dcn_rng rng;
    dcn_rng_seed(&rng, 7);
    uint32_t repaired = 0;
    for (size_t c = 0; c < sizeof shapes / sizeof shapes[0]; c++) {
        dcn_topo t;
        build_shape(&t, shapes[c].n, shapes[c].k, shapes[c].parts);
        dcn_failures f;
        ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
        for (int r = 0; r < 400; r++) {
            uint32_t a = dcn_rng_below(&rng, t.n_servers), b = dcn_rng_below(&rng, t.n_servers);
            if (a == b)
                continue;
            dcn_failures_clear(&f, &t);
            ck_assert_int_gt(tu_paths(&t, NULL, a, b, NULL, 1, clean), 0);
            /* Fail 1-3 inner nodes of the clean set (servers or switches)
             * and 0-2 random links, never at the end points. */
            uint32_t nfail = 1 + dcn_rng_below(&rng, 3);
            for (uint32_t i = 0; i < nfail; i++) {
                const dcn_path *p = &clean->path[dcn_rng_below(&rng, clean->count)];
                dcn_fail_node(&f, p->node[1 + dcn_rng_below(&rng, p->len - 2)]);
            }
            for (uint32_t i = dcn_rng_below(&rng, 3); i > 0; i--) {
                uint32_t v = dcn_rng_below(&rng, t.n_servers);
                uint16_t port = (uint16_t)dcn_rng_below(&rng, dcn_nports(&t, v));
                if (v != a && v != b)
                    dcn_fail_port(&f, &t, v, port);
            }
            uint32_t intact = 0;
            for (uint32_t i = 0; i < clean->count; i++)
                intact += dcn_path_valid(&clean->path[i], &t, &f, NULL);
            int got = tu_paths(&t, NULL, a, b, &f, 1, set);
            ck_assert_int_ge(got, (int)intact);
            ck_assert_int_le(got, (int)clean->count);
            tu_check_pathset(&t, set, a, b, &f, 1);
            repaired += (uint32_t)got - intact;
        }
        dcn_failures_free(&f);
        dcn_topo_free(&t);
    }
    ck_assert_uint_gt(repaired, 500); /* the BFS alternates were really exercised */
    free(set);
    free(clean);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("bcube");
    TCase *tc = tcase_create("bcube");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, counts_match_formulas_and_wiring_follows_the_paper);
    tcase_add_test(tc, papers_container_and_defaults);
    tcase_add_test(tc, names_are_valid_unique_and_papers_notation);
    tcase_add_test(tc, longest_names_fit_everywhere_the_size_limit_allows);
    tcase_add_test(tc, bad_parameters_fail_with_one_line_naming_them);
    tcase_add_test(tc, pathset_all_pairs_of_small_instances);
    tcase_add_test(tc, pathset_random_pairs_of_large_instances);
    tcase_add_test(tc, partial_bcube_detours_to_a_present_part);
    tcase_add_test(tc, figure_4_exactly);
    tcase_add_test(tc, route_corrects_the_highest_digit_first);
    tcase_add_test(tc, bfs_diameter_is_k_plus_1);
    tcase_add_test(tc, repair_replaces_the_broken_path_like_bsr);
    tcase_add_test(tc, repair_keeps_paths_valid_and_disjoint_under_random_failures);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
