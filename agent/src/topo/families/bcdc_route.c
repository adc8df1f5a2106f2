#include "bcdc_route.h"

#include <string.h>

bool bcdc_in_region(const bcdc_state *st, uint32_t sid, bcdc_region r)
{
    if (sid >= st->n_servers || (bcdc_s0(st, sid) >> r.d) != r.p)
        return false;
    unsigned dim = bcdc_dim(st, sid);
    return r.slab ? dim + 1u == r.d : dim < r.d;
}

static bool adjacent(const bcdc_state *st, uint32_t a, uint32_t b)
{
    uint32_t a0 = bcdc_s0(st, a), a1 = bcdc_s1(st, a), b0 = bcdc_s0(st, b), b1 = bcdc_s1(st, b);
    return a != b && (a0 == b0 || a0 == b1 || a1 == b0 || a1 == b1);
}

/* The switch address two adjacent servers share. */
static uint32_t shared_switch(const bcdc_state *st, uint32_t a, uint32_t b)
{
    uint32_t a0 = bcdc_s0(st, a), b0 = bcdc_s0(st, b), b1 = bcdc_s1(st, b);
    return (a0 == b0 || a0 == b1) ? a0 : bcdc_s1(st, a);
}

/* Appends v, first cutting the loop if v is already on the path. */
static int push_loop_free(dcn_path *p, uint32_t v)
{
    for (uint32_t i = 0; i < p->len; i++)
        if (p->node[i] == v) {
            p->len = i + 1;
            return 0;
        }
    return dcn_path_push(p, v);
}

int bcdc_expand(const bcdc_state *st, const dcn_path *servers, dcn_path *out)
{
    dcn_path_clear(out);
    for (uint32_t i = 0; i < servers->len; i++) {
        if (i > 0) {
            if (!adjacent(st, servers->node[i - 1], servers->node[i]))
                return -1;
            if (push_loop_free(out, st->n_servers + shared_switch(st, servers->node[i - 1], servers->node[i])) < 0)
                return -1;
        }
        if (push_loop_free(out, servers->node[i]) < 0)
            return -1;
    }
    return 0;
}

int bcdc_brouting(const bcdc_state *st, bcdc_region x, uint32_t u, uint32_t v, dcn_path *out)
{
    dcn_path_clear(out);
    uint32_t ue[2] = {bcdc_s0(st, u), bcdc_s1(st, u)}, ve[2] = {bcdc_s0(st, v), bcdc_s1(st, v)};
    unsigned best = UINT32_MAX, bi = 0, bj = 0;
    for (unsigned i = 0; i < 2; i++)
        for (unsigned j = 0; j < 2; j++) {
            unsigned dd = cq_distance(&st->cd, x.d, ue[i], ve[j]);
            if (dd < best) {
                best = dd;
                bi = i;
                bj = j;
            }
        }
    uint32_t sw[CQ_MAX_DIM + 2];
    unsigned ns = cq_shortest_path(&st->cd, x.d, ue[bi], ve[bj], sw, CQ_MAX_DIM + 2);
    dcn_path_push(out, u);
    for (unsigned i = 0; i + 1 < ns; i++) {
        unsigned dim = 31u - (unsigned)__builtin_clz(sw[i] ^ sw[i + 1]);
        if (dcn_path_push(out, bcdc_edge_server(st, sw[i], dim)) < 0)
            return -1;
    }
    if (dcn_path_push(out, v) < 0)
        return -1;
    return (int)out->len;
}

/* ---- BFRouting ------------------------------------------------------- */

static uint32_t count_faults(const bcdc_fault_ctx *fc, bcdc_region r)
{
    uint32_t c = 0;
    for (uint32_t i = 0; i < fc->n_faults; i++)
        c += bcdc_in_region(fc->st, fc->faults[i], r);
    return c;
}

/* Neighbours of server s inside region g, in a fixed order (switch s0's
 * ports, then s1's). */
static unsigned neighbours(const bcdc_state *st, uint32_t s, bcdc_region g, uint32_t *out)
{
    unsigned c = 0;
    uint32_t ends[2] = {bcdc_s0(st, s), bcdc_s1(st, s)};
    for (unsigned e = 0; e < 2; e++)
        for (unsigned k = 0; k < st->n; k++) {
            uint32_t y = bcdc_edge_server(st, ends[e], k);
            if (y != s && bcdc_in_region(st, y, g))
                out[c++] = y;
        }
    return c;
}

/* BFS on the servers of region x minus the faults. */
static int bfs_region(bcdc_fault_ctx *fc, bcdc_region x, uint32_t u, uint32_t v, dcn_path *out)
{
    const bcdc_state *st = fc->st;
    uint32_t *parent = fc->bfs_parent, *queue = fc->bfs_queue;
    uint32_t head = 0, tail = 0, nb[2 * CQ_MAX_DIM];
    int rc = -1;
    dcn_path_clear(out);
    parent[u] = u;
    queue[tail++] = u;
    while (head < tail && parent[v] == UINT32_MAX) {
        uint32_t s = queue[head++];
        unsigned c = neighbours(st, s, x, nb);
        for (unsigned i = 0; i < c; i++) {
            uint32_t y = nb[i];
            if (parent[y] != UINT32_MAX || fc->failed[y])
                continue;
            parent[y] = s;
            queue[tail++] = y;
        }
    }
    if (parent[v] != UINT32_MAX) {
        for (uint32_t s = v;; s = parent[s]) {
            if (dcn_path_push(out, s) < 0)
                goto reset;
            if (s == u)
                break;
        }
        dcn_path_reverse(out);
        rc = 0;
    }
reset:
    for (uint32_t i = 0; i < tail; i++)
        parent[queue[i]] = UINT32_MAX;
    return rc;
}

static int bfr(bcdc_fault_ctx *fc, bcdc_region x, uint32_t u, uint32_t v, dcn_path *out);

/* BMapping1: u followed by its first fault-free neighbour in g. */
static int bmapping1(bcdc_fault_ctx *fc, uint32_t u, bcdc_region g, dcn_path *out)
{
    uint32_t nb[2 * CQ_MAX_DIM];
    unsigned c = neighbours(fc->st, u, g, nb);
    for (unsigned i = 0; i < c; i++)
        if (!fc->failed[nb[i]]) {
            dcn_path_clear(out);
            dcn_path_push(out, u);
            dcn_path_push(out, nb[i]);
            return 0;
        }
    return -1;
}

/* BMapping2: from u in half h through the middle layer s into half g, in
 * 2 hops (u, s, g) or 3 (u, h, s, g). */
static int bmapping2(bcdc_fault_ctx *fc, uint32_t u, bcdc_region h, bcdc_region s, bcdc_region g, dcn_path *out)
{
    uint32_t ns[2 * CQ_MAX_DIM], nh[2 * CQ_MAX_DIM];
    dcn_path tail;
    unsigned cs = neighbours(fc->st, u, s, ns);
    for (unsigned i = 0; i < cs; i++)
        if (!fc->failed[ns[i]] && bmapping1(fc, ns[i], g, &tail) == 0) {
            dcn_path_clear(out);
            dcn_path_push(out, u);
            return dcn_path_append(out, &tail);
        }
    unsigned ch = neighbours(fc->st, u, h, nh);
    for (unsigned i = 0; i < ch; i++) {
        if (fc->failed[nh[i]])
            continue;
        cs = neighbours(fc->st, nh[i], s, ns);
        for (unsigned j = 0; j < cs; j++)
            if (!fc->failed[ns[j]] && bmapping1(fc, ns[j], g, &tail) == 0) {
                dcn_path_clear(out);
                dcn_path_push(out, u);
                dcn_path_push(out, nh[i]);
                return dcn_path_append(out, &tail);
            }
    }
    return -1;
}

static int index_of(const dcn_path *p, uint32_t s)
{
    for (uint32_t i = 0; i < p->len; i++)
        if (p->node[i] == s)
            return (int)i;
    return -1;
}

/* out = p[0..i] */
static void prefix(const dcn_path *p, uint32_t i, dcn_path *out)
{
    out->len = i + 1;
    memcpy(out->node, p->node, out->len * sizeof out->node[0]);
}

/* Appends reverse(q) from position j of q down to q[0]. */
static int append_reverse_from(dcn_path *out, const dcn_path *q, int j)
{
    for (int i = j; i >= 0; i--) {
        if (out->len && out->node[out->len - 1] == q->node[i])
            continue;
        if (dcn_path_push(out, q->node[i]) < 0)
            return -1;
    }
    return 0;
}

/* BBinding1: p leaves u into g, q leaves v into g. */
static int bbinding1(bcdc_fault_ctx *fc, bcdc_region g, const dcn_path *p, const dcn_path *q, dcn_path *out)
{
    for (uint32_t i = 0; i < p->len; i++) {
        int j = index_of(q, p->node[i]);
        if (j >= 0) {
            prefix(p, i, out);
            return append_reverse_from(out, q, j);
        }
    }
    dcn_path mid;
    if (bfr(fc, g, p->node[p->len - 1], q->node[q->len - 1], &mid) < 0)
        return -1;
    *out = *p;
    if (dcn_path_append(out, &mid) < 0)
        return -1;
    return append_reverse_from(out, q, (int)q->len - 1);
}

/* BBinding2: u in g, q leaves v into g. */
static int bbinding2(bcdc_fault_ctx *fc, bcdc_region g, uint32_t u, const dcn_path *q, dcn_path *out)
{
    int j = index_of(q, u);
    dcn_path_clear(out);
    if (j >= 0)
        return append_reverse_from(out, q, j);
    if (bfr(fc, g, u, q->node[q->len - 1], out) < 0)
        return -1;
    return append_reverse_from(out, q, (int)q->len - 1);
}

/* BBinding3: p leaves u into g, v in g. */
static int bbinding3(bcdc_fault_ctx *fc, bcdc_region g, const dcn_path *p, uint32_t v, dcn_path *out)
{
    int i = index_of(p, v);
    if (i >= 0) {
        prefix(p, (uint32_t)i, out);
        return 0;
    }
    dcn_path mid;
    if (bfr(fc, g, p->node[p->len - 1], v, &mid) < 0)
        return -1;
    *out = *p;
    return dcn_path_append(out, &mid);
}

enum { IN_X0 = 0, IN_X1 = 1, IN_S = 2 };

static int where(const bcdc_state *st, uint32_t s, bcdc_region x)
{
    if (bcdc_dim(st, s) + 1u == x.d)
        return IN_S;
    return (int)((bcdc_s0(st, s) >> (x.d - 1u)) & 1u);
}

static int bfr(bcdc_fault_ctx *fc, bcdc_region x, uint32_t u, uint32_t v, dcn_path *out)
{
    const bcdc_state *st = fc->st;
    if (adjacent(st, u, v)) {
        dcn_path_clear(out);
        dcn_path_push(out, u);
        return dcn_path_push(out, v);
    }
    if (x.d == 2)
        return bfs_region(fc, x, u, v, out);
    uint32_t f = count_faults(fc, x);
    if (f == 0)
        return bcdc_brouting(st, x, u, v, out) < 0 ? -1 : 0;
    if (f >= 2u * x.d - 2u)
        return bfs_region(fc, x, u, v, out);
    bcdc_region half[2] = {{x.d - 1u, 2u * x.p, false}, {x.d - 1u, 2u * x.p + 1u, false}};
    bcdc_region mid = {x.d, x.p, true};
    uint32_t f0 = count_faults(fc, half[0]), f1 = count_faults(fc, half[1]);
    int wu = where(st, u, x), wv = where(st, v, x), c;
    if (f0 != f1)
        c = f0 < f1 ? 0 : 1;
    else
        c = wv != IN_S ? wv : wu != IN_S ? wu : 0;
    bcdc_region g = half[c], h = half[1 - c];
    /* Position of each end: 'c' in the chosen half, 'o' in the other, 's' in S. */
    char pu = wu == IN_S ? 's' : wu == c ? 'c' : 'o';
    char pv = wv == IN_S ? 's' : wv == c ? 'c' : 'o';
    dcn_path p, q;
    if (pu == 'c' && pv == 'c')
        return bfr(fc, g, u, v, out);
    if (pu == 'c') { /* v in the other half or in S */
        if ((pv == 'o' ? bmapping2(fc, v, h, mid, g, &q) : bmapping1(fc, v, g, &q)) < 0)
            return -1;
        return bbinding2(fc, g, u, &q, out);
    }
    if (pu == 'o') {
        if (bmapping2(fc, u, h, mid, g, &p) < 0)
            return -1;
    } else if (bmapping1(fc, u, g, &p) < 0) {
        return -1;
    }
    if (pv == 'c')
        return bbinding3(fc, g, &p, v, out);
    if ((pv == 'o' ? bmapping2(fc, v, h, mid, g, &q) : bmapping1(fc, v, g, &q)) < 0)
        return -1;
    return bbinding1(fc, g, &p, &q, out);
}

/* A server path that is simple, hop-by-hop adjacent and fault-free. */
static bool sound(const bcdc_fault_ctx *fc, const dcn_path *p, uint32_t u, uint32_t v)
{
    if (p->len < 2 || p->node[0] != u || p->node[p->len - 1] != v)
        return false;
    for (uint32_t i = 0; i < p->len; i++) {
        if (fc->failed[p->node[i]] || (i && !adjacent(fc->st, p->node[i - 1], p->node[i])))
            return false;
        for (uint32_t j = 0; j < i; j++)
            if (p->node[j] == p->node[i])
                return false;
    }
    return true;
}

bcdc_fr_status bcdc_bfrouting(bcdc_fault_ctx *fc, uint32_t u, uint32_t v, dcn_path *out)
{
    const bcdc_state *st = fc->st;
    bcdc_region all = {st->n, 0, false};
    dcn_path_clear(out);
    if (u == v || u >= st->n_servers || v >= st->n_servers || fc->failed[u] || fc->failed[v])
        return BCDC_FR_NONE;
    if (fc->n_faults >= 2u * st->n - 2u)
        return bfs_region(fc, all, u, v, out) == 0 ? BCDC_FR_BFS : BCDC_FR_NONE;
    if (bfr(fc, all, u, v, out) == 0 && sound(fc, out, u, v))
        return BCDC_FR_ALGORITHM;
    return bfs_region(fc, all, u, v, out) == 0 ? BCDC_FR_FALLBACK : BCDC_FR_NONE;
}
