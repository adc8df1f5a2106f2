/* FiConn(n,k) (Li et al., INFOCOM 2009), the baseline of the HCN/BCN paper:
 * FiConn_0 is n servers on one switch; FiConn_l joins g_l = b_(l-1)/2 + 1
 * copies of FiConn_(l-1) as a complete graph, each copy spending half of its
 * b_(l-1) free backup ports. Routing is TOR, the traffic-oblivious recursive
 * routing (same scheme as FdimRouting). See docs/topologies/hcn-bcn.md. */
#include <stdio.h>
#include <stdlib.h>

#include "family.h"
#include "hcn_route.h"
#include "json.h"

#define FICONN_MAX_K 4
#define FICONN_MAX_SERVERS 2000000u

typedef struct ficonn {
    uint32_t n, k;
    uint64_t size[FICONN_MAX_K + 1];   /* N_l: servers of a FiConn_l */
    uint64_t backup[FICONN_MAX_K + 1]; /* b_l: free backup ports of a FiConn_l */
    uint64_t copies[FICONN_MAX_K + 1]; /* g_l (g_0 = n: servers of FiConn_0) */
    int id_names;                       /* 1: names are "h<id>" / "s<index>" */
} ficonn;

static const dcn_param_spec ficonn_params[] = {
    {"n", DCN_PARAM_INT, 2, 62, 4, "servers per switch (even)"},
    {"k", DCN_PARAM_INT, 0, FICONN_MAX_K, 2, "levels"},
};

static uint32_t decimal_len(uint64_t v)
{
    uint32_t n = 1;
    for (; v >= 10; v /= 10)
        n++;
    return n;
}

static int ficonn_dims(const dcn_params *p, ficonn *fc, char *err, size_t errlen)
{
    fc->n = (uint32_t)dcn_param(p, "n");
    fc->k = (uint32_t)dcn_param(p, "k");
    if (fc->n % 2) {
        snprintf(err, errlen, "ficonn: n=%u must be even (half of the backup ports go up a level)", fc->n);
        return -1;
    }
    fc->size[0] = fc->backup[0] = fc->copies[0] = fc->n;
    for (uint32_t l = 1; l <= fc->k; l++) {
        if (fc->backup[l - 1] % 2) {
            snprintf(err, errlen, "ficonn: n=%u k=%u cannot be built: FiConn_%u has an odd number (%llu) of backup ports",
                     fc->n, fc->k, l - 1, (unsigned long long)fc->backup[l - 1]);
            return -1;
        }
        fc->copies[l] = fc->backup[l - 1] / 2 + 1;
        fc->size[l] = fc->copies[l] * fc->size[l - 1];
        fc->backup[l] = fc->copies[l] * fc->backup[l - 1] / 2;
        if (fc->size[l] > FICONN_MAX_SERVERS) {
            snprintf(err, errlen, "ficonn: n=%u k=%u gives too many servers (more than %u); lower k or n", fc->n, fc->k,
                     FICONN_MAX_SERVERS);
            return -1;
        }
    }
    uint32_t len = 1 + fc->k;
    for (uint32_t l = 0; l <= fc->k; l++)
        len += decimal_len(fc->copies[l] - 1);
    fc->id_names = len > 10;
    return 0;
}

static int ficonn_validate(const dcn_params *p, char *err, size_t errlen)
{
    ficonn fc;
    return ficonn_dims(p, &fc, err, errlen);
}

/* Inside a FiConn_l, copy i's server that links to copy j (uid within copy i). */
static uint64_t link_uid(uint32_t l, uint64_t i, uint64_t j)
{
    return (j - (j > i ? 1 : 0)) * (1ull << l) + (1ull << (l - 1)) - 1;
}

static int ficonn_build(dcn_topo *t, char *err, size_t errlen)
{
    ficonn *fc = malloc(sizeof *fc);
    if (!fc) {
        snprintf(err, errlen, "ficonn: out of memory");
        return -1;
    }
    t->priv = fc;
    if (ficonn_dims(&t->params, fc, err, errlen) < 0)
        return -1;
    uint32_t ns = (uint32_t)fc->size[fc->k], nw = ns / fc->n;
    if (dcn_topo_alloc_uniform(t, ns, 2, nw, (uint16_t)fc->n, err, errlen) < 0)
        return -1;
    for (uint32_t v = 0; v < ns; v++)
        if (dcn_topo_connect(t, v, 0, dcn_switch_node(t, v / fc->n), (uint16_t)(v % fc->n), err, errlen) < 0)
            return -1;
    for (uint32_t l = 1; l <= fc->k; l++) {
        uint64_t sub = fc->size[l - 1], g = fc->copies[l];
        for (uint64_t base = 0; base < ns; base += fc->size[l])
            for (uint64_t i = 0; i < g; i++)
                for (uint64_t j = i + 1; j < g; j++) {
                    uint32_t a = (uint32_t)(base + i * sub + link_uid(l, i, j));
                    uint32_t b = (uint32_t)(base + j * sub + link_uid(l, j, i));
                    if (dcn_topo_connect(t, a, 1, b, 1, err, errlen) < 0)
                        return -1;
                }
    }
    return 0;
}

static void ficonn_destroy(dcn_topo *t)
{
    free(t->priv);
    t->priv = NULL;
}

/* Servers "h" + a_k_..._a_0, switches "s" + a_k_..._a_1 (0-based digits,
 * a_0 < n, a_l < g_l); "s0" for FiConn_0's switch; "h<id>"/"s<index>" when
 * that would exceed 10 characters. */
static void ficonn_name(const dcn_topo *t, uint32_t v, char *buf, size_t len)
{
    const ficonn *fc = t->priv;
    int server = v < t->n_servers;
    uint64_t id = server ? v : (uint64_t)(v - t->n_servers) * fc->n;
    if (fc->id_names) {
        snprintf(buf, len, "%c%llu", server ? 'h' : 's', (unsigned long long)(server ? id : id / fc->n));
        return;
    }
    if (!server && fc->k == 0) {
        snprintf(buf, len, "s0");
        return;
    }
    size_t off = (size_t)snprintf(buf, len, "%c", server ? 'h' : 's');
    for (uint32_t l = fc->k + 1; l-- > (server ? 0u : 1u) && off < len;) {
        uint64_t digit = l ? (id / fc->size[l - 1]) % fc->copies[l] : id % fc->n;
        off += (size_t)snprintf(buf + off, len - off, "%s%llu", l == fc->k ? "" : "_", (unsigned long long)digit);
    }
}

/* TOR: appends the rest of the route from a to b (seq ends at a). */
static int tor(const ficonn *fc, uint64_t a, uint64_t b, dcn_path *seq)
{
    if (a == b)
        return 0;
    if (a / fc->n == b / fc->n)
        return dcn_path_push(seq, (uint32_t)b);
    uint32_t l = 1;
    while (a / fc->size[l] != b / fc->size[l])
        l++;
    uint64_t sub = fc->size[l - 1], base = a / fc->size[l] * fc->size[l];
    uint64_t i = (a - base) / sub, j = (b - base) / sub;
    uint64_t x = base + i * sub + link_uid(l, i, j), y = base + j * sub + link_uid(l, j, i);
    if (tor(fc, a, x, seq) < 0 || dcn_path_push(seq, (uint32_t)y) < 0)
        return -1;
    return tor(fc, y, b, seq);
}

static int ficonn_route(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    out->count = 0;
    if (src >= t->n_servers || dst >= t->n_servers || src == dst)
        return -1;
    dcn_path seq;
    dcn_path_clear(&seq);
    if (dcn_path_push(&seq, src) < 0 || tor(t->priv, src, dst, &seq) < 0 || hcn_expand(t, &seq, &out->path[0]) < 0)
        return -1;
    if (ctx && ctx->failures && !dcn_path_valid(&out->path[0], t, ctx->failures, NULL))
        return 0; /* failure-oblivious */
    out->count = 1;
    return 1;
}

static void ficonn_formulas(const dcn_topo *t, struct dcn_json *j)
{
    const ficonn *fc = t->priv;
    long long nk = (long long)fc->size[fc->k], bk = (long long)fc->backup[fc->k];
    dcn_json_int(j, "servers", nk);
    dcn_json_int(j, "switches", nk / fc->n);
    dcn_json_int(j, "port2_cables", (nk - bk) / 2);
    for (uint32_t l = 1; l <= fc->k; l++) {
        char key[32];
        snprintf(key, sizeof key, "port2_cables_level_%u", l);
        long long g = (long long)fc->copies[l];
        dcn_json_int(j, key, nk / (long long)fc->size[l] * g * (g - 1) / 2);
    }
    dcn_json_int(j, "free_port2_servers", bk);
    dcn_json_int(j, "diameter_bound_server_hops", (2LL << fc->k) - 1);
    dcn_json_int(j, "bisection_lower_bound", nk / (4LL << fc->k));
}

static const dcn_algo ficonn_algos[] = {
    {"route", "TOR: traffic-oblivious recursive routing, failure-oblivious", ficonn_route},
};

const dcn_family dcn_family_ficonn = {
    .name = "ficonn",
    .summary = "FiConn(n,k): recursive dual-port server network (Li et al. INFOCOM 2009), HCN/BCN baseline",
    .params = ficonn_params,
    .n_params = 2,
    .validate = ficonn_validate,
    .build = ficonn_build,
    .destroy = ficonn_destroy,
    .node_name = ficonn_name,
    .algos = ficonn_algos,
    .n_algos = 1,
    .metric = DCN_METRIC_HOPS,
    .formulas = ficonn_formulas,
};
