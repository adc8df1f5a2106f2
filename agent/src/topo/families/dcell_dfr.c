#include "dcell_dfr.h"

#include <string.h>

#include "dcell_shape.h"

#define DFR_PROXY_TRIES 4
#define DFR_MAX_REROUTES 16
#define DFR_B_MAX (48 * 49) /* servers of a DCell_1 with n = 48 */

typedef struct dfr {
    const dcn_topo *t;
    const dcell_shape *s;
    const dcn_failures *f;
    dcn_rng *rng;
    int reroutes;
} dfr;

static bool server_up(const dfr *d, uint32_t u) { return u < d->s->n_present && dcn_node_ok(d->f, u); }

/* The cable on port p of node v is up (O(1): DCell's fixed port layout). */
static bool port_up(const dfr *d, uint32_t v, uint16_t p)
{
    return !d->f || !d->f->port_down[d->t->port_base[v] + p];
}

/* Server u (up) reaches its DCell_0 switch, and the switch reaches w (up). */
static bool via_switch_ok(const dfr *d, uint32_t u, uint32_t w)
{
    uint32_t sw = dcn_switch_node(d->t, u / d->s->n);
    return dcn_node_ok(d->f, sw) && port_up(d, u, 0) && port_up(d, sw, (uint16_t)(w % d->s->n));
}

/* Server u (up) reaches w (up) over its level-l cable. */
static bool level_link_ok(const dfr *d, uint32_t u, uint32_t l, uint32_t w)
{
    return dcn_peer(d->t, u, (uint16_t)l).node == w && port_up(d, u, (uint16_t)l);
}

/* Live shortest path inside the DCell_b holding src (b = min(1, k)), by BFS
 * over server hops; appended to out (src first). */
static int link_state_path(dfr *d, uint32_t src, uint32_t dst, dcn_path *out)
{
    const dcell_shape *s = d->s;
    uint32_t b = s->k ? 1 : 0, size = s->t[b], base = src - src % size;
    if (size > DFR_B_MAX)
        return -1;
    uint32_t parent[DFR_B_MAX], queue[DFR_B_MAX], head = 0, tail = 0;
    for (uint32_t i = 0; i < size; i++)
        parent[i] = DCN_NONE;
    parent[src - base] = src;
    queue[tail++] = src;
    while (head < tail && parent[dst - base] == DCN_NONE) {
        uint32_t u = queue[head++];
        /* Through the DCell_0 switch: the other servers of u's DCell_0. */
        uint32_t sw = dcn_switch_node(d->t, u / s->n);
        if (dcn_node_ok(d->f, sw) && port_up(d, u, 0))
            for (uint32_t w = u - u % s->n; w < u - u % s->n + s->n; w++)
                if (w != u && parent[w - base] == DCN_NONE && server_up(d, w) &&
                    port_up(d, sw, (uint16_t)(w % s->n))) {
                    parent[w - base] = u;
                    queue[tail++] = w;
                }
        if (b == 1) { /* the level-1 link, when it stays inside this DCell_1 */
            dcn_end e = dcn_peer(d->t, u, 1);
            if (e.node != DCN_NONE && e.node >= base && e.node < base + size && parent[e.node - base] == DCN_NONE &&
                server_up(d, e.node) && port_up(d, u, 1)) {
                parent[e.node - base] = u;
                queue[tail++] = e.node;
            }
        }
    }
    if (parent[dst - base] == DCN_NONE)
        return -1;
    uint32_t seq[DFR_B_MAX], len = 0;
    for (uint32_t v = dst;; v = parent[v - base]) {
        seq[len++] = v;
        if (v == src)
            break;
    }
    while (len)
        if (dcn_path_push(out, seq[--len]) < 0)
            return -1;
    return 0;
}

/* Server u to server w, both up: through their DCell_0 switch or over the
 * cable between them. */
static bool server_step_ok(const dfr *d, uint32_t u, uint32_t w)
{
    if (!server_up(d, u) || !server_up(d, w))
        return false;
    if (u / d->s->n == w / d->s->n)
        return via_switch_ok(d, u, w);
    return dcn_step_ok(d->f, d->t, u, w);
}

/* Inside one DCell_b: DCellRouting's segment when it is alive (so DFR
 * without failures is DCellRouting), else the link-state shortest path. */
static int inner_path(dfr *d, uint32_t src, uint32_t dst, dcn_path *out)
{
    uint32_t mark = out->len;
    uint32_t b = d->s->k ? 1 : 0;
    if (dcell_route_servers(d->s, src, dst, b, out) == 0) {
        bool ok = true;
        for (uint32_t i = mark; ok && i + 1 < out->len; i++)
            ok = server_step_ok(d, out->node[i], out->node[i + 1]);
        if (ok)
            return 0;
    }
    out->len = mark;
    return link_state_path(d, src, dst, out);
}

/* Appends the server sequence src..dst to out; on failure restores out. */
static int dfr_servers(dfr *d, uint32_t src, uint32_t dst, dcn_path *out)
{
    const dcell_shape *s = d->s;
    uint32_t mark = out->len;
    if (out->len && out->node[out->len - 1] == src)
        out->len--; /* src is pushed again below */
    uint32_t b = s->k ? 1 : 0;
    if (src / s->t[b] == dst / s->t[b]) {
        if (inner_path(d, src, dst, out) == 0)
            return 0;
        out->len = mark;
        return -1;
    }
    uint32_t l = s->k;
    while (src / s->t[l - 1] == dst / s->t[l - 1])
        l--;
    uint32_t sub = s->t[l - 1], base = src - src % s->t[l];
    uint32_t a = (src % s->t[l]) / sub, c = (dst % s->t[l]) / sub;
    uint32_t n1 = base + a * sub + (a < c ? c - 1 : c), n2 = base + c * sub + (a < c ? a : a - 1);
    if (server_up(d, n1) && server_up(d, n2) && level_link_ok(d, n1, l, n2)) {
        if (dfr_servers(d, src, n1, out) == 0 && dfr_servers(d, n2, dst, out) == 0)
            return 0;
        out->len = mark;
    }
    /* Local reroute through a proxy sub-DCell_(l-1) m != a, c. */
    uint32_t g = (s->n_present - base + sub - 1) / sub; /* sub-DCells present */
    if (g > sub + 1)
        g = sub + 1;
    uint32_t lo = a < c ? a : c, hi = a < c ? c : a;
    for (int tries = 0; tries < DFR_PROXY_TRIES && g > 2 && d->reroutes < DFR_MAX_REROUTES; tries++) {
        d->reroutes++;
        uint32_t m = dcn_rng_below(d->rng, g - 2); /* uniform over the others */
        if (m >= lo)
            m++;
        if (m >= hi)
            m++;
        uint32_t p1 = base + a * sub + (a < m ? m - 1 : m), p2 = base + m * sub + (a < m ? a : a - 1);
        if (!server_up(d, p1) || !server_up(d, p2) || !level_link_ok(d, p1, l, p2))
            continue;
        if (dfr_servers(d, src, p1, out) == 0 && dfr_servers(d, p2, dst, out) == 0)
            return 0;
        out->len = mark;
    }
    out->len = mark;
    return -1;
}

int dcell_algo_dfr(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    out->count = 0;
    if (src >= t->n_servers || dst >= t->n_servers || src == dst || !ctx || !ctx->rng)
        return -1;
    dcell_shape s = dcell_shape_of(t);
    dfr d = {t, &s, ctx->failures, ctx->rng, 0};
    if (!dcn_node_ok(d.f, src) || !dcn_node_ok(d.f, dst))
        return 0;
    dcn_path *seq = &out->path[1], *p = &out->path[0];
    dcn_path_clear(seq);
    if (dfr_servers(&d, src, dst, seq) < 0)
        return 0;
    dcn_path_erase_loops(seq);
    /* Servers of one DCell_0 meet at its switch; others share a cable. */
    dcn_path_clear(p);
    for (uint32_t i = 0; i < seq->len; i++) {
        if (i && seq->node[i - 1] / s.n == seq->node[i] / s.n &&
            dcn_path_push(p, dcn_switch_node(t, seq->node[i] / s.n)) < 0)
            return 0;
        if (dcn_path_push(p, seq->node[i]) < 0)
            return 0;
    }
    if (d.f && !dcn_path_valid(p, t, d.f, NULL))
        return 0;
    out->count = 1;
    return 1;
}
