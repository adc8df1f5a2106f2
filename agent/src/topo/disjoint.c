#include "disjoint.h"

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
    int32_t *dist;       /* per state */
    uint32_t *from;      /* per state: previous state */
    uint32_t *via;       /* per state: arc (global port index of its tail) or VIA_INTERNAL */
    uint32_t *queue;     /* circular, n_states entries */
    uint8_t *queued;     /* per state */
} flow_state;

static void relax(flow_state *fs, uint32_t s, uint32_t next, int32_t cost, uint32_t via, uint32_t *tail,
                  uint32_t *size)
{
    if (next == IN(fs->src) || next == OUT(fs->dst))
        return;
    int32_t d = fs->dist[s] + cost;
    if (d >= fs->dist[next])
        return;
    fs->dist[next] = d;
    fs->from[next] = s;
    fs->via[next] = via;
    if (!fs->queued[next]) {
        fs->queued[next] = 1;
        fs->queue[*tail] = next;
        *tail = (*tail + 1) % fs->n_states;
        (*size)++;
    }
}

/* One cheapest augmenting path from OUT(src) to IN(dst); false if none. */
static bool find_augmenting(flow_state *fs)
{
    const dcn_topo *t = fs->t;
    for (uint32_t s = 0; s < fs->n_states; s++) {
        fs->dist[s] = INT32_MAX;
        fs->queued[s] = 0;
    }
    uint32_t head = 0, tail = 0, size = 0;
    fs->dist[OUT(fs->src)] = 0;
    fs->queue[tail++] = OUT(fs->src);
    fs->queued[OUT(fs->src)] = 1;
    size = 1;
    while (size) {
        uint32_t s = fs->queue[head];
        head = (head + 1) % fs->n_states;
        size--;
        fs->queued[s] = 0;
        uint32_t v = NODE(s);
        uint16_t np = dcn_nports(t, v);
        if (IS_OUT(s)) {
            if (fs->node_flow[v])
                relax(fs, s, IN(v), 0, VIA_INTERNAL, &tail, &size);
            for (uint16_t p = 0; p < np; p++) {
                uint32_t a = t->port_base[v] + p;
                if ((fs->arc_flow[a] && !fs->shared_switches) || !dcn_hop_ok(fs->f, t, v, p))
                    continue;
                relax(fs, s, IN(dcn_peer(t, v, p).node), 1, a, &tail, &size);
            }
        } else {
            if ((!fs->node_flow[v] || (fs->shared_switches && dcn_kind(t, v) == DCN_SWITCH)) && v != fs->dst)
                relax(fs, s, OUT(v), 0, VIA_INTERNAL, &tail, &size);
            for (uint16_t p = 0; p < np; p++) {
                dcn_end e = dcn_peer(t, v, p);
                if (e.node == DCN_NONE)
                    continue;
                uint32_t a = t->port_base[e.node] + e.port; /* the arc OUT(x) -> IN(v) */
                if (fs->arc_flow[a])
                    relax(fs, s, OUT(e.node), -1, a, &tail, &size);
            }
        }
    }
    return fs->dist[IN(fs->dst)] != INT32_MAX;
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

static int by_length(const void *a, const void *b)
{
    const dcn_path *x = a, *y = b;
    return (x->len > y->len) - (x->len < y->len);
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
    fs.node_flow = calloc(n, sizeof *fs.node_flow);
    fs.arc_flow = calloc(n_ports ? n_ports : 1, sizeof *fs.arc_flow);
    fs.dist = malloc(fs.n_states * sizeof *fs.dist);
    fs.from = malloc(fs.n_states * sizeof *fs.from);
    fs.via = malloc(fs.n_states * sizeof *fs.via);
    fs.queue = malloc(fs.n_states * sizeof *fs.queue);
    fs.queued = malloc(fs.n_states);
    int rc = -1;
    if (!fs.node_flow || !fs.arc_flow || !fs.dist || !fs.from || !fs.via || !fs.queue || !fs.queued)
        goto done;
    uint32_t units = 0;
    while (units < max_paths && find_augmenting(&fs)) {
        augment(&fs);
        units++;
    }
    uint16_t np = dcn_nports(t, src);
    for (uint16_t p = 0; p < np; p++)
        while (fs.arc_flow[t->port_base[src] + p] && out->count < DCN_PATHSET_MAX)
            if (trace(&fs, p, &out->path[out->count]) == 0)
                out->count++;
    /* Stable insertion sort (the set is small): equal lengths keep port order. */
    for (uint32_t i = 1; i < out->count; i++) {
        for (uint32_t j = i; j > 0 && by_length(&out->path[j - 1], &out->path[j]) > 0; j--) {
            dcn_path tmp = out->path[j];
            out->path[j] = out->path[j - 1];
            out->path[j - 1] = tmp;
        }
    }
    rc = (int)out->count;
done:
    free(fs.node_flow);
    free(fs.arc_flow);
    free(fs.dist);
    free(fs.from);
    free(fs.via);
    free(fs.queue);
    free(fs.queued);
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
    int base = disjoint(t, src, dst, f, max_paths, server_disjoint, out);
    if (base <= 0 || !lead || lead->len < 2 || lead->node[0] != src || lead->node[lead->len - 1] != dst ||
        !dcn_path_valid(lead, t, f, NULL))
        return base;
    dcn_failures without;
    if (dcn_failures_init(&without, t) < 0)
        return base;
    if (f) {
        memcpy(without.node_down, f->node_down, dcn_n_nodes(t));
        memcpy(without.port_down, f->port_down, t->port_base[dcn_n_nodes(t)]);
    }
    for (uint32_t i = 1; i + 1 < lead->len; i++)
        if (!server_disjoint || dcn_kind(t, lead->node[i]) == DCN_SERVER)
            dcn_fail_node(&without, lead->node[i]);
    /* A direct src-dst cable on the lead must not be reused either. */
    if (lead->len == 2)
        dcn_fail_link(&without, t, src, dst);
    dcn_pathset *rest = malloc(sizeof *rest);
    if (rest && disjoint(t, src, dst, &without, (uint32_t)base - 1u, server_disjoint, rest) + 1 == base) {
        out->path[0] = *lead;
        for (uint32_t i = 0; i < rest->count; i++)
            out->path[i + 1] = rest->path[i];
        out->count = rest->count + 1;
    }
    free(rest);
    dcn_failures_free(&without);
    return (int)out->count;
}
