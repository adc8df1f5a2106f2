/* TUN offloads undone and redone in user space: the fast checksum, TCP
 * segmentation of the kernel's 64 KB segments (tun_offload.h) and the merge
 * of received segments into one (tun_gro.h). */
#include <stdlib.h>
#include <string.h>

#include "agent/core/csum.h"
#include "agent/core/engine.h"
#include "agent/core/proto.h"
#include "agent/core/tun_gro.h"
#include "agent/core/tun_offload.h"
#include "testutil.h"
#include "topo/rng.h"

#define HEAD ENGINE_HEADROOM
#define TCP_FIN 0x01
#define TCP_PSH 0x08
#define TCP_ACK 0x10
#define TCP_CWR 0x80

/* a TCP/IPv4 packet at buf + HEAD: 20-byte IP header, 32-byte TCP header
 * (12 bytes of timestamp option), payload bytes i*7+seed */
static size_t make_tcp(uint8_t *buf, size_t payload, uint32_t seq, uint8_t flags, uint8_t seed, bool checksums)
{
    uint8_t *ip = buf + HEAD, *th = ip + 20;
    size_t len = 20 + 32 + payload;
    memset(ip, 0, 52);
    ip[0] = 0x45;
    dcn_put16(ip + 2, (uint16_t)len);
    dcn_put16(ip + 4, 0x1234);
    dcn_put16(ip + 6, 0x4000); /* DF */
    ip[8] = 64;
    ip[9] = 6;
    dcn_put32(ip + 12, 0x0a000001);
    dcn_put32(ip + 16, 0x0a000004);
    dcn_put16(th, 40000);
    dcn_put16(th + 2, 5201);
    dcn_put32(th + 4, seq);
    dcn_put32(th + 8, 0xabcdef01);
    th[12] = 8 << 4;
    th[13] = flags;
    dcn_put16(th + 14, 501);
    th[20] = 1;
    th[21] = 1;
    th[22] = 8;
    th[23] = 10;
    dcn_put32(th + 24, 777);
    dcn_put32(th + 28, 555);
    for (size_t i = 0; i < payload; i++)
        ip[52 + i] = (uint8_t)(i * 7 + seed);
    if (checksums) {
        dcn_put16(ip + 10, csum_compute(ip, 20));
        uint32_t sum = csum_partial(ip + 12, 8, 6u + (uint32_t)(len - 20));
        dcn_put16(th + 16, csum_finish(csum_partial(th, len - 20, sum)));
    }
    return len;
}

static bool tcp_checksums_ok(const uint8_t *ip, size_t len)
{
    unsigned ihl = (ip[0] & 15u) * 4u;
    uint32_t sum = csum_partial(ip + 12, 8, 6u + (uint32_t)(len - ihl));
    return csum_compute(ip, ihl) == 0 && csum_finish(csum_partial(ip + ihl, len - ihl, sum)) == 0;
}

START_TEST(fast_checksum_equals_the_plain_one)
{
    dcn_rng r;
    dcn_rng_seed(&r, 11);
    uint8_t buf[3000];
    for (int round = 0; round < 500; round++) {
        size_t len = dcn_rng_below(&r, sizeof buf), off = dcn_rng_below(&r, 8);
        if (off + len > sizeof buf)
            len = sizeof buf - off;
        for (size_t i = 0; i < sizeof buf; i++)
            buf[i] = (uint8_t)dcn_rng_next(&r);
        ck_assert_uint_eq(csum_finish(csum_partial(buf + off, len, 0)), csum_compute(buf + off, len));
        /* in two pieces, the first of even length */
        size_t cut = 2 * dcn_rng_below(&r, len / 2 + 1);
        ck_assert_uint_eq(csum_finish(csum_partial(buf + off + cut, len - cut, csum_partial(buf + off, cut, 0))),
                          csum_compute(buf + off, len));
    }
}
END_TEST

typedef struct seen {
    int n;
    size_t len[64];
    uint8_t copy[64][1600];
    uint8_t *buf;
} seen;

/* what the engine does: write into the headroom, then copy the packet out */
static void record(void *ctx, uint8_t *buf, size_t len)
{
    seen *s = ctx;
    memset(buf, 0xa5, HEAD);
    ck_assert_int_lt(s->n, 64);
    ck_assert_uint_le(len, sizeof s->copy[0]);
    memcpy(s->copy[s->n], buf + HEAD, len);
    s->len[s->n++] = len;
}

START_TEST(gso_segments_are_the_packets_tcp_would_have_sent)
{
    static uint8_t buf[HEAD + 65536], orig[65536];
    static seen s;
    const size_t mss = 1448, payload = 10 * 1448 + 500;
    memset(&s, 0, sizeof s);
    size_t len = make_tcp(buf, payload, 4000000000u, TCP_ACK | TCP_PSH | TCP_FIN | TCP_CWR, 3, false);
    memcpy(orig, buf + HEAD, len);
    struct virtio_net_hdr vh = {.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .gso_type = VIRTIO_NET_HDR_GSO_TCPV4,
                                .hdr_len = 52, .gso_size = (uint16_t)mss, .csum_start = 20, .csum_offset = 16};
    ck_assert_int_eq(tun_offload_in(&vh, buf, HEAD, len, record, &s), 11);
    ck_assert_int_eq(s.n, 11);
    size_t off = 0;
    for (int i = 0; i < s.n; i++) {
        const uint8_t *p = s.copy[i], *th = p + 20;
        size_t chunk = i < 10 ? mss : 500;
        ck_assert_uint_eq(s.len[i], 52 + chunk);
        ck_assert_uint_eq(dcn_get16(p + 2), 52 + chunk);
        ck_assert_uint_eq(dcn_get16(p + 4), (uint16_t)(0x1234 + i));
        ck_assert_msg(tcp_checksums_ok(p, s.len[i]), "segment %d: bad checksum", i);
        ck_assert_uint_eq(dcn_get32(th + 4), (uint32_t)(4000000000u + off)); /* wraps past 2^32 */
        uint8_t want = TCP_ACK;
        if (i == 0)
            want |= TCP_CWR;
        if (i == s.n - 1)
            want |= TCP_PSH | TCP_FIN;
        ck_assert_uint_eq(th[13], want);
        ck_assert_int_eq(memcmp(th + 20, orig + 40, 12), 0); /* options kept */
        ck_assert_int_eq(memcmp(p + 52, orig + 52 + off, chunk), 0);
        off += chunk;
    }
    ck_assert_uint_eq(off, payload);
}
END_TEST

START_TEST(partial_checksums_are_completed)
{
    static uint8_t buf[HEAD + 2000];
    static seen s;
    memset(&s, 0, sizeof s);
    size_t len = make_tcp(buf, 999, 1, TCP_ACK, 9, false);
    uint8_t *ip = buf + HEAD;
    dcn_put16(ip + 10, csum_compute(ip, 20));
    /* the kernel leaves the pseudo header's sum in the field */
    dcn_put16(ip + 36, (uint16_t)~csum_finish(csum_partial(ip + 12, 8, 6u + (uint32_t)(len - 20))));
    struct virtio_net_hdr vh = {.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .csum_start = 20, .csum_offset = 16};
    ck_assert_int_eq(tun_offload_in(&vh, buf, HEAD, len, record, &s), 1);
    ck_assert(tcp_checksums_ok(s.copy[0], s.len[0]));
    /* a plain packet goes through untouched */
    memset(&s, 0, sizeof s);
    len = make_tcp(buf, 100, 1, TCP_ACK, 2, true);
    struct virtio_net_hdr none = {0};
    ck_assert_int_eq(tun_offload_in(&none, buf, HEAD, len, record, &s), 1);
    ck_assert(tcp_checksums_ok(s.copy[0], s.len[0]));
}
END_TEST

START_TEST(headers_the_kernel_never_sends_are_refused)
{
    static uint8_t buf[HEAD + 4000];
    static seen s;
    memset(&s, 0, sizeof s);
    size_t len = make_tcp(buf, 3000, 1, TCP_ACK, 1, false);
    struct virtio_net_hdr vh = {.gso_type = VIRTIO_NET_HDR_GSO_TCPV4, .gso_size = 1000};
    struct virtio_net_hdr bad = vh;
    bad.gso_type = VIRTIO_NET_HDR_GSO_UDP;
    ck_assert_int_eq(tun_offload_in(&bad, buf, HEAD, len, record, &s), -1);
    bad = vh;
    bad.gso_size = 0;
    ck_assert_int_eq(tun_offload_in(&bad, buf, HEAD, len, record, &s), -1);
    bad = (struct virtio_net_hdr){.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .csum_start = 20, .csum_offset = 16};
    ck_assert_int_eq(tun_offload_in(&bad, buf, HEAD, 30, record, &s), -1); /* field beyond the packet */
    bad.csum_start = (uint16_t)len;
    ck_assert_int_eq(tun_offload_in(&bad, buf, HEAD, len, record, &s), -1);
    ck_assert_int_eq(tun_offload_in(&vh, buf, HEAD, 45, record, &s), -1); /* no room for the TCP header */
    buf[HEAD + 9] = 17;
    ck_assert_int_eq(tun_offload_in(&vh, buf, HEAD, len, record, &s), -1); /* UDP as TSO4 */
    buf[HEAD + 9] = 6;
    buf[HEAD + 6] |= 0x20;
    ck_assert_int_eq(tun_offload_in(&vh, buf, HEAD, len, record, &s), -1); /* a fragment */
    buf[HEAD + 6] &= (uint8_t)~0x20;
    buf[HEAD] = 0x65;
    ck_assert_int_eq(tun_offload_in(&vh, buf, HEAD, len, record, &s), -1); /* IPv6 */
    ck_assert_int_eq(s.n, 0);
}
END_TEST

/* segments of one connection in separate buffers, as they arrive */
static uint8_t seg[70][HEAD + 1600];
static size_t seg_len[70];

static void make_train(int n, size_t mss, uint8_t last_flags)
{
    for (int i = 0; i < n; i++)
        seg_len[i] = make_tcp(seg[i], mss, 1000 + (uint32_t)(i * mss), i == n - 1 ? last_flags : TCP_ACK,
                              (uint8_t)(i * mss * 7 % 256), true);
}

static const uint8_t *ip_of(int i) { return seg[i] + HEAD; }

/* the merged packet from iov (vh, headers, payloads) into one buffer */
static size_t flatten(struct iovec *iov, int n, struct virtio_net_hdr *vh, uint8_t *out)
{
    memcpy(vh, iov[0].iov_base, sizeof *vh);
    size_t len = 0;
    for (int i = 1; i < n; i++) {
        memcpy(out + len, iov[i].iov_base, iov[i].iov_len);
        len += iov[i].iov_len;
    }
    return len;
}

START_TEST(gro_merges_a_train_and_gso_cuts_it_back)
{
    static tun_gro g;
    static uint8_t merged[HEAD + 65536];
    static seen s;
    memset(&g, 0, sizeof g);
    memset(&s, 0, sizeof s);
    make_train(20, 1448, TCP_ACK | TCP_PSH);
    for (int i = 0; i < 20; i++)
        ck_assert_int_eq(tun_gro_offer(&g, ip_of(i), seg_len[i]), TUN_GRO_HELD);
    struct iovec *iov;
    int n = tun_gro_take(&g, &iov);
    ck_assert_int_eq(n, 22);
    struct virtio_net_hdr vh;
    size_t len = flatten(iov, n, &vh, merged + HEAD);
    ck_assert_uint_eq(len, 52 + 20 * 1448);
    ck_assert_uint_eq(vh.gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
    ck_assert_uint_eq(vh.gso_size, 1448);
    ck_assert_uint_eq(vh.flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
    ck_assert_uint_eq(vh.csum_start, 20);
    ck_assert_uint_eq(vh.csum_offset, 16);
    ck_assert_uint_eq(vh.hdr_len, 52);
    uint8_t *ip = merged + HEAD;
    ck_assert_uint_eq(dcn_get16(ip + 2), len);
    ck_assert_uint_eq(csum_compute(ip, 20), 0);
    ck_assert_uint_eq(ip[33], TCP_ACK | TCP_PSH);
    ck_assert_uint_eq(g.merged, 19);
    /* the kernel's view: completing the partial checksum gives a valid packet */
    uint8_t whole[65536];
    memcpy(whole, ip, len);
    ck_assert_uint_eq(dcn_get16(whole + 36),
                      (uint16_t)~csum_finish(csum_partial(whole + 12, 8, 6u + (uint32_t)(len - 20))));
    dcn_put16(whole + 36, csum_finish(csum_partial(whole + 20, len - 20, 0)));
    ck_assert(tcp_checksums_ok(whole, len));
    /* cut back by the sender's side: the very segments that were merged,
     * but for the IP id, which segmentation counts up from the first */
    ck_assert_int_eq(tun_offload_in(&vh, merged, HEAD, len, record, &s), 20);
    for (int i = 0; i < 20; i++) {
        ck_assert_uint_eq(s.len[i], seg_len[i]);
        uint8_t want[1600];
        memcpy(want, ip_of(i), seg_len[i]);
        dcn_put16(want + 4, (uint16_t)(0x1234 + i));
        dcn_put16(want + 10, 0);
        dcn_put16(want + 10, csum_compute(want, 20));
        ck_assert_msg(memcmp(s.copy[i], want, seg_len[i]) == 0, "segment %d differs", i);
    }
    ck_assert_int_eq(tun_gro_take(&g, &iov), 0); /* nothing left */
}
END_TEST

START_TEST(gro_follows_the_kernels_merge_rules)
{
    static tun_gro g;
    struct iovec *iov;
    memset(&g, 0, sizeof g);
    /* a lone segment goes out as it came, behind a plain header */
    make_train(1, 1000, TCP_ACK);
    ck_assert_int_eq(tun_gro_offer(&g, ip_of(0), seg_len[0]), TUN_GRO_HELD);
    int n = tun_gro_take(&g, &iov);
    ck_assert_int_eq(n, 3);
    ck_assert_uint_eq(((struct virtio_net_hdr *)iov[0].iov_base)->gso_type, VIRTIO_NET_HDR_GSO_NONE);
    ck_assert_uint_eq(((struct virtio_net_hdr *)iov[0].iov_base)->flags, 0);
    ck_assert_int_eq(memcmp(iov[1].iov_base, ip_of(0), 52), 0);
    ck_assert_ptr_eq(iov[2].iov_base, ip_of(0) + 52);

    /* a gap in the sequence numbers */
    make_train(3, 1000, TCP_ACK);
    ck_assert_int_eq(tun_gro_offer(&g, ip_of(0), seg_len[0]), TUN_GRO_HELD);
    ck_assert_int_eq(tun_gro_offer(&g, ip_of(2), seg_len[2]), TUN_GRO_FLUSH);
    /* another connection */
    uint8_t *th1 = seg[1] + HEAD + 20;
    dcn_put16(th1, 40001);
    dcn_put16(th1 + 16, 0);
    dcn_put16(th1 + 16, csum_finish(csum_partial(th1, seg_len[1] - 20, csum_partial(ip_of(1) + 12, 8, 6u + (uint32_t)(seg_len[1] - 20)))));
    ck_assert_int_eq(tun_gro_offer(&g, ip_of(1), seg_len[1]), TUN_GRO_FLUSH);
    tun_gro_take(&g, &iov);

    /* a window update, a new timestamp, and a bad checksum */
    const int fields[] = {14, 28, 16};
    for (int f = 0; f < 3; f++) {
        make_train(2, 1000, TCP_ACK);
        uint8_t *th = seg[1] + HEAD + 20;
        th[fields[f]] ^= 1;
        if (fields[f] != 16) {
            dcn_put16(th + 16, 0);
            dcn_put16(th + 16, csum_finish(csum_partial(th, seg_len[1] - 20, csum_partial(ip_of(1) + 12, 8, 6u + (uint32_t)(seg_len[1] - 20)))));
        }
        ck_assert_int_eq(tun_gro_offer(&g, ip_of(0), seg_len[0]), TUN_GRO_HELD);
        ck_assert_int_eq(tun_gro_offer(&g, ip_of(1), seg_len[1]), fields[f] == 16 ? TUN_GRO_ALONE : TUN_GRO_FLUSH);
        tun_gro_take(&g, &iov);
    }

    /* PSH ends a train; so does a short segment */
    make_train(3, 1000, TCP_ACK);
    seg[1][HEAD + 33] |= TCP_PSH;
    dcn_put16(seg[1] + HEAD + 36, csum_update16(dcn_get16(seg[1] + HEAD + 36), TCP_ACK, TCP_ACK | TCP_PSH));
    ck_assert_int_eq(tun_gro_offer(&g, ip_of(0), seg_len[0]), TUN_GRO_HELD);
    ck_assert_int_eq(tun_gro_offer(&g, ip_of(1), seg_len[1]), TUN_GRO_HELD);
    ck_assert_int_eq(tun_gro_offer(&g, ip_of(2), seg_len[2]), TUN_GRO_FLUSH);
    tun_gro_take(&g, &iov);
    seg_len[0] = make_tcp(seg[0], 1000, 1000, TCP_ACK, 1, true);
    seg_len[1] = make_tcp(seg[1], 600, 2000, TCP_ACK, 2, true);
    seg_len[2] = make_tcp(seg[2], 600, 2600, TCP_ACK, 3, true);
    ck_assert_int_eq(tun_gro_offer(&g, ip_of(0), seg_len[0]), TUN_GRO_HELD);
    ck_assert_int_eq(tun_gro_offer(&g, ip_of(1), seg_len[1]), TUN_GRO_HELD);
    ck_assert_int_eq(tun_gro_offer(&g, ip_of(2), seg_len[2]), TUN_GRO_FLUSH);
    tun_gro_take(&g, &iov);

    /* never merged: a pure ACK, SYN, FIN, a fragment */
    seg_len[0] = make_tcp(seg[0], 0, 1, TCP_ACK, 0, true);
    ck_assert_int_eq(tun_gro_offer(&g, ip_of(0), seg_len[0]), TUN_GRO_ALONE);
    const uint8_t flags[] = {0x02 | TCP_ACK, TCP_FIN | TCP_ACK};
    for (int f = 0; f < 2; f++) {
        seg_len[0] = make_tcp(seg[0], 100, 1, flags[f], 0, true);
        ck_assert_int_eq(tun_gro_offer(&g, ip_of(0), seg_len[0]), TUN_GRO_ALONE);
    }
    seg_len[0] = make_tcp(seg[0], 100, 1, TCP_ACK, 0, false);
    seg[0][HEAD + 6] = 0x20; /* MF */
    dcn_put16(seg[0] + HEAD + 10, csum_compute(ip_of(0), 20));
    ck_assert_int_eq(tun_gro_offer(&g, ip_of(0), seg_len[0]), TUN_GRO_ALONE);
    ck_assert_int_eq(tun_gro_take(&g, &iov), 0);

    /* at most TUN_GRO_MAX_SEGS segments and 64 KB */
    make_train(70, 100, TCP_ACK);
    for (int i = 0; i < 70; i++)
        ck_assert_int_eq(tun_gro_offer(&g, ip_of(i), seg_len[i]), i < TUN_GRO_MAX_SEGS ? TUN_GRO_HELD : TUN_GRO_FLUSH);
    ck_assert_int_eq(tun_gro_take(&g, &iov), 2 + TUN_GRO_MAX_SEGS);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_tun_offload");
    TCase *tc = tcase_create("tun_offload");
    tcase_add_test(tc, fast_checksum_equals_the_plain_one);
    tcase_add_test(tc, gso_segments_are_the_packets_tcp_would_have_sent);
    tcase_add_test(tc, partial_checksums_are_completed);
    tcase_add_test(tc, headers_the_kernel_never_sends_are_refused);
    tcase_add_test(tc, gro_merges_a_train_and_gso_cuts_it_back);
    tcase_add_test(tc, gro_follows_the_kernels_merge_rules);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
