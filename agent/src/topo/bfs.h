/* Breadth-first searches over the physical graph. */
#ifndef DCN_BFS_H
#define DCN_BFS_H

#include <stdint.h>

#include "failures.h"
#include "path.h"
#include "topo.h"

/* Shortest path in links from src to dst that avoids failed nodes and links
 * and every node marked in avoid (NULL: none; src and dst are never avoided).
 * Switches are transit nodes like any other. Neighbours are visited in port
 * order, so the result is deterministic. Returns 0, or -1 when none exists. */
int dcn_bfs_path(const dcn_topo *t, uint32_t src, uint32_t dst, const dcn_failures *f, const uint8_t *avoid,
                 dcn_path *out);

/* Distances from src to every server, in links (hops_out NULL to skip) and in
 * server hops (a hop leaves a server for the next server through any number
 * of switches or over one direct cable). UINT32_MAX marks unreachable. Both
 * outputs are arrays of n_servers entries. */
void dcn_bfs_server_distances(const dcn_topo *t, uint32_t src, const dcn_failures *f, uint32_t *links_out,
                              uint32_t *hops_out);

/* BSR's repair of a path set under failures: every path that crosses a
 * failed node or link is replaced by the BFS path that avoids the failures
 * and the nodes of all the other paths (dropped if none exists). Returns
 * the number of paths kept. */
int dcn_pathset_repair(const dcn_topo *t, const dcn_failures *f, dcn_pathset *s);

#endif
