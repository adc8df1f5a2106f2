#include "relay_entries.h"

#include <string.h>

#include "agent/core/engine_internal.h"

_Static_assert(KRELAY_MAX_PORTS == ENGINE_MAX_PORTS, "the kernel relay's stats have one entry per port");
_Static_assert(KRELAY_HDR_LEN == DCN_HDR_FIXED + KRELAY_MAX_NHOPS, "paths of <= 8 hops have the base header");

static bool key_of(const dcn_hdr *h, struct krelay_path_key *k)
{
    memset(k, 0, sizeof *k);
    uint8_t b[4];
    dcn_put32(b, h->src);
    memcpy(&k->src, b, 4);
    dcn_put32(b, h->dst);
    memcpy(&k->dst, b, 4);
    k->nhops = h->nhops;
    k->nhi = h->nhi;
    memcpy(k->nha, h->nha, KRELAY_MAX_NHOPS); /* the NHA array is 8 bytes for <= 8 hops, zero padded */
    return true;
}

bool krelay_path_key_of(const dcn_hdr *h, struct krelay_path_key *k)
{
    if (h->type != DCN_T_DATA || h->flags != 0 || h->nhops > KRELAY_MAX_NHOPS || h->nhi == 0 || h->nhi >= h->nhops)
        return false;
    return key_of(h, k);
}

bool krelay_delivery_key_of(const dcn_hdr *h, struct krelay_path_key *k)
{
    if (h->type != DCN_T_DATA || h->flags != 0 || h->nhops > KRELAY_MAX_NHOPS || h->nhops == 0 || h->nhi != h->nhops)
        return false;
    return key_of(h, k);
}

bool krelay_flow_of(const dcn_hdr *h, unsigned port, int ifindex, struct krelay_flow *out)
{
    memset(out, 0, sizeof *out);
    if (h->type != DCN_T_DATA || h->flags != 0 || h->nhops == 0 || h->nhops > KRELAY_MAX_NHOPS || h->nhi != 1 ||
        port >= ENGINE_MAX_PORTS || ifindex <= 0)
        return false;
    dcn_hdr t = *h;
    t.pkt_id = 0; /* the kernel fills in these two, and the checksum */
    t.payload_len = 0;
    if (dcn_hdr_encode(&t, out->hdr, sizeof out->hdr) != KRELAY_HDR_LEN)
        return false;
    out->ifindex = (__u32)ifindex;
    out->port = (__u8)port;
    out->first_nha = h->nha[0];
    return true;
}

void krelay_neigh_of(const engine *e, unsigned nha, const int ifindex[ENGINE_MAX_PORTS], struct krelay_neigh *out)
{
    memset(out, 0, sizeof *out);
    const neigh_entry *ne = &e->nt.e[nha & 255];
    if (!ne->valid || ne->port >= ENGINE_MAX_PORTS)
        return;
    out->port = ne->port;
    out->ifindex = ifindex[ne->port] > 0 ? (__u32)ifindex[ne->port] : 0;
    out->up = eng_hop_usable(e, ne) && ne->heard && out->ifindex != 0;
    memcpy(out->mac, ne->mac, 6);
    memcpy(out->own_mac, e->port[ne->port].mac, 6);
}
