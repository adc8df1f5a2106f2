/* BCN(alpha,beta,h,gamma) (Guo et al., IEEE TC 2013, Sec. 3.2): HCN(alpha,h)
 * on the masters of n = alpha+beta port switches (first dimension); when
 * h >= gamma, s+1 copies (s = alpha^gamma*beta) whose slaves of equal rank v
 * form complete graphs (second dimension, Eq. 3 or Eq. 4). */
#include <stdio.h>

#include "family.h"
#include "hcn_figure.h"
#include "hcn_label.h"
#include "hcn_route.h"
#include "json.h"

static const dcn_param_spec bcn_params[] = {
    {"alpha", DCN_PARAM_INT, 2, HCN_MAX_PORTS - 1, 4, "masters per switch (first dimension)"},
    {"beta", DCN_PARAM_INT, 1, HCN_MAX_PORTS - 2, 4, "slaves per switch (second dimension)"},
    {"h", DCN_PARAM_INT, 0, HCN_MAX_H, 1, "levels of the first dimension"},
    {"gamma", DCN_PARAM_INT, 0, HCN_MAX_H, 1, "level of the unit BCN(alpha,beta,gamma) joined in the second dimension"},
    {"rule", DCN_PARAM_INT, 3, 4, 3, "slave wiring: 3 = corrected Eq. 3 (Algorithm 1), 4 = Eq. 4 (DCell rule)"},
};

static int bcn_dims_from(const dcn_params *p, hcn_dims *d, char *err, size_t errlen)
{
    return hcn_dims_init(d, "bcn", (uint32_t)dcn_param(p, "alpha"), (uint32_t)dcn_param(p, "beta"),
                         (uint32_t)dcn_param(p, "h"), (uint32_t)dcn_param(p, "gamma"), (uint32_t)dcn_param(p, "rule"),
                         err, errlen);
}

static int bcn_validate(const dcn_params *p, char *err, size_t errlen)
{
    hcn_dims d;
    return bcn_dims_from(p, &d, err, errlen);
}

static int bcn_family_build(dcn_topo *t, char *err, size_t errlen)
{
    hcn_dims d;
    if (bcn_dims_from(&t->params, &d, err, errlen) < 0)
        return -1;
    return hcn_build(t, &d, err, errlen);
}

static void bcn_formulas(const dcn_topo *t, struct dcn_json *j)
{
    const hcn_dims *d = hcn_dims_of(t);
    long long a = d->alpha, b = d->beta, h = d->h, g = d->gamma;
    long long ah = (long long)hcn_ipow((uint64_t)a, (uint32_t)h);
    long long ah1 = ah * a;
    if (h < g) { /* first dimension only (Lemma 3) */
        dcn_json_int(j, "copies", 1);
        dcn_json_int(j, "servers", ah * (a + b));
        dcn_json_int(j, "masters", ah1);
        dcn_json_int(j, "slaves", ah * b);
        dcn_json_int(j, "switches", ah);
        dcn_json_int(j, "port2_cables", (ah1 - a) / 2);
        dcn_json_int(j, "diameter_bound_server_hops", (2LL << h) - 1);
    } else { /* Lemma 4, Theorem 7 (Eq. 7) */
        long long u = (long long)hcn_ipow((uint64_t)a, (uint32_t)g) * b + 1;
        dcn_json_int(j, "copies", u);
        dcn_json_int(j, "servers", ah * (a + b) * u);
        dcn_json_int(j, "masters", ah1 * u);
        dcn_json_int(j, "slaves", ah * b * u);
        dcn_json_int(j, "switches", ah * u);
        dcn_json_int(j, "port2_cables", u * (ah1 - a) / 2 + ah * b * u / 2);
        dcn_json_int(j, "degree1_servers", a * u);
        dcn_json_int(j, "diameter_bound_server_hops", (2LL << h) + (2LL << g) - 1);
    }
    dcn_json_int(j, "parallel_paths", a - 1);
}

static const dcn_algo bcn_algos[] = {
    {"pathset", "alpha-1 parallel paths: Lemma 1 inside a copy, max-flow across copies", hcn_algo_pathset},
    {"route", "FdimRouting / BdimRouting (Algorithms 2, 3), failure-oblivious", hcn_algo_route},
    {"reroute", "BdimRouting with local (Eq. 6) and remote (Sec. 4.5) reroute; BFS fallback otherwise",
     hcn_algo_reroute},
};

const dcn_family dcn_family_bcn = {
    .name = "bcn",
    .summary = "BCN(alpha,beta,h,gamma): bidimensional compound network of dual-port servers (TC 2013)",
    .params = bcn_params,
    .n_params = 5,
    .validate = bcn_validate,
    .build = bcn_family_build,
    .destroy = hcn_destroy,
    .node_name = hcn_node_name,
    .algos = bcn_algos,
    .n_algos = 3,
    .metric = DCN_METRIC_HOPS,
    .formulas = bcn_formulas,
    .layout = hcn_figure_layout,
};
