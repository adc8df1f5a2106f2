/* Path-failure messages are accepted only when they arrive on the port and
 * from the neighbour (MAC) that their path names, name a link one server
 * hop beyond the server that sent them, and, addressed to us, concern a
 * flow we know; everything else is dropped and counted, never acted on and
 * never relayed. Also: any frame arriving on a port its path does not name
 * is dropped. BCube_1 with n=4 throughout. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_harness.h"

static const char *const SPEC = "bcube n=4 k=1";

/* A path-failure frame that travels `back` (full node path, reporter first)
 * and is now at server number nhi of it, sent by the previous server from
 * its port towards us (source MAC ah_mac(mac_node, mac_port)). */
static size_t fail_frame(harness *h, uint8_t *buf, const dcn_path *back, unsigned nhi, uint32_t mac_node,
                         unsigned mac_port, uint32_t a, uint32_t b)
{
    uint8_t nha[DCN_MAX_HOPS], pl[DCN_FAIL_PAYLOAD] = {0};
    int n = nha_encode_path(&h->t, back, nha, DCN_MAX_HOPS);
    ck_assert_int_gt(n, 0);
    dcn_put32(pl, a);
    dcn_put32(pl + 4, b);
    pl[8] = DCN_T_DATA;
    size_t len = ah_frame_build(buf, DCN_T_PATH_FAIL, back->node[0], back->node[back->len - 1], nha, (unsigned)n,
                                nhi, 0, pl, sizeof pl);
    ah_mac(mac_node, mac_port, buf + 6);
    return len;
}

static dcn_path node_path(harness *h, const char *const *names, unsigned n)
{
    dcn_path p = {.len = 0};
    for (unsigned i = 0; i < n; i++)
        p.node[p.len++] = tu_node(&h->t, names[i]);
    return p;
}

/* A server on switch sw other than the listed ones. */
static uint32_t other_server_on(harness *h, uint32_t sw, uint32_t not1, uint32_t not2)
{
    for (uint16_t q = 0; q < dcn_nports(&h->t, sw); q++) {
        uint32_t x = dcn_peer(&h->t, sw, q).node;
        if (x != DCN_NONE && x < h->t.n_servers && x != not1 && x != not2)
            return x;
    }
    ck_abort_msg("no other server");
    return 0;
}

/* The switch of server s that is not sw. */
static uint32_t other_switch(harness *h, uint32_t s, uint32_t sw)
{
    for (uint16_t p = 0; p < dcn_nports(&h->t, s); p++) {
        uint32_t x = dcn_peer(&h->t, s, p).node;
        if (x != sw)
            return x;
    }
    ck_abort_msg("no other switch");
    return 0;
}

START_TEST(at_the_source_each_rule_drops_a_forged_message)
{
    harness *h = ah_new(SPEC, "h00");
    ah_hellos_from_true_ports(h);
    uint32_t h11 = tu_node(&h->t, "h11");
    uint8_t ip[ENGINE_HEADROOM + 200];
    ah_ipv4(ip + ENGINE_HEADROOM, h->e.self, h11, 5, 6, 100);
    engine_from_tun(&h->e, ip, 100);
    ps_flow_info fl[4];
    ck_assert_int_eq(ps_flows(h->e.ps, fl, 4), 1);
    const dcn_path *p = &fl[0].path; /* h00 sw1 R sw2 h11 */
    ck_assert_uint_eq(p->len, 5);
    uint32_t sw1 = p->node[1], r = p->node[2], sw2 = p->node[3];
    dcn_path back = {.len = 3, .node = {r, sw1, h->e.self}};
    int in_port = dcn_topo_port_to(&h->t, h->e.self, sw1);
    unsigned r_port = (unsigned)dcn_topo_port_to(&h->t, r, sw1);
    uint8_t buf[512];
    size_t n;

    /* rule 1: the wrong port */
    n = fail_frame(h, buf, &back, 1, r, r_port, sw2, h11);
    engine_rx_frame(&h->e, (unsigned)(1 - in_port), buf, n);
    ck_assert_uint_eq(h->e.c.drop_wrong_port, 1);
    /* rule 1: the right port, but the MAC of another neighbour on it */
    uint32_t other = other_server_on(h, sw1, h->e.self, r);
    n = fail_frame(h, buf, &back, 1, other, (unsigned)dcn_topo_port_to(&h->t, other, sw1), sw2, h11);
    engine_rx_frame(&h->e, (unsigned)in_port, buf, n);
    ck_assert_uint_eq(h->e.c.drop_fail_wrong_neighbor, 1);
    /* rule 2: a link one hop beyond R but not on the flow's path */
    uint32_t off = other_server_on(h, sw2, r, h11);
    n = fail_frame(h, buf, &back, 1, r, r_port, sw2, off);
    engine_rx_frame(&h->e, (unsigned)in_port, buf, n);
    ck_assert_uint_eq(h->e.c.drop_fail_link_off_path, 1);
    /* rule 2: a link nowhere near R (on our other path) */
    uint32_t far_sw = other_switch(h, h->e.self, sw1);
    n = fail_frame(h, buf, &back, 1, r, r_port, far_sw, other_server_on(h, far_sw, h->e.self, DCN_NONE));
    engine_rx_frame(&h->e, (unsigned)in_port, buf, n);
    ck_assert_uint_eq(h->e.c.drop_fail_link_off_path, 2);
    /* rule 2: the link the message itself came over */
    n = fail_frame(h, buf, &back, 1, r, r_port, sw1, r);
    engine_rx_frame(&h->e, (unsigned)in_port, buf, n);
    ck_assert_uint_eq(h->e.c.drop_fail_link_off_path, 3);
    /* rule 3: a well-formed message from another neighbour no flow of ours crosses */
    dcn_path back2 = {.len = 3, .node = {other, sw1, h->e.self}};
    uint32_t osw = other_switch(h, other, sw1);
    n = fail_frame(h, buf, &back2, 1, other, (unsigned)dcn_topo_port_to(&h->t, other, sw1), osw,
                   other_server_on(h, osw, other, DCN_NONE));
    engine_rx_frame(&h->e, (unsigned)in_port, buf, n);
    ck_assert_uint_eq(h->e.c.drop_fail_unknown_flow, 1);

    ck_assert_uint_eq(h->e.c.path_failure_rx, 0);
    ck_assert_uint_eq(ah_ps_counter(h, "failures_heard"), 0);
    ck_assert_uint_eq(ah_ps_counter(h, "faildb_entries"), 0);
    /* the genuine one is accepted and reaches path selection */
    n = fail_frame(h, buf, &back, 1, r, r_port, sw2, h11);
    engine_rx_frame(&h->e, (unsigned)in_port, buf, n);
    ck_assert_uint_eq(h->e.c.path_failure_rx, 1);
    ck_assert_uint_eq(ah_ps_counter(h, "failures_heard"), 1);
    ck_assert_uint_eq(ah_ps_counter(h, "faildb_entries"), 1);
    ah_free(h);
}
END_TEST

START_TEST(a_relay_drops_forged_messages_and_relays_good_ones)
{
    /* h11 -> s1_1 -> h01 -> s0_0 -> h00; h01 overhears it */
    harness *h = ah_new(SPEC, "h01");
    ah_hellos_from_true_ports(h);
    const char *names[] = {"h11", "s1_1", "h01", "s0_0", "h00"};
    dcn_path back = node_path(h, names, 5);
    uint32_t h11 = back.node[0], s1_1 = back.node[1], h01 = back.node[2];
    uint32_t s0_1 = tu_node(&h->t, "s0_1"), h13 = tu_node(&h->t, "h13");
    uint8_t buf[512];
    size_t n;
    /* wrong port */
    n = fail_frame(h, buf, &back, 1, h11, 1, s0_1, h13);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.drop_wrong_port, 1);
    /* the MAC of h21, also a neighbour on port 1 */
    n = fail_frame(h, buf, &back, 1, tu_node(&h->t, "h21"), 1, s0_1, h13);
    engine_rx_frame(&h->e, 1, buf, n);
    ck_assert_uint_eq(h->e.c.drop_fail_wrong_neighbor, 1);
    /* the link the message came over, and a link nowhere near h11 */
    n = fail_frame(h, buf, &back, 1, h11, 1, s1_1, h01);
    engine_rx_frame(&h->e, 1, buf, n);
    n = fail_frame(h, buf, &back, 1, h11, 1, tu_node(&h->t, "s0_2"), tu_node(&h->t, "h20"));
    engine_rx_frame(&h->e, 1, buf, n);
    ck_assert_uint_eq(h->e.c.drop_fail_link_off_path, 2);
    ck_assert_int_eq(h->nout, 0);
    ck_assert_uint_eq(h->e.c.path_failure_overheard, 0);
    ck_assert_uint_eq(ah_ps_counter(h, "failures_heard"), 0);
    /* the genuine one: relayed towards h00, but not adopted: no flow of
     * h01's crosses h11 and the link */
    n = fail_frame(h, buf, &back, 1, h11, 1, s0_1, h13);
    engine_rx_frame(&h->e, 1, buf, n);
    ck_assert_uint_eq(h->e.c.path_failure_overheard, 0);
    ck_assert_uint_eq(h->e.c.path_failure_not_adopted, 1);
    ck_assert_uint_eq(ah_ps_counter(h, "failures_heard"), 0);
    ck_assert_int_eq(h->nout, 1);
    ck_assert_uint_eq(h->out[0].port, 0);
    /* flows of h01's own to h13, one of them over h11 and s0_1-h13: now
     * the same report concerns it, and h01 adopts it too */
    int via_h11 = 0;
    for (uint16_t sport = 1; sport <= 16 && !via_h11; sport++) {
        uint8_t ip[ENGINE_HEADROOM + 200];
        ah_ipv4(ip + ENGINE_HEADROOM, h01, h13, sport, 6, 100);
        engine_from_tun(&h->e, ip, 100);
        ps_flow_info fl[32];
        int nf = ps_flows(h->e.ps, fl, 32);
        for (int i = 0; i < nf; i++)
            via_h11 |= fl[i].path.len == 5 && fl[i].path.node[2] == h11;
    }
    ck_assert_msg(via_h11, "no flow of h01's to h13 went over h11");
    h->now += 100; /* past the received failures' rate limit */
    h->nout = 0;
    n = fail_frame(h, buf, &back, 1, h11, 1, s0_1, h13); /* anew: relaying rewrote the last one */
    engine_rx_frame(&h->e, 1, buf, n);
    ck_assert_uint_eq(h->e.c.path_failure_overheard, 1);
    ck_assert_uint_eq(ah_ps_counter(h, "failures_heard"), 1);
    const ah_frame *fw = ah_find(h, DCN_T_PATH_FAIL); /* relayed too (path selection may also act at once) */
    ck_assert_ptr_nonnull(fw);
    ck_assert_uint_eq(fw->port, 0);
    ah_free(h);
}
END_TEST

/* The same report (reporter, addressee, link) is taken once per 50 ms: a
 * flood of copies is dropped and counted, not relayed; a report of the
 * same link to another source passes. */
START_TEST(received_failures_are_rate_limited)
{
    harness *h = ah_new(SPEC, "h01");
    ah_hellos_from_true_ports(h);
    const char *names[] = {"h11", "s1_1", "h01", "s0_0", "h00"};
    const char *names2[] = {"h11", "s1_1", "h01", "s0_0", "h02"};
    dcn_path back = node_path(h, names, 5), back2 = node_path(h, names2, 5);
    uint32_t h11 = back.node[0], s0_1 = tu_node(&h->t, "s0_1"), h13 = tu_node(&h->t, "h13");
    uint8_t buf[512];
    for (int i = 0; i < 10; i++) {
        h->now += 2;
        size_t n = fail_frame(h, buf, &back, 1, h11, 1, s0_1, h13); /* relaying rewrites it */
        engine_rx_frame(&h->e, 1, buf, n);
    }
    ck_assert_int_eq(h->nout, 1);
    ck_assert_uint_eq(h->e.c.drop_fail_rate_limited_rx, 9);
    size_t n2 = fail_frame(h, buf, &back2, 1, h11, 1, s0_1, h13); /* the same link, to h02 */
    engine_rx_frame(&h->e, 1, buf, n2);
    ck_assert_int_eq(h->nout, 2);
    h->now += 50; /* the window is over */
    size_t n = fail_frame(h, buf, &back, 1, h11, 1, s0_1, h13);
    engine_rx_frame(&h->e, 1, buf, n);
    ck_assert_int_eq(h->nout, 3);
    ck_assert_uint_eq(h->e.c.drop_fail_rate_limited_rx, 9);
    ah_free(h);
}
END_TEST

START_TEST(data_on_a_port_its_path_does_not_name_is_dropped)
{
    harness *h = ah_new(SPEC, "h01");
    ah_hellos_from_true_ports(h);
    const char *names[] = {"h00", "s0_0", "h01", "s1_1", "h11"};
    dcn_path p = node_path(h, names, 5);
    uint8_t nha[8], ip[100], buf[512];
    ck_assert_int_eq(nha_encode_path(&h->t, &p, nha, 8), 2);
    ah_ipv4(ip, p.node[0], p.node[4], 1, 2, sizeof ip);
    size_t n = ah_frame_build(buf, DCN_T_DATA, p.node[0], p.node[4], nha, 2, 1, 0, ip, sizeof ip);
    engine_rx_frame(&h->e, 1, buf, n);
    ck_assert_uint_eq(h->e.c.drop_wrong_port, 1);
    ck_assert_int_eq(h->nout, 0);
    engine_rx_frame(&h->e, 0, buf, n);
    ck_assert_uint_eq(h->e.c.relayed, 1);
    /* the path is now validated and cached: the wrong port still drops it */
    h->nout = 0;
    n = ah_frame_build(buf, DCN_T_DATA, p.node[0], p.node[4], nha, 2, 1, 0, ip, sizeof ip);
    engine_rx_frame(&h->e, 1, buf, n);
    ck_assert_uint_eq(h->e.c.drop_wrong_port, 2);
    ck_assert_int_eq(h->nout, 0);
    ah_free(h);
}
END_TEST

/* A data packet delivered to us proves the links it crossed are up: while
 * our flow back to its source has no path because path selection holds one
 * of them failed, the packet clears it and the reply is routed at once (the
 * soak's first ACK after a cable came back, docs/soak.md). */
START_TEST(delivered_data_clears_its_links_for_the_reply)
{
    harness *h = ah_new(SPEC, "h11");
    ah_hellos_from_true_ports(h);
    uint32_t h00 = tu_node(&h->t, "h00");
    ps_on_path_failure(h->e.ps, h00, tu_node(&h->t, "s0_0"));
    ps_on_path_failure(h->e.ps, h00, tu_node(&h->t, "s1_0")); /* h00 cut off, as far as we know */
    uint8_t ip[ENGINE_HEADROOM + 100], buf[512];
    ah_ipv4(ip + ENGINE_HEADROOM, h->e.self, h00, 5201, 40000, 100);
    engine_from_tun(&h->e, ip, 100);
    ck_assert_uint_eq(h->e.c.drop_no_route, 1);
    /* h00's data arrives over h00 s0_0 h01 s1_1 h11 (its cable to s0_0 is back) */
    const char *names[] = {"h00", "s0_0", "h01", "s1_1", "h11"};
    dcn_path p = node_path(h, names, 5);
    uint8_t nha[8], data[100];
    ck_assert_int_eq(nha_encode_path(&h->t, &p, nha, 8), 2);
    ah_ipv4(data, h00, h->e.self, 40000, 5201, sizeof data);
    size_t n = ah_frame_build(buf, DCN_T_DATA, h00, h->e.self, nha, 2, 2, 0, data, sizeof data);
    engine_rx_frame(&h->e, 1, buf, n);
    ck_assert_int_eq(h->ndeliv, 1);
    ck_assert_uint_eq(ah_ps_counter(h, "faildb_cleared_by_data"), 1);
    ck_assert_uint_eq(ah_ps_counter(h, "faildb_entries"), 1); /* h00-s1_0 was not crossed */
    h->nout = 0;
    ah_ipv4(ip + ENGINE_HEADROOM, h->e.self, h00, 5201, 40000, 100);
    engine_from_tun(&h->e, ip, 100);
    ck_assert_uint_eq(h->e.c.drop_no_route, 1);
    ck_assert_ptr_nonnull(ah_find(h, DCN_T_DATA));
    ah_free(h);
}
END_TEST

/* The source encodes a flow's NHAs once, and again when its path changes. */
START_TEST(source_nhas_follow_a_path_switch)
{
    harness *h = ah_new(SPEC, "h00");
    ah_hellos_from_true_ports(h);
    uint32_t h11 = tu_node(&h->t, "h11");
    uint8_t ip[ENGINE_HEADROOM + 200];
    uint8_t before[8], after[8], want[8];
    for (int round = 0; round < 2; round++) {
        h->nout = 0;
        ah_ipv4(ip + ENGINE_HEADROOM, h->e.self, h11, 5, 6, 100);
        engine_from_tun(&h->e, ip, 100);
        const ah_frame *f = ah_find(h, DCN_T_DATA);
        ck_assert_ptr_nonnull(f);
        ps_flow_info fl[4];
        ck_assert_int_eq(ps_flows(h->e.ps, fl, 4), 1);
        ck_assert_int_eq(nha_encode_path(&h->t, &fl[0].path, want, 8), 2);
        memcpy(round ? after : before, f->data + 14 + DCN_OFF_NHA, 2);
        ck_assert_mem_eq(f->data + 14 + DCN_OFF_NHA, want, 2);
        if (!round) /* the flow's path breaks: path selection moves it */
            ps_on_path_failure(h->e.ps, fl[0].path.node[3], fl[0].path.node[4]);
    }
    ck_assert(memcmp(before, after, 2) != 0);
    ah_free(h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_path_failure");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, at_the_source_each_rule_drops_a_forged_message);
    tcase_add_test(tc, a_relay_drops_forged_messages_and_relays_good_ones);
    tcase_add_test(tc, received_failures_are_rate_limited);
    tcase_add_test(tc, data_on_a_port_its_path_does_not_name_is_dropped);
    tcase_add_test(tc, source_nhas_follow_a_path_switch);
    tcase_add_test(tc, delivered_data_clears_its_links_for_the_reply);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
