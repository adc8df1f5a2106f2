/* BCDC (Wang et al., JCST 2018): switches are the nodes of the crossed cube
 * CQ_n, servers its edges, each server dual-ported to the two switches of
 * its edge. Naming, ids and every decision the paper leaves open:
 * docs/topologies/bcdc.md; the drawing: bcdc_figure.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bfs.h"
#include "../disjoint.h"
#include "../family.h"
#include "../json.h"
#include "bcdc_figure.h"
#include "bcdc_route.h"
#include "../scratch.h"

static const dcn_param_spec bcdc_params[] = {
    {"n", DCN_PARAM_INT, 3, 11, 4, "crossed-cube dimension: 2^n switches of n ports, n*2^(n-1) dual-port servers"},
};

static void bcdc_destroy(dcn_topo *t)
{
    bcdc_state *st = t->priv;
    cq_dist_free(&st->cd);
    free(st);
    t->priv = NULL;
}

/* Server sid's port 0 goes to switch s0, port 1 to switch s1, both on the
 * switch port numbered dim(sid): switch x's port k faces its dimension-k edge. */
static int bcdc_build(dcn_topo *t, char *err, size_t errlen)
{
    unsigned n = (unsigned)dcn_param(&t->params, "n");
    bcdc_state *st = calloc(1, sizeof *st);
    if (!st || cq_dist_init(&st->cd, n) < 0) {
        free(st);
        snprintf(err, errlen, "bcdc: out of memory for n=%u", n);
        return -1;
    }
    st->n = n;
    st->n_servers = n << (n - 1u);
    t->priv = st;
    if (dcn_topo_alloc_uniform(t, st->n_servers, 2, 1u << n, (uint16_t)n, err, errlen) < 0)
        return -1;
    for (uint32_t s = 0; s < st->n_servers; s++) {
        unsigned dim = bcdc_dim(st, s);
        if (dcn_topo_connect(t, s, 0, dcn_switch_node(t, bcdc_s0(st, s)), (uint16_t)dim, err, errlen) < 0 ||
            dcn_topo_connect(t, s, 1, dcn_switch_node(t, bcdc_s1(st, s)), (uint16_t)dim, err, errlen) < 0)
            return -1;
    }
    return 0;
}

/* Switch x: "s<x>"; server [s0, s1] of dimension k: "h<s0>d<k>" (decimal;
 * at most 8 characters for n <= 11). */
static void bcdc_name(const dcn_topo *t, uint32_t v, char *buf, size_t len)
{
    const bcdc_state *st = t->priv;
    if (v < t->n_servers)
        snprintf(buf, len, "h%ud%u", bcdc_s0(st, v), bcdc_dim(st, v));
    else
        snprintf(buf, len, "s%u", v - t->n_servers);
}

static bool bad_request(const dcn_topo *t, uint32_t src, uint32_t dst, dcn_pathset *out)
{
    out->count = 0;
    return src >= t->n_servers || dst >= t->n_servers || src == dst;
}

static int brouting_full(const dcn_topo *t, uint32_t src, uint32_t dst, dcn_path *out)
{
    const bcdc_state *st = t->priv;
    dcn_path servers;
    bcdc_region all = {st->n, 0, false};
    if (bcdc_brouting(st, all, src, dst, &servers) < 0)
        return -1;
    return bcdc_expand(st, &servers, out);
}

/* BRouting, fault-oblivious: one shortest path; none if it crosses a failure. */
static int bcdc_algo_brouting(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx,
                              dcn_pathset *out)
{
    if (bad_request(t, src, dst, out))
        return -1;
    if (brouting_full(t, src, dst, &out->path[0]) < 0)
        return -1;
    const dcn_failures *f = ctx ? ctx->failures : NULL;
    out->count = dcn_path_valid(&out->path[0], t, f, NULL) ? 1 : 0;
    return (int)out->count;
}

/* BFRouting with the failed servers of ctx->failures. Failed switches or
 * links are outside the paper's model: then the path is a BFS on the
 * physical graph minus every failure (= BFS on B_n minus the faulty servers
 * and the B_n edges through dead switches or cables). */
static int bcdc_algo_bfrouting(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx,
                               dcn_pathset *out)
{
    if (bad_request(t, src, dst, out))
        return -1;
    const bcdc_state *st = t->priv;
    const dcn_failures *f = ctx ? ctx->failures : NULL;
    if (!dcn_node_ok(f, src) || !dcn_node_ok(f, dst))
        return 0;
    bool servers_only = true;
    if (f && f->n_links_down)
        servers_only = false;
    for (uint32_t x = 0; f && servers_only && x < t->n_switches; x++)
        if (f->node_down[t->n_servers + x])
            servers_only = false;
    if (!servers_only) {
        if (dcn_bfs_path(t, src, dst, f, NULL, &out->path[0]) == 0)
            out->count = 1;
        return (int)out->count;
    }
    uint32_t ns = st->n_servers;
    uint8_t *failed = dcn_tmp_calloc(ns, 1);
    uint32_t *faults = dcn_tmp_alloc(ns * sizeof *faults), *parent = dcn_tmp_alloc(ns * sizeof *parent),
             *queue = dcn_tmp_alloc(ns * sizeof *queue);
    int rc = -1;
    if (!failed || !faults || !parent || !queue)
        goto done;
    uint32_t nf = 0;
    for (uint32_t s = 0; f && s < ns; s++)
        if (f->node_down[s]) {
            failed[s] = 1;
            faults[nf++] = s;
        }
    for (uint32_t s = 0; s < ns; s++)
        parent[s] = UINT32_MAX;
    bcdc_fault_ctx fc = {st, failed, faults, nf, parent, queue};
    dcn_path servers;
    rc = 0;
    if (bcdc_bfrouting(&fc, src, dst, &servers) != BCDC_FR_NONE && bcdc_expand(st, &servers, &out->path[0]) == 0)
        rc = (int)(out->count = 1);
done:
    dcn_tmp_free(failed);
    dcn_tmp_free(faults);
    dcn_tmp_free(parent);
    dcn_tmp_free(queue);
    return rc;
}

/* 2n-2 paths that share no server (node-disjoint in B_n, Thm 1; they do
 * share switches: a dual-port server has only two), fewest total links,
 * shortest first; BRouting's path leads the set whenever that costs no path. */
static int bcdc_algo_pathset(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx,
                             dcn_pathset *out)
{
    if (bad_request(t, src, dst, out))
        return -1;
    const bcdc_state *st = t->priv;
    const dcn_failures *f = ctx ? ctx->failures : NULL;
    dcn_path first;
    if (brouting_full(t, src, dst, &first) < 0)
        return -1;
    return dcn_disjoint_paths_led(t, src, dst, f, 2u * st->n - 2u, true, &first, out);
}

static void bcdc_formulas(const dcn_topo *t, struct dcn_json *j)
{
    long long n = dcn_param(&t->params, "n");
    dcn_json_int(j, "servers", n << (n - 1));
    dcn_json_int(j, "switches", 1LL << n);
    dcn_json_int(j, "links", n << n);
    dcn_json_int(j, "logical_edges", n * (n - 1) << (n - 1));
    dcn_json_int(j, "server_degree", 2 * n - 2);
    dcn_json_int(j, "connectivity", 2 * n - 2);
    dcn_json_int(j, "diameter_hops", (n + 2) / 2 + 1); /* ceil((n+1)/2) + 1, Thm 2 corrected */
    dcn_json_int(j, "bisection_width", (n - 1) << (n - 1));
}

static const dcn_algo bcdc_algos[] = {
    {"pathset",
     "2n-2 server-disjoint paths (Thm 1) by min-cost flow, shortest first, BRouting's path first when it fits",
     bcdc_algo_pathset},
    {"brouting", "BRouting/CPath: one shortest path through CQ_n (fault-oblivious)", bcdc_algo_brouting},
    {"bfrouting", "fault-tolerant BFRouting with the failed servers; BFS if switches or links failed",
     bcdc_algo_bfrouting},
};

const dcn_family dcn_family_bcdc = {
    .name = "bcdc",
    .summary = "BCDC: crossed-cube switches, dual-port servers on its edges (Wang et al., JCST 2018)",
    .params = bcdc_params,
    .n_params = 1,
    .build = bcdc_build,
    .destroy = bcdc_destroy,
    .node_name = bcdc_name,
    .algos = bcdc_algos,
    .n_algos = 3,
    .metric = DCN_METRIC_HOPS,
    .formulas = bcdc_formulas,
    .layout = bcdc_figure_layout,
};
