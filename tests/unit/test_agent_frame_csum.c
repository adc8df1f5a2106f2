/* A DCN data frame that came with its TCP or UDP checksum left partial by
 * the kernel that sent it (--data-path kernel) gets the checksum the
 * kernel would have written (core/frame_csum.h); anything that is not such
 * a frame is left as it is. */
#include <stdlib.h>
#include <string.h>

#include "agent/core/csum.h"
#include "agent/core/frame_csum.h"
#include "agent/core/proto.h"
#include "testutil.h"

#define IP_TCP 6
#define IP_UDP 17

static uint8_t frame[DCN_ETH_HLEN + DCN_HDR_MAX + 9000];

/* The checksum of the transport segment at ip (with its pseudo header) is
 * right: summing it all gives 0xffff. */
static bool l4_ok(const uint8_t *ip)
{
    unsigned ihl = (ip[0] & 15u) * 4u, tot = dcn_get16(ip + 2);
    uint32_t sum = csum_partial(ip + 12, 8, (uint32_t)ip[9] + (tot - ihl));
    return csum_finish(csum_partial(ip + ihl, tot - ihl, sum)) == 0;
}

/* A frame: Ethernet, a DCN data header of nhops hops (with MDCube's
 * extension of two containers when mdcube), then an IPv4 packet of proto
 * with `payload` bytes after its transport header, whose transport checksum
 * holds only the pseudo header's sum, as the sending kernel leaves it.
 * Returns the frame's length; *ip_at gets the packet's offset. */
static size_t make_frame(uint8_t proto, size_t payload, unsigned nhops, bool mdcube, size_t *ip_at)
{
    memset(frame, 0, sizeof frame);
    dcn_put16(frame + 12, DCN_ETHERTYPE);
    size_t l4h = proto == IP_TCP ? 20 : 8, tot = 20 + l4h + payload;
    uint8_t nha[16];
    for (unsigned i = 0; i < nhops; i++)
        nha[i] = (uint8_t)i;
    dcn_hdr h = {.version = DCN_VERSION, .type = DCN_T_DATA, .nhops = (uint8_t)nhops, .nhi = (uint8_t)nhops,
                 .src = 1, .dst = 2, .proto = DCN_PROTO_IPV4, .payload_len = (uint16_t)tot, .nha = nha};
    if (mdcube) {
        h.flags = DCN_FLAG_MDCUBE;
        h.n_containers = 2;
        h.container[0] = 3;
        h.container[1] = 4;
        h.flow_id = 99;
    }
    size_t hl = dcn_hdr_encode(&h, frame + DCN_ETH_HLEN, DCN_HDR_MAX);
    ck_assert_uint_gt(hl, 0);
    uint8_t *ip = frame + DCN_ETH_HLEN + hl;
    ip[0] = 0x45;
    dcn_put16(ip + 2, (uint16_t)tot);
    dcn_put16(ip + 6, 0x4000); /* DF */
    ip[8] = 64;
    ip[9] = proto;
    dcn_put32(ip + 12, 0x0a000001);
    dcn_put32(ip + 16, 0x0a000009);
    dcn_put16(ip + 10, csum_compute(ip, 20));
    uint8_t *l4 = ip + 20;
    dcn_put16(l4, 40000);
    dcn_put16(l4 + 2, 7700);
    if (proto == IP_TCP) {
        dcn_put32(l4 + 4, 12345);
        l4[12] = 5 << 4;
        l4[13] = 0x18;
    } else {
        dcn_put16(l4 + 4, (uint16_t)(l4h + payload));
    }
    for (size_t i = 0; i < payload; i++)
        l4[l4h + i] = (uint8_t)(i * 13 + 5);
    /* the pseudo header's sum, folded, not inverted (the kernel's ~tcp_v4_check) */
    uint16_t seed = (uint16_t)~csum_finish(csum_partial(ip + 12, 8, (uint32_t)proto + (uint32_t)(tot - 20)));
    dcn_put16(l4 + (proto == IP_TCP ? 16 : 6), seed);
    *ip_at = DCN_ETH_HLEN + hl;
    return *ip_at + tot;
}

START_TEST(tcp_and_udp_checksums_are_completed)
{
    static const struct {
        uint8_t proto;
        size_t payload;
        unsigned nhops;
        bool mdcube;
    } cases[] = {
        {IP_TCP, 0, 1, false},    {IP_TCP, 1, 2, false},   {IP_TCP, 1448, 3, false},
        {IP_TCP, 8912 - 20, 2, false}, {IP_TCP, 999, 9, false}, {IP_TCP, 500, 4, true},
        {IP_UDP, 0, 1, false},    {IP_UDP, 333, 2, false}, {IP_UDP, 1200, 5, true},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        size_t at;
        size_t len = make_frame(cases[c].proto, cases[c].payload, cases[c].nhops, cases[c].mdcube, &at);
        ck_assert_msg(!l4_ok(frame + at), "case %zu: the partial checksum already passes", c);
        static uint8_t before[sizeof frame];
        memcpy(before, frame, len);
        ck_assert_int_eq(dcn_frame_complete_l4_csum(frame, len), 0);
        ck_assert_msg(l4_ok(frame + at), "case %zu: checksum still wrong", c);
        /* only the checksum field changed */
        size_t field = at + 20 + (cases[c].proto == IP_TCP ? 16 : 6);
        size_t changed = len;
        for (size_t i = 0; i < len && changed == len; i++)
            if (i != field && i != field + 1 && frame[i] != before[i])
                changed = i;
        ck_assert_msg(changed == len, "case %zu: byte %zu changed", c, changed);
    }
}
END_TEST

START_TEST(udp_zero_is_sent_as_all_ones)
{
    /* a segment summing to 0xffff with the field: its checksum is 0,
     * which UDP writes as 0xffff (RFC 768) and TCP keeps */
    uint8_t udp[10] = {0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0};
    ck_assert_int_eq(csum_complete_partial(udp, sizeof udp, 0, 6, true), 0);
    ck_assert_uint_eq(dcn_get16(udp + 6), 0xffff);
    uint8_t tcp[20] = {0xff, 0xff};
    ck_assert_int_eq(csum_complete_partial(tcp, sizeof tcp, 0, 16, false), 0);
    ck_assert_uint_eq(dcn_get16(tcp + 16), 0);
    /* a field outside the packet is refused, nothing written */
    ck_assert_int_eq(csum_complete_partial(tcp, 17, 0, 16, false), -1);
    ck_assert_int_eq(csum_complete_partial(tcp, 20, 20, 16, false), -1);
    ck_assert_int_eq(csum_complete_partial(tcp, 20, 8, 6, false), -1);
}
END_TEST

/* Each frame, broken one way, is refused and left byte for byte as it was. */
static void refused(const char *what, size_t len)
{
    static uint8_t before[sizeof frame];
    memcpy(before, frame, sizeof frame);
    ck_assert_msg(dcn_frame_complete_l4_csum(frame, len) == -1, "%s: not refused", what);
    ck_assert_msg(memcmp(before, frame, sizeof frame) == 0, "%s: the frame was written", what);
}

static void resum_dcn(size_t at)
{
    uint8_t *h = frame + DCN_ETH_HLEN;
    size_t hl = at - DCN_ETH_HLEN;
    dcn_put16(h + DCN_OFF_CSUM, 0);
    dcn_put16(h + DCN_OFF_CSUM, csum_compute(h, hl));
}

START_TEST(what_is_not_such_a_frame_is_left_alone)
{
    size_t at, len;
    len = make_frame(IP_TCP, 100, 2, false, &at);
    refused("a frame cut inside its DCN header", DCN_ETH_HLEN + 30);
    refused("a frame cut inside its IP packet", len - 1);
    refused("no frame", 0);
    frame[12] = 0x08;
    frame[13] = 0x00;
    refused("an IPv4 EtherType", len);
    len = make_frame(IP_TCP, 100, 2, false, &at);
    frame[DCN_ETH_HLEN + DCN_OFF_CSUM] ^= 1;
    refused("a bad DCN header checksum", len);
    len = make_frame(IP_TCP, 100, 2, false, &at);
    frame[DCN_ETH_HLEN + DCN_OFF_TYPE] = DCN_T_PROBE;
    resum_dcn(at);
    refused("a probe", len);
    len = make_frame(IP_TCP, 100, 2, false, &at);
    dcn_put16(frame + DCN_ETH_HLEN + DCN_OFF_PROTO, 0x86dd);
    resum_dcn(at);
    refused("a payload that is not IPv4", len);
    len = make_frame(IP_TCP, 100, 2, false, &at);
    frame[at] = 0x65;
    refused("IPv6 behind an IPv4 type", len);
    len = make_frame(IP_TCP, 100, 2, false, &at);
    frame[at] = 0x44;
    refused("an IP header of 16 bytes", len);
    len = make_frame(IP_TCP, 100, 2, false, &at);
    dcn_put16(frame + at + 2, (uint16_t)(len - at + 1));
    refused("an IP length beyond the payload", len);
    len = make_frame(IP_TCP, 100, 2, false, &at);
    dcn_put16(frame + at + 2, 30);
    refused("a TCP packet too short for its header", len);
    len = make_frame(IP_UDP, 100, 2, false, &at);
    dcn_put16(frame + at + 2, 24);
    refused("a UDP packet too short for its header", len);
    len = make_frame(IP_TCP, 100, 2, false, &at);
    dcn_put16(frame + at + 6, 0x2000);
    refused("a first fragment", len);
    len = make_frame(IP_TCP, 100, 2, false, &at);
    dcn_put16(frame + at + 6, 0x0010);
    refused("a later fragment", len);
    len = make_frame(IP_TCP, 100, 2, false, &at);
    frame[at + 9] = 1;
    refused("ICMP", len);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_frame_csum");
    TCase *tc = tcase_create("frame_csum");
    tcase_add_test(tc, tcp_and_udp_checksums_are_completed);
    tcase_add_test(tc, udp_zero_is_sent_as_all_ones);
    tcase_add_test(tc, what_is_not_such_a_frame_is_left_alone);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
