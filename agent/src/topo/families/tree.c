/* The two-level tree of the BCube and MDCube testbeds: `leaves` leaf
 * switches of `per_leaf` servers each, under one root switch. Plain IP, no
 * server relays; the baseline the papers compare against. */
#include <stdio.h>
#include <stdlib.h>

#include "family.h"
#include "json.h"

static const dcn_param_spec tree_params[] = {
    {"leaves", DCN_PARAM_INT, 1, 1024, 4, "leaf switches under the root"},
    {"per_leaf", DCN_PARAM_INT, 1, 1024, 4, "servers on each leaf switch"},
};

static int tree_validate(const dcn_params *p, char *err, size_t errlen)
{
    long n = dcn_param(p, "leaves") * dcn_param(p, "per_leaf");
    if (n > 1000000) {
        snprintf(err, errlen, "tree: leaves*per_leaf=%ld servers is too many (at most 1000000)", n);
        return -1;
    }
    return 0;
}

/* Node ids: servers 0..L*S-1 (leaf l holds l*S..l*S+S-1), leaf switches,
 * then the root. A leaf's ports 0..S-1 face its servers, port S the root. */
static int tree_build(dcn_topo *t, char *err, size_t errlen)
{
    uint32_t leaves = (uint32_t)dcn_param(&t->params, "leaves");
    uint32_t per = (uint32_t)dcn_param(&t->params, "per_leaf");
    uint32_t ns = leaves * per;
    uint16_t *swp = NULL, *srvp = NULL;
    int rc = -1;
    srvp = calloc(ns, sizeof *srvp);
    swp = calloc(leaves + 1, sizeof *swp);
    if (!srvp || !swp) {
        snprintf(err, errlen, "tree: out of memory");
        goto out;
    }
    for (uint32_t i = 0; i < ns; i++)
        srvp[i] = 1;
    for (uint32_t l = 0; l < leaves; l++)
        swp[l] = (uint16_t)(per + 1);
    swp[leaves] = (uint16_t)leaves;
    if (dcn_topo_alloc(t, ns, leaves + 1, srvp, swp, err, errlen) < 0)
        goto out;
    uint32_t root = dcn_switch_node(t, leaves);
    for (uint32_t l = 0; l < leaves; l++) {
        uint32_t leaf = dcn_switch_node(t, l);
        for (uint32_t i = 0; i < per; i++)
            if (dcn_topo_connect(t, l * per + i, 0, leaf, (uint16_t)i, err, errlen) < 0)
                goto out;
        if (dcn_topo_connect(t, leaf, (uint16_t)per, root, (uint16_t)l, err, errlen) < 0)
            goto out;
    }
    rc = 0;
out:
    free(srvp);
    free(swp);
    return rc;
}

static void tree_name(const dcn_topo *t, uint32_t v, char *buf, size_t len)
{
    uint32_t leaves = (uint32_t)dcn_param(&t->params, "leaves");
    if (v < t->n_servers)
        snprintf(buf, len, "h%u", v);
    else if (v - t->n_servers < leaves)
        snprintf(buf, len, "s%u", v - t->n_servers);
    else
        snprintf(buf, len, "root");
}

static int tree_route(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    (void)ctx;
    out->count = 0;
    if (src >= t->n_servers || dst >= t->n_servers || src == dst)
        return -1;
    uint32_t per = (uint32_t)dcn_param(&t->params, "per_leaf");
    uint32_t leaves = (uint32_t)dcn_param(&t->params, "leaves");
    dcn_path *p = &out->path[0];
    dcn_path_clear(p);
    dcn_path_push(p, src);
    dcn_path_push(p, dcn_switch_node(t, src / per));
    if (src / per != dst / per) {
        dcn_path_push(p, dcn_switch_node(t, leaves));
        dcn_path_push(p, dcn_switch_node(t, dst / per));
    }
    dcn_path_push(p, dst);
    out->count = 1;
    if (ctx && ctx->failures && !dcn_path_valid(p, t, ctx->failures, NULL))
        out->count = 0; /* a tree has no second path */
    return (int)out->count;
}

static void tree_formulas(const dcn_topo *t, struct dcn_json *j)
{
    uint32_t leaves = (uint32_t)dcn_param(&t->params, "leaves");
    uint32_t per = (uint32_t)dcn_param(&t->params, "per_leaf");
    dcn_json_int(j, "servers", (long long)leaves * per);
    dcn_json_int(j, "switches", leaves + 1);
    dcn_json_int(j, "links", (long long)leaves * per + leaves);
}

static const dcn_algo tree_algos[] = {
    {"route", "the only path: up to the common ancestor and down", tree_route},
};

const dcn_family dcn_family_tree = {
    .name = "tree",
    .summary = "two-level tree of the BCube/MDCube testbeds (baseline, plain IP)",
    .params = tree_params,
    .n_params = 2,
    .validate = tree_validate,
    .build = tree_build,
    .node_name = tree_name,
    .algos = tree_algos,
    .n_algos = 1,
    .metric = DCN_METRIC_LINKS,
    .formulas = tree_formulas,
};
