/* A forwarding engine wired to a fake clock and a capture of everything it
 * sends (the I/O seam), for the agent suites. Header-only (static inline) so the
 * unit-test glob needs no extra source. */
#ifndef DCN_AGENT_HARNESS_H
#define DCN_AGENT_HARNESS_H

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/engine.h"
#include "agent/os/pcap_io.h"
#include "testutil.h"

#define AH_MAX_OUT 256

typedef struct ah_frame {
    unsigned port;
    size_t len;
    uint8_t data[2048];
} ah_frame;

typedef struct harness {
    dcn_topo t;
    engine e;
    uint64_t now;
    ah_frame out[AH_MAX_OUT];
    int nout;
    uint8_t ip[2048];
    size_t iplen;
    int ndeliv;
    pcap_writer *capture; /* optional: every sent frame is also written here */
} harness;


static inline uint64_t h_now(void *ctx) { return ((harness *)ctx)->now; }

static inline int h_send(void *ctx, unsigned port, const uint8_t *frame, size_t len)
{
    harness *h = ctx;
    if (h->capture)
        pcapw_write(h->capture, frame, len, h->now * 1000 + 1);
    if (h->nout >= AH_MAX_OUT || len > sizeof h->out[0].data)
        return -1;
    ah_frame *f = &h->out[h->nout++];
    f->port = port;
    f->len = len;
    memcpy(f->data, frame, len);
    return 0;
}

static inline void h_deliver(void *ctx, const uint8_t *ip, size_t len)
{
    harness *h = ctx;
    ck_assert_uint_le(len, sizeof h->ip);
    memcpy(h->ip, ip, len);
    h->iplen = len;
    h->ndeliv++;
}

static inline void ah_mac(uint32_t s, unsigned p, uint8_t mac[6])
{
    const uint8_t m[6] = {0x02, 0, 0, (uint8_t)(s >> 8), (uint8_t)s, (uint8_t)p};
    memcpy(mac, m, 6);
}

static inline harness *ah_new_cfg(const char *spec, const char *self, const engine_config *cfg)
{
    harness *h = calloc(1, sizeof *h);
    ck_assert_ptr_nonnull(h);
    tu_build(&h->t, spec);
    h->now = 1000;
    engine_io io = {.ctx = h, .now_ms = h_now, .send_frame = h_send, .deliver_ip = h_deliver};
    ck_assert_int_eq(engine_init(&h->e, &h->t, tu_node(&h->t, self), cfg, &io), 0);
    for (unsigned p = 0; p < h->e.nports; p++) {
        engine_port *ep = &h->e.port[p];
        ep->present = true;
        ep->carrier = true;
        ep->capacity_mbps = 1000;
        ck_assert_int_lt(snprintf(ep->ifname, sizeof ep->ifname, "%s-eth%u", self, p), (int)sizeof ep->ifname);
        ah_mac(h->e.self, p, ep->mac);
    }
    return h;
}

static inline harness *ah_new(const char *spec, const char *self)
{
    engine_config cfg;
    engine_config_default(&cfg);
    return ah_new_cfg(spec, self, &cfg);
}

static inline void ah_free(harness *h)
{
    engine_fini(&h->e);
    dcn_topo_free(&h->t);
    free(h);
}

static inline size_t ah_frame_build(uint8_t *buf, uint8_t type, uint32_t src, uint32_t dst, const uint8_t *nha, unsigned nhops,
                      unsigned nhi, uint32_t avail, const uint8_t *payload, size_t plen)
{
    memset(buf, 0xee, 12);
    dcn_put16(buf + 12, DCN_ETHERTYPE);
    dcn_hdr hd = {.type = type, .nhops = (uint8_t)nhops, .nhi = (uint8_t)nhi, .src = src, .dst = dst,
                  .pkt_id = 7, .proto = type == DCN_T_DATA ? DCN_PROTO_IPV4 : 0, .payload_len = (uint16_t)plen,
                  .avail_mbps = avail, .nha = nha};
    size_t hl = dcn_hdr_encode(&hd, buf + 14, DCN_HDR_MAX);
    ck_assert_uint_gt(hl, 0);
    if (plen)
        memcpy(buf + 14 + hl, payload, plen);
    return 14 + hl + plen;
}

static inline void ah_hello(harness *h, unsigned port, uint32_t from, unsigned from_port)
{
    uint8_t buf[128], pl[DCN_HELLO_PAYLOAD] = {(uint8_t)from_port};
    size_t n = ah_frame_build(buf, DCN_T_HELLO, from, DCN_BROADCAST_ADDR, NULL, 0, 0, 0, pl, sizeof pl);
    memset(buf, 0xff, 6);
    ah_mac(from, from_port, buf + 6);
    engine_rx_frame(&h->e, port, buf, n);
}

/* A hello from from's port from_port that carries the set of neighbours
 * heard by its port said_port (from_port itself but in a forged hello). */
static inline void ah_hello_heard(harness *h, unsigned port, uint32_t from, unsigned from_port, unsigned said_port,
                                  uint64_t heard)
{
    uint8_t buf[128], pl[DCN_HELLO_PAYLOAD] = {(uint8_t)said_port, DCN_HELLO_F_HEARD};
    dcn_put64(pl + 8, heard);
    size_t n = ah_frame_build(buf, DCN_T_HELLO, from, DCN_BROADCAST_ADDR, NULL, 0, 0, 0, pl, sizeof pl);
    memset(buf, 0xff, 6);
    ah_mac(from, from_port, buf + 6);
    engine_rx_frame(&h->e, port, buf, n);
}

/* A hello from every neighbour of the table (from its port 0), then the
 * captured frames cleared: every neighbour up. */
static inline void ah_all_hellos(harness *h)
{
    for (unsigned i = 0; i < 256; i++)
        if (h->e.nt.e[i].valid)
            ah_hello(h, h->e.nt.e[i].port, h->e.nt.e[i].node, 0);
    h->nout = 0;
}

/* Hellos from every neighbour, each from the port it really uses towards
 * us (through a switch: the port to its own switch on the hop, across a
 * fibre the peer switch), so the neighbour table holds the MACs
 * ah_mac(node, that port); then the capture emptied. */
static inline void ah_hellos_from_true_ports(harness *h)
{
    for (unsigned i = 0; i < 256; i++) {
        const neigh_entry *ne = &h->e.nt.e[i];
        if (!ne->valid)
            continue;
        uint32_t via = dcn_peer(&h->t, h->e.self, ne->port).node;
        int from_port = -1;
        if (dcn_kind(&h->t, via) == DCN_SERVER) {
            from_port = dcn_topo_port_to(&h->t, ne->node, h->e.self);
        } else {
            /* the neighbour's own switch on this hop: via itself, or the
             * peer switch across a fiber */
            uint32_t hop[3];
            unsigned nv = nha_step(&h->t, h->e.self, (uint8_t)i, hop);
            ck_assert_uint_gt(nv, 0);
            from_port = dcn_topo_port_to(&h->t, ne->node, hop[nv - 2]);
        }
        ck_assert_int_ge(from_port, 0);
        ah_hello(h, ne->port, ne->node, (unsigned)from_port);
    }
    h->nout = 0;
}

static inline size_t ah_ipv4(uint8_t *buf, uint32_t a, uint32_t b, uint16_t sport, uint16_t dport, size_t len)
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
    for (size_t i = 28; i < len; i++)
        buf[i] = (uint8_t)i;
    return len;
}

/* A path selection counter of the engine, by name (dcn-ctl counters). */
static inline uint64_t ah_ps_counter(harness *h, const char *name)
{
    ps_counter pc[64];
    int n = ps_counters(h->e.ps, pc, 64);
    for (int i = 0; i < n; i++)
        if (strcmp(pc[i].name, name) == 0)
            return pc[i].value;
    ck_abort_msg("no path selection counter %s", name);
    return 0;
}

static inline const ah_frame *ah_find(const harness *h, uint8_t type)
{
    for (int i = 0; i < h->nout; i++)
        if (h->out[i].len > 15 && h->out[i].data[15] == type)
            return &h->out[i];
    return NULL;
}

#endif
