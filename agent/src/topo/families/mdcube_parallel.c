/* Theorem 2: k+1 parallel paths between two servers, from BCube's switch
 * properties 3 (n disjoint switch-to-switch paths) and 4 (k+1 disjoint
 * switch-to-server paths). All paths follow MDCubeRouting's containers and
 * share its fibers (a fiber is a fat pipe of more than k+1 links); inside
 * every container they are node-disjoint. */
#include "bcube_switch_route.h"
#include "bfs.h"
#include "mdcube_route.h"
#include "mdcube_segment.h"

static int add_same_container(const dcn_topo *t, const md_geom *g, uint32_t src, uint32_t dst, dcn_pathset *out)
{
    uint32_t seqs[BC_MAX_LEVELS][BC_MAX_LEVELS + 3], lens[BC_MAX_LEVELS];
    bc_build_pathset(&g->bc, src % g->t, dst % g->t, seqs, lens);
    for (uint32_t i = g->k + 1; i-- > 0;) {
        dcn_path p;
        dcn_path_clear(&p);
        md_builder b = {t, g, NULL, &p};
        if (md_append_seq(&b, src / g->t, seqs[i], lens[i], 0, DCN_NONE) < 0 || dcn_pathset_add(out, &p) < 0)
            return -1;
    }
    return 0;
}

/* The containers MDCubeRouting visits (Pi_D = [D..0]); returns their count. */
static uint32_t container_chain(const md_geom *g, uint32_t src_c, uint32_t dst_c, uint32_t *chain)
{
    uint32_t n = 0, cur = src_c;
    chain[n++] = cur;
    for (uint32_t x = g->dims; x-- > 0;)
        if (md_coord(g, cur, x) != md_coord(g, dst_c, x)) {
            cur = md_set_coord(g, cur, x, md_coord(g, dst_c, x));
            chain[n++] = cur;
        }
    return n;
}

static void reverse_seq(uint32_t *seq, uint32_t len)
{
    for (uint32_t i = 0, j = len - 1; i < j; i++, j--) {
        uint32_t x = seq[i];
        seq[i] = seq[j];
        seq[j] = x;
    }
}

int mdcube_algo_parallel(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out)
{
    out->count = 0;
    if (!t->priv || src >= t->n_servers || dst >= t->n_servers || src == dst)
        return -1;
    const md_geom *g = (const md_geom *)t->priv;
    const dcn_failures *f = ctx ? ctx->failures : NULL;
    const bc_dims *d = &g->bc;
    uint32_t src_c = src / g->t, dst_c = dst / g->t, levels = g->k + 1;
    if (src_c == dst_c) {
        if (add_same_container(t, g, src, dst, out) < 0)
            return -1;
        return dcn_pathset_repair(t, f, out);
    }
    if (levels > g->n)
        return -1; /* property 4 needs k+1 <= n */
    uint32_t chain[DCN_MAX_DIMS + 1], exit_bw[DCN_MAX_DIMS + 1], entry_bw[DCN_MAX_DIMS + 1];
    uint32_t hops = container_chain(g, src_c, dst_c, chain) - 1;
    for (uint32_t h = 0; h < hops; h++)
        md_get_link(g, chain[h], chain[h + 1], 0, &exit_bw[h], &entry_bw[h + 1]);
    uint32_t first[BC_MAX_LEVELS][BC_SW_SEQ_MAX], first_len[BC_MAX_LEVELS];
    uint32_t last[BC_MAX_LEVELS][BC_SW_SEQ_MAX], last_len[BC_MAX_LEVELS];
    bc_switch_server_paths(d, exit_bw[0], src % g->t, first, first_len);
    bc_switch_server_paths(d, entry_bw[hops], dst % g->t, last, last_len);
    for (uint32_t j = 0; j < levels; j++) {
        dcn_path *p = &out->path[out->count];
        md_builder b = {t, g, NULL, p};
        dcn_path_clear(p);
        dcn_path_push(p, src);
        reverse_seq(first[j], first_len[j]);
        if (md_append_seq(&b, src_c, first[j], first_len[j], 1, exit_bw[0]) < 0)
            return -1;
        for (uint32_t h = 1; h <= hops; h++) {
            if (md_seg_fiber(&b, md_switch_node(g, t->n_servers, chain[h], entry_bw[h])) < 0)
                return -1;
            if (h == hops)
                break;
            uint32_t seq[BC_SW_SEQ_MAX];
            uint32_t i = (bc_switch_pair_shortest(d, entry_bw[h], exit_bw[h]) + j) % g->n;
            uint32_t len = bc_switch_pair_path(d, entry_bw[h], exit_bw[h], i, seq);
            if (md_append_seq(&b, chain[h], seq, len, 0, exit_bw[h]) < 0)
                return -1;
        }
        if (md_append_seq(&b, dst_c, last[j], last_len[j], 0, DCN_NONE) < 0)
            return -1;
        out->count++;
    }
    return dcn_pathset_repair(t, f, out);
}
