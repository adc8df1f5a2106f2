/* DCell (Guo et al., SIGCOMM 2008), the recursive server-centric baseline.
 * DCell_0 is n servers on one n-port switch; DCell_l is g_l = t_(l-1) + 1
 * copies of DCell_(l-1) (t_l = g_l * t_(l-1) servers), in which server
 * [i, j-1] of copy i is cabled to server [j, i] of copy j for every i < j.
 * Names, ids and ports: docs/topologies/baselines.md. */
#include <stdio.h>
#include <stdlib.h>

#include "../disjoint.h"
#include "../family.h"
#include "../json.h"
#include "dcell_dfr.h"
#include "dcell_shape.h"

static const dcn_param_spec dcell_params[] = {
    {"n", DCN_PARAM_INT, 2, 48, 4, "servers per DCell_0 (switch ports; <= 48 keeps NHA indices below 63)"},
    {"k", DCN_PARAM_INT, 0, DCELL_MAX_K, 1, "level: the top is a DCell_k; servers have k+1 ports"},
    {"servers", DCN_PARAM_INT, 0, DCELL_MAX_SERVERS, 0,
     "partial DCell: only the first servers by uid, whole DCell_0s (0: the full DCell_k)"},
};

static int dcell_validate(const dcn_params *p, char *err, size_t errlen)
{
    long n = dcn_param(p, "n"), k = dcn_param(p, "k"), t[DCELL_MAX_K + 1];
    dcell_sizes(n, k, t);
    if (t[k] > DCELL_MAX_SERVERS) {
        snprintf(err, errlen, "dcell: n=%ld k=%ld gives more than %ld servers (lower n or k)", n, k,
                 DCELL_MAX_SERVERS);
        return -1;
    }
    long ns = dcn_param(p, "servers");
    if (ns && (ns % n || ns > t[k] || ns < 2 * n)) {
        snprintf(err, errlen, "dcell: servers=%ld must be a multiple of n=%ld in %ld..%ld (0: all)", ns, n, 2 * n,
                 t[k]);
        return -1;
    }
    return 0;
}

#define shape_of dcell_shape_of

/* Server uid = a_0 + sum_(l>=1) a_l * t_(l-1) is the node id. Server port 0
 * goes to its DCell_0 switch (switch port a_0); port l >= 1 carries its
 * level-l link, to the peer's port l. Switch i serves uids i*n .. i*n+n-1.
 * A partial DCell builds the first servers=N uids; a level link to an
 * absent server leaves the port free, and DCellRouting between present
 * servers never needs one (every sub-DCell below the top is a prefix too). */
static int dcell_build(dcn_topo *t, char *err, size_t errlen)
{
    dcell_shape s = shape_of(t);
    uint32_t ns = s.n_present;
    if (dcn_topo_alloc_uniform(t, ns, (uint16_t)(s.k + 1), ns / s.n, (uint16_t)s.n, err, errlen) < 0)
        return -1;
    for (uint32_t u = 0; u < ns; u++)
        if (dcn_topo_connect(t, u, 0, dcn_switch_node(t, u / s.n), (uint16_t)(u % s.n), err, errlen) < 0)
            return -1;
    for (uint32_t l = 1; l <= s.k; l++) {
        uint32_t sub = s.t[l - 1], g = sub + 1;
        for (uint32_t base = 0; base < ns; base += s.t[l])
            for (uint32_t i = 0; i < sub; i++)
                for (uint32_t j = i + 1; j < g; j++) {
                    uint32_t a = base + i * sub + (j - 1), b = base + j * sub + i;
                    if (b >= ns)
                        continue;
                    if (dcn_topo_connect(t, a, (uint16_t)l, b, (uint16_t)l, err, errlen) < 0)
                        return -1;
                }
    }
    return 0;
}

/* Server uid: "h<uid>"; DCell_0 switch i: "s<i>" (decimal). */
static void dcell_name(const dcn_topo *t, uint32_t v, char *buf, size_t len)
{
    if (v < t->n_servers)
        snprintf(buf, len, "h%u", v);
    else
        snprintf(buf, len, "s%u", v - t->n_servers);
}

static int dcell_route_full(const dcn_topo *t, uint32_t src, uint32_t dst, dcn_path *out)
{
    dcell_shape s = shape_of(t);
    dcn_path_clear(out);
    if (dcell_route_servers(&s, src, dst, s.k, out) < 0)
        return -1;
    return dcn_path_expand_servers(out, t);
}

static bool bad_request(const dcn_topo *t, uint32_t src, uint32_t dst, dcn_pathset *out)
{
    out->count = 0;
    return src >= t->n_servers || dst >= t->n_servers || src == dst;
}

/* DCellRouting, fault-oblivious (no path if it crosses a failure). */
static int dcell_algo_route(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx,
                            dcn_pathset *out)
{
    if (bad_request(t, src, dst, out) || dcell_route_full(t, src, dst, &out->path[0]) < 0)
        return -1;
    out->count = dcn_path_valid(&out->path[0], t, ctx ? ctx->failures : NULL, NULL) ? 1 : 0;
    return (int)out->count;
}

/* Up to k+1 node-disjoint paths (a server has k+1 ports), led by
 * DCellRouting's path when it fits. */
static int dcell_algo_pathset(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx,
                              dcn_pathset *out)
{
    dcn_path lead;
    if (bad_request(t, src, dst, out) || dcell_route_full(t, src, dst, &lead) < 0)
        return -1;
    uint32_t k = (uint32_t)dcn_param(&t->params, "k");
    return dcn_disjoint_paths_led(t, src, dst, ctx ? ctx->failures : NULL, k + 1, false, &lead, out);
}

static void dcell_formulas(const dcn_topo *t, struct dcn_json *j)
{
    dcell_shape s = shape_of(t);
    long long ns = s.n_present;
    dcn_json_int(j, "servers", ns);
    dcn_json_int(j, "switches", ns / s.n);
    if (ns == s.t[s.k])
        dcn_json_int(j, "links", ns + (long long)s.k * ns / 2); /* (k/2 + 1) N */
    else
        dcn_json_int(j, "links", (long long)t->n_links);
    dcn_json_int(j, "server_ports", s.k + 1);
    dcn_json_int(j, "route_diameter_bound", (1LL << (s.k + 1)) - 1); /* 2^(k+1) - 1 server hops */
}

static const dcn_algo dcell_algos[] = {
    {"pathset", "k+1 node-disjoint paths by min-cost flow, DCellRouting's path first when it fits",
     dcell_algo_pathset},
    {"route", "DCellRouting: recursive, through the link between the two sub-DCells (fault-oblivious)",
     dcell_algo_route},
    {"dfr", "DFR: DCellRouting, link-state inside each DCell_1, local reroute through a random proxy "
            "sub-DCell around a failed higher-level link",
     dcell_algo_dfr},
};

const dcn_family dcn_family_dcell = {
    .name = "dcell",
    .summary = "DCell_k (Guo et al., SIGCOMM 2008): recursive, direct server links (baseline)",
    .params = dcell_params,
    .n_params = 3,
    .validate = dcell_validate,
    .build = dcell_build,
    .node_name = dcell_name,
    .algos = dcell_algos,
    .n_algos = 3,
    .metric = DCN_METRIC_HOPS,
    .formulas = dcell_formulas,
};
