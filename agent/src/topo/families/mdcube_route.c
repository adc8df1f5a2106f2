#include "mdcube_route.h"

#include <string.h>

#include "bfs.h"
#include "mdcube_segment.h"

void md_sawtooth_order(uint32_t dims, uint32_t i, uint32_t *order)
{
    for (uint32_t x = 0; x < dims; x++)
        order[x] = (i + 1 + x) % dims;
}

static const md_geom *geom(const dcn_topo *t) { return (const md_geom *)t->priv; }

static int servers_ok(const dcn_topo *t, uint32_t src, uint32_t dst)
{
    return t->priv && src < t->n_servers && dst < t->n_servers && src != dst;
}

/* Moves the path from container `from` to container `to` (one coordinate
 * apart): the in-container segment to GetLink's switch, then the fiber. */
static int cross(md_builder *b, uint32_t from, uint32_t to, md_choice ch)
{
    uint32_t bw1, bw2;
    if (md_get_link(b->g, from, to, ch.copy % b->g->copies, &bw1, &bw2) < 0)
        return -1;
    if (md_seg_to_switch(b, from, bw1, ch.transit) < 0)
        return -1;
    return md_seg_fiber(b, md_switch_node(b->g, b->t->n_servers, to, bw2));
}

int md_build_path(const dcn_topo *t, uint32_t src, uint32_t dst, int jump_dim, uint32_t jump_value,
                  const uint32_t *order, uint32_t norder, md_choice choice, const dcn_failures *f, dcn_path *out)
{
    if (!servers_ok(t, src, dst))
        return -1;
    const md_geom *g = geom(t);
    md_builder b = {t, g, f, out};
    uint32_t cur = src / g->t, dst_c = dst / g->t;
    dcn_path_clear(out);
    if (!dcn_node_ok(f, src) || dcn_path_push(out, src) < 0)
        return -1;
    if (jump_dim >= 0) {
        if ((uint32_t)jump_dim >= g->dims || jump_value >= g->m[jump_dim] ||
            jump_value == md_coord(g, cur, (uint32_t)jump_dim))
            return -1;
        uint32_t next = md_set_coord(g, cur, (uint32_t)jump_dim, jump_value);
        if (cross(&b, cur, next, choice) < 0)
            return -1;
        cur = next;
    }
    for (uint32_t x = 0; x < norder; x++) {
        uint32_t d = order[x];
        if (d >= g->dims)
            return -1;
        uint32_t want = md_coord(g, dst_c, d);
        if (md_coord(g, cur, d) == want)
            continue;
        uint32_t next = md_set_coord(g, cur, d, want);
        if (cross(&b, cur, next, choice) < 0)
            return -1;
        cur = next;
    }
    if (cur != dst_c)
        return -1;
    return md_seg_to_server(&b, cur, dst % g->t);
}

int mdcube_route_path(const dcn_topo *t, uint32_t src, uint32_t dst, md_choice choice, const dcn_failures *f,
                      dcn_path *out)
{
    if (!t->priv)
        return -1;
    const md_geom *g = geom(t);
    uint32_t order[DCN_MAX_DIMS];
    for (uint32_t x = 0; x < g->dims; x++)
        order[x] = g->dims - 1 - x;
    return md_build_path(t, src, dst, -1, 0, order, g->dims, choice, f, out);
}

int mdcube_detour_path(const dcn_topo *t, uint32_t src, uint32_t dst, uint32_t dim, uint32_t value,
                       md_choice choice, const dcn_failures *f, dcn_path *out)
{
    if (!servers_ok(t, src, dst))
        return -1;
    const md_geom *g = geom(t);
    if (src / g->t == dst / g->t || dim >= g->dims)
        return -1;
    uint32_t order[DCN_MAX_DIMS];
    md_sawtooth_order(g->dims, dim, order);
    return md_build_path(t, src, dst, (int)dim, value, order, g->dims, choice, f, out);
}

/* Inside one container: BCubeRouting with Pi = [k..0], repaired there. */
static int same_container_route(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_failures *f,
                                dcn_path *out)
{
    const md_geom *g = geom(t);
    md_builder b = {t, g, f, out};
    dcn_path_clear(out);
    if (!dcn_node_ok(f, src) || dcn_path_push(out, src) < 0)
        return -1;
    return md_seg_to_server(&b, src / g->t, dst % g->t);
}

int mdcube_algo_route(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    out->count = 0;
    if (!servers_ok(t, src, dst))
        return -1;
    const dcn_failures *f = ctx ? ctx->failures : NULL;
    md_choice ch = {0, 0};
    if (mdcube_route_path(t, src, dst, ch, f, &out->path[0]) == 0)
        out->count = 1;
    return (int)out->count;
}

/* Jump number x (0 .. G-1) as (dimension, value): the values of each
 * dimension except src's own coordinate, dimension 0 first. */
static void jump_of(const md_geom *g, uint32_t src_c, uint32_t x, uint32_t *dim, uint32_t *value)
{
    uint32_t d = 0;
    while (x >= g->m[d] - 1)
        x -= g->m[d++] - 1;
    *dim = d;
    *value = x < md_coord(g, src_c, d) ? x : x + 1;
}

int mdcube_algo_detour(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    out->count = 0;
    if (!servers_ok(t, src, dst) || !ctx || !ctx->rng)
        return -1;
    const md_geom *g = geom(t);
    const dcn_failures *f = ctx->failures;
    if (src / g->t == dst / g->t) {
        if (same_container_route(t, src, dst, f, &out->path[0]) == 0)
            out->count = 1;
        return (int)out->count;
    }
    /* The source draws a jump; when its route is broken (a fiber down, a
     * container cut) it draws another one among the jumps not tried yet. */
    uint32_t left[1024 * DCN_MAX_DIMS], nleft = g->G;
    for (uint32_t x = 0; x < nleft; x++)
        left[x] = x;
    md_choice ch = {dcn_rng_below(ctx->rng, g->n), dcn_rng_below(ctx->rng, g->copies)};
    while (nleft) {
        uint32_t pick = dcn_rng_below(ctx->rng, nleft), dim, value;
        jump_of(g, src / g->t, left[pick], &dim, &value);
        left[pick] = left[--nleft];
        for (uint32_t c = 0; c < g->copies; c++) {
            md_choice try = {ch.transit, ch.copy + c};
            if (mdcube_detour_path(t, src, dst, dim, value, try, f, &out->path[0]) == 0) {
                out->count = 1;
                return 1;
            }
        }
    }
    return 0;
}

int md_jump_containers(const dcn_topo *t, uint32_t src_c, uint32_t dst_c, uint32_t x, uint32_t *out, uint32_t max)
{
    if (!t->priv)
        return -1;
    const md_geom *g = geom(t);
    if (src_c >= g->M || dst_c >= g->M || src_c == dst_c || x >= g->G)
        return -1;
    uint32_t dim, value, order[DCN_MAX_DIMS], n = 0, cur;
    jump_of(g, src_c, x, &dim, &value);
    md_sawtooth_order(g->dims, dim, order);
    cur = md_set_coord(g, src_c, dim, value);
    for (uint32_t i = 0;; i++) {
        if (cur == dst_c)
            return (int)n;
        if (n >= max)
            return -1;
        out[n++] = cur;
        while (i < g->dims && md_coord(g, cur, order[i]) == md_coord(g, dst_c, order[i]))
            i++;
        if (i >= g->dims)
            return -1;
        cur = md_set_coord(g, cur, order[i], md_coord(g, dst_c, order[i]));
    }
}

/* The entry server under far switch sw (already on the path) when the
 * route onwards is blocked: the first live one, from the transit choice. */
static int enter_any(md_builder *b, uint32_t c, uint32_t sw, uint32_t transit)
{
    const bc_dims *d = &b->g->bc;
    uint32_t bw = md_node_local(b, sw);
    for (uint32_t p = 0; p < d->n; p++) {
        uint32_t s = md_server_node(b->g, c, bc_switch_server(d, bw, (transit + p) % d->n));
        if (dcn_node_ok(b->f, s) && !dcn_path_contains(b->p, s) && dcn_step_ok(b->f, b->t, sw, s))
            return dcn_path_push(b->p, s);
    }
    return -1;
}

int md_segment(const dcn_topo *t, uint32_t from, uint32_t dst, const uint32_t *rest, uint32_t nrest,
               md_choice choice, const dcn_failures *f, dcn_path *out)
{
    if (!t->priv || from >= t->n_servers || dst >= t->n_servers || from == dst)
        return -1;
    const md_geom *g = geom(t);
    uint32_t c = from / g->t, dst_c = dst / g->t;
    md_builder b = {t, g, f, out};
    dcn_path_clear(out);
    if (!dcn_node_ok(f, from) || dcn_path_push(out, from) < 0)
        return -1;
    if (nrest == 0 && c == dst_c)
        return md_seg_to_server(&b, c, dst % g->t);
    uint32_t next = nrest ? rest[0] : dst_c;
    if (next >= g->M || next == c || cross(&b, c, next, choice) < 0)
        return -1;
    uint32_t sw = out->node[out->len - 1], fiber_end = out->len;
    /* the next container's own route onwards, cut at its first server */
    int onward;
    if (next == dst_c)
        onward = md_seg_to_server(&b, next, dst % g->t);
    else {
        uint32_t after = nrest > 1 ? rest[1] : dst_c, bw1, bw2;
        onward = after < g->M && md_get_link(g, next, after, choice.copy % g->copies, &bw1, &bw2) >= 0
                     ? md_seg_to_switch(&b, next, bw1, choice.transit)
                     : -1;
    }
    if (onward == 0)
        for (uint32_t i = fiber_end; i < out->len; i++)
            if (out->node[i] < t->n_servers) {
                out->len = i + 1;
                return 0;
            }
    out->len = fiber_end;
    return enter_any(&b, next, sw, choice.transit);
}

static int add_expanded(const dcn_topo *t, uint32_t c, const uint32_t *seq, uint32_t len, dcn_pathset *out)
{
    const md_geom *g = geom(t);
    dcn_path p;
    dcn_path_clear(&p);
    md_builder b = {t, g, NULL, &p};
    if (md_append_seq(&b, c, seq, len, 0, DCN_NONE) < 0)
        return -1;
    return dcn_pathset_add(out, &p);
}

int mdcube_algo_pathset(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    out->count = 0;
    if (!servers_ok(t, src, dst))
        return -1;
    const md_geom *g = geom(t);
    const dcn_failures *f = ctx ? ctx->failures : NULL;
    uint32_t src_c = src / g->t, dst_c = dst / g->t;
    if (src_c == dst_c) {
        /* BuildPathSet inside the container: P_k .. P_0. */
        uint32_t seqs[BC_MAX_LEVELS][BC_MAX_LEVELS + 3], lens[BC_MAX_LEVELS];
        bc_build_pathset(&g->bc, src % g->t, dst % g->t, seqs, lens);
        for (uint32_t i = g->k + 1; i-- > 0;)
            if (add_expanded(t, src_c, seqs[i], lens[i], out) < 0)
                return -1;
    } else {
        /* Theorem 4: one path per jump, shortest first. A path that its
         * containers cannot repair keeps its nominal form, so that BSR's
         * repair below replaces it. Transit and copy are spread per pair. */
        md_choice ch = {(src + dst) % g->n, (src + dst) % g->copies};
        /* Pass 0 takes the jumps straight to dst's coordinates, pass 1 the
         * others, so the direct paths survive the DCN_PATHSET_MAX cap. */
        for (int pass = 0; pass < 2; pass++)
            for (uint32_t x = 0; x < g->G && out->count < DCN_PATHSET_MAX; x++) {
                uint32_t dim, value;
                dcn_path *p = &out->path[out->count];
                jump_of(g, src_c, x, &dim, &value);
                if ((value == md_coord(g, dst_c, dim)) != (pass == 0))
                    continue;
                if (mdcube_detour_path(t, src, dst, dim, value, ch, f, p) < 0 &&
                    mdcube_detour_path(t, src, dst, dim, value, ch, NULL, p) < 0)
                    return -1;
                out->count++;
            }
        dcn_pathset_sort(out); /* shortest first, stable */
    }
    return dcn_pathset_repair(t, f, out);
}
