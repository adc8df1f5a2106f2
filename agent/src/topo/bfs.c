#include "bfs.h"
#include "scratch.h"

#include <stdlib.h>
#include <string.h>

int dcn_bfs_path(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_failures *f, const uint8_t *avoid,
                 dcn_path *out)
{
    uint32_t n = dcn_n_nodes(t);
    out->len = 0;
    if (src >= n || dst >= n || !dcn_node_ok(f, src) || !dcn_node_ok(f, dst))
        return -1;
    if (src == dst)
        return dcn_path_push(out, src);
    uint32_t *parent = dcn_tmp_alloc(n * sizeof *parent);
    uint32_t *queue = dcn_tmp_alloc(n * sizeof *queue);
    int rc = -1;
    if (!parent || !queue)
        goto done;
    for (uint32_t v = 0; v < n; v++)
        parent[v] = DCN_NONE;
    uint32_t head = 0, tail = 0;
    parent[src] = src;
    queue[tail++] = src;
    while (head < tail && parent[dst] == DCN_NONE) {
        uint32_t u = queue[head++];
        uint16_t np = dcn_nports(t, u);
        for (uint16_t p = 0; p < np; p++) {
            uint32_t w = dcn_peer(t, u, p).node;
            if (w == DCN_NONE || parent[w] != DCN_NONE || !dcn_hop_ok(f, t, u, p))
                continue;
            if (avoid && avoid[w] && w != dst)
                continue;
            parent[w] = u;
            queue[tail++] = w;
        }
    }
    if (parent[dst] == DCN_NONE)
        goto done;
    uint32_t len = 0;
    for (uint32_t v = dst; v != src; v = parent[v])
        len++;
    if (len + 1 > DCN_PATH_MAX)
        goto done;
    out->len = len + 1;
    for (uint32_t v = dst, i = len;; v = parent[v], i--) {
        out->node[i] = v;
        if (v == src)
            break;
    }
    rc = 0;
done:
    dcn_tmp_free(parent);
    dcn_tmp_free(queue);
    return rc;
}

uint32_t dcn_bfs_flood(const dcn_topo *t, uint32_t src, const dcn_failures *f, uint32_t *mark, uint32_t *reached)
{
    if (!dcn_node_ok(f, src) || mark[src] != UINT32_MAX)
        return 0;
    uint32_t head = 0, tail = 0;
    mark[src] = 0;
    reached[tail++] = src;
    while (head < tail) {
        uint32_t u = reached[head++];
        uint16_t np = dcn_nports(t, u);
        for (uint16_t p = 0; p < np; p++) {
            uint32_t w = dcn_peer(t, u, p).node;
            if (w == DCN_NONE || mark[w] != UINT32_MAX || !dcn_hop_ok(f, t, u, p))
                continue;
            mark[w] = mark[u] + 1;
            reached[tail++] = w;
        }
    }
    return tail;
}

static int by_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Queues the servers u reaches over one cable or through switches not
 * seen yet, in id order when sorted (the distances do not depend on it).
 * A switch seen before was reached from an earlier server, which then
 * queued every server behind it: none is lost. */
static uint32_t queue_server_neighbours(const dcn_topo *t, uint32_t u, const dcn_failures *f, uint32_t *mark,
                                        uint32_t *parent, uint32_t *queue, uint32_t tail, uint32_t *stack,
                                        int sorted)
{
    uint32_t first = tail, sp = 0;
    stack[sp++] = u;
    while (sp) {
        uint32_t v = stack[--sp];
        uint16_t np = dcn_nports(t, v);
        for (uint16_t p = 0; p < np; p++) {
            uint32_t w = dcn_peer(t, v, p).node;
            if (w == DCN_NONE || mark[w] != UINT32_MAX || !dcn_hop_ok(f, t, v, p))
                continue;
            mark[w] = mark[u] + (dcn_kind(t, w) == DCN_SERVER);
            if (dcn_kind(t, w) == DCN_SWITCH) {
                stack[sp++] = w;
                continue;
            }
            if (parent)
                parent[w] = u;
            queue[tail++] = w;
        }
    }
    if (sorted && tail - first > 1)
        qsort(queue + first, tail - first, sizeof *queue, by_id);
    return tail;
}

int dcn_bfs_server_tree(const dcn_topo *t, uint32_t src, const dcn_failures *f, uint32_t *dist_out,
                        uint32_t *parent_out, uint32_t *order_out)
{
    uint32_t n = dcn_n_nodes(t), ns = t->n_servers;
    uint32_t *mark = dcn_tmp_alloc(n * sizeof *mark);
    uint32_t *queue = dcn_tmp_alloc(ns * sizeof *queue);
    uint32_t *stack = dcn_tmp_alloc(n * sizeof *stack);
    int rc = -1;
    if (!mark || !queue || !stack)
        goto done;
    for (uint32_t v = 0; v < n; v++)
        mark[v] = UINT32_MAX;
    if (parent_out)
        for (uint32_t v = 0; v < ns; v++)
            parent_out[v] = DCN_NONE;
    uint32_t head = 0, tail = 0;
    if (src < ns && dcn_node_ok(f, src)) {
        mark[src] = 0;
        queue[tail++] = src;
    }
    while (head < tail)
        tail = queue_server_neighbours(t, queue[head++], f, mark, parent_out, queue, tail, stack,
                                       parent_out || order_out);
    if (dist_out)
        memcpy(dist_out, mark, ns * sizeof *mark);
    if (order_out)
        memcpy(order_out, queue, tail * sizeof *queue);
    rc = (int)tail;
done:
    dcn_tmp_free(mark);
    dcn_tmp_free(queue);
    dcn_tmp_free(stack);
    return rc;
}

void dcn_bfs_server_distances(const dcn_topo *t, uint32_t src, const dcn_failures *f, uint32_t *links_out,
                              uint32_t *hops_out)
{
    uint32_t n = dcn_n_nodes(t);
    if (links_out) {
        uint32_t *dist = dcn_tmp_alloc(n * sizeof *dist);
        uint32_t *reached = dcn_tmp_alloc(n * sizeof *reached);
        if (dist && reached) {
            for (uint32_t v = 0; v < n; v++)
                dist[v] = UINT32_MAX;
            dcn_bfs_flood(t, src, f, dist, reached);
            memcpy(links_out, dist, t->n_servers * sizeof *dist);
        }
        dcn_tmp_free(dist);
        dcn_tmp_free(reached);
    }
    if (hops_out)
        dcn_bfs_server_tree(t, src, f, hops_out, NULL, NULL);
}

int dcn_pathset_repair(const dcn_topo *t, const dcn_failures *f, dcn_pathset *s)
{
    if (!f || (!f->n_nodes_down && !f->n_links_down))
        return (int)s->count;
    uint32_t n = dcn_n_nodes(t);
    uint8_t *avoid = dcn_tmp_calloc(n, 1);
    if (!avoid)
        return -1;
    uint8_t *bad = dcn_tmp_calloc(s->count ? s->count : 1, 1);
    if (!bad) {
        dcn_tmp_free(avoid);
        return -1;
    }
    for (uint32_t i = 0; i < s->count; i++)
        bad[i] = !dcn_path_valid(&s->path[i], t, f, NULL);
    uint32_t kept = 0;
    for (uint32_t i = 0; i < s->count; i++) {
        if (!bad[i]) {
            s->path[kept++] = s->path[i];
            continue;
        }
        /* Avoid the inner nodes of every other path: the ones kept, and the
         * ones still to be examined (BSR: "set ∪ good"). */
        memset(avoid, 0, n);
        for (uint32_t j = 0; j < kept; j++)
            for (uint32_t k = 1; k + 1 < s->path[j].len; k++)
                avoid[s->path[j].node[k]] = 1;
        for (uint32_t j = i + 1; j < s->count; j++)
            if (!bad[j])
                for (uint32_t k = 1; k + 1 < s->path[j].len; k++)
                    avoid[s->path[j].node[k]] = 1;
        dcn_path alt;
        if (dcn_bfs_path(t, s->path[i].node[0], s->path[i].node[s->path[i].len - 1], f, avoid, &alt) == 0)
            s->path[kept++] = alt;
    }
    s->count = kept;
    dcn_tmp_free(avoid);
    dcn_tmp_free(bad);
    return (int)kept;
}
