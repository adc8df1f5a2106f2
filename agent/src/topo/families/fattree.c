/* The k-ary fat-tree (Al-Fares et al., SIGCOMM 2008), the switch-centric
 * baseline: k pods of k/2 edge and k/2 aggregation switches, (k/2)^2 core
 * switches, k^3/4 single-port hosts, all switches k-port. Names, ids and
 * ports: docs/topologies/baselines.md. */
#include <stdio.h>
#include <stdlib.h>

#include "../family.h"
#include "../json.h"

static const dcn_param_spec fattree_params[] = {
    {"k", DCN_PARAM_INT, 2, 48, 4, "switch ports (even): k pods, k^3/4 hosts"},
};

static int fattree_validate(const dcn_params *p, char *err, size_t errlen)
{
    long k = dcn_param(p, "k");
    if (k % 2) {
        snprintf(err, errlen, "fattree: k=%ld must be even (allowed 2..48)", k);
        return -1;
    }
    return 0;
}

/* Layout with h = k/2:
 *   host (pod p, edge e, slot x)  id p*h*h + e*h + x
 *   edge switch (p, e)            switch index p*h + e
 *   aggregation switch (p, a)     switch index k*h + p*h + a
 *   core switch (i, j)            switch index 2*k*h + i*h + j
 * Edge (p, e): ports 0..h-1 -> its hosts, port h+a -> aggregation (p, a).
 * Aggregation (p, a): port e -> edge (p, e), port h+j -> core (a, j).
 * Core (i, j): port p -> aggregation (p, i). */
typedef struct ft {
    uint32_t k, h;
} ft;

static ft ft_of(const dcn_topo *t)
{
    uint32_t k = (uint32_t)dcn_param(&t->params, "k");
    return (ft){k, k / 2};
}
static uint32_t edge_sw(const dcn_topo *t, ft f, uint32_t p, uint32_t e) { return dcn_switch_node(t, p * f.h + e); }
static uint32_t agg_sw(const dcn_topo *t, ft f, uint32_t p, uint32_t a)
{
    return dcn_switch_node(t, f.k * f.h + p * f.h + a);
}
static uint32_t core_sw(const dcn_topo *t, ft f, uint32_t i, uint32_t j)
{
    return dcn_switch_node(t, 2 * f.k * f.h + i * f.h + j);
}

static int fattree_build(dcn_topo *t, char *err, size_t errlen)
{
    ft f = ft_of(t);
    uint32_t hosts = f.k * f.h * f.h, switches = 2 * f.k * f.h + f.h * f.h;
    if (dcn_topo_alloc_uniform(t, hosts, 1, switches, (uint16_t)f.k, err, errlen) < 0)
        return -1;
    for (uint32_t p = 0; p < f.k; p++)
        for (uint32_t e = 0; e < f.h; e++)
            for (uint32_t x = 0; x < f.h; x++) {
                uint32_t host = p * f.h * f.h + e * f.h + x;
                if (dcn_topo_connect(t, host, 0, edge_sw(t, f, p, e), (uint16_t)x, err, errlen) < 0 ||
                    dcn_topo_connect(t, edge_sw(t, f, p, e), (uint16_t)(f.h + x), agg_sw(t, f, p, x), (uint16_t)e,
                                     err, errlen) < 0 ||
                    dcn_topo_connect(t, agg_sw(t, f, p, e), (uint16_t)(f.h + x), core_sw(t, f, e, x), (uint16_t)p,
                                     err, errlen) < 0)
                    return -1;
            }
    return 0;
}

/* Hosts "h<pod>_<edge>_<slot>", edge switches "se<pod>_<edge>", aggregation
 * "sa<pod>_<index>", core "sc<i>_<j>" (at most 9 characters for k = 48). */
static void fattree_name(const dcn_topo *t, uint32_t v, char *buf, size_t len)
{
    ft f = ft_of(t);
    if (v < t->n_servers) {
        snprintf(buf, len, "h%u_%u_%u", v / (f.h * f.h), v / f.h % f.h, v % f.h);
        return;
    }
    uint32_t s = v - t->n_servers;
    if (s < f.k * f.h)
        snprintf(buf, len, "se%u_%u", s / f.h, s % f.h);
    else if (s < 2 * f.k * f.h)
        snprintf(buf, len, "sa%u_%u", (s - f.k * f.h) / f.h, (s - f.k * f.h) % f.h);
    else
        snprintf(buf, len, "sc%u_%u", (s - 2 * f.k * f.h) / f.h, (s - 2 * f.k * f.h) % f.h);
}

/* The path from src to dst through aggregation index a and core column j
 * (a and j are ignored where the path does not climb that high). */
static void updown(const dcn_topo *t, ft f, uint32_t src, uint32_t dst, uint32_t a, uint32_t j, dcn_path *p)
{
    uint32_t ps = src / (f.h * f.h), es = src / f.h % f.h, pd = dst / (f.h * f.h), ed = dst / f.h % f.h;
    dcn_path_clear(p);
    dcn_path_push(p, src);
    dcn_path_push(p, edge_sw(t, f, ps, es));
    if (ps != pd || es != ed) {
        dcn_path_push(p, agg_sw(t, f, ps, a));
        if (ps != pd) {
            dcn_path_push(p, core_sw(t, f, a, j));
            dcn_path_push(p, agg_sw(t, f, pd, a));
        }
        dcn_path_push(p, edge_sw(t, f, pd, ed));
    }
    dcn_path_push(p, dst);
}

static bool bad_request(const dcn_topo *t, uint32_t src, uint32_t dst, dcn_pathset *out)
{
    out->count = 0;
    return src >= t->n_servers || dst >= t->n_servers || src == dst;
}

/* Every shortest path: (k/2)^2 through the cores between pods (capped at
 * DCN_PATHSET_MAX, listed core column by column so a capped set still
 * uses every aggregation switch), k/2 inside a pod, 1 under one edge
 * switch. Paths that cross a failure are left out. */
static int fattree_algo_pathset(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx,
                                dcn_pathset *out)
{
    if (bad_request(t, src, dst, out))
        return -1;
    ft f = ft_of(t);
    const dcn_failures *fl = ctx ? ctx->failures : NULL;
    uint32_t ps = src / (f.h * f.h), pd = dst / (f.h * f.h), es = src / f.h % f.h, ed = dst / f.h % f.h;
    uint32_t n_agg = (ps != pd || es != ed) ? f.h : 1, n_core = ps != pd ? f.h : 1;
    for (uint32_t j = 0; j < n_core; j++)
        for (uint32_t a = 0; a < n_agg && out->count < DCN_PATHSET_MAX; a++) {
            updown(t, f, src, dst, a, j, &out->path[out->count]);
            if (dcn_path_valid(&out->path[out->count], t, fl, NULL))
                out->count++;
        }
    return (int)out->count;
}

/* One path chosen by the destination, in the spirit of the two-level
 * tables' suffix rule: aggregation a = (slot_dst + edge_src) mod k/2,
 * core column j = (slot_dst + a) mod k/2. Fault-oblivious. */
static int fattree_algo_route(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx,
                              dcn_pathset *out)
{
    if (bad_request(t, src, dst, out))
        return -1;
    ft f = ft_of(t);
    uint32_t a = (dst % f.h + src / f.h % f.h) % f.h, j = (dst % f.h + a) % f.h;
    updown(t, f, src, dst, a, j, &out->path[0]);
    out->count = dcn_path_valid(&out->path[0], t, ctx ? ctx->failures : NULL, NULL) ? 1 : 0;
    return (int)out->count;
}

static void fattree_formulas(const dcn_topo *t, struct dcn_json *j)
{
    long long k = dcn_param(&t->params, "k");
    dcn_json_int(j, "hosts", k * k * k / 4);
    dcn_json_int(j, "switches", 5 * k * k / 4);
    dcn_json_int(j, "core_switches", k * k / 4);
    dcn_json_int(j, "links", 3 * k * k * k / 4);
    dcn_json_int(j, "diameter_links", 6);
    dcn_json_int(j, "inter_pod_paths", k * k / 4);
}

static const dcn_algo fattree_algos[] = {
    {"pathset", "all shortest paths: (k/2)^2 via the cores between pods, k/2 inside a pod", fattree_algo_pathset},
    {"route", "one path chosen by the destination's slot (two-level table suffix rule)", fattree_algo_route},
};

const dcn_family dcn_family_fattree = {
    .name = "fattree",
    .summary = "k-ary fat-tree (Al-Fares et al., SIGCOMM 2008): switch-centric baseline, single-port hosts",
    .params = fattree_params,
    .n_params = 1,
    .validate = fattree_validate,
    .build = fattree_build,
    .node_name = fattree_name,
    .algos = fattree_algos,
    .n_algos = 2,
    .metric = DCN_METRIC_LINKS,
    .formulas = fattree_formulas,
};
