/* Shared helpers for the Check suites. */
#ifndef DCN_TESTUTIL_H
#define DCN_TESTUTIL_H

#include <check.h>
#include <stdint.h>

#include "topo/family.h"
#include "topo/path.h"
#include "topo/topo.h"

/* Builds "family k=v k=v ..." or fails the test with the library's message. */
void tu_build(dcn_topo *t, const char *spec);
/* Builds and expects failure; returns the error message (static buffer). */
const char *tu_build_fails(const char *spec);
/* tu_build_fails, and its message contains want. */
void tu_build_fails_with(const char *spec, const char *want);
/* Server id by name, failing the test when unknown. */
uint32_t tu_node(const dcn_topo *t, const char *name);
/* "0001 <3,001> 1001" style rendering of a path (static buffer). */
const char *tu_path_str(const dcn_topo *t, const dcn_path *p);
/* Runs the named algorithm (NULL: the family's default path set). */
int tu_paths(const dcn_topo *t, const char *algo, uint32_t src, uint32_t dst, const dcn_failures *f, uint64_t seed,
             dcn_pathset *out);
/* Every path valid link by link (under f), from src to dst; pairwise node-disjoint if asked. */
void tu_check_pathset(const dcn_topo *t, const dcn_pathset *s, uint32_t src, uint32_t dst, const dcn_failures *f,
                      int want_disjoint);
/* tu_check_pathset for hot loops: calls into Check only when a path is bad
 * (Check records every passing assertion, which is slow over all pairs). */
void tu_check_paths_fast(const dcn_topo *t, const dcn_pathset *s, uint32_t src, uint32_t dst,
                         const dcn_failures *f);
/* An assertion for hot loops, with the same message form as ck_assert_msg. */
#define TU_CHECK(cond, ...)                                                                                            \
    do {                                                                                                               \
        if (!(cond))                                                                                                   \
            ck_abort_msg(__VA_ARGS__);                                                                                 \
    } while (0)
/* BFS from every server: fails the test when a pair is disconnected;
 * returns the diameter in server hops and, if sum_hops, the sum of the
 * shortest paths over the ordered pairs there. */
uint32_t tu_server_diameter(const dcn_topo *t, double *sum_hops);
/* One member of the family's `formulas` JSON (what `dcn-topo stats` prints). */
long long tu_formula(const dcn_topo *t, const char *key);
/* A node's name (static buffer, valid until the next call). */
const char *tu_name(const dcn_topo *t, uint32_t v);
/* Runs a suite with CK_NORMAL output; returns the process exit status. */
int tu_run(Suite *s);

#endif
