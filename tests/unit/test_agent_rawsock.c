/* The raw socket's batch buffers: sized from the port's MTU and resident
 * from the moment the socket opens (rawsock.h); and its TPACKET_V2 receive
 * ring (--rx-ring): frames in order across the ring's wrap, given back so
 * that the socket stops being readable, cut frames dropped; and which frames
 * came with a checksum the sending kernel left partial. Needs root: each test runs
 * in a network namespace of its own (Check forks per test) on its loopback
 * port, whose MTU it sets. Without root the suite is skipped (77). */

#include <arpa/inet.h>
#include <check.h>
#include <linux/if_packet.h>
#include <linux/virtio_net.h>
#include <net/if.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/core/proto.h"
#include "agent/os/rawsock.h"
#include "testutil.h"

static void set_lo_mtu(int mtu)
{
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    ck_assert_int_ge(fd, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    ifr.ifr_mtu = mtu;
    ck_assert_int_eq(ioctl(fd, SIOCSIFMTU, &ifr), 0);
    close(fd);
}

static void own_netns_with_lo_mtu(int mtu)
{
    ck_assert_int_eq(unshare(CLONE_NEWNET), 0);
    set_lo_mtu(mtu);
}

/* pages of [p, p+len) that are not resident */
static size_t pages_missing(const void *p, size_t len)
{
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)p & ~((uintptr_t)pg - 1), end = (uintptr_t)p + len;
    size_t n = (end - a + (size_t)pg - 1) / (size_t)pg, missing = 0;
    unsigned char vec[4096];
    ck_assert_uint_le(n, sizeof vec);
    ck_assert_int_eq(mincore((void *)a, n * (size_t)pg, vec), 0);
    for (size_t i = 0; i < n; i++)
        missing += !(vec[i] & 1);
    return missing;
}

START_TEST(slot_follows_the_mtu)
{
    ck_assert_uint_eq(rawsock_slot_for_mtu(1500), 1600); /* 1500 + 64, rounded up to 64 */
    ck_assert_uint_eq(rawsock_slot_for_mtu(9000), 9088);
    ck_assert_uint_eq(rawsock_slot_for_mtu(RAWSOCK_SLOT - RAWSOCK_L2_ROOM), RAWSOCK_SLOT);
    ck_assert_uint_eq(rawsock_slot_for_mtu(65536), RAWSOCK_SLOT); /* loopback's default */
    ck_assert_uint_eq(rawsock_slot_for_mtu(0), RAWSOCK_SLOT);     /* unknown */
}
END_TEST

static void open_and_check(int mtu, size_t want_slot)
{
    own_netns_with_lo_mtu(mtu);
    rawsock s;
    char err[128];
    ck_assert_msg(rawsock_open(&s, "lo", 0, err, sizeof err) == 0, "%s", err);
    ck_assert_uint_eq(s.slot, want_slot);
    ck_assert_uint_eq(pages_missing(s.rbuf, RAWSOCK_BATCH * s.slot), 0);
    ck_assert_uint_eq(pages_missing(s.tbuf, RAWSOCK_BATCH * s.slot), 0);
    static uint8_t frame[RAWSOCK_SLOT + 1];
    ck_assert_int_eq(rawsock_queue(&s, frame, s.slot), 0);
    ck_assert_int_eq(rawsock_queue(&s, frame, s.slot + 1), -1); /* larger than a slot: refused */
    s.tn = 0;
    rawsock_close(&s);
}

START_TEST(buffers_are_resident_and_sized_at_mtu_1500)
{
    open_and_check(1500, 1600);
}
END_TEST

START_TEST(buffers_are_resident_and_sized_at_mtu_9000)
{
    open_and_check(9000, 9088);
}
END_TEST

/* a plain AF_PACKET socket on lo that sends DCN-typed frames; lo loops
 * them back in, addressed to its own (all-zero) MAC */
static int lo_sender(void)
{
    int ufd = socket(AF_INET, SOCK_DGRAM, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    ck_assert_int_eq(ioctl(ufd, SIOCGIFFLAGS, &ifr), 0);
    ifr.ifr_flags |= IFF_UP;
    ck_assert_int_eq(ioctl(ufd, SIOCSIFFLAGS, &ifr), 0);
    close(ufd);
    int fd = socket(AF_PACKET, SOCK_RAW, htons(DCN_ETHERTYPE));
    ck_assert_int_ge(fd, 0);
    struct sockaddr_ll sll;
    memset(&sll, 0, sizeof sll);
    sll.sll_family = AF_PACKET;
    sll.sll_protocol = htons(DCN_ETHERTYPE);
    sll.sll_ifindex = (int)if_nametoindex("lo");
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sll, sizeof sll), 0);
    return fd;
}

/* frame number `seq`, `len` bytes: zero MACs, the DCN EtherType, then seq
 * in the first payload byte and a pattern after it */
static void fill_frame(uint8_t *f, unsigned seq, size_t len)
{
    memset(f, 0, 12);
    f[12] = DCN_ETHERTYPE >> 8;
    f[13] = DCN_ETHERTYPE & 0xff;
    for (size_t i = 14; i < len; i++)
        f[i] = (uint8_t)(seq + i);
    f[14] = (uint8_t)seq;
}

static void send_frame(int fd, unsigned seq, size_t len)
{
    static uint8_t f[16384];
    ck_assert_uint_le(len, sizeof f);
    fill_frame(f, seq, len);
    ck_assert_int_eq(send(fd, f, len, 0), (ssize_t)len);
}

static bool readable(const rawsock *s)
{
    struct pollfd p = {.fd = s->fd, .events = POLLIN};
    return poll(&p, 1, 0) == 1;
}

/* receives until `want` frames have come or nothing more waits, checking
 * their order from *seq on; returns the count */
static unsigned drain(rawsock *s, unsigned *seq, size_t len)
{
    unsigned got = 0;
    for (;;) {
        int n = rawsock_recv_batch(s);
        for (int i = 0; i < n; i++) {
            const uint8_t *f = s->riov[i].iov_base;
            ck_assert_uint_eq(s->rmsg[i].msg_len, len);
            ck_assert_uint_eq(f[14], (uint8_t)*seq);
            ck_assert_uint_eq(f[len - 1], (uint8_t)(*seq + len - 1));
            ck_assert_int_eq(s->rfrom[i].sll_pkttype, PACKET_HOST);
            (*seq)++;
            got++;
        }
        rawsock_recv_done(s);
        if (n == 0)
            return got;
    }
}

START_TEST(ring_hands_out_frames_in_order_across_its_wrap)
{
    own_netns_with_lo_mtu(1500);
    int tx = lo_sender();
    rawsock s;
    char err[160];
    ck_assert_msg(rawsock_open(&s, "lo", 8, err, sizeof err) == 0, "%s", err);
    ck_assert(!readable(&s));
    ck_assert_ptr_nonnull(s.ring);
    ck_assert_ptr_null(s.rbuf);                      /* the ring is the receive buffer */
    ck_assert_uint_ge(s.ring_frames, 8);             /* rounded up to whole blocks */
    ck_assert_uint_lt(s.ring_frames, RAWSOCK_BATCH * 2);
    ck_assert_uint_eq(pages_missing(s.ring, s.ring_bytes), 0);
    unsigned sent = 0, seq = 0;
    /* several fillings of the ring, each below its size, so nothing drops */
    for (unsigned round = 0; round < 5; round++) {
        unsigned k = s.ring_frames - 3;
        for (unsigned i = 0; i < k; i++)
            send_frame(tx, sent++, 1000);
        ck_assert(readable(&s));
        ck_assert_uint_eq(drain(&s, &seq, 1000), k);
        /* every frame given back: nothing keeps the socket readable (an
         * event loop would spin on it) */
        ck_assert(!readable(&s));
    }
    ck_assert_uint_eq(seq, sent);
    ck_assert_uint_eq(s.rx_truncated, 0);
    close(tx);
    rawsock_close(&s);
    ck_assert_ptr_null(s.ring);
}
END_TEST

/* A relayed frame is queued by reference (rawsock_queue_ref): what goes
 * out is the caller's buffer as it is at the flush, and a copy queued later
 * in the same queue entry goes into the socket's own slot, never into the
 * caller's buffer the entry pointed at before. */
START_TEST(a_queued_reference_is_sent_from_the_callers_buffer_and_never_written)
{
    own_netns_with_lo_mtu(1500);
    close(lo_sender()); /* lo up */
    rawsock tx, rx;
    char err[160];
    ck_assert_msg(rawsock_open(&tx, "lo", 0, err, sizeof err) == 0, "%s", err);
    ck_assert_msg(rawsock_open(&rx, "lo", 0, err, sizeof err) == 0, "%s", err);
    static uint8_t relayed[1000], other[1000], want[1000];
    fill_frame(relayed, 1, sizeof relayed);
    ck_assert_int_eq(rawsock_queue_ref(&tx, relayed, sizeof relayed), 0);
    fill_frame(relayed, 0, sizeof relayed); /* rewritten before the flush: no copy was taken */
    rawsock_flush(&tx);
    fill_frame(other, 1, sizeof other);
    ck_assert_int_eq(rawsock_queue(&tx, other, sizeof other), 0); /* the same queue entry */
    fill_frame(want, 0, sizeof want);
    ck_assert_mem_eq(relayed, want, sizeof want);
    ck_assert_ptr_eq(tx.tiov[0].iov_base, tx.tbuf);
    rawsock_flush(&tx);
    ck_assert_int_eq(rawsock_queue_ref(&tx, relayed, 20000), -1); /* longer than a slot */
    unsigned seq = 0;
    ck_assert_uint_eq(drain(&rx, &seq, sizeof relayed), 2);
    ck_assert_uint_eq(tx.tx_dropped, 0);
    rawsock_close(&tx);
    rawsock_close(&rx);
}
END_TEST

START_TEST(ring_drops_a_frame_longer_than_its_slot)
{
    own_netns_with_lo_mtu(1500);
    rawsock s;
    char err[160];
    int tx = lo_sender();
    ck_assert_msg(rawsock_open(&s, "lo", 64, err, sizeof err) == 0, "%s", err);
    set_lo_mtu(9000); /* the ring keeps its 1500-byte slots */
    send_frame(tx, 0, 1200);
    send_frame(tx, 1, 5000);
    send_frame(tx, 2, 1200);
    unsigned got = 0;
    uint8_t seen[2] = {0};
    for (int tries = 0; tries < 3; tries++) {
        int n = rawsock_recv_batch(&s);
        for (int i = 0; i < n && got < 2; i++)
            seen[got++] = ((const uint8_t *)s.riov[i].iov_base)[14];
        rawsock_recv_done(&s);
    }
    ck_assert_uint_eq(got, 2);
    ck_assert_uint_eq(seen[0], 0);
    ck_assert_uint_eq(seen[1], 2);
    ck_assert_uint_eq(s.rx_truncated, 1);
    ck_assert(!readable(&s));
    close(tx);
    rawsock_close(&s);
}
END_TEST

/* A socket error (ENETDOWN when the port is down at bind or goes down)
 * makes the socket readable until it is read. recvmmsg() reads it; the
 * ring never calls it, so an empty batch must clear it, or an event loop
 * would be woken for ever. */
START_TEST(ring_socket_error_does_not_keep_it_readable)
{
    own_netns_with_lo_mtu(1500); /* lo is down: bind sets ENETDOWN */
    rawsock s;
    char err[160];
    ck_assert_msg(rawsock_open(&s, "lo", 64, err, sizeof err) == 0, "%s", err);
    ck_assert(readable(&s));
    ck_assert_int_eq(rawsock_recv_batch(&s), 0);
    rawsock_recv_done(&s);
    ck_assert(!readable(&s));
    /* and frames still come after it */
    int tx = lo_sender();
    unsigned seq = 0;
    send_frame(tx, 0, 800);
    ck_assert_uint_eq(drain(&s, &seq, 800), 1);
    ck_assert(!readable(&s));
    close(tx);
    rawsock_close(&s);
}
END_TEST

START_TEST(ring_larger_than_the_limit_is_refused)
{
    own_netns_with_lo_mtu(1500);
    rawsock s;
    char err[160] = "";
    ck_assert_int_eq(rawsock_open(&s, "lo", RAWSOCK_RING_MAX + 1, err, sizeof err), -1);
    ck_assert_msg(strstr(err, "at most") != NULL, "%s", err);
    ck_assert_int_eq(s.fd, -1);
    ck_assert_ptr_null(s.ring);
}
END_TEST

/* A frame whose checksum the sending kernel left partial (what
 * --data-path kernel sends over Linux bridges, core/frame_csum.h) is
 * marked as such, by recvmmsg (PACKET_AUXDATA) and by the ring alike, and
 * a complete one is not. The partial one is made by a packet socket with
 * a virtio-net header asking for the checksum; lo keeps it partial. */
static void partial_flag_is_reported(unsigned ring)
{
    own_netns_with_lo_mtu(1500);
    int plain = lo_sender(), partial = lo_sender(), one = 1;
    ck_assert_int_eq(setsockopt(partial, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof one), 0);
    rawsock s;
    char err[160];
    ck_assert_msg(rawsock_open(&s, "lo", ring, err, sizeof err) == 0, "%s", err);
    static uint8_t f[sizeof(struct virtio_net_hdr) + 200];
    for (unsigned round = 0; round < 3; round++) {
        struct virtio_net_hdr vh = {.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM, .csum_start = 60, .csum_offset = 16};
        memcpy(f, &vh, sizeof vh);
        fill_frame(f + sizeof vh, 2 * round, 200);
        ck_assert_int_eq(send(partial, f, sizeof f, 0), (ssize_t)sizeof f);
        send_frame(plain, 2 * round + 1, 200);
    }
    unsigned got = 0;
    for (int tries = 0; tries < 100 && got < 6; tries++) {
        int n = rawsock_recv_batch(&s);
        for (int i = 0; i < n; i++, got++) {
            const uint8_t *fr = s.riov[i].iov_base;
            ck_assert_uint_eq(fr[14], got);
            ck_assert_msg(s.rcsum_partial[i] == (got % 2 == 0), "frame %u: partial %d", got, s.rcsum_partial[i]);
        }
        rawsock_recv_done(&s);
        if (!n)
            usleep(1000);
    }
    ck_assert_uint_eq(got, 6);
    close(plain);
    close(partial);
    rawsock_close(&s);
}

START_TEST(partial_checksums_are_reported_by_recvmmsg) { partial_flag_is_reported(0); }
END_TEST

START_TEST(partial_checksums_are_reported_by_the_ring) { partial_flag_is_reported(8); }
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_rawsock");
    TCase *tc = tcase_create("rawsock");
    tcase_add_test(tc, slot_follows_the_mtu);
    if (geteuid() == 0) {
        tcase_add_test(tc, buffers_are_resident_and_sized_at_mtu_1500);
        tcase_add_test(tc, buffers_are_resident_and_sized_at_mtu_9000);
        tcase_add_test(tc, a_queued_reference_is_sent_from_the_callers_buffer_and_never_written);
        tcase_add_test(tc, ring_hands_out_frames_in_order_across_its_wrap);
        tcase_add_test(tc, ring_drops_a_frame_longer_than_its_slot);
        tcase_add_test(tc, ring_socket_error_does_not_keep_it_readable);
        tcase_add_test(tc, ring_larger_than_the_limit_is_refused);
        tcase_add_test(tc, partial_checksums_are_reported_by_recvmmsg);
        tcase_add_test(tc, partial_checksums_are_reported_by_the_ring);
    } else {
        fprintf(stderr, "test_agent_rawsock: not root, the namespace tests are skipped\n");
    }
    suite_add_tcase(s, tc);
    return tu_run(s);
}
