#include "path.h"

#include <stdlib.h>
#include <string.h>

int dcn_path_push(dcn_path *p, uint32_t v)
{
    if (p->len >= DCN_PATH_MAX)
        return -1;
    p->node[p->len++] = v;
    return 0;
}

int dcn_path_append(dcn_path *p, const dcn_path *q)
{
    uint32_t i = (p->len && q->len && p->node[p->len - 1] == q->node[0]) ? 1 : 0;
    for (; i < q->len; i++)
        if (dcn_path_push(p, q->node[i]) < 0)
            return -1;
    return 0;
}

void dcn_path_reverse(dcn_path *p)
{
    for (uint32_t i = 0, j = p->len ? p->len - 1 : 0; i < j; i++, j--) {
        uint32_t x = p->node[i];
        p->node[i] = p->node[j];
        p->node[j] = x;
    }
}

bool dcn_path_contains(const dcn_path *p, uint32_t v)
{
    for (uint32_t i = 0; i < p->len; i++)
        if (p->node[i] == v)
            return true;
    return false;
}

void dcn_path_erase_loops(dcn_path *p)
{
    for (uint32_t i = 0; i < p->len; i++) {
        uint32_t last = i;
        for (uint32_t j = i + 1; j < p->len; j++)
            if (p->node[j] == p->node[i])
                last = j;
        if (last != i) {
            memmove(&p->node[i + 1], &p->node[last + 1], (p->len - last - 1) * sizeof p->node[0]);
            p->len -= last - i;
        }
    }
}

uint32_t dcn_path_links(const dcn_path *p) { return p->len ? p->len - 1 : 0; }

uint32_t dcn_path_server_hops(const dcn_path *p, const dcn_topo *t)
{
    uint32_t hops = 0;
    for (uint32_t i = 1; i < p->len; i++)
        if (dcn_kind(t, p->node[i]) == DCN_SERVER)
            hops++;
    return hops;
}

/* The switch cabled to both servers a and b, or DCN_NONE. */
static uint32_t common_switch(const dcn_topo *t, uint32_t a, uint32_t b)
{
    uint16_t na = dcn_nports(t, a);
    for (uint16_t p = 0; p < na; p++) {
        uint32_t w = dcn_peer(t, a, p).node;
        if (w != DCN_NONE && dcn_kind(t, w) == DCN_SWITCH && dcn_topo_port_to(t, w, b) >= 0)
            return w;
    }
    return DCN_NONE;
}

int dcn_path_expand_servers(dcn_path *p, const dcn_topo *t)
{
    dcn_path out;
    out.len = 0;
    for (uint32_t i = 0; i < p->len; i++) {
        if (i > 0 && dcn_topo_port_to(t, p->node[i - 1], p->node[i]) < 0) {
            uint32_t w = common_switch(t, p->node[i - 1], p->node[i]);
            if (w == DCN_NONE || dcn_path_push(&out, w) < 0)
                return -1;
        }
        if (dcn_path_push(&out, p->node[i]) < 0)
            return -1;
    }
    memcpy(p->node, out.node, out.len * sizeof out.node[0]);
    p->len = out.len;
    return 0;
}

bool dcn_path_valid(const dcn_path *p, const dcn_topo *t, const dcn_failures *f, const char **why)
{
    const char *dummy;
    if (!why)
        why = &dummy;
    if (p->len == 0) {
        *why = "empty path";
        return false;
    }
    uint32_t n = dcn_n_nodes(t);
    for (uint32_t i = 0; i < p->len; i++) {
        if (p->node[i] >= n) {
            *why = "node id out of range";
            return false;
        }
        if (!dcn_node_ok(f, p->node[i])) {
            *why = "crosses a failed node";
            return false;
        }
        for (uint32_t j = 0; j < i; j++)
            if (p->node[j] == p->node[i]) {
                *why = "a node repeats";
                return false;
            }
        if (i > 0) {
            int port = dcn_topo_port_to(t, p->node[i - 1], p->node[i]);
            if (port < 0) {
                *why = "consecutive nodes are not cabled";
                return false;
            }
            if (!dcn_step_ok(f, t, p->node[i - 1], p->node[i])) {
                *why = "crosses a failed link";
                return false;
            }
        }
    }
    return true;
}

bool dcn_paths_node_disjoint(const dcn_path *a, const dcn_path *b)
{
    for (uint32_t i = 1; i + 1 < a->len; i++)
        for (uint32_t j = 1; j + 1 < b->len; j++)
            if (a->node[i] == b->node[j])
                return false;
    return true;
}

static bool has_link(const dcn_path *p, uint32_t x, uint32_t y)
{
    for (uint32_t i = 1; i < p->len; i++)
        if ((p->node[i - 1] == x && p->node[i] == y) || (p->node[i - 1] == y && p->node[i] == x))
            return true;
    return false;
}

bool dcn_paths_link_disjoint(const dcn_path *a, const dcn_path *b, const dcn_topo *t)
{
    (void)t;
    for (uint32_t i = 1; i < a->len; i++)
        if (has_link(b, a->node[i - 1], a->node[i]))
            return false;
    return true;
}

int dcn_pathset_add(dcn_pathset *s, const dcn_path *p)
{
    if (s->count >= DCN_PATHSET_MAX)
        return -1;
    s->path[s->count].len = p->len;
    memcpy(s->path[s->count].node, p->node, p->len * sizeof p->node[0]);
    s->count++;
    return 0;
}

void dcn_pathset_sort(dcn_pathset *s)
{
    for (uint32_t i = 1; i < s->count; i++)
        for (uint32_t j = i; j > 0 && s->path[j].len < s->path[j - 1].len; j--) {
            dcn_path tmp = s->path[j];
            s->path[j] = s->path[j - 1];
            s->path[j - 1] = tmp;
        }
}

void dcn_path_copy(dcn_path *dst, const dcn_path *src)
{
    uint32_t n = src->len <= DCN_PATH_MAX ? src->len : DCN_PATH_MAX;
    dst->len = n;
    memcpy(dst->node, src->node, n * sizeof dst->node[0]);
}
