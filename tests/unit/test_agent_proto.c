/* Agent data plane: header codec, checksums and the NHA scheme. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent/core/csum.h"
#include "agent/core/nha.h"
#include "agent/core/proto.h"
#include "testutil.h"
#include "topo/rng.h"

START_TEST(checksum_rfc1071_example)
{
    /* RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to ddf2 */
    const uint8_t words[] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
    ck_assert_uint_eq(csum_compute(words, sizeof words), (uint16_t)~0xddf2);
    const uint8_t odd[] = {0x01, 0x02, 0x03};
    ck_assert_uint_eq(csum_compute(odd, 3), (uint16_t)~(0x0102 + 0x0300));
}
END_TEST

START_TEST(incremental_checksum_equals_recomputation)
{
    dcn_rng r;
    dcn_rng_seed(&r, 7);
    for (int round = 0; round < 2000; round++) {
        uint8_t buf[36];
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = (uint8_t)dcn_rng_next(&r);
        buf[18] = buf[19] = 0;
        dcn_put16(buf + 18, csum_compute(buf, sizeof buf));
        size_t off = 2 * dcn_rng_below(&r, 18);
        if (off == 18)
            off = 20;
        uint16_t old = dcn_get16(buf + off), now = (uint16_t)dcn_rng_next(&r);
        dcn_put16(buf + off, now);
        dcn_put16(buf + 18, csum_update16(dcn_get16(buf + 18), old, now));
        ck_assert_uint_eq(csum_compute(buf, sizeof buf), 0);
    }
}
END_TEST

static dcn_hdr sample(uint8_t nhops, uint8_t *nha)
{
    for (unsigned i = 0; i < nhops; i++)
        nha[i] = (uint8_t)(0x40 | i);
    dcn_hdr h = {.type = DCN_T_DATA, .nhops = nhops, .nhi = 1, .src = 0x01020304, .dst = 0x0a0b0c0d,
                 .pkt_id = 0xbeef, .proto = DCN_PROTO_IPV4, .payload_len = 0, .avail_mbps = 123, .nha = nha};
    return h;
}

START_TEST(header_is_36_bytes_up_to_8_hops_byte_for_byte)
{
    uint8_t nha[8], buf[DCN_HDR_MAX];
    dcn_hdr h = sample(2, nha);
    ck_assert_uint_eq(dcn_hdr_encode(&h, buf, sizeof buf), 36);
    const uint8_t want[28] = {1, DCN_T_DATA, 0, 2, 1, 2, 3, 4, 0x0a, 0x0b, 0x0c, 0x0d, 0xbe, 0xef,
                              0x08, 0x00, 0, 0, /* checksum */ 0, 0, 1, 0, 0, 0, 0, 0, 0, 123};
    ck_assert_mem_eq(buf, want, 18);
    ck_assert_mem_eq(buf + 20, want + 20, 8);
    ck_assert_uint_eq(buf[28], 0x40);
    ck_assert_uint_eq(buf[29], 0x41);
    for (int i = 30; i < 36; i++)
        ck_assert_uint_eq(buf[i], 0);
    ck_assert_uint_eq(csum_compute(buf, 36), 0);
    h.nhops = 8;
    h = sample(8, nha);
    ck_assert_uint_eq(dcn_hdr_encode(&h, buf, sizeof buf), 36);
}
END_TEST

START_TEST(long_paths_extend_the_nha_array)
{
    uint8_t nha[255], buf[DCN_HDR_MAX];
    dcn_hdr h = sample(9, nha);
    ck_assert_uint_eq(dcn_hdr_encode(&h, buf, sizeof buf), 40);
    h = sample(12, nha);
    ck_assert_uint_eq(dcn_hdr_encode(&h, buf, sizeof buf), 40);
    h = sample(255, nha);
    ck_assert_uint_eq(dcn_hdr_encode(&h, buf, sizeof buf), 28 + 256);
    dcn_hdr d;
    size_t hl;
    ck_assert_int_eq(dcn_hdr_decode(buf, 28 + 256, &d, &hl), DCN_DEC_OK);
    ck_assert_uint_eq(hl, 284);
    ck_assert_uint_eq(d.nhops, 255);
    ck_assert_mem_eq(d.nha, nha, 255);
    /* too small a buffer, NHI beyond the path: refused by the encoder */
    ck_assert_uint_eq(dcn_hdr_encode(&h, buf, 100), 0);
    h = sample(2, nha);
    h.nhi = 3;
    ck_assert_uint_eq(dcn_hdr_encode(&h, buf, sizeof buf), 0);
}
END_TEST

/* The sizes docs/protocol.md quotes for BCube: a BCube_k path set's longest
 * path has k + 2 server hops (k >= 1), so 36 bytes hold every path set up to
 * k = 6, and k = 7 needs 40; the agent itself names at most 4 ports (k <= 3,
 * at most 5 hops). */
START_TEST(bcube_path_set_hops_and_header_sizes)
{
    for (unsigned k = 0; k <= 7; k++) {
        char spec[32];
        snprintf(spec, sizeof spec, "bcube n=2 k=%u", k);
        dcn_topo t;
        tu_build(&t, spec);
        static dcn_pathset s;
        uint32_t longest = 0;
        for (uint32_t d = 1; d < t.n_servers; d++) {
            ck_assert_int_gt(tu_paths(&t, NULL, 0, d, NULL, 1, &s), 0);
            for (uint32_t i = 0; i < s.count; i++)
                if (dcn_path_server_hops(&s.path[i], &t) > longest)
                    longest = dcn_path_server_hops(&s.path[i], &t);
        }
        ck_assert_uint_eq(longest, k == 0 ? 1 : k + 2);
        dcn_hdr h = {.nhops = (uint8_t)longest};
        ck_assert_uint_eq(dcn_hdr_len(&h), k <= 6 ? 36 : 40);
        char err[200];
        ck_assert_int_eq(nha_topology_check(&t, err, sizeof err), k <= 3 ? 0 : -1);
        dcn_topo_free(&t);
    }
    /* the largest header: 255 hops and 16 listed containers */
    dcn_hdr h = {.nhops = 255, .flags = DCN_FLAG_MDCUBE, .n_containers = DCN_MAX_CONTAINERS};
    ck_assert_uint_eq(dcn_hdr_len(&h), 356);
    ck_assert_uint_eq(DCN_HDR_MAX, 356);
    h.nhops = 13;
    h.flags = 0;
    ck_assert_uint_eq(dcn_hdr_len(&h), 44);
}
END_TEST

START_TEST(decode_round_trip_and_rejections)
{
    uint8_t nha[8], buf[DCN_HDR_MAX + 8];
    dcn_hdr h = sample(3, nha);
    h.payload_len = 4;
    size_t n = dcn_hdr_encode(&h, buf, sizeof buf);
    memcpy(buf + n, "abcd", 4);
    dcn_hdr d;
    size_t hl;
    ck_assert_int_eq(dcn_hdr_decode(buf, n + 4, &d, &hl), DCN_DEC_OK);
    ck_assert_uint_eq(d.src, h.src);
    ck_assert_uint_eq(d.dst, h.dst);
    ck_assert_uint_eq(d.pkt_id, 0xbeef);
    ck_assert_uint_eq(d.avail_mbps, 123);
    ck_assert_uint_eq(d.nhi, 1);
    ck_assert_uint_eq(d.payload_len, 4);
    for (size_t cut = 0; cut < n + 4; cut++)
        ck_assert_int_eq(dcn_hdr_decode(buf, cut, &d, &hl), DCN_DEC_TRUNCATED);
    buf[5] ^= 0x10;
    ck_assert_int_eq(dcn_hdr_decode(buf, n + 4, &d, &hl), DCN_DEC_BAD_CHECKSUM);
    buf[5] ^= 0x10;
    buf[0] = 2;
    ck_assert_int_eq(dcn_hdr_decode(buf, n + 4, &d, &hl), DCN_DEC_BAD_VERSION);
}
END_TEST

START_TEST(in_place_updates_keep_the_checksum)
{
    uint8_t nha[8], buf[DCN_HDR_MAX];
    dcn_hdr h = sample(4, nha);
    size_t n = dcn_hdr_encode(&h, buf, sizeof buf);
    dcn_hdr_set_nhi(buf, 2);
    dcn_hdr_set_avail(buf, 77);
    dcn_hdr d;
    size_t hl;
    ck_assert_int_eq(dcn_hdr_decode(buf, n, &d, &hl), DCN_DEC_OK);
    ck_assert_uint_eq(d.nhi, 2);
    ck_assert_uint_eq(d.avail_mbps, 77);
}
END_TEST

START_TEST(mdcube_extension_round_trip)
{
    uint8_t nha[12], buf[DCN_HDR_MAX];
    dcn_hdr h = sample(12, nha);
    h.flags = DCN_FLAG_MDCUBE;
    h.n_containers = 3;
    h.container_idx = 1;
    h.flow_id = 0xdeadbeef;
    h.container[0] = 5;
    h.container[1] = 9;
    h.container[2] = 1000;
    size_t n = dcn_hdr_encode(&h, buf, sizeof buf);
    ck_assert_uint_eq(n, 28 + 12 + 8 + 12);
    dcn_hdr d;
    size_t hl;
    ck_assert_int_eq(dcn_hdr_decode(buf, n, &d, &hl), DCN_DEC_OK);
    ck_assert_uint_eq(hl, n);
    ck_assert_uint_eq(d.flow_id, 0xdeadbeef);
    ck_assert_uint_eq(d.n_containers, 3);
    ck_assert_uint_eq(d.container_idx, 1);
    ck_assert_uint_eq(d.container[2], 1000);
    /* a container count beyond the limit is malformed, not a crash */
    buf[40] = 200;
    dcn_put16(buf + 18, 0);
    dcn_put16(buf + 18, csum_compute(buf, n));
    ck_assert_int_eq(dcn_hdr_decode(buf, sizeof buf, &d, &hl), DCN_DEC_BAD_EXTENSION);
}
END_TEST

START_TEST(bcube_nha_is_level_and_digit)
{
    dcn_topo t;
    tu_build(&t, "bcube n=2 k=1");
    uint32_t h00 = tu_node(&t, "h00"), h01 = tu_node(&t, "h01"), h11 = tu_node(&t, "h11");
    dcn_path p = {.len = 0};
    dcn_path_push(&p, h00);
    dcn_path_push(&p, h01);
    dcn_path_push(&p, h11);
    ck_assert_int_eq(dcn_path_expand_servers(&p, &t), 0);
    uint8_t nha[8];
    ck_assert_int_eq(nha_encode_path(&t, &p, nha, 8), 2);
    ck_assert_uint_eq(nha[0], 0x01); /* level 0, digit 1 */
    ck_assert_uint_eq(nha[1], 0x41); /* level 1, digit 1 */
    dcn_path w;
    unsigned bad;
    ck_assert_int_eq(nha_walk(&t, h00, h11, nha, 2, &w, &bad), NHA_WALK_OK);
    ck_assert_uint_eq(w.len, p.len);
    ck_assert_mem_eq(w.node, p.node, p.len * sizeof p.node[0]);
    ck_assert_int_eq(nha_walk(&t, h00, h01, nha, 2, &w, &bad), NHA_WALK_WRONG_DST);
    uint8_t loop[3] = {0x01, 0x00, 0x01};
    ck_assert_int_eq(nha_walk(&t, h00, h01, loop, 3, &w, &bad), NHA_WALK_LOOP);
    uint8_t self[1] = {0x00}; /* names h00 itself */
    ck_assert_int_eq(nha_walk(&t, h00, h01, self, 1, &w, &bad), NHA_WALK_NOT_NEIGHBOR);
    uint8_t far[1] = {0x3f}; /* direct cable where there is a switch */
    ck_assert_int_eq(nha_walk(&t, h00, h01, far, 1, &w, &bad), NHA_WALK_NOT_NEIGHBOR);
    uint8_t port9[1] = {0xc1}; /* port 3 does not exist */
    ck_assert_int_eq(nha_walk(&t, h00, h01, port9, 1, &w, &bad), NHA_WALK_NOT_NEIGHBOR);
    dcn_topo_free(&t);
}
END_TEST

/* Every path of every family's path set, for a few pairs, is expressible
 * and walks back to itself. */
static void check_family_paths(const char *spec, int pairs)
{
    dcn_topo t;
    tu_build(&t, spec);
    dcn_pathset *s = malloc(sizeof *s);
    dcn_rng r;
    dcn_rng_seed(&r, 3);
    for (int i = 0; i < pairs; i++) {
        uint32_t a = dcn_rng_below(&r, t.n_servers), b = dcn_rng_below(&r, t.n_servers);
        if (a == b)
            continue;
        int n = tu_paths(&t, NULL, a, b, NULL, 1, s);
        for (int k = 0; k < n; k++) {
            uint8_t nha[DCN_MAX_HOPS];
            int h = nha_encode_path(&t, &s->path[k], nha, DCN_MAX_HOPS);
            ck_assert_msg(h > 0, "%s: path %s not expressible in NHAs", spec, tu_path_str(&t, &s->path[k]));
            dcn_path w;
            unsigned bad;
            ck_assert_int_eq(nha_walk(&t, a, b, nha, (unsigned)h, &w, &bad), NHA_WALK_OK);
            ck_assert_uint_eq(w.len, s->path[k].len);
        }
    }
    free(s);
    dcn_topo_free(&t);
}

START_TEST(bcube_path_sets_are_expressible)
{
    check_family_paths("bcube n=4 k=1", 40);
    check_family_paths("bcube n=2 k=3", 40);
}
END_TEST

/* One NHA scheme for every server-centric family (direct cables, fibers). */
START_TEST(other_families_path_sets_are_expressible)
{
    static const char *const specs[] = {"hcn n=4 h=1", "bcn alpha=4 beta=4 h=1 gamma=1", "mdcube n=2 k=1 m=3x3",
                                        "bcdc n=4", "dcell n=4 k=1"};
    for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
        char fam[16];
        sscanf(specs[i], "%15s", fam);
        if (!dcn_family_find(fam))
            continue; /* family not in this tree */
        check_family_paths(specs[i], 30);
    }
}
END_TEST


/* MDCube fibers: index = f + q with f = n, the switch's port after its n
 * server ports, as docs/protocol.md says. */
START_TEST(mdcube_fiber_nha_is_n_plus_peer_port)
{
    if (!dcn_family_find("mdcube"))
        return;
    dcn_topo t;
    tu_build(&t, "mdcube n=2 k=1 m=2");
    int fibers = 0;
    for (uint32_t u = 0; u < t.n_servers; u++) {
        for (uint16_t p = 0; p < dcn_nports(&t, u); p++) {
            uint32_t sw = dcn_peer(&t, u, p).node;
            int f = nha_fiber_port(&t, sw);
            if (f < 0)
                continue;
            ck_assert_int_eq(f, 2);
            dcn_end far = dcn_peer(&t, sw, (uint16_t)f);
            for (uint16_t q = 0; q < 2; q++) {
                dcn_end v = dcn_peer(&t, far.node, q);
                ck_assert_uint_lt(v.node, t.n_servers);
                dcn_path path = {.len = 4, .node = {u, sw, far.node, v.node}};
                uint8_t nha[4];
                ck_assert_int_eq(nha_encode_path(&t, &path, nha, 4), 1);
                ck_assert_uint_eq(nha[0], nha_make(p, 2u + q));
                fibers++;
            }
        }
    }
    ck_assert_int_gt(fibers, 0);
    dcn_topo_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_proto");
    TCase *tc = tcase_create("proto");
    tcase_add_test(tc, checksum_rfc1071_example);
    tcase_add_test(tc, incremental_checksum_equals_recomputation);
    tcase_add_test(tc, header_is_36_bytes_up_to_8_hops_byte_for_byte);
    tcase_add_test(tc, long_paths_extend_the_nha_array);
    tcase_add_test(tc, bcube_path_set_hops_and_header_sizes);
    tcase_add_test(tc, decode_round_trip_and_rejections);
    tcase_add_test(tc, in_place_updates_keep_the_checksum);
    tcase_add_test(tc, mdcube_extension_round_trip);
    tcase_add_test(tc, bcube_nha_is_level_and_digit);
    tcase_add_test(tc, bcube_path_sets_are_expressible);
    tcase_add_test(tc, other_families_path_sets_are_expressible);
    tcase_add_test(tc, mdcube_fiber_nha_is_n_plus_peer_port);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
