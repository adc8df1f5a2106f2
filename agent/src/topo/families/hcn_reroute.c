/* The fault-tolerant routing of HCN and BCN (Guo et al., IEEE TC 2013,
 * Sec. 4.4-4.5): BdimRouting followed hop by hop and repaired at each failure
 * point by local reroute (Eq. 6) or remote reroute, with a BFS fallback for
 * what the paper does not cover. See docs/topologies/hcn-bcn.md. */
#include <stdlib.h>
#include <string.h>

#include "bfs.h"
#include "hcn_route.h"
#include "scratch.h"

#define REROUTE_MAX_REPAIRS 64

typedef enum { STEP_OK, STEP_SWITCH, STEP_NEXT, STEP_CABLE, STEP_BROKEN } step_kind;

/* Why the packet at a cannot reach b: its own switch (or its cable to it) is
 * down, the next server (or that server's switch cable) is down, or the
 * port-1 cable or the server behind it is down. */
static step_kind step_check(const dcn_topo *t, const dcn_failures *f, uint32_t a, uint32_t b)
{
    if (dcn_peer(t, a, 1).node == b)
        return dcn_step_ok(f, t, a, b) ? STEP_OK : STEP_CABLE;
    uint32_t w = dcn_peer(t, a, 0).node;
    if (w == DCN_NONE || dcn_peer(t, b, 0).node != w)
        return STEP_BROKEN;
    if (!dcn_step_ok(f, t, a, w))
        return STEP_SWITCH;
    if (!dcn_step_ok(f, t, w, b))
        return STEP_NEXT;
    return STEP_OK;
}

static int first_failure(const dcn_topo *t, const dcn_failures *f, const dcn_path *seq, uint32_t from,
                         uint32_t to)
{
    for (uint32_t k = from; k + 1 <= to && k + 1 < seq->len; k++)
        if (step_check(t, f, seq->node[k], seq->node[k + 1]) != STEP_OK)
            return (int)k;
    return -1;
}

static uint32_t copy_of(const hcn_dims *d, uint32_t id) { return id / d->per_copy; }

/* seq[0..k] followed by the rest. */
static void keep_prefix(dcn_path *out, const dcn_path *seq, uint32_t k)
{
    out->len = k + 1;
    memcpy(out->node, seq->node, out->len * sizeof seq->node[0]);
}

static int append_tail(dcn_path *out, const dcn_path *seq, uint32_t from)
{
    for (uint32_t i = from; i < seq->len; i++)
        if (dcn_path_push(out, seq->node[i]) < 0)
            return -1;
    return 0;
}

/* Local reroute (Eq. 6): the cable x-y (level j) is unusable from seq[k].
 * Detour through relay z = y with digit j replaced by c, c not in {x_j, y_j},
 * then on to the next waypoint (where the path leaves this copy, or dst).
 * Returns 0 with seq replaced, -1 when no relay exists. */
static int local_reroute(const dcn_topo *t, const dcn_failures *f, dcn_path *seq, uint32_t k, uint32_t x,
                         uint32_t y)
{
    const hcn_dims *d = hcn_dims_of(t);
    uint32_t wi = k + 1;
    while (wi + 1 < seq->len && copy_of(d, seq->node[wi + 1]) == copy_of(d, seq->node[wi]))
        wi++;
    hcn_label la, lx, ly, lw;
    hcn_server_label(d, seq->node[k], &la);
    hcn_server_label(d, x, &lx);
    hcn_server_label(d, y, &ly);
    hcn_server_label(d, seq->node[wi], &lw);
    uint32_t j = d->h - hcn_common_prefix(d, &lx, &ly);
    if (j == 0 || lx.u != ly.u)
        return -1;
    dcn_path cand, first;
    int have_first = 0;
    for (uint8_t c = 1; c <= d->alpha; c++) {
        if (c == lx.x[j] || c == ly.x[j])
            continue;
        hcn_label z = ly;
        z.x[j] = c;
        keep_prefix(&cand, seq, k);
        if (hcn_fdim(d, &la, &z, &cand) < 0)
            continue;
        uint32_t zi = cand.len - 1;
        if (hcn_fdim(d, &z, &lw, &cand) < 0 || append_tail(&cand, seq, wi + 1) < 0)
            continue;
        if (first_failure(t, f, &cand, k, zi) < 0) {
            *seq = cand; /* the first relay whose detour to z is clean */
            dcn_path_erase_loops(seq);
            return 0;
        }
        if (!have_first) {
            first = cand;
            have_first = 1;
        }
    }
    if (!have_first)
        return -1;
    *seq = first; /* every detour hits a failure: take the first, repair again there */
    dcn_path_erase_loops(seq);
    return 0;
}

/* Remote reroute (Sec. 4.5): the slave cable dst1-src1 (or dst1, or src1) is
 * unusable; seq[k] is dst1 or a server on dst1's switch. Cross over another
 * slave dst2 of dst1's switch to its partner src2, then BdimRouting(src2, dst). */
static int remote_reroute(const dcn_topo *t, const dcn_failures *f, dcn_path *seq, uint32_t k, uint32_t dst1)
{
    const hcn_dims *d = hcn_dims_of(t);
    uint32_t r = seq->node[k];
    hcn_label l1, ldst;
    hcn_server_label(d, dst1, &l1);
    hcn_server_label(d, seq->node[seq->len - 1], &ldst);
    for (uint32_t x0 = d->alpha + 1; x0 <= d->n; x0++) {
        if (x0 == l1.x[0])
            continue;
        hcn_label l2 = l1, ls2;
        l2.x[0] = (uint8_t)x0;
        if (!hcn_slave_partner(d, &l2, &ls2))
            continue;
        uint32_t dst2 = hcn_server_id(d, &l2), src2 = hcn_server_id(d, &ls2);
        if ((r != dst2 && step_check(t, f, r, dst2) != STEP_OK) || step_check(t, f, dst2, src2) != STEP_OK)
            continue;
        dcn_path cand;
        keep_prefix(&cand, seq, k);
        if ((r != dst2 && dcn_path_push(&cand, dst2) < 0) || dcn_path_push(&cand, src2) < 0 ||
            hcn_bdim(d, &ls2, &ldst, &cand) < 0)
            continue;
        *seq = cand;
        dcn_path_erase_loops(seq);
        return 0;
    }
    return -1;
}

/* What the paper does not cover: keep seq[0..k], then a BFS shortest path
 * from seq[k] over the surviving graph, avoiding the servers already used.
 * Falls back to a BFS from the source. Returns 1 (out filled) or 0. */
static int bfs_fallback(const dcn_topo *t, const dcn_failures *f, const dcn_path *seq, uint32_t k, uint32_t src,
                        uint32_t dst, dcn_path *out)
{
    uint8_t *avoid = dcn_tmp_calloc(dcn_n_nodes(t), 1);
    dcn_path prefix_seq, tail;
    if (avoid && k < seq->len && seq->node[0] == src) {
        keep_prefix(&prefix_seq, seq, k);
        for (uint32_t i = 0; i < k; i++)
            avoid[seq->node[i]] = 1;
        if (hcn_expand(t, &prefix_seq, out) == 0 &&
            dcn_bfs_path(t, seq->node[k], dst, f, avoid, &tail) == 0 && dcn_path_append(out, &tail) == 0) {
            dcn_path_erase_loops(out);
            if (dcn_path_valid(out, t, f, NULL)) {
                dcn_tmp_free(avoid);
                return 1;
            }
        }
    }
    dcn_tmp_free(avoid);
    return dcn_bfs_path(t, src, dst, f, NULL, out) == 0 ? 1 : 0;
}

int hcn_reroute(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_failures *f, dcn_path *out,
                dcn_path *trace)
{
    const hcn_dims *d = hcn_dims_of(t);
    dcn_path scratch;
    if (!trace)
        trace = &scratch;
    trace->len = 0;
    if (!dcn_node_ok(f, src) || !dcn_node_ok(f, dst))
        return 0;
    hcn_label ls, ld;
    hcn_server_label(d, src, &ls);
    hcn_server_label(d, dst, &ld);
    dcn_path seq;
    dcn_path_clear(&seq);
    if (hcn_bdim(d, &ls, &ld, &seq) < 0)
        return bfs_fallback(t, f, &seq, 0, src, dst, out);
    for (int repair = 0; repair < REROUTE_MAX_REPAIRS; repair++) {
        int fk = first_failure(t, f, &seq, 0, seq.len);
        if (fk < 0) {
            if (hcn_expand(t, &seq, out) < 0)
                break;
            dcn_path_erase_loops(out);
            *trace = seq;
            return 1;
        }
        uint32_t k = (uint32_t)fk, a = seq.node[k], b = seq.node[k + 1];
        int rc = -1;
        switch (step_check(t, f, a, b)) {
        case STEP_CABLE:
            if (copy_of(d, a) != copy_of(d, b))
                rc = remote_reroute(t, f, &seq, k, a);
            else
                rc = local_reroute(t, f, &seq, k, a, b);
            break;
        case STEP_NEXT:
            if (b == dst || k + 2 >= seq.len || dcn_peer(t, b, 1).node != seq.node[k + 2])
                break; /* the destination itself is cut off from its switch */
            if (copy_of(d, b) != copy_of(d, seq.node[k + 2]))
                rc = remote_reroute(t, f, &seq, k, b);
            else
                rc = local_reroute(t, f, &seq, k, b, seq.node[k + 2]);
            break;
        default: /* a failed switch or a server's switch cable: not in the paper */
            break;
        }
        if (rc < 0)
            return bfs_fallback(t, f, &seq, k, src, dst, out);
    }
    return bfs_fallback(t, f, &seq, 0, src, dst, out);
}

/* The dcn_algo "reroute" of the hcn and bcn families (hcn_route.h). */
int hcn_algo_reroute(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    out->count = 0;
    if (src >= t->n_servers || dst >= t->n_servers || src == dst)
        return -1;
    int n = hcn_reroute(t, src, dst, ctx ? ctx->failures : NULL, &out->path[0], NULL);
    out->count = (uint32_t)n;
    return n;
}
