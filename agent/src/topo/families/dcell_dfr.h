/* DFR, DCell's fault-tolerant routing (Guo et al., SIGCOMM 2008, Sec. 4.2),
 * as the project reads it (docs/simulator.md):
 *  - inside one DCell_b (b = 1: a DCell_1, or the DCell_0 when k = 0) the
 *    servers know the link state and take a shortest live path (BFS);
 *  - between DCell_b's the route follows DCellRouting: the level-l link
 *    (n1, n2) between the two sub-DCell_(l-1)s, recursively on both sides;
 *  - local reroute: when that link or one of its servers is down, the flow
 *    goes through a proxy: a sub-DCell_(l-1) m of the same DCell_l, drawn at
 *    random, entered by its own level-l link from the source side, and from
 *    there to the destination by DFR again (up to DFR_PROXY_TRIES draws per
 *    level, and a bounded total number of reroutes per flow);
 *  - when no proxy works the flow has no path (the paper's jump-up is the
 *    same proxy step one level higher, which the recursion already tries
 *    from the top level down).
 * Loops that detours create are erased. */
#ifndef DCN_DCELL_DFR_H
#define DCN_DCELL_DFR_H

#include "../family.h"

int dcell_algo_dfr(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_route_ctx *ctx, dcn_pathset *out);

#endif
