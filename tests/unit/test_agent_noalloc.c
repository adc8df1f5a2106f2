/* No allocation on new flows, path-failure messages or path selection's
 * rounds: this executable is linked with -Wl,--wrap=malloc,--wrap=calloc,
 * --wrap=realloc (tests/unit/CMakeLists.txt), so every call our code makes
 * to the allocator goes through the counters below, in the sanitized Debug
 * build (the wrappers call on into ASan's allocator) and in Release alike.
 * Allocations inside libc itself are not seen; the agent's code calls none
 * that allocate on these paths.
 *
 * For bcube, hcn, bcn, mdcube and bcdc: with a failed link in the
 * database, new flows towards every other server, a path-failure message
 * addressed to us and one overheard while relaying, and ten seconds of
 * ticks (new probe rounds recompute every flow's path set) cost zero calls. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/tun_gro.h"
#include "agent/core/tun_offload.h"
#include "agent_harness.h"

static volatile long allocs; /* volatile: the compiler assumes malloc leaves our statics alone */
static volatile int counting;

void *__real_malloc(size_t n);
void *__real_calloc(size_t n, size_t m);
void *__real_realloc(void *p, size_t n);

void *__wrap_malloc(size_t n)
{
    allocs += counting;
    return __real_malloc(n);
}

void *__wrap_calloc(size_t n, size_t m)
{
    allocs += counting;
    return __real_calloc(n, m);
}

void *__wrap_realloc(void *p, size_t n)
{
    allocs += counting;
    return __real_realloc(p, n);
}

static void count_from_here(void)
{
    allocs = 0;
    counting = 1;
}

static long count_so_far(void)
{
    counting = 0;
    return allocs;
}

static const ps_flow_info *flow_to(harness *h, uint32_t dst, ps_flow_info *fl, int max)
{
    int n = ps_flows(h->e.ps, fl, max);
    for (int i = 0; i < n; i++)
        if (fl[i].dst_server == dst)
            return &fl[i];
    return NULL;
}

static void from_tun(harness *h, uint32_t dst, uint16_t sport)
{
    uint8_t buf[ENGINE_HEADROOM + 200];
    ah_ipv4(buf + ENGINE_HEADROOM, h->e.self, dst, sport, 80, 100);
    engine_from_tun(&h->e, buf, 100);
}

typedef struct frame {
    uint8_t buf[512];
    size_t len;
    unsigned port; /* the port it arrives on */
} frame;

/* A genuine path-failure message from the server one hop along path p
 * (our flow's), naming its own cable onwards, sent back to us. */
static void failure_to_us(harness *h, const dcn_path *p, frame *fr)
{
    int rpos = nha_server_pos(&h->t, p, 1);
    ck_assert_int_gt(rpos, 0);
    ck_assert_uint_gt(p->len, (uint32_t)rpos + 1);
    dcn_path back = {.len = 0};
    for (int i = rpos; i >= 0; i--)
        back.node[back.len++] = p->node[i];
    uint8_t nha[DCN_MAX_HOPS], pl[DCN_FAIL_PAYLOAD] = {0};
    int n = nha_encode_path(&h->t, &back, nha, DCN_MAX_HOPS);
    ck_assert_int_eq(n, 1);
    uint32_t r = p->node[rpos];
    dcn_put32(pl, r);
    dcn_put32(pl + 4, p->node[rpos + 1]);
    fr->len = ah_frame_build(fr->buf, DCN_T_PATH_FAIL, r, h->e.self, nha, 1, 1, 0, pl, sizeof pl);
    ah_mac(r, (unsigned)dcn_topo_port_to(&h->t, r, p->node[rpos - 1]), fr->buf + 6);
    fr->port = (unsigned)dcn_topo_port_to(&h->t, h->e.self, p->node[1]);
}

/* The same message, but on its way from the reporter to another neighbour
 * of ours (one we reach over another port): we overhear it and relay it.
 * Returns 0 when we have no such neighbour. */
static int failure_overheard(harness *h, const dcn_path *p, frame *fr)
{
    int rpos = nha_server_pos(&h->t, p, 1);
    int first_port = dcn_topo_port_to(&h->t, h->e.self, p->node[1]);
    for (unsigned i = 0; i < 256; i++) {
        const neigh_entry *ne = &h->e.nt.e[i];
        if (!ne->valid || ne->port == first_port || ne->node == p->node[rpos])
            continue;
        dcn_path m = {.len = 0};
        for (int k = rpos; k >= 0; k--)
            m.node[m.len++] = p->node[k];
        uint32_t via[3];
        unsigned nv = nha_step(&h->t, h->e.self, (uint8_t)i, via);
        for (unsigned k = 0; k < nv; k++)
            m.node[m.len++] = via[k];
        uint8_t nha[DCN_MAX_HOPS], pl[DCN_FAIL_PAYLOAD] = {0};
        int n = nha_encode_path(&h->t, &m, nha, DCN_MAX_HOPS);
        if (n != 2)
            continue;
        uint32_t r = p->node[rpos];
        dcn_put32(pl, r);
        dcn_put32(pl + 4, p->node[rpos + 1]);
        fr->len = ah_frame_build(fr->buf, DCN_T_PATH_FAIL, r, ne->node, nha, 2, 1, 0, pl, sizeof pl);
        ah_mac(r, (unsigned)dcn_topo_port_to(&h->t, r, p->node[rpos - 1]), fr->buf + 6);
        fr->port = (unsigned)first_port;
        return 1;
    }
    return 0;
}

static void no_allocation_in_n(const char *spec, uint32_t max_flows);
static void no_allocation_in(const char *spec) { no_allocation_in_n(spec, UINT32_MAX); }
static harness *new_harness(const char *spec, const char *self);

/* max_flows: new flows towards at most that many servers (large topologies). */
static void no_allocation_in_n(const char *spec, uint32_t max_flows)
{
    char self[DCN_NAME_MAX];
    dcn_topo t;
    tu_build(&t, spec);
    dcn_node_name(&t, 0, self, sizeof self);
    uint32_t n_servers = t.n_servers;
    dcn_topo_free(&t);
    harness *h = new_harness(spec, self);
    ah_hellos_from_true_ports(h);
    /* a first flow, and a failed link of its path set in the database */
    uint32_t first = n_servers - 1;
    from_tun(h, first, 1);
    static ps_flow_info fl[1024];
    const ps_flow_info *f = flow_to(h, first, fl, 1024);
    ck_assert_ptr_nonnull(f);
    static dcn_pathset set;
    ck_assert_int_gt(ps_pathset(h->e.ps, n_servers / 2, &set), 0);
    const dcn_path *other = &set.path[set.count - 1];
    ck_assert_uint_ge(other->len, 3);
    ps_on_path_failure(h->e.ps, other->node[other->len - 2], other->node[other->len - 1]);

    /* new flows towards every other server */
    uint32_t step = n_servers / (max_flows < n_servers ? max_flows : n_servers);
    step = step ? step : 1;
    uint32_t flows = 0;
    for (uint32_t d = 1; d + 1 < n_servers; d += step)
        flows++;
    count_from_here();
    for (uint32_t d = 1; d + 1 < n_servers; d += step)
        from_tun(h, d, 2); /* (one of them towards n_servers / 2, whose set crosses the failed link) */
    long n = count_so_far();
    ck_assert_msg(n == 0, "%s: %ld allocations for %u new flows", spec, n, flows);
    ck_assert_uint_ge(h->e.c.tx_data_from_tun, flows);

    /* path-failure messages: to us, and overheard */
    f = flow_to(h, first, fl, 1024);
    ck_assert_ptr_nonnull(f);
    dcn_path p = f->path;
    uint64_t rx = h->e.c.path_failure_rx, heard = h->e.c.path_failure_overheard;
    static frame to_us, overheard;
    failure_to_us(h, &p, &to_us);
    int relayed = failure_overheard(h, &p, &overheard);
    /* (no Check assertion between the marks: Check allocates for its own) */
    count_from_here();
    engine_rx_frame(&h->e, to_us.port, to_us.buf, to_us.len);
    if (relayed)
        engine_rx_frame(&h->e, overheard.port, overheard.buf, overheard.len);
    n = count_so_far();
    ck_assert_msg(h->e.c.path_failure_rx == rx + 1, "%s: the message to us was refused", spec);
    ck_assert_msg(!relayed || h->e.c.path_failure_overheard == heard + 1, "%s: the overheard one was refused", spec);
    ck_assert_msg(n == 0, "%s: %ld allocations for path-failure messages", spec, n);

    /* ten seconds of ticks: every flow starts a new probe round */
    count_from_here();
    for (int i = 0; i < 120; i++) {
        h->now += 100;
        engine_tick(&h->e);
        h->nout = 0;
    }
    n = count_so_far();
    ck_assert_msg(n == 0, "%s: %ld allocations in 12 s of ticks", spec, n);
    ah_free(h);
}

/* The MDCube runs of no_allocation_in use source routing (its flows are
 * path selection's); hierarchical routing has its own test below. */
static harness *new_harness(const char *spec, const char *self)
{
    engine_config cfg;
    engine_config_default(&cfg);
    cfg.mdcube_routing = ENGINE_MDCUBE_SOURCE;
    return ah_new_cfg(spec, self, &cfg);
}

/* MDCube hierarchical routing: new flows (a random jump and a segment
 * each), a packet whose segment ends here (we append ours), a path-failure
 * message for one of our segments, and ticks, with zero allocator calls. */
START_TEST(mdcube_hier_no_allocation)
{
    const char *spec = "mdcube n=2 k=1 m=2x2";
    harness *h = ah_new(spec, "h0_00");
    ck_assert_ptr_nonnull(h->e.hier);
    ah_hellos_from_true_ports(h);
    /* a packet from container 1 to container 2 whose first segment ends at
     * h0_00 (its jump goes through container 0) */
    harness *src = ah_new(spec, "h1_00");
    ah_hellos_from_true_ports(src);
    static frame relay;
    relay.len = 0;
    for (uint16_t sport = 1; sport < 400 && !relay.len; sport++) {
        src->nout = 0;
        from_tun(src, tu_node(&src->t, "h2_11"), sport);
        ck_assert_int_eq(src->nout, 1);
        dcn_hdr d;
        size_t hl;
        ck_assert_int_eq(dcn_hdr_decode(src->out[0].data + 14, src->out[0].len - 14, &d, &hl), DCN_DEC_OK);
        dcn_path p;
        unsigned bad;
        if (d.nhops != 1 || nha_walk(&src->t, d.src, DCN_NONE, d.nha, d.nhops, &p, &bad) != NHA_WALK_OK ||
            p.node[p.len - 1] != h->e.self)
            continue;
        memcpy(relay.buf, src->out[0].data, src->out[0].len);
        relay.len = src->out[0].len;
        relay.port = (unsigned)dcn_topo_port_to(&h->t, h->e.self, p.node[p.len - 2]);
        ah_mac(h->e.self, relay.port, relay.buf); /* to our MAC */
    }
    ck_assert_uint_gt(relay.len, 0);
    static uint8_t copy[512];
    uint64_t extended = h->e.c.segment_extended;
    uint32_t sw = tu_node(&h->t, "s0_x1"), srv = tu_node(&h->t, "h0_11");
    count_from_here();
    for (uint32_t d = 4; d < h->t.n_servers; d++)
        for (uint16_t sport = 1; sport <= 3; sport++)
            from_tun(h, d, sport);
    for (int i = 0; i < 3; i++) {
        memcpy(copy, relay.buf, relay.len);
        engine_rx_frame(&h->e, relay.port, copy, relay.len);
    }
    mdc_on_path_failure(h->e.hier, sw, srv, h->now);
    for (uint32_t d = 4; d < h->t.n_servers; d++)
        from_tun(h, d, 1);
    for (int i = 0; i < 120; i++) {
        h->now += 100;
        engine_tick(&h->e);
        h->nout = 0;
    }
    long n = count_so_far();
    ck_assert_msg(n == 0, "%ld allocations", n);
    ck_assert_uint_ge(h->e.c.tx_data_from_tun, 12 * 4);
    ck_assert_uint_eq(h->e.c.segment_extended, extended + 3);
    ah_free(src);
    ah_free(h);
}
END_TEST

START_TEST(bcube_no_allocation) { no_allocation_in("bcube n=4 k=1"); }
END_TEST
START_TEST(hcn_no_allocation) { no_allocation_in("hcn n=4 h=2"); }
END_TEST
START_TEST(bcn_no_allocation) { no_allocation_in("bcn alpha=2 beta=2 h=1 gamma=1"); }
END_TEST
START_TEST(mdcube_no_allocation) { no_allocation_in("mdcube n=2 k=1 m=2x2"); }
END_TEST
START_TEST(bcdc_no_allocation) { no_allocation_in("bcdc n=4"); }
END_TEST
/* the arena's size grows with the topology: the testbed's largest BCube */
START_TEST(large_bcube_no_allocation) { no_allocation_in_n("bcube n=8 k=3", 300); }
END_TEST
START_TEST(large_hcn_no_allocation) { no_allocation_in_n("hcn n=8 h=3", 100); }
END_TEST

/* The TUN offloads: a 64 KB TCP segment cut into packets, and those packets
 * merged back into one, cost zero calls. */
static size_t cut_len[64];
static uint8_t cut[64][1600];
static int n_cut;

static void keep_packet(void *ctx, uint8_t *buf, size_t len)
{
    (void)ctx;
    if (n_cut < 64 && len <= sizeof cut[0]) {
        memcpy(cut[n_cut], buf + ENGINE_HEADROOM, len);
        cut_len[n_cut++] = len;
    }
}

START_TEST(tun_offloads_no_allocation)
{
    static uint8_t buf[ENGINE_HEADROOM + 65536];
    static tun_gro g;
    uint8_t *ip = buf + ENGINE_HEADROOM;
    size_t len = 40 + 40 * 1460;
    memset(buf, 0, sizeof buf);
    ip[0] = 0x45;
    dcn_put16(ip + 2, (uint16_t)len);
    ip[8] = 64;
    ip[9] = 6;
    dcn_put32(ip + 12, 0x0a000001);
    dcn_put32(ip + 16, 0x0a000002);
    ip[32] = 5 << 4;
    ip[33] = 0x10;
    struct virtio_net_hdr vh = {.gso_type = VIRTIO_NET_HDR_GSO_TCPV4, .gso_size = 1460};
    count_from_here();
    int n = tun_offload_in(&vh, buf, ENGINE_HEADROOM, len, keep_packet, NULL);
    int held = 0;
    for (int i = 0; i < n_cut; i++)
        held += tun_gro_offer(&g, cut[i], cut_len[i]) == TUN_GRO_HELD;
    struct iovec *iov;
    int iovs = tun_gro_take(&g, &iov);
    long calls = count_so_far();
    ck_assert_int_eq(n, 40);
    ck_assert_int_eq(held, 40);
    ck_assert_int_eq(iovs, 42);
    ck_assert_int_eq(calls, 0);
}
END_TEST

/* The counters themselves work: an allocation between the marks is seen. */
static void *volatile keep[2]; /* so an optimizing build cannot drop the calls */

START_TEST(the_counter_sees_allocations)
{
    count_from_here();
    keep[0] = malloc(16);
    keep[1] = calloc(1, 16);
    keep[0] = realloc(keep[0], 32);
    long n = count_so_far();
    free(keep[0]);
    free(keep[1]);
    ck_assert_int_eq(n, 3);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_noalloc");
    TCase *tc = tcase_create("noalloc");
    tcase_add_test(tc, the_counter_sees_allocations);
    tcase_add_test(tc, bcube_no_allocation);
    tcase_add_test(tc, hcn_no_allocation);
    tcase_add_test(tc, bcn_no_allocation);
    tcase_add_test(tc, mdcube_no_allocation);
    tcase_add_test(tc, mdcube_hier_no_allocation);
    tcase_add_test(tc, bcdc_no_allocation);
    tcase_add_test(tc, large_bcube_no_allocation);
    tcase_add_test(tc, large_hcn_no_allocation);
    tcase_add_test(tc, tun_offloads_no_allocation);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
