/* Probe responses are taken only as the answer to a probe the source sent
 * (issue 40): they echo the probe's nonce, come back along the probed
 * path, from the neighbour that path names as its first hop (by MAC), and
 * the bandwidth they report is capped at what the source's own port onto
 * the path carries. A forged response of each kind is dropped or capped,
 * and counted. h00 of BCube_1 with n=4, one flow to h11. */
#include <string.h>

#include "agent/core/nha.h"
#include "agent_harness.h"

static const char *const SPEC = "bcube n=4 k=1";

/* A probe h00 sent: its nonce, its payload and the node path it takes. */
typedef struct probe {
    uint32_t seq;
    uint8_t payload[DCN_PROBE_PAYLOAD];
    dcn_path path;
} probe;

/* h00 with every neighbour heard and a flow to h11 whose probes went out;
 * the first n of them in out (returns how many there were). */
static int source_with_probes(harness **hp, probe *out, int max)
{
    harness *h = ah_new(SPEC, "h00");
    ah_hellos_from_true_ports(h);
    uint8_t ip[ENGINE_HEADROOM + 200];
    ah_ipv4(ip + ENGINE_HEADROOM, h->e.self, tu_node(&h->t, "h11"), 5, 6, 100);
    engine_from_tun(&h->e, ip, 100);
    for (int t = 0; t < 30 && !ah_find(h, DCN_T_PROBE); t++) { /* the first round may wait for a tick */
        h->now += 100;
        engine_tick(&h->e);
    }
    int n = 0;
    for (int i = 0; i < h->nout && n < max; i++) {
        dcn_hdr d;
        size_t hl;
        const ah_frame *f = &h->out[i];
        if (f->len <= DCN_ETH_HLEN || f->data[DCN_ETH_HLEN + DCN_OFF_TYPE] != DCN_T_PROBE)
            continue;
        ck_assert_int_eq(dcn_hdr_decode(f->data + DCN_ETH_HLEN, f->len - DCN_ETH_HLEN, &d, &hl), DCN_DEC_OK);
        probe *p = &out[n++];
        memcpy(p->payload, f->data + DCN_ETH_HLEN + hl, DCN_PROBE_PAYLOAD);
        p->seq = dcn_get32(p->payload);
        unsigned bad;
        ck_assert_int_eq(nha_walk(&h->t, d.src, d.dst, d.nha, d.nhops, &p->path, &bad), NHA_WALK_OK);
    }
    *hp = h;
    return n;
}

/* The response to p as its destination sends it, come back along `back`
 * (the reverse of a path from h00), handed to h00 by the server at back's
 * second-last server hop from MAC ah_mac(mac_node, mac_port); returns the
 * port it arrives on. */
static unsigned respond(harness *h, const probe *p, const dcn_path *fwd, uint32_t seq, uint32_t avail,
                        int mac_node, int mac_port)
{
    dcn_path back = *fwd;
    dcn_path_reverse(&back);
    uint8_t nha[DCN_MAX_HOPS], pl[DCN_PROBE_PAYLOAD], buf[512];
    int n = nha_encode_path(&h->t, &back, nha, DCN_MAX_HOPS);
    ck_assert_int_gt(n, 0);
    memcpy(pl, p->payload, sizeof pl);
    dcn_put32(pl, seq);
    size_t len = ah_frame_build(buf, DCN_T_PROBE_RESP, back.node[0], h->e.self, nha, (unsigned)n, (unsigned)n, avail,
                                pl, sizeof pl);
    uint32_t first = fwd->node[1]; /* our first hop: a switch or a server */
    unsigned port = (unsigned)dcn_topo_port_to(&h->t, h->e.self, first);
    uint32_t hop = fwd->node[dcn_kind(&h->t, first) == DCN_SWITCH ? 2 : 1]; /* the first server after us */
    uint32_t mnode = mac_node >= 0 ? (uint32_t)mac_node : hop;
    int mport = mac_port >= 0 ? mac_port : dcn_topo_port_to(&h->t, hop, first);
    ah_mac(mnode, (unsigned)mport, buf + 6);
    engine_rx_frame(&h->e, port, buf, len);
    return port;
}

START_TEST(a_genuine_response_is_taken)
{
    harness *h;
    probe p[8];
    ck_assert_int_gt(source_with_probes(&h, p, 8), 0);
    respond(h, &p[0], &p[0].path, p[0].seq, 500, -1, -1);
    ck_assert_uint_eq(ah_ps_counter(h, "probe_responses"), 1);
    ck_assert_uint_eq(h->e.c.probe_resp_capped, 0);
    ah_free(h);
}
END_TEST

/* The sequence number is a nonce: the probes of a round do not count up,
 * so the next one cannot be guessed from the last; a guess is stale. */
START_TEST(a_guessed_nonce_is_stale)
{
    harness *h;
    probe p[8];
    int n = source_with_probes(&h, p, 8);
    ck_assert_int_ge(n, 2);
    for (int i = 1; i < n; i++)
        ck_assert_uint_ne(p[i].seq, p[i - 1].seq + 1);
    respond(h, &p[0], &p[0].path, p[0].seq + 1, 500, -1, -1);
    respond(h, &p[0], &p[0].path, p[n - 1].seq + 1, 500, -1, -1);
    ck_assert_uint_eq(ah_ps_counter(h, "probe_responses"), 0);
    ck_assert_uint_eq(ah_ps_counter(h, "probe_responses_stale"), 2);
    ah_free(h);
}
END_TEST

/* The right nonce, back along another of the flow's paths: not the answer
 * for the probed one. */
START_TEST(a_response_on_another_path_is_ignored)
{
    harness *h;
    probe p[8];
    int n = source_with_probes(&h, p, 8);
    ck_assert_int_ge(n, 2);
    int other = -1;
    for (int i = 1; i < n && other < 0; i++)
        if (p[i].path.len != p[0].path.len || memcmp(p[i].path.node, p[0].path.node, p[0].path.len * 4) != 0)
            other = i;
    ck_assert_int_ge(other, 0);
    respond(h, &p[0], &p[other].path, p[0].seq, 500, -1, -1);
    ck_assert_uint_eq(ah_ps_counter(h, "probe_responses"), 0);
    ck_assert_uint_eq(ah_ps_counter(h, "probe_responses_wrong_path"), 1);
    respond(h, &p[0], &p[0].path, p[0].seq, 500, -1, -1); /* the real one is still awaited */
    ck_assert_uint_eq(ah_ps_counter(h, "probe_responses"), 1);
    ah_free(h);
}
END_TEST

/* The right nonce and path, handed over by another server on the first
 * hop's switch (its MAC): dropped before path selection sees it. */
START_TEST(a_response_from_another_neighbour_is_dropped)
{
    harness *h;
    probe p[8];
    ck_assert_int_gt(source_with_probes(&h, p, 8), 0);
    uint32_t sw = p[0].path.node[1], hop = p[0].path.node[2];
    ck_assert_uint_eq(dcn_kind(&h->t, sw), DCN_SWITCH);
    uint32_t forger = DCN_NONE;
    for (uint16_t q = 0; q < dcn_nports(&h->t, sw) && forger == DCN_NONE; q++) {
        uint32_t x = dcn_peer(&h->t, sw, q).node;
        if (x != h->e.self && x != hop)
            forger = x;
    }
    ck_assert_uint_ne(forger, DCN_NONE);
    respond(h, &p[0], &p[0].path, p[0].seq, 500, (int)forger, dcn_topo_port_to(&h->t, forger, sw));
    ck_assert_uint_eq(h->e.c.drop_probe_resp_wrong_neighbor, 1);
    ck_assert_uint_eq(ah_ps_counter(h, "probe_responses"), 0);
    ah_free(h);
}
END_TEST

/* A response reporting more than our port onto the path carries (1000
 * Mb/s in the harness) is taken at that. */
START_TEST(the_reported_bandwidth_is_capped_at_our_port)
{
    harness *h;
    probe p[8];
    ck_assert_int_gt(source_with_probes(&h, p, 8), 0);
    respond(h, &p[0], &p[0].path, p[0].seq, 4000000000u, -1, -1);
    ck_assert_uint_eq(h->e.c.probe_resp_capped, 1);
    ck_assert_uint_eq(ah_ps_counter(h, "probe_responses"), 1);
    ah_free(h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_probe_trust");
    TCase *tc = tcase_create("probe_trust");
    tcase_add_test(tc, a_genuine_response_is_taken);
    tcase_add_test(tc, a_guessed_nonce_is_stale);
    tcase_add_test(tc, a_response_on_another_path_is_ignored);
    tcase_add_test(tc, a_response_from_another_neighbour_is_dropped);
    tcase_add_test(tc, the_reported_bandwidth_is_capped_at_our_port);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
