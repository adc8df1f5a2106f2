#include "sim_mlfattree.h"

#include <stdio.h>
#include <stdlib.h>

#define MLFT_MAX_LAYERS 8
#define MLFT_MAX_HOSTS 4000000L

static const dcn_param_spec mlft_params[] = {
    {"n", DCN_PARAM_INT, 4, 64, 8, "switch ports (even)"},
    {"layers", DCN_PARAM_INT, 2, MLFT_MAX_LAYERS, 5, "switch layers (3: the k-ary fat-tree)"},
};

typedef struct mlft {
    uint32_t n, r, L;
    uint32_t per_pod;   /* switches per pod layer: r^(L-2) */
    uint32_t pod_hosts; /* r^(L-1) */
    uint32_t hosts, layer_switches, tops;
} mlft;

static mlft geom(long n, long L)
{
    mlft g = {(uint32_t)n, (uint32_t)n / 2, (uint32_t)L, 1, 1, 0, 0, 0};
    for (long i = 0; i < L - 2; i++)
        g.per_pod *= g.r;
    g.pod_hosts = g.per_pod * g.r;
    g.hosts = g.n * g.pod_hosts;
    g.layer_switches = g.n * g.per_pod;
    g.tops = g.pod_hosts;
    return g;
}

static int mlft_validate(const dcn_params *p, char *err, size_t errlen)
{
    long n = dcn_param(p, "n"), L = dcn_param(p, "layers");
    if (n % 2) {
        snprintf(err, errlen, "mlfattree: n=%ld must be even (allowed 4..64)", n);
        return -1;
    }
    double hosts = (double)n;
    for (long i = 0; i < L - 1; i++)
        hosts *= (double)n / 2;
    if (hosts > (double)MLFT_MAX_HOSTS) {
        snprintf(err, errlen, "mlfattree: n=%ld layers=%ld gives more than %ld hosts", n, L, MLFT_MAX_HOSTS);
        return -1;
    }
    return 0;
}

static mlft geom_of(const dcn_topo *t) { return geom(dcn_param(&t->params, "n"), dcn_param(&t->params, "layers")); }

/* Pod switch (layer l < L-1, pod p, label w), and top switch j. */
static uint32_t pod_sw(const dcn_topo *t, const mlft *g, uint32_t l, uint32_t p, uint32_t w)
{
    return t->n_servers + l * g->layer_switches + p * g->per_pod + w;
}
static uint32_t top_sw(const dcn_topo *t, const mlft *g, uint32_t j)
{
    return t->n_servers + (g->L - 1) * g->layer_switches + j;
}

static uint32_t digit(const mlft *g, uint32_t x, uint32_t i)
{
    for (uint32_t k = 0; k < i; k++)
        x /= g->r;
    return x % g->r;
}
static uint32_t set_digit(const mlft *g, uint32_t x, uint32_t i, uint32_t v)
{
    uint32_t pw = 1;
    for (uint32_t k = 0; k < i; k++)
        pw *= g->r;
    return x - digit(g, x, i) * pw + v * pw;
}

/* Host (pod p, local h): port 0 -> layer-0 switch (p, h / r), its port h % r.
 * Pod switch (l, p, w): ports 0..r-1 down, port r+u up to (l+1, p, w with
 * digit l := u) on its down port w_l; from layer L-2, up port r+u goes to
 * top switch w*r+u, whose port p leads to pod p. */
static int mlft_build(dcn_topo *t, char *err, size_t errlen)
{
    mlft g = geom_of(t);
    uint32_t nsw = (g.L - 1) * g.layer_switches + g.tops;
    if (dcn_topo_alloc_uniform(t, g.hosts, 1, nsw, (uint16_t)g.n, err, errlen) < 0)
        return -1;
    for (uint32_t h = 0; h < g.hosts; h++) {
        uint32_t p = h / g.pod_hosts, lh = h % g.pod_hosts;
        if (dcn_topo_connect(t, h, 0, pod_sw(t, &g, 0, p, lh / g.r), (uint16_t)(lh % g.r), err, errlen) < 0)
            return -1;
    }
    for (uint32_t l = 0; l + 1 < g.L; l++)
        for (uint32_t p = 0; p < g.n; p++)
            for (uint32_t w = 0; w < g.per_pod; w++)
                for (uint32_t u = 0; u < g.r; u++) {
                    uint32_t a = pod_sw(t, &g, l, p, w), b;
                    uint16_t bp;
                    if (l + 2 < g.L) {
                        b = pod_sw(t, &g, l + 1, p, set_digit(&g, w, l, u));
                        bp = (uint16_t)digit(&g, w, l);
                    } else {
                        b = top_sw(t, &g, w * g.r + u);
                        bp = (uint16_t)p;
                    }
                    if (dcn_topo_connect(t, a, (uint16_t)(g.r + u), b, bp, err, errlen) < 0)
                        return -1;
                }
    return 0;
}

static void mlft_name(const dcn_topo *t, uint32_t v, char *buf, size_t len)
{
    mlft g = geom_of(t);
    if (v < t->n_servers) {
        snprintf(buf, len, "h%u", v);
        return;
    }
    uint32_t i = v - t->n_servers, l = i / g.layer_switches;
    snprintf(buf, len, "s%u_%u", l, i - l * g.layer_switches);
}

/* The up-down path whose up choices are the base-r digits of choice:
 * up to the lowest common layer, then down by the destination's digits. */
static int mlft_path(const dcn_topo *t, const mlft *g, uint32_t src, uint32_t dst, uint32_t top, uint32_t choice,
                     dcn_path *out)
{
    uint32_t ps = src / g->pod_hosts, pd = dst / g->pod_hosts;
    uint32_t w = (src % g->pod_hosts) / g->r, wd = (dst % g->pod_hosts) / g->r;
    dcn_path_clear(out);
    if (dcn_path_push(out, src) < 0 || dcn_path_push(out, pod_sw(t, g, 0, ps, w)) < 0)
        return -1;
    uint32_t climb = top < g->L - 1 ? top : g->L - 2; /* pod layers climbed */
    for (uint32_t l = 0; l < climb; l++) {
        w = set_digit(g, w, l, digit(g, choice, l));
        if (dcn_path_push(out, pod_sw(t, g, l + 1, ps, w)) < 0)
            return -1;
    }
    if (top == g->L - 1) { /* through a top switch to the other pod */
        if (dcn_path_push(out, top_sw(t, g, w * g->r + digit(g, choice, g->L - 2))) < 0 ||
            dcn_path_push(out, pod_sw(t, g, g->L - 2, pd, w)) < 0)
            return -1;
    }
    for (uint32_t l = climb; l > 0; l--) {
        w = set_digit(g, w, l - 1, digit(g, wd, l - 1));
        if (dcn_path_push(out, pod_sw(t, g, l - 1, pd, w)) < 0)
            return -1;
    }
    return dcn_path_push(out, dst);
}

/* Layer of the lowest common ancestor, and the number of up-down paths. */
static uint32_t lca_layer(const mlft *g, uint32_t src, uint32_t dst, uint32_t *npaths)
{
    uint32_t top;
    if (src / g->pod_hosts != dst / g->pod_hosts) {
        top = g->L - 1;
    } else {
        uint32_t a = (src % g->pod_hosts) / g->r, b = (dst % g->pod_hosts) / g->r;
        top = 0;
        for (uint32_t i = 0; i + 2 < g->L; i++)
            if (digit(g, a, i) != digit(g, b, i))
                top = i + 1;
    }
    *npaths = 1;
    for (uint32_t i = 0; i < top; i++)
        *npaths *= g->r;
    return top;
}

/* ECMP: a flow hashes onto one of the equal-cost up-down paths (a uniform
 * draw); under failures, a flow whose path is broken moves to a uniformly
 * drawn live one (BCube paper, Sec. 6). */
static int mlft_ecmp(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    out->count = 0;
    if (src >= t->n_servers || dst >= t->n_servers || src == dst)
        return -1;
    mlft g = geom_of(t);
    uint32_t np, top = lca_layer(&g, src, dst, &np);
    const dcn_failures *f = ctx ? ctx->failures : NULL;
    uint32_t pick = dcn_rng_below(ctx->rng, np);
    if (mlft_path(t, &g, src, dst, top, pick, &out->path[0]) < 0)
        return -1;
    if (!f || dcn_path_valid(&out->path[0], t, f, NULL)) {
        out->count = 1;
        return 1;
    }
    /* A host whose only cable or edge switch is down has no path at all. */
    if (!dcn_hop_ok(f, t, src, 0) || !dcn_hop_ok(f, t, dst, 0) ||
        !dcn_hop_ok(f, t, dcn_peer(t, dst, 0).node, dcn_peer(t, dst, 0).port))
        return 0;
    /* Redraw until a live path comes up: uniform over the live paths, like
     * enumerating them, at a fraction of the cost; enumerate only when many
     * draws all fail. */
    for (uint32_t tries = 0; tries < 32; tries++) {
        if (mlft_path(t, &g, src, dst, top, dcn_rng_below(ctx->rng, np), &out->path[0]) < 0)
            return -1;
        if (dcn_path_valid(&out->path[0], t, f, NULL)) {
            out->count = 1;
            return 1;
        }
    }
    uint32_t live = 0; /* reservoir draw among the live paths */
    dcn_path *cand = &out->path[1];
    for (uint32_t c = 0; c < np; c++) {
        if (mlft_path(t, &g, src, dst, top, c, cand) < 0)
            return -1;
        if (!dcn_path_valid(cand, t, f, NULL))
            continue;
        if (dcn_rng_below(ctx->rng, ++live) == 0)
            out->path[0] = *cand;
    }
    out->count = live ? 1 : 0;
    return (int)out->count;
}

/* Destination-mod-k: the up choice at layer l is the destination's digit l
 * (the fat-tree paper's suffix table generalized); fault-oblivious. */
static int mlft_dmodk(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    out->count = 0;
    if (src >= t->n_servers || dst >= t->n_servers || src == dst)
        return -1;
    mlft g = geom_of(t);
    uint32_t np, top = lca_layer(&g, src, dst, &np);
    if (mlft_path(t, &g, src, dst, top, (dst % g.pod_hosts) % np, &out->path[0]) < 0)
        return -1;
    out->count = dcn_path_valid(&out->path[0], t, ctx ? ctx->failures : NULL, NULL) ? 1 : 0;
    return (int)out->count;
}

static const dcn_algo mlft_algos[] = {
    {"ecmp", "one random up-down path; a broken one moves to a random live path", mlft_ecmp},
    {"dmodk", "up choices = the destination's digits (fault-oblivious)", mlft_dmodk},
};

const dcn_family sim_family_mlfattree = {
    .name = "mlfattree",
    .summary = "multi-level fat-tree of n-port switches (the BCube paper's 5-layer baseline), simulator only",
    .params = mlft_params,
    .n_params = 2,
    .validate = mlft_validate,
    .build = mlft_build,
    .node_name = mlft_name,
    .algos = mlft_algos,
    .n_algos = 2,
    .metric = DCN_METRIC_LINKS,
};
