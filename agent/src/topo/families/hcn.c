/* HCN(n,h) (Guo et al., IEEE TC 2013, Sec. 3.1): n^(h+1) dual-port servers
 * on n^h n-port switches; level-i units are complete graphs of n level-(i-1)
 * units, one server-to-server cable per pair (Definition 2). The labels,
 * wiring, routing and drawing live in hcn_label.c, hcn_route.c and
 * hcn_figure.c, shared with BCN. */
#include <stdio.h>

#include "family.h"
#include "hcn_figure.h"
#include "hcn_label.h"
#include "hcn_route.h"
#include "json.h"

static const dcn_param_spec hcn_params[] = {
    {"n", DCN_PARAM_INT, 2, HCN_MAX_PORTS, 4, "servers per switch (switch ports)"},
    {"h", DCN_PARAM_INT, 0, HCN_MAX_H, 2, "levels above the switch module"},
};

static int hcn_dims_from(const dcn_params *p, hcn_dims *d, char *err, size_t errlen)
{
    return hcn_dims_init(d, "hcn", (uint32_t)dcn_param(p, "n"), 0, (uint32_t)dcn_param(p, "h"), 0, 0, err, errlen);
}

static int hcn_validate(const dcn_params *p, char *err, size_t errlen)
{
    hcn_dims d;
    return hcn_dims_from(p, &d, err, errlen);
}

static int hcn_family_build(dcn_topo *t, char *err, size_t errlen)
{
    hcn_dims d;
    if (hcn_dims_from(&t->params, &d, err, errlen) < 0)
        return -1;
    return hcn_build(t, &d, err, errlen);
}

static void hcn_formulas(const dcn_topo *t, struct dcn_json *j)
{
    const hcn_dims *d = hcn_dims_of(t);
    long long n = d->n, h = d->h;
    long long servers = (long long)hcn_ipow((uint64_t)n, (uint32_t)h + 1);
    dcn_json_int(j, "servers", servers);
    dcn_json_int(j, "switches", (long long)hcn_ipow((uint64_t)n, (uint32_t)h));
    dcn_json_int(j, "server_switch_cables", servers);
    dcn_json_int(j, "port2_cables", (servers - n) / 2);
    for (long long lv = 1; lv <= h; lv++) {
        char key[48]; /* "port2_cables_level_" and any long long */
        snprintf(key, sizeof key, "port2_cables_level_%lld", lv);
        dcn_json_int(j, key, (long long)hcn_ipow((uint64_t)n, (uint32_t)(h - lv + 1)) * (n - 1) / 2);
    }
    dcn_json_int(j, "free_port2_servers", n);
    dcn_json_int(j, "diameter_server_hops", (2LL << h) - 1);
    dcn_json_int(j, "parallel_paths", n - 1);
}

static const dcn_algo hcn_algos[] = {
    {"pathset", "Lemma 1: n-1 server-disjoint paths (one path on a shared switch)", hcn_algo_pathset},
    {"fdim", "FdimRouting (Algorithm 2), failure-oblivious", hcn_algo_route},
    {"reroute", "FdimRouting with local reroute (Eq. 6) at each failure; BFS fallback for switch failures",
     hcn_algo_reroute},
};

const dcn_family dcn_family_hcn = {
    .name = "hcn",
    .summary = "HCN(n,h): hierarchical complete graphs of dual-port servers (Guo et al. TC 2013)",
    .params = hcn_params,
    .n_params = 2,
    .validate = hcn_validate,
    .build = hcn_family_build,
    .destroy = hcn_destroy,
    .node_name = hcn_node_name,
    .algos = hcn_algos,
    .n_algos = 3,
    .metric = DCN_METRIC_HOPS,
    .formulas = hcn_formulas,
    .layout = hcn_figure_layout,
};
