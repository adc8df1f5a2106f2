#include "mdcube_segment.h"
#include "scratch.h"

#include <stdlib.h>

#include "bcube_switch_route.h"

static uint32_t server_node(const md_builder *b, uint32_t c, uint32_t bsid) { return md_server_node(b->g, c, bsid); }
static uint32_t switch_node(const md_builder *b, uint32_t c, uint32_t bwid)
{
    return md_switch_node(b->g, b->t->n_servers, c, bwid);
}

/* Appends v after checking it is up, new on the path and reached from the
 * path's last node over a live cable. */
static int push_checked(md_builder *b, uint32_t v)
{
    dcn_path *p = b->p;
    if (!dcn_node_ok(b->f, v) || dcn_path_contains(p, v))
        return -1;
    if (p->len && !dcn_step_ok(b->f, b->t, p->node[p->len - 1], v))
        return -1;
    return dcn_path_push(p, v);
}

static uint32_t differing_digit(const bc_dims *d, uint32_t x, uint32_t y)
{
    for (uint32_t i = 0; i <= d->k; i++)
        if (bc_digit(d, x, i) != bc_digit(d, y, i))
            return i;
    return 0;
}

int md_append_seq(md_builder *b, uint32_t c, const uint32_t *seq, uint32_t len, int skip_first, uint32_t last_switch)
{
    const bc_dims *d = &b->g->bc;
    uint32_t saved = b->p->len;
    for (uint32_t i = 0; i < len; i++) {
        if (i > 0) {
            uint32_t sw = bc_switch_of(d, seq[i - 1], differing_digit(d, seq[i - 1], seq[i]));
            if (push_checked(b, switch_node(b, c, sw)) < 0)
                goto undo;
        }
        if ((i > 0 || !skip_first) && push_checked(b, server_node(b, c, seq[i])) < 0)
            goto undo;
    }
    if (last_switch != DCN_NONE && push_checked(b, switch_node(b, c, last_switch)) < 0)
        goto undo;
    return 0;
undo:
    b->p->len = saved;
    return -1;
}

static void descending(const bc_dims *d, uint32_t *perm)
{
    for (uint32_t i = 0; i <= d->k; i++)
        perm[i] = d->k - i;
}

/* Local index inside container c: servers 0..t-1, then switches t..t+g-1. */
static uint32_t local_index(const md_builder *b, uint32_t v)
{
    return v < b->t->n_servers ? md_node_local(b, v) : b->g->t + md_node_local(b, v);
}
static uint32_t global_node(const md_builder *b, uint32_t c, uint32_t local)
{
    return local < b->g->t ? server_node(b, c, local) : switch_node(b, c, local - b->g->t);
}

/* The last resort: the shortest live path from the path's last node to
 * `to` that stays in container c and avoids the nodes already on the path. */
static int container_bfs(md_builder *b, uint32_t c, uint32_t to)
{
    const dcn_topo *t = b->t;
    uint32_t size = b->g->t + b->g->g;
    uint32_t from = b->p->node[b->p->len - 1];
    uint32_t *parent = dcn_tmp_alloc(size * sizeof *parent), *queue = dcn_tmp_alloc(size * sizeof *queue);
    int rc = -1;
    if (!parent || !queue || !dcn_node_ok(b->f, to))
        goto done;
    for (uint32_t i = 0; i < size; i++)
        parent[i] = DCN_NONE;
    for (uint32_t i = 0; i + 1 < b->p->len; i++)
        if (md_node_container(b, b->p->node[i]) == c)
            parent[local_index(b, b->p->node[i])] = UINT32_MAX - 1; /* blocked */
    uint32_t src = local_index(b, from), dst = local_index(b, to), head = 0, tail = 0;
    parent[src] = src;
    queue[tail++] = src;
    while (head < tail && parent[dst] == DCN_NONE) {
        uint32_t u = queue[head++], un = global_node(b, c, u);
        uint16_t np = dcn_nports(t, un);
        for (uint16_t port = 0; port < np; port++) {
            uint32_t w = dcn_peer(t, un, port).node;
            if (w == DCN_NONE || md_node_container(b, w) != c || !dcn_hop_ok(b->f, t, un, port))
                continue;
            uint32_t wl = local_index(b, w);
            if (parent[wl] != DCN_NONE)
                continue;
            parent[wl] = u;
            queue[tail++] = wl;
        }
    }
    if (parent[dst] == DCN_NONE || parent[dst] == UINT32_MAX - 1)
        goto done;
    uint32_t n = 0;
    for (uint32_t v = dst; v != src; v = parent[v])
        queue[n++] = v; /* reuse: the path backwards */
    uint32_t saved = b->p->len;
    for (uint32_t i = n; i-- > 0;)
        if (push_checked(b, global_node(b, c, queue[i])) < 0) {
            b->p->len = saved;
            goto done;
        }
    rc = 0;
done:
    dcn_tmp_free(parent);
    dcn_tmp_free(queue);
    return rc;
}

static int last_is_server(const md_builder *b) { return b->p->node[b->p->len - 1] < b->t->n_servers; }

int md_seg_to_server(md_builder *b, uint32_t c, uint32_t bsid)
{
    const bc_dims *d = &b->g->bc;
    uint32_t here = md_node_local(b, b->p->node[b->p->len - 1]);
    uint32_t seq[BC_SW_SEQ_MAX], perm[BC_MAX_LEVELS], len;
    descending(d, perm);
    if (last_is_server(b)) {
        if (here == bsid)
            return 0;
        len = bc_route(d, here, bsid, perm, seq);
        if (md_append_seq(b, c, seq, len, 1, DCN_NONE) == 0)
            return 0;
        {
            uint32_t seqs[BC_MAX_LEVELS][BC_MAX_LEVELS + 3], lens[BC_MAX_LEVELS];
            bc_build_pathset(d, here, bsid, seqs, lens);
            for (uint32_t i = d->k + 1; i-- > 0;)
                if (md_append_seq(b, c, seqs[i], lens[i], 1, DCN_NONE) == 0)
                    return 0;
        }
    } else {
        uint32_t l = bc_switch_level(d, here), want = bc_digit(d, bsid, l);
        for (uint32_t p = 0; p < d->n; p++) {
            uint32_t entry = bc_switch_server(d, here, (want + p) % d->n);
            len = bc_route(d, entry, bsid, perm, seq);
            if (md_append_seq(b, c, seq, len, 0, DCN_NONE) == 0)
                return 0;
        }
    }
    return container_bfs(b, c, server_node(b, c, bsid));
}

int md_seg_to_switch(md_builder *b, uint32_t c, uint32_t bwid, uint32_t transit)
{
    const bc_dims *d = &b->g->bc;
    uint32_t here = md_node_local(b, b->p->node[b->p->len - 1]);
    uint32_t seq[BC_SW_SEQ_MAX], perm[BC_MAX_LEVELS], len;
    descending(d, perm);
    if (last_is_server(b)) {
        uint32_t want = bc_digit(d, here, bc_switch_level(d, bwid));
        for (uint32_t p = 0; p < d->n; p++) {
            uint32_t exit = bc_switch_server(d, bwid, (want + p) % d->n);
            len = bc_route(d, here, exit, perm, seq);
            if (md_append_seq(b, c, seq, len, 1, bwid) == 0)
                return 0;
        }
    } else {
        if (here == bwid)
            return 0;
        uint32_t base = bc_switch_pair_shortest(d, here, bwid) + transit;
        for (uint32_t p = 0; p < d->n; p++) {
            len = bc_switch_pair_path(d, here, bwid, (base + p) % d->n, seq);
            if (md_append_seq(b, c, seq, len, 0, bwid) == 0)
                return 0;
        }
    }
    return container_bfs(b, c, switch_node(b, c, bwid));
}

int md_seg_fiber(md_builder *b, uint32_t peer) { return push_checked(b, peer); }
