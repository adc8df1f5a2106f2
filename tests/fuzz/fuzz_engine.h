/* What the harnesses that drive a forwarding engine (fuzz_ctl.c,
 * fuzz_frame.c, fuzz_sequence.c) share: the MAC scheme of tests/inspect/gen_capture.c and
 * the hellos that make every neighbour known. */
#ifndef DCN_FUZZ_ENGINE_H
#define DCN_FUZZ_ENGINE_H

#include <stdint.h>
#include <stdlib.h>
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

/* The two topologies of fuzz_frame and fuzz_sequence (input byte 0, bit
 * 0): BCube_1(n=4) and a 2x2 MDCube of BCube_1(n=2), built once. */
static inline const dcn_topo *fz_topo(unsigned which)
{
    static const char *const specs[2][4] = {{"bcube", "n=4", "k=1", NULL}, {"mdcube", "n=2", "k=1", "m=2x2"}};
    static dcn_topo topo[2];
    static int built[2];
    which &= 1u;
    if (!built[which]) {
        char err[256], *argv[3];
        int argc = 0;
        for (int w = 1; w < 4 && specs[which][w]; w++)
            argv[argc++] = (char *)specs[which][w];
        if (dcn_topo_build(&topo[which], specs[which][0], argc, argv, err, sizeof err) < 0)
            abort();
        built[which] = 1;
    }
    return &topo[which];
}

/* The engine's clock and outputs: every byte sent or delivered is read,
 * so a frame built past its buffer is seen. */
static uint64_t fz_clock_ms;

static inline uint64_t fz_now(void *ctx)
{
    (void)ctx;
    return fz_clock_ms;
}

static inline int fz_send(void *ctx, unsigned port, const uint8_t *frame, size_t len)
{
    (void)ctx;
    (void)port;
    volatile uint8_t sum = 0;
    for (size_t i = 0; i < len; i++)
        sum = (uint8_t)(sum + frame[i]);
    return 0;
}

static inline void fz_deliver(void *ctx, const uint8_t *ip, size_t len)
{
    fz_send(ctx, 0, ip, len);
}

/* The flow table of a fuzzed engine: small, so that building one costs
 * little (the agent's 1024 flows are 11 MB, allocated and zeroed per
 * input) and a sequence of inputs can fill it. */
#define FZ_MAX_FLOWS 16

/* e (allocated once by the caller) made server self of t at 1000 ms,
 * every port present with carrier at 1000 Mb/s and every neighbour heard. */
static inline void fz_engine_start(engine *e, const dcn_topo *t, uint32_t self)
{
    fz_clock_ms = 1000;
    engine_config cfg;
    engine_config_default(&cfg);
    cfg.max_flows = FZ_MAX_FLOWS;
    engine_io io = {.ctx = NULL, .now_ms = fz_now, .send_frame = fz_send, .deliver_ip = fz_deliver};
    if (engine_init(e, t, self, &cfg, &io) < 0)
        abort();
    for (unsigned p = 0; p < e->nports; p++) {
        e->port[p].present = e->port[p].carrier = true;
        e->port[p].capacity_mbps = 1000;
        fz_mac_of(self, p, e->port[p].mac);
    }
    fz_all_hellos(e);
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
