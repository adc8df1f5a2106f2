/* Driver for the callgrind test (callgrind_relay.sh): one relay server of
 * HCN(4,2) forwards COUNT data packets of a path of HOPS server hops (2 or
 * 8) on which it is the first relay (NHI = 1). relay_packets() is what the
 * test measures; the first packet, which validates the path once, is sent
 * before it. Exit 0 when every measured packet was relayed.
 *
 *   callgrind_relay HOPS COUNT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/engine.h"
#include "topo/bfs.h"
#include "topo/family.h"

static uint64_t sent;

static uint64_t fake_now(void *ctx)
{
    (void)ctx;
    return 1000;
}

static int fake_send(void *ctx, unsigned port, const uint8_t *frame, size_t len)
{
    (void)ctx;
    (void)port;
    (void)frame;
    (void)len;
    sent++;
    return 0;
}

static void fake_deliver(void *ctx, const uint8_t *ip, size_t len)
{
    (void)ctx;
    (void)ip;
    (void)len;
}

/* The measured function: kept out of line so callgrind can toggle on it. */
__attribute__((noinline)) void relay_packets(engine *e, unsigned port, const uint8_t *frame, size_t len,
                                             uint8_t *buf, unsigned count);
__attribute__((noinline)) void relay_packets(engine *e, unsigned port, const uint8_t *frame, size_t len,
                                             uint8_t *buf, unsigned count)
{
    for (unsigned i = 0; i < count; i++) {
        memcpy(buf, frame, len); /* the relay rewrites the frame in place */
        engine_rx_frame(e, port, buf, len);
    }
}

static int fail(const char *msg)
{
    fprintf(stderr, "callgrind_relay: %s\n", msg);
    return 2;
}

/* A loop-free node path src -> relay -> ... of `hops` server hops: the hop
 * from src into the relay, then the BFS path from the relay (avoiding src)
 * to the first server that makes the count. */
static int build_path(const dcn_topo *t, uint32_t relay, uint32_t src, unsigned hops, dcn_path *out)
{
    uint8_t *avoid = calloc(dcn_n_nodes(t), 1);
    if (!avoid)
        return -1;
    avoid[src] = 1;
    dcn_path head, tail;
    int rc = -1;
    if (dcn_bfs_path(t, src, relay, NULL, NULL, &head) < 0 || dcn_path_server_hops(&head, t) != 1)
        goto done;
    for (uint32_t i = 0; head.len > 2 && i + 1 < head.len; i++)
        avoid[head.node[i]] = 1; /* the switch src and relay share */
    for (uint32_t d = 0; d < t->n_servers; d++) {
        if (d == relay || d == src || dcn_bfs_path(t, relay, d, NULL, avoid, &tail) < 0)
            continue;
        if (dcn_path_server_hops(&tail, t) + 1 != hops)
            continue;
        *out = head;
        if (dcn_path_append(out, &tail) < 0)
            continue;
        rc = 0;
        break;
    }
done:
    free(avoid);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return fail("usage: callgrind_relay HOPS COUNT");
    unsigned hops = (unsigned)atoi(argv[1]), count = (unsigned)atoi(argv[2]);
    if (hops < 2 || hops > 8 || count == 0)
        return fail("HOPS is 2..8, COUNT > 0");
    const dcn_family *fam = dcn_family_find("hcn");
    if (!fam)
        return fail("no hcn family");
    char *args[] = {"n=4", "h=2"};
    dcn_topo t;
    char err[200];
    if (dcn_topo_build(&t, "hcn", 2, args, err, sizeof err) < 0)
        return fail(err);
    uint32_t relay = 5;
    static engine e;
    engine_config cfg;
    engine_config_default(&cfg);
    engine_io io = {.ctx = NULL, .now_ms = fake_now, .send_frame = fake_send, .deliver_ip = fake_deliver};
    if (engine_init(&e, &t, relay, &cfg, &io) < 0)
        return fail("engine_init");
    for (unsigned p = 0; p < e.nports; p++) {
        e.port[p].present = e.port[p].carrier = true;
        e.port[p].capacity_mbps = 1000;
        e.port[p].mac[5] = (uint8_t)p;
    }
    /* every neighbour up, as after its first hello */
    for (unsigned i = 0; i < 256; i++)
        if (e.nt.e[i].valid) {
            e.nt.e[i].up = e.nt.e[i].heard = 1;
            e.nt.e[i].mac[5] = (uint8_t)i;
        }
    /* src: the first neighbour of the relay */
    uint32_t src = DCN_NONE;
    for (unsigned i = 0; i < 256 && src == DCN_NONE; i++)
        if (e.nt.e[i].valid)
            src = e.nt.e[i].node;
    dcn_path path;
    if (build_path(&t, relay, src, hops, &path) < 0)
        return fail("no path of that many hops through the relay");
    uint8_t nha[DCN_MAX_HOPS];
    if (nha_encode_path(&t, &path, nha, DCN_MAX_HOPS) != (int)hops)
        return fail("path not expressible");
    /* the frame as src sends it: NHI = 1, a 100-byte IPv4 packet */
    static uint8_t frame[512], buf[512];
    uint32_t dst = path.node[path.len - 1];
    memset(frame, 0xee, 12);
    dcn_put16(frame + 12, DCN_ETHERTYPE);
    dcn_hdr h = {.type = DCN_T_DATA, .nhops = (uint8_t)hops, .nhi = 1, .src = src, .dst = dst, .pkt_id = 1,
                 .proto = DCN_PROTO_IPV4, .payload_len = 100, .nha = nha};
    size_t hl = dcn_hdr_encode(&h, frame + DCN_ETH_HLEN, DCN_HDR_MAX);
    if (hl != DCN_HDR_BASE)
        return fail("header is not 36 bytes");
    uint8_t *ip = frame + DCN_ETH_HLEN + hl;
    ip[0] = 0x45;
    dcn_put16(ip + 2, 100);
    ip[9] = 17;
    dcn_put32(ip + 12, engine_ip_of(src));
    dcn_put32(ip + 16, engine_ip_of(dst));
    size_t len = DCN_ETH_HLEN + hl + 100;
    int in_port = dcn_topo_port_to(&t, relay, path.node[nha_server_pos(&t, &path, 1) - 1]);
    if (in_port < 0)
        return fail("no ingress port");
    memcpy(buf, frame, len); /* the first packet validates the path, outside the measured function */
    engine_rx_frame(&e, (unsigned)in_port, buf, len);
    if (sent != 1)
        return fail("the first packet was not relayed");
    relay_packets(&e, (unsigned)in_port, frame, len, buf, count);
    printf("hops %u relayed %llu of %u\n", hops, (unsigned long long)(sent - 1), count);
    int ok = sent == (uint64_t)count + 1;
    engine_fini(&e);
    dcn_topo_free(&t);
    return ok ? 0 : 1;
}
