/* dcn-sim's command line: bad input gives one line on stderr and exit 2;
 * a good run writes its CSV. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "testutil.h"

#ifndef DCN_SIM_BIN
#error "DCN_SIM_BIN must name the dcn-sim executable"
#endif

/* Runs dcn-sim with args; returns the exit status and the output (stderr
 * if err_only, else stdout) in a static buffer. */
static int sim(const char *args, int err_only, const char **out)
{
    static char buf[8192];
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' %s %s", DCN_SIM_BIN, args, err_only ? "2>&1 >/dev/null" : "2>/dev/null");
    FILE *p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    size_t n = fread(buf, 1, sizeof buf - 1, p);
    buf[n] = '\0';
    int st = pclose(p);
    *out = buf;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void expect_usage_error(const char *args, const char *fragment)
{
    const char *err;
    ck_assert_int_eq(sim(args, 1, &err), 2);
    ck_assert_msg(strstr(err, fragment) != NULL, "'%s': wanted '%s' in '%s'", args, fragment, err);
    const char *nl = strchr(err, '\n');
    ck_assert_msg(nl && nl[1] == '\0', "'%s': not one line: '%s'", args, err);
}

START_TEST(bad_input_is_one_line_and_exit_2)
{
    expect_usage_error("bcube n=1", "bcube: n=1 is out of range (allowed 2..64)");
    expect_usage_error("nosuch n=2", "unknown topology family 'nosuch'");
    expect_usage_error("bcube n=4 --routing fast", "--routing fast: bcube has no such routing");
    expect_usage_error("bcube n=4 --routing bsr:best", "unknown path choice 'best'");
    expect_usage_error("bcube n=4 --fail router", "--fail must be none, server, switch or link");
    expect_usage_error("bcube n=4 --ratio 1.5", "--ratio takes up to 64");
    expect_usage_error("bcube n=4 --ratio 0.1,x", "--ratio takes up to 64");
    expect_usage_error("bcube n=4 --seeds 0", "--seeds must be 1..100000");
    expect_usage_error("bcube n=4 --threads -1", "--threads must be 1..64");
    expect_usage_error("bcube n=4 --pattern first:99", "--pattern must be all-to-all or first:N with N in 2..16");
    expect_usage_error("bcube n=4 --bogus", "unknown option");
    expect_usage_error("bcube n=4 --seeds", "missing value");
    expect_usage_error("mlfattree n=6 layers=9", "mlfattree: layers=9 is out of range (allowed 2..8)");
}
END_TEST

START_TEST(good_run_writes_csv)
{
    const char *out;
    ck_assert_int_eq(sim("bcube n=4 k=1 --routing route --quiet --csv -", 0, &out), 0);
    ck_assert_ptr_nonnull(strstr(out, "family,params,routing,pattern,fail,ratio,seed"));
    ck_assert_ptr_nonnull(strstr(out, "bcube,n=4 k=1 parts=4,route,all-to-all,none,0,1,0,240,0,240,240,0,"));
    ck_assert_ptr_nonnull(strstr(out, ",20.000000,"));
    ck_assert_int_eq(sim("bcube n=4 k=1 --fail server --ratio 0,0.25 --seeds 2 --quiet --csv -", 0, &out), 0);
    int rows = 0;
    for (const char *p = out; (p = strchr(p, '\n')); p++)
        rows++;
    ck_assert_int_eq(rows, 1 + 4);
    ck_assert_int_eq(sim("--help", 0, &out), 0);
    ck_assert_ptr_nonnull(strstr(out, "usage: dcn-sim"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_cli");
    TCase *tc = tcase_create("cli");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, bad_input_is_one_line_and_exit_2);
    tcase_add_test(tc, good_run_writes_csv);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
