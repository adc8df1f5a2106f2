/* IPv6 off on the agent's own devices (agent/os/ipv6_off.h): the file is
 * written only when IPv6 is still on, since a write spins on the kernel's
 * RTNL lock while other agents hold it. On a folder of stand-in files: a
 * file that says 1 is left untouched (its time stamp stays), one that says
 * 0 is turned to 1, a missing one is reported. With root, in a network
 * namespace of its own (Check forks per test): a veth end born with IPv6
 * off (default.disable_ipv6 = 1, as the testbed sets it) is not written,
 * one born with it on is turned off. */

#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "agent/os/ipv6_off.h"
#include "testutil.h"

static char dir[PATH_MAX];

static void make_conf(const char *ifname, const char *content)
{
    snprintf(dir, sizeof dir, "/tmp/dcn-ipv6-off-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", dir, ifname);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    snprintf(path, sizeof path, "%s/%s/disable_ipv6", dir, ifname);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(content, f);
    fclose(f);
    /* a time stamp far in the past: any write moves it */
    struct timespec old[2] = {{.tv_sec = 1000}, {.tv_sec = 1000}};
    ck_assert_int_eq(utimensat(AT_FDCWD, path, old, 0), 0);
}

static void read_conf(const char *ifname, char *out, size_t outlen, time_t *mtime)
{
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s/disable_ipv6", dir, ifname);
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    *mtime = st.st_mtime;
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    ck_assert_ptr_nonnull(fgets(out, (int)outlen, f));
    fclose(f);
}

static void remove_conf(void)
{
    char cmd[PATH_MAX + 32];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    ck_assert_int_eq(system(cmd), 0);
}

/* A stand-in file that says `before`: what ipv6_off answers, and whether
 * it wrote the file (its old time stamp moved); it says 1 afterwards. */
static void stand_in(const char *ifname, const char *before, int want_rc, bool written)
{
    make_conf(ifname, before);
    ck_assert_int_eq(ipv6_off(dir, ifname), want_rc);
    char now[8];
    time_t mtime;
    read_conf(ifname, now, sizeof now, &mtime);
    ck_assert_str_eq(now, "1\n");
    ck_assert_int_eq(mtime != 1000, written);
    remove_conf();
}

START_TEST(off_already_is_not_written) { stand_in("dcn0", "1\n", 0, false); }
END_TEST

START_TEST(on_is_turned_off) { stand_in("dcn0s", "0\n", 1, true); }
END_TEST

START_TEST(missing_interface_is_reported)
{
    make_conf("dcn0", "1\n");
    ck_assert_int_eq(ipv6_off(dir, "dcn9"), -1);
    ck_assert_int_eq(ipv6_off("/nonexistent/dcn-ipv6-off", "dcn0"), -1);
    char longname[300];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ck_assert_int_eq(ipv6_off(dir, longname), -1);
    remove_conf();
}
END_TEST

/* In a namespace of its own: default.disable_ipv6 set to born_off, then a
 * veth pair made; returns what ipv6_off said for its first end, and checks
 * that IPv6 is off on it afterwards. */
static int real_interface(int born_off)
{
    ck_assert_int_eq(unshare(CLONE_NEWNET), 0);
    FILE *f = fopen(IPV6_CONF_DIR "/default/disable_ipv6", "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "%d\n", born_off);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(system("ip link add dcntv6a type veth peer name dcntv6b"), 0);
    int rc = ipv6_off(IPV6_CONF_DIR, "dcntv6a");
    f = fopen(IPV6_CONF_DIR "/dcntv6a/disable_ipv6", "r");
    ck_assert_ptr_nonnull(f);
    int v = -1;
    ck_assert_int_eq(fscanf(f, "%d", &v), 1);
    fclose(f);
    ck_assert_int_eq(v, 1);
    return rc;
}

START_TEST(real_interface_born_off_is_not_written) { ck_assert_int_eq(real_interface(1), 0); }
END_TEST

START_TEST(real_interface_born_on_is_turned_off) { ck_assert_int_eq(real_interface(0), 1); }
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_ipv6_off");
    TCase *tc = tcase_create("ipv6_off");
    tcase_add_test(tc, off_already_is_not_written);
    tcase_add_test(tc, on_is_turned_off);
    tcase_add_test(tc, missing_interface_is_reported);
    if (geteuid() == 0 && access(IPV6_CONF_DIR, F_OK) == 0) {
        tcase_add_test(tc, real_interface_born_off_is_not_written);
        tcase_add_test(tc, real_interface_born_on_is_turned_off);
    } else {
        fprintf(stderr, "test_agent_ipv6_off: not root or no IPv6, the namespace tests are skipped\n");
    }
    suite_add_tcase(s, tc);
    return tu_run(s);
}
