/* dcn-sim's failure sampling: the ratio is honoured, the same seed fails the
 * same elements, another seed others. */
#include <stdlib.h>
#include <string.h>

#include "sim_failures.h"
#include "testutil.h"

static uint32_t count_down(const dcn_failures *f, uint32_t from, uint32_t to)
{
    uint32_t n = 0;
    for (uint32_t v = from; v < to; v++)
        n += f->node_down[v] != 0;
    return n;
}

START_TEST(sampling_is_reproducible_by_seed)
{
    dcn_topo t;
    tu_build(&t, "bcube n=8 k=3 parts=4");
    dcn_failures a, b;
    ck_assert_int_eq(dcn_failures_init(&a, &t), 0);
    ck_assert_int_eq(dcn_failures_init(&b, &t), 0);
    uint32_t nn = dcn_n_nodes(&t), np = t.port_base[nn];

    ck_assert_int_eq(sim_failures_sample(&a, &t, SIM_FAIL_SERVER, 0.1, 42), 205); /* round(204.8) */
    ck_assert_uint_eq(count_down(&a, 0, t.n_servers), 205);
    ck_assert_uint_eq(count_down(&a, t.n_servers, nn), 0);
    ck_assert_int_eq(sim_failures_sample(&b, &t, SIM_FAIL_SERVER, 0.1, 42), 205);
    ck_assert_int_eq(memcmp(a.node_down, b.node_down, nn), 0);
    ck_assert_int_eq(sim_failures_sample(&b, &t, SIM_FAIL_SERVER, 0.1, 43), 205);
    ck_assert_int_ne(memcmp(a.node_down, b.node_down, nn), 0);

    ck_assert_int_eq(sim_failures_sample(&a, &t, SIM_FAIL_SWITCH, 0.2, 5), 256); /* 1280 switches */
    ck_assert_uint_eq(count_down(&a, 0, t.n_servers), 0);
    ck_assert_uint_eq(count_down(&a, t.n_servers, nn), 256);
    ck_assert_int_eq(sim_failures_sample(&b, &t, SIM_FAIL_SWITCH, 0.2, 5), 256);
    ck_assert_int_eq(memcmp(a.node_down, b.node_down, nn), 0);

    ck_assert_int_eq(sim_failures_sample(&a, &t, SIM_FAIL_LINK, 0.05, 9), 410); /* 8192 cables */
    ck_assert_uint_eq(a.n_links_down, 410);
    uint32_t ports_down = 0;
    for (uint32_t p = 0; p < np; p++)
        ports_down += a.port_down[p] != 0;
    ck_assert_uint_eq(ports_down, 820); /* both ends of every cable */
    ck_assert_int_eq(sim_failures_sample(&b, &t, SIM_FAIL_LINK, 0.05, 9), 410);
    ck_assert_int_eq(memcmp(a.port_down, b.port_down, np), 0);

    ck_assert_int_eq(sim_failures_sample(&a, &t, SIM_FAIL_SERVER, 0, 1), 0);
    ck_assert_uint_eq(count_down(&a, 0, nn), 0);
    ck_assert_int_eq(sim_failures_sample(&a, &t, SIM_FAIL_NONE, 0.5, 1), 0);
    ck_assert_int_eq(sim_failures_sample(&a, &t, SIM_FAIL_SERVER, 1.0, 1), 2048);

    sim_fail_kind k;
    ck_assert_int_eq(sim_fail_kind_parse("switch", &k), 0);
    ck_assert_int_eq(k, SIM_FAIL_SWITCH);
    ck_assert_int_eq(sim_fail_kind_parse("router", &k), -1);
    dcn_failures_free(&a);
    dcn_failures_free(&b);
    dcn_topo_free(&t);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sim_failures");
    TCase *tc = tcase_create("sampling");
    tcase_add_test(tc, sampling_is_reproducible_by_seed);
    suite_add_tcase(s, tc);
    return tu_run(s);
}
