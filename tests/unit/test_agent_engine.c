/* Agent data plane: the forwarding engine's decisions and every malformed
 * input, driven through the I/O seam (frames in, captured frames out), and
 * a replay of a recorded pcap corpus. The relay under test is h01 of
 * BCube_1 with n=2: h00 -s0_0- h01 -s1_1- h11. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "agent/core/csum.h"
#include "agent/core/engine_internal.h"
#include "agent_harness.h"

enum { H00 = 0, H01 = 1, H10 = 2, H11 = 3 };
static const uint8_t RELAY_PATH[2] = {0x01, 0x41}; /* h00 -> h01 -> h11 */

static harness *relay_with_neighbors(void)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    ah_hello(h, 0, H00, 0);
    ah_hello(h, 1, H11, 1);
    ck_assert_uint_eq(h->e.c.hello_rx, 2);
    h->nout = 0;
    return h;
}

static size_t data_frame(uint8_t *buf, uint32_t src, uint32_t dst, const uint8_t *nha, unsigned nhops, unsigned nhi)
{
    uint8_t ip[100];
    ah_ipv4(ip, src, dst, 1000, 2000, sizeof ip);
    return ah_frame_build(buf, DCN_T_DATA, src, dst, nha, nhops, nhi, 0, ip, sizeof ip);
}

static uint64_t drops(const engine *e)
{
    return e->c.drop_truncated + e->c.drop_bad_checksum + e->c.drop_bad_version + e->c.drop_nhi_beyond_path +
           e->c.drop_unknown_type + e->c.drop_not_neighbor + e->c.drop_loop + e->c.drop_bad_path +
           e->c.drop_not_on_path + e->c.drop_bad_payload + e->c.drop_not_dcn + e->c.drop_bad_extension;
}

START_TEST(neighbor_table_from_topology)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    ck_assert_uint_eq(h->e.nt.n_valid, 2);
    ck_assert(h->e.nt.e[0x00].valid && h->e.nt.e[0x00].node == H00 && h->e.nt.e[0x00].port == 0);
    ck_assert(h->e.nt.e[0x41].valid && h->e.nt.e[0x41].node == H11 && h->e.nt.e[0x41].port == 1);
    ck_assert(!h->e.nt.e[0x00].up);
    ck_assert(!engine_ready(&h->e, NULL, NULL));
    ah_hello(h, 0, H00, 0);
    ah_hello(h, 1, H11, 1);
    ck_assert(h->e.nt.e[0x00].up && h->e.nt.e[0x41].up);
    uint8_t mac[6];
    ah_mac(H11, 1, mac);
    ck_assert_mem_eq(h->e.nt.e[0x41].mac, mac, 6);
    ck_assert(engine_ready(&h->e, NULL, NULL));
    ah_free(h);
}
END_TEST

START_TEST(hellos_are_sent_on_every_port)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    engine_tick(&h->e); /* first tick: hello due */
    ck_assert_int_eq(h->nout, 2);
    ck_assert_uint_eq(h->e.c.hello_tx, 2);
    for (int i = 0; i < 2; i++) {
        dcn_hdr d;
        size_t hl;
        ck_assert_int_eq(dcn_hdr_decode(h->out[i].data + 14, h->out[i].len - 14, &d, &hl), DCN_DEC_OK);
        ck_assert_uint_eq(d.type, DCN_T_HELLO);
        ck_assert_uint_eq(d.src, H01);
        ck_assert_uint_eq(h->out[i].data[0], 0xff);
        ck_assert_uint_eq(h->out[i].port, (unsigned)i);
    }
    h->now += 500;
    engine_tick(&h->e);
    ck_assert_int_eq(h->nout, 2); /* not yet due */
    h->now += 500;
    engine_tick(&h->e);
    ck_assert_int_eq(h->nout, 4);
    ah_free(h);
}
END_TEST

START_TEST(relay_forwards_with_one_lookup)
{
    harness *h = relay_with_neighbors();
    uint8_t buf[512];
    size_t n = data_frame(buf, H00, H11, RELAY_PATH, 2, 1);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_int_eq(h->nout, 1);
    const ah_frame *f = &h->out[0];
    ck_assert_uint_eq(f->port, 1);
    ck_assert_uint_eq(f->len, n);
    uint8_t mac[6];
    ah_mac(H11, 1, mac);
    ck_assert_mem_eq(f->data, mac, 6);
    ah_mac(H01, 1, mac);
    ck_assert_mem_eq(f->data + 6, mac, 6);
    dcn_hdr d;
    size_t hl;
    ck_assert_int_eq(dcn_hdr_decode(f->data + 14, f->len - 14, &d, &hl), DCN_DEC_OK); /* checksum still right */
    ck_assert_uint_eq(d.nhi, 2);
    ck_assert_mem_eq(f->data + 14 + hl, buf + 14 + hl, 100);
    ck_assert_uint_eq(h->e.c.relayed, 1);
    ah_free(h);
}
END_TEST

/* The agent's send_rx_frame: records which frame it was handed. */
static const uint8_t *rx_sent_at;
static size_t rx_sent_len;
static int rx_sent;
static int record_send_rx(void *ctx, unsigned port, const uint8_t *frame, size_t len)
{
    (void)ctx;
    (void)port;
    rx_sent_at = frame;
    rx_sent_len = len;
    rx_sent++;
    return 0;
}

/* A relayed frame goes out through send_rx_frame, as the very buffer it came
 * in (the agent queues a reference, no copy); frames the engine builds
 * itself (from TUN, hellos) go through send_frame, which copies. */
START_TEST(relay_sends_the_received_buffer_itself)
{
    harness *h = relay_with_neighbors();
    h->e.io.send_rx_frame = record_send_rx;
    rx_sent = 0;
    uint8_t buf[512];
    size_t n = data_frame(buf, H00, H11, RELAY_PATH, 2, 1);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_int_eq(rx_sent, 1);
    ck_assert_ptr_eq(rx_sent_at, buf);
    ck_assert_uint_eq(rx_sent_len, n);
    ck_assert_int_eq(h->nout, 0);
    ck_assert_uint_eq(h->e.c.relayed, 1);
    ck_assert_uint_eq(h->e.port[1].tx_frames, 1); /* counted as any frame sent */
    uint8_t ip[ENGINE_HEADROOM + 200];
    ah_ipv4(ip + ENGINE_HEADROOM, H01, H00, 5, 6, 120);
    engine_from_tun(&h->e, ip, 120);
    engine_send_hellos(&h->e);
    ck_assert_int_eq(rx_sent, 1);
    ck_assert_ptr_nonnull(ah_find(h, DCN_T_DATA));
    ck_assert_ptr_nonnull(ah_find(h, DCN_T_HELLO));
    ah_free(h);
}
END_TEST

START_TEST(destination_strips_the_header)
{
    harness *h = relay_with_neighbors();
    uint8_t buf[512], ip[100];
    const uint8_t one_hop[1] = {0x01};
    size_t n = data_frame(buf, H00, H01, one_hop, 1, 1);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_int_eq(h->ndeliv, 1);
    ah_ipv4(ip, H00, H01, 1000, 2000, sizeof ip);
    ck_assert_uint_eq(h->iplen, sizeof ip);
    ck_assert_mem_eq(h->ip, ip, sizeof ip);
    ck_assert_int_eq(h->nout, 0);
    ck_assert_uint_eq(h->e.c.rx_data_delivered, 1);
    ah_free(h);
}
END_TEST

/* An IPv4 packet claiming a total length below its own header (0 here)
 * would be an empty TUN write: dropped and counted, nothing delivered. */
START_TEST(ip_total_length_below_header_is_dropped)
{
    harness *h = relay_with_neighbors();
    const uint8_t one_hop[1] = {0x01};
    static const uint16_t bad_len[] = {0, 1, 19};
    for (size_t i = 0; i < sizeof bad_len / sizeof bad_len[0]; i++) {
        uint8_t buf[512], ip[100];
        ah_ipv4(ip, H00, H01, 1000, 2000, sizeof ip);
        dcn_put16(ip + 2, bad_len[i]);
        size_t n = ah_frame_build(buf, DCN_T_DATA, H00, H01, one_hop, 1, 1, 0, ip, sizeof ip);
        engine_rx_frame(&h->e, 0, buf, n);
    }
    /* IHL says 24 bytes of header, total length 20 */
    uint8_t buf[512], ip[100];
    ah_ipv4(ip, H00, H01, 1000, 2000, sizeof ip);
    ip[0] = 0x46;
    dcn_put16(ip + 2, 20);
    size_t n = ah_frame_build(buf, DCN_T_DATA, H00, H01, one_hop, 1, 1, 0, ip, sizeof ip);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_int_eq(h->ndeliv, 0);
    ck_assert_uint_eq(h->e.c.drop_bad_ip_length, 4);
    ck_assert_uint_eq(h->e.c.rx_data_delivered, 0);
    /* the smallest valid packet still goes through */
    ah_ipv4(ip, H00, H01, 1000, 2000, sizeof ip);
    dcn_put16(ip + 2, 20);
    n = ah_frame_build(buf, DCN_T_DATA, H00, H01, one_hop, 1, 1, 0, ip, sizeof ip);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_int_eq(h->ndeliv, 1);
    ck_assert_uint_eq(h->iplen, 20);
    ah_free(h);
}
END_TEST

/* A hello naming a live neighbour from another MAC (any server on the
 * same switch can send one) neither takes the entry's MAC over nor keeps
 * the entry alive; once the entry has expired, or its port lost carrier,
 * the next hello's MAC is learned (a neighbour whose port was replaced). */
START_TEST(a_live_neighbours_mac_is_not_taken_over)
{
    engine_config cfg;
    engine_config_default(&cfg);
    cfg.hello_ms = 1000;
    cfg.dead_misses = 3; /* dead after 3250 ms of silence */
    harness *h = ah_new_cfg("bcube n=2 k=1", "h01", &cfg);
    uint8_t real[6], other[6];
    ah_mac(H00, 0, real);
    ah_mac(H00, 1, other); /* what ah_hello sends from H00's port 1 */
    ah_hello(h, 0, H00, 0);
    ck_assert(h->e.nt.e[0x00].up);
    ck_assert_mem_eq(h->e.nt.e[0x00].mac, real, 6);
    uint32_t gen = h->e.nt.gen;
    for (uint64_t t = 1500; t <= 4000; t += 500) { /* the forger keeps talking, the neighbour is silent */
        h->now = t;
        ah_hello(h, 0, H00, 1);
        engine_tick(&h->e);
    }
    ck_assert_uint_eq(h->e.c.drop_hello_mac_conflict, 6);
    ck_assert(h->e.nt.e[0x00].up);
    ck_assert_mem_eq(h->e.nt.e[0x00].mac, real, 6);
    ck_assert_uint_eq(h->e.nt.gen, gen);
    h->now = 4251; /* heard last at 1000: dead at 1000 + 3250 + 1, the forger's hellos notwithstanding */
    engine_tick(&h->e);
    ck_assert(!h->e.nt.e[0x00].up);
    ah_hello(h, 0, H00, 1); /* expired: the next hello's MAC is learned */
    ck_assert(h->e.nt.e[0x00].up);
    ck_assert_mem_eq(h->e.nt.e[0x00].mac, other, 6);
    engine_carrier(&h->e, 0, false); /* a port that lost carrier learns anew too */
    engine_carrier(&h->e, 0, true);
    ah_hello(h, 0, H00, 0);
    ck_assert(h->e.nt.e[0x00].up);
    ck_assert_mem_eq(h->e.nt.e[0x00].mac, real, 6);
    ck_assert_uint_eq(h->e.c.drop_hello_mac_conflict, 6);
    ah_free(h);
}
END_TEST

/* The heard set of the hello that this engine sent on port, or
 * UINT64_MAX when none was sent there. */
static uint64_t heard_set_sent_on(const harness *h, unsigned port)
{
    for (int i = 0; i < h->nout; i++) {
        const ah_frame *f = &h->out[i];
        dcn_hdr d;
        size_t hl;
        if (f->port != port || dcn_hdr_decode(f->data + 14, f->len - 14, &d, &hl) != DCN_DEC_OK ||
            d.type != DCN_T_HELLO)
            continue;
        const uint8_t *pl = f->data + 14 + hl;
        ck_assert_uint_eq(d.payload_len, DCN_HELLO_PAYLOAD);
        ck_assert_uint_eq(pl[0], port);
        ck_assert_uint_eq(pl[1], DCN_HELLO_F_HEARD);
        return dcn_get64(pl + 8);
    }
    return UINT64_MAX;
}

/* Liveness is two-way (a one-way fault: our frames lost on the way to a
 * neighbour whose hellos still arrive). A neighbour is up only while its
 * hellos list us among those its port hears; one that leaves us out goes
 * down (neighbor_one_way) though it is still heard, and our own hellos
 * list every neighbour heard on their port. A hello without the set, or
 * with the set of another of the sender's ports, says nothing of us. */
START_TEST(a_neighbour_that_does_not_hear_us_is_down)
{
    engine_config cfg;
    engine_config_default(&cfg);
    cfg.hello_ms = 1000;
    cfg.dead_misses = 3;
    harness *h = ah_new_cfg("bcube n=2 k=1", "h01", &cfg);
    neigh_entry *ne = &h->e.nt.e[0x00];
    ck_assert(ne->valid && ne->node == H00 && ne->port == 0);
    ck_assert_uint_ne(ne->idx_at_peer, NEIGH_NO_INDEX);
    uint64_t us = 1ull << ne->idx_at_peer;
    unsigned up = 0, total = 0;

    ah_hello_heard(h, 0, H00, ne->peer_port, ne->peer_port, 0); /* it hears nobody yet */
    ck_assert(ne->alive && !ne->up);
    ck_assert(!engine_ready(&h->e, &up, &total));
    ck_assert_uint_eq(up, 0);
    h->nout = 0;
    engine_send_hellos(&h->e); /* our hello on port 0 lists it: it is heard */
    ck_assert_uint_eq(heard_set_sent_on(h, 0), 1u << 0);
    ck_assert_uint_eq(heard_set_sent_on(h, 1), 0);

    ah_hello_heard(h, 0, H00, ne->peer_port, ne->peer_port, us);
    ck_assert(ne->up);
    ck_assert_uint_eq(h->e.c.neighbor_up_events, 1);
    uint32_t gen = h->e.nt.gen;
    ah_hello_heard(h, 0, H00, ne->peer_port, ne->peer_port, ~us); /* every neighbour but us */
    ck_assert(ne->alive && !ne->up);
    ck_assert_uint_eq(h->e.c.neighbor_one_way, 1);
    ck_assert_uint_eq(h->e.c.neighbor_down_events, 1);
    ck_assert_uint_gt(h->e.nt.gen, gen); /* the kernel relay's copy follows */

    ah_hello_heard(h, 0, H00, ne->peer_port, ne->peer_port ^ 1, 0); /* about its other port */
    ck_assert(ne->up);
    ah_hello_heard(h, 0, H00, ne->peer_port, ne->peer_port, ~us);
    ck_assert(!ne->up);
    ah_hello(h, 0, H00, 0); /* no set at all: taken to hear us */
    ck_assert(ne->up);
    ck_assert_uint_eq(h->e.c.neighbor_one_way, 2);

    h->now = 4251; /* silent since 0: dead, and left out of our hellos */
    engine_tick(&h->e);
    ck_assert(!ne->alive && !ne->up);
    h->nout = 0;
    engine_send_hellos(&h->e);
    ck_assert_uint_eq(heard_set_sent_on(h, 0), 0);
    ah_free(h);
}
END_TEST

/* The tick waits for the engine's own deadlines while nothing else is
 * timed: the next hello, or the first neighbour that would be declared
 * dead; at most 100 ms once a flow exists. */
START_TEST(tick_waits_for_the_next_deadline)
{
    engine_config cfg;
    engine_config_default(&cfg);
    cfg.hello_ms = 1000;
    cfg.dead_misses = 3; /* dead after 3 * 1000 + 1000 / 4 ms of silence */
    harness *h = ah_new_cfg("bcube n=2 k=1", "h01", &cfg);
    h->now = 1000;
    engine_tick(&h->e); /* hellos sent at 1000 */
    ck_assert(engine_idle(&h->e));
    ck_assert_uint_eq(engine_tick_wait_ms(&h->e), 1000);
    h->now = 1400;
    ah_hello(h, 0, H00, 0);
    ah_hello(h, 1, H11, 1); /* both neighbours up, dead at 1400 + 3250 + 1 */
    ck_assert_uint_eq(engine_tick_wait_ms(&h->e), 600);
    h->now = 4000;
    engine_tick(&h->e); /* hello at 4000; the neighbours, silent, expire first */
    ck_assert_uint_eq(engine_tick_wait_ms(&h->e), 651);
    h->now = 4650;
    engine_tick(&h->e);
    ck_assert_uint_eq(h->e.c.neighbor_down_events, 0);
    ck_assert_uint_eq(engine_tick_wait_ms(&h->e), ENGINE_TICK_MIN_MS);
    h->now = 4651;
    engine_tick(&h->e);
    ck_assert_uint_eq(h->e.c.neighbor_down_events, 2);
    ck_assert_uint_eq(engine_tick_wait_ms(&h->e), 349); /* the next hello */
    /* a flow: path selection times it on the short tick */
    h->now = 4700;
    ah_hello(h, 0, H00, 0);
    uint8_t buf[ENGINE_HEADROOM + 200];
    ah_ipv4(buf + ENGINE_HEADROOM, H01, H00, 5, 6, 120);
    engine_from_tun(&h->e, buf, 120);
    ck_assert_ptr_nonnull(ah_find(h, DCN_T_DATA));
    ck_assert(!engine_idle(&h->e));
    ck_assert_uint_eq(engine_tick_wait_ms(&h->e), ENGINE_TICK_MS);
    ah_free(h);
    /* hellos on the grid of the interval, which every agent of the box
     * shares: a first hello at 1234 makes the next one due at 2000 */
    h = ah_new_cfg("bcube n=2 k=1", "h01", &cfg);
    h->now = 1234;
    engine_tick(&h->e);
    ck_assert_uint_eq(h->e.c.hello_tx, 2);
    ck_assert_uint_eq(engine_tick_wait_ms(&h->e), 766);
    h->now = 1994;
    engine_tick(&h->e);
    ck_assert_uint_eq(h->e.c.hello_tx, 2);
    h->now = 1995; /* a tick a few ms early still sends */
    engine_tick(&h->e);
    ck_assert_uint_eq(h->e.c.hello_tx, 4);
    ck_assert_uint_eq(engine_tick_wait_ms(&h->e), 1000); /* due at 3000, not again at 2000 */
    h->now = 2000;
    engine_tick(&h->e);
    ck_assert_uint_eq(h->e.c.hello_tx, 4);
    ah_free(h);
}
END_TEST

/* Hellos shorter than the short tick keep their interval, busy or idle,
 * and a silent neighbour is declared dead when its interval ends, not at
 * the next short tick: with 50 ms hellos and 3 misses, 162 ms. (The tick
 * was a fixed 100 ms: 50 ms hellos went out every 100 ms, as often as
 * their 162 ms dead interval allows, and a death was seen up to 100 ms
 * late.) */
START_TEST(short_hellos_keep_their_interval)
{
    engine_config cfg;
    engine_config_default(&cfg);
    cfg.hello_ms = 50;
    cfg.dead_misses = 3; /* dead after 3 * 50 + 50 / 4 = 162 ms of silence */
    harness *h = ah_new_cfg("bcube n=2 k=1", "h01", &cfg);
    h->now = 1000;
    engine_tick(&h->e);
    ck_assert_uint_eq(h->e.c.hello_tx, 2);
    ck_assert_uint_eq(engine_tick_wait_ms(&h->e), 50);
    h->now = 1050;
    engine_tick(&h->e);
    ck_assert_uint_eq(h->e.c.hello_tx, 4);
    ah_hello(h, 0, H00, 0); /* dead at 1050 + 162 + 1 = 1213 */
    /* a flow makes the engine busy: the hellos still go out every 50 ms */
    uint8_t buf[ENGINE_HEADROOM + 200];
    ah_ipv4(buf + ENGINE_HEADROOM, H01, H00, 5, 6, 120);
    engine_from_tun(&h->e, buf, 120);
    ck_assert(!engine_idle(&h->e));
    ck_assert_uint_eq(engine_tick_wait_ms(&h->e), 50);
    h->now = 1100;
    engine_tick(&h->e);
    h->now = 1150;
    engine_tick(&h->e);
    h->now = 1200;
    engine_tick(&h->e);
    ck_assert_uint_eq(h->e.c.hello_tx, 10);
    ck_assert_uint_eq(h->e.c.neighbor_down_events, 0);
    ck_assert_uint_eq(engine_tick_wait_ms(&h->e), 13); /* the expiry, before the hello at 1250 */
    h->now = 1213;
    engine_tick(&h->e);
    ck_assert_uint_eq(h->e.c.neighbor_down_events, 1);
    ah_free(h);
    /* 1 s hellos, busy: the short tick, but not past an expiry */
    cfg.hello_ms = 1000;
    h = ah_new_cfg("bcube n=2 k=1", "h01", &cfg);
    h->now = 1000;
    engine_tick(&h->e);
    ah_hello(h, 0, H00, 0); /* dead at 1000 + 3250 + 1 = 4251 */
    engine_from_tun(&h->e, buf, 120);
    ck_assert(!engine_idle(&h->e));
    ck_assert_uint_eq(engine_tick_wait_ms(&h->e), ENGINE_TICK_MS);
    h->now = 4200;
    engine_tick(&h->e); /* hellos sent at 4200, the next due at 5000 */
    ck_assert_uint_eq(h->e.c.neighbor_down_events, 0);
    ck_assert_uint_eq(engine_tick_wait_ms(&h->e), 51);
    ah_free(h);
}
END_TEST

START_TEST(tun_packets_are_encapsulated)
{
    harness *h = relay_with_neighbors();
    ah_hello(h, 0, H00, 0);
    uint8_t buf[ENGINE_HEADROOM + 200];
    ah_ipv4(buf + ENGINE_HEADROOM, H01, H00, 5, 6, 120);
    engine_from_tun(&h->e, buf, 120);
    const ah_frame *f = ah_find(h, DCN_T_DATA);
    ck_assert_ptr_nonnull(f);
    dcn_hdr d;
    size_t hl;
    ck_assert_int_eq(dcn_hdr_decode(f->data + 14, f->len - 14, &d, &hl), DCN_DEC_OK);
    ck_assert_uint_eq(hl, DCN_HDR_BASE);
    ck_assert_uint_eq(d.src, H01);
    ck_assert_uint_eq(d.dst, H00);
    ck_assert_uint_eq(d.nhops, 1);
    ck_assert_uint_eq(d.nhi, 1);
    ck_assert_uint_eq(d.nha[0], 0x00);
    ck_assert_uint_eq(d.payload_len, 120);
    ck_assert_uint_eq(f->port, 0);
    /* unknown destination, not IPv4, too short: dropped and counted */
    ah_ipv4(buf + ENGINE_HEADROOM, H01, 77, 5, 6, 120);
    engine_from_tun(&h->e, buf, 120);
    ck_assert_uint_eq(h->e.c.drop_no_route, 1);
    buf[ENGINE_HEADROOM] = 0x60;
    engine_from_tun(&h->e, buf, 120);
    engine_from_tun(&h->e, buf, 10);
    ck_assert_uint_eq(h->e.c.drop_bad_payload, 2);
    ah_free(h);
}
END_TEST

/* Every malformed case: dropped, counted under its own name, nothing sent,
 * and the good neighbours stay up. */
/* Every fragment of a datagram, the first included, has one flow key (the
 * 3-tuple), so they all take one path; an unfragmented packet keeps its
 * ports. */
START_TEST(fragments_share_one_flow_key)
{
    harness *h = relay_with_neighbors();
    uint8_t buf[ENGINE_HEADROOM + 200];
    static const uint16_t frag_field[] = {0x2000 /* MF, offset 0 */, 0x2000 | 185 /* MF, middle */,
                                          185 * 2 /* last */};
    for (size_t i = 0; i < sizeof frag_field / sizeof frag_field[0]; i++) {
        ah_ipv4(buf + ENGINE_HEADROOM, H01, H10, 1000, 2000, 120);
        dcn_put16(buf + ENGINE_HEADROOM + 6, frag_field[i]);
        engine_from_tun(&h->e, buf, 120);
    }
    ck_assert_uint_eq(h->e.c.tx_data_from_tun, 3);
    ps_flow_info fl[8];
    int n = ps_flows(h->e.ps, fl, 8);
    ck_assert_int_eq(n, 1);
    ck_assert_uint_eq(fl[0].key.src_port, 0);
    ck_assert_uint_eq(fl[0].key.dst_port, 0);
    ck_assert_uint_eq(fl[0].key.proto, 17);
    /* the three frames carry the same NHAs */
    const ah_frame *data[3];
    int nd = 0;
    for (int i = 0; i < h->nout; i++)
        if (h->out[i].data[14 + DCN_OFF_TYPE] == DCN_T_DATA && nd < 3)
            data[nd++] = &h->out[i];
    ck_assert_int_eq(nd, 3);
    for (int i = 1; i < 3; i++)
        ck_assert_mem_eq(data[i]->data + 14 + DCN_OFF_NHA, data[0]->data + 14 + DCN_OFF_NHA, 8);
    /* DF set and no offset: not a fragment, the ports count */
    ah_ipv4(buf + ENGINE_HEADROOM, H01, H10, 1000, 2000, 120);
    dcn_put16(buf + ENGINE_HEADROOM + 6, 0x4000);
    engine_from_tun(&h->e, buf, 120);
    n = ps_flows(h->e.ps, fl, 8);
    ck_assert_int_eq(n, 2);
    int with_ports = fl[0].key.src_port == 1000 ? 0 : 1;
    ck_assert_uint_eq(fl[with_ports].key.src_port, 1000);
    ck_assert_uint_eq(fl[with_ports].key.dst_port, 2000);
    ah_free(h);
}
END_TEST

START_TEST(malformed_frames_are_dropped_and_counted)
{
    harness *h = relay_with_neighbors();
    uint8_t buf[512];
    size_t n;
    /* truncated: shorter than Ethernet, than the header, than the payload */
    n = data_frame(buf, H00, H11, RELAY_PATH, 2, 1);
    engine_rx_frame(&h->e, 0, buf, 10);
    engine_rx_frame(&h->e, 0, buf, 30);
    engine_rx_frame(&h->e, 0, buf, n - 1);
    ck_assert_uint_eq(h->e.c.drop_truncated, 3);
    /* bad checksum */
    n = data_frame(buf, H00, H11, RELAY_PATH, 2, 1);
    buf[14 + 9] ^= 1;
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_bad_checksum, 1);
    /* NHI beyond the path (re-checksummed so only NHI is wrong) */
    n = data_frame(buf, H00, H11, RELAY_PATH, 2, 1);
    dcn_hdr_set_nhi(buf + 14, 3);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_nhi_beyond_path, 1);
    /* unknown type */
    n = ah_frame_build(buf, 9, H00, H11, RELAY_PATH, 2, 1, 0, NULL, 0);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_unknown_type, 1);
    /* a path naming a non-neighbour: h01's port 1 index 0 is h01 itself */
    const uint8_t stranger[2] = {0x01, 0x40};
    n = data_frame(buf, H00, H11, stranger, 2, 1);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_not_neighbor, 1);
    /* a looping path: h00 -> h01 -> h00 -> h01 */
    const uint8_t loop[3] = {0x01, 0x00, 0x01};
    n = data_frame(buf, H00, H01, loop, 3, 1);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_loop, 1);
    /* a path that does not end at dst */
    n = data_frame(buf, H00, H10, RELAY_PATH, 2, 1);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_bad_path, 1);
    /* the hop at NHI is not us (NHI 2 points at h11) */
    const uint8_t longer[3] = {0x01, 0x41, 0x00}; /* h00 h01 h11 h10 */
    n = data_frame(buf, H00, H10, longer, 3, 2);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_not_on_path, 1);
    /* wrong EtherType, wrong version */
    n = data_frame(buf, H00, H11, RELAY_PATH, 2, 1);
    buf[12] = 0x08;
    buf[13] = 0x00;
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_not_dcn, 1);
    n = data_frame(buf, H00, H11, RELAY_PATH, 2, 1);
    buf[14] = 7;
    dcn_put16(buf + 14 + 18, 0);
    dcn_put16(buf + 14 + 18, csum_compute(buf + 14, 36));
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_bad_version, 1);
    /* data that is not IPv4 at the destination */
    const uint8_t one_hop[1] = {0x01};
    uint8_t junk[40] = {0x60};
    n = ah_frame_build(buf, DCN_T_DATA, H00, H01, one_hop, 1, 1, 0, junk, sizeof junk);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_bad_payload, 1);
    /* a hello from a server that is not our neighbour on that port */
    ah_hello(h, 0, H10, 0);
    ah_hello(h, 1, H00, 0);
    ck_assert_uint_eq(h->e.c.drop_not_neighbor, 3);

    ck_assert_int_eq(h->nout, 0);
    ck_assert_int_eq(h->ndeliv, 0);
    ck_assert(h->e.nt.e[0x00].up && h->e.nt.e[0x41].up);
    uint8_t mac[6];
    ah_mac(H00, 0, mac);
    ck_assert_mem_eq(h->e.nt.e[0x00].mac, mac, 6);
    ck_assert_uint_eq(drops(&h->e), 15);
    ah_free(h);
}
END_TEST

START_TEST(random_garbage_never_crashes)
{
    harness *h = relay_with_neighbors();
    dcn_rng r;
    dcn_rng_seed(&r, 11);
    uint8_t buf[600];
    for (int round = 0; round < 20000; round++) {
        size_t n = dcn_rng_below(&r, sizeof buf);
        size_t base = data_frame(buf, H00, H11, RELAY_PATH, 2, 1);
        (void)base;
        /* flip a few bytes of a valid frame, sometimes fix the checksum */
        int flips = 1 + (int)dcn_rng_below(&r, 4);
        for (int i = 0; i < flips; i++)
            buf[14 + dcn_rng_below(&r, 40)] = (uint8_t)dcn_rng_next(&r);
        if (dcn_rng_below(&r, 2)) {
            unsigned nh = buf[14 + 3];
            size_t hl = 28 + dcn_nha_bytes(nh);
            if (hl < sizeof buf - 14) {
                dcn_put16(buf + 14 + 18, 0);
                dcn_put16(buf + 14 + 18, csum_compute(buf + 14, hl));
            }
        }
        engine_rx_frame(&h->e, dcn_rng_below(&r, 2), buf, n);
        h->nout = 0;
    }
    ck_assert(h->e.nt.e[0x00].up && h->e.nt.e[0x41].up);
    ah_free(h);
}
END_TEST

/* The packet that finds its first hop dead (often TCP's retransmission,
 * after a back-off) goes out on the path selection moves the flow to; it
 * was dropped, and TCP then waited for its next, doubled timeout. Only
 * when no path is left is it dropped. */
START_TEST(packet_finding_its_first_hop_dead_takes_the_new_path)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    ah_hello(h, 0, H00, 0);
    ah_hello(h, 1, H11, 1);
    uint8_t buf[ENGINE_HEADROOM + 200];
    ah_ipv4(buf + ENGINE_HEADROOM, H01, H10, 5, 6, 120);
    engine_from_tun(&h->e, buf, 120);
    const ah_frame *f = ah_find(h, DCN_T_DATA);
    ck_assert_ptr_nonnull(f);
    unsigned first = f->port, other = 1 - first;
    /* the first hop's neighbour falls silent and is declared dead */
    h->now += 3300;
    ah_hello(h, other, other ? H11 : H00, other);
    engine_tick(&h->e);
    ck_assert_uint_eq(h->e.c.neighbor_down_events, 1);
    h->nout = 0;
    uint64_t sent = h->e.c.tx_data_from_tun; /* (probes over the dead hop count as drops) */
    ah_ipv4(buf + ENGINE_HEADROOM, H01, H10, 5, 6, 120);
    engine_from_tun(&h->e, buf, 120);
    f = ah_find(h, DCN_T_DATA);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(f->port, other);
    ck_assert_uint_eq(h->e.c.rerouted_at_send, 1);
    ck_assert_uint_eq(h->e.c.tx_data_from_tun, sent + 1);
    /* the next packet takes the new path at once */
    h->nout = 0;
    engine_from_tun(&h->e, buf, 120);
    f = ah_find(h, DCN_T_DATA);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(f->port, other);
    ck_assert_uint_eq(h->e.c.rerouted_at_send, 1);
    /* both neighbours dead: no path is left, and the packet is dropped */
    h->now += 3300;
    engine_tick(&h->e);
    ck_assert_uint_eq(h->e.c.neighbor_down_events, 2);
    h->nout = 0;
    sent = h->e.c.tx_data_from_tun;
    engine_from_tun(&h->e, buf, 120);
    ck_assert_ptr_null(ah_find(h, DCN_T_DATA));
    ck_assert_uint_eq(h->e.c.tx_data_from_tun, sent);
    ah_free(h);
}
END_TEST

START_TEST(dead_next_hop_sends_path_failure_to_source)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    ah_hello(h, 0, H00, 0); /* h11 never heard: down */
    h->nout = 0;
    uint8_t buf[512];
    size_t n = data_frame(buf, H00, H11, RELAY_PATH, 2, 1);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_next_hop_down, 1);
    ck_assert_uint_eq(h->e.c.path_failure_tx, 1);
    const ah_frame *f = ah_find(h, DCN_T_PATH_FAIL);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(f->port, 0);
    dcn_hdr d;
    size_t hl;
    ck_assert_int_eq(dcn_hdr_decode(f->data + 14, f->len - 14, &d, &hl), DCN_DEC_OK);
    ck_assert_uint_eq(d.src, H01);
    ck_assert_uint_eq(d.dst, H00);
    ck_assert_uint_eq(d.nhops, 1);
    ck_assert_uint_eq(d.nha[0], 0x00);
    /* the failed link: the cable from s1_1 into h11 (our own carrier is up) */
    const uint8_t *pl = f->data + 14 + hl;
    ck_assert_uint_eq(dcn_get32(pl), tu_node(&h->t, "s1_1"));
    ck_assert_uint_eq(dcn_get32(pl + 4), H11);
    /* rate limited: a second packet at once sends no second message */
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.path_failure_tx, 1);
    ck_assert_uint_eq(h->e.c.drop_failure_rate_limited, 1);
    /* our own carrier lost: the failed link is our cable */
    h->now += 100;
    ah_hello(h, 1, H11, 1);
    engine_carrier(&h->e, 1, false);
    ck_assert(!h->e.nt.e[0x41].up);
    h->nout = 0;
    engine_rx_frame(&h->e, 0, buf, n);
    f = ah_find(h, DCN_T_PATH_FAIL);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(dcn_get32(f->data + 14 + hl), H01);
    ck_assert_uint_eq(dcn_get32(f->data + 14 + hl + 4), tu_node(&h->t, "s1_1"));
    ah_free(h);
}
END_TEST

/* A hello now from every neighbour but the node but (DCN_NONE: from all). */
static void hear_all_but(harness *h, uint32_t but)
{
    for (unsigned i = 0; i < 256; i++) {
        const neigh_entry *ne = &h->e.nt.e[i];
        if (ne->valid && ne->node != but)
            ah_hello(h, ne->port, ne->node, ne->peer_port);
    }
}

/* The relay h01 of the path h11 -> h01 -> h03 in BCube_1 n=4, with every
 * neighbour but h03 heard (h03 never heard unless with_h03). */
static harness *relay_h01_to_h03(bool with_h03, dcn_path *p, uint8_t nha[4])
{
    harness *h = ah_new("bcube n=4 k=1", "h01");
    uint32_t h03 = tu_node(&h->t, "h03");
    *p = (dcn_path){.len = 5, .node = {tu_node(&h->t, "h11"), tu_node(&h->t, "s1_1"), H01, tu_node(&h->t, "s0_0"),
                                       h03}};
    ck_assert_int_eq(nha_encode_path(&h->t, p, nha, 4), 2);
    hear_all_but(h, with_h03 ? DCN_NONE : h03);
    return h;
}

/* Relays a data frame along p (arriving on port 1) and returns, in a-b,
 * the link that the path failure it causes names. */
static void link_named_for(harness *h, const dcn_path *p, const uint8_t nha[4], uint32_t *a, uint32_t *b)
{
    uint8_t buf[512];
    size_t n = data_frame(buf, p->node[0], p->node[p->len - 1], nha, 2, 1);
    h->nout = 0;
    engine_rx_frame(&h->e, 1, buf, n);
    const ah_frame *f = ah_find(h, DCN_T_PATH_FAIL);
    ck_assert_ptr_nonnull(f);
    dcn_hdr d;
    size_t hl;
    ck_assert_int_eq(dcn_hdr_decode(f->data + 14, f->len - 14, &d, &hl), DCN_DEC_OK);
    *a = dcn_get32(f->data + 14 + hl);
    *b = dcn_get32(f->data + 14 + hl + 4);
}

/* The failed link that a relay names for a dead next hop behind a switch:
 * the cable into that server while the switch's other servers are up;
 * our own cable when none of them is (a one-way or silent fault on our
 * side: nobody hears us, or we hear nobody), though the carrier is up. */
START_TEST(a_relay_that_no_neighbour_hears_blames_its_own_cable)
{
    dcn_path p;
    uint8_t nha[4];
    harness *h = relay_h01_to_h03(false, &p, nha);
    uint32_t a, b, s00 = p.node[3], h03 = p.node[4];
    link_named_for(h, &p, nha, &a, &b);
    ck_assert_uint_eq(a, s00); /* h03 alone is down: its cable */
    ck_assert_uint_eq(b, h03);
    /* then h00 and h02 stop listing us: nobody behind s0_0 hears us */
    for (unsigned i = 0; i < 64; i++) {
        const neigh_entry *ne = &h->e.nt.e[i];
        if (ne->valid && ne->node != h03)
            ah_hello_heard(h, 0, ne->node, ne->peer_port, ne->peer_port, ~(1ull << ne->idx_at_peer));
    }
    for (unsigned i = 0; i < 64; i++)
        ck_assert(!h->e.nt.e[i].valid || !h->e.nt.e[i].up);
    h->now += 1000; /* past the path failures' rate limit */
    link_named_for(h, &p, nha, &a, &b);
    ck_assert_uint_eq(a, H01); /* every neighbour on the port down: our own cable */
    ck_assert_uint_eq(b, s00);
    ah_free(h);
}
END_TEST

/* Our own cable falls silent (its carrier up): the neighbours behind the
 * switch expire one after the other. When the first has expired and the
 * others are still up, not heard for almost the dead interval, it is our
 * cable that is named; the next server's only while the others are heard. */
START_TEST(a_relay_whose_cable_fell_silent_names_its_own_cable)
{
    dcn_path p;
    uint8_t nha[4];
    harness *h = relay_h01_to_h03(true, &p, nha);
    uint32_t a, b, s00 = p.node[3], h03 = p.node[4];
    h->now += 10; /* the others' last hellos, 10 ms after h03's */
    hear_all_but(h, h03);
    /* h03 expires at the end of the dead interval, the others 5 ms later */
    h->now += eng_dead_interval_ms(&h->e) - 5;
    engine_tick(&h->e);
    for (unsigned i = 0; i < 64; i++) {
        const neigh_entry *ne = &h->e.nt.e[i];
        ck_assert(!ne->valid || ne->up == (ne->node != h03));
    }
    link_named_for(h, &p, nha, &a, &b);
    ck_assert_uint_eq(a, H01);
    ck_assert_uint_eq(b, s00);
    /* the same, but h00 and h02 heard just now: h03's cable */
    h->now += 1000; /* past the path failures' rate limit */
    hear_all_but(h, h03);
    link_named_for(h, &p, nha, &a, &b);
    ck_assert_uint_eq(a, s00);
    ck_assert_uint_eq(b, h03);
    ah_free(h);
}
END_TEST

START_TEST(neighbors_expire_after_missed_hellos)
{
    harness *h = relay_with_neighbors();
    h->now += 3000;
    engine_tick(&h->e);
    ck_assert(h->e.nt.e[0x00].up);
    h->now += 300;
    engine_tick(&h->e);
    ck_assert(!h->e.nt.e[0x00].up && !h->e.nt.e[0x41].up);
    ck_assert_uint_eq(h->e.c.neighbor_down_events, 2);
    ah_hello(h, 0, H00, 0);
    ck_assert(h->e.nt.e[0x00].up);
    ah_free(h);
}
END_TEST

START_TEST(probe_relay_lowers_available_bandwidth)
{
    harness *h = relay_with_neighbors();
    h->e.port[0].rx_mbps = 300; /* in: 700 available */
    h->e.port[1].tx_mbps = 100; /* out: 900 available */
    uint8_t buf[512], pl[DCN_PROBE_PAYLOAD] = {0};
    size_t n = ah_frame_build(buf, DCN_T_PROBE, H00, H11, RELAY_PATH, 2, 1, 800, pl, sizeof pl);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_int_eq(h->nout, 1);
    dcn_hdr d;
    size_t hl;
    ck_assert_int_eq(dcn_hdr_decode(h->out[0].data + 14, h->out[0].len - 14, &d, &hl), DCN_DEC_OK);
    ck_assert_uint_eq(d.avail_mbps, 700);
    h->nout = 0;
    n = ah_frame_build(buf, DCN_T_PROBE, H00, H11, RELAY_PATH, 2, 1, 500, pl, sizeof pl);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_int_eq(dcn_hdr_decode(h->out[0].data + 14, h->out[0].len - 14, &d, &hl), DCN_DEC_OK);
    ck_assert_uint_eq(d.avail_mbps, 500);
    h->nout = 0;
    h->e.port[1].tx_mbps = 1000; /* out saturated */
    n = ah_frame_build(buf, DCN_T_PROBE, H00, H11, RELAY_PATH, 2, 1, 500, pl, sizeof pl);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_int_eq(dcn_hdr_decode(h->out[0].data + 14, h->out[0].len - 14, &d, &hl), DCN_DEC_OK);
    ck_assert_uint_eq(d.avail_mbps, 0);
    ck_assert_uint_eq(h->e.c.probe_relayed, 3);
    ah_free(h);
}
END_TEST

/* A source's probe starts at its first hop's available bandwidth, plus the
 * credit the path selector gives (its flow's own load on that port, which
 * would leave with it), never above the port's capacity. */
START_TEST(probe_starts_at_first_hop_avail_plus_credit)
{
    harness *h = relay_with_neighbors(); /* h01: h00 on port 0, h11 on port 1 */
    h->e.port[1].tx_mbps = 600;
    dcn_path p = {.len = 3};
    p.node[0] = H01;
    p.node[1] = tu_node(&h->t, "s1_1");
    p.node[2] = H11;
    dcn_flow_key k = {.src_ip = 0x0a000002u, .dst_ip = 0x0a000004u, .src_port = 1, .dst_port = 2, .proto = 6};
    static const uint32_t credit[] = {0, 300, 900, UINT32_MAX};
    static const uint32_t want[] = {400, 700, 1000, 1000};
    for (size_t i = 0; i < sizeof credit / sizeof credit[0]; i++) {
        h->nout = 0;
        ck_assert_int_eq(eng_send_probe(&h->e, &k, (uint32_t)i + 1, &p, credit[i]), 0);
        ck_assert_int_eq(h->nout, 1);
        ck_assert_uint_eq(h->out[0].port, 1);
        dcn_hdr d;
        size_t hl;
        ck_assert_int_eq(dcn_hdr_decode(h->out[0].data + 14, h->out[0].len - 14, &d, &hl), DCN_DEC_OK);
        ck_assert_uint_eq(d.type, DCN_T_PROBE);
        ck_assert_uint_eq(d.avail_mbps, want[i]);
    }
    ah_free(h);
}
END_TEST

START_TEST(probe_destination_answers_on_the_reverse_path)
{
    /* h11 is the destination of h00 -> h01 -> h11 */
    harness *h = ah_new("bcube n=2 k=1", "h11");
    ah_hello(h, 1, H01, 1);
    h->nout = 0;
    h->e.port[1].rx_mbps = 400;
    uint8_t buf[512], pl[DCN_PROBE_PAYLOAD];
    for (size_t i = 0; i < sizeof pl; i++)
        pl[i] = (uint8_t)(i + 1);
    size_t n = ah_frame_build(buf, DCN_T_PROBE, H00, H11, RELAY_PATH, 2, 2, 800, pl, sizeof pl);
    engine_rx_frame(&h->e, 1, buf, n);
    const ah_frame *f = ah_find(h, DCN_T_PROBE_RESP);
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(f->port, 1);
    dcn_hdr d;
    size_t hl;
    ck_assert_int_eq(dcn_hdr_decode(f->data + 14, f->len - 14, &d, &hl), DCN_DEC_OK);
    ck_assert_uint_eq(d.src, H11);
    ck_assert_uint_eq(d.dst, H00);
    ck_assert_uint_eq(d.avail_mbps, 600);
    ck_assert_uint_eq(d.nhops, 2);
    ck_assert_uint_eq(d.nha[0], 0x40); /* h11 -> h01 over s1_1 (port 0 of the switch) */
    ck_assert_uint_eq(d.nha[1], 0x00); /* h01 -> h00 over s0_0 */
    ck_assert_mem_eq(f->data + 14 + hl, pl, sizeof pl);
    ck_assert_uint_eq(h->e.c.probe_resp_tx, 1);
    ah_free(h);
}
END_TEST

START_TEST(carrier_loss_downs_neighbors_at_once)
{
    harness *h = relay_with_neighbors();
    engine_carrier(&h->e, 1, false);
    ck_assert(!h->e.nt.e[0x41].up);
    ck_assert(h->e.nt.e[0x00].up);
    ck_assert_uint_eq(h->e.c.carrier_events, 1);
    h->nout = 0;
    engine_carrier(&h->e, 1, true);
    ck_assert_ptr_nonnull(ah_find(h, DCN_T_HELLO)); /* hello at once on the port back up */
    ah_free(h);
}
END_TEST

/* A hello that arrives on a port before netlink reports its carrier up
 * brings the port up for path selection too: its failed-link entry goes,
 * and paths over it are used again (the later netlink "up" is a no-op). */
START_TEST(hello_before_carrier_up_clears_the_failed_link)
{
    harness *h = relay_with_neighbors();
    engine_carrier(&h->e, 1, false);
    ck_assert_uint_eq(ah_ps_counter(h, "faildb_entries"), 1);
    ah_hello(h, 1, H11, 1);
    ck_assert(h->e.port[1].carrier);
    ck_assert(h->e.nt.e[0x41].up);
    ck_assert_uint_eq(ah_ps_counter(h, "faildb_entries"), 0);
    engine_carrier(&h->e, 1, true); /* netlink, late */
    ck_assert_uint_eq(ah_ps_counter(h, "faildb_entries"), 0);
    ah_free(h);
}
END_TEST

/* ---- the pcap seam: a recorded corpus replayed, the output captured ---- */

typedef struct replay_ctx {
    harness *h;
    unsigned port;
} replay_ctx;

static void replay_one(void *ctx, uint8_t *frame, size_t len)
{
    replay_ctx *r = ctx;
    engine_rx_frame(&r->h->e, r->port, frame, len);
}

static void write_corpus(const char *path)
{
    char err[256];
    pcap_writer *w = pcapw_open(path, err, sizeof err);
    ck_assert_msg(w != NULL, "%s", err);
    uint8_t buf[512];
    size_t n;
    uint64_t ts = 1000000;
    n = data_frame(buf, H00, H11, RELAY_PATH, 2, 1); /* good: relayed */
    pcapw_write(w, buf, n, ts++);
    pcapw_write(w, buf, 20, ts++); /* truncated */
    buf[14 + 5] ^= 0x80;           /* bad checksum */
    pcapw_write(w, buf, n, ts++);
    n = data_frame(buf, H00, H11, RELAY_PATH, 2, 1);
    dcn_hdr_set_nhi(buf + 14, 5); /* NHI beyond the path */
    pcapw_write(w, buf, n, ts++);
    n = ah_frame_build(buf, 0x42, H00, H11, RELAY_PATH, 2, 1, 0, NULL, 0); /* unknown type */
    pcapw_write(w, buf, n, ts++);
    const uint8_t loop[3] = {0x01, 0x00, 0x01};
    n = data_frame(buf, H00, H01, loop, 3, 1); /* loop */
    pcapw_write(w, buf, n, ts++);
    const uint8_t stranger[2] = {0x01, 0x40};
    n = data_frame(buf, H00, H11, stranger, 2, 1); /* non-neighbour */
    pcapw_write(w, buf, n, ts++);
    const uint8_t one_hop[1] = {0x01};
    n = data_frame(buf, H00, H01, one_hop, 1, 1); /* good: delivered */
    pcapw_write(w, buf, n, ts++);
    pcapw_close(w);
}

START_TEST(pcap_replay_through_the_seam)
{
    char dir[] = "/tmp/dcn-agent-test-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char in[128], out[128], err[256];
    snprintf(in, sizeof in, "%s/corpus.pcap", dir);
    snprintf(out, sizeof out, "%s/sent.pcap", dir);
    write_corpus(in);
    harness *h = relay_with_neighbors();
    h->capture = pcapw_open(out, err, sizeof err);
    ck_assert_ptr_nonnull(h->capture);
    replay_ctx r = {h, 0};
    ck_assert_int_eq(pcap_replay(in, replay_one, &r, err, sizeof err), 8);
    pcapw_close(h->capture);
    h->capture = NULL;
    ck_assert_uint_eq(h->e.c.relayed, 1);
    ck_assert_int_eq(h->ndeliv, 1);
    ck_assert_uint_eq(h->e.c.drop_truncated, 1);
    ck_assert_uint_eq(h->e.c.drop_bad_checksum, 1);
    ck_assert_uint_eq(h->e.c.drop_nhi_beyond_path, 1);
    ck_assert_uint_eq(h->e.c.drop_unknown_type, 1);
    ck_assert_uint_eq(h->e.c.drop_loop, 1);
    ck_assert_uint_eq(h->e.c.drop_not_neighbor, 1);
    /* the captured output is one frame: the relayed one, decodable, NHI 2 */
    harness *peer = ah_new("bcube n=2 k=1", "h11");
    ah_hello(peer, 1, H01, 1);
    replay_ctx r2 = {peer, 1};
    ck_assert_int_eq(pcap_replay(out, replay_one, &r2, err, sizeof err), 1);
    ck_assert_int_eq(peer->ndeliv, 1);
    ah_free(peer);
    ah_free(h);
    ck_assert_int_lt(pcap_replay("/nonexistent.pcap", replay_one, &r, err, sizeof err), 0);
    unlink(in);
    unlink(out);
    rmdir(dir);
}
END_TEST


/* Every neighbour of the harness's server says hello. */
/* MDCube, source routing (--mdcube-routing source): a data packet from
 * container 0 to container 3 of a 2x2 MDCube carries the intermediate
 * container and a flow id, and is carried hop by hop (one engine per
 * server) to the destination, the container index advancing when it
 * enters the listed container. Hierarchical routing: test_agent_mdcube_hier. */
static harness *ah_new_source_routed(const char *spec, const char *self)
{
    engine_config cfg;
    engine_config_default(&cfg);
    cfg.mdcube_routing = ENGINE_MDCUBE_SOURCE;
    return ah_new_cfg(spec, self, &cfg);
}

START_TEST(mdcube_extension_end_to_end)
{
    if (!dcn_family_find("mdcube"))
        return;
    const char *spec = "mdcube n=2 k=1 m=2x2";
    harness *h = ah_new_source_routed(spec, "h0_00");
    ah_all_hellos(h);
    uint32_t dst = tu_node(&h->t, "h3_11");
    uint8_t buf[ENGINE_HEADROOM + 200];
    ah_ipv4(buf + ENGINE_HEADROOM, h->e.self, dst, 7, 8, 100);
    engine_from_tun(&h->e, buf, 100);
    const ah_frame *f = ah_find(h, DCN_T_DATA);
    ck_assert_ptr_nonnull(f);
    uint8_t frame[2048];
    size_t len = f->len;
    memcpy(frame, f->data, len);
    dcn_hdr d;
    size_t hl;
    ck_assert_int_eq(dcn_hdr_decode(frame + 14, len - 14, &d, &hl), DCN_DEC_OK);
    ck_assert_uint_eq(d.flags & DCN_FLAG_MDCUBE, DCN_FLAG_MDCUBE);
    ck_assert_uint_eq(d.n_containers, 1);
    ck_assert(d.container[0] == 1 || d.container[0] == 2);
    ck_assert_uint_ne(d.flow_id, 0);
    uint32_t via = d.container[0];
    /* walk it: each next server forwards it */
    dcn_path path;
    unsigned bad;
    ck_assert_int_eq(nha_walk(&h->t, d.src, d.dst, d.nha, d.nhops, &path, &bad), NHA_WALK_OK);
    int entered = -1;
    for (unsigned hop = 1; hop <= d.nhops; hop++) {
        uint32_t server = path.node[nha_server_pos(&h->t, &path, hop)];
        uint32_t *cof = h->e.container_of;
        if (entered < 0 && cof[server] == via)
            entered = (int)hop;
        char name[DCN_NAME_MAX];
        dcn_node_name(&h->t, server, name, sizeof name);
        harness *r = ah_new_source_routed(spec, name);
        ah_all_hellos(r);
        int pos = nha_server_pos(&h->t, &path, hop);
        int in_port = dcn_topo_port_to(&h->t, server, path.node[pos - 1]); /* the port the path names */
        ck_assert_int_ge(in_port, 0);
        engine_rx_frame(&r->e, (unsigned)in_port, frame, len);
        ck_assert_int_eq(dcn_hdr_decode(frame + 14, len - 14, &d, &hl), DCN_DEC_OK);
        if (hop == d.nhops) {
            ck_assert_int_eq(r->ndeliv, 1);
            ck_assert_uint_eq(r->iplen, 100);
            ah_free(r);
            break;
        }
        ck_assert_int_eq(r->nout, 1);
        len = r->out[0].len;
        memcpy(frame, r->out[0].data, len);
        ck_assert_int_eq(dcn_hdr_decode(frame + 14, len - 14, &d, &hl), DCN_DEC_OK); /* checksum still right */
        uint32_t next = path.node[nha_server_pos(&h->t, &path, hop + 1)];
        ck_assert_uint_eq(d.container_idx, (entered > 0 || cof[next] == via) ? 1 : 0);
        ah_free(r);
    }
    ck_assert_int_gt(entered, 0);
    /* a listed container that does not exist is a malformed extension */
    harness *r = ah_new(spec, "h0_01");
    ah_all_hellos(r);
    d.container[0] = 99;
    d.nhi = 1;
    uint8_t bogus[512];
    size_t n = ah_frame_build(bogus, DCN_T_DATA, d.src, d.dst, d.nha, d.nhops, 1, 0, NULL, 0);
    (void)n;
    dcn_hdr x = d;
    x.flags = DCN_FLAG_MDCUBE;
    x.payload_len = 0;
    size_t xl = dcn_hdr_encode(&x, bogus + 14, sizeof bogus - 14);
    engine_rx_frame(&r->e, 0, bogus, 14 + xl);
    ck_assert_uint_eq(r->e.c.drop_bad_extension, 1);
    ah_free(r);
    ah_free(h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_engine");
    TCase *tc = tcase_create("engine");
    tcase_add_test(tc, neighbor_table_from_topology);
    tcase_add_test(tc, hellos_are_sent_on_every_port);
    tcase_add_test(tc, a_live_neighbours_mac_is_not_taken_over);
    tcase_add_test(tc, a_neighbour_that_does_not_hear_us_is_down);
    tcase_add_test(tc, a_relay_that_no_neighbour_hears_blames_its_own_cable);
    tcase_add_test(tc, a_relay_whose_cable_fell_silent_names_its_own_cable);
    tcase_add_test(tc, relay_forwards_with_one_lookup);
    tcase_add_test(tc, relay_sends_the_received_buffer_itself);
    tcase_add_test(tc, destination_strips_the_header);
    tcase_add_test(tc, tun_packets_are_encapsulated);
    tcase_add_test(tc, ip_total_length_below_header_is_dropped);
    tcase_add_test(tc, fragments_share_one_flow_key);
    tcase_add_test(tc, malformed_frames_are_dropped_and_counted);
    tcase_add_test(tc, random_garbage_never_crashes);
    tcase_add_test(tc, dead_next_hop_sends_path_failure_to_source);
    tcase_add_test(tc, neighbors_expire_after_missed_hellos);
    tcase_add_test(tc, probe_relay_lowers_available_bandwidth);
    tcase_add_test(tc, probe_starts_at_first_hop_avail_plus_credit);
    tcase_add_test(tc, probe_destination_answers_on_the_reverse_path);
    tcase_add_test(tc, carrier_loss_downs_neighbors_at_once);
    tcase_add_test(tc, tick_waits_for_the_next_deadline);
    tcase_add_test(tc, short_hellos_keep_their_interval);
    tcase_add_test(tc, packet_finding_its_first_hop_dead_takes_the_new_path);
    tcase_add_test(tc, hello_before_carrier_up_clears_the_failed_link);
    tcase_add_test(tc, pcap_replay_through_the_seam);
    tcase_add_test(tc, mdcube_extension_end_to_end);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
