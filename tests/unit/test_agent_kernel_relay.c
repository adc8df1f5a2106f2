/* The kernel relay's side in the agent, without privileges: what the
 * engine tells it (relayed_data), the map entries built from the engine's
 * state (kernel/relay_entries.h), and the neighbour table's generation that
 * tells the agent when to copy it. The program itself is exercised in
 * network namespaces (tests/integration/test_kernel_relay.sh). The relay
 * under test is h01 of BCube_1 with n=2: h00 -s0_0- h01 -s1_1- h11. */
#include <string.h>

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
    ah_hello(h, 1, H11, 0); /* a new MAC */
    ck_assert_uint_gt(h->e.nt.gen, g);
    g = h->e.nt.gen;
    h->now += 10000; /* silent: expires */
    engine_tick(&h->e);
    ck_assert(!h->e.nt.e[0x41].up);
    ck_assert_uint_gt(h->e.nt.gen, g);
    g = h->e.nt.gen;
    engine_carrier(&h->e, 0, false);
    ck_assert_uint_gt(h->e.nt.gen, g);
    ah_free(h);
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
    suite_add_tcase(s, tc);
    return tu_run(s);
}
