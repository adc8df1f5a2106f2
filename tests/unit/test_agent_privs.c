/* Least privilege (os/privs.h): after privs_drop the process holds at most
 * CAP_NET_RAW, CAP_NET_ADMIN and CAP_BPF, has no_new_privs set, and as root
 * cannot get another capability back. Each case runs in a child process,
 * so this test keeps its own. A running agent's sets are checked by
 * tests/integration/test_agent_privs.py. */
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/os/privs.h"
#include "testutil.h"

/* Runs fn in a child; its exit status. */
static int in_child(int (*fn)(void))
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        _exit(fn());
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static int drop_and_check(void)
{
    uint64_t before = privs_effective();
    char err[200];
    if (privs_drop(err, sizeof err) < 0) {
        fprintf(stderr, "privs_drop: %s\n", err);
        return 1;
    }
    uint64_t after = privs_effective();
    if (after != (before & PRIVS_KEEP_MASK))
        return 2; /* more (or less) than the kept ones of what we had */
    if (prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) != 1)
        return 3;
    if (getuid() == 0 && after != PRIVS_KEEP_MASK)
        return 4; /* root had them all: exactly the three are left */
    if (getuid() == 0 && prctl(PR_CAPBSET_READ, 21 /* CAP_SYS_ADMIN */, 0, 0, 0) != 0)
        return 5; /* gone from the bounding set too */
    return 0;
}

START_TEST(only_the_kept_capabilities_remain)
{
    ck_assert_int_eq(in_child(drop_and_check), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("agent_privs");
    TCase *tc = tcase_create("privs");
    tcase_add_test(tc, only_the_kept_capabilities_remain);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
