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

#define NTOPO 2
static const char *const specs[NTOPO][4] = {{"bcube", "n=4", "k=1", NULL}, {"mdcube", "n=2", "k=1", "m=2x2"}};
static dcn_topo topo[NTOPO];
static int built[NTOPO];
static engine *eng;
static uint64_t clock_ms;
static uint8_t buf[ENGINE_FRAME_MAX];

static uint64_t f_now(void *ctx)
{
    (void)ctx;
    return clock_ms;
}

static int f_send(void *ctx, unsigned port, const uint8_t *frame, size_t len)
{
    (void)ctx;
    (void)port;
    /* touch every byte, so a frame built past its buffer is seen */
    volatile uint8_t sum = 0;
    for (size_t i = 0; i < len; i++)
        sum = (uint8_t)(sum + frame[i]);
    return 0;
}

static void f_deliver(void *ctx, const uint8_t *ip, size_t len)
{
    f_send(ctx, 0, ip, len);
}

static const dcn_topo *get_topo(unsigned i)
{
    if (!built[i]) {
        char err[256], *argv[3];
        int argc = 0;
        for (int w = 1; w < 4 && specs[i][w]; w++)
            argv[argc++] = (char *)specs[i][w];
        if (dcn_topo_build(&topo[i], specs[i][0], argc, argv, err, sizeof err) < 0)
            abort();
        built[i] = 1;
    }
    return &topo[i];
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2 || size - 1 > ENGINE_FRAME_MAX - ENGINE_HEADROOM)
        return 0;
    const dcn_topo *t = get_topo(data[0] & 1u);
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
    clock_ms = 1000;
    engine_config cfg;
    engine_config_default(&cfg);
    engine_io io = {.ctx = NULL, .now_ms = f_now, .send_frame = f_send, .deliver_ip = f_deliver};
    if (engine_init(eng, t, self, &cfg, &io) < 0)
        abort();
    for (unsigned p = 0; p < eng->nports; p++) {
        eng->port[p].present = eng->port[p].carrier = true;
        eng->port[p].capacity_mbps = 1000;
        fz_mac_of(self, p, eng->port[p].mac);
    }
    fz_all_hellos(eng);
    if (tun) {
        memcpy(buf + ENGINE_HEADROOM, body, len);
        engine_from_tun(eng, buf, len);
    } else {
        memcpy(buf, body, len);
        if (data[0] & 4u)
            fz_fix_header_csum(buf, len);
        engine_rx_frame(eng, eng->nports ? port % eng->nports : 0, buf, len);
    }
    clock_ms += 5000; /* timers: hellos due, neighbours expire, path selection ticks */
    engine_tick(eng);
    engine_fini(eng);
    return 0;
}
