/* Internally node-disjoint paths by max-flow, for the cases the papers give
 * no construction for (BCN pathset across copies, h >= gamma).
 *
 * Every node has capacity 1 except src, dst and the `shared` nodes (the
 * endpoints' own switches: a dual-port server cannot have more than two
 * fully disjoint paths otherwise). Augmenting paths are found by BFS in port
 * order (Edmonds-Karp), so the result is deterministic; the paths come back
 * shortest first. Failed nodes and links are left out when f is not NULL,
 * and so are the nodes marked in avoid (NULL: none; never src or dst). */
#ifndef DCN_HCN_FLOW_H
#define DCN_HCN_FLOW_H

#include <stdint.h>

#include "failures.h"
#include "path.h"
#include "topo.h"

/* Fills out with at most `want` paths (full node sequences). Returns the
 * number found, or -1 when out of memory. */
int hcn_disjoint_paths(const dcn_topo *t, uint32_t src, uint32_t dst, const uint32_t *shared, int n_shared,
                       uint32_t want, const dcn_failures *f, const uint8_t *avoid, dcn_pathset *out);

#endif
