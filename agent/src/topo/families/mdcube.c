/* MDCube (Wu, Lu, Guo; CoNEXT 2009): BCube_k(n) containers on a
 * (D+1)-dimensional grid, joined switch to switch by high-speed fibers.
 * Geometry and numbering: mdcube_geom.h; routing: mdcube_route.h; drawing:
 * mdcube_figure.h; decisions on the garbled parts of the paper:
 * docs/topologies/mdcube.md. */
#include <stdio.h>
#include <stdlib.h>

#include "family.h"
#include "json.h"
#include "mdcube_figure.h"
#include "mdcube_geom.h"
#include "mdcube_route.h"

#define MD_MAX_SERVERS (1u << 23) /* 8388608: holds the paper's 5.5M-server 2-D MDCube */
#define MD_MAX_SWITCHES (1u << 23)
#define MD_MAX_PORTS (1u << 26) /* 8 bytes each in the cabling table: at most 512 MB */

static const dcn_param_spec mdcube_params[] = {
    {"n", DCN_PARAM_INT, 2, 64, 2, "switch ports facing servers (the container is BCube_k(n))"},
    {"k", DCN_PARAM_INT, 0, 7, 1, "BCube level of the container"},
    {"m", DCN_PARAM_DIMS, 2, 1024, 5, "containers per dimension, dimension 0 first: m=5 or m=3x3"},
};

static void dims_str(const dcn_params *p, char *buf, size_t len)
{
    long sizes[DCN_MAX_DIMS];
    int nd = dcn_param_dims(p, "m", sizes);
    size_t off = 0;
    buf[0] = '\0';
    for (int d = 0; d < nd && off < len; d++)
        off += (size_t)snprintf(buf + off, len - off, "%s%ld", d ? "x" : "", sizes[d]);
}

static int mdcube_validate(const dcn_params *p, char *err, size_t errlen)
{
    long sizes[DCN_MAX_DIMS];
    uint64_t n = (uint64_t)dcn_param(p, "n"), k = (uint64_t)dcn_param(p, "k");
    int nd = dcn_param_dims(p, "m", sizes);
    char m[64];
    dims_str(p, m, sizeof m);
    uint64_t nk = 1, M = 1, G = 0;
    for (uint64_t i = 0; i < k; i++)
        nk *= n; /* <= 64^7, no overflow */
    uint64_t t = nk * n, g = (k + 1) * nk;
    for (int d = 0; d < nd; d++) {
        M *= (uint64_t)sizes[d]; /* <= 1024^4 */
        G += (uint64_t)sizes[d] - 1;
    }
    if (G > g) {
        snprintf(err, errlen,
                 "mdcube: m=%s needs sum(m_d-1)=%llu fiber switches per container, more than the "
                 "g=(k+1)n^k=%llu switches of BCube_%llu(n=%llu)",
                 m, (unsigned long long)G, (unsigned long long)g, (unsigned long long)k, (unsigned long long)n);
        return -1;
    }
    if (t > MD_MAX_SERVERS || M > MD_MAX_SERVERS || t * M > MD_MAX_SERVERS || g * M > MD_MAX_SWITCHES) {
        snprintf(err, errlen,
                 "mdcube: n=%llu k=%llu m=%s is too large (at most %u servers and %u switches; "
                 "it has n^(k+1)*M=%.3g servers)",
                 (unsigned long long)n, (unsigned long long)k, m, MD_MAX_SERVERS, MD_MAX_SWITCHES, (double)t * (double)M);
        return -1;
    }
    uint64_t ports = t * M * (k + 1) + g * M * (n + 1);
    if (ports > MD_MAX_PORTS) {
        snprintf(err, errlen, "mdcube: n=%llu k=%llu m=%s needs %llu ports, too many (at most %u)",
                 (unsigned long long)n, (unsigned long long)k, m, (unsigned long long)ports, MD_MAX_PORTS);
        return -1;
    }
    return 0;
}

static void mdcube_destroy(dcn_topo *t)
{
    free(t->priv);
    t->priv = NULL;
}

static int mdcube_build(dcn_topo *t, char *err, size_t errlen)
{
    md_geom *g = malloc(sizeof *g);
    if (!g) {
        snprintf(err, errlen, "mdcube: out of memory");
        return -1;
    }
    md_geom_init(g, &t->params);
    t->priv = g;
    uint32_t ns = g->t * g->M, nw = g->g * g->M;
    if (dcn_topo_alloc_uniform(t, ns, (uint16_t)(g->k + 1), nw, (uint16_t)(g->n + 1), err, errlen) < 0)
        return -1;
    /* Inside each container: server a's level-l port (port l) to switch
     * <l, a without digit l>, on that switch's port a[l]. */
    for (uint32_t c = 0; c < g->M; c++)
        for (uint32_t a = 0; a < g->t; a++)
            for (uint32_t l = 0; l <= g->k; l++) {
                uint32_t sw = md_switch_node(g, ns, c, bc_switch_of(&g->bc, a, l));
                if (dcn_topo_connect(t, md_server_node(g, c, a), (uint16_t)l, sw, (uint16_t)bc_digit(&g->bc, a, l),
                                     err, errlen) < 0)
                    return -1;
            }
    /* Fibers: coordinate x meets y (> x) on dimension d, high-speed port n
     * at both ends, once per copy of the cabling. */
    for (uint32_t c = 0; c < g->M; c++)
        for (uint32_t d = 0; d < g->dims; d++) {
            uint32_t x = md_coord(g, c, d);
            for (uint32_t y = x + 1; y < g->m[d]; y++) {
                uint32_t c2 = md_set_coord(g, c, d, y);
                for (uint32_t copy = 0; copy < g->copies; copy++) {
                    uint32_t a = md_switch_node(g, ns, c, md_link_switch(g, d, x, y, copy));
                    uint32_t b = md_switch_node(g, ns, c2, md_link_switch(g, d, y, x, copy));
                    if (dcn_topo_connect(t, a, (uint16_t)g->n, b, (uint16_t)g->n, err, errlen) < 0)
                        return -1;
                }
            }
        }
    return 0;
}

static uint32_t decimal_digits(uint32_t v)
{
    uint32_t n = 1;
    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* Which naming form fits in 10 characters (docs/topologies/mdcube.md):
 * 1 = paper form h3_11 / s3_1x, 2 = h<c>_<bsid> / s<c>_<bwid>,
 * 3 = h<server id> / s<switch index>. */
static int name_form(const md_geom *g)
{
    uint32_t cw = decimal_digits(g->M - 1);
    if (g->n <= 10 && 2 + cw + g->k + 1 <= 10)
        return 1;
    uint32_t lw = decimal_digits(g->t - 1);
    if (decimal_digits(g->g - 1) > lw)
        lw = decimal_digits(g->g - 1);
    return 2 + cw + lw <= 10 ? 2 : 3;
}

static void mdcube_name(const dcn_topo *t, uint32_t v, char *buf, size_t len)
{
    const md_geom *g = (const md_geom *)t->priv;
    int server = v < t->n_servers;
    uint32_t idx = server ? v : v - t->n_servers;
    uint32_t per = server ? g->t : g->g, c = idx / per, local = idx % per;
    int form = name_form(g);
    if (form == 3) {
        snprintf(buf, len, "%c%u", server ? 'h' : 's', idx);
        return;
    }
    if (form == 2) {
        snprintf(buf, len, "%c%u_%u", server ? 'h' : 's', c, local);
        return;
    }
    char digits[BC_MAX_LEVELS + 1];
    uint32_t addr = local, level = g->k + 1; /* no level mark for servers */
    if (!server) {
        level = bc_switch_level(&g->bc, local);
        addr = bc_switch_server(&g->bc, local, 0);
    }
    for (uint32_t i = 0; i <= g->k; i++) {
        uint32_t pos = g->k - i; /* most significant digit first */
        digits[i] = pos == level ? 'x' : (char)('0' + bc_digit(&g->bc, addr, pos));
    }
    digits[g->k + 1] = '\0';
    snprintf(buf, len, "%c%u_%s", server ? 'h' : 's', c, digits);
}

static void mdcube_formulas(const dcn_topo *t, struct dcn_json *j)
{
    const md_geom *g = (const md_geom *)t->priv;
    long long M = g->M, t_ = g->t, D = g->dims - 1, k = g->k;
    long long fibers = M * g->G / 2 * g->copies;
    dcn_json_int(j, "containers", M);
    dcn_json_int(j, "servers", t_ * M);
    dcn_json_int(j, "switches", (long long)g->g * M);
    dcn_json_int(j, "fibers", fibers);
    dcn_json_int(j, "links", t_ * M * (k + 1) + fibers);
    dcn_json_int(j, "fiber_switches_per_copy", g->G);
    dcn_json_int(j, "cabling_copies", g->copies);
    dcn_json_int(j, "idle_switches_per_container", (long long)g->g - (long long)g->copies * g->G);
    dcn_json_int(j, "theorem1_max_path_links", 4 * k + 3 + D * (2 * k + 3));
    dcn_json_int(j, "theorem4_container_disjoint_paths", g->G);
    dcn_json_int(j, "theorem2_parallel_paths", k + 1);
    double kk = (double)k, N = (double)(t_ * M);
    dcn_json_num(j, "abt_all_to_all", N / ((2 * kk + 1) / (kk + 1) + (double)D * (kk * kk + kk + 1) / ((kk + 1) * (kk + 1))));
}

static const dcn_algo mdcube_algos[] = {
    {"pathset", "Theorem 4: one path per jump, no intermediate container in common (BuildPathSet inside one container)",
     mdcube_algo_pathset},
    {"route", "MDCubeRouting, dimensions corrected D..0, BCube routing inside each container", mdcube_algo_route},
    {"detour", "MDCubeDetourRouting: a random jump, then the sawtooth order; another jump if that one is broken",
     mdcube_algo_detour},
    {"parallel", "Theorem 2: k+1 paths, disjoint inside every container, sharing MDCubeRouting's fibers (k+1 <= n)",
     mdcube_algo_parallel},
};

const dcn_family dcn_family_mdcube = {
    .name = "mdcube",
    .summary = "MDCube: BCube_k(n) containers on a (D+1)-D grid joined by switch-to-switch fibers",
    .params = mdcube_params,
    .n_params = 3,
    .validate = mdcube_validate,
    .build = mdcube_build,
    .destroy = mdcube_destroy,
    .node_name = mdcube_name,
    .algos = mdcube_algos,
    .n_algos = 4,
    .metric = DCN_METRIC_LINKS,
    .formulas = mdcube_formulas,
    .layout = mdcube_figure_layout,
};
