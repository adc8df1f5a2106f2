/* MDCube hierarchical routing (--mdcube-routing hier, the default): packets
 * carried hop by hop through one engine per server of a 2x2 and a 1-D
 * 5-container MDCube, with inner and fibre failures. The network is
 * emulated here: a frame reaches every server behind the sender's switch
 * (and behind its fibre peer) whose links are up, as the switches would
 * carry it. */
#include "agent_harness.h"
#include "agent/core/nha.h"
#include "topo/family.h"

#define NET_MAX 32
#define NET_FAILED_MAX 8

typedef struct net {
    harness *h[NET_MAX];
    unsigned n;
    const dcn_topo *t; /* h[0]'s copy: every engine's topology is the same */
    uint32_t failed[NET_FAILED_MAX][2];
    unsigned nfailed;
    /* what happened to the last packet sent */
    dcn_path last_path; /* the full path of the last data frame delivered */
    unsigned delivered;
} net;

static bool link_up(const net *nw, uint32_t a, uint32_t b)
{
    for (unsigned i = 0; i < nw->nfailed; i++)
        if ((nw->failed[i][0] == a && nw->failed[i][1] == b) || (nw->failed[i][0] == b && nw->failed[i][1] == a))
            return false;
    return true;
}

static void net_fail(net *nw, const char *a, const char *b)
{
    ck_assert_uint_lt(nw->nfailed, NET_FAILED_MAX);
    nw->failed[nw->nfailed][0] = tu_node(nw->t, a);
    nw->failed[nw->nfailed][1] = tu_node(nw->t, b);
    nw->nfailed++;
}

/* The switch a server port is cabled to. */
static uint32_t sw_of(const dcn_topo *t, uint32_t s, unsigned p) { return dcn_peer(t, s, (uint16_t)p).node; }

/* Frames from (s, p) reach (r, q) through the switches, links up. */
static bool reaches(const net *nw, uint32_t s, unsigned p, uint32_t r, unsigned q)
{
    const dcn_topo *t = nw->t;
    if (s == r || p >= dcn_nports(t, s) || q >= dcn_nports(t, r))
        return false;
    uint32_t S = sw_of(t, s, p), R = sw_of(t, r, q);
    if (S == DCN_NONE || R == DCN_NONE || !link_up(nw, s, S) || !link_up(nw, r, R))
        return false;
    if (S == R)
        return true;
    int f = nha_fiber_port(t, S);
    return f >= 0 && dcn_peer(t, S, (uint16_t)f).node == R && link_up(nw, S, R);
}

static void deliver_frame(net *nw, uint32_t s, const ah_frame *f)
{
    static const uint8_t bcast[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    if (memcmp(f->data, bcast, 6) == 0) {
        for (unsigned i = 0; i < nw->n; i++)
            for (unsigned q = 0; q < nw->h[i]->e.nports; q++)
                if (reaches(nw, s, f->port, i, q)) {
                    uint8_t copy[2048];
                    memcpy(copy, f->data, f->len);
                    engine_rx_frame(&nw->h[i]->e, q, copy, f->len);
                }
        return;
    }
    uint32_t r = (uint32_t)f->data[3] << 8 | f->data[4];
    unsigned q = f->data[5];
    if (r >= nw->n || !reaches(nw, s, f->port, r, q))
        return; /* lost on a failed link */
    uint8_t copy[2048];
    memcpy(copy, f->data, f->len);
    int before = nw->h[r]->ndeliv;
    engine_rx_frame(&nw->h[r]->e, q, copy, f->len);
    if (nw->h[r]->ndeliv != before) {
        dcn_hdr d;
        size_t hl;
        ck_assert_int_eq(dcn_hdr_decode(f->data + 14, f->len - 14, &d, &hl), DCN_DEC_OK);
        unsigned bad;
        ck_assert_int_eq(nha_walk(nw->t, d.src, d.dst, d.nha, d.nhops, &nw->last_path, &bad), NHA_WALK_OK);
        nw->delivered++;
    }
}

/* Carries every frame sent until the network is quiet. */
static void net_run(net *nw)
{
    static ah_frame q[AH_MAX_OUT];
    for (int rounds = 0; rounds < 1000; rounds++) {
        bool any = false;
        for (unsigned i = 0; i < nw->n; i++) {
            harness *h = nw->h[i];
            int n = h->nout;
            if (!n)
                continue;
            any = true;
            memcpy(q, h->out, (size_t)n * sizeof q[0]);
            h->nout = 0;
            for (int k = 0; k < n; k++)
                deliver_frame(nw, i, &q[k]);
        }
        if (!any)
            return;
    }
    ck_abort_msg("the network never went quiet");
}

/* Advances every clock by ms in 100 ms ticks (hellos, expiry). */
static void net_time(net *nw, uint64_t ms)
{
    for (uint64_t t = 0; t < ms; t += 100) {
        for (unsigned i = 0; i < nw->n; i++) {
            nw->h[i]->now += 100;
            engine_tick(&nw->h[i]->e);
        }
        net_run(nw);
    }
}

static net *net_new(const char *spec)
{
    net *nw = calloc(1, sizeof *nw);
    ck_assert_ptr_nonnull(nw);
    dcn_topo t;
    tu_build(&t, spec);
    nw->n = t.n_servers;
    ck_assert_uint_le(nw->n, NET_MAX);
    for (unsigned i = 0; i < nw->n; i++) {
        char name[DCN_NAME_MAX];
        dcn_node_name(&t, i, name, sizeof name);
        nw->h[i] = ah_new(spec, name);
        ck_assert_ptr_nonnull(nw->h[i]->e.hier);
    }
    dcn_topo_free(&t);
    nw->t = &nw->h[0]->t;
    for (int round = 0; round < 2; round++) { /* heard, then heard both ways */
        for (unsigned i = 0; i < nw->n; i++)
            engine_send_hellos(&nw->h[i]->e);
        net_run(nw);
    }
    for (unsigned i = 0; i < nw->n; i++)
        ck_assert(engine_ready(&nw->h[i]->e, NULL, NULL));
    return nw;
}

static void net_free(net *nw)
{
    for (unsigned i = 0; i < nw->n; i++)
        ah_free(nw->h[i]);
    free(nw);
}

/* Sends one UDP packet src -> dst (ports sport/dport) from src's TUN and
 * carries it; returns how many packets were delivered (0 or 1). */
static unsigned net_send(net *nw, const char *src, const char *dst, uint16_t sport)
{
    uint32_t s = tu_node(nw->t, src), d = tu_node(nw->t, dst);
    uint8_t buf[ENGINE_HEADROOM + 200];
    ah_ipv4(buf + ENGINE_HEADROOM, s, d, sport, 5201, 120);
    unsigned before = nw->delivered;
    for (unsigned i = 0; i < nw->n; i++)
        nw->h[i]->now++; /* every packet at its own time: entries tell them apart */
    engine_from_tun(&nw->h[s]->e, buf, 120);
    net_run(nw);
    if (nw->delivered != before) {
        ck_assert_uint_eq(nw->h[d]->iplen, 120);
        ck_assert_mem_eq(nw->h[d]->ip, buf + ENGINE_HEADROOM, 120);
    }
    return nw->delivered - before;
}

static bool path_has(const net *nw, const char *node)
{
    return dcn_path_contains(&nw->last_path, tu_node(nw->t, node));
}

static bool path_crosses(const net *nw, const char *a, const char *b)
{
    uint32_t x = tu_node(nw->t, a), y = tu_node(nw->t, b);
    for (uint32_t i = 0; i + 1 < nw->last_path.len; i++)
        if ((nw->last_path.node[i] == x && nw->last_path.node[i + 1] == y) ||
            (nw->last_path.node[i] == y && nw->last_path.node[i + 1] == x))
            return true;
    return false;
}

static uint64_t sum_counter(const net *nw, size_t off)
{
    uint64_t s = 0;
    for (unsigned i = 0; i < nw->n; i++)
        s += *(const uint64_t *)((const uint8_t *)&nw->h[i]->e.c + off);
    return s;
}
#define NET_SUM(nw, field) sum_counter(nw, offsetof(dcn_counters, field))

/* Every ordered pair of servers in different containers of a 2x2 MDCube
 * is reached; the packets are segmented and each container appends its
 * own segment. */
START_TEST(hier_all_pairs_2x2)
{
    net *nw = net_new("mdcube n=2 k=1 m=2x2");
    unsigned pairs = 0;
    for (uint32_t s = 0; s < nw->n; s++)
        for (uint32_t d = 0; d < nw->n; d++) {
            if (s / 4 == d / 4)
                continue;
            char a[DCN_NAME_MAX], b[DCN_NAME_MAX];
            dcn_node_name(nw->t, s, a, sizeof a);
            dcn_node_name(nw->t, d, b, sizeof b);
            ck_assert_msg(net_send(nw, a, b, 1000) == 1, "%s -> %s not delivered", a, b);
            pairs++;
        }
    ck_assert_uint_eq(pairs, 16 * 12);
    ck_assert_uint_gt(NET_SUM(nw, segment_extended), 0);
    ck_assert_uint_eq(NET_SUM(nw, drop_no_segment), 0);
    ck_assert_uint_eq(NET_SUM(nw, drop_bad_path), 0);
    net_free(nw);
}
END_TEST

/* The source draws its jump at random: over many flows of one pair of the
 * 1-D 5-container MDCube every one of the 4 jumps is used, and a flow
 * keeps its jump and its path packet after packet. */
START_TEST(hier_random_jumps_kept_per_flow)
{
    net *nw = net_new("mdcube n=2 k=1 m=5");
    unsigned seen[8] = {0};
    for (uint16_t sport = 1000; sport < 1040; sport++) {
        ck_assert_uint_eq(net_send(nw, "h3_11", "h4_00", sport), 1);
        dcn_path first = nw->last_path;
        ck_assert_uint_eq(net_send(nw, "h3_11", "h4_00", sport), 1);
        ck_assert_uint_eq(first.len, nw->last_path.len);
        ck_assert_mem_eq(first.node, nw->last_path.node, first.len * sizeof first.node[0]);
    }
    harness *src = nw->h[tu_node(nw->t, "h3_11")];
    const mdc_entry *all[MDC_SLOTS];
    int n = mdc_entries(src->e.hier, all, MDC_SLOTS, src->now);
    ck_assert_int_eq(n, 40);
    for (int i = 0; i < n; i++) {
        ck_assert_int_ge(all[i]->jump, 0);
        ck_assert_int_lt(all[i]->jump, 4);
        seen[all[i]->jump]++;
        /* 1-D: the direct jump lists no container, the others one */
        ck_assert_uint_le(all[i]->n_containers, 1);
    }
    for (int j = 0; j < 4; j++)
        ck_assert_msg(seen[j] > 0, "jump %d never drawn", j);
    ck_assert_uint_eq(src->e.hier->c.jump_changes, 0);
    net_free(nw);
}
END_TEST

/* A flow 3.11 -> 4.00 through container 1 (the paper's tcp1, Fig. 11). */
static uint16_t flow_through(net *nw, uint32_t container)
{
    for (uint16_t sport = 2000; sport < 2200; sport++) {
        ck_assert_uint_eq(net_send(nw, "h3_11", "h4_00", sport), 1);
        harness *src = nw->h[tu_node(nw->t, "h3_11")];
        const mdc_entry *all[MDC_SLOTS];
        int n = mdc_entries(src->e.hier, all, MDC_SLOTS, src->now);
        for (int i = 0; i < n; i++)
            if (all[i]->flow_id && all[i]->n_containers == 1 && all[i]->container[0] == container &&
                all[i]->created_ms == src->now)
                return sport;
    }
    ck_abort_msg("no flow drew container %u", container);
    return 0;
}

/* The source's entry used by the last packet it sent. */
static const mdc_entry *last_entry(net *nw, const char *src)
{
    harness *h = nw->h[tu_node(nw->t, src)];
    const mdc_entry *all[MDC_SLOTS];
    int n = mdc_entries(h->e.hier, all, MDC_SLOTS, h->now);
    const mdc_entry *x = NULL;
    for (int i = 0; i < n; i++)
        if (all[i]->source && (!x || all[i]->last_ms > x->last_ms))
            x = all[i];
    ck_assert_ptr_nonnull(x);
    return x;
}

/* The MDCube of the failure tests (m=5) with a flow h3_11 -> h4_00
 * through container 1, sent once; *sport: its source port. */
static net *net_flow_via_1(uint16_t *sport)
{
    net *nw = net_new("mdcube n=2 k=1 m=5");
    *sport = flow_through(nw, 1);
    ck_assert_uint_eq(net_send(nw, "h3_11", "h4_00", *sport), 1);
    return nw;
}

/* The servers of container 1 (4 servers a container) on the last path
 * sent, in path order, into out (up to 8); their count, at least 1. */
static uint32_t path_servers_of_1(const net *nw, uint32_t out[8])
{
    uint32_t n = 0;
    for (uint32_t i = 0; i < nw->last_path.len && n < 8; i++) {
        uint32_t v = nw->last_path.node[i];
        if (v < nw->t->n_servers && v / 4 == 1)
            out[n++] = v;
    }
    ck_assert_uint_ge(n, 1);
    return n;
}

/* Where node v is on the last path sent (it is on it). */
static uint32_t path_pos(const net *nw, uint32_t v)
{
    uint32_t pos = 0;
    while (pos < nw->last_path.len && nw->last_path.node[pos] != v)
        pos++;
    ck_assert_uint_lt(pos, nw->last_path.len);
    return pos;
}

/* The network of net_flow_via_1 with the fibre between containers 1 and
 * 4 (container 1's switch *1 to container 4's 1*) cut, and 3 hellos later. */
static net *net_flow_via_1_fibre_cut(uint16_t *sport)
{
    net *nw = net_flow_via_1(sport);
    net_fail(nw, "s1_x1", "s4_1x");
    net_time(nw, 3500);
    return nw;
}

/* Inner failure (Fig. 11, first cut): the link between the entry server of
 * the relay container and its switch on the fibre fails. The server before
 * the fibre hears its neighbour die and enters through the other server of
 * that switch; the source's jump does not change and it is not told. */
START_TEST(hier_inner_failure_repaired_inside_the_container)
{
    uint16_t sport;
    net *nw = net_flow_via_1(&sport);
    const mdc_entry *x = last_entry(nw, "h3_11");
    int32_t jump = x->jump;
    /* the entry server into container 1: the first server of it on the path */
    uint32_t c1[8];
    path_servers_of_1(nw, c1);
    uint32_t ev = c1[0];
    char entry[DCN_NAME_MAX];
    dcn_node_name(nw->t, ev, entry, sizeof entry);
    uint32_t entry_sw = nw->last_path.node[path_pos(nw, ev) - 1]; /* the switch the fibre ends at */
    char swname[DCN_NAME_MAX];
    dcn_node_name(nw->t, entry_sw, swname, sizeof swname);
    net_fail(nw, entry, swname);
    net_time(nw, 3500); /* 3 hellos missed */
    ck_assert_uint_eq(net_send(nw, "h3_11", "h4_00", sport), 1);
    ck_assert(!path_crosses(nw, entry, swname));
    ck_assert(path_has(nw, swname)); /* still enters container 1 through that fibre */
    x = last_entry(nw, "h3_11");
    ck_assert_int_eq(x->jump, jump);
    ck_assert_uint_eq(x->jumps, 1); /* not drawn again (a new draw may land on the same jump) */
    ck_assert_uint_eq(x->n_containers, 1);
    ck_assert_uint_eq(x->container[0], 1);
    harness *src = nw->h[tu_node(nw->t, "h3_11")];
    ck_assert_uint_eq(src->e.hier->c.jump_changes, 0);
    ck_assert_uint_eq(src->e.c.unreach_rx, 0);
    net_free(nw);
}
END_TEST

/* A failure deeper inside the relay container, on a server two hops from
 * its segment's owner: the relay tells the owner (not the source), which
 * reroutes inside the container; the source keeps its jump. */
START_TEST(hier_inner_failure_reported_to_the_segment_owner)
{
    uint16_t sport;
    net *nw = net_flow_via_1(&sport);
    int32_t jump = last_entry(nw, "h3_11")->jump;
    /* the servers of container 1 on the path: owner first */
    uint32_t c1[8], n1 = path_servers_of_1(nw, c1);
    /* fail the cable of the last container-1 server towards its exit
     * switch by dropping its carrier (the emulator's link cut) */
    uint32_t last = c1[n1 - 1];
    uint32_t exit_sw = nw->last_path.node[path_pos(nw, last) + 1];
    int port = dcn_topo_port_to(nw->t, last, exit_sw);
    ck_assert_int_ge(port, 0);
    char a[DCN_NAME_MAX], b[DCN_NAME_MAX];
    dcn_node_name(nw->t, last, a, sizeof a);
    dcn_node_name(nw->t, exit_sw, b, sizeof b);
    net_fail(nw, a, b);
    engine_carrier(&nw->h[last]->e, (unsigned)port, false);
    uint64_t src_fail_rx = nw->h[tu_node(nw->t, "h3_11")]->e.c.path_failure_rx;
    /* the first packet after the cut may be lost; the next ones arrive */
    net_send(nw, "h3_11", "h4_00", sport);
    net_time(nw, 200);
    ck_assert_uint_eq(net_send(nw, "h3_11", "h4_00", sport), 1);
    ck_assert(!path_crosses(nw, a, b));
    ck_assert_int_eq(last_entry(nw, "h3_11")->jump, jump);
    ck_assert_uint_eq(last_entry(nw, "h3_11")->jumps, 1);
    ck_assert_uint_eq(nw->h[tu_node(nw->t, "h3_11")]->e.c.path_failure_rx, src_fail_rx);
    ck_assert_uint_eq(nw->h[tu_node(nw->t, "h3_11")]->e.hier->c.jump_changes, 0);
    /* the relay told the owner of the segment (when the owner did not see
     * the cut itself, being that relay) */
    if (n1 >= 2)
        ck_assert_uint_ge(nw->h[c1[0]]->e.c.path_failure_rx, 1);
    net_free(nw);
}
END_TEST

/* Fibre failure (Fig. 11, second cut): the fibre between containers 1 and
 * 4 fails. The server that owns the route to the exit switch sends
 * "destination unreachable" back to the source, which draws another jump;
 * by Theorem 4 it shares no intermediate container with the old one. */
START_TEST(hier_fibre_failure_unreachable_and_new_jump)
{
    uint16_t sport;
    net *nw = net_flow_via_1_fibre_cut(&sport);
    harness *src = nw->h[tu_node(nw->t, "h3_11")];
    unsigned got = 0;
    for (int i = 0; i < 5; i++) {
        got += net_send(nw, "h3_11", "h4_00", sport);
        net_time(nw, 100);
    }
    ck_assert_uint_ge(got, 3);
    ck_assert_uint_eq(src->e.c.unreach_rx, 1);
    ck_assert_uint_eq(src->e.hier->c.jump_changes, 1);
    ck_assert_uint_eq(net_send(nw, "h3_11", "h4_00", sport), 1);
    const mdc_entry *x = last_entry(nw, "h3_11");
    ck_assert(x->n_containers == 0 || x->container[0] != 1);
    ck_assert(!path_crosses(nw, "s1_x1", "s4_1x"));
    /* the message came from a server of container 1, not from the source's container */
    uint64_t unreach_c1 = 0;
    for (unsigned i = 4; i < 8; i++)
        unreach_c1 += nw->h[i]->e.c.unreach_tx;
    ck_assert_uint_eq(unreach_c1, NET_SUM(nw, unreach_tx));
    ck_assert_uint_ge(unreach_c1, 1);
    net_free(nw);
}
END_TEST

/* The relay that finds the fibre to the next container dead tells the
 * source at once: the first packet after the failure is lost and brings
 * the unreachable message, the second takes a new jump. (The relay told
 * only the segment's owner, which told the source on the flow's next
 * packet: on a stalled TCP connection, one more of its timeouts.) */
START_TEST(hier_fibre_failure_first_packet_brings_the_new_jump)
{
    uint16_t sport;
    net *nw = net_flow_via_1_fibre_cut(&sport);
    harness *src = nw->h[tu_node(nw->t, "h3_11")];
    ck_assert_uint_eq(net_send(nw, "h3_11", "h4_00", sport), 0);
    ck_assert_uint_eq(src->e.c.unreach_rx, 1);
    ck_assert_uint_eq(net_send(nw, "h3_11", "h4_00", sport), 1);
    ck_assert_uint_eq(src->e.hier->c.jump_changes, 1);
    ck_assert(!path_crosses(nw, "s1_x1", "s4_1x"));
    net_free(nw);
}
END_TEST

/* Relayed packets and repeated segments allocate nothing: the table is
 * fixed; flows beyond it replace the least recently used entries. */
START_TEST(hier_table_is_bounded)
{
    net *nw = net_new("mdcube n=2 k=1 m=2x2");
    harness *src = nw->h[0];
    for (unsigned f = 0; f < MDC_SLOTS + 200; f++) {
        uint8_t buf[ENGINE_HEADROOM + 64];
        ah_ipv4(buf + ENGINE_HEADROOM, 0, 15, (uint16_t)(f & 0xffff), (uint16_t)(f >> 16), 64);
        engine_from_tun(&src->e, buf, 64);
        src->nout = 0;
    }
    const mdc_entry *all[MDC_SLOTS];
    ck_assert_int_le(mdc_entries(src->e.hier, all, MDC_SLOTS, src->now), MDC_SLOTS);
    ck_assert_uint_gt(src->e.hier->c.evictions, 0);
    /* idle entries expire */
    src->now += MDC_IDLE_MS;
    ck_assert_int_eq(mdc_entries(src->e.hier, all, MDC_SLOTS, src->now), 0);
    net_free(nw);
}
END_TEST

/* Malformed segmented headers: the flag without the MDCube extension, and
 * a segment start beyond the path, are refused by the decoder. */
START_TEST(hier_bad_segmented_headers)
{
    uint8_t buf[256];
    uint8_t nha[2] = {0x01, 0x41};
    dcn_hdr h = {.type = DCN_T_DATA, .nhops = 2, .nhi = 1, .src = 0, .dst = 5, .nha = nha,
                 .flags = DCN_FLAG_MDCUBE | DCN_FLAG_SEGMENTED, .seg_start = 2};
    size_t n = dcn_hdr_encode(&h, buf, sizeof buf);
    ck_assert_uint_gt(n, 0);
    dcn_hdr d;
    size_t hl;
    ck_assert_int_eq(dcn_hdr_decode(buf, n, &d, &hl), DCN_DEC_OK);
    ck_assert_uint_eq(d.seg_start, 2);
    h.seg_start = 3;
    ck_assert_uint_eq(dcn_hdr_encode(&h, buf, sizeof buf), 0);
    buf[DCN_OFF_NHA + 8 + 2] = 3; /* segment start beyond nhops: checksum no longer matters */
    ck_assert_int_eq(dcn_hdr_decode(buf, n, &d, &hl), DCN_DEC_BAD_EXTENSION);
    h.seg_start = 0;
    h.flags = DCN_FLAG_SEGMENTED;
    ck_assert_uint_eq(dcn_hdr_encode(&h, buf, sizeof buf), 0);
    h.flags = 0;
    n = dcn_hdr_encode(&h, buf, sizeof buf);
    buf[DCN_OFF_FLAGS] = DCN_FLAG_SEGMENTED;
    ck_assert_int_eq(dcn_hdr_decode(buf, n, &d, &hl), DCN_DEC_BAD_EXTENSION);
}
END_TEST

/* A segmented packet whose path ends here with a destination that is no
 * server is dropped (found by fuzz_frame: it read container_of[dst]). */
START_TEST(hier_segment_end_with_bad_dst_is_dropped)
{
    harness *h = ah_new("mdcube n=2 k=1 m=5", "h1_00");
    ah_all_hellos(h);
    /* h3_11 -> h1_00 in one hop (3.1x and 1.x0 share a fibre), dst far out of range */
    uint32_t src = tu_node(&h->t, "h3_11");
    dcn_path p;
    dcn_path_clear(&p);
    dcn_path_push(&p, src);
    dcn_path_push(&p, tu_node(&h->t, "s3_1x"));
    dcn_path_push(&p, tu_node(&h->t, "s1_x0"));
    dcn_path_push(&p, h->e.self);
    uint8_t nha[4];
    ck_assert_int_eq(nha_encode_path(&h->t, &p, nha, 4), 1);
    uint8_t ip[40];
    ah_ipv4(ip, src, 19, 1, 2, sizeof ip);
    for (unsigned bad = 0; bad < 2; bad++) {
        dcn_hdr hd = {.type = DCN_T_DATA, .nhops = 1, .nhi = 1, .src = src, .dst = bad ? 0x7fffffffu : 20u,
                      .proto = DCN_PROTO_IPV4, .payload_len = sizeof ip, .nha = nha,
                      .flags = DCN_FLAG_MDCUBE | DCN_FLAG_SEGMENTED, .flow_id = 9};
        uint8_t buf[256];
        memset(buf, 0xee, 12);
        dcn_put16(buf + 12, DCN_ETHERTYPE);
        ah_mac(h->e.self, (unsigned)dcn_topo_port_to(&h->t, h->e.self, p.node[2]), buf);
        size_t hl = dcn_hdr_encode(&hd, buf + 14, sizeof buf - 14);
        ck_assert_uint_gt(hl, 0);
        memcpy(buf + 14 + hl, ip, sizeof ip);
        engine_rx_frame(&h->e, (unsigned)dcn_topo_port_to(&h->t, h->e.self, p.node[2]), buf, 14 + hl + sizeof ip);
    }
    ck_assert_uint_eq(h->e.c.drop_bad_path, 2);
    ck_assert_int_eq(h->nout, 0);
    ah_free(h);
}
END_TEST

/* --mdcube-routing source keeps the source-routed mode: no segments. */
START_TEST(source_mode_has_no_segments)
{
    engine_config cfg;
    engine_config_default(&cfg);
    cfg.mdcube_routing = ENGINE_MDCUBE_SOURCE;
    harness *h = ah_new_cfg("mdcube n=2 k=1 m=5", "h3_11", &cfg);
    ck_assert_ptr_null(h->e.hier);
    ck_assert_ptr_nonnull(h->e.container_of);
    ah_free(h);
    h = ah_new("bcube n=4 k=1", "h00");
    ck_assert_ptr_null(h->e.hier);
    ah_free(h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_mdcube_hier");
    TCase *tc = tcase_create("hier");
    tcase_set_timeout(tc, 120);
    if (dcn_family_find("mdcube")) {
        tcase_add_test(tc, hier_all_pairs_2x2);
        tcase_add_test(tc, hier_random_jumps_kept_per_flow);
        tcase_add_test(tc, hier_inner_failure_repaired_inside_the_container);
        tcase_add_test(tc, hier_inner_failure_reported_to_the_segment_owner);
        tcase_add_test(tc, hier_fibre_failure_unreachable_and_new_jump);
        tcase_add_test(tc, hier_fibre_failure_first_packet_brings_the_new_jump);
        tcase_add_test(tc, hier_table_is_bounded);
        tcase_add_test(tc, source_mode_has_no_segments);
        tcase_add_test(tc, hier_segment_end_with_bad_dst_is_dropped);
    }
    tcase_add_test(tc, hier_bad_segmented_headers);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
