/* The running agent's system-call allow-list (os/syscall_filter.h): a
 * listed call runs; an unlisted one (execve, getcwd, a socket of a family
 * the agent never opens, getcwd) fails with EPERM and is counted, and the process
 * goes on; a call through a foreign ABI kills it. Each case runs in a child
 * process, since a filter cannot be taken off. A running agent's filter is
 * checked by tests/integration/test_agent_privs.py. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "agent/os/syscall_filter.h"
#include "testutil.h"

/* Runs fn in a child under the filter; its wait status. */
static int filtered_child(int (*fn)(void))
{
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        char err[200];
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || syscall_filter_install(err, sizeof err) < 0) {
            fprintf(stderr, "install: %s\n", err);
            _exit(100);
        }
        _exit(fn());
    }
    int st;
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    return st;
}

static int denied_with_eperm(long rc)
{
    return rc == -1 && errno == EPERM;
}

static int listed_run_unlisted_fail(void)
{
    if (getpid() <= 0)
        return 1;
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return 2; /* a family the agent uses */
    close(fd);
    /* unlisted calls that do no harm should they run: an exec of no file
     * (ENOENT), a socket of an unused family, the working directory */
    char *argv[] = {"/nonexistent/dcn-syscall-filter-test", NULL}, *envp[] = {NULL};
    if (!denied_with_eperm(syscall(SYS_execve, argv[0], argv, envp)))
        return 3;
    if (!denied_with_eperm(socket(AF_INET6, SOCK_STREAM, 0)))
        return 4;
    char cwd[256];
    if (!denied_with_eperm(syscall(SYS_getcwd, cwd, sizeof cwd)))
        return 5;
    if (syscall_filter_denied() != 3)
        return 6;
    return 0;
}

START_TEST(listed_calls_run_and_others_fail_with_eperm)
{
    int st = filtered_child(listed_run_unlisted_fail);
    ck_assert_msg(WIFEXITED(st), "the child was killed (signal %d)", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
    ck_assert_int_eq(WEXITSTATUS(st), 0);
}
END_TEST

#if defined(__x86_64__)
static int foreign_abi_call(void)
{
    syscall(0x40000000L | SYS_getpid); /* getpid through the x32 ABI */
    return 0;
}

START_TEST(a_foreign_abi_call_kills_the_process)
{
    int st = filtered_child(foreign_abi_call);
    ck_assert(WIFSIGNALED(st));
    ck_assert_int_eq(WTERMSIG(st), SIGSYS);
}
END_TEST
#endif

int main(void)
{
    Suite *s = suite_create("agent_syscall_filter");
    TCase *tc = tcase_create("syscall_filter");
    tcase_add_test(tc, listed_calls_run_and_others_fail_with_eperm);
#if defined(__x86_64__)
    tcase_add_test(tc, a_foreign_abi_call_kills_the_process);
#endif
    suite_add_tcase(s, tc);
    return tu_run(s);
}
