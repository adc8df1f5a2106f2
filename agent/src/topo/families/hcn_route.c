#include "hcn_route.h"
#include "scratch.h"

#include <stdlib.h>
#include <string.h>

#include "bfs.h"
#include "hcn_flow.h"

static int push_label(const hcn_dims *d, const hcn_label *l, dcn_path *seq)
{
    return dcn_path_push(seq, hcn_server_id(d, l));
}

static bool same_label(const hcn_dims *d, const hcn_label *a, const hcn_label *b)
{
    return hcn_server_id(d, a) == hcn_server_id(d, b);
}

/* seq ends at src; appends the rest of FdimRouting(src, dst). */
static int fdim_rec(const hcn_dims *d, const hcn_label *src, const hcn_label *dst, dcn_path *seq)
{
    if (same_label(d, src, dst))
        return 0;
    uint32_t m = hcn_common_prefix(d, src, dst);
    if (m >= d->h)
        return push_label(d, dst, seq); /* same switch */
    uint32_t i = d->h - m;
    uint8_t s = src->x[i], t = dst->x[i];
    /* GetIntraLink: dst1 = P.s.t^i in src's sub-network, src1 = P.t.s^i. */
    hcn_label dst1 = *src, src1 = *src;
    dst1.x[i] = s;
    src1.x[i] = t;
    for (uint32_t j = 0; j < i; j++) {
        dst1.x[j] = t;
        src1.x[j] = s;
    }
    if (fdim_rec(d, src, &dst1, seq) < 0 || push_label(d, &src1, seq) < 0)
        return -1;
    return fdim_rec(d, &src1, dst, seq);
}

static int start_at(const hcn_dims *d, const hcn_label *src, dcn_path *seq)
{
    if (seq->len == 0)
        return push_label(d, src, seq);
    return seq->node[seq->len - 1] == hcn_server_id(d, src) ? 0 : -1;
}

int hcn_fdim(const hcn_dims *d, const hcn_label *src, const hcn_label *dst, dcn_path *seq)
{
    if (start_at(d, src, seq) < 0 || src->u != dst->u)
        return -1;
    return fdim_rec(d, src, dst, seq);
}

int hcn_bdim(const hcn_dims *d, const hcn_label *src, const hcn_label *dst, dcn_path *seq)
{
    if (start_at(d, src, seq) < 0)
        return -1;
    if (src->u == dst->u)
        return fdim_rec(d, src, dst, seq);
    hcn_label dst1, src1;
    hcn_inter_link(d, src->u, dst->u, hcn_rank(d, src), &dst1, &src1);
    if (fdim_rec(d, src, &dst1, seq) < 0 || push_label(d, &src1, seq) < 0)
        return -1;
    return fdim_rec(d, &src1, dst, seq);
}

int hcn_expand(const dcn_topo *t, const dcn_path *seq, dcn_path *out)
{
    dcn_path_clear(out);
    for (uint32_t i = 0; i < seq->len; i++) {
        if (i > 0) {
            uint32_t a = seq->node[i - 1], b = seq->node[i];
            if (dcn_peer(t, a, 1).node != b) {
                uint32_t w = dcn_peer(t, a, 0).node;
                if (w == DCN_NONE || dcn_peer(t, b, 0).node != w || dcn_path_push(out, w) < 0)
                    return -1;
            }
        }
        if (dcn_path_push(out, seq->node[i]) < 0)
            return -1;
    }
    return 0;
}

static int add_expanded(const dcn_topo *t, const dcn_path *seq, dcn_pathset *out)
{
    dcn_path full;
    if (hcn_expand(t, seq, &full) < 0)
        return -1;
    return dcn_pathset_add(out, &full);
}

int hcn_lemma1_paths(const dcn_topo *t, const hcn_label *src, const hcn_label *dst, dcn_pathset *out)
{
    const hcn_dims *d = hcn_dims_of(t);
    dcn_path seq;
    out->count = 0;
    dcn_path_clear(&seq);
    if (hcn_fdim(d, src, dst, &seq) < 0 || add_expanded(t, &seq, out) < 0)
        return -1;
    uint32_t m = hcn_common_prefix(d, src, dst);
    if (m >= d->h)
        return 1;
    uint32_t i = d->h - m;
    uint8_t s = src->x[i], e = dst->x[i];
    for (uint8_t c = 1; c <= d->alpha; c++) {
        if (c == s || c == e)
            continue;
        /* Through sub-network P.c, entered at z = P.c.s^i. */
        hcn_label z = *src;
        z.x[i] = c;
        for (uint32_t j = 0; j < i; j++)
            z.x[j] = s;
        dcn_path_clear(&seq);
        if (hcn_fdim(d, src, &z, &seq) < 0 || hcn_fdim(d, &z, dst, &seq) < 0 || add_expanded(t, &seq, out) < 0)
            return -1;
    }
    return (int)out->count;
}

/* ---- the family algorithms ---- */

/* BSR-style repair of a path set, in Lemma 1's sense of disjointness: a path
 * that crosses a failure is replaced by a BFS path avoiding the failures and
 * the inner nodes of the other paths, except the two end points' switches
 * (which every path of the set crosses). Returns the number kept. */
static int repair_pathset(const dcn_topo *t, const dcn_failures *f, uint32_t src, uint32_t dst, dcn_pathset *s)
{
    uint32_t n = dcn_n_nodes(t), ssw = dcn_peer(t, src, 0).node, dsw = dcn_peer(t, dst, 0).node;
    uint8_t *avoid = dcn_tmp_calloc(n, 1);
    if (!avoid)
        return -1;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        if (dcn_path_valid(&s->path[i], t, f, NULL)) {
            s->path[kept++] = s->path[i];
            continue;
        }
        memset(avoid, 0, n);
        for (uint32_t j = 0; j < s->count; j++)
            if (j != i && (j < kept || j > i))
                for (uint32_t k = 1; k + 1 < s->path[j].len; k++)
                    avoid[s->path[j].node[k]] = 1;
        if (ssw != DCN_NONE)
            avoid[ssw] = 0;
        if (dsw != DCN_NONE)
            avoid[dsw] = 0;
        dcn_path alt;
        if (dcn_bfs_path(t, src, dst, f, avoid, &alt) == 0)
            s->path[kept++] = alt;
    }
    dcn_tmp_free(avoid);
    s->count = kept;
    return (int)kept;
}

static int check_request(const dcn_topo *t, uint32_t src, uint32_t dst, dcn_pathset *out)
{
    out->count = 0;
    return (src >= t->n_servers || dst >= t->n_servers || src == dst) ? -1 : 0;
}

/* Across BCN copies the paper gives no construction. Path 0 is BdimRouting
 * and the other alpha-2 come from max-flow on the rest of the graph; when the
 * routing path blocks that, all alpha-1 come from max-flow. The end points'
 * switches are shared, as in Lemma 1. */
static int cross_copy_paths(const dcn_topo *t, const hcn_label *ls, const hcn_label *ld, dcn_pathset *out)
{
    const hcn_dims *d = hcn_dims_of(t);
    uint32_t src = hcn_server_id(d, ls), dst = hcn_server_id(d, ld);
    uint32_t shared[2] = {dcn_peer(t, src, 0).node, dcn_peer(t, dst, 0).node};
    dcn_path seq, lead;
    dcn_path_clear(&seq);
    out->count = 0;
    if (hcn_bdim(d, ls, ld, &seq) == 0 && hcn_expand(t, &seq, &lead) == 0) {
        uint8_t *avoid = dcn_tmp_calloc(dcn_n_nodes(t), 1);
        dcn_pathset *rest = dcn_tmp_alloc(sizeof *rest);
        int got = -1;
        if (avoid && rest) {
            for (uint32_t i = 1; i + 1 < lead.len; i++)
                avoid[lead.node[i]] = 1;
            avoid[shared[0]] = avoid[shared[1]] = 0;
            got = hcn_disjoint_paths(t, src, dst, shared, 2, d->alpha - 2, NULL, avoid, rest);
        }
        if (got == (int)d->alpha - 2) {
            dcn_pathset_add(out, &lead);
            for (uint32_t i = 0; i < rest->count; i++)
                dcn_pathset_add(out, &rest->path[i]);
        }
        dcn_tmp_free(avoid);
        dcn_tmp_free(rest);
        if (out->count)
            return (int)out->count;
    }
    return hcn_disjoint_paths(t, src, dst, shared, 2, d->alpha - 1, NULL, NULL, out);
}

int hcn_algo_pathset(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    if (check_request(t, src, dst, out) < 0)
        return -1;
    const hcn_dims *d = hcn_dims_of(t);
    hcn_label ls, ld;
    hcn_server_label(d, src, &ls);
    hcn_server_label(d, dst, &ld);
    int n = ls.u == ld.u ? hcn_lemma1_paths(t, &ls, &ld, out) : cross_copy_paths(t, &ls, &ld, out);
    if (n < 0)
        return -1;
    if (ctx && ctx->failures)
        return repair_pathset(t, ctx->failures, src, dst, out);
    return n;
}

int hcn_algo_route(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    if (check_request(t, src, dst, out) < 0)
        return -1;
    const hcn_dims *d = hcn_dims_of(t);
    hcn_label ls, ld;
    hcn_server_label(d, src, &ls);
    hcn_server_label(d, dst, &ld);
    dcn_path seq;
    dcn_path_clear(&seq);
    if (hcn_bdim(d, &ls, &ld, &seq) < 0 || hcn_expand(t, &seq, &out->path[0]) < 0)
        return -1;
    /* Failure-oblivious: a path that crosses a failure is no path ("reroute" repairs). */
    if (ctx && ctx->failures && !dcn_path_valid(&out->path[0], t, ctx->failures, NULL))
        return 0;
    out->count = 1;
    return 1;
}
