#include "disjoint.h"
#include "scratch.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* The node-split graph is implicit: node v has state IN(v) = 2v and
 * OUT(v) = 2v+1, an internal arc IN->OUT of capacity 1 (node_flow[v]), and for
 * each of its ports p a cable arc OUT(v) -> IN(peer) of capacity 1 and cost 1
 * whose flow is arc_flow[port_base[v] + p]. The residual graph holds:
 *   IN(v)  -> OUT(v)  if node_flow[v] == 0          (cost 0)
 *   OUT(v) -> IN(v)   if node_flow[v] == 1          (cost 0)
 *   OUT(x) -> IN(y)   if flow on x's port to y is 0 (cost +1, live hop only)
 *   IN(y)  -> OUT(x)  if flow on x's port to y is 1 (cost -1)
 * IN(src) and OUT(dst) are never entered, so src only emits and dst only
 * absorbs, and neither is limited to one unit. In shared-switch mode the
 * switches' internal arcs and every cable arc have unlimited capacity, so
 * flow values become counts; only servers stay at capacity 1. */

#define IN(v) (2u * (v))
#define OUT(v) (2u * (v) + 1u)
#define NODE(s) ((s) >> 1)
#define IS_OUT(s) ((s) & 1u)
#define VIA_INTERNAL UINT32_MAX

typedef struct flow_state {
    const dcn_topo *t;
    const dcn_failures *f;
    uint32_t src, dst, n_states;
    bool shared_switches; /* switches and all cables have unlimited capacity */
    uint16_t *node_flow;  /* per node: units through it */
    uint16_t *arc_flow;   /* per port of the graph: units on the arc leaving it */
    int32_t *pot;         /* per state: Johnson potential, keeps reduced costs >= 0 */
    int32_t *dist;        /* per state: reduced distance of this round */
    uint32_t *from;       /* per state: previous state */
    uint32_t *via;        /* per state: arc (global port index of its tail) or VIA_INTERNAL */
    uint8_t *done;        /* per state: settled this round */
    const uint8_t *src_blocked; /* per port of src: not usable by the flow (shared mode), or NULL */
    uint64_t *heap;       /* (dist << 32 | state), lazy deletion */
    uint32_t heap_len, heap_cap;
} flow_state;

static void heap_push(flow_state *fs, uint64_t key)
{
    uint32_t i = fs->heap_len++;
    while (i > 0 && fs->heap[(i - 1) / 2] > key) {
        fs->heap[i] = fs->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    fs->heap[i] = key;
}

static uint64_t heap_pop(flow_state *fs)
{
    uint64_t top = fs->heap[0], last = fs->heap[--fs->heap_len];
    uint32_t i = 0, n = fs->heap_len;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n)
            break;
        if (c + 1 < n && fs->heap[c + 1] < fs->heap[c])
            c++;
        if (fs->heap[c] >= last)
            break;
        fs->heap[i] = fs->heap[c];
        i = c;
    }
    if (n)
        fs->heap[i] = last;
    return top;
}

static void relax(flow_state *fs, uint32_t s, uint32_t next, int32_t cost, uint32_t via)
{
    if (next == IN(fs->src) || next == OUT(fs->dst) || fs->done[next])
        return;
    int32_t reduced = cost + fs->pot[s] - fs->pot[next];
    assert(reduced >= 0); /* the potentials' invariant */
    int32_t d = fs->dist[s] + reduced;
    if (d >= fs->dist[next] || fs->heap_len >= fs->heap_cap)
        return;
    fs->dist[next] = d;
    fs->from[next] = s;
    fs->via[next] = via;
    heap_push(fs, ((uint64_t)(uint32_t)d << 32) | next);
}

/* One cheapest augmenting path from OUT(src) to IN(dst) (Dijkstra on
 * reduced costs, stopped when IN(dst) settles); false if none. Potentials
 * then grow by min(dist, dist(dst)), which keeps every residual reduced cost
 * non-negative for the next round. */
static bool find_augmenting(flow_state *fs)
{
    const dcn_topo *t = fs->t;
    for (uint32_t s = 0; s < fs->n_states; s++) {
        fs->dist[s] = INT32_MAX;
        fs->done[s] = 0;
    }
    fs->heap_len = 0;
    fs->dist[OUT(fs->src)] = 0;
    heap_push(fs, OUT(fs->src));
    while (fs->heap_len) {
        uint64_t key = heap_pop(fs);
        uint32_t s = (uint32_t)key;
        if (fs->done[s] || (int32_t)(key >> 32) != fs->dist[s])
            continue;
        fs->done[s] = 1;
        if (s == IN(fs->dst))
            break;
        uint32_t v = NODE(s);
        uint16_t np = dcn_nports(t, v);
        if (IS_OUT(s)) {
            if (fs->node_flow[v])
                relax(fs, s, IN(v), 0, VIA_INTERNAL);
            for (uint16_t p = 0; p < np; p++) {
                uint32_t a = t->port_base[v] + p;
                if ((fs->arc_flow[a] && !fs->shared_switches) || !dcn_hop_ok(fs->f, t, v, p))
                    continue;
                if (v == fs->src && fs->src_blocked && fs->src_blocked[p])
                    continue;
                relax(fs, s, IN(dcn_peer(t, v, p).node), 1, a);
            }
        } else {
            if ((!fs->node_flow[v] || (fs->shared_switches && dcn_kind(t, v) == DCN_SWITCH)) && v != fs->dst)
                relax(fs, s, OUT(v), 0, VIA_INTERNAL);
            for (uint16_t p = 0; p < np; p++) {
                dcn_end e = dcn_peer(t, v, p);
                if (e.node == DCN_NONE)
                    continue;
                uint32_t a = t->port_base[e.node] + e.port; /* the arc OUT(x) -> IN(v) */
                if (fs->arc_flow[a])
                    relax(fs, s, OUT(e.node), -1, a);
            }
        }
    }
    if (!fs->done[IN(fs->dst)])
        return false;
    int32_t reach = fs->dist[IN(fs->dst)];
    for (uint32_t s = 0; s < fs->n_states; s++)
        fs->pot[s] += fs->dist[s] < reach ? fs->dist[s] : reach;
    return true;
}

static void augment(flow_state *fs)
{
    for (uint32_t s = IN(fs->dst); s != OUT(fs->src); s = fs->from[s]) {
        uint32_t prev = fs->from[s];
        if (fs->via[s] == VIA_INTERNAL) {
            if (IS_OUT(s))
                fs->node_flow[NODE(s)]++;
            else
                fs->node_flow[NODE(s)]--;
        } else if (IS_OUT(prev)) {
            fs->arc_flow[fs->via[s]]++;
        } else {
            fs->arc_flow[fs->via[s]]--;
        }
    }
}

/* Follows one unit of flow from src's port p to dst, consuming it, so
 * units that share a switch are each traced once. Min-cost flow never
 * revisits a node along a unit (a shortcut would be cheaper). -1 if the
 * path does not fit. */
static int trace(flow_state *fs, uint16_t p, dcn_path *out)
{
    const dcn_topo *t = fs->t;
    dcn_path_clear(out);
    dcn_path_push(out, fs->src);
    fs->arc_flow[t->port_base[fs->src] + p]--;
    uint32_t v = dcn_peer(t, fs->src, p).node;
    for (;;) {
        if (dcn_path_push(out, v) < 0)
            return -1;
        if (v == fs->dst)
            return 0;
        uint16_t np = dcn_nports(t, v), q;
        for (q = 0; q < np && !fs->arc_flow[t->port_base[v] + q]; q++)
            ;
        if (q == np)
            return -1; /* cannot happen: flow is conserved */
        fs->arc_flow[t->port_base[v] + q]--;
        v = dcn_peer(t, v, q).node;
    }
}

static int disjoint(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_failures *f, uint32_t max_paths,
                    bool shared_switches, dcn_pathset *out)
{
    out->count = 0;
    uint32_t n = dcn_n_nodes(t);
    if (src >= n || dst >= n || src == dst)
        return -1;
    if (!dcn_node_ok(f, src) || !dcn_node_ok(f, dst) || max_paths == 0)
        return 0;
    if (max_paths > DCN_PATHSET_MAX)
        max_paths = DCN_PATHSET_MAX;
    if (max_paths > dcn_nports(t, src) && !shared_switches)
        max_paths = dcn_nports(t, src);
    flow_state fs = {.t = t, .f = f, .src = src, .dst = dst, .n_states = 2 * n, .shared_switches = shared_switches};
    uint32_t n_ports = t->port_base[n];
    fs.node_flow = dcn_tmp_calloc(n, sizeof *fs.node_flow);
    fs.arc_flow = dcn_tmp_calloc(n_ports ? n_ports : 1, sizeof *fs.arc_flow);
    fs.pot = dcn_tmp_calloc(fs.n_states, sizeof *fs.pot);
    fs.dist = dcn_tmp_alloc(fs.n_states * sizeof *fs.dist);
    fs.from = dcn_tmp_alloc(fs.n_states * sizeof *fs.from);
    fs.via = dcn_tmp_alloc(fs.n_states * sizeof *fs.via);
    fs.done = dcn_tmp_alloc(fs.n_states);
    fs.heap_cap = 2 * fs.n_states + 2 * n_ports + 1; /* one push per relaxation at most */
    fs.heap = dcn_tmp_alloc((size_t)fs.heap_cap * sizeof *fs.heap);
    int rc = -1;
    uint8_t *blocked = NULL;
    if (!fs.node_flow || !fs.arc_flow || !fs.pot || !fs.dist || !fs.from || !fs.via || !fs.done || !fs.heap)
        goto done;
    uint16_t np = dcn_nports(t, src);
    if (shared_switches) {
        /* With unlimited switches, src -> sw -> dst (or a direct src-dst
         * cable) could carry any number of units, all the same path. Each
         * such route is taken once, here, and src's port to it is closed to
         * the flow; the flow's paths leave src through its other ports (they
         * may still enter dst through that switch). */
        blocked = dcn_tmp_calloc(np ? np : 1, 1);
        if (!blocked)
            goto done;
        fs.src_blocked = blocked;
        for (uint16_t p = 0; p < np && out->count < max_paths; p++) {
            uint32_t w = dcn_peer(t, src, p).node;
            if (!dcn_hop_ok(f, t, src, p))
                continue;
            dcn_path *d = &out->path[out->count];
            dcn_path_clear(d);
            dcn_path_push(d, src);
            if (w != dst) {
                if (dcn_kind(t, w) != DCN_SWITCH || !dcn_step_ok(f, t, w, dst))
                    continue;
                dcn_path_push(d, w);
            }
            dcn_path_push(d, dst);
            blocked[p] = 1;
            out->count++;
        }
    }
    uint32_t units = out->count;
    while (units < max_paths && find_augmenting(&fs)) {
        augment(&fs);
        units++;
    }
    for (uint16_t p = 0; p < np; p++)
        while (fs.arc_flow[t->port_base[src] + p] && out->count < DCN_PATHSET_MAX)
            if (trace(&fs, p, &out->path[out->count]) == 0 && dcn_path_valid(&out->path[out->count], t, f, NULL))
                out->count++; /* valid by construction; the check is a guard */
    dcn_pathset_sort(out); /* shortest first, stable: equal lengths keep port order */
    rc = (int)out->count;
done:
    dcn_tmp_free(blocked);
    dcn_tmp_free(fs.node_flow);
    dcn_tmp_free(fs.arc_flow);
    dcn_tmp_free(fs.pot);
    dcn_tmp_free(fs.dist);
    dcn_tmp_free(fs.from);
    dcn_tmp_free(fs.via);
    dcn_tmp_free(fs.done);
    dcn_tmp_free(fs.heap);
    return rc;
}

int dcn_disjoint_paths(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_failures *f, uint32_t max_paths,
                       dcn_pathset *out)
{
    return disjoint(t, src, dst, f, max_paths, false, out);
}

int dcn_server_disjoint_paths(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_failures *f,
                              uint32_t max_paths, dcn_pathset *out)
{
    return disjoint(t, src, dst, f, max_paths, true, out);
}

int dcn_disjoint_paths_led(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_failures *f, uint32_t max_paths,
                           bool server_disjoint, const dcn_path *lead, dcn_pathset *out)
{
    out->count = 0;
    if (src >= dcn_n_nodes(t) || dst >= dcn_n_nodes(t) || src == dst)
        return -1;
    if (!lead || lead->len < 2 || lead->node[0] != src || lead->node[lead->len - 1] != dst ||
        !dcn_path_valid(lead, t, f, NULL) || max_paths == 0)
        return disjoint(t, src, dst, f, max_paths, server_disjoint, out);
    uint32_t cap = max_paths < DCN_PATHSET_MAX ? max_paths : DCN_PATHSET_MAX;
    if (!server_disjoint && cap > dcn_nports(t, src))
        cap = dcn_nports(t, src);
    /* The rest of the set without the lead's inner nodes (and its direct
     * cable, if it is one hop). If lead + rest reaches the cap it is maximum;
     * otherwise compare with the unconstrained maximum. */
    dcn_failures without;
    if (dcn_failures_init(&without, t) < 0)
        return -1;
    if (f) {
        memcpy(without.node_down, f->node_down, dcn_n_nodes(t));
        memcpy(without.port_down, f->port_down, t->port_base[dcn_n_nodes(t)]);
    }
    bool inner_server = false;
    for (uint32_t i = 1; i + 1 < lead->len; i++)
        if (!server_disjoint || dcn_kind(t, lead->node[i]) == DCN_SERVER) {
            dcn_fail_node(&without, lead->node[i]);
            inner_server = true;
        }
    if (!inner_server) /* a direct cable, or src - switch(es) - dst: close its first cable */
        dcn_fail_link(&without, t, src, lead->node[1]);
    dcn_pathset *rest = dcn_tmp_alloc(sizeof *rest);
    int got = rest ? disjoint(t, src, dst, &without, cap - 1u, server_disjoint, rest) : -1;
    dcn_failures_free(&without);
    int rc;
    if (got >= 0 && (uint32_t)got + 1u == cap) {
        rc = got + 1;
    } else {
        rc = disjoint(t, src, dst, f, cap, server_disjoint, out);
        if (got < 0 || got + 1 != rc) {
            dcn_tmp_free(rest);
            return rc;
        }
    }
    out->path[0] = *lead;
    for (uint32_t i = 0; i < rest->count; i++)
        out->path[i + 1] = rest->path[i];
    out->count = rest->count + 1;
    dcn_tmp_free(rest);
    return rc;
}
