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

#define SEQ_MAX 64
static engine *eng;
static uint8_t buf[ENGINE_FRAME_MAX];

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
        fz_clock_ms += len >= 2 ? 10u * (uint64_t)(d[0] << 8 | d[1]) : 100u;
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
    const dcn_topo *t = fz_topo(data[0]);
    uint32_t self = data[1] % t->n_servers;
    if (!eng && !(eng = calloc(1, sizeof *eng)))
        abort();
    fz_engine_start(eng, t, self);
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
    fz_clock_ms += 5000;
    engine_tick(eng);
    engine_fini(eng);
    return 0;
}
