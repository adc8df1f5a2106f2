#include "bcube_multicast.h"

#include <stdbool.h>
#include <stdlib.h>

/* The level at which a differs from src, or BC_MAX_LEVELS when a is not a
 * one-digit neighbour of src. */
static uint32_t neighbour_level(const bc_dims *d, uint32_t src, uint32_t a)
{
    if (a >= d->pow[d->k + 1] || bc_hamming(d, src, a) != 1)
        return BC_MAX_LEVELS;
    for (uint32_t i = 0; i <= d->k; i++)
        if (bc_digit(d, src, i) != bc_digit(d, a, i))
            return i;
    return BC_MAX_LEVELS;
}

static void one_hop(bc_graph_edge *e, uint32_t from, uint32_t to, uint32_t level)
{
    e->from = from;
    e->to = to;
    e->hops = 1;
    e->seq[0] = from;
    e->seq[1] = to;
    e->level[0] = level;
}

/* from = d_i, to = d_j: leave on level j to x_ij (which has d_j's digit j
 * and d_i's digit i), then on level i to d_j. */
static void two_hops(const bc_dims *d, bc_graph_edge *e, uint32_t from, uint32_t li, uint32_t to, uint32_t lj)
{
    e->from = from;
    e->to = to;
    e->hops = 2;
    e->seq[0] = from;
    e->seq[1] = bc_set_digit(d, from, lj, bc_digit(d, to, lj));
    e->seq[2] = to;
    e->level[0] = lj;
    e->level[1] = li;
}

int bc_complete_graph(const bc_dims *d, uint32_t src, const uint32_t *targets, uint32_t count, bc_graph_edge *edges,
                      const char **why, uint32_t *bad)
{
    uint32_t level[BC_MAX_LEVELS];
    bool taken[BC_MAX_LEVELS] = {false};
    *why = NULL;
    *bad = 0;
    if (count > d->k + 1) {
        *why = "more targets than levels (at most k+1)";
        *bad = d->k + 1;
        return -1;
    }
    for (uint32_t t = 0; t < count; t++) {
        level[t] = neighbour_level(d, src, targets[t]);
        if (level[t] == BC_MAX_LEVELS) {
            *why = "is not a one-digit neighbour of the source";
            *bad = t;
            return -1;
        }
        if (taken[level[t]]) {
            *why = "is on the same level as an earlier target (one target per level)";
            *bad = t;
            return -1;
        }
        taken[level[t]] = true;
    }
    uint32_t m = 0;
    for (uint32_t t = 0; t < count; t++)
        one_hop(&edges[m++], src, targets[t], level[t]);
    for (uint32_t t = 0; t < count; t++)
        one_hop(&edges[m++], targets[t], src, level[t]);
    for (uint32_t a = 0; a < count; a++)
        for (uint32_t b = 0; b < count; b++)
            if (a != b)
                two_hops(d, &edges[m++], targets[a], level[a], targets[b], level[b]);
    return (int)m;
}

/* The list T of the paper, in insertion order, with a membership mark. */
typedef struct spt_set {
    uint32_t *order;
    uint8_t *member;
    uint32_t size;
} spt_set;

static void spt_add(spt_set *t, uint32_t s)
{
    if (t->member[s])
        return;
    t->member[s] = 1;
    t->order[t->size++] = s;
}

int bc_build_single_spt(const bc_dims *d, uint32_t src, uint32_t level, uint32_t *parent, uint8_t *edge_level)
{
    uint32_t n = d->n, levels = d->k + 1, total = d->pow[levels];
    spt_set t = {malloc(total * sizeof *t.order), calloc(total, 1), 0};
    if (!t.order || !t.member) {
        free(t.order);
        free(t.member);
        return -1;
    }
    for (uint32_t s = 0; s < total; s++) {
        parent[s] = BC_SPT_NONE;
        edge_level[s] = 0;
    }
    uint32_t root = bc_set_digit(d, src, level, (bc_digit(d, src, level) + 1) % n);
    parent[root] = src;
    edge_level[root] = (uint8_t)level;
    spt_add(&t, root);
    /* Part I: grow along dimensions level, level+1, ... (mod k+1); T2 is
     * appended behind the snapshot of T, which is all that is walked. */
    for (uint32_t i = 0; i < levels; i++) {
        uint32_t dim = (level + i) % levels, snapshot = t.size;
        for (uint32_t a = 0; a < snapshot; a++) {
            uint32_t b = t.order[a], c = b;
            for (uint32_t j = 0; j + 1 < n; j++) {
                c = bc_set_digit(d, c, dim, (bc_digit(d, c, dim) + 1) % n);
                parent[c] = b;
                edge_level[c] = (uint8_t)dim;
                spt_add(&t, c);
                b = c;
            }
        }
    }
    /* Part II: every S != src sharing src's digit `level` hangs off its
     * level-`level` neighbour with that digit one lower. */
    uint32_t want = bc_digit(d, src, level);
    for (uint32_t s = 0; s < total; s++) {
        if (s == src || bc_digit(d, s, level) != want)
            continue;
        parent[s] = bc_set_digit(d, s, level, (want + n - 1) % n);
        edge_level[s] = (uint8_t)level;
    }
    /* Drop src, which Part I reached as the last server of the root's line. */
    parent[src] = BC_SPT_NONE;
    edge_level[src] = 0;
    free(t.order);
    free(t.member);
    return 0;
}

int bc_build_multiple_spts(const bc_dims *d, uint32_t src, uint32_t *parent, uint8_t *edge_level)
{
    uint32_t total = d->pow[d->k + 1];
    for (uint32_t i = 0; i <= d->k; i++)
        if (bc_build_single_spt(d, src, i, parent + (size_t)i * total, edge_level + (size_t)i * total) < 0)
            return -1;
    return 0;
}

uint32_t bc_spt_depth_of(const uint32_t *parent, uint32_t n_servers, uint32_t src, uint32_t s)
{
    uint32_t depth = 0;
    while (s != src) {
        if (s >= n_servers || depth >= n_servers)
            return BC_SPT_NONE;
        s = parent[s];
        depth++;
    }
    return depth;
}
