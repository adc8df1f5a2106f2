/* BCube routes that start or end at a switch (MDCube, CoNEXT 2009, section
 * 2.2 and Appendix A), additive to bcube_addr.h. Routes are server
 * sequences; the switch between two consecutive servers X, Y differing in
 * digit l is bc_switch_of(X, l). */
#ifndef DCN_BCUBE_SWITCH_ROUTE_H
#define DCN_BCUBE_SWITCH_ROUTE_H

#include <stdint.h>

#include "bcube_addr.h"

/* Longest server sequence any of these functions writes. */
#define BC_SW_SEQ_MAX (BC_MAX_LEVELS + 3)

/* The server of switch sw nearest to server a: the one on port a[level(sw)]. */
uint32_t bc_switch_entry(const bc_dims *d, uint32_t sw, uint32_t a);

/* Switch-to-switch path `i` (0..n-1) of property 3, after Appendix A
 * (reconstructed, see docs/topologies/mdcube.md): the n paths i = 0..n-1
 * between switches w0 != w1 are node-disjoint. Writes the servers from the
 * one on w0 to the one on w1; returns the count. */
uint32_t bc_switch_pair_path(const bc_dims *d, uint32_t w0, uint32_t w1, uint32_t i, uint32_t *seq);

/* The index i whose property-3 path is a shortest one: w1's digit at w0's
 * level when the levels differ, 0 when they are equal (all are shortest). */
uint32_t bc_switch_pair_shortest(const bc_dims *d, uint32_t w0, uint32_t w1);

/* Property 4 (k+1 <= n): k+1 node-disjoint paths from switch sw to server a
 * (the project's construction, notes section 1). Path i's servers go to
 * seqs[i] (the first is on sw, the last is a), lens[i] their count.
 * Returns k+1, or 0 when k+1 > n. */
uint32_t bc_switch_server_paths(const bc_dims *d, uint32_t sw, uint32_t a, uint32_t seqs[][BC_SW_SEQ_MAX],
                                uint32_t *lens);

#endif
