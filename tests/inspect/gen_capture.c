/* Writes the captures the inspection tests decode, made by the agent's own
 * engine and codec: a small network of engines (one per server, frames
 * carried between them by their MAC addresses, every frame on the wire
 * written to a pcap), plus malformed frames like the engine suite's corpus.
 *
 *   gen_capture OUTDIR   writes OUTDIR/bcube.pcap, OUTDIR/bcube.expect,
 *                        OUTDIR/mdcube.pcap, OUTDIR/mdcube.expect (source
 *                        routing), OUTDIR/mdcube-hier.pcap and
 *                        OUTDIR/mdcube-hier.expect (hierarchical routing:
 *                        segmented frames, a fibre cut, "unreachable")
 *
 * A .expect file has one tab-separated line per frame: number, type, src,
 * dst (names), nhi, nhops, the path as server names with the receiver
 * marked, the raw NHAs (port/index) with the hop being crossed marked, the
 * malformed token or "-", the MDCube extension "idx/count/flow/containers"
 * or "-", the inner IPv4 source and destination or "-", the source and
 * destination as numbers (or "-" when the header is unreadable), the
 * segmented flag (flags bit 1: 1 or 0; "-" when the header is unreadable),
 * the segment start of a decoded MDCube extension or "-", and the payload
 * of a decoded "unreachable" message of at least 16 bytes as
 * "flow/orig dst number/orig dst name/from container/to container" or "-".
 * Every data frame's
 * receiver (from its destination MAC) is checked to be server number NHI of
 * its path, so the NHI progression written here is the engine's, verified. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/csum.h"
#include "agent/core/engine.h"
#include "agent/core/mdc_route.h"
#include "agent/os/pcap_io.h"
#include "topo/family.h"

#define QMAX 1024
#define FMAX 2048

typedef struct qframe {
    uint32_t from;
    size_t len;
    uint8_t data[FMAX];
} qframe;

typedef struct net net;
typedef struct node_ctx {
    net *n;
    uint32_t self;
} node_ctx;

struct net {
    dcn_topo t;
    engine **e;
    node_ctx *ctx;
    uint64_t now_ms, ts_us;
    qframe *q;
    unsigned qhead, qtail;
    pcap_writer *w;
    FILE *expect;
    unsigned frames, delivered;
    int capture;         /* 0 while the neighbours learn each other */
    uint32_t cut[2];     /* a failed fibre (its two switches), or DCN_NONE */
    uint8_t last_unreach[FMAX]; /* the last "unreachable" frame recorded */
    size_t last_unreach_len;
};

static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "gen_capture: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(1);
}

static void mac_of(uint32_t s, unsigned port, uint8_t mac[6])
{
    const uint8_t m[6] = {0x02, 0, (uint8_t)(s >> 16), (uint8_t)(s >> 8), (uint8_t)s, (uint8_t)port};
    memcpy(mac, m, 6);
}

static uint64_t io_now(void *ctx) { return ((node_ctx *)ctx)->n->now_ms; }

static int io_send(void *ctx, unsigned port, const uint8_t *frame, size_t len)
{
    node_ctx *c = ctx;
    net *n = c->n;
    (void)port;
    if (len > FMAX || n->qtail - n->qhead >= QMAX)
        die("queue full or frame too long");
    qframe *f = &n->q[n->qtail++ % QMAX];
    f->from = c->self;
    f->len = len;
    memcpy(f->data, frame, len);
    return 0;
}

static void io_deliver(void *ctx, const uint8_t *ip, size_t len)
{
    (void)ip;
    (void)len;
    ((node_ctx *)ctx)->n->delivered++;
}

static void build(dcn_topo *t, const char *spec)
{
    char copy[128], *words[8], *save = NULL, err[256];
    int nw = 0;
    snprintf(copy, sizeof copy, "%s", spec);
    for (char *w = strtok_r(copy, " ", &save); w && nw < 8; w = strtok_r(NULL, " ", &save))
        words[nw++] = w;
    if (dcn_topo_build(t, words[0], nw - 1, words + 1, err, sizeof err) < 0)
        die("%s: %s", spec, err);
}

static void net_open(net *n, const char *spec, engine_mdcube_routing mdcube_routing, const char *dir, const char *base)
{
    memset(n, 0, sizeof *n);
    n->cut[0] = n->cut[1] = DCN_NONE;
    build(&n->t, spec);
    n->now_ms = 1000;
    n->ts_us = 1700000000ull * 1000000;
    n->q = calloc(QMAX, sizeof *n->q);
    n->e = calloc(n->t.n_servers, sizeof *n->e);
    n->ctx = calloc(n->t.n_servers, sizeof *n->ctx);
    if (!n->q || !n->e || !n->ctx)
        die("out of memory");
    engine_config cfg;
    engine_config_default(&cfg);
    cfg.mdcube_routing = mdcube_routing;
    for (uint32_t s = 0; s < n->t.n_servers; s++) {
        n->ctx[s] = (node_ctx){n, s};
        engine_io io = {.ctx = &n->ctx[s], .now_ms = io_now, .send_frame = io_send, .deliver_ip = io_deliver};
        n->e[s] = calloc(1, sizeof *n->e[s]);
        if (!n->e[s] || engine_init(n->e[s], &n->t, s, &cfg, &io) < 0)
            die("engine_init failed for server %u", s);
        for (unsigned p = 0; p < n->e[s]->nports; p++) {
            engine_port *ep = &n->e[s]->port[p];
            ep->present = ep->carrier = true;
            ep->capacity_mbps = 1000;
            snprintf(ep->ifname, sizeof ep->ifname, "s%u-eth%u", s & 0xffffu, p & 3u);
            mac_of(s, p, ep->mac);
        }
    }
    char path[512];
    snprintf(path, sizeof path, "%s/%s.pcap", dir, base);
    char err[256];
    n->w = pcapw_open(path, err, sizeof err);
    if (!n->w)
        die("%s", err);
    snprintf(path, sizeof path, "%s/%s.expect", dir, base);
    n->expect = fopen(path, "w");
    if (!n->expect)
        die("cannot write %s", path);
}

static void net_close(net *n)
{
    for (uint32_t s = 0; s < n->t.n_servers; s++) {
        engine_fini(n->e[s]);
        free(n->e[s]);
    }
    free(n->e);
    free(n->ctx);
    free(n->q);
    pcapw_close(n->w);
    fclose(n->expect);
    dcn_topo_free(&n->t);
}

/* A server's name, "*" for the broadcast address, else the number. */
static const char *name(const dcn_topo *t, uint32_t v)
{
    static char buf[4][DCN_NAME_MAX + 12];
    static int k;
    k = (k + 1) & 3;
    if (v == DCN_BROADCAST_ADDR)
        snprintf(buf[k], sizeof buf[k], "*");
    else if (v < t->n_servers)
        dcn_node_name(t, v, buf[k], sizeof buf[k]);
    else
        snprintf(buf[k], sizeof buf[k], "%u", v);
    return buf[k];
}

/* Writes one frame to the pcap and its expected decoding. receiver is the
 * server the frame is addressed to (DCN_NONE for broadcasts and frames
 * that are never delivered). */
static void record(net *n, const uint8_t *f, size_t len, const char *malformed, uint32_t receiver)
{
    pcapw_write(n->w, f, len, n->ts_us += 1000);
    n->frames++;
    FILE *o = n->expect;
    if (len < DCN_ETH_HLEN + DCN_HDR_FIXED || f[DCN_ETH_HLEN] != DCN_VERSION) {
        fprintf(o, "%u\t-\t-\t-\t-\t-\t-\t-\t%s\t-\t-\t-\t-\t-\t-\t-\t-\n", n->frames, malformed);
        return;
    }
    const uint8_t *p = f + DCN_ETH_HLEN;
    dcn_hdr h;
    memset(&h, 0, sizeof h);
    size_t hl;
    dcn_dec_result r = dcn_hdr_decode(p, len - DCN_ETH_HLEN, &h, &hl);
    char ty[16];
    if (p[1] >= DCN_T_DATA && p[1] <= DCN_T_UNREACH)
        snprintf(ty, sizeof ty, "%s", dcn_type_name(p[1]));
    else
        snprintf(ty, sizeof ty, "type-%u", p[1]);
    uint32_t src = dcn_get32(p + 4), dst = dcn_get32(p + 8);
    unsigned nhops = p[3], nhi = p[20];
    fprintf(o, "%u\t%s\t%s\t%s\t%u\t%u\t", n->frames, ty, name(&n->t, src), name(&n->t, dst), nhi, nhops);
    /* the path by names, when it walks */
    dcn_path path;
    unsigned bad;
    /* a segmented path ends where its current segment ends, not at dst */
    uint32_t end = (p[DCN_OFF_FLAGS] & DCN_FLAG_SEGMENTED) ? DCN_NONE : dst;
    int walks = strcmp(malformed, "-") == 0 && r == DCN_DEC_OK && nhops > 0 && nhi >= 1 && nhi <= nhops &&
                nha_walk(&n->t, src, end, p + DCN_OFF_NHA, nhops, &path, &bad) == NHA_WALK_OK;
    if (walks) {
        unsigned s = 0;
        for (uint32_t i = 0; i < path.len; i++) {
            if (path.node[i] >= n->t.n_servers)
                continue;
            fprintf(o, s == nhi ? "%s[%s]" : "%s%s", s ? "," : "", name(&n->t, path.node[i]));
            if (s == nhi && receiver != DCN_NONE && path.node[i] != receiver)
                die("frame %u: receiver %s is not server %u of the path", n->frames, name(&n->t, receiver), nhi);
            s++;
        }
    } else {
        fprintf(o, "-");
    }
    fprintf(o, "\t");
    if (nhops == 0)
        fprintf(o, "-");
    for (unsigned i = 0; i < nhops; i++) {
        uint8_t a = p[DCN_OFF_NHA + i];
        fprintf(o, i + 1 == nhi ? "%s[%u/%u]" : "%s%u/%u", i ? "," : "", nha_port(a), nha_index(a));
    }
    fprintf(o, "\t%s\t", malformed);
    if (r == DCN_DEC_OK && (h.flags & DCN_FLAG_MDCUBE)) {
        fprintf(o, "%u/%u/0x%08x/", h.container_idx, h.n_containers, h.flow_id);
        if (!h.n_containers)
            fprintf(o, "-");
        for (unsigned i = 0; i < h.n_containers; i++)
            fprintf(o, i ? ",%u" : "%u", h.container[i]);
    } else {
        fprintf(o, "-");
    }
    if (r == DCN_DEC_OK && h.type == DCN_T_DATA && h.payload_len >= 20) {
        const uint8_t *ip = p + hl;
        fprintf(o, "\t%u.%u.%u.%u\t%u.%u.%u.%u", ip[12], ip[13], ip[14], ip[15], ip[16], ip[17], ip[18], ip[19]);
    } else {
        fprintf(o, "\t-\t-");
    }
    fprintf(o, "\t%u\t%u\t%u\t", src, dst, (p[DCN_OFF_FLAGS] & DCN_FLAG_SEGMENTED) ? 1u : 0u);
    if (r == DCN_DEC_OK && (h.flags & DCN_FLAG_MDCUBE))
        fprintf(o, "%u", h.seg_start);
    else
        fprintf(o, "-");
    if (r == DCN_DEC_OK && h.type == DCN_T_UNREACH && h.payload_len >= DCN_UNREACH_PAYLOAD) {
        const uint8_t *pl = p + hl;
        fprintf(o, "\t0x%08x/%u/%s/%u/%u\n", dcn_get32(pl), dcn_get32(pl + 4), name(&n->t, dcn_get32(pl + 4)),
                dcn_get32(pl + 8), dcn_get32(pl + 12));
        if (len <= FMAX) {
            memcpy(n->last_unreach, f, len);
            n->last_unreach_len = len;
        }
    } else {
        fprintf(o, "\t-\n");
    }
}

/* The port of server v that faces switch sw (or sw's fiber peer), or -1. */
static int port_facing(const dcn_topo *t, uint32_t v, uint32_t sw)
{
    int f = nha_fiber_port(t, sw);
    uint32_t peer = f >= 0 ? dcn_peer(t, sw, (uint16_t)f).node : DCN_NONE;
    for (uint16_t p = 0; p < dcn_nports(t, v); p++) {
        uint32_t x = dcn_peer(t, v, p).node;
        if (x == sw || (peer != DCN_NONE && x == peer))
            return p;
    }
    return -1;
}

/* Whether frames between switches a and b are lost: the fibre is cut. */
static bool cut_between(const net *n, uint32_t a, uint32_t b)
{
    return n->cut[0] != DCN_NONE && a != b &&
           ((a == n->cut[0] && b == n->cut[1]) || (a == n->cut[1] && b == n->cut[0]));
}

/* Carries every queued frame to its receiver until the network is quiet.
 * A frame sent towards a cut fibre is captured (on the sender's port) but
 * never arrives. */
static void run(net *n)
{
    while (n->qhead != n->qtail) {
        qframe *f = &n->q[n->qhead++ % QMAX];
        uint8_t buf[FMAX];
        size_t len = f->len;
        memcpy(buf, f->data, len);
        uint32_t from = f->from;
        bool bcast = buf[0] == 0xff;
        if (!bcast) {
            uint32_t to = (uint32_t)buf[2] << 16 | (uint32_t)buf[3] << 8 | buf[4];
            if (n->capture)
                record(n, buf, len, "-", to);
            if (to < n->t.n_servers &&
                !cut_between(n, dcn_peer(&n->t, from, buf[11]).node, dcn_peer(&n->t, to, buf[5]).node))
                engine_rx_frame(n->e[to], buf[5], buf, len);
            continue;
        }
        if (n->capture)
            record(n, buf, len, "-", DCN_NONE);
        unsigned port = buf[11];
        uint32_t sw = dcn_peer(&n->t, from, (uint16_t)port).node;
        for (uint32_t v = 0; v < n->t.n_servers; v++) {
            int q = v == from ? -1 : port_facing(&n->t, v, sw);
            if (q >= 0 && !cut_between(n, sw, dcn_peer(&n->t, v, (uint16_t)q).node)) {
                uint8_t copy[FMAX];
                memcpy(copy, buf, len);
                engine_rx_frame(n->e[v], (unsigned)q, copy, len);
            }
        }
    }
}

/* Every server says hello twice, uncaptured: neighbours learn MACs, then
 * that they hear each other (liveness is two-way). */
static void learn(net *n)
{
    n->capture = 0;
    for (int round = 0; round < 2; round++) {
        for (uint32_t s = 0; s < n->t.n_servers; s++)
            engine_send_hellos(n->e[s]);
        run(n);
    }
    n->capture = 1;
}

/* The clock runs ms on in 100 ms ticks (hellos, the dead timer), uncaptured. */
static void advance(net *n, uint64_t ms)
{
    int capture = n->capture;
    n->capture = 0;
    for (uint64_t t = 0; t < ms; t += 100) {
        n->now_ms += 100;
        for (uint32_t s = 0; s < n->t.n_servers; s++)
            engine_tick(n->e[s]);
        run(n);
    }
    n->capture = capture;
}

static uint32_t node(const net *n, const char *nm)
{
    uint32_t v = dcn_node_lookup(&n->t, nm);
    if (v == DCN_NONE)
        die("no node %s", nm);
    return v;
}

static size_t ipv4(uint8_t *buf, uint32_t a, uint32_t b, uint16_t sport, uint16_t dport, size_t len)
{
    memset(buf, 0, len);
    buf[0] = 0x45;
    dcn_put16(buf + 2, (uint16_t)len);
    buf[8] = 64;
    buf[9] = 17;
    dcn_put32(buf + 12, engine_ip_of(a));
    dcn_put32(buf + 16, engine_ip_of(b));
    dcn_put16(buf + 20, sport);
    dcn_put16(buf + 22, dport);
    dcn_put16(buf + 24, (uint16_t)(len - 20));
    for (size_t i = 28; i < len; i++)
        buf[i] = (uint8_t)i;
    /* IPv4 header checksum, so Wireshark's ip dissector is content */
    dcn_put16(buf + 10, csum_compute(buf, 20));
    return len;
}

static void from_tun(net *n, const char *src, const char *dst, uint16_t sport, uint16_t dport)
{
    uint8_t buf[ENGINE_HEADROOM + 200];
    uint32_t a = node(n, src), b = node(n, dst);
    ipv4(buf + ENGINE_HEADROOM, a, b, sport, dport, 100);
    engine_from_tun(n->e[a], buf, 100);
    run(n);
    n->now_ms += 10;
}

/* A frame built with the codec along the given servers (src first), as if
 * sent by src: queued for the first hop and carried from there. */
static size_t frame_along(net *n, uint8_t *buf, uint8_t type, const char *const *servers, unsigned count,
                          const uint8_t *payload, size_t plen, uint32_t avail)
{
    dcn_path p = {.len = 0};
    for (unsigned i = 0; i < count; i++)
        dcn_path_push(&p, node(n, servers[i]));
    if (dcn_path_expand_servers(&p, &n->t) < 0)
        die("servers not adjacent");
    uint8_t nha[DCN_MAX_HOPS];
    int hops = nha_encode_path(&n->t, &p, nha, DCN_MAX_HOPS);
    if (hops <= 0)
        die("path not expressible");
    uint32_t src = p.node[0], next = node(n, servers[1]);
    dcn_hdr h = {.type = type, .nhops = (uint8_t)hops, .nhi = 1, .src = src, .dst = p.node[p.len - 1],
                 .pkt_id = 4242, .proto = type == DCN_T_DATA ? DCN_PROTO_IPV4 : 0, .payload_len = (uint16_t)plen,
                 .avail_mbps = avail, .nha = nha};
    size_t hl = dcn_hdr_encode(&h, buf + DCN_ETH_HLEN, DCN_HDR_MAX);
    int out = dcn_topo_port_to(&n->t, src, p.node[1]);
    int in = port_facing(&n->t, next, p.node[1]);
    if (!hl || out < 0 || (in < 0 && dcn_kind(&n->t, p.node[1]) == DCN_SWITCH))
        die("cannot build the frame");
    mac_of(next, in < 0 ? 0 : (unsigned)in, buf);
    mac_of(src, (unsigned)out, buf + 6);
    dcn_put16(buf + 12, DCN_ETHERTYPE);
    memcpy(buf + DCN_ETH_HLEN + hl, payload, plen);
    return DCN_ETH_HLEN + hl + plen;
}

static void send_along(net *n, uint8_t type, const char *const *servers, unsigned count, const uint8_t *pl,
                       size_t plen, uint32_t avail)
{
    node_ctx *c = &n->ctx[node(n, servers[0])];
    uint8_t buf[FMAX];
    size_t len = frame_along(n, buf, type, servers, count, pl, plen, avail);
    io_send(c, 0, buf, len);
    run(n);
    n->now_ms += 10;
}

/* A malformed frame: recorded, never delivered. */
static void bad(net *n, const uint8_t *f, size_t len, const char *why) { record(n, f, len, why, DCN_NONE); }

static void rechecksum(uint8_t *frame, size_t hl)
{
    uint8_t *h = frame + DCN_ETH_HLEN;
    dcn_put16(h + DCN_OFF_CSUM, 0);
    dcn_put16(h + DCN_OFF_CSUM, csum_compute(h, hl));
}

static void malformed_corpus(net *n)
{
    static const char *const two_hops[] = {"h00", "h03", "h13"};
    uint8_t good[FMAX], f[FMAX], ip[100];
    ipv4(ip, node(n, "h00"), node(n, "h13"), 1000, 2000, sizeof ip);
    size_t len = frame_along(n, good, DCN_T_DATA, two_hops, 3, ip, sizeof ip, 0);
    size_t hl = DCN_HDR_BASE;
    bad(n, good, 20, "truncated"); /* shorter than the header */
    bad(n, good, len - 1, "truncated"); /* shorter than the payload */
    memcpy(f, good, len);
    f[DCN_ETH_HLEN + 5] ^= 0x80;
    bad(n, f, len, "bad-checksum");
    memcpy(f, good, len);
    f[DCN_ETH_HLEN] = 7;
    rechecksum(f, hl);
    bad(n, f, len, "bad-version");
    memcpy(f, good, len);
    dcn_hdr_set_nhi(f + DCN_ETH_HLEN, 5);
    bad(n, f, len, "nhi-beyond-path");
    memcpy(f, good, len);
    dcn_hdr_set_nhi(f + DCN_ETH_HLEN, 0);
    bad(n, f, len, "nhi-zero");
    memcpy(f, good, len);
    f[DCN_ETH_HLEN + 1] = 0x42;
    rechecksum(f, hl);
    bad(n, f, len, "unknown-type");
    /* paths: a loop h00 h01 h00 h01, a non-neighbour, a path ending elsewhere, a bad source */
    static const uint8_t loop[3] = {0x01, 0x00, 0x01}, stranger[2] = {0x01, 0x40};
    const struct {
        const uint8_t *nha;
        unsigned nhops;
        uint32_t src, dst;
        const char *why;
    } paths[] = {
        {loop, 3, node(n, "h00"), node(n, "h01"), "loop"},
        {stranger, 2, node(n, "h00"), node(n, "h13"), "not-neighbor"},
        {good + DCN_ETH_HLEN + DCN_OFF_NHA, 2, node(n, "h00"), node(n, "h12"), "wrong-dst"},
        {good + DCN_ETH_HLEN + DCN_OFF_NHA, 2, 40000, node(n, "h13"), "bad-src"},
    };
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        memcpy(f, good, DCN_ETH_HLEN);
        dcn_hdr h = {.type = DCN_T_DATA, .nhops = (uint8_t)paths[i].nhops, .nhi = 1, .src = paths[i].src,
                     .dst = paths[i].dst, .pkt_id = 9, .proto = DCN_PROTO_IPV4, .payload_len = sizeof ip,
                     .nha = paths[i].nha};
        size_t l = dcn_hdr_encode(&h, f + DCN_ETH_HLEN, DCN_HDR_MAX);
        memcpy(f + DCN_ETH_HLEN + l, ip, sizeof ip);
        bad(n, f, DCN_ETH_HLEN + l + sizeof ip, paths[i].why);
    }
    /* the MDCube extension: a container count beyond 16, and cut short */
    memcpy(f, good, DCN_ETH_HLEN);
    dcn_hdr h = {.type = DCN_T_DATA, .flags = DCN_FLAG_MDCUBE, .nhops = 2, .nhi = 1, .src = node(n, "h00"),
                 .dst = node(n, "h13"), .pkt_id = 10, .proto = DCN_PROTO_IPV4, .payload_len = 0,
                 .nha = good + DCN_ETH_HLEN + DCN_OFF_NHA, .n_containers = 1, .container = {1}};
    size_t l = dcn_hdr_encode(&h, f + DCN_ETH_HLEN, DCN_HDR_MAX);
    f[DCN_ETH_HLEN + DCN_HDR_BASE] = 200;
    rechecksum(f, l);
    bad(n, f, DCN_ETH_HLEN + l, "bad-extension");
    l = dcn_hdr_encode(&h, f + DCN_ETH_HLEN, DCN_HDR_MAX);
    bad(n, f, DCN_ETH_HLEN + l - 2, "truncated");
}

static void bcube_capture(const char *dir)
{
    static net n;
    net_open(&n, "bcube n=4 k=1", ENGINE_MDCUBE_SOURCE, dir, "bcube");
    learn(&n);
    /* hellos of one server, on both its ports */
    engine_send_hellos(n.e[node(&n, "h00")]);
    run(&n);
    /* a flow from the TUN device: path selection, then hop by hop */
    from_tun(&n, "h00", "h13", 1000, 2000);
    from_tun(&n, "h00", "h13", 1000, 2000);
    /* a three-hop path: NHI 1, 2 and 3 */
    static const char *const three[] = {"h00", "h10", "h11", "h01"};
    uint8_t ip[100];
    ipv4(ip, node(&n, "h00"), node(&n, "h01"), 7000, 7001, sizeof ip);
    send_along(&n, DCN_T_DATA, three, 4, ip, sizeof ip, 0);
    /* a probe along two hops; the destination answers with a response */
    static const char *const two[] = {"h00", "h03", "h13"};
    uint8_t probe[DCN_PROBE_PAYLOAD] = {0, 0, 0, 9};
    send_along(&n, DCN_T_PROBE, two, 3, probe, sizeof probe, 800);
    /* a relay whose next hop is gone answers with a path failure; the
     * flow from h00 to h13 then leaves that path */
    uint32_t h03 = node(&n, "h03");
    engine_carrier(n.e[h03], 1, false);
    ipv4(ip, node(&n, "h00"), node(&n, "h13"), 1000, 2000, sizeof ip);
    send_along(&n, DCN_T_DATA, two, 3, ip, sizeof ip, 0);
    from_tun(&n, "h00", "h13", 1000, 2000);
    engine_carrier(n.e[h03], 1, true);
    run(&n);
    malformed_corpus(&n);
    fprintf(stderr, "gen_capture: bcube: %u frames, %u delivered\n", n.frames, n.delivered);
    net_close(&n);
}

static void mdcube_capture(const char *dir)
{
    static net n;
    /* the MDCube capture shows source routing (the pages quote it) */
    net_open(&n, "mdcube n=2 k=1 m=2x2", ENGINE_MDCUBE_SOURCE, dir, "mdcube");
    learn(&n);
    from_tun(&n, "h0_00", "h3_11", 5000, 6000);
    from_tun(&n, "h0_00", "h3_11", 5000, 6000);
    from_tun(&n, "h1_01", "h2_10", 5001, 6001);
    fprintf(stderr, "gen_capture: mdcube: %u frames, %u delivered\n", n.frames, n.delivered);
    net_close(&n);
}

/* The source's entry of a flow it created at time t for dst, or NULL. */
static const mdc_entry *source_entry(net *n, uint32_t src, uint32_t dst, uint64_t t)
{
    const mdc_entry *all[MDC_SLOTS];
    int k = mdc_entries(n->e[src]->hier, all, MDC_SLOTS, n->now_ms);
    for (int i = 0; i < k; i++)
        if (all[i]->source && all[i]->dst == dst && all[i]->created_ms == t)
            return all[i];
    return NULL;
}

/* Hierarchical MDCube routing (docs/protocol.md) on the paper's 1-D MDCube
 * of 5 containers, as in tests/unit/test_agent_mdcube_hier.c: a flow from
 * h3_11 to h4_00 whose random jump crosses container 1, its segmented
 * frames (each container's entry server appends its segment); then the
 * fibre between containers 1 and 4 is cut and the dead timer runs out
 * (uncaptured): the next packet dies before the fibre, and the relay there
 * sends "unreachable" back to the source and the path failure to the
 * segment's owner in container 1; the source draws another jump for the
 * packet after. Last, that "unreachable" message with its payload length
 * cut to 8 bytes. */
static void hier_capture(const char *dir)
{
    static net n;
    net_open(&n, "mdcube n=2 k=1 m=5", ENGINE_MDCUBE_HIER, dir, "mdcube-hier");
    learn(&n);
    uint32_t src = node(&n, "h3_11"), dst = node(&n, "h4_00");
    if (!n.e[src]->hier)
        die("no hierarchical routing on the MDCube");
    /* a source port whose flow's jump goes through container 1 (uncaptured) */
    uint16_t sport = 0;
    n.capture = 0;
    for (uint16_t p = 2000; p < 2200 && !sport; p++) {
        uint64_t t = n.now_ms;
        from_tun(&n, "h3_11", "h4_00", p, 5201);
        const mdc_entry *x = source_entry(&n, src, dst, t);
        if (x && x->n_containers == 1 && x->container[0] == 1)
            sport = p;
    }
    if (!sport)
        die("no flow of h3_11 drew container 1");
    n.capture = 1;
    unsigned before = n.delivered;
    from_tun(&n, "h3_11", "h4_00", sport, 5201);
    if (n.delivered != before + 1)
        die("the flow through container 1 was not delivered");
    n.cut[0] = node(&n, "s1_x1");
    n.cut[1] = node(&n, "s4_1x");
    advance(&n, 3500);
    uint64_t unreach = n.e[src]->c.unreach_rx;
    int sends = 0;
    while (n.e[src]->c.unreach_rx == unreach) {
        if (++sends > 8)
            die("no unreachable message reached the source");
        from_tun(&n, "h3_11", "h4_00", sport, 5201);
        advance(&n, 100);
    }
    before = n.delivered;
    from_tun(&n, "h3_11", "h4_00", sport, 5201); /* the new jump */
    if (n.delivered != before + 1)
        die("the flow's new jump was not delivered");
    if (!n.last_unreach_len || n.last_unreach[DCN_ETH_HLEN + DCN_OFF_FLAGS] != 0)
        die("no unreachable frame (without the MDCube extension) captured");
    uint8_t f[FMAX];
    size_t hl = DCN_HDR_FIXED + dcn_nha_bytes(n.last_unreach[DCN_ETH_HLEN + DCN_OFF_NHOPS]);
    memcpy(f, n.last_unreach, DCN_ETH_HLEN + hl + 8);
    dcn_put16(f + DCN_ETH_HLEN + DCN_OFF_PLEN, 8);
    rechecksum(f, hl);
    record(&n, f, DCN_ETH_HLEN + hl + 8, "-", DCN_NONE); /* no malformed token: the codec accepts the header */
    fprintf(stderr, "gen_capture: mdcube-hier: %u frames, %u delivered\n", n.frames, n.delivered);
    net_close(&n);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: gen_capture OUTDIR\n");
        return 2;
    }
    bcube_capture(argv[1]);
    if (dcn_family_find("mdcube")) {
        mdcube_capture(argv[1]);
        hier_capture(argv[1]);
    }
    return 0;
}
