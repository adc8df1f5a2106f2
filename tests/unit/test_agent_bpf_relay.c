/* The kernel relay's program (kernel/relay.bpf.c) run on crafted frames
 * with BPF_PROG_TEST_RUN, against the agent's engine on the same frames:
 * the program relays a frame only as the engine relays it, to the byte
 * (NHI advanced, checksum updated, both MACs), and passes everything else
 * on to the agent untouched. Its maps hold what the agent writes there
 * (kernel/relay_entries.c) from the engine's own state. The relay is h01
 * of BCube_1 with n=2: h00 -s0_0- h01 -s1_1- h11. Needs root (loading a
 * BPF program); without it the suite says so and runs nothing, except
 * under make test (DCN_TEST_NO_SKIP), where that is a failure. */
#include <linux/pkt_cls.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>

#include "agent/core/csum.h"
#include "agent/kernel/kernel_relay.h"
#include "agent/kernel/relay_entries.h"
#include "agent_harness.h"

enum { H00 = 0, H01 = 1, H10 = 2, H11 = 3 };
static const uint8_t RELAY_PATH[2] = {0x01, 0x41}; /* h00 -> h01 -> h11 */
#define LO_IFINDEX 1                               /* test runs see the loopback device */

typedef struct fixture {
    harness *h;
    kernel_relay *kr;
    int prog, paths, neigh;
} fixture;

static harness *relay_h01(void)
{
    harness *h = ah_new("bcube n=2 k=1", "h01");
    ah_hello(h, 0, H00, 0);
    ah_hello(h, 1, H11, 1);
    h->nout = 0;
    return h;
}

/* The maps as the agent fills them: the neighbour table, and the path of
 * frame (its header at DCN_ETH_HLEN) arriving on port 0. */
static void fixture_open(fixture *f, const uint8_t *frame, size_t len)
{
    char err[256];
    f->h = relay_h01();
    f->kr = kernel_relay_open(err, sizeof err);
    ck_assert_msg(f->kr != NULL, "%s", err);
    f->prog = kernel_relay_fd(f->kr, "dcn_kernel_relay");
    f->paths = kernel_relay_fd(f->kr, "paths");
    f->neigh = kernel_relay_fd(f->kr, "neigh");
    ck_assert(f->prog >= 0 && f->paths >= 0 && f->neigh >= 0);
    const int ifindex[ENGINE_MAX_PORTS] = {LO_IFINDEX, LO_IFINDEX};
    for (uint32_t nha = 0; nha < 256; nha++) {
        struct krelay_neigh ne;
        krelay_neigh_of(&f->h->e, nha, ifindex, &ne);
        ck_assert_int_eq(bpf_map_update_elem(f->neigh, &nha, &ne, BPF_ANY), 0);
    }
    dcn_hdr d;
    size_t hl;
    ck_assert_int_eq(dcn_hdr_decode(frame + DCN_ETH_HLEN, len - DCN_ETH_HLEN, &d, &hl), DCN_DEC_OK);
    struct krelay_path_key k;
    ck_assert(krelay_path_key_of(&d, &k));
    struct krelay_path_val v = {.in_ifindex = LO_IFINDEX, .in_port = 0};
    ck_assert_int_eq(bpf_map_update_elem(f->paths, &k, &v, BPF_ANY), 0);
}

static void fixture_close(fixture *f)
{
    kernel_relay_close(f->kr);
    ah_free(f->h);
}

/* The program's verdict on frame; out gets the frame as it left. The
 * destination MAC is the loopback's (zero), so that the kernel sees a
 * frame for this host, as a port's own MAC would be on a real port. */
static int run_prog(const fixture *f, const uint8_t *frame, size_t len, uint8_t *out, uint32_t *out_len)
{
    uint8_t in[2048];
    ck_assert_uint_le(len, sizeof in);
    memcpy(in, frame, len);
    memset(in, 0, 6);
    LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = in, .data_size_in = (uint32_t)len, .data_out = out,
                .data_size_out = 2048, .repeat = 1);
    ck_assert_int_eq(bpf_prog_test_run_opts(f->prog, &o), 0);
    *out_len = o.data_size_out;
    return (int)o.retval;
}

/* The engine's verdict on frame from port 0: the frame it sent, if any. */
static const ah_frame *run_engine(fixture *f, const uint8_t *frame, size_t len)
{
    uint8_t buf[2048];
    memcpy(buf, frame, len);
    f->h->nout = 0;
    engine_rx_frame(&f->h->e, 0, buf, len);
    return f->h->nout ? &f->h->out[f->h->nout - 1] : NULL;
}

static size_t data_frame(uint8_t *buf, uint32_t src, uint32_t dst, unsigned nhops, unsigned nhi)
{
    uint8_t ip[200];
    ah_ipv4(ip, src, dst, 1000, 2000, sizeof ip);
    return ah_frame_build(buf, DCN_T_DATA, src, dst, RELAY_PATH, nhops, nhi, 0, ip, sizeof ip);
}

/* The header checksum made good again after a change in the header. */
static void fix_csum(uint8_t *frame)
{
    uint8_t *hd = frame + DCN_ETH_HLEN;
    dcn_put16(hd + DCN_OFF_CSUM, 0);
    dcn_put16(hd + DCN_OFF_CSUM, csum_compute(hd, DCN_HDR_BASE));
}

START_TEST(a_relayed_frame_leaves_as_the_engine_sends_it)
{
    uint8_t frame[512], out[2048];
    size_t n = data_frame(frame, H00, H11, 2, 1);
    fixture f;
    fixture_open(&f, frame, n);
    uint32_t out_len;
    ck_assert_int_eq(run_prog(&f, frame, n, out, &out_len), TC_ACT_REDIRECT);
    const ah_frame *e = run_engine(&f, frame, n);
    ck_assert_ptr_nonnull(e);
    ck_assert_uint_eq(e->port, 1);
    ck_assert_uint_eq(out_len, e->len);
    ck_assert_mem_eq(out, e->data, e->len);
    ck_assert_uint_eq(out[DCN_ETH_HLEN + DCN_OFF_NHI], 2);
    fixture_close(&f);
}
END_TEST

/* Each of these goes on to the agent untouched (TC_ACT_UNSPEC): the
 * program relays only what the agent validated, on the port it came in. */
START_TEST(anything_else_goes_to_the_agent_untouched)
{
    uint8_t good[512], frame[512], out[2048];
    size_t n = data_frame(good, H00, H11, 2, 1);
    fixture f;
    fixture_open(&f, good, n);
    uint32_t out_len;
    for (int c = 0; c < 9; c++) {
        memcpy(frame, good, n);
        size_t len = n;
        uint8_t *hd = frame + DCN_ETH_HLEN;
        switch (c) {
        case 0: hd[DCN_OFF_CSUM] ^= 1; break;                                    /* bad checksum */
        case 1: hd[DCN_OFF_VERSION] = 2; fix_csum(frame); break;                 /* another version */
        case 2: hd[DCN_OFF_TYPE] = DCN_T_PROBE; fix_csum(frame); break;          /* a probe */
        case 3: hd[DCN_OFF_FLAGS] = DCN_FLAG_MDCUBE; fix_csum(frame); break;     /* an extension */
        case 4: hd[DCN_OFF_NHI] = 0; fix_csum(frame); break;                     /* NHI 0 */
        case 5: hd[DCN_OFF_NHI] = 3; fix_csum(frame); break;                     /* NHI past the path */
        case 6: dcn_put16(hd + DCN_OFF_PLEN, 400); fix_csum(frame); break;       /* longer than the frame */
        case 7: hd[DCN_OFF_DST + 3] ^= 1; fix_csum(frame); break;                /* a path not validated */
        case 8: len = DCN_ETH_HLEN + DCN_HDR_BASE - 1; break;                    /* cut short */
        }
        ck_assert_msg(run_prog(&f, frame, len, out, &out_len) == TC_ACT_UNSPEC, "case %d relayed", c);
        uint8_t want[512];
        memcpy(want, frame, len);
        memset(want, 0, 6); /* as run_prog hands it in */
        ck_assert_uint_eq(out_len, len);
        ck_assert_msg(memcmp(out, want, len) == 0, "case %d changed the frame", c);
    }
    /* the next hop down in the agent's table: the agent reports the failure */
    engine_carrier(&f.h->e, 1, false);
    const int ifindex[ENGINE_MAX_PORTS] = {LO_IFINDEX, LO_IFINDEX};
    uint32_t nha = RELAY_PATH[1];
    struct krelay_neigh ne;
    krelay_neigh_of(&f.h->e, nha, ifindex, &ne);
    ck_assert_int_eq(ne.up, 0);
    ck_assert_int_eq(bpf_map_update_elem(f.neigh, &nha, &ne, BPF_ANY), 0);
    ck_assert_int_eq(run_prog(&f, good, n, out, &out_len), TC_ACT_UNSPEC);
    fixture_close(&f);
}
END_TEST

/* Random changes to a relayed frame's header and payload, the checksum
 * made good again in most: whenever the program relays one, the engine
 * relays it too, with the same bytes. */
START_TEST(whatever_the_program_relays_the_engine_relays_identically)
{
    uint8_t good[512], frame[512], out[2048];
    size_t n = data_frame(good, H00, H11, 2, 1);
    fixture f;
    fixture_open(&f, good, n);
    srand(37);
    unsigned relayed = 0, passed = 0;
    for (int i = 0; i < 20000; i++) {
        memcpy(frame, good, n);
        size_t len = n;
        int changes = 1 + rand() % 3;
        for (int c = 0; c < changes; c++) {
            size_t at = DCN_ETH_HLEN + (size_t)rand() % (rand() % 2 ? DCN_HDR_BASE : n - DCN_ETH_HLEN);
            frame[at] = (uint8_t)rand();
        }
        if (rand() % 8)
            fix_csum(frame);
        if (rand() % 8 == 0)
            len = DCN_ETH_HLEN + (size_t)rand() % (n - DCN_ETH_HLEN + 1);
        uint32_t out_len;
        int v = run_prog(&f, frame, len, out, &out_len);
        ck_assert_msg(v == TC_ACT_REDIRECT || v == TC_ACT_UNSPEC, "verdict %d on input %d", v, i);
        if (v == TC_ACT_UNSPEC) {
            passed++;
            continue;
        }
        relayed++;
        const ah_frame *e = run_engine(&f, frame, len);
        ck_assert_msg(e != NULL, "input %d: the program relayed what the engine does not", i);
        ck_assert_msg(e->port == 1 && e->len == out_len && memcmp(e->data, out, out_len) == 0,
                      "input %d: the program and the engine sent different frames", i);
    }
    ck_assert_uint_gt(relayed, 100); /* the changes that keep a frame relayable were met */
    ck_assert_uint_gt(passed, 100);
    fixture_close(&f);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_bpf_relay");
    TCase *tc = tcase_create("bpf_relay");
    if (geteuid() == 0) {
        tcase_add_test(tc, a_relayed_frame_leaves_as_the_engine_sends_it);
        tcase_add_test(tc, anything_else_goes_to_the_agent_untouched);
        tcase_add_test(tc, whatever_the_program_relays_the_engine_relays_identically);
    } else if (getenv("DCN_TEST_NO_SKIP")) {
        fprintf(stderr, "test_agent_bpf_relay: needs root to load the program (make test runs as root)\n");
        return 1;
    } else {
        fprintf(stderr, "test_agent_bpf_relay: not root, the program is not run\n");
    }
    suite_add_tcase(s, tc);
    return tu_run(s);
}
