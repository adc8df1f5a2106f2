/* The routing algorithms' scratch arena (topo/scratch.h): blocks freed in
 * any order come back once everything above them is free, a request that
 * does not fit goes to the allocator (counted), and without an arena in
 * use the calls are plain malloc/free. */
#include <stdint.h>
#include <string.h>

#include "testutil.h"
#include "topo/scratch.h"

START_TEST(blocks_freed_in_any_order_come_back)
{
    dcn_scratch s;
    ck_assert_int_eq(dcn_scratch_init(&s, 1024), 0);
    dcn_scratch *prev = dcn_scratch_enter(&s);
    uint8_t *a = dcn_tmp_alloc(100), *b = dcn_tmp_alloc(100);
    ck_assert(a >= s.base && a < s.base + s.cap);
    ck_assert(b > a);
    size_t used = s.used;
    dcn_tmp_free(a); /* not the top: stays reserved while b lives */
    ck_assert_uint_eq(s.used, used);
    uint8_t *c = dcn_tmp_alloc(16);
    ck_assert(c > b);
    memset(b, 1, 100); /* b is intact and usable */
    dcn_tmp_free(c);
    dcn_tmp_free(b);
    ck_assert_uint_eq(s.used, 0);
    uint8_t *z = dcn_tmp_calloc(10, 10);
    for (int i = 0; i < 100; i++)
        ck_assert_uint_eq(z[i], 0);
    dcn_tmp_free(z);
    ck_assert_uint_eq(s.overflows, 0);
    ck_assert_uint_gt(s.high_water, 200);
    /* too big: served by malloc, counted, freed by free */
    uint8_t *big = dcn_tmp_alloc(4096);
    ck_assert_ptr_nonnull(big);
    ck_assert(big < s.base || big >= s.base + s.cap);
    ck_assert_uint_eq(s.overflows, 1);
    dcn_tmp_free(big);
    dcn_scratch_leave(prev);
    /* no arena: plain allocator */
    uint8_t *m = dcn_tmp_alloc(64);
    ck_assert(m < s.base || m >= s.base + s.cap);
    dcn_tmp_free(m);
    dcn_scratch_free(&s);
}
END_TEST

int main(void)
{
    Suite *su = suite_create("scratch");
    TCase *tc = tcase_create("scratch");
    tcase_add_test(tc, blocks_freed_in_any_order_come_back);
    suite_add_tcase(su, tc);
    return tu_run(su);
}
