/* Harness: one server's forwarding engine fed a sequence of events, so
 * that state built by one frame (a neighbour heard, a flow and its probes,
 * a failed link, a path validated) meets the next: hello, data, path
 * failure, probe response, carrier changes and time passing, in any order.
 *
 * Input: byte 0 chooses the topology (bit 0, as fuzz_frame: BCube_1(n=4)
 * or a 2x2 MDCube of BCube_1(n=2)); byte 1 the server (modulo the
 * servers). Then up to SEQ_MAX records, each an operation byte, a 16-bit
 * big-endian length and that many bytes:
 *   op & 3 == 0  a frame from port data[0] (modulo the ports), the rest the
 *                Ethernet frame; with op & 4 its DCN header checksum is
 *                made good first (fuzz_engine.h);
 *   op & 3 == 1  an IPv4 packet from the TUN device;
 *   op & 3 == 2  time passes: data[0..1] x 10 ms, then the engine's tick;
 *   op & 3 == 3  carrier of port data[0] goes down (data[1] & 1 == 0) or up.
 * Every neighbour has said hello first, as in fuzz_frame. */
#include <stdlib.h>
#include <string.h>

#include "agent/core/engine.h"
#include "fuzz.h"
#include "fuzz_engine.h"

#define NTOPO 2
#define SEQ_MAX 64
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
    volatile uint8_t sum = 0; /* touch every byte, so a frame built past its buffer is seen */
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

static void event(uint8_t op, const uint8_t *d, size_t len)
{
    switch (op & 3u) {
    case 0:
        if (len < 1 || len - 1 > sizeof buf)
            return;
        memcpy(buf, d + 1, len - 1);
        if (op & 4u)
            fz_fix_header_csum(buf, len - 1);
        engine_rx_frame(eng, eng->nports ? d[0] % eng->nports : 0, buf, len - 1);
        return;
    case 1:
        if (len > sizeof buf - ENGINE_HEADROOM)
            return;
        memcpy(buf + ENGINE_HEADROOM, d, len);
        engine_from_tun(eng, buf, len);
        return;
    case 2:
        clock_ms += len >= 2 ? 10u * (uint64_t)(d[0] << 8 | d[1]) : 100u;
        engine_tick(eng);
        return;
    default:
        if (len >= 2 && eng->nports)
            engine_carrier(eng, d[0] % eng->nports, d[1] & 1u);
        return;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    const dcn_topo *t = get_topo(data[0] & 1u);
    uint32_t self = data[1] % t->n_servers;
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
    size_t off = 2;
    for (int n = 0; n < SEQ_MAX && off + 3 <= size; n++) {
        uint8_t op = data[off];
        size_t len = (size_t)(data[off + 1] << 8 | data[off + 2]);
        off += 3;
        if (len > size - off)
            len = size - off;
        event(op, data + off, len);
        off += len;
    }
    clock_ms += 5000;
    engine_tick(eng);
    engine_fini(eng);
    return 0;
}
