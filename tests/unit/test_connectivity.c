/* The vertex connectivity (dcn_vertex_connectivity) and what it stands on:
 * the server graph (dcn_graph_of_servers) and the vertex-disjoint paths
 * (dcn_vflow_paths): what `dcn-topo connectivity` prints and
 * experiments/sim/fig_bcdc_table2.py asks for. Known values (cycles,
 * complete graphs, a cut vertex, K_{3,3}, Petersen, a graph whose every
 * smallest cut holds its vertex of least degree, BCube's (k+1)(n-1), BCDC's
 * 2n-2), and every result against a brute force over vertex sets. */
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "topo/components.h"
#include "topo/connectivity.h"
#include "topo/graph.h"
#include "topo/vertex_flow.h"

#define BRUTE_MAX 10 /* vertices, for the brute force */

static void graph_of(dcn_graph *g, uint32_t n, const uint32_t *ends, uint32_t m)
{
    ck_assert_int_eq(dcn_graph_from_edges(g, n, ends, m), 0);
}

/* The vertices of keep (a bit mask) that v reaches without leaving keep. */
static uint32_t reach_within(const dcn_graph *g, uint32_t keep, uint32_t v)
{
    uint32_t seen = 1u << v, grown = 1;
    while (grown) {
        grown = 0;
        for (uint32_t x = 0; x < g->n; x++) {
            if (!(seen >> x & 1))
                continue;
            for (uint32_t i = g->off[x]; i < g->off[x + 1]; i++) {
                uint32_t y = g->adj[i];
                if ((keep >> y & 1) && !(seen >> y & 1)) {
                    seen |= 1u << y;
                    grown = 1;
                }
            }
        }
    }
    return seen;
}

/* The fewest vertices whose removal leaves g disconnected or one vertex,
 * by trying every set of vertices, the smallest first. */
static uint32_t brute_kappa(const dcn_graph *g)
{
    uint32_t n = g->n, all = (1u << n) - 1;
    for (uint32_t size = 0; size + 2 <= n; size++)
        for (uint32_t cut = 0; cut <= all; cut++) {
            if ((uint32_t)__builtin_popcount(cut) != size)
                continue;
            uint32_t keep = all & ~cut, first = (uint32_t)__builtin_ctz(keep);
            if (reach_within(g, keep, first) != keep)
                return size;
        }
    return n ? n - 1 : 0;
}

/* The cut really parts a from b, and has kappa vertices; a complete
 * graph has no pair. */
static void check_cut(const dcn_graph *g, const dcn_conn *c, const uint32_t *cut)
{
    if (c->a == DCN_NONE) {
        ck_assert_uint_eq(c->kappa, g->n - 1);
        ck_assert_uint_eq(g->m, (uint64_t)g->n * (g->n - 1) / 2);
        return;
    }
    ck_assert_uint_le(g->n, 32);
    uint32_t keep = g->n == 32 ? UINT32_MAX : (1u << g->n) - 1;
    for (uint32_t i = 0; i < c->kappa; i++) {
        ck_assert(cut[i] != c->a && cut[i] != c->b);
        ck_assert(i == 0 || cut[i - 1] < cut[i]);
        keep &= ~(1u << cut[i]);
    }
    ck_assert_msg(!(reach_within(g, keep, c->a) >> c->b & 1), "the cut does not part %u from %u", c->a, c->b);
}

static uint32_t kappa_of(const dcn_graph *g)
{
    dcn_conn c;
    uint32_t cut[64];
    ck_assert_uint_le(g->n, 64);
    ck_assert_int_eq(dcn_vertex_connectivity(g, &c, cut), 0);
    if (g->n <= 32)
        check_cut(g, &c, cut);
    ck_assert_uint_le(c.kappa, c.degree_min);
    return c.kappa;
}

START_TEST(cycles_and_complete_graphs)
{
    for (uint32_t n = 3; n <= 12; n++) {
        uint32_t ends[2 * 12];
        for (uint32_t i = 0; i < n; i++) {
            ends[2 * i] = i;
            ends[2 * i + 1] = (i + 1) % n;
        }
        dcn_graph g;
        graph_of(&g, n, ends, n);
        ck_assert_uint_eq(kappa_of(&g), 2);
        dcn_graph_free(&g);
    }
    for (uint32_t n = 1; n <= 8; n++) {
        uint32_t ends[2 * 28], m = 0;
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = a + 1; b < n; b++) {
                ends[2 * m] = a;
                ends[2 * m + 1] = b;
                m++;
            }
        dcn_graph g;
        graph_of(&g, n, ends, m);
        dcn_conn c;
        uint32_t cut[8];
        ck_assert_int_eq(dcn_vertex_connectivity(&g, &c, cut), 0);
        ck_assert_uint_eq(c.kappa, n - 1);
        ck_assert_uint_eq(c.a, DCN_NONE); /* no two vertices to part */
        ck_assert_uint_eq(c.flows, 0);
        dcn_graph_free(&g);
    }
}
END_TEST

/* Two K5 sharing vertex 0: edge connectivity 4, vertex connectivity 1 (an
 * edge-disjoint count would say 4); a path; two triangles (0); K_{3,3} (3);
 * the Petersen graph (3). */
START_TEST(known_graphs)
{
    uint32_t ends[2 * 40], m = 0;
    for (uint32_t k = 0; k < 2; k++) {
        uint32_t v[5] = {0, 1 + 4 * k, 2 + 4 * k, 3 + 4 * k, 4 + 4 * k};
        for (uint32_t a = 0; a < 5; a++)
            for (uint32_t b = a + 1; b < 5; b++) {
                ends[2 * m] = v[a];
                ends[2 * m + 1] = v[b];
                m++;
            }
    }
    dcn_graph g;
    graph_of(&g, 9, ends, m);
    dcn_conn c;
    uint32_t cut[16];
    ck_assert_int_eq(dcn_vertex_connectivity(&g, &c, cut), 0);
    ck_assert_uint_eq(c.kappa, 1);
    ck_assert_uint_eq(cut[0], 0);
    ck_assert_uint_eq(c.degree_min, 4);
    check_cut(&g, &c, cut);
    dcn_graph_free(&g);

    const uint32_t path[] = {0, 1, 1, 2, 2, 3};
    graph_of(&g, 4, path, 3);
    ck_assert_uint_eq(kappa_of(&g), 1);
    dcn_graph_free(&g);

    const uint32_t triangles[] = {0, 1, 1, 2, 2, 0, 3, 4, 4, 5, 5, 3};
    graph_of(&g, 6, triangles, 6);
    ck_assert_int_eq(dcn_vertex_connectivity(&g, &c, cut), 0);
    ck_assert_uint_eq(c.kappa, 0);
    ck_assert(c.a < 3 && c.b >= 3);
    dcn_graph_free(&g);

    m = 0;
    for (uint32_t a = 0; a < 3; a++)
        for (uint32_t b = 3; b < 6; b++) {
            ends[2 * m] = a;
            ends[2 * m + 1] = b;
            m++;
        }
    graph_of(&g, 6, ends, m);
    ck_assert_uint_eq(kappa_of(&g), 3);
    dcn_graph_free(&g);

    const uint32_t petersen[] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 0, 0, 5, 1, 6, 2, 7, 3, 8, 4, 9,
                                 5, 7, 7, 9, 9, 6, 6, 8, 8, 5};
    graph_of(&g, 10, petersen, 15);
    ck_assert_uint_eq(kappa_of(&g), 3);
    dcn_graph_free(&g);

    graph_of(&g, 1, NULL, 0);
    ck_assert_uint_eq(kappa_of(&g), 0);
    dcn_graph_free(&g);
}
END_TEST

/* Every smallest cut holds v, the vertex of least degree: two K5 (1..5,
 * 6..10) joined by the edge 3-8, v = 0 adjacent to 1, 2, 6, 7. {0, 3}
 * parts them; without v it takes 3 (1, 2, 3). Only a pair of v's
 * neighbours (Esfahanian and Hakimi's second kind) finds 2. */
START_TEST(cut_through_least_degree_vertex)
{
    uint32_t ends[2 * 25] = {0, 1, 0, 2, 0, 6, 0, 7, 3, 8}, m = 5;
    for (uint32_t k = 0; k < 2; k++)
        for (uint32_t a = 1 + 5 * k; a <= 5 + 5 * k; a++)
            for (uint32_t b = a + 1; b <= 5 + 5 * k; b++) {
                ends[2 * m] = a;
                ends[2 * m + 1] = b;
                m++;
            }
    dcn_graph g;
    graph_of(&g, 11, ends, m);
    ck_assert_uint_eq(brute_kappa(&g), 2);
    dcn_conn c;
    uint32_t cut[11];
    ck_assert_int_eq(dcn_vertex_connectivity(&g, &c, cut), 0);
    ck_assert_uint_eq(c.kappa, 2);
    ck_assert_uint_eq(c.degree_min, 4);
    ck_assert_uint_eq(cut[0], 0);
    ck_assert(c.a != 0 && c.b != 0);
    check_cut(&g, &c, cut);
    dcn_graph_free(&g);
}
END_TEST

/* Loops and repeated edges are dropped; an end out of range is refused. */
START_TEST(graph_from_edges)
{
    const uint32_t ends[] = {0, 1, 1, 0, 2, 2, 1, 2, 0, 1};
    dcn_graph g;
    graph_of(&g, 3, ends, 5);
    ck_assert_uint_eq(g.m, 2);
    ck_assert_uint_eq(dcn_graph_degree(&g, 1), 2);
    ck_assert(dcn_graph_adjacent(&g, 2, 1) && !dcn_graph_adjacent(&g, 0, 2));
    ck_assert_uint_eq(dcn_graph_find(&g, 1, 2), 1);
    dcn_graph_free(&g);
    const uint32_t bad[] = {0, 3};
    ck_assert_int_eq(dcn_graph_from_edges(&g, 3, bad, 1), -2);
    ck_assert_ptr_null(g.off);
    dcn_graph_free(&g);
}
END_TEST

/* Vertex-disjoint paths between two vertices, and the separator. */
START_TEST(disjoint_paths)
{
    const uint32_t c6[] = {0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 0};
    dcn_graph g;
    graph_of(&g, 6, c6, 6);
    dcn_vflow w;
    ck_assert_int_eq(dcn_vflow_init(&w, &g), 0);
    ck_assert_uint_eq(dcn_vflow_paths(&w, 0, 3, 5), 2);
    uint32_t sep[6];
    ck_assert_uint_eq(dcn_vflow_separator(&w, sep), 2);
    ck_assert(sep[0] != 0 && sep[0] != 3 && sep[1] != 0 && sep[1] != 3);
    ck_assert_uint_eq(dcn_vflow_paths(&w, 0, 3, 1), 1); /* counted up to the cap */
    ck_assert_uint_eq(dcn_vflow_paths(&w, 1, 5, 9), 2); /* a second pair: nothing left of the first */
    dcn_vflow_free(&w);
    dcn_graph_free(&g);

    /* 0 and 1 share three neighbours 2, 3, 4; 4 also leads on to 5 -> 1 */
    const uint32_t fan[] = {0, 2, 0, 3, 0, 4, 2, 1, 3, 1, 4, 5, 5, 1};
    graph_of(&g, 6, fan, 7);
    ck_assert_int_eq(dcn_vflow_init(&w, &g), 0);
    ck_assert_uint_eq(dcn_vflow_paths(&w, 0, 1, 10), 3);
    ck_assert_uint_eq(dcn_vflow_separator(&w, sep), 3);
    ck_assert_uint_eq(sep[0], 2);
    ck_assert_uint_eq(sep[1], 3);
    ck_assert(sep[2] == 4 || sep[2] == 5);
    dcn_vflow_free(&w);
    dcn_graph_free(&g);
}
END_TEST

static uint32_t lcg(uint64_t *state)
{
    *state = *state * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*state >> 33);
}

/* 600 random graphs of 2 to 10 vertices, sparse to dense: the max-flow
 * answer is the brute force's, and its cut parts its pair. */
START_TEST(random_graphs_against_brute_force)
{
    uint64_t rng = 41;
    uint32_t seen[BRUTE_MAX] = {0};
    for (int round = 0; round < 600; round++) {
        uint32_t n = 2 + lcg(&rng) % (BRUTE_MAX - 1), pct = 15 + lcg(&rng) % 80;
        uint32_t ends[BRUTE_MAX * BRUTE_MAX], m = 0;
        for (uint32_t a = 0; a < n; a++)
            for (uint32_t b = a + 1; b < n; b++)
                if (lcg(&rng) % 100 < pct) {
                    ends[2 * m] = a;
                    ends[2 * m + 1] = b;
                    m++;
                }
        dcn_graph g;
        graph_of(&g, n, ends, m);
        uint32_t want = brute_kappa(&g), got = kappa_of(&g);
        ck_assert_msg(got == want, "round %d: %u vertices, %u edges: kappa %u, brute force %u", round, n, m, got, want);
        seen[want]++;
        dcn_graph_free(&g);
    }
    for (uint32_t k = 0; k <= 5; k++) /* every small value was met */
        ck_assert_msg(seen[k] > 0, "no random graph of connectivity %u", k);
}
END_TEST

/* Fails the cut's servers in the built network: the pair is then in two
 * components (dcn_server_components, switches forwarding). */
static void check_cut_in_network(const dcn_topo *t, const dcn_conn *c, const uint32_t *cut)
{
    dcn_failures f;
    ck_assert_int_eq(dcn_failures_init(&f, t), 0);
    for (uint32_t i = 0; i < c->kappa; i++)
        dcn_fail_node(&f, cut[i]);
    uint32_t *comp = malloc(t->n_servers * sizeof *comp);
    ck_assert_ptr_nonnull(comp);
    ck_assert_int_ge(dcn_server_components(t, &f, comp), 2);
    ck_assert_uint_ne(comp[c->a], comp[c->b]);
    free(comp);
    dcn_failures_free(&f);
}

static uint32_t network_kappa(const char *spec)
{
    dcn_topo t;
    tu_build(&t, spec);
    dcn_graph g;
    ck_assert_int_eq(dcn_graph_of_servers(&g, &t, DCN_CONN_MAX_EDGES), 0);
    ck_assert_uint_eq(g.n, t.n_servers);
    uint32_t *cut = malloc(g.n * sizeof *cut);
    ck_assert_ptr_nonnull(cut);
    dcn_conn c;
    ck_assert_int_eq(dcn_vertex_connectivity(&g, &c, cut), 0);
    if (c.a != DCN_NONE)
        check_cut_in_network(&t, &c, cut);
    free(cut);
    dcn_graph_free(&g);
    dcn_topo_free(&t);
    return c.kappa;
}

/* BCube_k's server graph: (k+1)(n-1) (the BCube paper; Table 2 of BCDC's);
 * B_n, BCDC's logical graph: 2n-2 (BCDC, Theorem 1). */
START_TEST(bcube_and_bcdc)
{
    const struct {
        const char *spec;
        uint32_t kappa;
    } cases[] = {{"bcube n=2 k=1", 2}, {"bcube n=4 k=1", 6}, {"bcube n=3 k=2", 6},
                 {"bcube n=4 k=2", 9}, {"bcube n=2 k=4", 5}, {"bcdc n=3", 4},
                 {"bcdc n=4", 6},      {"bcdc n=5", 8},      {"bcdc n=6", 10}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(network_kappa(cases[i].spec) == cases[i].kappa, "%s", cases[i].spec);
}
END_TEST

/* The server graph joins servers over one cable or a chain of switches:
 * a tree is a complete graph; BCube's servers have (k+1)(n-1) neighbours;
 * DCell's also the one over their server-to-server cable. */
START_TEST(server_graph)
{
    dcn_topo t;
    dcn_graph g;
    tu_build(&t, "tree leaves=2 per_leaf=3");
    ck_assert_int_eq(dcn_graph_of_servers(&g, &t, 100), 0);
    ck_assert_uint_eq(g.m, 15);
    ck_assert_uint_eq(kappa_of(&g), 5);
    dcn_graph_free(&g);
    dcn_topo_free(&t);

    tu_build(&t, "bcube n=4 k=1");
    ck_assert_int_eq(dcn_graph_of_servers(&g, &t, 48), 0);
    ck_assert_uint_eq(g.m, 48);
    for (uint32_t v = 0; v < g.n; v++)
        ck_assert_uint_eq(dcn_graph_degree(&g, v), 6);
    ck_assert(dcn_graph_adjacent(&g, tu_node(&t, "h00"), tu_node(&t, "h30")));
    ck_assert(!dcn_graph_adjacent(&g, tu_node(&t, "h00"), tu_node(&t, "h11")));
    dcn_graph_free(&g);
    ck_assert_int_eq(dcn_graph_of_servers(&g, &t, 47), -2); /* one edge too many: nothing built */
    ck_assert_ptr_null(g.off);
    dcn_graph_free(&g);
    dcn_topo_free(&t);

    tu_build(&t, "dcell n=4 k=1");
    ck_assert_int_eq(dcn_graph_of_servers(&g, &t, DCN_CONN_MAX_EDGES), 0);
    for (uint32_t v = 0; v < g.n; v++)
        ck_assert_uint_eq(dcn_graph_degree(&g, v), 4); /* 3 on its switch, 1 by cable */
    dcn_graph_free(&g);
    dcn_topo_free(&t);
}
END_TEST

/* Graphs beyond the bounds are refused before any flow. */
START_TEST(too_large)
{
    dcn_graph g;
    graph_of(&g, DCN_CONN_MAX_VERTICES + 1, NULL, 0);
    dcn_conn c;
    ck_assert_int_eq(dcn_vertex_connectivity(&g, &c, NULL), -2);
    dcn_graph_free(&g);
    graph_of(&g, DCN_CONN_MAX_VERTICES, NULL, 0); /* at the bound: no edge, kappa 0 */
    ck_assert_int_eq(dcn_vertex_connectivity(&g, &c, NULL), 0);
    ck_assert_uint_eq(c.kappa, 0);
    dcn_graph_free(&g);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("connectivity");
    TCase *tc = tcase_create("connectivity");
    tcase_add_test(tc, cycles_and_complete_graphs);
    tcase_add_test(tc, known_graphs);
    tcase_add_test(tc, cut_through_least_degree_vertex);
    tcase_add_test(tc, graph_from_edges);
    tcase_add_test(tc, disjoint_paths);
    tcase_add_test(tc, random_graphs_against_brute_force);
    tcase_add_test(tc, bcube_and_bcdc);
    tcase_add_test(tc, server_graph);
    tcase_add_test(tc, too_large);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
