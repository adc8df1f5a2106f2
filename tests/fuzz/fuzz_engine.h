/* What the harnesses that drive a forwarding engine (fuzz_ctl.c,
 * fuzz_frame.c, fuzz_sequence.c) share: the MAC scheme of tests/inspect/gen_capture.c and
 * the hellos that make every neighbour known. */
#ifndef DCN_FUZZ_ENGINE_H
#define DCN_FUZZ_ENGINE_H

#include <stdint.h>
#include <string.h>

#include "agent/core/csum.h"
#include "agent/core/engine.h"

/* Server s's port p: 02:00:ss:ss:ss:pp. */
static inline void fz_mac_of(uint32_t s, unsigned p, uint8_t mac[6])
{
    const uint8_t m[6] = {0x02, 0, (uint8_t)(s >> 16), (uint8_t)(s >> 8), (uint8_t)s, (uint8_t)p};
    memcpy(mac, m, 6);
}

/* Every neighbour of the engine's server says hello (from its port 0) on
 * the engine's port towards it. */
static inline void fz_all_hellos(engine *e)
{
    for (unsigned i = 0; i < 256; i++) {
        const neigh_entry *ne = &e->nt.e[i];
        if (!ne->valid)
            continue;
        uint8_t f[DCN_ETH_HLEN + DCN_HDR_BASE + DCN_HELLO_PAYLOAD] = {0};
        memset(f, 0xff, 6);
        fz_mac_of(ne->node, 0, f + 6);
        dcn_put16(f + 12, DCN_ETHERTYPE);
        dcn_hdr h = {.type = DCN_T_HELLO, .src = ne->node, .dst = DCN_BROADCAST_ADDR,
                     .payload_len = DCN_HELLO_PAYLOAD};
        size_t hl = dcn_hdr_encode(&h, f + DCN_ETH_HLEN, DCN_HDR_BASE);
        engine_rx_frame(e, ne->port, f, DCN_ETH_HLEN + hl + DCN_HELLO_PAYLOAD);
    }
}

/* The DCN header checksum of frame made good, when the frame is long
 * enough for the header its nhops, flags and container count say: a
 * mutated header then gets past the checksum to the checks behind it. */
static inline void fz_fix_header_csum(uint8_t *frame, size_t len)
{
    if (len < DCN_ETH_HLEN + DCN_HDR_FIXED || dcn_get16(frame + 12) != DCN_ETHERTYPE)
        return;
    uint8_t *h = frame + DCN_ETH_HLEN;
    size_t hlen = DCN_HDR_FIXED + dcn_nha_bytes(h[DCN_OFF_NHOPS]);
    if (h[DCN_OFF_FLAGS] & DCN_FLAG_MDCUBE) {
        if (DCN_ETH_HLEN + hlen + 1 > len)
            return;
        hlen += 8 + 4 * (size_t)h[hlen];
    }
    if (DCN_ETH_HLEN + hlen > len)
        return;
    dcn_put16(h + DCN_OFF_CSUM, 0);
    dcn_put16(h + DCN_OFF_CSUM, csum_compute(h, hlen));
}

#endif
