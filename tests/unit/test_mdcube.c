/* The MDCube family: the testbed's wiring table and paths (CoNEXT 2009,
 * section 6; notes section 9), wiring rule, Theorems 1, 2 and 4, incomplete
 * MDCube, names, parameter errors, and BCube switch properties 3 and 4.
 * Containers, coordinates and link counts are recomputed here from the
 * paper's definitions rather than with the library's geometry helpers. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "topo/bcube_switch_route.h"
#include "topo/bfs.h"
#include "topo/failures.h"
#include "topo/families/mdcube_route.h"
#include "topo/families/mdcube_segment.h"
#include "topo/json.h"
#include "topo/rng.h"

/* ck_assert records every passing check (a write per call), which is too
 * slow in all-pairs loops: these check quietly and abort on failure. */
#define REQUIRE(cond, ...)                                                                                             \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ck_abort_msg(__VA_ARGS__);                                                                                 \
    } while (0)

typedef struct shape {
    uint32_t n, k, dims, m[DCN_MAX_DIMS];
    uint32_t t, g, G, M, copies;
} shape;

static shape shape_of(const dcn_topo *t)
{
    shape s;
    long dims[DCN_MAX_DIMS];
    s.n = (uint32_t)dcn_param(&t->params, "n");
    s.k = (uint32_t)dcn_param(&t->params, "k");
    s.dims = (uint32_t)dcn_param_dims(&t->params, "m", dims);
    uint32_t nk = 1;
    for (uint32_t i = 0; i < s.k; i++)
        nk *= s.n;
    s.t = nk * s.n;
    s.g = (s.k + 1) * nk;
    s.G = 0;
    s.M = 1;
    for (uint32_t d = 0; d < s.dims; d++) {
        s.m[d] = (uint32_t)dims[d];
        s.G += s.m[d] - 1;
        s.M *= s.m[d];
    }
    s.copies = s.g / s.G;
    return s;
}

static uint32_t container_of(const dcn_topo *t, const shape *s, uint32_t v)
{
    return v < t->n_servers ? v / s->t : (v - t->n_servers) / s->g;
}

/* Coordinate d of container c: dimension 0 is the least significant. */
static uint32_t coord(const shape *s, uint32_t c, uint32_t d)
{
    for (uint32_t x = 0; x < d; x++)
        c /= s->m[x];
    return c % s->m[d];
}

static uint32_t switch_node(const dcn_topo *t, const shape *s, uint32_t c, uint32_t bwid)
{
    return t->n_servers + c * s->g + bwid;
}

static int is_fiber(const dcn_topo *t, uint32_t a, uint32_t b) { return a >= t->n_servers && b >= t->n_servers; }

/* Theorem 1: h = 4k+3+D(2k+3). */
static uint32_t theorem1(const shape *s) { return 4 * s->k + 3 + (s->dims - 1) * (2 * s->k + 3); }

/* ---- the testbed (n=2, k=1, m=5) ---- */

START_TEST(testbed_wiring_table)
{
    /* Notes section 2: container x's switches 0*, 1*, *0, *1 lead to these containers. */
    static const int table[5][4] = {{1, 2, 3, 4}, {0, 2, 3, 4}, {0, 1, 3, 4}, {0, 1, 2, 4}, {0, 1, 2, 3}};
    static const char *label[4] = {"0x", "1x", "x0", "x1"};
    dcn_topo t;
    tu_build(&t, "mdcube n=2 k=1 m=5");
    ck_assert_uint_eq(t.n_servers, 20);
    ck_assert_uint_eq(t.n_switches, 20);
    ck_assert_uint_eq(t.n_links, 20 * 2 + 10);
    for (int x = 0; x < 5; x++)
        for (int w = 0; w < 4; w++) {
            char name[16];
            snprintf(name, sizeof name, "s%d_%s", x, label[w]);
            uint32_t sw = tu_node(&t, name);
            ck_assert_uint_eq(sw, t.n_servers + (uint32_t)(x * 4 + w)); /* bwID order 0*, 1*, *0, *1 */
            ck_assert_uint_eq(dcn_nports(&t, sw), 3);
            dcn_end e = dcn_peer(&t, sw, 2); /* the high-speed port */
            ck_assert_uint_ne(e.node, DCN_NONE);
            ck_assert_uint_eq(e.port, 2);
            int y = table[x][w];
            /* The far end: container y's switch towards x, off + (x if x < y else x-1). */
            char want[16];
            snprintf(want, sizeof want, "s%d_%s", y, label[x < y ? x : x - 1]);
            ck_assert_str_eq(tu_name(&t, e.node), want);
        }
    /* Server 3.11: level-0 port to 3.1*, level-1 port to 3.*1, on port 1 of each. */
    uint32_t h = tu_node(&t, "h3_11");
    ck_assert_uint_eq(h, 3 * 4 + 3);
    ck_assert_str_eq(tu_name(&t, dcn_peer(&t, h, 0).node), "s3_1x");
    ck_assert_str_eq(tu_name(&t, dcn_peer(&t, h, 1).node), "s3_x1");
    ck_assert_uint_eq(dcn_peer(&t, h, 0).port, 1);
    ck_assert_uint_eq(dcn_peer(&t, h, 1).port, 1);
    ck_assert_str_eq(tu_name(&t, dcn_peer(&t, tu_node(&t, "s2_x0"), 1).node), "h2_10");
    dcn_topo_free(&t);
}
END_TEST

static void expect_detour(const dcn_topo *t, uint32_t value, uint32_t transit, const dcn_failures *f,
                          const char *want)
{
    dcn_path p;
    md_choice ch = {transit, 0};
    uint32_t a = tu_node(t, "h3_11"), b = tu_node(t, "h4_00");
    ck_assert_int_eq(mdcube_detour_path(t, a, b, 0, value, ch, f, &p), 0);
    const char *why = NULL;
    ck_assert_msg(dcn_path_valid(&p, t, f, &why), "invalid (%s): %s", why, tu_path_str(t, &p));
    ck_assert_str_eq(tu_path_str(t, &p), want);
}

START_TEST(testbed_paper_paths)
{
    dcn_topo t;
    tu_build(&t, "mdcube n=2 k=1 m=5");
    /* tcp1: 3.11 [3.1* => 1.*0] 1.00 [1.0*] 1.01 [1.*1 => 4.1*] 4.10 [4.*0] 4.00 (jump to 1) */
    expect_detour(&t, 1, 0, NULL, "h3_11 s3_1x s1_x0 h1_00 s1_0x h1_01 s1_x1 s4_1x h4_10 s4_x0 h4_00");
    /* tcp2: 3.11 [3.*1] 3.01 [3.0* => 0.*0] 0.10 [0.1*] 0.11 [0.*1 => 4.0*] 4.00 (jump to 0;
     * the paper's relay uses the second of the two equally short transit paths) */
    expect_detour(&t, 0, 1, NULL, "h3_11 s3_x1 h3_01 s3_0x s0_x0 h0_10 s0_1x h0_11 s0_x1 s4_0x h4_00");

    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
    /* E5 step 1: the cable 1.00 - 1.*0 is unplugged; container 1 repairs its own segment. */
    ck_assert_int_eq(dcn_fail_link(&f, &t, tu_node(&t, "h1_00"), tu_node(&t, "s1_x0")), 0);
    expect_detour(&t, 1, 0, &f, "h3_11 s3_1x s1_x0 h1_10 s1_1x h1_11 s1_x1 s4_1x h4_10 s4_x0 h4_00");
    /* E5 step 2: the fiber 1.*1 => 4.1* is unplugged too; the jump to 1 is broken ... */
    ck_assert_int_eq(dcn_fail_link(&f, &t, tu_node(&t, "s1_x1"), tu_node(&t, "s4_1x")), 0);
    dcn_path p;
    md_choice ch0 = {0, 0};
    ck_assert_int_lt(mdcube_detour_path(&t, tu_node(&t, "h3_11"), tu_node(&t, "h4_00"), 0, 1, ch0, &f, &p), 0);
    /* ... and the source jumps to container 2. */
    expect_detour(&t, 2, 0, &f, "h3_11 s3_1x h3_10 s3_x0 s2_x0 h2_00 s2_0x h2_01 s2_x1 s4_x0 h4_00");

    /* The random detour never picks the broken jump; the path set keeps valid paths only. */
    dcn_pathset *s = calloc(1, sizeof *s);
    uint32_t a = tu_node(&t, "h3_11"), b = tu_node(&t, "h4_00");
    int through1 = 0;
    for (uint64_t seed = 1; seed <= 64; seed++) {
        ck_assert_int_eq(tu_paths(&t, "detour", a, b, &f, seed, s), 1);
        tu_check_pathset(&t, s, a, b, &f, 0);
        through1 += dcn_path_contains(&s->path[0], tu_node(&t, "s1_x0"));
        ck_assert_int_eq(tu_paths(&t, "detour", a, b, NULL, seed, s), 1);
        tu_check_pathset(&t, s, a, b, NULL, 0);
    }
    ck_assert_int_eq(through1, 0);
    int kept = tu_paths(&t, NULL, a, b, &f, 1, s);
    ck_assert_int_ge(kept, 3);
    tu_check_pathset(&t, s, a, b, &f, 0);
    ck_assert_int_eq(tu_paths(&t, "route", a, b, &f, 1, s), 1); /* the direct fiber 3 => 4 is fine */
    ck_assert_str_eq(tu_path_str(&t, &s->path[0]), "h3_11 s3_x1 s4_x1 h4_01 s4_0x h4_00");
    dcn_fail_node(&f, tu_node(&t, "s3_x1"));
    ck_assert_int_eq(tu_paths(&t, "route", a, b, &f, 1, s), 0); /* its fiber switch is gone */
    dcn_failures_free(&f);
    free(s);
    dcn_topo_free(&t);
}
END_TEST

/* ---- properties over all pairs of small instances ---- */

static const char *const small[] = {
    "mdcube n=2 k=1 m=5", "mdcube n=3 k=1 m=4",   "mdcube n=2 k=2 m=3x3",   "mdcube n=3 k=1 m=3x3",
    "mdcube n=2 k=1 m=3", "mdcube n=3 k=2 m=5",   "mdcube n=2 k=2 m=2x2x3", "mdcube n=2 k=1 m=2x3",
    "mdcube n=4 k=0 m=2", "mdcube n=3 k=2 m=2x4",   "mdcube n=2 k=2 m=3x3x3",
};

/* tu_check_pathset, quietly. */
static void check_set(const dcn_topo *t, const dcn_pathset *set, uint32_t a, uint32_t b, int disjoint)
{
    for (uint32_t i = 0; i < set->count; i++) {
        const dcn_path *p = &set->path[i];
        const char *why = NULL;
        REQUIRE(dcn_path_valid(p, t, NULL, &why), "path %u invalid (%s): %s", i, why, tu_path_str(t, p));
        REQUIRE(p->node[0] == a && p->node[p->len - 1] == b, "wrong ends: %s", tu_path_str(t, p));
        for (uint32_t j = 0; j < i && disjoint; j++)
            REQUIRE(dcn_paths_node_disjoint(p, &set->path[j]), "paths %u and %u meet: %s", j, i, tu_path_str(t, p));
    }
}

/* Intermediate containers of p, as a bitmap over containers. */
static void mark_intermediate(const dcn_topo *t, const shape *s, const dcn_path *p, uint8_t *mark, uint32_t src_c,
                              uint32_t dst_c)
{
    memset(mark, 0, s->M);
    for (uint32_t i = 0; i < p->len; i++) {
        uint32_t c = container_of(t, s, p->node[i]);
        if (c != src_c && c != dst_c)
            mark[c] = 1;
    }
}

static uint32_t first_fiber(const dcn_topo *t, const dcn_path *p)
{
    for (uint32_t i = 1; i < p->len; i++)
        if (is_fiber(t, p->node[i - 1], p->node[i]))
            return p->node[i - 1];
    return DCN_NONE;
}

static uint32_t last_fiber(const dcn_topo *t, const dcn_path *p)
{
    for (uint32_t i = p->len; i-- > 1;)
        if (is_fiber(t, p->node[i - 1], p->node[i]))
            return p->node[i];
    return DCN_NONE;
}

static uint32_t fibers_on(const dcn_topo *t, const dcn_path *p)
{
    uint32_t n = 0;
    for (uint32_t i = 1; i < p->len; i++)
        n += (uint32_t)is_fiber(t, p->node[i - 1], p->node[i]);
    return n;
}

static uint32_t coords_differ(const shape *s, uint32_t a, uint32_t b)
{
    uint32_t n = 0;
    for (uint32_t d = 0; d < s->dims; d++)
        n += coord(s, a, d) != coord(s, b, d);
    return n;
}

/* Theorem 4's set: G paths, no intermediate container in common, distinct
 * first and last fibers, the direct path (one fiber per differing
 * coordinate) among them. */
static void check_theorem4(const dcn_topo *t, const shape *s, const dcn_pathset *set, uint32_t a, uint32_t b,
                           uint8_t *m1, uint8_t *m2)
{
    uint32_t ac = a / s->t, bc = b / s->t, direct = 0;
    REQUIRE(set->count == (s->G < DCN_PATHSET_MAX ? s->G : DCN_PATHSET_MAX), "%u paths", set->count);
    for (uint32_t i = 0; i < set->count; i++) {
        direct += fibers_on(t, &set->path[i]) == coords_differ(s, ac, bc);
        mark_intermediate(t, s, &set->path[i], m1, ac, bc);
        for (uint32_t j = 0; j < i; j++) {
            REQUIRE(first_fiber(t, &set->path[i]) != first_fiber(t, &set->path[j]), "same first fiber");
            REQUIRE(last_fiber(t, &set->path[i]) != last_fiber(t, &set->path[j]), "same last fiber");
            mark_intermediate(t, s, &set->path[j], m2, ac, bc);
            for (uint32_t c = 0; c < s->M; c++)
                REQUIRE(!(m1[c] && m2[c]), "%s -> %s: paths %u and %u both cross container %u",
                              tu_name(t, a), tu_name(t, b), j, i, c);
        }
    }
    REQUIRE(direct >= 1, "no direct path");
}

/* Theorem 2's paths meet only at the fiber switches. */
static void check_parallel(const dcn_topo *t, const dcn_pathset *set)
{
    for (uint32_t i = 0; i < set->count; i++)
        for (uint32_t j = 0; j < i; j++) {
            const dcn_path *p = &set->path[i], *q = &set->path[j];
            for (uint32_t x = 1; x + 1 < p->len; x++)
                if (dcn_path_contains(q, p->node[x]))
                    REQUIRE(is_fiber(t, p->node[x - 1], p->node[x]) || is_fiber(t, p->node[x], p->node[x + 1]),
                                  "parallel paths share %s", tu_name(t, p->node[x]));
        }
}

START_TEST(all_pairs_all_algorithms)
{
    dcn_topo t;
    tu_build(&t, small[_i]);
    shape s = shape_of(&t);
    dcn_pathset *set = calloc(1, sizeof *set);
    uint8_t *m1 = malloc(s.M), *m2 = malloc(s.M);
    uint32_t h = theorem1(&s), longest_route = 0;
    for (uint32_t a = 0; a < t.n_servers; a++)
        for (uint32_t b = 0; b < t.n_servers; b++) {
            if (a == b) {
                REQUIRE(tu_paths(&t, NULL, a, b, NULL, 1, set) == -1, "a == b accepted");
                continue;
            }
            int same = a / s.t == b / s.t;
            int n = tu_paths(&t, NULL, a, b, NULL, a * 7919u + b, set);
            check_set(&t, set, a, b, same);
            if (same)
                REQUIRE(n == (int)s.k + 1, "%d paths", n);
            else
                check_theorem4(&t, &s, set, a, b, m1, m2);

            REQUIRE(tu_paths(&t, "route", a, b, NULL, 1, set) == 1, "no route");
            check_set(&t, set, a, b, 0);
            uint32_t len = dcn_path_links(&set->path[0]);
            REQUIRE(len <= h, "%s: route %s has %u links > h=%u", small[_i], tu_path_str(&t, &set->path[0]),
                          len, h);
            longest_route = len > longest_route ? len : longest_route;
            REQUIRE(fibers_on(&t, &set->path[0]) == coords_differ(&s, a / s.t, b / s.t), "route's fibers");

            REQUIRE(tu_paths(&t, "detour", a, b, NULL, a * 31u + b, set) == 1, "no detour");
            check_set(&t, set, a, b, 0);

            n = tu_paths(&t, "parallel", a, b, NULL, 1, set);
            if (!same && s.k + 1 > s.n) {
                REQUIRE(n == -1, "parallel with k+1 > n");
                continue;
            }
            REQUIRE(n == (int)s.k + 1, "%d parallel paths", n);
            check_set(&t, set, a, b, same);
            check_parallel(&t, set);
        }
    ck_assert_uint_ge(longest_route, 1);
    free(m1);
    free(m2);
    free(set);
    dcn_topo_free(&t);
}
END_TEST

START_TEST(bfs_distances_within_theorem1)
{
    dcn_topo t;
    tu_build(&t, small[_i]);
    shape s = shape_of(&t);
    uint32_t *links = malloc(t.n_servers * sizeof *links), diameter = 0;
    for (uint32_t a = 0; a < t.n_servers; a++) {
        dcn_bfs_server_distances(&t, a, NULL, links, NULL);
        for (uint32_t b = 0; b < t.n_servers; b++) {
            REQUIRE(links[b] != UINT32_MAX, "disconnected");
            diameter = links[b] > diameter ? links[b] : diameter;
        }
    }
    ck_assert_msg(diameter <= theorem1(&s), "%s: diameter %u > h=%u", small[_i], diameter, theorem1(&s));
    ck_assert_int_eq(tu_formula(&t, "theorem1_max_path_links"), theorem1(&s));
    if (s.dims == 1 && s.copies == 1)
        ck_assert_uint_eq(diameter, theorem1(&s)); /* 2(2k+1)+1 is reached in a complete 1-D MDCube */
    free(links);
    dcn_topo_free(&t);
}
END_TEST

/* Random failures: whatever the algorithms return is valid under them; with
 * only servers and server cables down (every switch and fiber up) the
 * containers repair MDCubeRouting's segments almost always. */
START_TEST(random_failures_give_valid_paths)
{
    static const char *const specs[] = {"mdcube n=3 k=1 m=4", "mdcube n=3 k=1 m=3x3", "mdcube n=2 k=2 m=2x2x3"};
    for (size_t x = 0; x < sizeof specs / sizeof specs[0]; x++) {
        dcn_topo t;
        tu_build(&t, specs[x]);
        shape s = shape_of(&t);
        dcn_pathset *set = calloc(1, sizeof *set);
        dcn_failures f;
        ck_assert_int_eq(dcn_failures_init(&f, &t), 0);
        dcn_rng rng;
        dcn_rng_seed(&rng, 42 + x);
        uint32_t found = 0, asked = 0, inner_routes = 0, inner_asked = 0;
        for (int round = 0; round < 40; round++) {
            dcn_failures_clear(&f, &t);
            int inner_only = round % 2;
            for (uint32_t v = 0; v < dcn_n_nodes(&t); v++) {
                if (dcn_rng_below(&rng, 100) >= 4)
                    continue;
                if (inner_only && v >= t.n_servers)
                    continue;
                dcn_fail_node(&f, v);
            }
            for (uint32_t v = 0; v < t.n_servers; v++)
                if (dcn_rng_below(&rng, 100) < 4)
                    dcn_fail_port(&f, &t, v, (uint16_t)dcn_rng_below(&rng, s.k + 1));
            for (int pair = 0; pair < 60; pair++) {
                uint32_t a = dcn_rng_below(&rng, t.n_servers), b = dcn_rng_below(&rng, t.n_servers);
                if (a == b || f.node_down[a] || f.node_down[b])
                    continue;
                static const char *const algos[] = {NULL, "route", "detour", "parallel"};
                for (int al = 0; al < 4; al++) {
                    int n = tu_paths(&t, algos[al], a, b, &f, (uint64_t)pair + 1, set);
                    if (al == 3 && s.k + 1 > s.n && a / s.t != b / s.t) {
                        REQUIRE(n == -1, "parallel needs k+1 <= n");
                        continue;
                    }
                    REQUIRE(n >= 0, "%s: request %s -> #%u refused", algos[al] ? algos[al] : "pathset", tu_name(&t, a), b);
                    for (uint32_t i = 0; i < set->count; i++) {
                        const char *why = NULL;
                        REQUIRE(dcn_path_valid(&set->path[i], &t, &f, &why), "%s: invalid (%s): %s",
                                algos[al] ? algos[al] : "pathset", why, tu_path_str(&t, &set->path[i]));
                        REQUIRE(set->path[i].node[0] == a && set->path[i].node[set->path[i].len - 1] == b,
                                "wrong ends");
                    }
                    asked++;
                    found += n > 0;
                    if (al == 1 && inner_only) {
                        inner_asked++;
                        inner_routes += n == 1; /* containers repair; fibers are all up */
                    }
                }
            }
        }
        ck_assert_uint_gt(found, asked / 2);
        ck_assert_msg(inner_routes * 10 >= inner_asked * 9, "%s: route found %u of %u with only servers down",
                      specs[x], inner_routes, inner_asked);
        dcn_failures_free(&f);
        free(set);
        dcn_topo_free(&t);
    }
}
END_TEST

/* Theorem 3 (notes section 4): all-to-all with MDCubeRouting puts exactly
 * t*N/m_i flows on every directed fiber of dimension i (copy 0, the one
 * `route` uses; the other copies stay unused). */
START_TEST(all_to_all_fiber_load)
{
    static const char *const specs[] = {"mdcube n=2 k=1 m=5", "mdcube n=3 k=1 m=3x3", "mdcube n=2 k=2 m=2x2x3",
                                        "mdcube n=4 k=1 m=4x3"};
    for (size_t x = 0; x < sizeof specs / sizeof specs[0]; x++) {
        dcn_topo t;
        tu_build(&t, specs[x]);
        shape s = shape_of(&t);
        uint32_t nw = t.n_switches, N = t.n_servers;
        uint32_t *load = calloc(nw, sizeof *load); /* flows leaving switch w over its fiber */
        dcn_pathset *set = calloc(1, sizeof *set);
        for (uint32_t a = 0; a < N; a++)
            for (uint32_t b = 0; b < N; b++) {
                if (a == b)
                    continue;
                REQUIRE(tu_paths(&t, "route", a, b, NULL, 1, set) == 1, "no route");
                const dcn_path *p = &set->path[0];
                for (uint32_t i = 1; i < p->len; i++)
                    if (is_fiber(&t, p->node[i - 1], p->node[i]))
                        load[p->node[i - 1] - N]++;
            }
        for (uint32_t w = 0; w < nw; w++) {
            uint32_t bw = w % s.g;
            if (bw >= s.G) {
                ck_assert_uint_eq(load[w], 0);
                continue;
            }
            uint32_t d = 0, off = 0;
            while (bw >= off + s.m[d] - 1)
                off += s.m[d++] - 1;
            ck_assert_msg(load[w] == s.t * N / s.m[d], "%s: fiber of switch %s carries %u flows, not tN/m_%u = %u",
                          specs[x], tu_name(&t, N + w), load[w], d, s.t * N / s.m[d]);
        }
        free(set);
        free(load);
        dcn_topo_free(&t);
    }
}
END_TEST

/* ---- counts, wiring rule, incomplete MDCube ---- */

static void check_wiring(const dcn_topo *t)
{
    shape s = shape_of(t);
    ck_assert_uint_eq(t->n_servers, s.t * s.M);
    ck_assert_uint_eq(t->n_switches, s.g * s.M);
    uint64_t fibers = (uint64_t)s.M * s.G / 2 * s.copies;
    ck_assert_uint_eq(t->n_links, (uint64_t)t->n_servers * (s.k + 1) + fibers);
    ck_assert_int_eq(tu_formula(t, "servers"), t->n_servers);
    ck_assert_int_eq(tu_formula(t, "switches"), t->n_switches);
    ck_assert_int_eq(tu_formula(t, "fibers"), (long long)fibers);
    ck_assert_int_eq(tu_formula(t, "links"), (long long)t->n_links);
    for (uint32_t c = 0; c < s.M; c++)
        for (uint32_t w = 0; w < s.g; w++) {
            uint32_t sw = switch_node(t, &s, c, w);
            ck_assert_uint_eq(dcn_nports(t, sw), s.n + 1);
            for (uint32_t p = 0; p < s.n; p++)
                ck_assert_uint_lt(dcn_peer(t, sw, (uint16_t)p).node, t->n_servers);
            dcn_end e = dcn_peer(t, sw, (uint16_t)s.n);
            if (w >= s.copies * s.G) {
                ck_assert_uint_eq(e.node, DCN_NONE); /* idle switch: port n stays free */
                continue;
            }
            /* bwid w = copy*G + off_d + (y if y < x else y-1) reaches coordinate y on d. */
            uint32_t r = w % s.G, d = 0, off = 0;
            while (r >= off + s.m[d] - 1)
                off += s.m[d++] - 1;
            uint32_t x = coord(&s, c, d), y = r - off < x ? r - off : r - off + 1;
            ck_assert_uint_ge(e.node, t->n_servers);
            uint32_t pc = container_of(t, &s, e.node), pw = (e.node - t->n_servers) % s.g;
            ck_assert_uint_eq(e.port, s.n);
            ck_assert_uint_eq(coords_differ(&s, c, pc), 1);
            ck_assert_uint_eq(coord(&s, pc, d), y);
            ck_assert_uint_eq(pw, (w / s.G) * s.G + off + (x < y ? x : x - 1));
        }
}

START_TEST(counts_and_wiring_rule)
{
    static const char *const specs[] = {"mdcube n=2 k=1 m=5", "mdcube n=3 k=1 m=3x3", "mdcube n=2 k=2 m=2x2x3",
                                        "mdcube n=4 k=1 m=4x3x2", "mdcube n=3 k=2 m=5", "mdcube n=2 k=1 m=3",
                                        "mdcube n=8 k=1 m=10"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        dcn_topo t;
        tu_build(&t, specs[i]);
        check_wiring(&t);
        dcn_topo_free(&t);
    }
}
END_TEST

START_TEST(incomplete_mdcube)
{
    dcn_topo t;
    /* Fig. 3: 3 containers of BCube_1(n=2): G=2 of g=4, cabled twice. */
    tu_build(&t, "mdcube n=2 k=1 m=3");
    shape s = shape_of(&t);
    ck_assert_uint_eq(s.copies, 2);
    for (uint32_t a = 0; a < 3; a++)
        for (uint32_t b = 0; b < 3; b++) {
            if (a == b)
                continue;
            uint32_t links = 0;
            for (uint32_t w = 0; w < 4; w++) {
                dcn_end e = dcn_peer(&t, switch_node(&t, &s, a, w), 2);
                ck_assert_uint_ne(e.node, DCN_NONE); /* every switch used */
                links += container_of(&t, &s, e.node) == b;
            }
            ck_assert_uint_eq(links, 2);
        }
    ck_assert_int_eq(tu_formula(&t, "cabling_copies"), 2);
    ck_assert_int_eq(tu_formula(&t, "idle_switches_per_container"), 0);
    /* Copy 1 of GetLink is another fiber between the same containers. */
    dcn_path p0, p1;
    md_choice c0 = {0, 0}, c1 = {0, 1};
    uint32_t a = tu_node(&t, "h0_00"), b = tu_node(&t, "h1_00");
    ck_assert_int_eq(mdcube_route_path(&t, a, b, c0, NULL, &p0), 0);
    ck_assert_int_eq(mdcube_route_path(&t, a, b, c1, NULL, &p1), 0);
    ck_assert_uint_ne(first_fiber(&t, &p0), first_fiber(&t, &p1));
    ck_assert_uint_eq(container_of(&t, &s, last_fiber(&t, &p0)), 1);
    ck_assert_uint_eq(container_of(&t, &s, last_fiber(&t, &p1)), 1);
    dcn_topo_free(&t);

    /* n=3, k=2, m=5: g=27, G=4, 6 copies, 3 idle switches. */
    tu_build(&t, "mdcube n=3 k=2 m=5");
    s = shape_of(&t);
    ck_assert_uint_eq(s.copies, 6);
    ck_assert_int_eq(tu_formula(&t, "idle_switches_per_container"), 3);
    ck_assert_int_eq(tu_formula(&t, "fibers"), 5 * 4 / 2 * 6);
    for (uint32_t c = 0; c < 5; c++) {
        uint32_t idle = 0;
        for (uint32_t w = 0; w < 27; w++)
            idle += dcn_peer(&t, switch_node(&t, &s, c, w), 3).node == DCN_NONE;
        ck_assert_uint_eq(idle, 3);
        for (uint32_t w = 24; w < 27; w++)
            ck_assert_uint_eq(dcn_peer(&t, switch_node(&t, &s, c, w), 3).node, DCN_NONE);
    }
    dcn_topo_free(&t);
}
END_TEST

START_TEST(bad_parameters)
{
    const char *e = tu_build_fails("mdcube n=2 k=1 m=5x5");
    ck_assert_msg(strstr(e, "m=5x5") && strstr(e, "g=(k+1)n^k=4") && strstr(e, "=8"), "%s", e);
    e = tu_build_fails("mdcube n=2 k=1 m=6");
    ck_assert_msg(strstr(e, "m=6") && strstr(e, "=4"), "%s", e);
    tu_build_fails_with("mdcube n=2 k=1 m=1", "m=1");
    tu_build_fails_with("mdcube n=2 k=1 m=3x1", "m=3x1");
    tu_build_fails_with("mdcube n=2 k=1 m=3x", "m=3x is malformed");
    tu_build_fails_with("mdcube n=2 k=1 m=x3", "m=x3");
    tu_build_fails_with("mdcube n=2 k=1 m=2x2x2x2x2", "m=2x2x2x2x2");
    tu_build_fails_with("mdcube n=2 k=1 m=1025", "m=1025");
    tu_build_fails_with("mdcube n=1 k=1 m=3", "n=1 is out of range (allowed 2..64)");
    tu_build_fails_with("mdcube n=2 k=8 m=3", "k=8 is out of range (allowed 0..7)");
    tu_build_fails_with("mdcube n=4 k=0 m=3", "m=3");
    e = tu_build_fails("mdcube n=64 k=7 m=2");
    ck_assert_msg(strstr(e, "too large"), "%s", e);
    e = tu_build_fails("mdcube n=48 k=1 m=1024x1024");
    ck_assert_msg(strstr(e, "m=1024x1024"), "%s", e);
    e = tu_build_fails("mdcube n=2 k=7 m=512x512");
    ck_assert_msg(strstr(e, "m=512x512") && strstr(e, "too large"), "%s", e);
    e = tu_build_fails("mdcube n=4 k=5 m=35x39");
    ck_assert_msg(strstr(e, "ports, too many"), "%s", e);
}
END_TEST

/* ---- names ---- */

static int name_ok(const char *s)
{
    size_t len = strlen(s);
    if (len == 0 || len > 10 || s[0] < 'a' || s[0] > 'z')
        return 0;
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return 0;
    return 1;
}

static int cmp_str(const void *a, const void *b) { return strcmp((const char *)a, (const char *)b); }

static void check_names(const char *spec, const char *first_server, const char *last_switch)
{
    dcn_topo t;
    tu_build(&t, spec);
    uint32_t n = dcn_n_nodes(&t);
    char(*names)[DCN_NAME_MAX] = malloc((size_t)n * DCN_NAME_MAX);
    for (uint32_t v = 0; v < n; v++) {
        dcn_node_name(&t, v, names[v], DCN_NAME_MAX);
        ck_assert_msg(name_ok(names[v]), "%s: bad name '%s'", spec, names[v]);
    }
    ck_assert_str_eq(names[0], first_server);
    ck_assert_str_eq(names[n - 1], last_switch);
    ck_assert_uint_eq(dcn_node_lookup(&t, last_switch), n - 1);
    qsort(names, n, DCN_NAME_MAX, cmp_str);
    for (uint32_t v = 1; v < n; v++)
        ck_assert_msg(strcmp(names[v - 1], names[v]) != 0, "%s: name %s twice", spec, names[v]);
    free(names);
    dcn_topo_free(&t);
}

START_TEST(names_fit_and_are_unique)
{
    check_names("mdcube n=2 k=1 m=5", "h0_00", "s4_x1");
    check_names("mdcube n=3 k=2 m=2x4", "h0_000", "s7_x22");
    check_names("mdcube n=4 k=0 m=2", "h0_0", "s1_x");
    check_names("mdcube n=2 k=6 m=3", "h0_0000000", "s2_x111111"); /* 10 characters: still the paper's form */
    check_names("mdcube n=2 k=7 m=3", "h0_0", "s2_1023");          /* 11 would be needed: h<c>_<bsid> */
    check_names("mdcube n=12 k=1 m=3", "h0_0", "s2_23");           /* n > 10: h<c>_<bsid> */
    check_names("mdcube n=2 k=7 m=11", "h0_0", "s10_1023");
}
END_TEST

/* ---- BCube switch properties 3 and 4 (the helpers in bcube_switch_route.h) ---- */

static void seq_to_path(const dcn_topo *t, const uint32_t *seq, uint32_t len, uint32_t first_switch,
                        uint32_t last_switch, dcn_path *p)
{
    dcn_path_clear(p);
    if (first_switch != DCN_NONE)
        dcn_path_push(p, t->n_servers + first_switch);
    for (uint32_t i = 0; i < len; i++)
        dcn_path_push(p, seq[i]); /* container 0: node id = BCube address */
    REQUIRE(dcn_path_expand_servers(p, t) == 0, "not a BCube route");
    if (last_switch != DCN_NONE)
        dcn_path_push(p, t->n_servers + last_switch);
}

START_TEST(switch_properties_3_and_4)
{
    static const char *const specs[] = {"mdcube n=2 k=1 m=2", "mdcube n=3 k=1 m=2", "mdcube n=3 k=2 m=2",
                                        "mdcube n=4 k=2 m=2", "mdcube n=4 k=3 m=2", "mdcube n=5 k=2 m=2"};
    for (size_t x = 0; x < sizeof specs / sizeof specs[0]; x++) {
        dcn_topo t;
        tu_build(&t, specs[x]);
        shape s = shape_of(&t);
        bc_dims d;
        bc_dims_init(&d, s.n, s.k);
        dcn_pathset *set = calloc(1, sizeof *set);
        uint32_t seq[BC_SW_SEQ_MAX], seqs[BC_MAX_LEVELS][BC_SW_SEQ_MAX], lens[BC_MAX_LEVELS];
        for (uint32_t w0 = 0; w0 < s.g; w0++) {
            /* Property 3: n disjoint switch-to-switch paths of at most 2k+4 links. */
            for (uint32_t w1 = 0; w1 < s.g; w1++) {
                if (w0 == w1)
                    continue;
                set->count = 0;
                uint32_t shortest = bc_switch_pair_shortest(&d, w0, w1), best = UINT32_MAX;
                for (uint32_t i = 0; i < s.n; i++) {
                    uint32_t len = bc_switch_pair_path(&d, w0, w1, i, seq);
                    seq_to_path(&t, seq, len, w0, w1, &set->path[set->count++]);
                    uint32_t links = dcn_path_links(&set->path[i]);
                    REQUIRE(links <= 2 * s.k + 4, "%u links", links);
                    best = links < best ? links : best;
                }
                REQUIRE(dcn_path_links(&set->path[shortest]) == best, "index %u is not shortest", shortest);
                check_set(&t, set, t.n_servers + w0, t.n_servers + w1, 1);
            }
            /* Property 4: k+1 disjoint switch-to-server paths of at most 2k+5 links. */
            for (uint32_t a = 0; a < s.t; a++) {
                uint32_t np = bc_switch_server_paths(&d, w0, a, seqs, lens);
                if (s.k + 1 > s.n) {
                    REQUIRE(np == 0, "property 4 with k+1 > n");
                    continue;
                }
                REQUIRE(np == s.k + 1, "%u paths", np);
                set->count = 0;
                for (uint32_t i = 0; i < np; i++) {
                    seq_to_path(&t, seqs[i], lens[i], w0, DCN_NONE, &set->path[set->count++]);
                    REQUIRE(dcn_path_links(&set->path[i]) <= 2 * s.k + 5, "too long");
                }
                check_set(&t, set, t.n_servers + w0, a, 1);
            }
        }
        free(set);
        dcn_topo_free(&t);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("mdcube");
    TCase *tc = tcase_create("mdcube");
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, testbed_wiring_table);
    tcase_add_test(tc, testbed_paper_paths);
    tcase_add_loop_test(tc, all_pairs_all_algorithms, 0, (int)(sizeof small / sizeof small[0]));
    tcase_add_loop_test(tc, bfs_distances_within_theorem1, 0, (int)(sizeof small / sizeof small[0]));
    tcase_add_test(tc, random_failures_give_valid_paths);
    tcase_add_test(tc, all_to_all_fiber_load);
    tcase_add_test(tc, counts_and_wiring_rule);
    tcase_add_test(tc, incomplete_mdcube);
    tcase_add_test(tc, bad_parameters);
    tcase_add_test(tc, names_fit_and_are_unique);
    tcase_add_test(tc, switch_properties_3_and_4);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
