/* The kernel relay's program (kernel/relay.bpf.c) run on crafted frames
 * with BPF_PROG_TEST_RUN, against the agent's engine on the same frames:
 * the program relays a frame only as the engine relays it, to the byte
 * (NHI advanced, checksum updated, both MACs), and passes everything else
 * on to the agent untouched. Its maps hold what the agent writes there
 * (kernel/relay_entries.c) from the engine's own state. The relay is h01
 * of BCube_1 with n=2: h00 -s0_0- h01 -s1_1- h11; then every BCube frame
 * of the fuzzing corpus and its mutations, each at the server it is
 * addressed to in BCube_1 with n=4. Needs root (loading a
 * BPF program); without it the suite says so and runs nothing, except
 * under make test (DCN_TEST_NO_SKIP), where that is a failure. */
#include <dirent.h>
#include <linux/pkt_cls.h>
#include <stdio.h>
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

/* The neighbour map as the agent of engine e fills it, every port on the
 * loopback device. */
static void neigh_fill(const fixture *f, const engine *e)
{
    const int ifindex[ENGINE_MAX_PORTS] = {LO_IFINDEX, LO_IFINDEX, LO_IFINDEX, LO_IFINDEX};
    for (uint32_t nha = 0; nha < 256; nha++) {
        struct krelay_neigh ne;
        krelay_neigh_of(e, nha, ifindex, &ne);
        ck_assert_int_eq(bpf_map_update_elem(f->neigh, &nha, &ne, BPF_ANY), 0);
    }
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
    neigh_fill(f, &f->h->e);
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

/* A harness for the BCube_1(n=4) server a corpus frame is addressed to
 * (its destination MAC names the server and port, 02:00:ss:ss:ss:pp as
 * tests/inspect/gen_capture.c writes them), every neighbour heard. */
static harness *receiver_of(const uint8_t *frame, unsigned *port)
{
    dcn_topo t;
    tu_build(&t, "bcube n=4 k=1");
    uint32_t self = ((uint32_t)frame[2] << 16 | (uint32_t)frame[3] << 8 | frame[4]) % t.n_servers;
    char name[32];
    dcn_node_name(&t, self, name, sizeof name);
    dcn_topo_free(&t);
    harness *h = ah_new("bcube n=4 k=1", name);
    ah_all_hellos(h);
    *port = frame[5] % h->e.nports;
    return h;
}

/* The program's maps as the agent of h writes them: its neighbour table,
 * and the path of frame when the engine has just relayed it (the agent
 * writes a path once its engine has validated and relayed a frame of it). */
static bool maps_of(const fixture *f, harness *h, const uint8_t *frame, size_t len, unsigned port, bool relayed)
{
    neigh_fill(f, &h->e);
    dcn_hdr d;
    size_t hl;
    struct krelay_path_key k;
    if (!relayed || dcn_hdr_decode(frame + DCN_ETH_HLEN, len - DCN_ETH_HLEN, &d, &hl) != DCN_DEC_OK ||
        !krelay_path_key_of(&d, &k))
        return false;
    struct krelay_path_val v = {.in_ifindex = LO_IFINDEX, .in_port = port};
    ck_assert_int_eq(bpf_map_update_elem(f->paths, &k, &v, BPF_ANY), 0);
    return true;
}

static void paths_clear(const fixture *f)
{
    struct krelay_path_key k, next;
    while (bpf_map_get_next_key(f->paths, NULL, &next) == 0) {
        k = next;
        ck_assert_int_eq(bpf_map_delete_elem(f->paths, &k), 0);
    }
}

/* Did the engine relay frame (from port), and what did it send? */
static const ah_frame *engine_relays(harness *h, const uint8_t *frame, size_t len, unsigned port)
{
    uint8_t buf[2048];
    memcpy(buf, frame, len);
    uint64_t before = h->e.c.relayed;
    h->nout = 0;
    engine_rx_frame(&h->e, port, buf, len);
    return h->e.c.relayed > before && h->nout ? &h->out[h->nout - 1] : NULL;
}

/* The fuzzing corpus's BCube frames (tests/fuzz/corpus/fuzz_frame: frames
 * of seeded captures, relayed, delivered and control), each at the server
 * it is addressed to, then 50 mutations of each with the original's path
 * in the maps: whatever the program relays, the engine relays with the
 * same bytes (the agent never drops what the kernel relays), and every
 * frame the engine relays as it was captured, the program relays too. */
START_TEST(corpus_frames_and_their_mutations_agree)
{
    DIR *dir = opendir(DCN_FUZZ_CORPUS "/fuzz_frame");
    ck_assert_ptr_nonnull(dir);
    fixture f = {0};
    char err[256];
    f.kr = kernel_relay_open(err, sizeof err);
    ck_assert_msg(f.kr != NULL, "%s", err);
    f.prog = kernel_relay_fd(f.kr, "dcn_kernel_relay");
    f.paths = kernel_relay_fd(f.kr, "paths");
    f.neigh = kernel_relay_fd(f.kr, "neigh");
    srand(43);
    unsigned frames = 0, engine_relayed = 0, data_relayed = 0, mutants_relayed = 0, mutants = 0;
    struct dirent *de;
    while ((de = readdir(dir))) {
        if (strncmp(de->d_name, "bcube-", 6) != 0 || !strchr("0123456789", de->d_name[6]))
            continue; /* the BCube frames from ports (bcube-NNN); not the TUN packets */
        char path[512];
        snprintf(path, sizeof path, "%s/fuzz_frame/%s", DCN_FUZZ_CORPUS, de->d_name);
        FILE *fp = fopen(path, "rb");
        ck_assert_ptr_nonnull(fp);
        uint8_t in[2048];
        size_t n = fread(in, 1, sizeof in, fp);
        fclose(fp);
        if (n < 1 + DCN_ETH_HLEN + DCN_HDR_BASE || (in[0] & 3u) != 0)
            continue; /* byte 0: BCube, from a port */
        const uint8_t *frame = in + 1;
        size_t len = n - 1;
        frames++;
        unsigned port;
        harness *h = receiver_of(frame, &port);
        const ah_frame *e = engine_relays(h, frame, len, port);
        uint8_t sent[2048], out[2048];
        size_t sent_len = e ? e->len : 0;
        if (e)
            memcpy(sent, e->data, e->len);
        bool in_maps = maps_of(&f, h, frame, len, port, e != NULL);
        uint32_t out_len;
        int v = run_prog(&f, frame, len, out, &out_len);
        if (v == TC_ACT_REDIRECT) {
            ck_assert_msg(e != NULL, "%s: the program relayed what the engine does not", de->d_name);
            ck_assert_msg(out_len == sent_len && memcmp(out, sent, sent_len) == 0,
                          "%s: the program and the engine sent different frames", de->d_name);
        } else {
            ck_assert_msg(v == TC_ACT_UNSPEC, "%s: verdict %d", de->d_name, v);
        }
        if (e) {
            engine_relayed++;
            data_relayed += v == TC_ACT_REDIRECT;
            ck_assert_msg(v == TC_ACT_REDIRECT || frame[DCN_ETH_HLEN + DCN_OFF_TYPE] != DCN_T_DATA,
                          "%s: a data frame the engine relays went to the agent", de->d_name);
        }
        for (int i = 0; in_maps && i < 50; i++) {
            uint8_t m[2048];
            memcpy(m, frame, len);
            size_t mlen = len;
            for (int c = 1 + rand() % 3; c > 0; c--)
                m[DCN_ETH_HLEN + (size_t)rand() % (rand() % 2 ? DCN_HDR_BASE : len - DCN_ETH_HLEN)] = (uint8_t)rand();
            if (rand() % 8)
                fix_csum(m);
            if (rand() % 8 == 0)
                mlen = DCN_ETH_HLEN + (size_t)rand() % (len - DCN_ETH_HLEN + 1);
            mutants++;
            int mv = run_prog(&f, m, mlen, out, &out_len);
            if (mv != TC_ACT_REDIRECT) {
                ck_assert_msg(mv == TC_ACT_UNSPEC, "%s mutant %d: verdict %d", de->d_name, i, mv);
                continue;
            }
            mutants_relayed++;
            const ah_frame *me = engine_relays(h, m, mlen, port);
            ck_assert_msg(me != NULL, "%s mutant %d: the program relayed what the engine does not", de->d_name, i);
            ck_assert_msg(me->len == out_len && memcmp(me->data, out, out_len) == 0,
                          "%s mutant %d: the program and the engine sent different frames", de->d_name, i);
        }
        paths_clear(&f);
        ah_free(h);
    }
    closedir(dir);
    printf("corpus: %u BCube frames, %u relayed by the engine, of which %u data frames relayed by the program "
           "too; %u mutants of those, %u relayed by both\n", frames, engine_relayed, data_relayed, mutants,
           mutants_relayed);
    ck_assert_uint_gt(frames, 20);
    ck_assert_uint_gt(data_relayed, 3);     /* the corpus holds data frames in transit */
    ck_assert_uint_gt(mutants_relayed, 20); /* and mutants the program still relays */
    kernel_relay_close(f.kr);
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
        tcase_add_test(tc, corpus_frames_and_their_mutations_agree);
    } else if (getenv("DCN_TEST_NO_SKIP")) {
        fprintf(stderr, "test_agent_bpf_relay: needs root to load the program (make test runs as root)\n");
        return 1;
    } else {
        fprintf(stderr, "test_agent_bpf_relay: not root, the program is not run\n");
    }
    suite_add_tcase(s, tc);
    return tu_run(s);
}
