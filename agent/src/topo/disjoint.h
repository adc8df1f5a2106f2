/* A maximum set of node-disjoint paths between two nodes of any topology,
 * avoiding failed nodes and links. Generic: it only reads the graph, so every
 * family can use it as its parallel path set or as a reference. */
#ifndef DCN_DISJOINT_H
#define DCN_DISJOINT_H

#include <stdint.h>

#include "failures.h"
#include "path.h"
#include "topo.h"

/* Fills out with up to max_paths paths from src to dst (full node sequences)
 * that share no node except src and dst, and cross no failed node or link
 * (f may be NULL). The set has the largest possible size (up to max_paths,
 * and up to DCN_PATHSET_MAX), and among such sets the smallest total number
 * of links; paths are sorted by length, shortest first, ties in the order
 * of src's ports.
 *
 * Method: unit-capacity min-cost flow on the node-split graph (every node
 * other than src and dst has capacity 1, every link costs 1), successive
 * shortest augmenting paths by Dijkstra on potential-reduced costs.
 * Cost O(max_paths * E log E).
 *
 * Returns the number of paths (0 when src or dst failed or none exists), or
 * -1 for a bad request (node out of range, src == dst, out of memory). */
int dcn_disjoint_paths(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_failures *f, uint32_t max_paths,
                       dcn_pathset *out);

/* The same with switches as free transit: the paths share no server except
 * src and dst, but may share switches and the cables next to them. This is
 * node-disjointness in the server-level graph (two servers adjacent when
 * cabled directly or through one switch), e.g. Thm 1 of BCDC, where dual-port
 * servers allow at most 2 fully node-disjoint paths but 2n-2 server-disjoint
 * ones. Each path is still a simple node sequence. Fewest total links too.
 * One exception to maximality: when src and dst share a switch (or a cable),
 * that one-switch path is returned once and the other paths must leave src
 * through its other ports, since a path that left src through the shared
 * switch and came back to it to reach dst would not be simple. */
int dcn_server_disjoint_paths(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_failures *f,
                              uint32_t max_paths, dcn_pathset *out);

/* A maximum set (as above; server-disjoint when server_disjoint is true)
 * that starts with the given lead path (e.g. the family's own route)
 * whenever some maximum set contains it; otherwise the plain set. The lead
 * is used only if it is valid under f. Returns the number of paths, or -1. */
int dcn_disjoint_paths_led(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_failures *f, uint32_t max_paths,
                           bool server_disjoint, const dcn_path *lead, dcn_pathset *out);

#endif
