/* Harness: the agent's frame parser and forwarding decision. Drives the
 * forwarding engine through its I/O seam (engine_rx_frame/engine_from_tun,
 * frames out through a capture callback), as the unit tests do.
 *
 * Input: byte 0 chooses the topology (bit 0: BCube_1(n=4) or a 2x2 MDCube
 * of BCube_1(n=2)), the entry (bit 1: an IPv4 packet from TUN instead
 * of a frame from a port) and whether the frame's DCN header checksum is
 * made good first (bit 2: so that a mutated header gets past the checksum
 * to the checks behind it); the rest is the frame (or packet). The server
 * that receives a frame is the one its destination MAC names in the
 * scheme of tests/inspect/gen_capture.c (02:00:ss:ss:ss:port), so the seed
 * frames reach their relays and destinations; a TUN packet is sent by the
 * server in byte 1. Every neighbour has said hello first. */
#include <stdlib.h>
#include <string.h>

#include "agent/core/engine.h"
#include "fuzz.h"
#include "fuzz_engine.h"

static engine *eng;
static uint8_t buf[ENGINE_FRAME_MAX];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size - 1 > ENGINE_FRAME_MAX - ENGINE_HEADROOM)
        return 0;
    const dcn_topo *t = fz_topo(data[0]);
    bool tun = data[0] & 2u;
    const uint8_t *body = data + 1;
    size_t len = size - 1;
    uint32_t self;
    unsigned port = 0;
    if (tun) {
        self = body[0] % t->n_servers;
        body++;
        len--;
    } else if (len >= DCN_ETH_HLEN) {
        self = ((uint32_t)body[2] << 16 | (uint32_t)body[3] << 8 | body[4]) % t->n_servers;
        port = body[5];
    } else {
        self = 0;
    }
    if (!eng && !(eng = calloc(1, sizeof *eng)))
        abort();
    fz_engine_start(eng, t, self);
    if (tun) {
        memcpy(buf + ENGINE_HEADROOM, body, len);
        engine_from_tun(eng, buf, len);
    } else {
        memcpy(buf, body, len);
        if (data[0] & 4u)
            fz_fix_header_csum(buf, len);
        engine_rx_frame(eng, eng->nports ? port % eng->nports : 0, buf, len);
    }
    fz_clock_ms += 5000; /* timers: hellos due, neighbours expire, path selection ticks */
    engine_tick(eng);
    engine_fini(eng);
    return 0;
}
