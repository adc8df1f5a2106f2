#include "vertex_flow.h"
#include "scratch.h"

#include <string.h>

#define V_IN(v) (2 * (v))
#define V_OUT(v) (2 * (v) + 1)

void dcn_vflow_free(dcn_vflow *w)
{
    void *arrays[] = {w->first, w->to, w->rev, w->cap, w->res, w->level, w->seen,
                      w->iter, w->queue, w->path, w->dirty, w->is_dirty};
    for (size_t i = 0; i < sizeof arrays / sizeof arrays[0]; i++)
        dcn_tmp_free(arrays[i]);
    memset(w, 0, sizeof *w);
}

/* The arcs of the split graph, in compressed rows: v_in's first arc is
 * v_in -> v_out, then one reverse arc per neighbour u (v_in -> u_out, the
 * opposite of u_out -> v_in); v_out's first arc is v_out -> v_in (the
 * opposite of the vertex arc), then v_out -> u_in per neighbour u. The
 * neighbours come in the order of g's lists, so u's slot in v_in's row is
 * u's position in v's list. */
static void set_arc(dcn_vflow *w, uint32_t a, uint32_t to, uint8_t cap, uint32_t rev)
{
    w->to[a] = to;
    w->cap[a] = cap;
    w->rev[a] = rev;
}

static void lay_out(dcn_vflow *w)
{
    const dcn_graph *g = w->g;
    for (uint32_t v = 0; v < g->n; v++) {
        uint32_t d = dcn_graph_degree(g, v), a = 2 * g->off[v] + 2 * v, b = a + 1 + d;
        w->first[V_IN(v)] = a;
        w->first[V_OUT(v)] = b;
        set_arc(w, a, V_OUT(v), 1, b);
        set_arc(w, b, V_IN(v), 0, a);
        for (uint32_t i = 0; i < d; i++) {
            uint32_t u = g->adj[g->off[v] + i];
            uint32_t f = b + 1 + i, r = 2 * g->off[u] + 2 * u + 1 + dcn_graph_find(g, u, v);
            set_arc(w, f, V_IN(u), 2, r);
            set_arc(w, r, V_OUT(v), 0, f);
        }
    }
    w->first[w->nodes] = 2 * g->n + 4 * g->m;
}

int dcn_vflow_init(dcn_vflow *w, const dcn_graph *g)
{
    memset(w, 0, sizeof *w);
    uint64_t arcs = 2 * (uint64_t)g->n + 4 * (uint64_t)g->m;
    if (arcs >= UINT32_MAX)
        return -1;
    w->g = g;
    w->nodes = 2 * g->n;
    size_t per_node = ((size_t)w->nodes + 1) * sizeof(uint32_t), per_arc = arcs ? (size_t)arcs : 1;
    w->first = dcn_tmp_alloc(per_node);
    w->to = dcn_tmp_alloc(per_arc * sizeof(uint32_t));
    w->rev = dcn_tmp_alloc(per_arc * sizeof(uint32_t));
    w->cap = dcn_tmp_alloc(per_arc);
    w->res = dcn_tmp_alloc(per_arc);
    w->level = dcn_tmp_alloc(per_node);
    w->seen = dcn_tmp_calloc((size_t)w->nodes + 1, sizeof(uint32_t));
    w->iter = dcn_tmp_alloc(per_node);
    w->queue = dcn_tmp_alloc(per_node);
    w->path = dcn_tmp_alloc(per_node);
    w->dirty = dcn_tmp_alloc(per_node);
    w->is_dirty = dcn_tmp_calloc((size_t)w->nodes + 1, 1);
    if (!w->first || !w->to || !w->rev || !w->cap || !w->res || !w->level || !w->seen || !w->iter || !w->queue ||
        !w->path || !w->dirty || !w->is_dirty) {
        dcn_vflow_free(w);
        return -1;
    }
    lay_out(w);
    memcpy(w->res, w->cap, (size_t)arcs);
    return 0;
}

/* Back to no flow: the rows of the split vertices the last flow touched. */
static void reset(dcn_vflow *w)
{
    for (uint32_t i = 0; i < w->n_dirty; i++) {
        uint32_t x = w->dirty[i];
        memcpy(w->res + w->first[x], w->cap + w->first[x], w->first[x + 1] - w->first[x]);
        w->is_dirty[x] = 0;
    }
    w->n_dirty = 0;
}

static void touch(dcn_vflow *w, uint32_t x)
{
    if (!w->is_dirty[x]) {
        w->is_dirty[x] = 1;
        w->dirty[w->n_dirty++] = x;
    }
}

/* Dinic's BFS: labels the split vertices src reaches in the residual graph
 * (seen == epoch) with their distance, stopping once dst is labelled (every
 * vertex closer than dst is then labelled). 1 when dst is reached; when it
 * is not, the labelled vertices are all that src reaches. */
static int label(dcn_vflow *w, uint32_t src, uint32_t dst)
{
    if (++w->epoch == 0) {
        memset(w->seen, 0, (size_t)w->nodes * sizeof *w->seen);
        w->epoch = 1;
    }
    uint32_t head = 0, tail = 0;
    w->seen[src] = w->epoch;
    w->level[src] = 0;
    w->iter[src] = w->first[src];
    w->queue[tail++] = src;
    while (head < tail) {
        uint32_t x = w->queue[head++];
        for (uint32_t a = w->first[x]; a < w->first[x + 1]; a++) {
            uint32_t y = w->to[a];
            if (!w->res[a] || w->seen[y] == w->epoch)
                continue;
            w->seen[y] = w->epoch;
            w->level[y] = w->level[x] + 1;
            w->iter[y] = w->first[y];
            if (y == dst)
                return 1;
            w->queue[tail++] = y;
        }
    }
    return 0;
}

/* Dinic's blocking flow on the labelled levels, up to want paths: depth
 * first from src, each vertex's next arc to try in iter, a dead end
 * unlabelled. Returns the paths added. */
static uint32_t augment(dcn_vflow *w, uint32_t src, uint32_t dst, uint32_t want)
{
    uint32_t found = 0, depth = 0, x = src, top = w->level[dst];
    while (found < want) {
        if (x == dst) {
            for (uint32_t i = 0; i < depth; i++) {
                uint32_t a = w->path[i];
                w->res[a]--;
                w->res[w->rev[a]]++;
                touch(w, w->to[w->rev[a]]);
                touch(w, w->to[a]);
            }
            found++;
            depth = 0;
            x = src;
            continue;
        }
        uint32_t a = w->iter[x], end = w->first[x + 1];
        for (; a < end; a++) {
            uint32_t y = w->to[a];
            if (w->res[a] && w->seen[y] == w->epoch && w->level[y] == w->level[x] + 1 &&
                (y == dst || w->level[y] < top))
                break;
        }
        w->iter[x] = a;
        if (a < end) {
            w->path[depth++] = a;
            x = w->to[a];
            continue;
        }
        if (x == src)
            break;
        w->seen[x] = 0;
        depth--;
        x = depth ? w->to[w->path[depth - 1]] : src;
        w->iter[x]++;
    }
    return found;
}

uint32_t dcn_vflow_paths(dcn_vflow *w, uint32_t s, uint32_t t, uint32_t cap)
{
    reset(w);
    uint32_t found = 0;
    while (found < cap && label(w, V_OUT(s), V_IN(t)))
        found += augment(w, V_OUT(s), V_IN(t), cap - found);
    return found;
}

uint32_t dcn_vflow_separator(const dcn_vflow *w, uint32_t *out)
{
    uint32_t count = 0;
    for (uint32_t v = 0; v < w->g->n; v++)
        if (w->seen[V_IN(v)] == w->epoch && w->seen[V_OUT(v)] != w->epoch)
            out[count++] = v;
    return count;
}
