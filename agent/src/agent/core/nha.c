#include "nha.h"

#include <stdio.h>

int nha_topology_check(const dcn_topo *t, char *err, size_t errlen)
{
    for (uint32_t v = 0; v < t->n_servers; v++)
        if (dcn_nports(t, v) > NHA_MAX_PORTS) {
            snprintf(err, errlen,
                     "servers have %u ports, but the header's NHA names at most %u (2-bit port; BCube k <= 3)",
                     dcn_nports(t, v), NHA_MAX_PORTS);
            return -1;
        }
    for (uint32_t sw = t->n_servers; sw < dcn_n_nodes(t); sw++) {
        int f = nha_fiber_port(t, sw);
        unsigned reach = dcn_nports(t, sw);
        if (f >= 0) {
            dcn_end fe = dcn_peer(t, sw, (uint16_t)f);
            reach = (unsigned)f + dcn_nports(t, fe.node);
        }
        if (reach > NHA_DIRECT) {
            snprintf(err, errlen,
                     "a switch reaches %u server ports, but the header's NHA index names at most %u (6 bits, 63 "
                     "reserved)",
                     reach, NHA_DIRECT);
            return -1;
        }
    }
    return 0;
}

int nha_fiber_port(const dcn_topo *t, uint32_t sw)
{
    uint16_t np = dcn_nports(t, sw);
    for (uint16_t q = 0; q < np; q++) {
        dcn_end e = dcn_peer(t, sw, q);
        if (e.node != DCN_NONE && dcn_kind(t, e.node) == DCN_SWITCH)
            return q;
    }
    return -1;
}

unsigned nha_step(const dcn_topo *t, uint32_t u, uint8_t nha, uint32_t via[3])
{
    unsigned port = nha_port(nha), idx = nha_index(nha);
    if (u >= t->n_servers || port >= dcn_nports(t, u))
        return 0;
    dcn_end e = dcn_peer(t, u, (uint16_t)port);
    if (e.node == DCN_NONE)
        return 0;
    if (dcn_kind(t, e.node) == DCN_SERVER) {
        if (idx != NHA_DIRECT)
            return 0;
        via[0] = e.node;
        return 1;
    }
    uint32_t sw = e.node;
    if (idx == NHA_DIRECT)
        return 0;
    int f = nha_fiber_port(t, sw);
    if (f < 0 || (int)idx < f) {
        if (idx >= dcn_nports(t, sw))
            return 0;
        dcn_end x = dcn_peer(t, sw, (uint16_t)idx);
        if (x.node == DCN_NONE || dcn_kind(t, x.node) != DCN_SERVER || x.node == u)
            return 0;
        via[0] = sw;
        via[1] = x.node;
        return 2;
    }
    dcn_end fe = dcn_peer(t, sw, (uint16_t)f);
    uint32_t q = idx - (unsigned)f;
    if (q >= dcn_nports(t, fe.node))
        return 0;
    dcn_end x = dcn_peer(t, fe.node, (uint16_t)q);
    if (x.node == DCN_NONE || dcn_kind(t, x.node) != DCN_SERVER || x.node == u)
        return 0;
    via[0] = sw;
    via[1] = fe.node;
    via[2] = x.node;
    return 3;
}

int nha_encode_path(const dcn_topo *t, const dcn_path *p, uint8_t *nha, unsigned max)
{
    unsigned hops = 0;
    uint32_t i = 0;
    if (p->len == 0 || p->node[0] >= t->n_servers)
        return -1;
    while (i + 1 < p->len) {
        uint32_t u = p->node[i];
        int port = dcn_topo_port_to(t, u, p->node[i + 1]);
        if (port < 0 || port >= NHA_MAX_PORTS || hops >= max)
            return -1;
        uint32_t w = p->node[i + 1];
        int idx;
        uint32_t next;
        if (dcn_kind(t, w) == DCN_SERVER) {
            idx = NHA_DIRECT;
            next = i + 1;
        } else if (i + 2 < p->len && dcn_kind(t, p->node[i + 2]) == DCN_SERVER) {
            idx = dcn_topo_port_to(t, w, p->node[i + 2]);
            next = i + 2;
        } else if (i + 3 < p->len && dcn_kind(t, p->node[i + 3]) == DCN_SERVER) {
            int f = nha_fiber_port(t, w);
            int q = dcn_topo_port_to(t, p->node[i + 2], p->node[i + 3]);
            if (f < 0 || q < 0 || dcn_topo_port_to(t, w, p->node[i + 2]) != f)
                return -1;
            idx = f + q;
            next = i + 3;
        } else {
            return -1;
        }
        if (idx < 0 || idx > NHA_DIRECT || (idx == NHA_DIRECT && dcn_kind(t, w) != DCN_SERVER))
            return -1;
        nha[hops] = nha_make((unsigned)port, (unsigned)idx);
        /* the scheme must name exactly this hop */
        uint32_t via[3];
        unsigned nv = nha_step(t, u, nha[hops], via);
        if (nv != next - i || via[nv - 1] != p->node[next])
            return -1;
        hops++;
        i = next;
    }
    return (int)hops;
}

/* The walk behind nha_walk and nha_walk_marked: a server already on the
 * path is a loop, found through mark/stamp when mark is given, else by a
 * scan of the path so far. */
static nha_walk_result walk(const dcn_topo *t, uint32_t src, uint32_t dst, const uint8_t *nha, unsigned nhops,
                            dcn_path *out, unsigned *bad_hop, uint32_t *mark, uint32_t stamp)
{
    out->len = 0;
    *bad_hop = 0;
    if (src >= t->n_servers)
        return NHA_WALK_BAD_SRC;
    out->node[out->len++] = src;
    if (mark)
        mark[src] = stamp;
    uint32_t u = src;
    for (unsigned h = 0; h < nhops; h++) {
        uint32_t via[3];
        unsigned nv = nha_step(t, u, nha[h], via);
        *bad_hop = h;
        if (nv == 0)
            return NHA_WALK_NOT_NEIGHBOR;
        if (out->len + nv > DCN_PATH_MAX)
            return NHA_WALK_LOOP; /* longer than any loop-free path */
        uint32_t next = via[nv - 1];
        if (mark) {
            if (mark[next] == stamp)
                return NHA_WALK_LOOP;
            mark[next] = stamp;
        } else {
            for (uint32_t k = 0; k < out->len; k++)
                if (out->node[k] == next)
                    return NHA_WALK_LOOP;
        }
        for (unsigned k = 0; k < nv; k++)
            out->node[out->len++] = via[k];
        u = next;
    }
    return u == dst || dst == DCN_NONE ? NHA_WALK_OK : NHA_WALK_WRONG_DST;
}

nha_walk_result nha_walk(const dcn_topo *t, uint32_t src, uint32_t dst, const uint8_t *nha, unsigned nhops,
                         dcn_path *out, unsigned *bad_hop)
{
    return walk(t, src, dst, nha, nhops, out, bad_hop, NULL, 0);
}

nha_walk_result nha_walk_marked(const dcn_topo *t, uint32_t src, uint32_t dst, const uint8_t *nha, unsigned nhops,
                                dcn_path *out, unsigned *bad_hop, uint32_t *mark, uint32_t stamp)
{
    return walk(t, src, dst, nha, nhops, out, bad_hop, mark, stamp);
}

int nha_server_pos(const dcn_topo *t, const dcn_path *p, unsigned h)
{
    unsigned seen = 0;
    for (uint32_t i = 0; i < p->len; i++) {
        if (p->node[i] < t->n_servers) {
            if (seen == h)
                return (int)i;
            seen++;
        }
    }
    return -1;
}
