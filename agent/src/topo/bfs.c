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

void dcn_bfs_server_distances(const dcn_topo *t, uint32_t src, const dcn_failures *f, uint32_t *links_out,
                              uint32_t *hops_out)
{
    uint32_t n = dcn_n_nodes(t);
    uint32_t *dist = dcn_tmp_alloc(n * sizeof *dist);
    uint32_t *queue = dcn_tmp_alloc((size_t)2 * n * sizeof *queue);
    if (!dist || !queue) {
        dcn_tmp_free(dist);
        dcn_tmp_free(queue);
        return;
    }
    if (links_out) {
        for (uint32_t v = 0; v < n; v++)
            dist[v] = UINT32_MAX;
        uint32_t head = 0, tail = 0;
        if (dcn_node_ok(f, src)) {
            dist[src] = 0;
            queue[tail++] = src;
        }
        while (head < tail) {
            uint32_t u = queue[head++];
            uint16_t np = dcn_nports(t, u);
            for (uint16_t p = 0; p < np; p++) {
                uint32_t w = dcn_peer(t, u, p).node;
                if (w == DCN_NONE || dist[w] != UINT32_MAX || !dcn_hop_ok(f, t, u, p))
                    continue;
                dist[w] = dist[u] + 1;
                queue[tail++] = w;
            }
        }
        memcpy(links_out, dist, t->n_servers * sizeof *dist);
    }
    if (hops_out) {
        /* Layered BFS: entering a server costs one hop, entering a switch
         * none, so switches join the current layer and servers the next.
         * Every node is queued once: queue[0..n) holds the current layer
         * and its switches, queue[n..2n) the next layer's servers. */
        for (uint32_t v = 0; v < n; v++)
            dist[v] = UINT32_MAX;
        uint32_t *cur = queue, *next = queue + n;
        uint32_t ncur = 0, nnext = 0;
        if (dcn_node_ok(f, src)) {
            dist[src] = 0;
            cur[ncur++] = src;
        }
        for (uint32_t d = 0; ncur; d++) {
            for (uint32_t i = 0; i < ncur; i++) {
                uint32_t u = cur[i];
                uint16_t np = dcn_nports(t, u);
                for (uint16_t p = 0; p < np; p++) {
                    uint32_t w = dcn_peer(t, u, p).node;
                    if (w == DCN_NONE || dist[w] != UINT32_MAX || !dcn_hop_ok(f, t, u, p))
                        continue;
                    if (dcn_kind(t, w) == DCN_SERVER) {
                        dist[w] = d + 1;
                        next[nnext++] = w;
                    } else {
                        dist[w] = d;
                        cur[ncur++] = w;
                    }
                }
            }
            memcpy(cur, next, nnext * sizeof *cur);
            ncur = nnext;
            nnext = 0;
        }
        memcpy(hops_out, dist, t->n_servers * sizeof *dist);
    }
    dcn_tmp_free(dist);
    dcn_tmp_free(queue);
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
