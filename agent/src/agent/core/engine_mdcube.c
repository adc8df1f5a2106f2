/* The forwarding engine's MDCube hierarchical routing (docs/protocol.md,
 * "MDCube hierarchical routing"): the source's segment of a random jump,
 * the segment appended where a packet's path ends short of dst, and the
 * "destination unreachable" message. The table of segments is mdc_route.c;
 * this file is the engine's side of it. */
#include <string.h>

#include "engine.h"
#include "engine_internal.h"

/* MDCube: no route from our container to the next one (its fibre is
 * down): "destination unreachable" to the source along the reverse path. */
void engine_mdc_unreach(engine *e, const dcn_hdr *h, const dcn_path *path, int pos, uint32_t next_c)
{
    if (pos <= 0 || !eng_failure_rate_ok(e, h->src))
        return;
    uint8_t nha[DCN_MAX_HOPS];
    int n = eng_encode_back(e, path, pos, 0, nha);
    if (n <= 0)
        return;
    uint8_t pl[DCN_UNREACH_PAYLOAD];
    dcn_put32(pl, h->flow_id);
    dcn_put32(pl + 4, h->dst);
    dcn_put32(pl + 8, e->container_of[e->self]);
    dcn_put32(pl + 12, next_c);
    if (eng_send_control(e, DCN_T_UNREACH, h->src, nha, (unsigned)n, 0, pl, sizeof pl) == 0)
        e->c.unreach_tx++;
}

/* The first hop of a segment we computed is dead: the link to avoid. */
static void dead_first_hop(engine *e, const mdc_entry *x, unsigned port, uint32_t *a, uint32_t *b)
{
    dcn_path p;
    p.len = x->seg_len;
    memcpy(p.node, x->seg, x->seg_len * sizeof x->seg[0]);
    eng_failed_link(e, &p, 0, nha_server_pos(e->t, &p, 1), port, a, b);
}

/* A segment (src, dst, flow id) of ours whose first hop is usable, or NULL:
 * a dead first hop is learned and the segment computed again, once. */
static const mdc_entry *usable_segment(engine *e, const mdc_entry *(*get)(engine *, const dcn_hdr *), const dcn_hdr *h)
{
    for (int attempt = 0; attempt < 3; attempt++) {
        const mdc_entry *x = get(e, h);
        if (!x)
            return NULL;
        const neigh_entry *ne = &e->nt.e[x->nha[0]];
        if (eng_hop_usable(e, ne))
            return x;
        uint32_t a, b;
        dead_first_hop(e, x, ne->port, &a, &b);
        mdc_on_path_failure(e->hier, a, b, eng_now(e));
    }
    return NULL;
}

/* The containers a segmented header still has to cross, from its index;
 * a listed container we are already in counts as reached. */
static unsigned rest_of(const engine *e, const dcn_hdr *h, const uint32_t **rest)
{
    unsigned i = h->container_idx;
    while (i < h->n_containers && h->container[i] == e->container_of[e->self])
        i++;
    *rest = h->container + i;
    return h->n_containers - i;
}

static const mdc_entry *relay_segment(engine *e, const dcn_hdr *h)
{
    const uint32_t *rest;
    unsigned nrest = rest_of(e, h, &rest);
    return mdc_relay(e->hier, h->src, h->dst, h->flow_id, rest, nrest, eng_now(e));
}

/* The header of an MDCube data packet sent on the first hop of segment x:
 * h with x's NHAs appended (the source's h has none) into nha[], NHI at the
 * first of them, the segment start there and the container index past a
 * container the first hop enters. False when the path grows too long. */
static bool segment_header(engine *e, const dcn_hdr *h, const mdc_entry *x, uint8_t *nha, dcn_hdr *out)
{
    unsigned nhops = (unsigned)h->nhops + x->seg_hops;
    if (nhops > DCN_MAX_HOPS) {
        e->c.drop_too_long++;
        return false;
    }
    if (h->nhops)
        memcpy(nha, h->nha, h->nhops);
    memcpy(nha + h->nhops, x->nha, x->seg_hops);
    *out = *h;
    out->flags |= DCN_FLAG_MDCUBE | DCN_FLAG_SEGMENTED;
    out->nhops = (uint8_t)nhops;
    out->nha = nha;
    out->nhi = (uint8_t)(h->nhops + 1);
    out->seg_start = h->nhops;
    const uint32_t *rest;
    unsigned nrest = rest_of(e, h, &rest);
    out->container_idx = (uint8_t)(h->n_containers - nrest);
    if (nrest && e->container_of[e->nt.e[x->nha[0]].node] == rest[0])
        out->container_idx++;
    return true;
}

/* A relay's segment: the new header in scratch, the payload copied after it. */
static void send_segment(engine *e, const dcn_hdr *h, const mdc_entry *x, const uint8_t *payload)
{
    uint8_t nha[DCN_MAX_HOPS];
    dcn_hdr out;
    if (!segment_header(e, h, x, nha, &out))
        return;
    const neigh_entry *ne = &e->nt.e[x->nha[0]];
    size_t cap = sizeof e->scratch - DCN_ETH_HLEN;
    if (h->payload_len > cap)
        return;
    size_t hl = dcn_hdr_encode(&out, e->scratch + DCN_ETH_HLEN, cap - h->payload_len);
    if (!hl) {
        e->c.drop_too_long++;
        return;
    }
    memcpy(e->scratch + DCN_ETH_HLEN + hl, payload, h->payload_len);
    eng_put_eth(e, e->scratch, ne->mac, ne->port);
    if (eng_tx(e, ne->port, e->scratch, DCN_ETH_HLEN + hl + h->payload_len) == 0)
        e->c.segment_extended++;
}

static const mdc_entry *source_segment(engine *e, const dcn_hdr *h)
{
    return mdc_source(e->hier, h->dst, h->flow_id, eng_now(e));
}

/* From TUN to another container, hierarchical routing: our segment of the
 * flow's random jump, the header written into the headroom before ip. */
void engine_mdc_from_tun(engine *e, uint8_t *ip, size_t len, uint32_t dst, const dcn_flow_key *k)
{
    dcn_hdr h = {.type = DCN_T_DATA, .src = e->self, .dst = dst, .pkt_id = e->next_pkt_id++,
                 .proto = DCN_PROTO_IPV4, .payload_len = (uint16_t)len, .flow_id = eng_flow_id(k),
                 .flags = DCN_FLAG_MDCUBE | DCN_FLAG_SEGMENTED};
    const mdc_entry *x = usable_segment(e, source_segment, &h);
    if (!x) {
        e->c.drop_no_route++;
        return;
    }
    h.n_containers = x->n_containers;
    memcpy(h.container, x->container, x->n_containers * sizeof x->container[0]);
    uint8_t nha[DCN_MAX_HOPS];
    dcn_hdr out;
    if (!segment_header(e, &h, x, nha, &out))
        return;
    size_t hl = dcn_hdr_len(&out);
    uint8_t *frame = ip - hl - DCN_ETH_HLEN;
    dcn_hdr_encode(&out, frame + DCN_ETH_HLEN, hl);
    const neigh_entry *ne = &e->nt.e[x->nha[0]];
    eng_put_eth(e, frame, ne->mac, ne->port);
    e->c.tx_data_from_tun++;
    eng_tx(e, ne->port, frame, DCN_ETH_HLEN + hl + len);
}

/* A segmented MDCube packet reached the end of its segment here: route it
 * on through our container (docs/protocol.md), or tell the source that the
 * next container cannot be reached. */
void engine_mdc_extend(engine *e, const dcn_hdr *h, const uint8_t *payload)
{
    if (!e->hier || h->dst >= e->t->n_servers) { /* a segmented path's end is not checked against dst */
        e->c.drop_bad_path++;
        return;
    }
    const mdc_entry *x = usable_segment(e, relay_segment, h);
    if (x) {
        e->c.rx_ok++;
        send_segment(e, h, x, payload);
        return;
    }
    e->c.drop_no_segment++;
    dcn_path path;
    if (eng_walk(e, h, &path) != NHA_WALK_OK)
        return;
    const uint32_t *rest;
    unsigned nrest = rest_of(e, h, &rest);
    engine_mdc_unreach(e, h, &path, (int)path.len - 1, nrest ? rest[0] : e->container_of[h->dst]);
}

