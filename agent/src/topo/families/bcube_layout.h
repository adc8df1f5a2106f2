/* Where the nodes of a (possibly partial) BCube sit in the dense node
 * numbering, and the fast address-to-node expansion of server sequences.
 *
 * Servers: node id = BCube address baddr = sum a_i n^i; a partial BCube
 * holds the servers whose top digit a_k is below `parts`, which are exactly
 * the ids 0 .. parts*n^k - 1. Switches follow the servers, level by level:
 * for each level l < k the parts*n^(k-1) switches whose label (top label
 * digit = the servers' a_k) is below parts*n^(k-1), then all n^k level-k
 * switches. For a full BCube (parts = n) switch node = n^(k+1) + the
 * paper's integer switch id l*n^k + label. */
#ifndef DCN_BCUBE_LAYOUT_H
#define DCN_BCUBE_LAYOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "bcube_addr.h"
#include "path.h"

typedef struct bcube_layout {
    bc_dims d;
    uint32_t parts;        /* BCube_(k-1)s present, 1..n (n: full) */
    uint32_t n_servers;    /* parts * n^k */
    uint32_t low_switches; /* switches per level l < k: parts * n^(k-1) (0 when k = 0) */
    uint32_t n_switches;   /* k * low_switches + n^k */
} bcube_layout;

/* Sizes must have been validated (n^(k+1) fits in 32 bits). */
void bcube_layout_init(bcube_layout *lay, uint32_t n, uint32_t k, uint32_t parts);

/* Node id of the switch with bc_dims index sw (level*n^k + label), or
 * DCN_NONE when that switch is absent from a partial BCube. */
uint32_t bcube_switch_node(const bcube_layout *lay, uint32_t sw);
/* bc_dims switch index (level*n^k + label) of switch node v (v >= n_servers). */
uint32_t bcube_switch_index(const bcube_layout *lay, uint32_t v);

/* The level at which servers x and y differ, given that they differ in
 * exactly one digit (no division: compares |x-y| with the powers of n). */
uint32_t bcube_diff_level(const bcube_layout *lay, uint32_t x, uint32_t y);

/* Turns a server-address sequence in which neighbours differ in one digit
 * into the full node sequence (servers and the switch between each pair).
 * Returns 0, or -1 when the path would not fit. */
int bcube_expand(const bcube_layout *lay, const uint32_t *seq, uint32_t len, dcn_path *out);

#endif
