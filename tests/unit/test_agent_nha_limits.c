/* The agent refuses topologies its one-byte NHA cannot name, instead of
 * coming up and losing the packets that need a port it cannot encode. */
#include <string.h>

#include "testutil.h"
#include "agent/core/nha.h"

static int check(const char *spec, char *err, size_t len)
{
    dcn_topo t;
    tu_build(&t, spec);
    int rc = nha_topology_check(&t, err, len);
    dcn_topo_free(&t);
    return rc;
}

START_TEST(accepts_what_the_nha_can_name)
{
    char err[256];
    const char *ok[] = {"bcube n=4 k=1", "bcube n=8 k=3", "bcube n=8 k=3 parts=4", "bcube n=62 k=1",
                        "mdcube n=2 k=1 m=5", "mdcube n=31 k=0 m=2", "hcn n=4 h=2", "bcdc n=4", "dcell n=4 k=1"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        ck_assert_msg(check(ok[i], err, sizeof err) == 0, "%s refused: %s", ok[i], err);
}
END_TEST

START_TEST(refuses_five_port_servers_and_wide_switches)
{
    char err[256];
    ck_assert_int_lt(check("bcube n=2 k=4", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "servers have 5 ports"));
    ck_assert_int_lt(check("bcube n=64 k=1", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "64 server ports"));
    /* MDCube n=32: the fiber index n + 31 would be 63, the direct-cable code. */
    ck_assert_int_lt(check("mdcube n=32 k=0 m=2", err, sizeof err), 0);
    ck_assert_ptr_nonnull(strstr(err, "NHA index"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_nha_limits");
    TCase *tc = tcase_create("limits");
    tcase_add_test(tc, accepts_what_the_nha_can_name);
    tcase_add_test(tc, refuses_five_port_servers_and_wide_switches);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
