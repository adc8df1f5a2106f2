/* The raw socket's batch buffers: sized from the port's MTU and resident
 * from the moment the socket opens (rawsock.h). Needs root: each test runs
 * in a network namespace of its own (Check forks per test) on its loopback
 * port, whose MTU it sets. Without root the suite is skipped (77). */

#include <check.h>
#include <net/if.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include "agent/os/rawsock.h"
#include "testutil.h"

static void own_netns_with_lo_mtu(int mtu)
{
    ck_assert_int_eq(unshare(CLONE_NEWNET), 0);
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    ck_assert_int_ge(fd, 0);
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
    ifr.ifr_mtu = mtu;
    ck_assert_int_eq(ioctl(fd, SIOCSIFMTU, &ifr), 0);
    close(fd);
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
    ck_assert_msg(rawsock_open(&s, "lo", err, sizeof err) == 0, "%s", err);
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

int main(void)
{
    Suite *s = suite_create("agent_rawsock");
    TCase *tc = tcase_create("rawsock");
    tcase_add_test(tc, slot_follows_the_mtu);
    if (geteuid() == 0) {
        tcase_add_test(tc, buffers_are_resident_and_sized_at_mtu_1500);
        tcase_add_test(tc, buffers_are_resident_and_sized_at_mtu_9000);
    } else {
        fprintf(stderr, "test_agent_rawsock: not root, the namespace tests are skipped\n");
    }
    suite_add_tcase(s, tc);
    return tu_run(s);
}
