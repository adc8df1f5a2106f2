/* The kernel data path's side in the agent, without privileges: what the
 * engine tells it (relayed_data, delivered_data and sent_data), the map
 * entries built from the engine's state (kernel/relay_entries.h), the
 * agent's copy of the kernel's flows (kernel/flow_mirror.h), and the
 * neighbour table's generation that tells the agent when to copy it. The
 * program itself runs on crafted frames in test_agent_bpf_relay.c (root)
 * and in network namespaces (tests/integration/test_kernel_relay.sh and
 * test_kernel_ends.sh). The relay
 * under test is h01 of BCube_1 with n=2: h00 -s0_0- h01 -s1_1- h11. */
#include <string.h>

#include <stdlib.h>

#include "agent/core/csum.h"
#include "agent/kernel/flow_mirror.h"
#include "agent/kernel/relay_entries.h"
#include "agent_harness.h"

enum { H00 = 0, H01 = 1, H10 = 2, H11 = 3 };
static const uint8_t RELAY_PATH[2] = {0x01, 0x41}; /* h00 -> h01 -> h11 */

/* relayed_data: the calls it got */
static int learned;
static unsigned learned_port;
static struct krelay_path_key learned_key;
static bool learned_eligible;
static void on_relayed(void *ctx, unsigned in_port, const dcn_hdr *h)
{
    (void)ctx;
    learned++;
    learned_port = in_port;
    learned_eligible = krelay_path_key_of(h, &learned_key);
}

static harness *relay_h01(void)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    h->e.io.relayed_data = on_relayed;
    ah_hello(h, 0, H00, 0);
    ah_hello(h, 1, H11, 1);
    h->nout = 0;
    learned = 0;
    memset(&learned_key, 0, sizeof learned_key);
    return h;
}

static size_t frame_of(uint8_t *buf, uint8_t type, uint32_t src, uint32_t dst, const uint8_t *nha, unsigned nhops,
                       unsigned nhi)
{
    uint8_t ip[100];
    ah_ipv4(ip, src, dst, 1000, 2000, sizeof ip);
    size_t plen = type == DCN_T_DATA ? sizeof ip : DCN_PROBE_PAYLOAD;
    return ah_frame_build(buf, type, src, dst, nha, nhops, nhi, 0, ip, plen);
}

/* The key the engine hands over is the one the program builds from the
 * frame's bytes: src, dst and the NHAs as they sit in the frame, NHI before
 * it is advanced. */
START_TEST(relayed_data_frame_is_learned_with_its_frame_key)
{
    harness *h = relay_h01();
    uint8_t buf[512], orig[512];
    size_t n = frame_of(buf, DCN_T_DATA, H00, H11, RELAY_PATH, 2, 1);
    memcpy(orig, buf, n);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_int_eq(h->nout, 1);
    ck_assert_int_eq(learned, 1);
    ck_assert_uint_eq(learned_port, 0);
    ck_assert(learned_eligible);
    const uint8_t *hdr = orig + DCN_ETH_HLEN;
    ck_assert_mem_eq(&learned_key.src, hdr + DCN_OFF_SRC, 4);
    ck_assert_mem_eq(&learned_key.dst, hdr + DCN_OFF_DST, 4);
    ck_assert_mem_eq(learned_key.nha, hdr + DCN_OFF_NHA, KRELAY_MAX_NHOPS);
    ck_assert_uint_eq(learned_key.nhops, 2);
    ck_assert_uint_eq(learned_key.nhi, 1);
    ah_free(h);
}
END_TEST

/* Only a data frame the engine really relayed teaches the kernel a path. */
START_TEST(nothing_else_is_learned)
{
    harness *h = relay_h01();
    uint8_t buf[512];
    size_t n = frame_of(buf, DCN_T_DATA, H00, H01, RELAY_PATH, 1, 1); /* for us: delivered */
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_int_eq(h->ndeliv, 1);
    n = frame_of(buf, DCN_T_DATA, H00, H11, RELAY_PATH, 2, 1); /* on the wrong port */
    engine_rx_frame(&h->e, 1, buf, n);
    ck_assert_uint_eq(h->e.c.drop_wrong_port, 1);
    n = frame_of(buf, DCN_T_PROBE, H00, H11, RELAY_PATH, 2, 1); /* a probe is relayed, not learned */
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.probe_relayed, 1);
    ck_assert_int_eq(learned, 0);
    engine_carrier(&h->e, 1, false); /* the next hop's port is down: not relayed */
    n = frame_of(buf, DCN_T_DATA, H00, H11, RELAY_PATH, 2, 1);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_next_hop_down, 1);
    ck_assert_int_eq(learned, 0);
    ah_free(h);
}
END_TEST

START_TEST(path_key_only_for_plain_short_relayed_data)
{
    static const uint8_t nha[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    dcn_hdr d = {.type = DCN_T_DATA, .nhops = 8, .nhi = 7, .src = 0x01020304, .dst = 0x0A0B0C0D, .nha = nha};
    struct krelay_path_key k;
    ck_assert(krelay_path_key_of(&d, &k));
    static const uint8_t src_be[4] = {1, 2, 3, 4};
    ck_assert_mem_eq(&k.src, src_be, 4);
    ck_assert_mem_eq(k.nha, nha, 8);
    ck_assert_uint_eq(k.pad[0] | k.pad[1], 0); /* hashed as bytes: padding must be zero */
    dcn_hdr bad = d;
    bad.nhops = 9, bad.nhi = 1; /* longer than the kernel relay's header */
    ck_assert(!krelay_path_key_of(&bad, &k));
    bad = d, bad.nhi = 8; /* at the destination */
    ck_assert(!krelay_path_key_of(&bad, &k));
    bad = d, bad.nhi = 0; /* at the source */
    ck_assert(!krelay_path_key_of(&bad, &k));
    bad = d, bad.flags = DCN_FLAG_MDCUBE; /* the container index must advance: the agent's */
    ck_assert(!krelay_path_key_of(&bad, &k));
    bad = d, bad.type = DCN_T_PROBE;
    ck_assert(!krelay_path_key_of(&bad, &k));
}
END_TEST

/* A neighbour entry is up only when the engine would use the hop and the
 * out port has an interface the relay is attached to. */
START_TEST(neighbor_entries_follow_the_engine)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    int ifindex[ENGINE_MAX_PORTS] = {7, 9};
    struct krelay_neigh n;
    krelay_neigh_of(&h->e, 0x41, ifindex, &n);
    ck_assert_uint_eq(n.up, 0); /* never heard */
    ah_hello(h, 1, H11, 1);
    krelay_neigh_of(&h->e, 0x41, ifindex, &n);
    ck_assert_uint_eq(n.up, 1);
    ck_assert_uint_eq(n.port, 1);
    ck_assert_uint_eq(n.ifindex, 9);
    uint8_t mac[6];
    ah_mac(H11, 1, mac);
    ck_assert_mem_eq(n.mac, mac, 6);
    ah_mac(H01, 1, mac);
    ck_assert_mem_eq(n.own_mac, mac, 6);
    int none[ENGINE_MAX_PORTS] = {7, 0};
    krelay_neigh_of(&h->e, 0x41, none, &n);
    ck_assert_uint_eq(n.up, 0); /* the relay is not attached to the out port */
    engine_carrier(&h->e, 1, false);
    krelay_neigh_of(&h->e, 0x41, ifindex, &n);
    ck_assert_uint_eq(n.up, 0);
    krelay_neigh_of(&h->e, 0x02, ifindex, &n); /* no such neighbour */
    ck_assert_uint_eq(n.up, 0);
    ck_assert_uint_eq(n.ifindex, 0);
    ah_free(h);
}
END_TEST

/* The generation moves when what the kernel relay copies moves, and only
 * then: the agent copies the table only when it changed. */
START_TEST(neighbor_generation_moves_with_the_table)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    uint32_t g = h->e.nt.gen;
    ah_hello(h, 1, H11, 1);
    ck_assert_uint_gt(h->e.nt.gen, g);
    g = h->e.nt.gen;
    ah_hello(h, 1, H11, 1); /* the same again */
    ck_assert_uint_eq(h->e.nt.gen, g);
    ah_hello(h, 1, H11, 0); /* another MAC for a live neighbour: refused, nothing moves */
    ck_assert_uint_eq(h->e.nt.gen, g);
    h->now += 10000; /* silent: expires */
    engine_tick(&h->e);
    ck_assert(!h->e.nt.e[0x41].up);
    ck_assert_uint_gt(h->e.nt.gen, g);
    g = h->e.nt.gen;
    ah_hello(h, 1, H11, 0); /* expired: the new MAC is learned */
    ck_assert_uint_gt(h->e.nt.gen, g);
    g = h->e.nt.gen;
    engine_carrier(&h->e, 0, false);
    ck_assert_uint_gt(h->e.nt.gen, g);
    ah_free(h);
}
END_TEST


/* delivered_data: the calls it got */
static int delivered;
static unsigned delivered_port;
static struct krelay_path_key delivered_key;
static bool delivered_eligible;
static void on_delivered(void *ctx, unsigned in_port, const dcn_hdr *h)
{
    (void)ctx;
    delivered++;
    delivered_port = in_port;
    delivered_eligible = krelay_delivery_key_of(h, &delivered_key);
}

/* A data frame delivered to the stack hands its path over, keyed as the
 * program keys the frame (NHI == nhops); a probe, or a data frame whose
 * IPv4 packet the agent refuses, does not. */
START_TEST(delivered_data_frame_is_handed_over_with_its_frame_key)
{
    harness *h = relay_h01();
    h->e.io.delivered_data = on_delivered;
    delivered = 0;
    uint8_t buf[512], orig[512];
    size_t n = frame_of(buf, DCN_T_DATA, H00, H01, RELAY_PATH, 1, 1);
    memcpy(orig, buf, n);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_int_eq(h->ndeliv, 1);
    ck_assert_int_eq(delivered, 1);
    ck_assert_uint_eq(delivered_port, 0);
    ck_assert(delivered_eligible);
    const uint8_t *hdr = orig + DCN_ETH_HLEN;
    ck_assert_mem_eq(&delivered_key.src, hdr + DCN_OFF_SRC, 4);
    ck_assert_mem_eq(&delivered_key.dst, hdr + DCN_OFF_DST, 4);
    ck_assert_uint_eq(delivered_key.nhops, 1);
    ck_assert_uint_eq(delivered_key.nhi, 1);
    ck_assert_uint_eq(delivered_key.nha[0], RELAY_PATH[0]);
    ck_assert_uint_eq(delivered_key.nha[1], 0); /* zero padded, as in the frame */
    n = frame_of(buf, DCN_T_PROBE, H00, H01, RELAY_PATH, 1, 1);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.probe_rx, 1);
    n = frame_of(buf, DCN_T_DATA, H00, H01, RELAY_PATH, 1, 1);
    buf[DCN_ETH_HLEN + DCN_HDR_BASE] = 0x65; /* not IPv4: dropped */
    dcn_put16(buf + DCN_ETH_HLEN + DCN_OFF_CSUM, 0);
    dcn_put16(buf + DCN_ETH_HLEN + DCN_OFF_CSUM, csum_compute(buf + DCN_ETH_HLEN, DCN_HDR_BASE));
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_bad_payload, 1);
    ck_assert_int_eq(delivered, 1);
    n = frame_of(buf, DCN_T_DATA, H00, H11, RELAY_PATH, 2, 1); /* relayed, not delivered */
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_int_eq(delivered, 1);
    ah_free(h);
}
END_TEST

START_TEST(delivery_key_only_for_plain_short_data_at_its_end)
{
    static const uint8_t nha[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    dcn_hdr d = {.type = DCN_T_DATA, .nhops = 8, .nhi = 8, .src = 1, .dst = 2, .nha = nha};
    struct krelay_path_key k;
    ck_assert(krelay_delivery_key_of(&d, &k));
    ck_assert_uint_eq(k.nhi, 8);
    dcn_hdr bad = d;
    bad.nhi = 7; /* a relay's */
    ck_assert(!krelay_delivery_key_of(&bad, &k));
    bad = d, bad.nhops = bad.nhi = 9;
    ck_assert(!krelay_delivery_key_of(&bad, &k));
    bad = d, bad.flags = DCN_FLAG_SEGMENTED; /* MDCube: extended, not delivered */
    ck_assert(!krelay_delivery_key_of(&bad, &k));
    bad = d, bad.type = DCN_T_PROBE;
    ck_assert(!krelay_delivery_key_of(&bad, &k));
    bad = d, bad.nhops = bad.nhi = 0;
    ck_assert(!krelay_delivery_key_of(&bad, &k));
}
END_TEST

/* sent_data: the calls it got */
static int sent;
static dcn_flow_key sent_flow;
static uint32_t sent_dst;
static unsigned sent_port;
static struct krelay_flow sent_entry;
static bool sent_eligible;
static void on_sent(void *ctx, const dcn_flow_key *k, uint32_t dst, const dcn_hdr *h, unsigned port)
{
    (void)ctx;
    sent++;
    sent_flow = *k;
    sent_dst = dst;
    sent_port = port;
    sent_eligible = krelay_flow_of(h, port, 40 + (int)port, &sent_entry);
}

/* A packet from the TUN device hands its flow over with the header it was
 * sent with: the kernel's entry is that header, less the three per-packet
 * fields the program fills in (packet id, payload length, checksum). */
START_TEST(sent_packet_hands_its_flow_and_header_over)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    h->e.io.sent_data = on_sent;
    sent = 0;
    ah_hello(h, 0, H00, 0);
    ah_hello(h, 1, H11, 1);
    uint8_t buf[ENGINE_HEADROOM + 200];
    ah_ipv4(buf + ENGINE_HEADROOM, H01, H10, 5, 6, 120);
    engine_from_tun(&h->e, buf, 120);
    const ah_frame *f = ah_find(h, DCN_T_DATA);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(sent, 1);
    ck_assert_uint_eq(sent_port, f->port);
    ck_assert_uint_eq(sent_dst, H10);
    ck_assert_uint_eq(sent_flow.src_port, 5);
    ck_assert_uint_eq(sent_flow.dst_port, 6);
    ck_assert(sent_eligible);
    ck_assert_uint_eq(sent_entry.ifindex, 40 + f->port);
    ck_assert_uint_eq(sent_entry.port, f->port);
    uint8_t want[KRELAY_HDR_LEN];
    memcpy(want, f->data + DCN_ETH_HLEN, KRELAY_HDR_LEN);
    memset(want + DCN_OFF_PKTID, 0, 2);
    memset(want + DCN_OFF_PLEN, 0, 4); /* payload length and checksum */
    uint8_t got[KRELAY_HDR_LEN];
    memcpy(got, sent_entry.hdr, KRELAY_HDR_LEN);
    memset(got + DCN_OFF_CSUM, 0, 2);
    ck_assert_mem_eq(got, want, KRELAY_HDR_LEN);
    ck_assert_uint_eq(sent_entry.first_nha, f->data[DCN_ETH_HLEN + DCN_OFF_NHA]);
    ah_free(h);
}
END_TEST

/* MDCube packets carry the extension: never the kernel's. */
START_TEST(mdcube_packets_are_not_handed_over)
{
    harness *h = ah_new("mdcube n=2 k=1 m=5", "h1_00");
    h->e.io.sent_data = on_sent;
    sent = 0;
    ah_all_hellos(h);
    uint8_t buf[ENGINE_HEADROOM + 200];
    ah_ipv4(buf + ENGINE_HEADROOM, h->e.self, h->e.self ^ 1, 5, 6, 120); /* in our container */
    engine_from_tun(&h->e, buf, 120);
    ck_assert_ptr_nonnull(ah_find(h, DCN_T_DATA));
    ck_assert_int_eq(sent, 0);
    dcn_hdr d = {.type = DCN_T_DATA, .flags = DCN_FLAG_MDCUBE, .nhops = 2, .nhi = 1, .nha = RELAY_PATH};
    struct krelay_flow v;
    ck_assert(!krelay_flow_of(&d, 0, 3, &v));
    ah_free(h);
}
END_TEST

/* Path selection's current path is read without a side effect: an
 * unknown flow is not created by asking. */
START_TEST(current_path_has_no_side_effect)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    ah_hello(h, 0, H00, 0);
    ah_hello(h, 1, H11, 1);
    dcn_flow_key k = {.src_ip = engine_ip_of(H01), .dst_ip = engine_ip_of(H10), .src_port = 5, .dst_port = 6, .proto = 6};
    ps_flow_info fi[4];
    ck_assert_ptr_null(ps_current(h->e.ps, &k, H10));
    ck_assert_int_eq(ps_flows(h->e.ps, fi, 4), 0);
    const dcn_path *p = ps_route(h->e.ps, &k, H10, 100);
    ck_assert_ptr_nonnull(p);
    ck_assert_ptr_eq(ps_current(h->e.ps, &k, H10), p);
    ck_assert_ptr_null(ps_current(h->e.ps, &k, H11)); /* the same 5-tuple to another server: not that flow */
    ck_assert_int_eq(ps_flows(h->e.ps, fi, 4), 1);
    ah_free(h);
}
END_TEST

/* The agent's copy of the kernel's flows against a plain list, through
 * adds and removals that collide and wrap: every key is found while it is
 * in, never after, and the table refuses the KRELAY_FLOWS + 1st. */
START_TEST(flow_mirror_agrees_with_a_plain_list)
{
    static flow_mirror m;
    memset(&m, 0, sizeof m);
    enum { N = 3 * KRELAY_FLOWS };
    static bool in[N];
    memset(in, 0, sizeof in);
    srand(7);
    unsigned count = 0;
    for (int step = 0; step < 40000; step++) {
        unsigned i = (unsigned)rand() % N;
        dcn_flow_key fk = {.src_ip = 0x0a000001, .dst_ip = 0x0a000100 + i / 7, .src_port = (uint16_t)(i % 7), .proto = 6};
        struct krelay_flow_key k = flow_mirror_key(&fk);
        flow_mirror_entry *e = flow_mirror_find(&m, &k);
        ck_assert(in[i] == (e != NULL));
        if (e) {
            ck_assert_mem_eq(&e->key, &k, sizeof k);
            flow_mirror_remove(&m, e);
            in[i] = false;
            count--;
        } else {
            e = flow_mirror_add(&m, &k);
            if (count == KRELAY_FLOWS) {
                ck_assert_ptr_null(e);
                continue;
            }
            ck_assert_ptr_nonnull(e);
            in[i] = true;
            count++;
        }
        ck_assert_uint_eq(m.n, count);
    }
    for (unsigned i = 0; i < N; i++) {
        dcn_flow_key fk = {.src_ip = 0x0a000001, .dst_ip = 0x0a000100 + i / 7, .src_port = (uint16_t)(i % 7), .proto = 6};
        struct krelay_flow_key k = flow_mirror_key(&fk);
        ck_assert(in[i] == (flow_mirror_find(&m, &k) != NULL));
    }
}
END_TEST

/* The map key is the flow's bytes as they sit in the IPv4 packet. */
START_TEST(flow_key_is_in_network_byte_order)
{
    dcn_flow_key fk = {.src_ip = 0x0a000102, .dst_ip = 0x0a000304, .src_port = 0x1234, .dst_port = 0x5678, .proto = 17};
    struct krelay_flow_key k = flow_mirror_key(&fk);
    static const uint8_t want[16] = {10, 0, 1, 2, 10, 0, 3, 4, 0x12, 0x34, 0x56, 0x78, 17, 0, 0, 0};
    ck_assert_uint_eq(sizeof k, 16);
    ck_assert_mem_eq(&k, want, 16);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_kernel_relay");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, relayed_data_frame_is_learned_with_its_frame_key);
    tcase_add_test(tc, nothing_else_is_learned);
    tcase_add_test(tc, path_key_only_for_plain_short_relayed_data);
    tcase_add_test(tc, neighbor_entries_follow_the_engine);
    tcase_add_test(tc, neighbor_generation_moves_with_the_table);
    tcase_add_test(tc, delivered_data_frame_is_handed_over_with_its_frame_key);
    tcase_add_test(tc, delivery_key_only_for_plain_short_data_at_its_end);
    tcase_add_test(tc, sent_packet_hands_its_flow_and_header_over);
    tcase_add_test(tc, mdcube_packets_are_not_handed_over);
    tcase_add_test(tc, current_path_has_no_side_effect);
    tcase_add_test(tc, flow_mirror_agrees_with_a_plain_list);
    tcase_add_test(tc, flow_key_is_in_network_byte_order);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
