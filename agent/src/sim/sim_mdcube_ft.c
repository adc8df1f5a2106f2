#include "sim_mdcube_ft.h"

#include <stdlib.h>

#include "topo/families/mdcube_geom.h"

/* Per-thread scratch for the container BFS, allocated once per thread and
 * size (not per flow). */
static _Thread_local uint32_t *tl_parent, *tl_queue, *tl_seen, tl_size, tl_gen;

static int scratch(uint32_t size)
{
    if (tl_size >= size)
        return 0;
    free(tl_parent);
    free(tl_queue);
    free(tl_seen);
    tl_parent = malloc(size * sizeof *tl_parent);
    tl_queue = malloc(size * sizeof *tl_queue);
    tl_seen = calloc(size, sizeof *tl_seen);
    tl_gen = 0;
    tl_size = (tl_parent && tl_queue && tl_seen) ? size : 0;
    return tl_size ? 0 : -1;
}

typedef struct ctr {
    const dcn_topo *t;
    const md_geom *g;
    uint32_t c; /* container */
} ctr;

static uint32_t container_of(const dcn_topo *t, const md_geom *g, uint32_t v)
{
    return v < t->n_servers ? v / g->t : (v - t->n_servers) / g->g;
}
static uint32_t local_of(const ctr *x, uint32_t v)
{
    return v < x->t->n_servers ? v - x->c * x->g->t : x->g->t + (v - x->t->n_servers - x->c * x->g->g);
}
static uint32_t node_of(const ctr *x, uint32_t l)
{
    return l < x->g->t ? x->c * x->g->t + l : x->t->n_servers + x->c * x->g->g + (l - x->g->t);
}

/* Shortest live path a -> b inside container x->c, appended to out (a
 * first). Each node's ports are scanned from a random offset, so the repairs
 * of many flows spread over the equally short alternatives. 0, or -1 when
 * none. */
static int container_bfs(const ctr *x, const dcn_failures *f, dcn_rng *rng, uint32_t a, uint32_t b, dcn_path *out)
{
    if (++tl_gen == 0) { /* wrapped: clear the marks */
        for (uint32_t i = 0; i < tl_size; i++)
            tl_seen[i] = 0;
        tl_gen = 1;
    }
    uint32_t la = local_of(x, a), lb = local_of(x, b), head = 0, tail = 0;
    tl_seen[la] = tl_gen;
    tl_parent[la] = la;
    tl_queue[tail++] = la;
    while (head < tail && tl_seen[lb] != tl_gen) {
        uint32_t u = node_of(x, tl_queue[head++]);
        uint16_t np = dcn_nports(x->t, u), off = (uint16_t)dcn_rng_below(rng, np);
        for (uint16_t i = 0; i < np; i++) {
            uint16_t p = (uint16_t)((i + off) % np);
            uint32_t w = dcn_peer(x->t, u, p).node;
            if (w == DCN_NONE || container_of(x->t, x->g, w) != x->c || !dcn_hop_ok(f, x->t, u, p))
                continue;
            uint32_t lw = local_of(x, w);
            if (tl_seen[lw] == tl_gen)
                continue;
            tl_seen[lw] = tl_gen;
            tl_parent[lw] = local_of(x, u);
            tl_queue[tail++] = lw;
        }
    }
    if (tl_seen[lb] != tl_gen)
        return -1;
    uint32_t len = 0;
    for (uint32_t l = lb;; l = tl_parent[l]) {
        tl_queue[len++] = l; /* reuse as the reversed sequence */
        if (l == la)
            break;
    }
    while (len)
        if (dcn_path_push(out, node_of(x, tl_queue[--len])) < 0)
            return -1;
    return 0;
}

static bool segment_ok(const dcn_topo *t, const dcn_failures *f, const dcn_path *p, uint32_t from, uint32_t to)
{
    for (uint32_t i = from; i <= to; i++)
        if (!dcn_node_ok(f, p->node[i]) || (i < to && !dcn_step_ok(f, t, p->node[i], p->node[i + 1])))
            return false;
    return true;
}

/* Rebuilds p into out container by container; -1 when the jump is unusable. */
static int repair(const dcn_topo *t, const md_geom *g, const dcn_failures *f, dcn_rng *rng, const dcn_path *p,
                  dcn_path *out)
{
    dcn_path_clear(out);
    uint32_t start = 0;
    for (uint32_t i = 0; i < p->len; i++) {
        bool end = i + 1 == p->len || (p->node[i] >= t->n_servers && p->node[i + 1] >= t->n_servers);
        if (!end)
            continue;
        if (i + 1 < p->len && !dcn_step_ok(f, t, p->node[i], p->node[i + 1]))
            return -1; /* the fibre or one of its switches is down: another jump */
        if (segment_ok(t, f, p, start, i)) {
            for (uint32_t j = start; j <= i; j++)
                if (dcn_path_push(out, p->node[j]) < 0)
                    return -1;
        } else {
            ctr x = {t, g, container_of(t, g, p->node[start])};
            if (!dcn_node_ok(f, p->node[start]) || !dcn_node_ok(f, p->node[i]) ||
                container_bfs(&x, f, rng, p->node[start], p->node[i], out) < 0)
                return -1;
        }
        start = i + 1;
    }
    return 0;
}

static bool has_live_port(const dcn_topo *t, const dcn_failures *f, uint32_t v)
{
    for (uint16_t p = 0; p < dcn_nports(t, v); p++)
        if (dcn_hop_ok(f, t, v, p))
            return true;
    return false;
}

static int detour_ft(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    out->count = 0;
    const dcn_algo *detour = dcn_family_algo(t->family, "detour");
    if (!detour || !ctx || !ctx->rng)
        return -1;
    const md_geom *g = t->priv;
    if (!g || scratch(g->t + g->g) < 0)
        return -1;
    const dcn_failures *f = ctx->failures;
    if (f && (!has_live_port(t, f, src) || !has_live_port(t, f, dst)))
        return 0; /* cut off: no jump helps */
    dcn_route_ctx plain = {NULL, ctx->rng};
    for (int jump = 0; jump < SIM_MDFT_JUMPS; jump++) {
        int n = detour->fn(t, src, dst, &plain, out);
        if (n <= 0)
            return n;
        if (!f || dcn_path_valid(&out->path[0], t, f, NULL)) {
            out->count = 1;
            return 1;
        }
        if (repair(t, g, f, ctx->rng, &out->path[0], &out->path[1]) == 0) {
            dcn_path_erase_loops(&out->path[1]);
            out->path[0] = out->path[1];
            out->count = 1;
            return 1;
        }
    }
    out->count = 0;
    return 0;
}

const dcn_algo sim_algo_mdcube_detour_ft = {
    "detour-ft", "random jump (detour), each container repairs its own segment; another jump on a fibre failure",
    detour_ft};

void sim_mdcube_ft_release(void)
{
    free(tl_parent);
    free(tl_queue);
    free(tl_seen);
    tl_parent = tl_queue = tl_seen = NULL;
    tl_size = 0;
}
